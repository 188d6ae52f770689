// SPDX-License-Identifier: GPL-2.0
/*
 * explore: a libFuzzer target that runs a variant's memalloc.c on
 * simulated CPUs (sched.c) in the order its input dictates, and checks
 * the allocator's promises after every step.
 *
 * The input: byte 0 picks the number of CPUs (2 + b % 3), how
 * irq_work is raised (b & 4: a self-IPI, as x86, run as soon as irqs are
 * on; else a tick, run only by the irq_work command) and, where the
 * allocator has it, whether frees go through bpf_mem_cache_free_rcu()
 * (b & 8; ignored on 6.1) and whether each pool has a destructor
 * (b & 16: bpf_mem_alloc_set_dtor(), 7.2 on; ignored before), then commands
 * of two bytes, OP and ARG (OP % NR_OPS; CPU k = ARG % CPUs):
 *
 *   alloc k n      CPU k allocates 1 + s objects of the fixed-size cache
 *   free k s       CPU k frees up to 8 live objects from the s-th on
 *   salloc k n     CPU k allocates 1 + s%8 objects of sizes[that % 8] (bpf_mem_alloc)
 *   sfree k s      CPU k frees up to 8 sized objects (bpf_mem_free)
 *   palloc k n     CPU k allocates 1 + s%4 per-cpu objects
 *   pfree k s      CPU k frees up to 8 per-cpu objects
 *   rcu_lock k s   a program on CPU k enters rcu_read_lock() and holds the s-th live object
 *   rcu_unlock k   it leaves
 *   trace_lock k s a sleepable program enters rcu_read_lock_trace(), holds the s-th
 *   trace_unlock k it leaves
 *   irq_work k     deliver CPU k's pending irq_work (at its next point with irqs on)
 *   softirq k      run CPU k's ready RCU callbacks (likewise)
 *   gp f           end a grace period: ARG&1 ? RCU tasks trace : RCU; every CPU's
 *                  operation ends first, unless ARG&2 (then a CPU in the middle of one
 *                  holds up the callbacks queued after its operation began)
 *   nmi k          an NMI program on CPU k, at its next local_inc_return()
 *   step k n       resume CPU k for 1 + s%4 scheduling points
 *   finish k       run CPU k's operation to its end
 *   destroy k      free every live object on CPU k (to its end), then start
 *                  bpf_mem_alloc_destroy() there, stepped like any operation
 *   work k         run the oldest queued work item (destroy's deferred free) on CPU k
 *   fault f        fail_bpf_reuse_batch off (ARG even) or always (odd), where it exists
 *
 * A workload operation (alloc ... pfree) runs to its end, unless ARG's
 * top bit is set: then it stops at its first scheduling point and waits
 * for "step"/"finish" (or the next operation on that CPU, which finishes
 * it first), and other CPUs run in between.  destroy always stops there.
 * s = (ARG >> 2) & 31 below.  After the last command every operation is
 * finished, readers leave, the allocator is destroyed, the work and
 * every callback run, and all memory must be back.
 *
 * Invariants (xfail's first argument names the one that broke):
 *   reuse       an object an RCU reader took is handed out again before it leaves
 *   rcu-reuse   the same for an object freed by bpf_mem_cache_free_rcu() (byte 0 & 8)
 *   rcu-free    its memory goes back to slab before it leaves
 *   trace-free  the same for an RCU tasks trace reader
 *   in-use      an object handed out twice, or given back to slab while in use
 *   one-place   with every CPU idle, each object is in exactly one place:
 *               in use, on one list of one cache, in one batch or callback
 *   leak        memory left after destroy and every callback
 *   warn        a WARN_ON of the allocator
 *   hb          a CPU frees a cache while another CPU's access to it is not
 *               ordered before the free (hb.c: the weak-memory check)
 *   release     a batch arrives on reuse_ready while free_rh is idle and
 *               claims nothing (6.1's port: what a live cache would keep
 *               for ever; lists.c)
 *   dtor        with destructors (byte 0 & 16): an object goes back to slab
 *               without its destructor or after two, or a pool's context is
 *               freed before destroy or never (a destructor called after
 *               its context's free is ASan's use-after-free)
 *   deadlock, livelock, model
 * EXPLORE_XFAIL="reuse trace-free": invariants this variant is expected
 * to break; a break is then counted and reported, not a crash.
 * EXPLORE_TRACE=1: print each command, the events and list lengths.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sanitizer/asan_interface.h>

#include <linux/bpf_mem_alloc.h>
#include "uspace_test.h"
#include "explore.h"

extern const size_t xllist_node_sz;
extern unsigned long xobj_kfrees;
void xobjs_collect(void);
struct xblock *xobj_at(const void *p);
int xobjs_count(void);
struct xblock *xobj(int i);
void xlists_mark_kmalloc(bool *bad);
void xcbs_mark(void);

enum { P_FIXED, P_SIZED, P_PCPU, NR_POOLS };
_Static_assert(NR_POOLS <= XMAX_POOLS, "lists.c keeps XMAX_POOLS pools");
static const char *const pool_names[] = { "fixed", "sized", "pcpu" };
static struct bpf_mem_alloc mas[NR_POOLS];
#define ELEM_SIZE	48
#define PCPU_SIZE	40
static const int sizes[] = { 8, 48, 100, 200, 500, 1000, 2000, 4000 };

#define NR_SLOTS	64
static struct slot {
	void *ptr;
	int pool;
} slots[NR_SLOTS];

#define NR_HOLDS	8
struct hold {
	void *block;
	int slot;
	bool freed, rcu;	/* rcu: freed with bpf_mem_cache_free_rcu()/bpf_mem_free_rcu() */
};
static struct hold holds[NR_XCPUS][2][NR_HOLDS];
static int nr_holds[NR_XCPUS][2];

#define NR_STASH	4
static void *stash[NR_XCPUS][NR_STASH];

/*
 * Byte 0 & 8, on a memalloc.c that has bpf_mem_cache_free_rcu() (6.12
 * on; uspace.mk sets EXPLORE_FREE_RCU): the workload frees through it
 * and bpf_mem_free_rcu(), whose promise is that an RCU reader that holds
 * the object never sees it handed out again (invariant rcu-reuse, which
 * no variant is expected to break).
 */
