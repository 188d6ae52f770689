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
 * second bpf_timer_init() on one field is -EBUSY.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define SF_DATA		4
#define SF_BATCH	64	/* keys per program run */
#define CLOCK_MONOTONIC	1
#define EBUSY		16

struct sf_value {
	struct bpf_spin_lock lock;
	__u32 count;		/* new elements hold 0; the program counts to 1 */
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

/* The keys of one run: [first, first + nr), nr at most SF_BATCH. */
struct sf_args {
	__u32 first;
	__u32 nr;
};

struct sf_args args;

struct sf_result {
	__u64 visited;		/* elements the program initialised */
	__u64 missing;		/* keys it did not find */
	__u64 busy;		/* first bpf_timer_init() on a new element: -EBUSY */
	__u64 init_err;		/* ... another error */
	__u64 second_ok;	/* a second bpf_timer_init() did not say -EBUSY */
	__u64 stale_count;	/* count was not 0 before the program's increment */
	__u64 first_bad_key;
	__s64 first_bad_ret;
};

struct sf_result result;

#define INIT_TIMERS(name, map)							\
SEC("xdp")									\
int name(struct xdp_md *ctx)							\
{										\
	__u32 first = args.first, nr = args.nr, i;				\
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
		if (before)							\
			result.stale_count++;					\
	}									\
	return XDP_PASS;							\
}

INIT_TIMERS(init_prealloc, prealloc)
INIT_TIMERS(init_no_prealloc, no_prealloc)
