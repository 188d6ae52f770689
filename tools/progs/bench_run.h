/* SPDX-License-Identifier: GPL-2.0 */
/* How a benchmark's program is run, for both sides (bench_common.h, tools/bench/bench.c). */
#ifndef KIT_BENCH_RUN_H
#define KIT_BENCH_RUN_H

/*
 * The programs are tc (BPF_PROG_TYPE_SCHED_CLS) programs, run by
 * BPF_PROG_TEST_RUN on a packet: an XDP test run with repeat > 1
 * installs the program in the XDP dispatcher and takes it out again
 * (bpf_prog_change_xdp()), two synchronize_rcu() a call where a JIT
 * builds the dispatcher, which then cost more than the runs measured.
 * A tc test run has no dispatcher, with or without a JIT.  A run
 * returns BENCH_DONE (TC_ACT_OK), or BENCH_FAILED (TC_ACT_SHOT) when
 * it could not do its work: bench_test_run() fails the latter.
 */
#define BENCH_DONE	0
#define BENCH_FAILED	2

#endif /* KIT_BENCH_RUN_H */