#ifndef EXPLORE_FREE_RCU
#define EXPLORE_FREE_RCU 0
#endif
static bool rcu_frees;

/*
 * Byte 0 & 16, on a memalloc.c that has bpf_mem_alloc_set_dtor() (7.2;
 * uspace.mk sets EXPLORE_DTOR): each pool gets a destructor and a
 * kmalloc'd context, as 7.2's hash map gives its element (or per-cpu
 * value) cache one when the map's value has special fields
 * (htab_map_check_btf(), bpf_ma_set_dtor(): the destructor frees the
 * fields, the context holds their BTF record).  free_all() calls the
 * destructor on each object it gives back to slab, and destroy frees the
 * context once every callback that could call it is done.  Invariant
 * dtor: each object that goes back to slab went through the destructor
 * exactly once (special fields neither leaked nor freed twice), and the
 * context is freed at destroy, once (a destructor called after that
 * touches freed memory: ASan's report).
 */
#ifndef EXPLORE_DTOR
#define EXPLORE_DTOR 0
#endif
struct dtor_ctx {
	int pool;
	unsigned long calls;
};
static bool dtors, dtor_ctx_freed[NR_POOLS];
static bool destroyed, destroying;
static int trace;
static char xfail_list[128];
static unsigned long runs, xfail_runs, points_total, points_max;
static bool xfail_seen;
static int cmd_no;
/* Commands and PCT steps executed, over every run (release: checks one step apart) */
static unsigned long xstep;

static const char *const sp_names[USPACE_SP_KINDS] = {
	"read", "write", "xchg", "atomic", "irq_off", "irq_on", "lock", "unlock",
	"irq_work", "call_rcu", "nmi", "wait", "op",
};

/* --- failures ------------------------------------------------------------ */

static bool expected(const char *inv)
{
	const char *p = xfail_list;
	size_t n = strlen(inv);

	while ((p = strstr(p, inv))) {
		if ((p == xfail_list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static void pct_replay_line(void);

void xfail(const char *inv, const char *fmt, ...)
{
	va_list ap;

	if (expected(inv)) {
		if (!xfail_seen && (trace || !xfail_runs)) {
			fprintf(stderr, "explore: expected failure (%s) at command %d: ", inv, cmd_no);
			va_start(ap, fmt);
			vfprintf(stderr, fmt, ap);
			va_end(ap);
			fprintf(stderr, "\n");
			pct_replay_line();
		}
		xfail_seen = true;
		return;
	}
	fprintf(stderr, "explore: FAIL (%s) at command %d: ", inv, cmd_no);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	pct_replay_line();
	fflush(stderr);
	abort();
}

void xtrace_event(int cpu, const char *what, const char *detail)
{
	if (trace)
		printf("        cpu%d: %s%s%s (objects freed so far: %lu)\n", cpu, what, *detail ? " " : "", detail, xobj_kfrees);
}

/* --- the workload --------------------------------------------------------- */

static void *block_of(void *p)
{
	return (char *)p - xllist_node_sz;
}

static void op_point(void)
{
	uspace_sched_point(USPACE_SP_OP);
}

/*
 * The slot of the @n-th live object (of pool @pl, any: -1), counting
 * round: a command's argument always names an object while there is one.
 */
static int nth_live(int pl, int n)
{
	int i, live = 0;

	for (i = 0; i < NR_SLOTS; i++)
		live += slots[i].ptr && (pl < 0 || slots[i].pool == pl);
	if (!live)
		return -1;
	n %= live;
	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i].ptr && (pl < 0 || slots[i].pool == pl) && !n--)
			return i;
	return -1;
}

/* A fresh object from pool @pl on @cpu: check it, record it */
static void got(int cpu, int pl, void *p)
{
	void *b;
	int i, k, f;

	if (!p || p == ZERO_SIZE_PTR)
		return;
	b = block_of(p);
	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i].ptr && block_of(slots[i].ptr) == b)
			xfail("in-use", "CPU %d got object #%lu from %s, which slot %d still holds", cpu,
			      xserial(b), pool_names[pl], i);
	for (k = 0; k < uspace_nr_cpus; k++)
		for (f = 0; f < 2; f++)
			for (i = 0; i < nr_holds[k][f]; i++) {
				struct hold *h = &holds[k][f][i];

				if (h->block == b && h->freed && h->rcu && f == XF_RCU)
					xfail("rcu-reuse", "CPU %d got object #%lu from %s, freed by bpf_mem_%sfree_rcu() while CPU %d's RCU reader (inside since time %lu) holds it",
					      cpu, xserial(b), pool_names[pl], pl == P_SIZED ? "" : "cache_", k, xcpus[k].start[f]);
				else if (h->block == b && h->freed && f == XF_RCU)
					xfail("reuse", "CPU %d got object #%lu from %s, freed while CPU %d's RCU reader (inside since time %lu) holds it",
					      cpu, xserial(b), pool_names[pl], k, xcpus[k].start[f]);
			}
	for (i = 0; i < NR_SLOTS; i++)
		if (!slots[i].ptr) {
			slots[i].ptr = p;
			slots[i].pool = pl;
			return;
		}
	/* no room: give it back at once */
	if (pl == P_SIZED)
		bpf_mem_free(&mas[pl], p);
	else
		bpf_mem_cache_free(&mas[pl], p);
}

static void do_free(int cpu, int i)
{
	void *p = slots[i].ptr, *b;
	int pl = slots[i].pool, k, f, j;

	if (!p)
		return;
	slots[i].ptr = NULL;
	b = block_of(p);
	for (k = 0; k < uspace_nr_cpus; k++)
		for (f = 0; f < 2; f++)
			for (j = 0; j < nr_holds[k][f]; j++)
				if (holds[k][f][j].block == b) {
					holds[k][f][j].freed = true;
					holds[k][f][j].rcu = rcu_frees;
				}
#if EXPLORE_FREE_RCU && !defined(EXPLORE_INJECT_rcu_free_at_once)
	if (rcu_frees) {
		if (pl == P_SIZED)
			bpf_mem_free_rcu(&mas[pl], p);
		else
			bpf_mem_cache_free_rcu(&mas[pl], p);
		return;
	}
#endif
	if (pl == P_SIZED)
		bpf_mem_free(&mas[pl], p);
	else
		bpf_mem_cache_free(&mas[pl], p);
}

