// SPDX-License-Identifier: GPL-2.0
/*
 * The semantics of the reuse-after-RCU-GP allocator
 * (kernel/patches/reuse-after-gp), checked by tools/lib/reuse_checks.c.
 *
 * On the vanilla allocator no_immediate_reuse fails: that is the bug the
 * series fixes, and tools/report/expectations declares it.  The
 * *_fallback cases repeat the checks with every struct bpf_reuse_batch
 * allocation failing, through reuse_rcu(); they skip on variants without
 * the fail_bpf_reuse_batch knob.
 */
#include "ktap.h"
#include "reuse_checks.h"

static enum ktap_result no_immediate_reuse_fallback(void)
{
	return reuse_through_fallback(reuse_no_immediate_reuse);
}

static enum ktap_result overwrite_memory_bounded_fallback(void)
{
	return reuse_through_fallback(reuse_overwrite_memory_bounded);
}

static enum ktap_result destroy_with_callbacks_in_flight_fallback(void)
{
	return reuse_through_fallback(reuse_destroy_with_callbacks_in_flight);
}

static const struct ktap_case cases[] = {
	{ "no_immediate_reuse", reuse_no_immediate_reuse },
	{ "no_immediate_percpu_reuse", reuse_no_immediate_percpu_reuse },
	{ "overwrite_memory_bounded", reuse_overwrite_memory_bounded },
	{ "destroy_with_callbacks_in_flight", reuse_destroy_with_callbacks_in_flight },
	{ "update_delete_all_sizes", reuse_update_delete_all_sizes },
	{ "no_immediate_reuse_fallback", no_immediate_reuse_fallback },
	{ "overwrite_memory_bounded_fallback", overwrite_memory_bounded_fallback },
	{ "destroy_with_callbacks_in_flight_fallback", destroy_with_callbacks_in_flight_fallback },
};

KTAP_SUITE_MAIN("reuse", cases)
