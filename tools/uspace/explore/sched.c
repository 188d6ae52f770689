// SPDX-License-Identifier: GPL-2.0
/*
 * The explorer's kernel: N simulated CPUs as cooperative contexts on one
 * host thread, and every service memalloc.c uses (irq flags, irq_work,
 * NMIs, spinlocks, slab and percpu, RCU and RCU tasks trace, the
 * workqueue, fault attributes, debugfs) modelled on top of them.  It
 * replaces shim.c and rcu.c in the explorer's build (tools/uspace/uspace.mk,
 * uspace-fuzz/uspace-replay); memalloc_test keeps them.
 *
 * Why ucontext: memalloc.c is run unmodified, with its call chains
 * (unit_free -> irq_work_raise -> irq_work_queue, refill -> alloc_bulk ->
 * bpf_ma_get_reusable_obj -> lock) suspended in the middle, so each CPU
 * needs a stack of its own.  An explicit step machine would mean
 * rewriting the allocator; real threads handed a token would pay a
 * futex round trip per point and let the host scheduler and the
 * sanitizers' runtime threads in.  makecontext()/swapcontext() switch
 * stacks on the one host thread: a run is a pure function of its input,
 * and ASan is told about every switch (__sanitizer_*_switch_fiber).
 *
 * The model is sequentially consistent: one CPU runs at a time, every
 * access is seen by every CPU at once, in program order.  It cannot show
 * what a weaker memory model allows: a store buffered past a later load
 * (store->load, the pattern smp_mb() exists for), loads or stores
 * reordered around a missing acquire/release (e.g. a callback's accesses
 * to the cache moving after the atomic_dec() that lets destroy free it,
 * a dropped smp_mb__before_atomic()), a stale read of a plain field, torn
 * plain accesses.  A dropped barrier is therefore invisible here unless
 * its absence also changes the order of the points (it does not); TSan
 * and KCSAN are the tools for those.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include "uspace_test.h"
#include "explore.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EXPLORE_ASAN 1
#endif
#endif
#ifdef __SANITIZE_ADDRESS__
#define EXPLORE_ASAN 1
#endif
#ifdef EXPLORE_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

int uspace_nr_cpus = 2;
bool xself_ipi;			/* irq_work raises a self-IPI (x86), else waits for a tick */
__thread int uspace_cpu = -1;
atomic_t uspace_warnings;

struct xcpu xcpus[NR_XCPUS];
int xcur = -1;			/* the context running now, -1: the scheduler */
unsigned long xtime;		/* one tick per point and per event */
unsigned long xpoints[USPACE_SP_KINDS];

static ucontext_t sched_uc;
static void *sched_stack_bottom;
static size_t sched_stack_size;

void uspace_warn(const char *file, int line, const char *cond)
{
	xfail("warn", "WARN_ON at %s:%d: %s (CPU %d)", file, line, cond, uspace_cpu);
}

void uspace_bug(const char *file, int line, const char *cond)
{
	xfail("bug", "BUG at %s:%d: %s (CPU %d)", file, line, cond, uspace_cpu);
	abort();
}

void uspace_set_cpu(int cpu)
{
	uspace_cpu = cpu;
}

int uspace_this_cpu(void)
{
	if (uspace_cpu < 0)
		uspace_bug(__FILE__, __LINE__, "per-cpu access from no CPU");
	return uspace_cpu;
}

/* --- contexts ------------------------------------------------------------ */

static void switch_to(ucontext_t *from, ucontext_t *to, void *bottom, size_t size, bool exiting)
{
#ifdef EXPLORE_ASAN
	void *fake = NULL;
	const void *ob;
	size_t os;

	__sanitizer_start_switch_fiber(exiting ? NULL : &fake, bottom, size);
	swapcontext(from, to);
	__sanitizer_finish_switch_fiber(fake, &ob, &os);
	if (!sched_stack_bottom && to != &sched_uc) {
		/* first switch away from the scheduler: learn its stack */
		sched_stack_bottom = (void *)ob;
		sched_stack_size = os;
	}
#else
	swapcontext(from, to);
#endif
}

/* Back to the scheduler, from context xcur. */
static void yield(bool exiting)
{
	struct xcpu *c = &xcpus[xcur];
	int me = xcur;

	xcur = -1;
	uspace_cpu = -1;
	switch_to(&c->uc, &sched_uc, sched_stack_bottom, sched_stack_size, exiting);
	xcur = me;
	uspace_cpu = me;
}

