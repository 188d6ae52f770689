// SPDX-License-Identifier: GPL-2.0
/*
 * for_each_vs_churn (tools/selftests/htab_iter.c): walk a hash map with
 * bpf_for_each_map_elem() on one CPU, deleting from the callback, while
 * another CPU inserts and deletes other keys of the same map.  A
 * callback needs a JIT (the interpreter refuses programs with one), so
 * this object loads only on a kernel with one.  tc programs, as the
 * bench's (tools/progs/bench_run.h): an XDP test run with a JIT
 * rewrites the XDP dispatcher.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "htab_iter.h"

char LICENSE[] SEC("license") = "GPL";

struct bpf_map;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, ITER_MAX_ENTRIES);
	__type(key, __u32);
	__type(value, struct iter_value);
} walked SEC(".maps");

/* Per walk; user space zeroes them before each. */
__u32 visits[ITER_STABLE];
__u64 wrong;
__u32 first_wrong_key;
struct iter_value first_wrong_value;
__u64 own_deletes, own_delete_err;
__u64 churn_seen;

/* The churn's, over the whole case. */
__u64 churn_ops, churn_err;

static long visit(struct bpf_map *map, __u32 *key, struct iter_value *v, void *ctx)
{
	__u32 k = *key, i;
	__u64 t;

	/*
	 * Stay a while on every element: the walk has read the next one's
	 * address, and the longer it stays, the likelier the other CPU
	 * deletes that one (a churn element: those are the newest, at the
	 * head of their buckets) and, reusing at once, links it elsewhere.
	 */
	t = bpf_ktime_get_ns();
	for (i = 0; i < ITER_DWELL_READS && bpf_ktime_get_ns() - t < ITER_DWELL_NS; i++)
		;
	if (k >= ITER_STABLE) {
		churn_seen++;
		return 0;
	}
	visits[k]++;
	if (v->key != k || v->salt != ITER_SALT) {
		if (!wrong++) {
			first_wrong_key = k;
			first_wrong_value = *v;
		}
	}
	/* The callback's own change: the element it stands on, every other key. */
	if (!(k & 1)) {
		if (bpf_map_delete_elem(map, key))
			own_delete_err++;
		else
			own_deletes++;
	}
	return 0;
}

SEC("tc")
int walk(struct __sk_buff *ctx)
{
	bpf_for_each_map_elem(&walked, visit, NULL, 0);
	return 0;
}

/*
 * Half the churn keys are in the map at any time: each step deletes the
 * oldest and inserts the key ITER_CHURN_KEYS / 2 after it, so that the
 * insert wants the element the delete just freed on this CPU (an
 * allocator that reuses at once hands that very one out, into another
 * bucket).  The first half is inserted by the first run.
 */
__u32 churn_next;

SEC("tc")
int churn(struct __sk_buff *ctx)
{
	struct iter_value v = { .salt = ITER_SALT };
	__u32 i, old, key;

	for (i = 0; i < ITER_CHURN_STEPS; i++) {
		old = ITER_CHURN_BASE + churn_next % ITER_CHURN_KEYS;
		key = ITER_CHURN_BASE + (churn_next + ITER_CHURN_KEYS / 2) % ITER_CHURN_KEYS;
		if (churn_next >= ITER_CHURN_KEYS / 2 && bpf_map_delete_elem(&walked, &old))
			churn_err++;
		v.key = key;
		if (bpf_map_update_elem(&walked, &key, &v, BPF_NOEXIST))
			churn_err++;
		churn_next++;
		churn_ops += 2;
	}
	return 0;
}