/* arg: pool << 8 | count */
static void op_alloc(int cpu, long arg)
{
	int pl = arg >> 8, n = arg & 0xff, i;

	for (i = 0; i < n; i++) {
		size_t size = pl == P_SIZED ? sizes[n % ARRAY_SIZE(sizes)] : ELEM_SIZE;
		void *p;

		if (i)
			op_point();
		p = pl == P_SIZED ? bpf_mem_alloc(&mas[pl], size) : bpf_mem_cache_alloc(&mas[pl]);
		/*
		 * A program fills the element it got, all of it: a unit too
		 * small for what the allocator promised is ASan's to report.
		 * (A per-cpu pool hands out a pointer to its per-cpu area.)
		 */
		if (p && p != ZERO_SIZE_PTR && pl != P_PCPU)
			memset(p, 0x5a, size);
		got(cpu, pl, p);
	}
}

/* arg: pool << 8 | n; up to 8 objects of the pool from its n-th live one on */
static void op_free(int cpu, long arg)
{
	int pl = arg >> 8, first = nth_live(pl, arg & 0xff), i, n = 0;

	if (first < 0)
		return;
	for (i = 0; i < NR_SLOTS && n < 8; i++) {
		int j = (first + i) % NR_SLOTS;

		if (slots[j].ptr && slots[j].pool == pl) {
			if (n++)
				op_point();
			do_free(cpu, j);
		}
	}
}

void xop_noop(int cpu, long arg)
{
}

/* The NMI program: free what it stashed, else allocate, on the fixed pool */
void xnmi_prog(int cpu)
{
	int i;

	if (destroyed || destroying)
		return;
	for (i = 0; i < NR_STASH; i++)
		if (stash[cpu][i]) {
			bpf_mem_cache_free(&mas[P_FIXED], stash[cpu][i]);
			stash[cpu][i] = NULL;
			return;
		}
	for (i = 0; i < NR_STASH; i++)
		if (!stash[cpu][i]) {
			stash[cpu][i] = bpf_mem_cache_alloc(&mas[P_FIXED]);
			if (stash[cpu][i]) {
				void *b = block_of(stash[cpu][i]);
				int j;

				for (j = 0; j < NR_SLOTS; j++)
					if (slots[j].ptr && block_of(slots[j].ptr) == b)
						xfail("in-use", "NMI on CPU %d got object #%lu, which slot %d still holds",
						      cpu, xserial(b), j);
			}
			return;
		}
}

static void reader_leave(int k, int f)
{
	if (!xcpus[k].nest[f])
		return;
	xcpus[k].nest[f] = 0;
	nr_holds[k][f] = 0;
}

static void reader_enter(int k, int f, int n)
{
	int s = nth_live(-1, n);

	if (!xcpus[k].nest[f]) {
		xcpus[k].nest[f] = 1;
		xcpus[k].start[f] = ++xtime;
	}
	if (s >= 0 && nr_holds[k][f] < NR_HOLDS)
		holds[k][f][nr_holds[k][f]++] = (struct hold){ .block = block_of(slots[s].ptr), .slot = s };
}

void xcheck_kfree(const void *p)
{
	int k, f, i;

	if (dtors && xblock_of(p)->kind == XK_OBJECT && xblock_of(p)->dtors != 1)
		xfail("dtor", "object #%lu went back to slab after %d destructor calls, not one", xserial(p),
		      xblock_of(p)->dtors);
	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i].ptr && block_of(slots[i].ptr) == p)
			xfail("in-use", "kfree() of object #%lu, which slot %d holds", xserial(p), i);
	for (k = 0; k < uspace_nr_cpus; k++)
		for (f = 0; f < 2; f++)
			for (i = 0; i < nr_holds[k][f]; i++)
				if (holds[k][f][i].block == p)
					xfail(f == XF_RCU ? "rcu-free" : "trace-free",
					      "kfree() of object #%lu while CPU %d's %s reader holds it", xserial(p), k,
					      f == XF_RCU ? "RCU" : "RCU tasks trace");
}

/* What the map frees before it destroys its allocator: every element */
static void op_free_all(int cpu, long arg)
{
	int i, k;

	destroying = true;
	for (k = 0; k < uspace_nr_cpus; k++)
		for (i = 0; i < NR_STASH; i++)
			if (stash[k][i]) {
				bpf_mem_cache_free(&mas[P_FIXED], stash[k][i]);
				stash[k][i] = NULL;
			}
	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i].ptr) {
			do_free(cpu, i);
			op_point();
		}
}

static void op_destroy(int cpu, long arg)
{
	int i, k;

	if (trace) {
		char buf[512];
		bool bad = false;

		xobjs_collect();
		for (i = 0; i < NR_POOLS; i++)
			xlists_mark(&mas[i], &bad);
		xlists_mark_kmalloc(&bad);
		xcbs_mark();
		for (k = 0; k < uspace_nr_cpus; k++) {
			xlists_print(&mas[P_FIXED], k, buf, sizeof(buf));
			printf("        cpu%d: destroy starts, fixed pool cpu%d: %s\n", cpu, k, buf);
		}
	}
	for (i = 0; i < NR_POOLS; i++) {
		bpf_mem_alloc_destroy(&mas[i]);
		if (trace)
			printf("        cpu%d: destroyed pool %s, %d blocks %ld bytes live\n", cpu,
			       pool_names[i], nr_xblocks, xmem_live);
	}
	destroyed = true;
}

/* --- driving the CPUs ------------------------------------------------------ */

static unsigned long budget;

static void step(int k, int depth);

