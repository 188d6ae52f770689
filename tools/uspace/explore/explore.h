/* SPDX-License-Identifier: GPL-2.0 */
/* The explorer's scheduler (sched.c), workload (explore.c) and list walker (lists.c). */
#ifndef EXPLORE_H
#define EXPLORE_H

#include <ucontext.h>
#include "uspace.h"

#ifndef USPACE_TRACE_IMPLIES_RCU_GP
#define USPACE_TRACE_IMPLIES_RCU_GP 1
#endif

#define NR_XCPUS	4
#define XSTACK		(256 * 1024)

enum { XS_IDLE, XS_RUN, XS_BLOCKED };
enum { XB_NONE, XB_LOCK, XB_IRQ_WORK, XB_BARRIER, XB_SYNC };
enum { XF_RCU, XF_TRACE };

struct xcpu {
	ucontext_t uc;
	void *stack;
	int state, block, at;
	const void *block_on;
	int barrier_flavour;
	void (*op)(int cpu, long arg);
	long op_arg;
	bool reader;
	unsigned long op_start;
	/* the CPU */
	bool irqs_off, in_nmi, in_handler;
	struct irq_work *pending;
	bool req_irq, req_softirq, req_nmi;
	/* explicit readers of each flavour: nesting and start time */
	int nest[2];
	unsigned long start[2];
	/* the allocator's own rcu_read_lock() (7.2's guard(rcu)) */
	int knest;
	unsigned long kstart, sync_time;
	unsigned long irq_works, callbacks;
};

extern struct xcpu xcpus[NR_XCPUS];
extern int xcur;
extern bool xself_ipi;
extern unsigned long xtime;
extern unsigned long xpoints[USPACE_SP_KINDS];
extern int xcbs_pending[2], xcbs_ready[2];

void xresume(int k);
void xstart(int k, void (*fn)(int cpu, long arg), long arg, bool reader);
void xrun_irq_work(int cpu);
void xrun_softirq(int cpu);
int xgp_end(int f);
int xcb_ready_cpu(int f);
int xcb_blocker(int f);
int xrcu_blocker(unsigned long t);
bool xcb_ready_cpu_is(int cpu);
int xcb_running_cpu(int f);
bool xstart_work(int k);
bool xworks_pending(void);
void xsched_reset(void);
void xfree_all_blocks(void);

/* Every kmalloc/percpu block, registered */
enum { XK_KMALLOC, XK_OBJECT, XK_PERCPU };
struct xblock {
	size_t size;
	int kind, idx;
	gfp_t gfp;
	int mark;		/* lists.c: how many places hold it */
	unsigned long serial;	/* n-th block of the run: stable across replays */
	const char *place;	/* where the last check found it */
	int place_cpu;
	/* lists.c, release: on reuse_ready seen_on at step seen_at, since step since */
	const void *seen_on;
	unsigned long seen_at, since;
	/* explore.c, dtor: destructor calls on it */
	int dtors;
	long data[] __attribute__((aligned(16)));
};

/* A check found @b live, at @place (of CPU @cpu, or -1). */
static inline void xblock_mark(struct xblock *b, const char *place, int cpu)
{
	b->mark++;
	b->place = place;
	b->place_cpu = cpu;
}

extern struct xblock **xblocks;
extern int nr_xblocks;
extern long xmem_live;
struct xblock *xblock_of(const void *p);
/* "#serial" of the block that starts at @p (or holds it), for messages */
unsigned long xserial(const void *p);

/* hb.c: happens-before of the allocator's accesses to its caches */
void xhb_reset(void);
void xhb_watch(const void *block);
void xhb_release(const void *p);
void xhb_acquire(const void *p);
void xhb_after_ops(void);
void xhb_op_end(void);
void xhb_check_free(const void *block, size_t size);

/* explore.c */
/* What an idle CPU runs to take an interrupt: no operation of the workload */
void xop_noop(int cpu, long arg);
void xfail(const char *inv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void xtrace_event(int cpu, const char *what, const char *detail);
void xnmi_prog(int cpu);
void xcheck_kfree(const void *p);

/* lists.c: the variant's own struct bpf_mem_cache */
struct bpf_mem_alloc;
/* Walk every named list of every cache of @ma: xblock mark++ per object met */
void xlists_mark(struct bpf_mem_alloc *ma, bool *cycle);
/* The pools explore.c allocates from, at most */
#define XMAX_POOLS	4
/* Invariant release after step @step (lists.c): track reuse_ready, and judge when every CPU is idle */
extern const bool xlists_release_tracked;
void xlists_release_check(struct bpf_mem_alloc *ma, int pool, unsigned long step, bool judge);
/* "name=len ..." of the caches of @ma on @cpu (size 0: summed over the buckets) */
int xlists_print(struct bpf_mem_alloc *ma, int cpu, char *buf, int len);

#endif
