// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side of tools/selftests/htab_timers.c: bpf_timers in the
 * values of a BPF_F_NO_PREALLOC hash, armed, deleted, cancelled and
 * freed by processes pinned to different CPUs.
 *
 * A timer is armed only with a callback (bpf_timer_start() of a timer
 * without one is -EINVAL), and the interpreter refuses callbacks
 * ("callbacks are not allowed in non-JITed programs"): the programs load
 * only on a kernel with a BPF JIT (7.2's, but for its interp flavor).  They are
 * SEC("tc"), not XDP: with a JIT every XDP test run rewrites the XDP
 * dispatcher under stop_machine(), which would wait for a callback
 * running on the other CPU and so serialise what the cases overlap.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "kit_loop.h"

char LICENSE[] SEC("license") = "GPL";

#define CLOCK_MONOTONIC		1
#ifndef BPF_F_TIMER_CPU_PIN
#define BPF_F_TIMER_CPU_PIN	(1ULL << 1)
#endif

struct tval {
	struct bpf_timer timer;
	__u64 tag;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct tval);
} timers SEC(".maps");

/*
 * Set by user space in each value: TAG_CONTROL marks the control of
 * delete_before_expiry, armed beside the deleted element and never
 * deleted before it fires.
 */
#define TAG_CONTROL	2

/* --- arming: [arm_first, arm_first + arm_nr), expiry arm_ns ------------ */

__u32 arm_first;
__u32 arm_nr;
__u64 arm_ns;
/* Results of the last arm run. */
__s64 arm_err;
__u32 arm_done;
__u64 armed_at;

/* Every callback of an expiry timer: how many fired, by kind of key. */
__u64 fired;
__u64 fired_control;

static int expiry_cb(void *map, __u32 *key, struct tval *val)
{
	if (val->tag == TAG_CONTROL)
		__sync_fetch_and_add(&fired_control, 1);
	else
		__sync_fetch_and_add(&fired, 1);
	return 0;
}

static long arm_one(__u32 key, __u64 ns, void *cb)
{
	struct tval *v = bpf_map_lookup_elem(&timers, &key);
	long ret;

	if (!v)
		return -2;	/* -ENOENT */
	ret = bpf_timer_init(&v->timer, &timers, CLOCK_MONOTONIC);
	if (ret)
		return ret;
	ret = bpf_timer_set_callback(&v->timer, cb);
	if (ret)
		return ret;
	/* Pinned: the callback runs on the CPU that armed it. */
	return bpf_timer_start(&v->timer, ns, BPF_F_TIMER_CPU_PIN);
}

/* Arm the timers of existing keys [arm_first, arm_first + arm_nr). */
SEC("tc")
int arm(struct __sk_buff *skb)
{
	__u32 i;
	long ret;

	arm_done = 0;
	arm_err = 0;
	armed_at = bpf_ktime_get_ns();
	for (i = 0; i < 64 && i < arm_nr; i++) {
		ret = arm_one(arm_first + i, arm_ns, expiry_cb);
		if (ret) {
			arm_err = ret;
			break;
		}
		arm_done++;
	}
	return TC_ACT_OK;
}

/* --- cancel_waits_for_callback ----------------------------------------- */

__u32 spin_key;
__u64 spin_ns;		/* how long each callback runs */
__u64 rearm_ns;		/* and the timer's expiry after it */
volatile __u32 cb_running;
volatile __u64 cb_started;
volatile __u64 cb_finished;
__u32 cb_cpu;

/*
 * A callback that runs for spin_ns and arms its timer again: the timer
 * is running or about to run at any time, so the other CPU's cancel
 * finds it running.
 */
static int spin_cb(void *map, __u32 *key, struct tval *val)
{
	__u64 t0 = bpf_ktime_get_ns();

	cb_started++;
	cb_cpu = bpf_get_smp_processor_id();
	cb_running = 1;
	while (kit_can_loop)
		if (bpf_ktime_get_ns() - t0 >= spin_ns)
			break;
	cb_running = 0;
	cb_finished++;
	/* -EINVAL once a cancel took the callback away: it stays cancelled. */
	bpf_timer_start(&val->timer, rearm_ns, BPF_F_TIMER_CPU_PIN);
	return 0;
}

__s64 spin_arm_err;

SEC("tc")
int arm_spin(struct __sk_buff *skb)
{
	spin_arm_err = arm_one(spin_key, rearm_ns, spin_cb);
	return TC_ACT_OK;
}

/* What the cancelling program saw, around its bpf_timer_cancel(). */
__u32 cancel_saw_running;
__u32 cancel_left_running;
__u64 cancel_started;
__u64 cancel_finished;
__s64 cancel_ret;
__u32 cancel_cpu;

SEC("tc")
int cancel(struct __sk_buff *skb)
{
	__u32 key = spin_key;
	struct tval *v = bpf_map_lookup_elem(&timers, &key);

	cancel_cpu = bpf_get_smp_processor_id();
	if (!v) {
		cancel_ret = -2;
		return TC_ACT_OK;
	}
	cancel_saw_running = cb_running;
	cancel_ret = bpf_timer_cancel(&v->timer);
	/* bpf_timer_cancel() waits for a running callback to finish. */
	cancel_left_running = cb_running;
	cancel_started = cb_started;
	cancel_finished = cb_finished;
	return TC_ACT_OK;
}