/* CPU @k waits: do what it waits for */
static void resolve(int k, int depth)
{
	struct xcpu *c = &xcpus[k];
	int j;

	if (depth > 16)
		xfail("deadlock", "CPUs wait for each other (CPU %d)", k);
	switch (c->block) {
	case XB_LOCK:
		j = ((raw_spinlock_t *)c->block_on)->locked - 1;
		if (!((raw_spinlock_t *)c->block_on)->locked) {
			xresume(k);
			return;
		}
		if (j >= uspace_nr_cpus || xcpus[j].state == XS_IDLE)
			xfail("deadlock", "CPU %d waits for a lock that no running CPU holds", k);
		step(j, depth + 1);
		return;
	case XB_IRQ_WORK:
		j = ((struct irq_work *)c->block_on)->cpu;
		if (!((struct irq_work *)c->block_on)->flags) {
			xresume(k);
			return;
		}
		xcpus[j].req_irq = true;
		if (j == k) {
			if (c->irqs_off)
				xfail("deadlock", "CPU %d waits for its own irq_work with irqs off", k);
			xresume(k);
		} else if (xcpus[j].state == XS_IDLE) {
			xstart(j, xop_noop, 0, true);
		} else if (xcpus[j].state == XS_BLOCKED &&
			   (xcpus[j].block == XB_BARRIER || xcpus[j].block == XB_SYNC)) {
			/*
			 * A CPU asleep in rcu_barrier() or synchronize_rcu()
			 * still takes interrupts: it runs the irq_work and
			 * waits again, whoever holds up its own wait.
			 */
			xresume(j);
		} else {
			step(j, depth + 1);
		}
		return;
	case XB_SYNC:
		j = xrcu_blocker(c->sync_time);
		if (j < 0) {
			xresume(k);
		} else if (xcpus[j].state == XS_IDLE) {
			reader_leave(j, XF_RCU);
			reader_leave(j, XF_TRACE);
		} else {
			step(j, depth + 1);
		}
		return;
	case XB_BARRIER: {
		int f = c->barrier_flavour;

		xgp_end(f);
		j = xcb_ready_cpu(f);
		if (j >= 0) {
			xcpus[j].req_softirq = true;
			if (j == k)
				xresume(k);
			else if (xcpus[j].state == XS_IDLE)
				xstart(j, xop_noop, 0, true);
			else
				step(j, depth + 1);
			return;
		}
		j = xcb_running_cpu(f);
		if (j >= 0 && j != k) {
			/* a callback that began and waits at a point */
			step(j, depth + 1);
			return;
		}
		j = xcb_blocker(f);
		if (j < 0) {
			/* nothing of @f left to wait for: it will see */
			xresume(k);
			return;
		}
		if (j == k)
			xfail("deadlock", "CPU %d's rcu_barrier() waits for callbacks its own reader holds up", k);
		if (xcpus[j].state == XS_IDLE) {
			reader_leave(j, XF_RCU);
			reader_leave(j, XF_TRACE);
		} else {
			step(j, depth + 1);
		}
		return;
	}
	}
	xresume(k);
}

static void step(int k, int depth)
{
	if (++budget > 2000000) {
		int j;

		for (j = 0; j < uspace_nr_cpus; j++)
			fprintf(stderr, "explore: cpu%d state %d block %d at %d irqs_off %d in_handler %d in_nmi %d pending %p req %d%d%d\n",
				j, xcpus[j].state, xcpus[j].block, xcpus[j].at, xcpus[j].irqs_off,
				xcpus[j].in_handler, xcpus[j].in_nmi, (void *)xcpus[j].pending,
				xcpus[j].req_irq, xcpus[j].req_softirq, xcpus[j].req_nmi);
		xfail("livelock", "no end after %lu steps", budget);
	}
	if (xcpus[k].state == XS_BLOCKED)
		resolve(k, depth);
	else
		xresume(k);
}

static void finish(int k)
{
	while (xcpus[k].state != XS_IDLE)
		step(k, 0);
}

static void start(int k, void (*fn)(int, long), long arg, bool reader)
{
	finish(k);
	xstart(k, fn, arg, reader);
}

/* Deliver a request to CPU @k: at its next point, or now if it is idle */
static void poke(int k)
{
	if (xcpus[k].state == XS_IDLE)
		xstart(k, xop_noop, 0, true);
	else
		step(k, 0);
}

static bool all_idle(void)
{
	int k;

	for (k = 0; k < uspace_nr_cpus; k++)
		if (xcpus[k].state != XS_IDLE)
			return false;
	return true;
}

/* --- checks between commands ------------------------------------------- */

static void check_one_place(void)
{
	bool bad = false;
	int i, k;

	xobjs_collect();
	for (i = 0; i < NR_POOLS; i++)
		if (!destroyed)
			xlists_mark(&mas[i], &bad);
	xlists_mark_kmalloc(&bad);
	xcbs_mark();
	if (bad)
		xfail("one-place", "an object is on two lists, or a list loops");
	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i].ptr) {
			struct xblock *b = xobj_at(block_of(slots[i].ptr));

			if (!b)
				xfail("in-use", "slot %d holds an object that is no live object", i);
			else
				xblock_mark(b, "in use", -1);
		}
	for (k = 0; k < uspace_nr_cpus; k++)
		for (i = 0; i < NR_STASH; i++)
			if (stash[k][i]) {
				struct xblock *b = xobj_at(block_of(stash[k][i]));

				if (b)
					xblock_mark(b, "NMI stash", k);
			}
	for (i = 0; i < xobjs_count(); i++) {
		struct xblock *b = xobj(i);

		if (b->mark != 1)
			xfail("one-place", "object #%lu is in %d places (in use, lists, batches, callbacks)",
			      b->serial, b->mark);
	}
}

/*
 * After each command or PCT step: one-place with every CPU idle; release's
 * history, where the variant has one, after every step.
 */
static void after_step(void)
{
	bool idle = all_idle();
	int i;

	xstep++;
	if (idle)
		check_one_place();
	if (!xlists_release_tracked || destroyed)
		return;
	if (!idle)
		xobjs_collect();	/* check_one_place() did it */
	for (i = 0; i < NR_POOLS; i++)
		xlists_release_check(&mas[i], i, xstep, idle);
}