/* Run context @k until it yields. */
void xresume(int k)
{
	struct xcpu *c = &xcpus[k];

	if (c->state == XS_IDLE)
		return;
	xcur = k;
	uspace_cpu = k;
	switch_to(&sched_uc, &c->uc, c->stack, XSTACK, false);
	xcur = -1;
	uspace_cpu = -1;
}

static void deliver(struct xcpu *c, int kind);
static void run_work_op(int cpu, long arg);

static void ctx_main(void)
{
	struct xcpu *c = &xcpus[xcur];
	/*
	 * A work item is the allocator's own, ordered by its queue_work()
	 * only, and an idle CPU's interrupts are no operation (hb.c).
	 */
	bool workload = c->op != run_work_op && c->op != xop_noop;

#ifdef EXPLORE_ASAN
	__sanitizer_finish_switch_fiber(NULL, (const void **)&sched_stack_bottom, &sched_stack_size);
#endif
	if (workload)
		xhb_after_ops();
	deliver(c, USPACE_SP_OP);
	if (c->op)
		c->op(xcur, c->op_arg);
	deliver(c, USPACE_SP_OP);
	if (workload)
		xhb_op_end();
	c->state = XS_IDLE;
	c->op = NULL;
	yield(true);
	abort();
}

/*
 * Start @fn on idle CPU @k and run it to its first point.  @reader: the
 * operation is a BPF program or syscall (an implicit RCU reader: rcu and
 * irq-disabled regions, as non-preemptible kernels and BPF's
 * rcu_read_lock() around programs make it); destroy's work is not.
 */
void xstart(int k, void (*fn)(int cpu, long arg), long arg, bool reader)
{
	struct xcpu *c = &xcpus[k];

	BUG_ON(c->state != XS_IDLE);
	if (!c->stack)
		c->stack = malloc(XSTACK);
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = c->stack;
	c->uc.uc_stack.ss_size = XSTACK;
	c->uc.uc_link = NULL;
	makecontext(&c->uc, ctx_main, 0);
	c->op = fn;
	c->op_arg = arg;
	c->reader = reader;
	c->op_start = ++xtime;
	c->state = XS_RUN;
	xresume(k);
}

/*
 * A point where another CPU may run, or an interrupt arrive.  Only the
 * points of a simulated CPU count: the scheduler's own code (the final
 * flush) runs alone.
 */
void uspace_sched_point(int kind)
{
	struct xcpu *c;

	xtime++;
	if (xcur < 0)
		return;
	xpoints[kind]++;
	c = &xcpus[xcur];
	c->at = kind;
	yield(false);
	deliver(c, kind);
}

static void deliver(struct xcpu *c, int kind);

/*
 * Where irqs go off or come back on: interrupts are delivered, but no
 * other CPU is switched in, and it is no scheduling point.  What the
 * CPU does between such an edge and its next point is its own state
 * (memalloc.c's irq-off regions are per-cpu; their shared accesses are
 * READ_ONCE, llist and atomic operations, locks, each a point), so under
 * a sequentially consistent scheduler a switch here is equivalent to
 * one at the next point, and the fewer points the smaller PCT's k.
 */
static void deliver_here(int kind)
{
	if (xcur < 0)
		return;
	deliver(&xcpus[xcur], kind);
}

/* A context that waits: blocked until the scheduler resolved @why. */
static void block(int why, const void *on)
{
	struct xcpu *c = &xcpus[xcur];

	c->state = XS_BLOCKED;
	c->block = why;
	c->block_on = on;
	xpoints[USPACE_SP_WAIT]++;
	yield(false);
	c->state = XS_RUN;
	c->block = 0;
	deliver(c, USPACE_SP_WAIT);
}

/* --- irqs, irq_work, NMI ------------------------------------------------- */

bool uspace_irqs_disabled(void)
{
	return uspace_cpu >= 0 && xcpus[uspace_cpu].irqs_off;
}

bool uspace_in_nmi(void)
{
	return uspace_cpu >= 0 && xcpus[uspace_cpu].in_nmi;
}

