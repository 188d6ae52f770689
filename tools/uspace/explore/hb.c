// SPDX-License-Identifier: GPL-2.0
/*
 * Happens-before for the explorer: the part of weak memory that a
 * sequentially consistent scheduler can still judge.
 *
 * The scheduler runs one access at a time, so every run it makes is a
 * run a real machine could make, but not every run a real machine makes
 * is one of them: a machine may let another CPU see a store before the
 * accesses that precede it.  Where that matters here is a cache freed by
 * bpf_mem_alloc_destroy() once it reads a callback's "done" count: the
 * callback's accesses to the cache must be ordered before the store that
 * drops the count, by a barrier or a release.  Without one, a machine
 * may still be doing them when the cache is freed, though the explorer's
 * run did them first.
 *
 * So each simulated CPU carries a vector clock, and the allocator's
 * accesses carry the kernel's ordering (uspace.h, USPACE_HB()): a release
 * (smp_store_release(), a value-returning atomic, xchg, cmpxchg, a
 * spinlock's unlock, or a plain store or RMW after smp_mb()) publishes the
 * CPU's clock with the location; an acquire (smp_load_acquire(),
 * READ_ONCE() and atomic_read(), which the kernel orders by address or
 * control dependency, a value-returning atomic, a lock) takes it.  Every
 * load and store memalloc.c makes to its caches is recorded with the
 * CPU's epoch (lists.c is built with -fsanitize-coverage=trace-loads,
 * trace-stores).  When a CPU frees a cache, every other CPU's last access
 * to it must be in the freeing CPU's clock: else invariant "hb".  The one
 * access excused is the store the freeing CPU read its permission from
 * (the count itself: it is ordered by reading it).
 *
 * The orders outside memalloc.c are the model's: an operation of the
 * workload starts after every operation that ended (they share a map,
 * whose own ordering is not under test), an RCU callback after the
 * operations and reader sections that ended before it runs, a work item
 * after its queue_work(), rcu_barrier() after the callbacks it waited
 * for.  What this cannot see: a missing barrier on the reading side
 * (READ_ONCE() and atomic_read() are taken as acquires, as the shim has
 * them), store buffering between two CPUs that each store then load
 * (every run is still one order of whole accesses), and anything on
 * memory other than the caches (objects are handed between CPUs by the
 * workload).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explore.h"

struct vc {
	unsigned int t[NR_XCPUS];
};

static void join(struct vc *a, const struct vc *b)
{
	int i;

	for (i = 0; i < NR_XCPUS; i++)
		if (b->t[i] > a->t[i])
			a->t[i] = b->t[i];
}

/*
 * One address the allocator touched: for an atomic location, what a
 * reader of it synchronizes with; in a watched block, each CPU's last
 * access to it.
 */
struct word {
	uintptr_t addr;
	struct vc sync;
	int last_cpu;		/* the last store or RMW: CPU and epoch */
	unsigned int last_t;
	unsigned int seen;	/* CPUs that read it since that store */
	unsigned int t[NR_XCPUS];	/* each CPU's last access (watched blocks) */
};

#define HB_SLOTS	16384	/* a power of two; a run touches a few thousand words */

static struct vc cpu_vc[NR_XCPUS], fence_vc[NR_XCPUS], pending_vc[NR_XCPUS], ops_vc;
static struct word words[HB_SLOTS];
/* the slots in use, so that a run resets and scans only those */
static unsigned int used[HB_SLOTS], nr_used;
static struct {
	uintptr_t lo, hi;
} watched[8];
static int nr_watched;

static unsigned int slot(uintptr_t a)
{
	return (unsigned int)((a >> 3) * 0x9e3779b1u) & (HB_SLOTS - 1);
}

static struct word *word_of(const volatile void *p)
{
	uintptr_t a = (uintptr_t)p;
	unsigned int i, n;

	for (i = slot(a), n = 0; n < HB_SLOTS; i = (i + 1) & (HB_SLOTS - 1), n++) {
		if (words[i].addr == a)
			return &words[i];
		if (!words[i].addr) {
			words[i].addr = a;
			words[i].last_cpu = -1;
			used[nr_used++] = i;
			return &words[i];
		}
	}
	xfail("model", "more than %d addresses in one run", HB_SLOTS);
	return NULL;
}

static bool is_watched(uintptr_t a)
{
	int i;

	for (i = 0; i < nr_watched; i++)
		if (a >= watched[i].lo && a < watched[i].hi)
			return true;
	return false;
}

/* After a release the CPU's later accesses are no longer covered by it */
static void tick(int k)
{
	cpu_vc[k].t[k]++;
}

void xhb_reset(void)
{
	int k;

	memset(cpu_vc, 0, sizeof(cpu_vc));
	memset(fence_vc, 0, sizeof(fence_vc));
	memset(pending_vc, 0, sizeof(pending_vc));
	memset(&ops_vc, 0, sizeof(ops_vc));
	while (nr_used)
		memset(&words[used[--nr_used]], 0, sizeof(words[0]));
	nr_watched = 0;
	for (k = 0; k < NR_XCPUS; k++)
		cpu_vc[k].t[k] = 1;
}