static void print_state(void)
{
	char buf[512];
	unsigned long pts;
	int k, n;

	for (k = 0; k < uspace_nr_cpus; k++) {
		struct xcpu *c = &xcpus[k];

		n = 0;
		if (!destroyed)
			xlists_print(&mas[P_FIXED], k, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "(destroyed)");
		printf("    cpu%d %s%s%s%s%s%s: %s\n", k,
		       c->state == XS_IDLE ? "idle" : c->state == XS_BLOCKED ? "blocked" : "at ",
		       c->state == XS_RUN ? sp_names[c->at] : "",
		       c->nest[XF_RCU] ? " rcu-reader" : "", c->nest[XF_TRACE] ? " trace-reader" : "",
		       c->pending ? " irq_work-pending" : "", c->irqs_off ? " irqs-off" : "", buf);
		(void)n;
	}
	n = 0;
	for (k = 0; k < NR_SLOTS; k++)
		n += !!slots[k].ptr;
	pts = 0;
	for (k = 0; k < USPACE_SP_KINDS; k++)
		pts += xpoints[k];
	printf("    in use %d, callbacks rcu %d+%d ready, trace %d+%d ready, live %ld bytes, points %lu\n",
	       n, xcbs_pending[XF_RCU], xcbs_ready[XF_RCU], xcbs_pending[XF_TRACE], xcbs_ready[XF_TRACE],
	       xmem_live, pts);
}

/* --- one run ---------------------------------------------------------------- */

enum {
	C_ALLOC, C_FREE, C_SALLOC, C_SFREE, C_PALLOC, C_PFREE, C_RCU_LOCK, C_RCU_UNLOCK,
	C_TRACE_LOCK, C_TRACE_UNLOCK, C_IRQ_WORK, C_SOFTIRQ, C_GP, C_NMI, C_STEP,
	C_FINISH, C_DESTROY, C_WORK, C_FAULT, NR_CMDS
};
static const char *const cmd_names[] = {
	"alloc", "free", "salloc", "sfree", "palloc", "pfree", "rcu_lock", "rcu_unlock",
	"trace_lock", "trace_unlock", "irq_work", "softirq", "gp", "nmi", "step",
	"finish", "destroy", "work", "fault",
};

/*
 * An operation of the workload on CPU @k: the CPU finishes what it was
 * doing, then starts @fn, which runs to its end unless ARG's top bit
 * asks it to stop at its first scheduling point (interleave: "step",
 * "finish", or the next operation on the CPU resume it).
 */
static void workload(int k, int a, void (*fn)(int, long), long arg)
{
	start(k, fn, arg, true);
	if (!(a & 0x80))
		finish(k);
}

static void command(int op, int a)
{
	int k = a % uspace_nr_cpus, s = (a >> 2) & 31, i;
	struct fault_attr *fa;

	if (trace)
		printf("#%d %s cpu%d arg %d%s\n", cmd_no, cmd_names[op], k, s, a & 0x80 ? " (interleaved)" : "");
	if (destroyed || destroying) {
		/* after destroy: only what drives the callbacks and the work */
		switch (op) {
		case C_IRQ_WORK: case C_SOFTIRQ: case C_GP: case C_STEP: case C_FINISH: case C_WORK:
			break;
		default:
			return;
		}
	}
	switch (op) {
	case C_ALLOC:
		workload(k, a, op_alloc, P_FIXED << 8 | (1 + s));
		break;
	case C_FREE:
		workload(k, a, op_free, P_FIXED << 8 | s);
		break;
	case C_SALLOC:
		workload(k, a, op_alloc, P_SIZED << 8 | (1 + s % 8));
		break;
	case C_SFREE:
		workload(k, a, op_free, P_SIZED << 8 | s);
		break;
	case C_PALLOC:
		workload(k, a, op_alloc, P_PCPU << 8 | (1 + s % 4));
		break;
	case C_PFREE:
		workload(k, a, op_free, P_PCPU << 8 | s);
		break;
	case C_RCU_LOCK:
	case C_TRACE_LOCK:
		finish(k);
		reader_enter(k, op == C_TRACE_LOCK, s);
		break;
	case C_RCU_UNLOCK:
	case C_TRACE_UNLOCK:
		finish(k);
		reader_leave(k, op == C_TRACE_UNLOCK);
		break;
	case C_IRQ_WORK:
		if (xcpus[k].pending) {
			xcpus[k].req_irq = true;
			poke(k);
		}
		break;
	case C_SOFTIRQ:
		if (xcb_ready_cpu(-1) >= 0) {
			xcpus[k].req_softirq = true;
			poke(k);
		}
		break;
	case C_GP:
		/*
		 * Every CPU passes a quiescent state: its operation ends (ARG
		 * bit 1 clear), or only what no running operation holds up
		 * becomes ready (bit 1 set: a CPU stays in the middle).
		 */
		if (!(a & 2))
			for (i = 0; i < uspace_nr_cpus; i++)
				finish(i);
		i = xgp_end(a & 1);
		if (trace)
			printf("        %s grace period: %d callbacks ready\n", a & 1 ? "tasks trace" : "RCU", i);
		break;
	case C_NMI:
		xcpus[k].req_nmi = true;
		poke(k);
		break;
	case C_STEP:
		for (i = 0; i <= s % 4 && xcpus[k].state != XS_IDLE; i++)
			step(k, 0);
		break;
	case C_FINISH:
		finish(k);
		break;
	case C_DESTROY:
		for (i = 0; i < uspace_nr_cpus; i++) {
			finish(i);
			reader_leave(i, XF_RCU);
			reader_leave(i, XF_TRACE);
		}
		start(k, op_free_all, 0, true);
		finish(k);
		/* stopped at its first point, like an interleaved operation */
		start(k, op_destroy, 0, false);
		break;
	case C_WORK:
		if (xworks_pending()) {
			finish(k);
			xstart_work(k);
		}
		break;
	case C_FAULT:
		fa = uspace_fault_attr("fail_bpf_reuse_batch");
		if (fa)
			fa->probability = a & 1 ? 100 : 0;
		break;
	}
}

