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

#include <fcntl.h>
#include <libgen.h>

#include "ktap.h"

#define KSFT_SKIP	4

#ifndef TEST_MAPS_DATA_DIR
#define TEST_MAPS_DATA_DIR "/usr/share/kit/test_maps"
#endif

/* Relay the child's output as KTAP diagnostics, line by line. */
static void relay_output(int fd)
{
	FILE *f = fdopen(fd, "r");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ktap_diag("%s", line);
	}
	fclose(f);
}

/*
 * Run @body with map_opts.map_flags = @flags in a child process.  The
 * upstream tests report a skip by counting it in the global "skips".
 */
static enum ktap_result run_isolated(void (*body)(void), __u32 flags)
{
	struct timespec start, end;
	int pfd[2], status;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &start);

	if (pipe(pfd)) {
		ktap_diag("pipe: %s", strerror(errno));
		return KTAP_FAIL;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ktap_diag("fork: %s", strerror(errno));
		return KTAP_FAIL;
	}
	if (!pid) {
		int skips_before = skips;

		close(pfd[0]);
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[1]);
		setvbuf(stdout, NULL, _IOLBF, 0);
		map_opts.map_flags = flags;
		body();
		fflush(stdout);
		_exit(skips != skips_before ? KSFT_SKIP : 0);
	}
	close(pfd[1]);
	relay_output(pfd[0]);
	if (waitpid(pid, &status, 0) < 0) {
		ktap_diag("waitpid: %s", strerror(errno));
		return KTAP_FAIL;
	}
	/* Some cases take minutes on UML: say which (README figures). */
	clock_gettime(CLOCK_MONOTONIC, &end);
	ktap_diag("duration: %.1f s", (end.tv_sec - start.tv_sec) +
		  (end.tv_nsec - start.tv_nsec) / 1e9);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return KTAP_PASS;
	if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP) {
		ktap_skip_reason("skipped by the upstream test");
		return KTAP_SKIP;
	}
	if (WIFSIGNALED(status))
		ktap_diag("killed by signal %d (%s)", WTERMSIG(status),
			  strsignal(WTERMSIG(status)));
	else
		ktap_diag("exited with %d", WEXITSTATUS(status));
	return KTAP_FAIL;
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
