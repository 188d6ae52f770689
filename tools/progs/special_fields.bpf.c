// SPDX-License-Identifier: GPL-2.0
/*
 * Hash map values with a bpf_spin_lock and a bpf_timer, driven by
 * tools/selftests/special_fields.c through update, delete, reuse and
 * map free.  XDP programs under BPF_PROG_TEST_RUN (libbpf loads every
 * SEC("syscall") program sleepable, and sleepable programs cannot take
 * a bpf_spin_lock); user space sets the keys of a run in args.
 *
 * On ARCH=um the interpreter refuses callbacks ("callbacks are not
 * allowed in non-JITed programs"), so bpf_timer_set_callback() cannot
 * be used and bpf_timer_start() of a timer without one is -EINVAL: a
 * timer here is initialised (bpf_timer_init() allocates its struct
 * bpf_hrtimer and stores it in the value), never armed.  That is
 * enough to see whether a new element's timer field is clear: a
 * second bpf_timer_init() on one field is -EBUSY, and whether a held
 * one is: bpf_timer_cancel() is 0 with a timer, -EINVAL without.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "kit_loop.h"

char LICENSE[] SEC("license") = "GPL";

#define SF_DATA		4
#define SF_BATCH	64	/* keys per program run */
#define CLOCK_MONOTONIC	1
#define EBUSY		16

struct sf_value {
	struct bpf_spin_lock lock;
	__u32 count;		/* the update's stamp; the program adds 1 */
	struct bpf_timer timer;
	__u64 data[SF_DATA];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct sf_value);
} prealloc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct sf_value);
} no_prealloc SEC(".maps");

/*
 * The keys of one run: [first, first + nr), nr at most SF_BATCH, which
 * user space inserted in round @round.
 */
struct sf_args {
	__u32 first;
	__u32 nr;
	__u32 round;
};

struct sf_args args;

struct sf_result {
	__u64 visited;		/* elements the program initialised */
	__u64 missing;		/* keys it did not find */
	__u64 busy;		/* first bpf_timer_init() on a new element: -EBUSY */
	__u64 init_err;		/* ... another error */
	__u64 second_ok;	/* a second bpf_timer_init() did not say -EBUSY */
	__u64 wrong_count;	/* count was not the update's stamp before the increment */
	__u64 first_bad_key;
	__s64 first_bad_ret;
};

struct sf_result result;

/* What user space's update writes in count (special_fields.c, count_stamp()). */
static __always_inline __u32 count_stamp(__u32 round, __u32 key)
{
	return (round + 1) << 16 | key;
}

#define INIT_TIMERS(name, map)							\
SEC("xdp")									\
int name(struct xdp_md *ctx)							\
{										\
	__u32 first = args.first, nr = args.nr, round = args.round, i;		\
										\
	for (i = 0; i < SF_BATCH && i < nr; i++) {				\
		__u32 key = first + i;						\
		struct sf_value *v = bpf_map_lookup_elem(&map, &key);		\
		__u32 before;							\
		long ret;							\
										\
		if (!v) {							\
			result.missing++;					\
			continue;						\
		}								\
		result.visited++;						\
		ret = bpf_timer_init(&v->timer, &map, CLOCK_MONOTONIC);		\
		if (ret) {							\
			if (ret == -EBUSY)					\
				result.busy++;					\
			else							\
				result.init_err++;				\
			if (!result.first_bad_ret) {				\
				result.first_bad_key = key;			\
				result.first_bad_ret = ret;			\
			}							\
		}								\
		if (bpf_timer_init(&v->timer, &map, CLOCK_MONOTONIC) != -EBUSY)	\
			result.second_ok++;					\
		bpf_spin_lock(&v->lock);					\
		before = v->count;						\
		v->count = before + 1;						\
		bpf_spin_unlock(&v->lock);					\
		if (before != count_stamp(round, key))				\
			result.wrong_count++;					\
	}									\
	return XDP_PASS;							\
}

INIT_TIMERS(init_prealloc, prealloc)
INIT_TIMERS(init_no_prealloc, no_prealloc)

/* --- held_across_delete: a reader on CPU 0, delete and churn on CPU 1 ---- */

/*
 * "while (kit_can_loop)" (kit_loop.h) spans another CPU's syscalls in
 * one program run, one RCU read-side section; only 7.2's verifier knows
 * may_goto, so the programs below are loaded only by the two-CPU case.
 */

#define EINVAL		22
/* Reads of writer_done between two may_goto checks: more time per budget. */
#define HOLD_INNER	16

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sf_value);
} held SEC(".maps");

/* Set by the reader's process before the run. */
__u32 hold_key;
/* Written by the writer's process through the skeleton's mmap()ed bss. */
volatile __u32 writer_done;
/* Set by init_block_delete once its delete of the element returned. */
volatile __u32 element_deleted;

volatile __u32 reader_holding;
__u32 reader_cpu;
__u32 reader_saw_done;
__s32 reader_err;
__s64 reader_timer_before;	/* bpf_timer_cancel() before the delete: 0 */
__u64 reader_before;		/* data[0] when found */
__u64 reader_after;		/* data[0] at the end */
__u64 reader_changed;		/* probes whose data[0] was another value */
__u64 reader_first_other;
__u64 reader_changed_ns;
__u64 reader_released;		/* probes after the delete that found the timer released */
__u64 reader_live;		/* ... that found a timer in the field */
__u64 reader_other_ret;		/* ... that got neither 0 nor -EINVAL */
__s64 reader_other_first;
__u64 reader_live_ns;		/* the first live probe, after the reader saw the delete */
__u64 reader_lock_bad;		/* the count under the lock was not the reader's */
__u32 reader_lock_seen;
__u32 reader_lock_expect;
__u64 reader_ns;
__u64 reader_probes;