static void final(void)
{
	int k, n = 0;

	cmd_no = -1;
	if (trace)
		printf("# end of input: finish, readers leave, destroy, work, callbacks\n");
	for (k = 0; k < uspace_nr_cpus; k++)
		finish(k);
	if (!destroyed) {
		command(C_DESTROY, 0);
		finish(0);
	}
	for (k = 0; k < uspace_nr_cpus; k++)
		finish(k);
	while (xworks_pending()) {
		xstart_work(0);
		for (k = 0; k < uspace_nr_cpus; k++)
			finish(k);
	}
	/* every callback, with every grace period that may end */
	for (;;) {
		int cpu;

		xgp_end(XF_RCU);
		xgp_end(XF_TRACE);
		cpu = xcb_ready_cpu(-1);
		if (cpu < 0)
			break;
		xcpus[cpu].req_softirq = true;
		poke(cpu);
		for (k = 0; k < uspace_nr_cpus; k++)
			finish(k);
		if (++n > 100000)
			xfail("livelock", "callbacks never end");
	}
	if (xcbs_pending[0] || xcbs_pending[1])
		xfail("model", "callbacks left that no grace period ends");
	for (k = 0; k < uspace_nr_cpus; k++)
		if (xcpus[k].pending)
			xfail("leak", "CPU %d has irq_work pending after destroy", k);
	for (k = 0; dtors && k < NR_POOLS; k++)
		if (!dtor_ctx_freed[k])
			xfail("dtor", "pool %s's destructor context never freed", pool_names[k]);
	if (xmem_live && trace) {
		int i;

		for (i = 0; i < nr_xblocks; i++)
			printf("    left: object #%lu kind %d size %zu, last seen: %s cpu %d\n", xblocks[i]->serial,
			       xblocks[i]->kind, xblocks[i]->size,
			       xblocks[i]->place ? xblocks[i]->place : "-", xblocks[i]->place_cpu);
	}
	if (xmem_live)
		xfail("leak", "%ld bytes in %d blocks still allocated after destroy and every callback",
		      xmem_live, nr_xblocks);
	if (trace)
		print_state();
}

#if EXPLORE_DTOR
/* The destructor: what free_all() calls on an object it gives back to slab */
static void dtor(void *obj, void *ctx)
{
	struct dtor_ctx *dc = ctx;

	/* after the context's free: a use-after-free that ASan reports */
	dc->calls++;
	xblock_of(block_of(obj))->dtors++;
}

/* Destroy's, once no callback can call the destructor any more */
static void dtor_ctx_free(void *ctx)
{
	struct dtor_ctx *dc = ctx;

	if (!destroying)
		xfail("dtor", "pool %s's destructor context freed while the pool is in use", pool_names[dc->pool]);
	if (trace)
		printf("        cpu%d: pool %s's destructor context freed after %lu calls\n", xcur,
		       pool_names[dc->pool], dc->calls);
	dtor_ctx_freed[dc->pool] = true;
	kfree(dc);
}

static void set_dtors(void)
{
	struct dtor_ctx *dc;
	int i;

	for (i = 0; i < NR_POOLS; i++) {
		dc = kzalloc(sizeof(*dc), GFP_KERNEL);
		if (!dc)
			xfail("model", "no memory for a destructor context");
		dc->pool = i;
		bpf_mem_alloc_set_dtor(&mas[i], dtor, dtor_ctx_free, dc);
	}
}
#else
static void set_dtors(void)
{
}
#endif

/* A fresh allocator and model for one run of @data */
static void run_begin(const uint8_t *data, size_t size)
{
	int i;

	xsched_reset();
	memset(slots, 0, sizeof(slots));
	memset(holds, 0, sizeof(holds));
	memset(nr_holds, 0, sizeof(nr_holds));
	memset(stash, 0, sizeof(stash));
	destroyed = destroying = false;
	budget = 0;
	xfail_seen = false;
	cmd_no = 0;
	/* no check of this run is one step after one of the last */
	xstep += 2;
	uspace_nr_cpus = size ? 2 + data[0] % 3 : 2;
	xself_ipi = size && (data[0] & 4);
	rcu_frees = EXPLORE_FREE_RCU && size && (data[0] & 8);
	dtors = EXPLORE_DTOR && size && (data[0] & 16);
	memset(dtor_ctx_freed, 0, sizeof(dtor_ctx_freed));
	if (uspace_nr_cpus > NR_XCPUS)
		uspace_nr_cpus = NR_XCPUS;
	{
		struct fault_attr *fa = uspace_fault_attr("fail_bpf_reuse_batch");

		if (fa) {
			fa->probability = 0;
			atomic_set(&fa->times, -1);
		}
	}
	if (trace)
		printf("# %d CPUs, irq_work by %s, frees by %s%s, %zu commands\n", uspace_nr_cpus,
		       xself_ipi ? "self-IPI" : "tick (irq_work commands)",
		       rcu_frees ? "bpf_mem_cache_free_rcu()" : "bpf_mem_cache_free()",
		       dtors ? ", destructors" : "", size ? (size - 1) / 2 : 0);
	memset(mas, 0, sizeof(mas));
	if (bpf_mem_alloc_init(&mas[P_FIXED], ELEM_SIZE, false) ||
	    bpf_mem_alloc_init(&mas[P_SIZED], 0, false) ||
	    bpf_mem_alloc_init(&mas[P_PCPU], PCPU_SIZE, true))
		xfail("model", "bpf_mem_alloc_init failed");
	/* as the hash map: after init, before the first element */
	if (dtors)
		set_dtors();
	for (i = 0; i < NR_POOLS; i++) {
		if (mas[i].cache)
			xhb_watch(mas[i].cache);
		if (mas[i].caches)
			xhb_watch(mas[i].caches);
	}
}

/* The end of a run: drain, check, count its points */
static unsigned long run_end(void)
{
	unsigned long pts = 0;
	int k;

	final();
	for (k = 0; k < USPACE_SP_KINDS; k++)
		pts += xpoints[k];
	points_total += pts;
	if (pts > points_max)
		points_max = pts;
	if (trace) {
		printf("# scheduling points this run: %lu (", pts);
		for (k = 0; k < USPACE_SP_KINDS; k++)
			printf("%s%s %lu", k ? ", " : "", sp_names[k], xpoints[k]);
		printf(")\n");
	}
	runs++;
	if (xfail_seen)
		xfail_runs++;
	xfree_all_blocks();
	return pts;
}

/* The input's own schedule: its commands in order, steps where it says */
static void run_input(const uint8_t *data, size_t size)
{
	size_t i;

	run_begin(data, size);
	for (i = 1; i + 1 < size; i += 2) {
		cmd_no++;
		command(data[i] % NR_CMDS, data[i + 1]);
		after_step();
		if (trace)
			print_state();
	}
	run_end();
}

/* --- PCT: the input's operations, scheduled by random priorities ---------- */

