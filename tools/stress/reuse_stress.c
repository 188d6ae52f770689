// SPDX-License-Identifier: GPL-2.0
/*
 * Minutes of the reuse checks mixed: round after round, every check of
 * tools/lib/reuse_checks.c, every other round through the reuse_rcu()
 * fallback when the variant has it.  One KTAP case per check, failed if
 * any of its runs failed.  Duration: KIT_STRESS_SECONDS (default 180),
 * set from the kernel command line (kit.env.KIT_STRESS_SECONDS=, make stress).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ktap.h"
#include "reuse_checks.h"

struct check {
	const char *name;
	enum ktap_result (*run)(void);
	unsigned int runs, failed, skipped;
};

static struct check checks[] = {
	{ .name = "no_immediate_reuse", .run = reuse_no_immediate_reuse },
	{ .name = "overwrite_memory_bounded", .run = reuse_overwrite_memory_bounded },
	{ .name = "destroy_with_callbacks_in_flight", .run = reuse_destroy_with_callbacks_in_flight },
	{ .name = "update_delete_all_sizes", .run = reuse_update_delete_all_sizes },
};

#define NR_CHECKS ARRAY_SIZE(checks)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	const char *env = getenv("KIT_STRESS_SECONDS");
	double seconds = env ? atof(env) : 180, start = now();
	bool fallback = reuse_fallback_available();
	unsigned int round, i, failed = 0;

	ktap_plan("reuse_stress", NR_CHECKS);
	ktap_diag("%.0f s of the reuse checks, %s", seconds,
		  fallback ? "every other round through reuse_rcu()" : "no reuse_rcu() fallback knob");
	for (round = 0; now() - start < seconds; round++) {
		for (i = 0; i < NR_CHECKS; i++) {
			struct check *c = &checks[i];
			enum ktap_result r;

			r = (fallback && round % 2) ? reuse_through_fallback(c->run) : c->run();
			c->runs++;
			c->failed += r == KTAP_FAIL;
			c->skipped += r == KTAP_SKIP;
		}
		ktap_diag("round %u done at %.0f s", round + 1, now() - start);
	}
	for (i = 0; i < NR_CHECKS; i++) {
		struct check *c = &checks[i];

		ktap_diag("%s: %u runs, %u failed, %u skipped", c->name, c->runs, c->failed, c->skipped);
		ktap_result(i + 1, c->name, c->failed ? KTAP_FAIL : KTAP_PASS, NULL);
		failed += c->failed;
	}
	return failed ? 1 : 0;
}
