/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP v1 producer for the kit's guest selftests.
 *
 * The 6.1 tree's kselftest.h prints TAP 13 and has no notion of a suite
 * made of named cases with a case filter, which is what the kit's report
 * and T=suite.case need, so this small runner does that part.  Every
 * suite is a table of cases; the runner prints the plan and one result
 * per case and turns the results into kselftest exit codes.
 */
#ifndef KIT_KTAP_H
#define KIT_KTAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/*
 * kselftest's exit code for "skipped" (tools/testing/selftests/kselftest.h),
 * the one definition of the kit's guest programs and their init.
 */
#define KSFT_SKIP	4

/* The guest programs' and the harness's one ARRAY_SIZE (uspace.h has the kernel's). */
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

enum ktap_result {
	KTAP_PASS,
	KTAP_FAIL,
	KTAP_SKIP,
};

struct ktap_case {
	const char *name;
	enum ktap_result (*run)(void);
};

/*
 * The two lines every KTAP document is made of, for producers that run
 * their cases themselves (init, tools/bench, tools/stress):
 * ktap_plan() prints the header and plan, with "# Subtest: @suite"
 * when @suite is not NULL; ktap_result() prints case @n's result, with
 * @reason after "# SKIP" for a skip or as the failure's diagnostic.
 */
void ktap_plan(const char *suite, size_t planned);
void ktap_result(size_t n, const char *name, enum ktap_result r, const char *reason);

/* Print a diagnostic line ("# ...") inside the current case. */
void ktap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The case being run, for suites whose cases share one run function and
 * tell themselves apart by their place in the table (tools/upstream).
 */
const struct ktap_case *ktap_current_case(void);

/* The reason printed after "# SKIP" when a case returns KTAP_SKIP. */
void ktap_skip_reason(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Run every case of @cases that the case filter @case_glob selects (all
 * when NULL; comma-separated globs, tools/lib/filter.h),
 * print KTAP and return the process exit code: 0 when nothing failed,
 * KSFT_SKIP (4) when every case was skipped, 1 otherwise.
 */
int ktap_run_suite(const char *suite, const struct ktap_case *cases, size_t nr,
		   const char *case_glob);

/*
 * Print the names of @cases, one a line: the suite's table, against which
 * tests/ checks that its captured logs are today's.
 */
int ktap_list_cases(const struct ktap_case *cases, size_t nr);

/* "PROGRAM --list" lists the cases; "PROGRAM [CASE-GLOB]" runs them. */
#define KTAP_SUITE_MAIN(suite, cases)					\
int main(int argc, char **argv)						\
{									\
	size_t nr = ARRAY_SIZE(cases);			\
									\
	if (argc > 1 && !strcmp(argv[1], "--list"))			\
		return ktap_list_cases(cases, nr);			\
	return ktap_run_suite(suite, cases, nr, argc > 1 ? argv[1] : NULL); \
}

/*
 * Fail the current case with the location and a message when @cond does
 * not hold.  Only for use in a function returning enum ktap_result.
 */
#define KTAP_EXPECT(cond, fmt, ...)					\
	do {								\
		if (!(cond)) {						\
			ktap_diag("%s:%d: expected %s: " fmt,		\
				  __FILE__, __LINE__, #cond, ##__VA_ARGS__); \
			return KTAP_FAIL;				\
		}							\
	} while (0)

/*
 * KTAP_EXPECT without the return, for a check whose failure carries more
 * lines: true when @cond holds; else the failed check is printed, the
 * caller adds the lines it carries (ktap_diag("  ..."): indented, right
 * after it) and returns KTAP_FAIL.  The judge takes an expected failure's
 * evidence from the failed check and these lines only
 * (tools/report/judge.c, missing_evidence()).
 */
#define KTAP_CHECK(cond, fmt, ...)					\
	((cond) ? true :						\
	 (ktap_diag("%s:%d: expected %s: " fmt,				\
		    __FILE__, __LINE__, #cond, ##__VA_ARGS__), false))

#endif /* KIT_KTAP_H */
