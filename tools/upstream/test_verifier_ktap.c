// SPDX-License-Identifier: GPL-2.0
/*
 * The tree's own test_verifier, one KTAP case per test and privilege.
 *
 * Upstream's main() walks tests[] and prints "#N/u descr" then "#N/p
 * descr" results, N being the place of the test in a table made of
 * all the files of verifier/: N shifts whenever a test is added anywhere, so
 * the kit names a case by its description instead, made safe for KTAP
 * and for kit.t= (letters, digits, '-' and '_'), made unique by a "_2",
 * "_3"... in table order, and ended by "/u" or "/p" as upstream does.
 *
 * The upstream file is compiled here unmodified with its main() renamed;
 * this main() does what upstream's does before its loop (drop
 * CAP_SYS_ADMIN, read kernel.unprivileged_bpf_disabled, seed the
 * generator) and runs each case through upstream's do_test_single() in
 * a child of its own: the tests keep state in globals (skips, the fill
 * helpers' buffers) and a crash must end one case, not the suite.  Like
 * upstream's do_test(), a test runs unprivileged ("/u") when
 * test_as_unpriv() says so, before its privileged run ("/p").
 *
 * "--list" prints the case names; "--check-denylist" fails when an entry
 * of tools/upstream/denylist/<base> matches no case (the build runs it).
 */
/* asprintf(); upstream's file includes stdio.h first. */
#define _GNU_SOURCE
#define main upstream_test_verifier_main
#include "test_verifier.c"
#undef main

#include <ctype.h>

#include "child.h"
#include "denylist.h"
#include "ktap.h"

/* The longest test (the 1M-instruction scale ones) takes seconds. */
#define CASE_TIMEOUT	600

static const struct deny_entry denylist[] = {
#define DENY(glob, reason) { glob, reason },
#include "test_verifier_deny.h"
#undef DENY
};

struct verifier_case {
	struct bpf_test *test;
	bool unpriv;
	const char *denied;
};

static struct ktap_case *cases;
static struct verifier_case *vcases;
static size_t nr_cases;
static bool admin;

/* @descr with every run of other characters than [A-Za-z0-9-] as one '_'. */
static char *safe_name(const char *descr)
{
	char *name = malloc(strlen(descr) + 1), *p = name;

	if (!name)
		return NULL;
	for (; *descr; descr++) {
		if (isalnum((unsigned char)*descr) || *descr == '-')
			*p++ = *descr;
		else if (p > name && p[-1] != '_')
			*p++ = '_';
	}
	while (p > name && p[-1] == '_')
		p--;
	*p = '\0';
	return name;
}

/* The case name base of tests[@i]: unique among tests[0..@i]. */
static char *base_name(char **bases, size_t i)
{
	char *name = safe_name(tests[i].descr ? tests[i].descr : ""), *uniq;
	unsigned int n = 1;
	size_t j;

	if (!name)
		return NULL;
	if (!*name) {
		free(name);
		name = strdup("unnamed");
	}
again:
	uniq = n == 1 ? strdup(name) : NULL;
	if (n > 1 && asprintf(&uniq, "%s_%u", name, n) < 0)
		uniq = NULL;
	if (!uniq) {
		free(name);
		return NULL;
	}
	for (j = 0; j < i; j++) {
		if (!strcmp(bases[j], uniq)) {
			free(uniq);
			n++;
			goto again;
		}
	}
	free(name);
	return uniq;
}

static enum ktap_result run_case(void);

static int add_case(char *base, struct bpf_test *test, bool unpriv)
{
	char *name;

	if (asprintf(&name, "%s/%c", base, unpriv ? 'u' : 'p') < 0)
		return -1;
	cases[nr_cases].name = name;
	cases[nr_cases].run = run_case;
	vcases[nr_cases].test = test;
	vcases[nr_cases].unpriv = unpriv;
	vcases[nr_cases].denied = deny_reason(denylist, ARRAY_SIZE(denylist), name);
	nr_cases++;
	return 0;
}

static int make_cases(void)
{
	size_t i, nr_tests = ARRAY_SIZE(tests);
	char **bases = calloc(nr_tests, sizeof(*bases));

	cases = calloc(2 * nr_tests, sizeof(*cases));
	vcases = calloc(2 * nr_tests, sizeof(*vcases));
	if (!bases || !cases || !vcases)
		return -1;
	for (i = 0; i < nr_tests; i++) {
		bases[i] = base_name(bases, i);
		if (!bases[i])
			return -1;
		if (test_as_unpriv(&tests[i]) && add_case(bases[i], &tests[i], true))
			return -1;
		if (add_case(bases[i], &tests[i], false))
			return -1;
	}
	return 0;
}

static int run_single(void *arg)
{
	const struct verifier_case *c = arg;
	int passes = 0, errors = 0, skips_before = skips;

	/* As upstream's do_test() does around an unprivileged run. */
	if (c->unpriv && set_admin(false))
		return 1;
	do_test_single(c->test, c->unpriv, &passes, &errors);
	fflush(stdout);
	if (errors)
		return 1;
	if (skips != skips_before)
		return KSFT_SKIP;
	return passes ? 0 : 1;
}

static enum ktap_result run_case(void)
{
	const struct verifier_case *c = &vcases[ktap_current_case() - cases];

	if (c->denied) {
		ktap_skip_reason("denylisted: %s", c->denied);
		return KTAP_SKIP;
	}
	/* Where upstream's do_test() prints SKIP without running it. */
	if (c->unpriv && unpriv_disabled) {
		ktap_skip_reason("kernel.unprivileged_bpf_disabled is set");
		return KTAP_SKIP;
	}
	if (!c->unpriv && !admin) {
		ktap_skip_reason("not run with CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON");
		return KTAP_SKIP;
	}
	return run_in_child(run_single, (void *)c, CASE_TIMEOUT);
}

int main(int argc, char **argv)
{
	size_t i;

	if (make_cases()) {
		printf("# test_verifier: out of memory\n");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < nr_cases; i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--check-denylist"))
		return !!deny_check("test_verifier", denylist, ARRAY_SIZE(denylist),
				    cases, nr_cases);

	/* Upstream's main(), up to its loop. */
	admin = is_admin();
#if __has_include("unpriv_helpers.h")
	/* 6.12 on: unpriv_helpers.c's, which returns what it read */
	unpriv_disabled = get_unpriv_disabled();
#else
	get_unpriv_disabled();
#endif
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	bpf_semi_rand_init();
	return ktap_run_suite("test_verifier", cases, nr_cases,
			      argc > 1 ? argv[1] : NULL);
}
