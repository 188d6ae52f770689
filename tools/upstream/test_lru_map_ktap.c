// SPDX-License-Identifier: GPL-2.0
/*
 * The tree's own test_lru_map, one KTAP case per test, map type and flag.
 *
 * Upstream's main() calls every test_lru_sanityN() for each LRU map type
 * and for common and per-CPU LRU lists, and the first assert() ends it.
 * The upstream file is compiled here unmodified with its main() renamed;
 * tools/upstream/gen-test-lru-map makes the table of calls from that
 * main(), with the same arrays and locals, and each call runs in a child
 * of its own, so that one failure is one failed case.
 *
 * "--list" prints the case names; "--check-denylist" fails when an entry
 * of tools/upstream/denylist/<base> matches no case (the build runs it).
 */
#define main upstream_test_lru_map_main
#include "test_lru_map.c"
#undef main

#include "child.h"
#include "denylist.h"
#include "ktap.h"

static const struct deny_entry denylist[] = {
#define DENY(glob, reason) { glob, reason },
#include "test_lru_map_deny.h"
#undef DENY
};

/* Each case is upstream's loop body for one (t, f), with its locals. */
#define CASE(id, name, t_, f_, call)					\
	static int id##_body(void *arg)					\
	{								\
		int map_types[] = LRU_MAP_TYPES;			\
		int map_flags[] = LRU_MAP_FLAGS;			\
		int t = t_, f = f_;					\
		LRU_LOOP_LOCALS						\
									\
		call;							\
		return 0;						\
	}								\
	static enum ktap_result id(void)				\
	{								\
		return run_lru_case(name, id##_body);			\
	}

static enum ktap_result run_lru_case(const char *name, int (*body)(void *arg))
{
	const char *reason = deny_reason(denylist, ARRAY_SIZE(denylist), name);

	if (reason) {
		ktap_skip_reason("denylisted: %s", reason);
		return KTAP_SKIP;
	}
	/* Each test maps a few thousand elements: seconds, even on UML. */
	return run_in_child(body, NULL, 300);
}

#include "lru_cases.h"
#undef CASE

#define CASE(id, name, t, f, call)	{ name, id },
static const struct ktap_case cases[] = {
#include "lru_cases.h"
};
#undef CASE

int main(int argc, char **argv)
{
	size_t i;

	if (argc > 1 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--check-denylist"))
		return !!deny_check("test_lru_map", denylist, ARRAY_SIZE(denylist),
				    cases, ARRAY_SIZE(cases));

	/* Upstream's main(), up to its loops. */
	nr_cpus = bpf_num_possible_cpus();
	if (nr_cpus == -1) {
		printf("# bpf_num_possible_cpus() failed\n");
		return 1;
	}
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	return ktap_run_suite("test_lru_map", cases, ARRAY_SIZE(cases),
			      argc > 1 ? argv[1] : NULL);
}
