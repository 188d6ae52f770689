// SPDX-License-Identifier: GPL-2.0
/*
 * The map_perf workloads of tools/bench, with the map operations of
 * upstream's programs:
 *
 *  - stress_hmap: samples/bpf/map_perf_test_kern.c's stress_hmap and
 *    stress_hmap_alloc, the HASH_PREALLOC and HASH_KMALLOC tests: ten
 *    times update, lookup, delete of one key.  The loader sets
 *    BPF_F_NO_PREALLOC (kmalloc) or not (pre-alloc) and max_entries.
 *  - full_update: tools/testing/selftests/bpf/progs/
 *    bpf_hashmap_full_update_bench.c, the "no free elems" case of Feng
 *    Zhou's percpu_freelist patch: BPF_ANY updates of a key that is not
 *    in a full preallocated map, each of which looks for a free element
 *    on every CPU's freelist and fails with -E2BIG.
 *
 * Upstream attaches them to syscalls with kprobes or fentry; UML 6.1 has
 * neither, so these are tc programs run by BPF_PROG_TEST_RUN, one
 * program run being one upstream event (map_perf_test) or FULL_BATCH of
 * them (full_update, which upstream loops with bpf_loop()).  The key is
 * the producer's number from the first 4 bytes of the test packet
 * (upstream: the pid, or the CPU).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bench_common.h"

#define FULL_BATCH	64
#define E2BIG		7

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1000);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(long));
} hash_map SEC(".maps");

/* full_update's keys start here: past the keys the loader filled in. */
const volatile __u32 full_key_base = 1000;

/* Events: program runs (stress_hmap) or updates (full_update). */
__u64 events;
/* What the checks look at; all but full_e2big must stay 0. */
__u64 update_err;
__u64 lookup_miss;
__u64 delete_err;
__u64 full_e2big;
__u64 full_other;

SEC("tc")
int stress_hmap(struct __sk_buff *ctx)
{
	long init_val = 1;
	__u32 key;
	long *value;
	int i;

	if (producer_of(ctx, &key))
		return BENCH_FAILED;
	for (i = 0; i < 10; i++) {
		if (bpf_map_update_elem(&hash_map, &key, &init_val, BPF_ANY))
			__sync_fetch_and_add(&update_err, 1);
		value = bpf_map_lookup_elem(&hash_map, &key);
		if (!value)
			__sync_fetch_and_add(&lookup_miss, 1);
		else if (bpf_map_delete_elem(&hash_map, &key))
			__sync_fetch_and_add(&delete_err, 1);
	}
	__sync_fetch_and_add(&events, 1);
	return BENCH_DONE;
}

SEC("tc")
int full_update(struct __sk_buff *ctx)
{
	__u64 init_val = 1;
	__u32 key;
	long err;
	int i;

	if (producer_of(ctx, &key))
		return BENCH_FAILED;
	key += full_key_base;
	for (i = 0; i < FULL_BATCH; i++) {
		err = bpf_map_update_elem(&hash_map, &key, &init_val, BPF_ANY);
		if (err == -E2BIG)
			__sync_fetch_and_add(&full_e2big, 1);
		else
			__sync_fetch_and_add(&full_other, 1);
	}
	__sync_fetch_and_add(&events, FULL_BATCH);
	return BENCH_DONE;
}
