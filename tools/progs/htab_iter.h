/* SPDX-License-Identifier: GPL-2.0 */
/* What tools/selftests/htab_iter.c and tools/progs/htab_iter.bpf.c share. */
#ifndef KIT_HTAB_ITER_H
#define KIT_HTAB_ITER_H

#define ITER_MAX_ENTRIES	768
/* Keys 0..ITER_STABLE-1 stay in the map for a whole walk but for the
 * callback's own deletes; the churn's keys start at ITER_CHURN_BASE.
 */
#define ITER_STABLE		512
#define ITER_CHURN_BASE		0x10000
#define ITER_CHURN_KEYS		256
#define ITER_CHURN_STEPS	1024
/* How long the callback stays on an element. */
#define ITER_DWELL_NS		4000
#define ITER_DWELL_READS	256
#define ITER_SALT		0x77616c6bULL

struct iter_value {
	__u64 key;
	__u64 salt;
};

#endif /* KIT_HTAB_ITER_H */
