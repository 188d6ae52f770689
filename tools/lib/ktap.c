// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "filter.h"
#include "ktap.h"

static char skip_reason[256];
static const struct ktap_case *current_case;

const struct ktap_case *ktap_current_case(void)
{
	return current_case;
}

/* One stdio call per line, so that threads (tools/bench) do not interleave. */
void ktap_diag(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("# %s\n", line);
	fflush(stdout);
}

void ktap_plan(const char *suite, size_t planned)
{
	printf("KTAP version 1\n");
	if (suite)
		printf("# Subtest: %s\n", suite);
	printf("1..%zu\n", planned);
	fflush(stdout);
}

void ktap_result(size_t n, const char *name, enum ktap_result r, const char *reason)
{
	const char *why = reason && *reason ? reason : NULL;

	switch (r) {
	case KTAP_PASS:
		printf("ok %zu %s\n", n, name);
		break;
	case KTAP_SKIP:
		printf("ok %zu %s # SKIP%s%s\n", n, name, why ? " " : "", why ? why : "");
		break;
	case KTAP_FAIL:
		if (why)
			printf("# %s: %s\n", name, why);
		printf("not ok %zu %s\n", n, name);
		break;
	}
	fflush(stdout);
}

void ktap_skip_reason(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
}


int ktap_run_suite(const char *suite, const struct ktap_case *cases, size_t nr,
		   const char *case_glob)
{
	size_t i, planned = 0, n = 0, failed = 0, skipped = 0;

	for (i = 0; i < nr; i++)
		if (filter_case(case_glob, cases[i].name))
			planned++;

	ktap_plan(suite, planned);
	if (!planned) {
		ktap_diag("no case of %s matches '%s'", suite, case_glob);
		return 1;
	}

	for (i = 0; i < nr; i++) {
		enum ktap_result r;
		double start;

		if (!filter_case(case_glob, cases[i].name))
			continue;
		skip_reason[0] = '\0';
		current_case = &cases[i];
		start = mono_s();
		r = cases[i].run();
		current_case = NULL;
		n++;
		/* Where a suite's time goes, case by case (init prints its total). */
		ktap_diag("%s: %.1f s", cases[i].name, mono_s() - start);
		ktap_result(n, cases[i].name, r, r == KTAP_SKIP ? skip_reason : NULL);
		skipped += r == KTAP_SKIP;
		failed += r == KTAP_FAIL;
	}
	if (failed)
		return 1;
	return skipped == planned ? KSFT_SKIP : 0;
}

int ktap_list_cases(const struct ktap_case *cases, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		printf("%s\n", cases[i].name);
	return 0;
}