unsigned long uspace_irq_save(void)
{
	unsigned long flags;

	if (uspace_cpu < 0)
		return 1;
	/* pending interrupts are taken before irqs go off */
	if (!xcpus[uspace_cpu].irqs_off)
		deliver_here(USPACE_SP_IRQ_OFF);
	flags = xcpus[uspace_cpu].irqs_off;
	xcpus[uspace_cpu].irqs_off = true;
	return flags;
}

void uspace_irq_restore(unsigned long flags)
{
	if (uspace_cpu >= 0)
		xcpus[uspace_cpu].irqs_off = flags;
	/* what was raised with irqs off (a self-IPI's irq_work) comes in now */
	if (!flags)
		deliver_here(USPACE_SP_IRQ_ON);
}

/* The irq_work interrupt on CPU @cpu: each pending work once, irqs off. */
void xrun_irq_work(int cpu)
{
	struct xcpu *c = &xcpus[cpu];
	struct irq_work *w;
	bool off = c->irqs_off, h = c->in_handler;

	c->irqs_off = true;
	c->in_handler = true;
	while ((w = c->pending)) {
		c->pending = w->next;
		w->flags = IRQ_WORK_BUSY;
		xtrace_event(cpu, "irq_work", "");
		w->func(w);
		/* irq_work_sync() reads the flags' release (hb.c) */
		xhb_release(w);
		w->flags &= ~IRQ_WORK_BUSY;
		c->irq_works++;
	}
	c->in_handler = h;
	c->irqs_off = off;
}

bool irq_work_queue(struct irq_work *w)
{
	struct xcpu *c;

	USPACE_SP(IRQ_WORK);
	if (w->flags & IRQ_WORK_PENDING)
		return false;
	w->flags |= IRQ_WORK_PENDING;
	c = &xcpus[uspace_this_cpu()];
	w->cpu = uspace_cpu;
	w->next = c->pending;
	c->pending = w;
	/*
	 * Tick mode (UML, arches without arch_irq_work_raise()): delivered
	 * when the input says so (irq_work) or a waiter needs it.  Self-IPI
	 * mode (x86): at once if irqs are on, else where they come back on.
	 */
	if (xself_ipi && xcur >= 0)
		deliver(c, USPACE_SP_IRQ_WORK);
	return true;
}

void irq_work_sync(struct irq_work *w)
{
	while (w->flags) {
		if (xcur < 0) {
			/* the scheduler's own code: run it where it was queued */
			int saved = uspace_cpu;

			uspace_cpu = w->cpu;
			xrun_irq_work(w->cpu);
			uspace_cpu = saved;
			continue;
		}
		block(XB_IRQ_WORK, w);
	}
	xhb_acquire(w);
}

void uspace_set_nmi(void (*handler)(void), unsigned int period)
{
}

unsigned long uspace_nmis(void)
{
	return 0;
}

long uspace_local_inc_return(local_t *l)
{
	long v = ++l->v;

	/*
	 * An NMI may hit right after the increment (deliver()): a point
	 * only when one was asked for on this CPU.  c->active is the CPU's
	 * own, so for the other CPUs the point would be one more that is
	 * equivalent to the next.
	 */
	if (uspace_cpu >= 0 && xcpus[uspace_cpu].req_nmi)
		USPACE_SP(NMI);
	return v;
}

/*
 * What the scheduler asked for, delivered at a point where the hardware
 * would take it: an NMI at local_inc_return() or between operations;
 * irq_work and softirq (RCU callbacks) where irqs are on, not nested in
 * another handler or NMI.
 */
static void deliver(struct xcpu *c, int kind)
{
	int cpu = c - xcpus;

	if (c->req_nmi && !c->in_nmi && (kind == USPACE_SP_NMI || kind == USPACE_SP_OP)) {
		bool off = c->irqs_off;

		c->req_nmi = false;
		c->in_nmi = true;
		c->irqs_off = true;
		xtrace_event(cpu, "NMI", kind == USPACE_SP_NMI ? "inside active" : "");
		/* the NMI's program is an operation of the workload (hb.c) */
		xhb_after_ops();
		xnmi_prog(cpu);
		xhb_op_end();
		c->irqs_off = off;
		c->in_nmi = false;
	}
	if (c->irqs_off || c->in_nmi || c->in_handler)
		return;
	if (xself_ipi && c->pending)
		c->req_irq = true;
	if (c->req_irq) {
		c->req_irq = false;
		xrun_irq_work(cpu);
	}
	if (c->req_softirq) {
		c->req_softirq = false;
		xrun_softirq(cpu);
	}
}

