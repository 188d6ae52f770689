// SPDX-License-Identifier: GPL-2.0
/*
 * The tree's own test_maps, case by case, as a KTAP suite of the kit.
 *
 * Upstream's main() runs every test once with preallocated maps and once
 * with BPF_F_NO_PREALLOC, then map_tests/, and stops at the first
 * failure (CHECK() and assert() end the process).  That is the right
 * thing in a CI log, but the kit wants one result per test, a T= filter,
 * and the denylist.  So the upstream file is compiled here unmodified,
 * with its main() renamed, and this main() runs each test in a child of
 * its own: a failing test ends its child, not the suite.  The list of
 * cases is generated from the same file (tools/upstream/gen-test-maps),
 * so it is always the variant's own list.
 */
#define main upstream_test_maps_main
#include "test_maps.c"
#undef main

#include "child.h"
#include "ktap.h"

#ifndef TEST_MAPS_DATA_DIR
#define TEST_MAPS_DATA_DIR "/usr/share/kit/test_maps"
#endif

struct map_case {
	void (*body)(void);
	__u32 map_flags;
};

/* The upstream tests report a skip by counting it in the global "skips". */
static int run_map_case(void *arg)
{
	const struct map_case *c = arg;
	int skips_before = skips;

	map_opts.map_flags = c->map_flags;
	c->body();
	return skips != skips_before ? KSFT_SKIP : 0;
}

/* Run @body with map_opts.map_flags = @flags in a child process. */
static enum ktap_result run_isolated(void (*body)(void), __u32 flags)
{
	struct map_case c = { body, flags };

	return run_in_child(run_map_case, &c, 0);
}

#define CASE(id, name, flags, call)					\
	static void id##_body(void) { call; }				\
	static enum ktap_result id(void) { return run_isolated(id##_body, flags); }
#define MAP_TEST(id, name, fn)						\
	static enum ktap_result id(void) { return run_isolated(fn, 0); }
#define DENIED(id, name, reason)					\
	static enum ktap_result id(void)				\
	{								\
		ktap_skip_reason("denylisted: %s", reason);		\
		return KTAP_SKIP;					\
	}
#include "cases.h"
#undef CASE
#undef MAP_TEST
#undef DENIED

#define CASE(id, name, flags, call)	{ name, id },
#define MAP_TEST(id, name, fn)		{ name, id },
#define DENIED(id, name, reason)	{ name, id },
static const struct ktap_case cases[] = {
#include "cases.h"
};

int main(int argc, char **argv)
{
	/* test_sockmap() and test_map_in_map() open "./<prog>.bpf.o". */
	if (chdir(TEST_MAPS_DATA_DIR)) {
		printf("# chdir %s: %s\n", TEST_MAPS_DATA_DIR, strerror(errno));
		return 1;
	}
	srand(time(NULL));
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	return ktap_run_suite("test_maps", cases, ARRAY_SIZE(cases),
			      argc > 1 ? argv[1] : NULL);
}
