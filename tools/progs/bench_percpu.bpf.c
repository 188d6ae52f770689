// SPDX-License-Identifier: GPL-2.0
/*
 * The percpu workload of tools/bench: the closest 6.1 has to upstream's
 * `bench bpf_ma --percpu` (Hou Tao's bench_bpf_ma, which allocates and
 * frees per-cpu objects with bpf_percpu_obj_new(), a kfunc 6.1 does not
 * have).  A BPF_F_NO_PREALLOC per-cpu hash map takes every value from
 * the allocator's per-cpu caches (htab->pcpu_ma) and every element from
 * its plain ones (htab->ma): 64 inserts allocate, 64 deletes free.  As
 * upstream, the time spent allocating and freeing is measured inside the
 * program with bpf_ktime_get_ns(), so the alloc and free rates leave out
 * the cost of running the program.  tc under BPF_PROG_TEST_RUN and a
 * bounded loop, as in bench_htab_mem.bpf.c; the producer's number comes
 * in the first 4 bytes of the packet.
 */
#include "bench_common.h"

#define OP_BATCH 64

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
} pcpu_htab SEC(".maps");

unsigned char zeroed_value[4096];

const volatile __u32 nr_thread = 1;

__u64 op_cnt;
__u64 alloc_cnt;
__u64 alloc_ns;
__u64 free_cnt;
__u64 free_ns;
__u64 update_err;
__u64 delete_err;

SEC("tc")
int percpu_alloc_free(struct __sk_buff *ctx)
{
	__u32 i, key, from, added = 0, deleted = 0;
	__u64 t0, t1, t2;

	if (producer_of(ctx, &from))
		return BENCH_FAILED;

	t0 = bpf_ktime_get_ns();
	for (i = 0, key = from; i < OP_BATCH; i++, key += nr_thread) {
		if (bpf_map_update_elem(&pcpu_htab, &key, zeroed_value, BPF_ANY))
			__sync_fetch_and_add(&update_err, 1);
		else
			added++;
	}
	t1 = bpf_ktime_get_ns();
	for (i = 0, key = from; i < OP_BATCH; i++, key += nr_thread) {
		if (bpf_map_delete_elem(&pcpu_htab, &key))
			__sync_fetch_and_add(&delete_err, 1);
		else
			deleted++;
	}
	t2 = bpf_ktime_get_ns();

	__sync_fetch_and_add(&alloc_cnt, added);
	__sync_fetch_and_add(&alloc_ns, t1 - t0);
	__sync_fetch_and_add(&free_cnt, deleted);
	__sync_fetch_and_add(&free_ns, t2 - t1);
	__sync_fetch_and_add(&op_cnt, 2);
	return BENCH_DONE;
}