/* --- spinlocks ----------------------------------------------------------- */

void uspace_spin_lock(raw_spinlock_t *l)
{
	USPACE_SP(LOCK);
	while (l->locked) {
		if (xcur < 0)
			xfail("deadlock", "the scheduler's code found a lock held by CPU %d", l->locked - 1);
		if (l->locked - 1 == xcur)
			xfail("deadlock", "CPU %d takes a lock it holds", xcur);
		block(XB_LOCK, l);
	}
	l->locked = (xcur < 0 ? NR_XCPUS : xcur) + 1;
	xhb_acquire(l);
}

/*
 * No point after the release: what follows it up to the next point is
 * this CPU's own state (memalloc.c unlocks with irqrestore, whose IRQ_ON
 * point delivers interrupts), so a switch here is equivalent to one at
 * the next point.
 */
void uspace_spin_unlock(raw_spinlock_t *l)
{
	xhb_release(l);
	l->locked = 0;
}

/* --- slab and percpu: every block registered -------------------------- */

struct xblock **xblocks;
int nr_xblocks, max_xblocks;
long xmem_live;
unsigned long xobj_kfrees;
static unsigned long xserials;

unsigned long xserial(const void *p)
{
	return xblock_of(p)->serial;
}
static int failslab;

long uspace_mem_live(void)
{
	return xmem_live;
}

long uspace_mem_peak(void)
{
	return xmem_live;
}

void uspace_mem_reset_peak(void)
{
}

void uspace_set_failslab(int percent)
{
	failslab = percent;
}

static void reg(struct xblock *b)
{
	if (nr_xblocks == max_xblocks) {
		max_xblocks = max_xblocks ? 2 * max_xblocks : 1024;
		xblocks = realloc(xblocks, max_xblocks * sizeof(*xblocks));
	}
	b->idx = nr_xblocks;
	xblocks[nr_xblocks++] = b;
	xmem_live += b->size;
}

static void unreg(struct xblock *b)
{
	BUG_ON(b->idx < 0 || b->idx >= nr_xblocks || xblocks[b->idx] != b);
	xblocks[b->idx] = xblocks[--nr_xblocks];
	xblocks[b->idx]->idx = b->idx;
	xmem_live -= b->size;
}

static void *xalloc(size_t size, gfp_t flags, int kind)
{
	struct xblock *b;

	if (failslab && (flags & __GFP_NOWAIT))
		return NULL;
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->size = size;
	b->kind = kind;
	b->serial = ++xserials;
	b->place = NULL;
	b->seen_on = NULL;
	b->seen_at = b->since = 0;
	b->dtors = 0;
	b->gfp = flags;
	if (flags & __GFP_ZERO)
		memset(b->data, 0, size);
	else
		memset(b->data, 0xcc, size);
	reg(b);
	return b->data;
}

struct xblock *xblock_of(const void *p)
{
	return (struct xblock *)((char *)p - offsetof(struct xblock, data));
}

void *kmalloc(size_t size, gfp_t flags)
{
	return xalloc(size, flags, XK_KMALLOC);
}

void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

/* 6.1's memalloc.c allocates its objects, and only them, with kmalloc_node() */
void *kmalloc_node(size_t size, gfp_t flags, int node)
{
	return xalloc(size, flags, XK_OBJECT);
}

void kfree(const void *p)
{
	struct xblock *b;

	if (!p || p == ZERO_SIZE_PTR)
		return;
	b = xblock_of(p);
	if (b->kind == XK_OBJECT)
		xobj_kfrees++;
	xcheck_kfree(p);
	xhb_check_free(p, b->size);
	unreg(b);
	free(b);
}

size_t ksize(const void *p)
{
	return uspace_kmalloc_class(xblock_of(p)->size);
}

/* A percpu area: one block holding a table of NR_XCPUS copies */
void *__alloc_percpu_gfp(size_t size, size_t align, gfp_t gfp)
{
	size_t sz = (size + 15) & ~(size_t)15;
	void **t = xalloc(uspace_nr_cpus * sz + 16, gfp | __GFP_ZERO, XK_PERCPU);
	int cpu;

	if (!t)
		return NULL;
	for (cpu = 0; cpu < uspace_nr_cpus; cpu++)
		memset((char *)t + 16 + cpu * sz, 0, size);
	t[0] = (void *)sz;
	return t;
}

