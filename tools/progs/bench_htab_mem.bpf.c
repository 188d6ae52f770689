// SPDX-License-Identifier: GPL-2.0
/*
 * The htab-mem workloads of tools/bench (upstream: the kernel's
 * tools/testing/selftests/bpf/progs/htab_mem_bench.c), with the same map
 * operations per program run.  Differences forced by UML 6.1: the
 * programs are tc programs run by BPF_PROG_TEST_RUN with repeat, not
 * attached to a syscall tracepoint (there are none), and the 64
 * operations are a bounded loop, not bpf_loop() (no JIT, no callbacks).
 * Upstream takes a producer's key range from its CPU; here the producer's
 * number comes in the first 4 bytes of the test packet.  With pinned
 * producers it is the CPU, as upstream; when several producers share a
 * CPU (UML is uniprocessor) their ranges still stay apart.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bench_common.h"

#define OP_BATCH 64

char LICENSE[] SEC("license") = "GPL";

/* Value size and max_entries are set by the loader, as upstream. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
} htab SEC(".maps");

/* As upstream: every update copies its value from here. */
unsigned char zeroed_value[4096];

/* Number of producers, set by the loader (upstream's nr_thread). */
const volatile __u32 nr_thread = 1;

/* 64-operation iterations done, upstream's op_cnt: the figure. */
__u64 op_cnt;
/* Upstream ignores the results; the kit's checks count failures. */
__u64 update_err;
__u64 delete_err;

static __always_inline void write_batch(__u32 from, __u32 step, __u64 flags)
{
	__u32 i, key = from;

	for (i = 0; i < OP_BATCH; i++) {
		if (bpf_map_update_elem(&htab, &key, zeroed_value, flags))
			__sync_fetch_and_add(&update_err, 1);
		key += step;
	}
}

static __always_inline void delete_batch(__u32 from, __u32 step)
{
	__u32 i, key = from;

	for (i = 0; i < OP_BATCH; i++) {
		if (bpf_map_delete_elem(&htab, &key))
			__sync_fetch_and_add(&delete_err, 1);
		key += step;
	}
}

/* No map operation: the cost of a run itself, the other workloads' floor. */
SEC("tc")
int no_op(struct __sk_buff *ctx)
{
	__u32 id;

	if (producer_of(ctx, &id))
		return BENCH_FAILED;
	__sync_fetch_and_add(&op_cnt, 1);
	return BENCH_DONE;
}

/* 64 BPF_ANY updates of the producer's keys: each frees the old element. */
SEC("tc")
int overwrite(struct __sk_buff *ctx)
{
	__u32 id;

	if (producer_of(ctx, &id))
		return BENCH_FAILED;
	write_batch(id, nr_thread, BPF_ANY);
	__sync_fetch_and_add(&op_cnt, 1);
	return BENCH_DONE;
}

/* 64 adds, then 64 deletes of the same keys: two iterations. */
SEC("tc")
int batch_add_batch_del(struct __sk_buff *ctx)
{
	__u32 id;

	if (producer_of(ctx, &id))
		return BENCH_FAILED;
	write_batch(id, nr_thread, BPF_ANY);
	delete_batch(id, nr_thread);
	__sync_fetch_and_add(&op_cnt, 2);
	return BENCH_DONE;
}

/*
 * add_del_on_diff_cpu: producers 2k (adds) and 2k+1 (deletes) share the
 * key range of pair k, so elements are freed on another CPU than the one
 * that allocated them.
 */
SEC("tc")
int add_only(struct __sk_buff *ctx)
{
	__u32 id;

	if (producer_of(ctx, &id))
		return BENCH_FAILED;
	write_batch(id / 2, nr_thread / 2, BPF_NOEXIST);
	__sync_fetch_and_add(&op_cnt, 1);
	return BENCH_DONE;
}

SEC("tc")
int del_only(struct __sk_buff *ctx)
{
	__u32 id;

	if (producer_of(ctx, &id))
		return BENCH_FAILED;
	delete_batch(id / 2, nr_thread / 2);
	__sync_fetch_and_add(&op_cnt, 1);
	return BENCH_DONE;
}
