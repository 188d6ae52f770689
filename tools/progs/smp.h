/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tools/progs/smp.bpf.c and tools/selftests/smp.c share: the
 * types of the values and globals both sides read (the skeleton names
 * them without defining them) and their sizes.
 */
#ifndef KIT_SMP_H
#define KIT_SMP_H

#include <linux/bpf.h>

/* --- percpu_every_cpu --- */

/* Keys per program run, and per CPU and round of the selftest. */
#define PCPU_BURST	64
/* Processes (one per CPU) the globals have room for. */
#define PCPU_MAX_CPUS	8
#define PCPU_SALT	0x5ca1ab1e00000000ULL

/* One CPU's copy of a per-cpu value: sum is key ^ round ^ cpu ^ PCPU_SALT. */
struct pcpu_value {
	__u64 key;
	__u64 round;
	__u64 cpu;
	__u64 sum;
};

/* The keys [first, first + nr) of one run, nr at most PCPU_BURST. */
struct pcpu_args {
	__u32 first;
	__u32 nr;
	__u64 round;
	__u32 retry;		/* insert again after -ENOMEM: -EEXIST is a key already in */
	__u32 pad;
};

/* What the programs on one CPU counted. */
struct pcpu_result {
	__u64 inserted;
	__u64 insert_nomem;	/* the allocator had no object at hand */
	__u64 insert_again;	/* -EEXIST on a retry */
	__u64 insert_err;
	__u64 checked;
	__u64 missing;
	__u64 wrong;
	__u64 deleted;
	__u64 first_wrong_key;
	struct pcpu_value first_wrong;
};

/* --- lock_update_vs_delete --- */

/* The value every BPF_F_LOCK copy takes whole or not at all: LOCK_WORDS stamps. */
#define LOCK_WORDS	62

struct lock_value {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 stamp[LOCK_WORDS];
};

/* Map operations per program run. */
#define LOCK_BURST	32
/* Keys both CPUs work on. */
#define LOCK_KEYS	4

/* What the programs on one CPU counted. */
struct lock_stats {
	__u64 runs;
	__u64 writes;		/* updates, or deletes and inserts */
	__u64 reinserted;	/* inserts that found the key there again */
	__u64 nomem;
	__u64 errors;
	__s64 first_error;
	__u64 reads;		/* values read under their lock */
	__u64 absent;
	__u64 torn;
	__u64 torn_key;		/* the first torn value: */
	__u64 torn_word0;
	__u64 torn_word;
	__u64 torn_at;
};

#endif /* KIT_SMP_H */
