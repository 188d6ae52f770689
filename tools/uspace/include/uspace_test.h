/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests use of the shim beyond the kernel API: CPUs, the NMI
 * hook, fault injection, debugfs counters and the memory accounting.
 */
#ifndef USPACE_TEST_H
#define USPACE_TEST_H

#include "uspace.h"

/* Live and peak bytes of every kmalloc and percpu allocation. */
long uspace_mem_live(void);
long uspace_mem_peak(void);
void uspace_mem_reset_peak(void);

/*
 * An NMI handler for this thread's CPU, run from local_inc_return()
 * once every @period calls (0: never), with irqs off and in_nmi() true.
 */
void uspace_set_nmi(void (*handler)(void), unsigned int period);
unsigned long uspace_nmis(void);

/* Percent of GFP_NOWAIT kmalloc/percpu allocations that fail (0-100). */
void uspace_set_failslab(int percent);

/* The fault_attr a variant registered as debugfs directory @name, or NULL. */
struct fault_attr *uspace_fault_attr(const char *name);
/* A debugfs atomic_t counter by file name, or -1 when the variant has none. */
long uspace_debugfs_read(const char *name);

/*
 * Run @hook once, at the next kfree() of this thread, before it frees:
 * e.g. RCU callbacks on another CPU in the middle of a drain.
 */
void uspace_set_kfree_hook(void (*hook)(void));

/*
 * Watch slot @slot (0..NR_CPUS-1): note when the kmalloc() block that
 * holds @obj is kfree()d, by any thread.  @obj NULL ends the watch.
 */
void uspace_watch(int slot, const void *obj);
bool uspace_watched_freed(int slot);

/* RCU threads must register with liburcu (done by uspace_set_cpu()). */
void uspace_rcu_register(void);
void uspace_rcu_unregister(void);

#endif /* USPACE_TEST_H */