void *__alloc_percpu(size_t size, size_t align)
{
	return __alloc_percpu_gfp(size, align, GFP_KERNEL);
}

void free_percpu(void *p)
{
	kfree(p);
}

void *uspace_per_cpu_ptr(void *p, int cpu)
{
	BUG_ON(cpu < 0 || cpu >= uspace_nr_cpus);
	return (char *)p + 16 + cpu * (size_t)((void **)p)[0];
}

/* --- the workqueue: items run when the input says so, or at the end --- */

static struct work_struct *works, **works_tail = &works;
struct workqueue_struct *system_unbound_wq = (void *)1;
struct workqueue_struct *system_wq = (void *)1;
struct workqueue_struct *system_dfl_wq = (void *)1;

bool queue_work(struct workqueue_struct *wq, struct work_struct *w)
{
	xhb_release(w);
	w->next = NULL;
	*works_tail = w;
	works_tail = &w->next;
	return true;
}

static void run_work_op(int cpu, long arg)
{
	struct work_struct *w = (void *)arg;

	xtrace_event(cpu, "work", "");
	xhb_acquire(w);
	w->func(w);
}

/* Start the oldest queued work item on idle CPU @k; false: none */
bool xstart_work(int k)
{
	struct work_struct *w = works;

	if (!w)
		return false;
	works = w->next;
	if (!works)
		works_tail = &works;
	xstart(k, run_work_op, (long)w, false);
	return true;
}

bool xworks_pending(void)
{
	return works != NULL;
}

void uspace_flush_workqueue(void)
{
}

/* --- RCU and RCU tasks trace ------------------------------------------- */

/*
 * A callback queued at time T on CPU k becomes ready when the input ends
 * a grace period of its flavour (GP_RCU, GP_TRACE) and no reader that
 * was inside a read section at T still is: for RCU the explicit readers
 * (rcu_read_lock()) and every CPU in the middle of an operation that is
 * a program or syscall (xstart(..., reader)); for RCU tasks trace the
 * explicit rcu_read_lock_trace() readers, plus, when
 * rcu_trace_implies_rcu_gp() is true (6.1), the RCU readers as well.
 * Ready callbacks run in softirq on the CPU that queued them, when the
 * input raises it (SOFTIRQ k) at a point where irqs are on.
 */
struct xcb {
	struct rcu_head *head;
	rcu_callback_t func;
	int flavour, cpu;
	unsigned long time;
	bool ready, running;
	struct xcb *next;
};
static struct xcb *cbs, **cbs_tail = &cbs;
/* where the callbacks' ends are released to rcu_barrier() (hb.c) */
static char cbs_done[2];
int xcbs_pending[2], xcbs_ready[2];

static void queue_cb(struct rcu_head *head, rcu_callback_t func, int f)
{
	struct xcb *cb = calloc(1, sizeof(*cb));

	USPACE_SP(CALL_RCU);
	cb->head = head;
	cb->func = func;
	cb->flavour = f;
	cb->cpu = uspace_cpu >= 0 ? uspace_cpu : 0;
	cb->time = ++xtime;
	*cbs_tail = cb;
	cbs_tail = &cb->next;
	xcbs_pending[f]++;
	{
		char d[64];

		snprintf(d, sizeof(d), "at time %lu", cb->time);
		xtrace_event(cb->cpu, f ? "call_rcu_tasks_trace" : "call_rcu", d);
	}
}

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	queue_cb(head, func, XF_RCU);
}

void call_rcu_tasks_trace(struct rcu_head *head, rcu_callback_t func)
{
	queue_cb(head, func, XF_TRACE);
}

