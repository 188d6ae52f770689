/* SPDX-License-Identifier: GPL-2.0 */
/* What the benchmarks' programs share (tools/progs/bench_*.bpf.c). */
#ifndef KIT_BENCH_COMMON_H
#define KIT_BENCH_COMMON_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bench_run.h"


/*
 * The producer's number, little-endian in the packet's first 4 bytes.
 * Read byte by byte: packet data need not be 4-byte aligned and UML has
 * no efficient unaligned access, so the verifier refuses a u32 load
 * there.
 */
static __always_inline int producer_of(struct __sk_buff *ctx, __u32 *id)
{
	__u8 *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if ((void *)(data + 4) > data_end)
		return -1;
	*id = data[0] | data[1] << 8 | data[2] << 16 | (__u32)data[3] << 24;
	return 0;
}

#endif /* KIT_BENCH_COMMON_H */
