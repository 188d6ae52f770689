/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the hash-map selftests: map set-up and test runs. */
#ifndef KIT_HTAB_UTIL_H
#define KIT_HTAB_UTIL_H

#include <stdbool.h>
#include <linux/bpf.h>

#include "htab.skel.h"

struct htab_params {
	enum bpf_map_type type;		/* BPF_MAP_TYPE_HASH or _PERCPU_HASH */
	__u32 flags;			/* map_flags, e.g. BPF_F_NO_PREALLOC */
	__u32 value_size;
	__u32 max_entries;
	__u32 burst;			/* map operations per program run */
	__u32 key_range;		/* keys the overwrite program cycles through */
};

/* Open and load the htab skeleton with @p; NULL (and a diagnostic) on error. */
struct htab *htab_open(const struct htab_params *p);

/*
 * Run the XDP program @prog @repeat times with BPF_PROG_TEST_RUN on @pkt;
 * the kernel's average time per run goes to *@avg_ns if not NULL.
 * Returns 0, or -errno (-EINVAL if it did not return XDP_PASS) with a
 * diagnostic printed.
 */
int xdp_test_run(struct bpf_program *prog, const void *pkt, __u32 len, int repeat,
		 __u32 *avg_ns);

/*
 * Run @prog @repeat times with BPF_PROG_TEST_RUN on a dummy packet; the
 * kernel's average time per run goes to *@avg_ns if not NULL.
 * Returns 0, or -errno with a diagnostic printed.
 */
int htab_test_run(struct bpf_program *prog, int repeat, __u32 *avg_ns);

/*
 * Run the tc (SEC("tc")) program @prog @repeat times with
 * BPF_PROG_TEST_RUN on a zeroed frame of ETH_HLEN and more; its return
 * value goes to *@retval if not NULL.  0, or -errno.  A program run with
 * repeat > 1 where a JIT may be is a tc program: with a JIT such an XDP
 * test run rewrites the XDP dispatcher under stop_machine(), which stops
 * every CPU, twice a call (tools/progs/bench_run.h).
 */
int tc_test_run(struct bpf_program *prog, int repeat, __u32 *retval);

/* Number of entries in a hash map, by walking its keys. */
int htab_count(int map_fd);

/* Size of one value buffer for map syscalls (per-cpu maps: per possible CPU). */
size_t htab_value_buf_size(const struct htab_params *p);

#endif /* KIT_HTAB_UTIL_H */
