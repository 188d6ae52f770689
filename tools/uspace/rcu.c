// SPDX-License-Identifier: GPL-2.0
/*
 * RCU and RCU tasks trace on liburcu: two independent flavours, so that
 * neither grace period implies the other (rcu_trace_implies_rcu_gp() is
 * false).  RCU is urcu-memb, the flavour liburcu recommends and the
 * kernel's tools/testing use; tasks trace is urcu-mb.  Callbacks run on
 * liburcu's call_rcu threads, i.e. on "another CPU" than the caller, as
 * they may on a real SMP machine.
 *
 * A tree without rcu_trace_implies_rcu_gp() (7.2) takes for granted that
 * a tasks trace grace period is also an RCU one: its memalloc.c frees
 * with call_rcu_tasks_trace() alone what RCU readers may still hold.
 * For it (USPACE_TRACE_GP_IMPLIES_RCU_GP, set by uspace.mk) a tasks trace
 * callback, synchronize and barrier also wait for an RCU grace period.
 *
 * liburcu is not instrumented, so TSan cannot see that a grace period
 * orders a reader's accesses before a callback.  Under TSan each read
 * section's end releases a per-flavour clock and each callback acquires
 * it first (the grace period); call_rcu() releases on the rcu_head and
 * the callback acquires it (the enqueue); callbacks release a barrier
 * clock that rcu_barrier() acquires.
 */
#include <stdbool.h>
#include <stddef.h>
/*
 * Only for struct rcu_head: the unmapped names call-rcu.h declares are
 * the kernel's here, so move them out of the way.
 */
#define call_rcu urcu_unmapped_call_rcu
#define rcu_barrier urcu_unmapped_rcu_barrier
#include <urcu/call-rcu.h>
#undef call_rcu
#undef rcu_barrier
#include <urcu/flavor.h>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define tsan_acquire(p)	__tsan_acquire((void *)(p))
#define tsan_release(p)	__tsan_release((void *)(p))
#else
#define tsan_acquire(p)	do { } while (0)
#define tsan_release(p)	do { } while (0)
#endif

extern const struct rcu_flavor_struct urcu_memb_flavor, urcu_mb_flavor;

/* The kernel's struct rcu_head as uspace.h lays it out. */
struct khead {
	struct rcu_head urcu;
	void (*func)(struct khead *head);
};

struct flavour {
	const struct rcu_flavor_struct *urcu;
	char gp_clock, barrier_clock;	/* TSan sync addresses only */
};

static struct flavour rcu = { .urcu = &urcu_memb_flavor };
static struct flavour trace = { .urcu = &urcu_mb_flavor };

/* Whether this thread is a reader of each flavour */
static __thread bool registered[2];

static void register_flavour(struct flavour *f, int i)
{
	if (!registered[i])
		f->urcu->register_thread();
	registered[i] = true;
}

/* Every thread that reads or queues callbacks is a reader of both flavours. */
void uspace_rcu_register(void)
{
	register_flavour(&rcu, 0);
	register_flavour(&trace, 1);
}

void uspace_rcu_unregister(void)
{
	if (registered[0])
		rcu.urcu->unregister_thread();
	if (registered[1])
		trace.urcu->unregister_thread();
	registered[0] = registered[1] = false;
}

/*
 * A callback's grace period is over: the thread is a reader of both
 * flavours (liburcu's call_rcu thread is one of its own flavour already;
 * callbacks chain into the other one, call_rcu() from tasks trace), and
 * TSan learns that the grace period and the enqueue came first.
 */
static struct khead *callback_begins(struct flavour *f, struct rcu_head *head)
{
	struct khead *k = caa_container_of(head, struct khead, urcu);

	registered[f == &trace] = true;
	uspace_rcu_register();
	tsan_acquire(&f->gp_clock);
	tsan_acquire(k);
	return k;
}

static void trampoline(struct flavour *f, struct rcu_head *head)
{
	struct khead *k = callback_begins(f, head);

	k->func(k);
	tsan_release(&f->barrier_clock);
}

static void rcu_trampoline(struct rcu_head *head)
{
	trampoline(&rcu, head);
}

static void trace_trampoline(struct rcu_head *head)
{
	trampoline(&trace, head);
}

_Static_assert(sizeof(struct rcu_head) == 2 * sizeof(void *),
	       "uspace.h reserves two words for liburcu's rcu_head");

static void queue(struct flavour *f, struct khead *k, void (*func)(struct khead *),
		  void (*tramp)(struct rcu_head *))
{
	uspace_rcu_register();
	k->func = func;
	tsan_release(k);
	f->urcu->update_call_rcu(&k->urcu, tramp);
}

/*
 * The tasks trace grace period is over: wait for an RCU one as well
 * before the kernel's callback (k->func) runs.
 */
static void trace_then_rcu_trampoline(struct rcu_head *head)
{
	struct khead *k = callback_begins(&trace, head);

	queue(&rcu, k, k->func, rcu_trampoline);
	tsan_release(&trace.barrier_clock);
}

#ifdef USPACE_TRACE_GP_IMPLIES_RCU_GP
static const bool trace_waits_for_rcu = true;
#else
static const bool trace_waits_for_rcu;
#endif

static void barrier(struct flavour *f)
{
	uspace_rcu_register();
	f->urcu->barrier();
	tsan_acquire(&f->barrier_clock);
}

static void sync_gp(struct flavour *f)
{
	uspace_rcu_register();
	f->urcu->update_synchronize_rcu();
	tsan_acquire(&f->gp_clock);
}

static void read_unlock(struct flavour *f)
{
	tsan_release(&f->gp_clock);
	f->urcu->read_unlock();
}

void call_rcu(struct khead *k, void (*func)(struct khead *))
{
	queue(&rcu, k, func, rcu_trampoline);
}

void call_rcu_tasks_trace(struct khead *k, void (*func)(struct khead *))
{
	queue(&trace, k, func, trace_waits_for_rcu ? trace_then_rcu_trampoline : trace_trampoline);
}

void rcu_barrier_tasks_trace(void)
{
	barrier(&trace);
	/* every tasks trace callback has queued its RCU half: wait for those */
	if (trace_waits_for_rcu)
		barrier(&rcu);
}

void synchronize_rcu_tasks_trace(void)
{
	sync_gp(&trace);
	if (trace_waits_for_rcu)
		sync_gp(&rcu);
}

void rcu_barrier(void)
{
	barrier(&rcu);
}

void synchronize_rcu(void)
{
	sync_gp(&rcu);
}

void rcu_read_lock(void)
{
	rcu.urcu->read_lock();
}

void rcu_read_unlock(void)
{
	read_unlock(&rcu);
}

void rcu_read_lock_trace(void)
{
	trace.urcu->read_lock();
}

void rcu_read_unlock_trace(void)
{
	read_unlock(&trace);
}