/* Is a reader of flavour @f that was inside its section at @t still there? */
static bool reader_blocks(int f, unsigned long t, int *who)
{
	int k;

	for (k = 0; k < uspace_nr_cpus; k++) {
		struct xcpu *c = &xcpus[k];

		if (f == XF_TRACE || USPACE_TRACE_IMPLIES_RCU_GP) {
			if (f == XF_TRACE && c->nest[XF_TRACE] && c->start[XF_TRACE] < t)
				goto blocked;
		}
		if (f == XF_RCU || (f == XF_TRACE && USPACE_TRACE_IMPLIES_RCU_GP)) {
			if (c->nest[XF_RCU] && c->start[XF_RCU] < t)
				goto blocked;
			if (c->knest && c->kstart < t)
				goto blocked;
			if (c->state != XS_IDLE && c->reader && c->op_start < t)
				goto blocked;
		}
		continue;
blocked:
		if (who)
			*who = k;
		return true;
	}
	return false;
}

/* End a grace period of flavour @f: returns how many callbacks it readied */
int xgp_end(int f)
{
	struct xcb *cb;
	int n = 0;

	xtime++;
	for (cb = cbs; cb; cb = cb->next)
		if (!cb->ready && cb->flavour == f && !reader_blocks(f, cb->time, NULL)) {
			cb->ready = true;
			xcbs_pending[f]--;
			xcbs_ready[f]++;
			n++;
		}
	return n;
}

/*
 * Softirq on @cpu: its ready callbacks, oldest first.  A callback stays
 * on the list while it runs (it may be suspended at a point inside), so
 * that rcu_barrier() waits for its end, as the kernel's does.
 */
void xrun_softirq(int cpu)
{
	struct xcpu *c = &xcpus[cpu];
	struct xcb **pp, *cb;
	bool h = c->in_handler;

	c->in_handler = true;
	for (;;) {
		for (cb = cbs; cb; cb = cb->next)
			if (cb->ready && !cb->running && cb->cpu == cpu)
				break;
		if (!cb)
			break;
		cb->running = true;
		{
			char d[64];

			snprintf(d, sizeof(d), "queued at time %lu", cb->time);
			xtrace_event(cpu, cb->flavour ? "tasks trace callback" : "rcu callback", d);
		}
		xhb_after_ops();
		cb->func(cb->head);
		xhb_release(&cbs_done[cb->flavour]);
		c->callbacks++;
		for (pp = &cbs; *pp != cb; pp = &(*pp)->next)
			;
		*pp = cb->next;
		if (cbs_tail == &cb->next)
			cbs_tail = pp;
		xcbs_ready[cb->flavour]--;
		free(cb);
	}
	c->in_handler = h;
}

/* The CPU running a callback of flavour @f (any: -1), or -1 */
int xcb_running_cpu(int f)
{
	struct xcb *cb;

	for (cb = cbs; cb; cb = cb->next)
		if (cb->running && (f < 0 || cb->flavour == f))
			return cb->cpu;
	return -1;
}

/* The CPU with the oldest callback ready of flavour @f (any: -1), or -1 */
int xcb_ready_cpu(int f)
{
	struct xcb *cb;

	for (cb = cbs; cb; cb = cb->next)
		if (cb->ready && !cb->running && (f < 0 || cb->flavour == f))
			return cb->cpu;
	return -1;
}

/* Has CPU @cpu a ready callback that does not run yet? */
bool xcb_ready_cpu_is(int cpu)
{
	struct xcb *cb;

	for (cb = cbs; cb; cb = cb->next)
		if (cb->ready && !cb->running && cb->cpu == cpu)
			return true;
	return false;
}

/* Oldest pending (not ready) callback of flavour @f: the CPU of a reader that holds it up */
int xcb_blocker(int f)
{
	struct xcb *cb;
	int who = -1;

	for (cb = cbs; cb; cb = cb->next)
		if (!cb->ready && (f < 0 || cb->flavour == f) && reader_blocks(cb->flavour, cb->time, &who))
			return who;
	return -1;
}

static bool barrier_done(int f, unsigned long t)
{
	struct xcb *cb;

	for (cb = cbs; cb; cb = cb->next)
		if (cb->flavour == f && cb->time < t)
			return false;
	return true;
}

static void wait_callbacks(int f)
{
	unsigned long t = ++xtime;

	while (!barrier_done(f, t)) {
		if (xcur < 0) {
			/* the scheduler's own code (final flush): no reader is left */
			int cpu, saved = uspace_cpu;

			xgp_end(f);
			cpu = xcb_ready_cpu(f);
			if (cpu < 0)
				xfail("model", "rcu_barrier() with callbacks held up by a reader or running");
			uspace_cpu = cpu;
			xrun_softirq(cpu);
			uspace_cpu = saved;
			continue;
		}
		xcpus[xcur].barrier_flavour = f;
		block(XB_BARRIER, NULL);
	}
	xhb_acquire(&cbs_done[f]);
}