void xhb_watch(const void *block)
{
	struct xblock *b = xblock_of(block);

	BUG_ON(nr_watched == (int)ARRAY_SIZE(watched));
	watched[nr_watched].lo = (uintptr_t)b->data;
	watched[nr_watched].hi = (uintptr_t)b->data + b->size;
	nr_watched++;
}

static void record(uintptr_t a)
{
	if (xcur >= 0 && nr_watched && is_watched(a))
		word_of((void *)a)->t[xcur] = cpu_vc[xcur].t[xcur];
}

/* The shim's marked accesses, atomics and barriers (uspace.h) */
void uspace_hb(const volatile void *p, int how)
{
	int k = xcur;
	struct word *l;

	if (k < 0)
		return;
	if (how == USPACE_HB_FENCE) {
		join(&cpu_vc[k], &pending_vc[k]);
		fence_vc[k] = cpu_vc[k];
		tick(k);
		return;
	}
	record((uintptr_t)p);
	l = word_of(p);
	switch (how) {
	case USPACE_HB_LOAD:
		join(&pending_vc[k], &l->sync);
		l->seen |= 1u << k;
		break;
	case USPACE_HB_LOAD_ACQUIRE:
		join(&cpu_vc[k], &l->sync);
		l->seen |= 1u << k;
		break;
	case USPACE_HB_STORE:
		l->sync = fence_vc[k];
		break;
	case USPACE_HB_STORE_RELEASE:
		l->sync = cpu_vc[k];
		break;
	case USPACE_HB_RMW:
		/* a relaxed RMW continues the release sequence it reads */
		join(&pending_vc[k], &l->sync);
		join(&l->sync, &fence_vc[k]);
		break;
	case USPACE_HB_RMW_FULL:
		join(&cpu_vc[k], &l->sync);
		join(&l->sync, &cpu_vc[k]);
		break;
	}
	if (how != USPACE_HB_LOAD && how != USPACE_HB_LOAD_ACQUIRE) {
		l->last_cpu = k;
		l->last_t = cpu_vc[k].t[k];
		l->seen = 0;
		if (how == USPACE_HB_STORE_RELEASE || how == USPACE_HB_RMW_FULL)
			tick(k);
	}
}

/* A lock's release and acquire, and the model's own edges, on an address */
void xhb_release(const void *p)
{
	if (xcur < 0)
		return;
	join(&word_of(p)->sync, &cpu_vc[xcur]);
	tick(xcur);
}

void xhb_acquire(const void *p)
{
	if (xcur >= 0)
		join(&cpu_vc[xcur], &word_of(p)->sync);
}

/*
 * The workload's operations: each starts after every one that ended, and
 * so do an RCU callback and the return of synchronize_rcu(), which wait
 * for the operations that were read sections.
 */
void xhb_after_ops(void)
{
	if (xcur >= 0)
		join(&cpu_vc[xcur], &ops_vc);
}

void xhb_op_end(void)
{
	if (xcur < 0)
		return;
	join(&ops_vc, &cpu_vc[xcur]);
	tick(xcur);
}

/* memalloc.c's loads and stores (lists.c is built with trace-loads,trace-stores) */
/* The instrumentation's own types differ by width; only the address matters */
#define COV(n)								\
	void __sanitizer_cov_load##n(void *p) { record((uintptr_t)p); }	\
	void __sanitizer_cov_store##n(void *p) { record((uintptr_t)p); }
COV(1)
COV(2)
COV(4)
COV(8)
COV(16)

/*
 * The words of a freed block are forgotten (a tombstone, 1, keeps the
 * probe chains), so that a block malloc() puts there later starts clean.
 */
static void forget(uintptr_t lo, uintptr_t hi)
{
	unsigned int i;

	for (i = 0; i < nr_used; i++)
		if (words[used[i]].addr >= lo && words[used[i]].addr < hi)
			words[used[i]].addr = 1;
}

/* CPU @k (xcur) frees @block: every other CPU's access must be ordered before */
void xhb_check_free(const void *block, size_t size)
{
	uintptr_t lo = (uintptr_t)block, hi = lo + size;
	int k = xcur, j, i, w;

	for (w = 0; w < nr_watched; w++)
		if (watched[w].lo == lo)
			break;
	if (w == nr_watched)
		return;
	watched[w] = watched[--nr_watched];
	if (k < 0) {
		forget(lo, hi);
		return;
	}
	for (i = 0; i < (int)nr_used; i++) {
		struct word *a = &words[used[i]];

		if (a->addr < lo || a->addr >= hi)
			continue;
		for (j = 0; j < NR_XCPUS; j++) {
			if (j == k || a->t[j] <= cpu_vc[k].t[j])
				continue;
			/* the store the freeing CPU read its permission from */
			if (a->last_cpu == j && a->last_t == a->t[j] && (a->seen & (1u << k)))
				continue;
			xfail("hb", "CPU %d frees block #%lu while CPU %d's access at +%#lx (its epoch %u) "
			      "is not ordered before the free (CPU %d has seen up to %u): a missing barrier",
			      k, xserial(block), j, (unsigned long)(a->addr - lo), a->t[j], k,
			      cpu_vc[k].t[j]);
		}
	}
	forget(lo, hi);
}