/*
 * PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010): each
 * thread gets a random priority above @depth; the highest-priority
 * enabled thread runs one step; at depth - 1 steps drawn uniformly from
 * 1..k the running thread drops to priority depth - i.  A bug of depth d
 * is found with probability at least 1/(n * k^(d-1)) per run, n threads,
 * k steps: k is the number of scheduling points a run takes, which is
 * why the points are few (sched.c) and why each run reports it.
 *
 * The threads: one per CPU, running that CPU's operations and read
 * sections from the input, in input order (destroy waits until the
 * other CPUs' threads are done, as a map is destroyed after its last
 * user); and one for the environment: irq_work, softirq, grace periods,
 * NMIs, the workqueue and faults, which land on their CPU at its next
 * point where the hardware would take them.  step and finish commands
 * and the interleave bit are the fuzz mode's schedule and are ignored.
 * A step is one scheduling point of one thread (or one command of an
 * idle one).  The schedule is a pure function of (input, depth, seed,
 * k): the replay string.
 */
#define PCT_MAX_CMDS	256
static struct pct {
	int depth;
	unsigned long seed, runs, steps;	/* steps: k, 0 = measured on seed's run at depth 1 */
	bool on;
} pct;
static unsigned long pct_runs, pct_steps_total, pct_steps_max, pct_k;
static struct pct_thread {
	int n, next;
	uint8_t op[PCT_MAX_CMDS], arg[PCT_MAX_CMDS];
	long prio;
	bool destroy2;		/* destroy's second half (op_destroy) is next */
} threads[NR_XCPUS + 1];
static int nr_threads;
static unsigned long pct_run_seed, pct_run_k;
static int pct_run_depth;
static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static bool env_cmd(int op)
{
	switch (op) {
	case C_IRQ_WORK: case C_SOFTIRQ: case C_GP: case C_NMI: case C_WORK: case C_FAULT:
		return true;
	}
	return false;
}

static int idle_cpu(void)
{
	int k;

	for (k = 0; k < uspace_nr_cpus; k++)
		if (xcpus[k].state == XS_IDLE)
			return k;
	return -1;
}

static bool cpu_threads_done(int but)
{
	int k;

	for (k = 0; k < uspace_nr_cpus; k++)
		if (k != but && (xcpus[k].state != XS_IDLE || threads[k].next < threads[k].n ||
				 threads[k].destroy2))
			return false;
	return true;
}

/* Can thread @t take a step? */
static bool pct_enabled(int t)
{
	struct pct_thread *th = &threads[t];
	int op;

	if (t < uspace_nr_cpus) {
		if (xcpus[t].state != XS_IDLE || th->destroy2)
			return true;
		if (th->next >= th->n)
			return false;
		op = th->op[th->next];
		return op != C_DESTROY || cpu_threads_done(t);
	}
	if (th->next >= th->n)
		return false;
	return th->op[th->next] != C_WORK || !xworks_pending() || idle_cpu() >= 0;
}

/* An interrupt for CPU @k: at its next point, or now if it is idle */
static void pct_interrupt(int k)
{
	if (xcpus[k].state == XS_IDLE)
		xstart(k, xop_noop, 0, true);
}

static void pct_step(int t)
{
	struct pct_thread *th = &threads[t];
	int op, a, k, i;

	if (t < uspace_nr_cpus && xcpus[t].state != XS_IDLE) {
		step(t, 0);
		return;
	}
	if (t < uspace_nr_cpus && th->destroy2) {
		th->destroy2 = false;
		xstart(t, op_destroy, 0, false);
		return;
	}
	op = th->op[th->next];
	a = th->arg[th->next];
	th->next++;
	cmd_no++;
	k = a % uspace_nr_cpus;
	if (trace)
		printf("#%d %s cpu%d arg %d (thread %s%d, priority %ld)\n", cmd_no, cmd_names[op], k,
		       (a >> 2) & 31, t < uspace_nr_cpus ? "cpu" : "env", t, th->prio);
	if ((destroyed || destroying) && !env_cmd(op))
		return;
	switch (op) {
	case C_ALLOC: case C_FREE: case C_SALLOC: case C_SFREE: case C_PALLOC: case C_PFREE: {
		static const long pool[] = { P_FIXED, P_FIXED, P_SIZED, P_SIZED, P_PCPU, P_PCPU };
		int s = (a >> 2) & 31;
		long n = op == C_ALLOC ? 1 + s : op == C_SALLOC ? 1 + s % 8 : op == C_PALLOC ? 1 + s % 4 : s;

		xstart(t, op & 1 ? op_free : op_alloc, pool[op - C_ALLOC] << 8 | n, true);
		break;
	}
	case C_RCU_LOCK: case C_TRACE_LOCK:
		reader_enter(t, op == C_TRACE_LOCK, (a >> 2) & 31);
		break;
	case C_RCU_UNLOCK: case C_TRACE_UNLOCK:
		reader_leave(t, op == C_TRACE_UNLOCK);
		break;
	case C_DESTROY:
		for (k = 0; k < uspace_nr_cpus; k++) {
			reader_leave(k, XF_RCU);
			reader_leave(k, XF_TRACE);
		}
		xstart(t, op_free_all, 0, true);
		th->destroy2 = true;
		break;
	case C_IRQ_WORK:
		if (xcpus[k].pending) {
			xcpus[k].req_irq = true;
			pct_interrupt(k);
		}
		break;
	case C_SOFTIRQ:
		if (xcb_ready_cpu(-1) >= 0) {
			xcpus[k].req_softirq = true;
			pct_interrupt(k);
		}
		break;
	case C_NMI:
		xcpus[k].req_nmi = true;
		pct_interrupt(k);
		break;
	case C_GP:
		/* only what no reader or running operation holds up */
		i = xgp_end(a & 1);
		if (trace)
			printf("        %s grace period: %d callbacks ready\n", a & 1 ? "tasks trace" : "RCU", i);
		for (k = 0; k < uspace_nr_cpus; k++)
			if (xcb_ready_cpu_is(k)) {
				xcpus[k].req_softirq = true;
				pct_interrupt(k);
			}
		break;
	case C_WORK:
		if (xworks_pending())
			xstart_work(idle_cpu());
		break;
	case C_FAULT:
		command(op, a);
		break;
	}
}