void rcu_barrier(void)
{
	wait_callbacks(XF_RCU);
}

void rcu_barrier_tasks_trace(void)
{
	wait_callbacks(XF_TRACE);
}

/* The CPU of an RCU reader that was inside its section at @t, or -1 */
int xrcu_blocker(unsigned long t)
{
	int who = -1;

	return reader_blocks(XF_RCU, t, &who) ? who : -1;
}

/*
 * A full grace period: wait until every RCU reader that was inside its
 * section now has left (the scheduler resolves the wait, explore.c).
 * It readies no callback: those wait for the input's grace periods.
 */
void synchronize_rcu(void)
{
	unsigned long t;

	USPACE_SP(WAIT);
	t = ++xtime;
	if (xcur < 0) {
		if (xrcu_blocker(t) >= 0)
			xfail("model", "synchronize_rcu() in the scheduler's code with a reader inside");
		return;
	}
	while (xrcu_blocker(t) >= 0) {
		if (xrcu_blocker(t) == xcur)
			xfail("deadlock", "CPU %d calls synchronize_rcu() inside its own read section", xcur);
		xcpus[xcur].sync_time = t;
		block(XB_SYNC, NULL);
	}
	xhb_after_ops();
}

void synchronize_rcu_tasks_trace(void)
{
	xfail("model", "synchronize_rcu_tasks_trace() is not modelled");
}

/*
 * The allocator's own read sections (7.2's guard(rcu)() pairs with the
 * synchronize_rcu() of its destroy); the workload's readers are explore.c's.
 */
void rcu_read_lock(void)
{
	struct xcpu *c;

	if (uspace_cpu < 0)
		return;
	c = &xcpus[uspace_cpu];
	if (!c->knest++)
		c->kstart = ++xtime;
}

void rcu_read_unlock(void)
{
	if (uspace_cpu >= 0)
		xcpus[uspace_cpu].knest--;
}

void rcu_read_lock_trace(void)
{
}

void rcu_read_unlock_trace(void)
{
}

void uspace_rcu_register(void)
{
}

void uspace_rcu_unregister(void)
{
}

/* Forget every callback (a run that failed is thrown away) */
void xsched_reset(void)
{
	struct xcb *cb;
	int k;

	while ((cb = cbs)) {
		cbs = cb->next;
		free(cb);
	}
	cbs_tail = &cbs;
	works = NULL;
	works_tail = &works;
	memset(xcbs_pending, 0, sizeof(xcbs_pending));
	memset(xcbs_ready, 0, sizeof(xcbs_ready));
	for (k = 0; k < NR_XCPUS; k++) {
		void *stack = xcpus[k].stack;

		memset(&xcpus[k], 0, sizeof(xcpus[k]));
		xcpus[k].stack = stack;
	}
	memset(xpoints, 0, sizeof(xpoints));
	xtime = 0;
	failslab = 0;
	xserials = 0;
	xobj_kfrees = 0;
	xhb_reset();
}

/* Blocks left at the end of a run, freed (after the leak check) */
void xfree_all_blocks(void)
{
	while (nr_xblocks) {
		struct xblock *b = xblocks[nr_xblocks - 1];

		unreg(b);
		free(b);
	}
	xmem_live = 0;
}

/* --- fault attributes: debugfs.c keeps them, the input decides -------- */

/* Deterministic: fails exactly when the input set probability 100 */
bool should_fail_ex(struct fault_attr *attr, ssize_t size, int flags)
{
	return attr->probability >= 100;
}

void uspace_set_kfree_hook(void (*hook)(void))
{
}

void uspace_watch(int slot, const void *obj)
{
}

bool uspace_watched_freed(int slot)
{
	return false;
}

/* lists.c: a callback whose rcu_head is an object's header holds that object */
struct xblock *xobj_at(const void *p);

void xcbs_mark(void)
{
	struct xcb *cb;

	for (cb = cbs; cb; cb = cb->next) {
		struct xblock *b = xobj_at(cb->head);

		if (b)
			xblock_mark(b, "callback", cb->cpu);
	}
}