/*
 * One RCU read-side section on the reader's CPU: find hold_key's
 * element, whose timer the writer initialised, then until the writer is
 * done probe it through that pointer: its data, its timer
 * (bpf_timer_cancel(): 0 while the field holds a timer, never armed
 * here; -EINVAL once the field is clear) and a count kept under its
 * lock that only this program writes.
 */
SEC("xdp")
int hold_fields(struct xdp_md *ctx)
{
	__u32 key = hold_key, i, mine, seen;
	__u64 start, deleted_at = 0, d;
	struct sf_value *v;
	long ret;

	reader_saw_done = 0;
	reader_changed = 0;
	reader_released = 0;
	reader_live = 0;
	reader_other_ret = 0;
	reader_lock_bad = 0;
	reader_probes = 0;
	v = bpf_map_lookup_elem(&held, &key);
	if (!v) {
		reader_err = -1;
		return XDP_ABORTED;
	}
	reader_cpu = bpf_get_smp_processor_id();
	start = bpf_ktime_get_ns();
	reader_before = v->data[0];
	reader_timer_before = bpf_timer_cancel(&v->timer);
	bpf_spin_lock(&v->lock);
	mine = v->count + 1;
	v->count = mine;
	bpf_spin_unlock(&v->lock);
	reader_holding = 1;
	while (kit_can_loop) {
		for (i = 0; i < HOLD_INNER; i++)
			if (writer_done)
				break;
		if (writer_done) {
			reader_saw_done = 1;
			break;
		}
		/* Read the flag first: the delete released the timer before it was set. */
		if (!deleted_at && element_deleted)
			deleted_at = bpf_ktime_get_ns();
		ret = bpf_timer_cancel(&v->timer);
		if (deleted_at) {
			if (ret == -EINVAL) {
				reader_released++;
			} else if (!ret) {
				if (!reader_live++)
					reader_live_ns = bpf_ktime_get_ns() - deleted_at;
			} else if (!reader_other_ret++) {
				reader_other_first = ret;
			}
		}
		d = v->data[0];
		if (d != reader_before && !reader_changed++) {
			reader_first_other = d;
			reader_changed_ns = bpf_ktime_get_ns() - start;
		}
		bpf_spin_lock(&v->lock);
		seen = v->count;
		v->count = mine + 1;
		bpf_spin_unlock(&v->lock);
		if (seen != mine && !reader_lock_bad++) {
			reader_lock_seen = seen;
			reader_lock_expect = mine;
		}
		mine++;
		reader_probes++;
	}
	reader_after = v->data[0];
	reader_ns = bpf_ktime_get_ns() - start;
	return XDP_PASS;
}

/* Set by the writer's process before its run; read by both. */
__u32 block_key;
volatile __u32 blocker_running;
__u32 blocker_cpu;
__u32 blocker_saw_holding;
__s32 blocker_err;
__s32 blocker_init;

/*
 * The writer's side, on the other CPU: give block_key's element its
 * timer, wait (one read-side section) until the reader holds the
 * element, then delete the key and say so.
 */
SEC("xdp")
int init_block_delete(struct xdp_md *ctx)
{
	__u32 key = block_key, i;
	struct sf_value *v;

	blocker_saw_holding = 0;
	blocker_err = 0;
	element_deleted = 0;
	blocker_cpu = bpf_get_smp_processor_id();
	v = bpf_map_lookup_elem(&held, &key);
	if (!v) {
		blocker_init = -1;
		return XDP_ABORTED;
	}
	blocker_init = bpf_timer_init(&v->timer, &held, CLOCK_MONOTONIC);
	if (blocker_init)
		return XDP_ABORTED;
	blocker_running = 1;
	while (kit_can_loop) {
		for (i = 0; i < HOLD_INNER; i++)
			if (reader_holding)
				break;
		if (reader_holding) {
			blocker_saw_holding = 1;
			break;
		}
	}
	if (blocker_saw_holding) {
		blocker_err = bpf_map_delete_elem(&held, &key);
		element_deleted = 1;
	}
	return XDP_PASS;
}

/* The churn keys of one run of churn_timers: [first, first + nr). */
struct sf_args churn_args;

struct churn_result {
	__u64 visited;
	__u64 missing;
	__u64 busy;		/* bpf_timer_init() on a new element: -EBUSY */
	__u64 init_err;
	__s64 first_err;
};

struct churn_result churn;

/*
 * Give each churn element user space just inserted its timer and take
 * its lock, as a program using the map would, so that memory handed
 * out again holds what the reader would see.
 */
SEC("xdp")
int churn_timers(struct xdp_md *ctx)
{
	__u32 first = churn_args.first, nr = churn_args.nr, i;

	for (i = 0; i < SF_BATCH && i < nr; i++) {
		__u32 key = first + i;
		struct sf_value *v = bpf_map_lookup_elem(&held, &key);
		long ret;

		if (!v) {
			churn.missing++;
			continue;
		}
		churn.visited++;
		ret = bpf_timer_init(&v->timer, &held, CLOCK_MONOTONIC);
		if (ret == -EBUSY)
			churn.busy++;
		else if (ret && !churn.init_err++)
			churn.first_err = ret;
		bpf_spin_lock(&v->lock);
		v->count++;
		bpf_spin_unlock(&v->lock);
	}
	return XDP_PASS;
}