/* One PCT run of @data: returns its number of steps */
static unsigned long pct_run(const uint8_t *data, size_t size, int depth, unsigned long seed, unsigned long k)
{
	unsigned long change[8], steps = 0;
	int t, i, n;

	run_begin(data, size);
	/* interrupts come as the hardware brings them: irq_work as a self-IPI, softirq after a grace period */
	xself_ipi = true;
	pct_run_seed = seed;
	pct_run_k = k;
	pct_run_depth = depth;
	rng_state = seed * 0x2545f4914f6cdd1dULL + 1;
	nr_threads = uspace_nr_cpus + 1;
	memset(threads, 0, sizeof(threads));
	for (i = 1; i + 1 < (int)size; i += 2) {
		int op = data[i] % NR_CMDS, a = data[i + 1];

		if (op == C_STEP || op == C_FINISH || op == C_IRQ_WORK || op == C_SOFTIRQ)
			continue;
		t = env_cmd(op) ? uspace_nr_cpus : a % uspace_nr_cpus;
		threads[t].op[threads[t].n] = op;
		threads[t].arg[threads[t].n++] = a;
	}
	/* distinct priorities depth .. depth + threads - 1, a random permutation */
	for (t = 0; t < nr_threads; t++)
		threads[t].prio = depth + t;
	for (t = nr_threads - 1; t > 0; t--) {
		int j = rnd() % (t + 1);
		long p = threads[t].prio;

		threads[t].prio = threads[j].prio;
		threads[j].prio = p;
	}
	n = depth - 1 < 8 ? depth - 1 : 8;
	for (i = 0; i < n; i++)
		change[i] = k ? 1 + rnd() % k : 0;
	if (trace) {
		printf("# PCT depth %d seed %lu steps (k) %lu: priorities", depth, seed, k);
		for (t = 0; t < nr_threads; t++)
			printf(" %s%d=%ld", t < uspace_nr_cpus ? "cpu" : "env", t, threads[t].prio);
		printf("; change points");
		for (i = 0; i < n; i++)
			printf(" %lu", change[i]);
		printf("\n");
	}
	for (;;) {
		int best = -1;

		for (t = 0; t < nr_threads; t++)
			if (pct_enabled(t) && (best < 0 || threads[t].prio > threads[best].prio))
				best = t;
		if (best < 0)
			break;
		steps++;
		for (i = 0; i < n; i++)
			if (change[i] == steps) {
				if (trace)
					printf("    step %lu: change point %d: thread %d drops to priority %d\n",
					       steps, i + 1, best, depth - 1 - i);
				threads[best].prio = depth - 1 - i;
				i = -1;
				best = -1;
				for (t = 0; t < nr_threads; t++)
					if (pct_enabled(t) && (best < 0 || threads[t].prio > threads[best].prio))
						best = t;
				break;
			}
		pct_step(best);
		after_step();
		if (trace && all_idle())
			print_state();
	}
	cmd_no = -1;
	run_end();
	pct_runs++;
	pct_steps_total += steps;
	if (steps > pct_steps_max)
		pct_steps_max = steps;
	if (trace)
		printf("# PCT steps this run: %lu\n", steps);
	return steps;
}

/* PCT on one input: pct.runs schedules, seeds pct.seed on */
static void run_pct(const uint8_t *data, size_t size)
{
	unsigned long k = pct.steps, r;

	if (!k) {
		/* k: the steps of the first seed's schedule with no change point */
		bool t = trace;

		trace = 0;
		k = pct_run(data, size, 1, pct.seed, 0);
		trace = t;
	}
	pct_k = k;
	for (r = 0; r < pct.runs; r++)
		pct_run(data, size, pct.depth, pct.seed + r, k);
}

static void report(void)
{
	fprintf(stderr, "explore: %lu runs, scheduling points per run: mean %lu, max %lu",
		runs, runs ? points_total / runs : 0, points_max);
	if (pct.on)
		fprintf(stderr, "; PCT depth %d: %lu schedules, steps per run (k): mean %lu, max %lu",
			pct.depth, pct_runs, pct_runs ? pct_steps_total / pct_runs : 0, pct_steps_max);
	if (*xfail_list)
		fprintf(stderr, "; expected failure (%s) seen in %lu runs", xfail_list, xfail_runs);
	fprintf(stderr, "\n");
}

/* The schedule that failed, as EXPLORE_PCT takes it (make uspace-replay PCT=...) */
static void pct_replay_line(void)
{
	if (pct.on)
		fprintf(stderr, "explore: PCT schedule: depth=%d seed=%lu steps=%lu\n", pct_run_depth,
			pct_run_seed, pct_run_k);
}

/* libFuzzer keeps the death callback for itself: ASan's report hook instead */
static void on_asan_report(const char *report)
{
	pct_replay_line();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *x = getenv("EXPLORE_XFAIL");

	const char *p = getenv("EXPLORE_PCT");

	trace = getenv("EXPLORE_TRACE") && atoi(getenv("EXPLORE_TRACE"));
	if (p && *p) {
		/* "depth=D seed=S runs=R steps=K": see run_pct() */
		char key[16];
		unsigned long v;
		int n;

		pct = (struct pct){ .depth = 3, .seed = 1, .runs = 1, .on = true };
		while (sscanf(p, " %15[a-z]=%lu%n", key, &v, &n) == 2) {
			if (!strcmp(key, "depth") && v >= 1 && v <= 9)
				pct.depth = v;
			else if (!strcmp(key, "seed"))
				pct.seed = v;
			else if (!strcmp(key, "runs"))
				pct.runs = v;
			else if (!strcmp(key, "steps"))
				pct.steps = v;
			else
				break;
			p += n;
		}
		if (*p && strspn(p, " ") != strlen(p)) {
			fprintf(stderr, "explore: bad EXPLORE_PCT at '%s': give 'depth=1..9 seed=S runs=R [steps=K]'\n", p);
			exit(2);
		}
	}
	if (x)
		snprintf(xfail_list, sizeof(xfail_list), "%s", x);
	setvbuf(stdout, NULL, _IOLBF, 0);
	atexit(report);
	__asan_set_error_report_callback(on_asan_report);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (pct.on)
		run_pct(data, size);
	else
		run_input(data, size);
	return 0;
}
