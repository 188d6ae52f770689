/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel as kernel/bpf/memalloc.c sees it, in user space.
 *
 * One header for every stand-in: mm.h, bpf.h, memcontrol.h and friends
 * pull in most of the kernel, so each stand-in in linux/ and asm/ only
 * includes this file.  The tree's own llist.h, lib/llist.c,
 * bpf_mem_alloc.h and kconfig.h are used as they are (-idirafter the
 * variant's include/).
 *
 * The model: up to NR_CPUS "CPUs", each driven by at most one thread at
 * a time (uspace_set_cpu()), so per-cpu data is an array indexed by the
 * thread's CPU id.  "Interrupts" are a per-CPU flag; irq_work queued on a
 * CPU runs on that CPU's thread as soon as the flag is clear, like the
 * self-IPI of x86.  RCU is liburcu (tools/uspace/rcu.c), slab and percpu
 * are malloc(), so ASan and Valgrind see every object.
 */
#ifndef USPACE_H
#define USPACE_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define NR_CPUS		64

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef unsigned int gfp_t;

/* --- compiler ----------------------------------------------------------- */

#define __percpu
#define __rcu
#define __init
#define __exit
#define __ro_after_init
#define __read_mostly
#define __must_check	__attribute__((warn_unused_result))
/* __always_inline: glibc's <sys/cdefs.h> (from <errno.h>) has the kernel's. */
#define notrace		__attribute__((no_instrument_function))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define EXPORT_SYMBOL(x)
#define EXPORT_SYMBOL_GPL(x)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#define min(a, b) ({ typeof(a) _a = (a); typeof(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ typeof(a) _a = (a); typeof(b) _b = (b); _a > _b ? _a : _b; })

static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

/*
 * Scheduling points of the interleaving explorer (tools/uspace/explore):
 * built with -DUSPACE_EXPLORE, every marked access, atomic and
 * xchg/cmpxchg below first lets the explorer's scheduler switch to
 * another simulated CPU (uspace_sched_point()).  Without it USPACE_SP()
 * is nothing and the macros are what they always were.
 */
enum uspace_sp {
	USPACE_SP_READ,		/* READ_ONCE(), smp_load_acquire() */
	USPACE_SP_WRITE,	/* WRITE_ONCE(), smp_store_release() */
	USPACE_SP_XCHG,		/* xchg(), cmpxchg(), try_cmpxchg(): llist ops */
	USPACE_SP_ATOMIC,	/* atomic_t / atomic_long_t */
	USPACE_SP_IRQ_OFF,	/* local_irq_save(): before irqs go off */
	USPACE_SP_IRQ_ON,	/* local_irq_restore(): after irqs come back */
	USPACE_SP_LOCK,		/* raw_spin_lock(): before the attempt */
	USPACE_SP_UNLOCK,	/* raw_spin_unlock(): after the release */
	USPACE_SP_IRQ_WORK,	/* irq_work_queue() */
	USPACE_SP_CALL_RCU,	/* call_rcu(), call_rcu_tasks_trace() */
	USPACE_SP_NMI,		/* local_inc_return(): where an NMI prog may fire */
	USPACE_SP_WAIT,		/* a wait loop (irq_work_sync(), barriers) */
	USPACE_SP_OP,		/* between two operations of the workload */
	USPACE_SP_KINDS
};
/*
 * The kernel's ordering of each marked access, for the explorer's
 * happens-before check (explore/hb.c), which is not C11's: TSan needs a
 * release where the kernel has a barrier before a relaxed atomic
 * (atomic_dec() below), the explorer models the barrier itself.
 */
enum uspace_hb {
	USPACE_HB_LOAD,		/* relaxed load: acquires only at a later smp_mb() */
	USPACE_HB_LOAD_ACQUIRE,	/* also READ_ONCE(), atomic_read(): dependencies */
	USPACE_HB_STORE,	/* relaxed: releases what the last smp_mb() covered */
	USPACE_HB_STORE_RELEASE,
	USPACE_HB_RMW,		/* non-returning atomic: relaxed */
	USPACE_HB_RMW_FULL,	/* value-returning atomic, xchg, cmpxchg */
	USPACE_HB_FENCE,	/* smp_mb() */
};
#ifdef USPACE_EXPLORE
void uspace_sched_point(int kind);
void uspace_hb(const volatile void *p, int how);
#define USPACE_SP(kind)		uspace_sched_point(USPACE_SP_##kind)
#define USPACE_HB(p, how)	uspace_hb((p), USPACE_HB_##how)
#else
#define USPACE_SP(kind)		((void)0)
#define USPACE_HB(p, how)	((void)0)
#endif
/* A scheduling point, then the access's ordering */
#define USPACE_ACC(kind, p, how) ({ USPACE_SP(kind); USPACE_HB(p, how); })

/*
 * Marked accesses.  READ_ONCE() is an acquire load: the kernel relies on
 * address dependencies (consume) after it, which C11 and TSan only know
 * as acquire.  WRITE_ONCE() is relaxed.  Both are atomic, so TSan treats
 * them like KCSAN treats marked accesses: never a data race.
 */
#define READ_ONCE(x)		({ USPACE_ACC(READ, &(x), LOAD_ACQUIRE); __atomic_load_n(&(x), __ATOMIC_ACQUIRE); })
#define WRITE_ONCE(x, v)	({ USPACE_ACC(WRITE, &(x), STORE); __atomic_store_n(&(x), (v), __ATOMIC_RELAXED); })
#define smp_load_acquire(p)	({ USPACE_ACC(READ, (p), LOAD_ACQUIRE); __atomic_load_n((p), __ATOMIC_ACQUIRE); })
#define smp_store_release(p, v)	({ USPACE_ACC(WRITE, (p), STORE_RELEASE); __atomic_store_n((p), (v), __ATOMIC_RELEASE); })
#define smp_mb()		({ USPACE_HB(NULL, FENCE); __atomic_thread_fence(__ATOMIC_SEQ_CST); })
#define smp_mb__before_atomic()	smp_mb()
#define smp_mb__after_atomic()	smp_mb()
#define barrier()		__atomic_signal_fence(__ATOMIC_SEQ_CST)

#define xchg(p, v)		({ USPACE_ACC(XCHG, (p), RMW_FULL); __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST); })
#define cmpxchg(p, o, n) ({						\
	typeof(*(p)) __old = (o);					\
	USPACE_ACC(XCHG, (p), RMW_FULL);				\
	__atomic_compare_exchange_n((p), &__old, (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	__old; })
#define try_cmpxchg(p, po, n) ({					\
	USPACE_ACC(XCHG, (p), RMW_FULL);				\
	__atomic_compare_exchange_n((p), (po), (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); })

/* --- atomic_t: sequentially consistent RMW, as the kernel's value-returning ops */

typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;

#define ATOMIC_INIT(i)	{ (i) }
/*
 * Acquire, not relaxed: bpf_mem_alloc_destroy() frees the caches after
 * reading zero from counters that callbacks drop with release ordering
 * (a control dependency in the kernel's memory model, which C11 and TSan
 * do not have).
 */
#define atomic_read(v)		({ USPACE_ACC(ATOMIC, &(v)->counter, LOAD_ACQUIRE); __atomic_load_n(&(v)->counter, __ATOMIC_ACQUIRE); })
/* uspace_atomic_set(): what atomic_set() is, unless uspace_races.h says otherwise */
#define uspace_atomic_set(v, i)	({ USPACE_ACC(ATOMIC, &(v)->counter, STORE); __atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED); })
#define atomic_set(v, i)	uspace_atomic_set(v, i)
#define atomic_set_release(v, i) ({ USPACE_ACC(ATOMIC, &(v)->counter, STORE_RELEASE); __atomic_store_n(&(v)->counter, (i), __ATOMIC_RELEASE); })
#define atomic_inc(v)		({ USPACE_ACC(ATOMIC, &(v)->counter, RMW); (void)__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_RELAXED); })
#define atomic_dec(v)		({ USPACE_ACC(ATOMIC, &(v)->counter, RMW); (void)__atomic_fetch_sub(&(v)->counter, 1, __ATOMIC_RELEASE); })
#define atomic_add(i, v)	({ USPACE_ACC(ATOMIC, &(v)->counter, RMW); (void)__atomic_fetch_add(&(v)->counter, (i), __ATOMIC_RELAXED); })
#define atomic_inc_return(v)	({ USPACE_ACC(ATOMIC, &(v)->counter, RMW_FULL); __atomic_add_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST); })
#define atomic_dec_return(v)	({ USPACE_ACC(ATOMIC, &(v)->counter, RMW_FULL); __atomic_sub_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST); })
#define atomic_dec_return_relaxed(v) ({ USPACE_ACC(ATOMIC, &(v)->counter, RMW); __atomic_sub_fetch(&(v)->counter, 1, __ATOMIC_RELAXED); })
#define atomic_dec_and_test(v)	(atomic_dec_return(v) == 0)
#define atomic_xchg(v, i)	({ USPACE_ACC(ATOMIC, &(v)->counter, RMW_FULL); __atomic_exchange_n(&(v)->counter, (i), __ATOMIC_SEQ_CST); })
#define atomic_cmpxchg(v, o, n)	cmpxchg(&(v)->counter, (o), (n))
#define atomic_long_read(v)	({ USPACE_ACC(ATOMIC, &(v)->counter, LOAD_ACQUIRE); __atomic_load_n(&(v)->counter, __ATOMIC_ACQUIRE); })
#define atomic_long_inc(v)	({ USPACE_ACC(ATOMIC, &(v)->counter, RMW); (void)__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_RELAXED); })

/* --- warnings: counted, and any one fails the test run ---------------- */

extern atomic_t uspace_warnings;
void uspace_warn(const char *file, int line, const char *cond);

#define WARN_ON(cond) ({						\
	bool __c = !!(cond);						\
	if (unlikely(__c))						\
		uspace_warn(__FILE__, __LINE__, #cond);			\
	unlikely(__c); })
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define WARN_ONCE(cond, ...)	WARN_ON(cond)
#define BUG_ON(cond)	do { if (unlikely(cond)) uspace_bug(__FILE__, __LINE__, #cond); } while (0)
void uspace_bug(const char *file, int line, const char *cond) __attribute__((noreturn));

/* --- CPUs, interrupts, NMIs ------------------------------------------- */

extern int uspace_nr_cpus;
extern __thread int uspace_cpu;		/* -1: not a CPU thread */

void uspace_set_cpu(int cpu);		/* this thread becomes CPU @cpu */
int uspace_this_cpu(void);		/* aborts in a thread that is no CPU */

#define smp_processor_id()	uspace_this_cpu()
#define raw_smp_processor_id()	uspace_this_cpu()
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < uspace_nr_cpus; (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)
#define nr_cpu_ids		uspace_nr_cpus
#define num_possible_cpus()	uspace_nr_cpus
#define NUMA_NO_NODE		(-1)
#define cpu_to_node(cpu)	0

unsigned long uspace_irq_save(void);
void uspace_irq_restore(unsigned long flags);
bool uspace_irqs_disabled(void);
bool uspace_in_nmi(void);

#define local_irq_save(flags)	((flags) = uspace_irq_save())
#define local_irq_restore(flags) uspace_irq_restore(flags)
#define local_irq_disable()	((void)uspace_irq_save())
#define local_irq_enable()	uspace_irq_restore(0)
#define irqs_disabled()		uspace_irqs_disabled()
#define in_nmi()		uspace_in_nmi()
#define preempt_disable()	barrier()
#define preempt_enable()	barrier()
#define migrate_disable()	barrier()
#define migrate_enable()	barrier()

/*
 * local_t: only its CPU touches it, so a plain counter (TSan reports any
 * other thread that does).  local_inc_return() is where an NMI hits in
 * the model: with an NMI handler installed on this CPU (uspace_set_nmi())
 * it may run right after the increment, inside the section the counter
 * guards, which is where a perf-event bpf prog would interrupt
 * unit_alloc()/unit_free() on a real machine.
 */
typedef struct { long v; } local_t;
#define LOCAL_INIT(i)	{ (i) }
long uspace_local_inc_return(local_t *l);
#define local_inc_return(l)	uspace_local_inc_return(l)
#define local_dec(l)		((void)((l)->v--))
#define local_inc(l)		((void)((l)->v++))
#define local_read(l)		((l)->v)
#define local_set(l, i)		((void)((l)->v = (i)))

/* --- spinlocks ---------------------------------------------------------- */

typedef struct { int locked; } raw_spinlock_t;
typedef raw_spinlock_t spinlock_t;
void uspace_spin_lock(raw_spinlock_t *l);
void uspace_spin_unlock(raw_spinlock_t *l);
#define raw_spin_lock_init(l)	((void)((l)->locked = 0))
#define spin_lock_init(l)	raw_spin_lock_init(l)
#define raw_spin_lock(l)	uspace_spin_lock(l)
#define raw_spin_unlock(l)	uspace_spin_unlock(l)
#define raw_spin_lock_irqsave(l, flags) \
	do { local_irq_save(flags); uspace_spin_lock(l); } while (0)
#define raw_spin_unlock_irqrestore(l, flags) \
	do { uspace_spin_unlock(l); local_irq_restore(flags); } while (0)
#define spin_lock_irqsave	raw_spin_lock_irqsave
#define spin_unlock_irqrestore	raw_spin_unlock_irqrestore

/*
 * scoped_guard(raw_spinlock_irqsave, &lock) { ... } of linux/cleanup.h
 * (6.12's memalloc.c): the lock is held for the block and dropped however
 * the block is left, by the cleanup attribute as in the kernel.
 */
typedef struct { raw_spinlock_t *lock; unsigned long flags; } class_raw_spinlock_irqsave_t;
static inline class_raw_spinlock_irqsave_t
class_raw_spinlock_irqsave_constructor(raw_spinlock_t *l)
{
	class_raw_spinlock_irqsave_t t = { .lock = l };

	raw_spin_lock_irqsave(l, t.flags);
	return t;
}
static inline void class_raw_spinlock_irqsave_destructor(class_raw_spinlock_irqsave_t *t)
{
	raw_spin_unlock_irqrestore(t->lock, t->flags);
}
#define scoped_guard(_name, args...)					\
	for (class_##_name##_t scope					\
		__attribute__((cleanup(class_##_name##_destructor))) =	\
		class_##_name##_constructor(args), *done = NULL;	\
	     !done; done = (void *)1)

/* --- slab and percpu on malloc ---------------------------------------- */

#define ___GFP_ZERO	0x100u
#define __GFP_NOWARN	0x200u
#define __GFP_ACCOUNT	0x400u
#define __GFP_NOWAIT	0x800u
#define __GFP_ZERO	___GFP_ZERO
#define GFP_NOWAIT	__GFP_NOWAIT
#define GFP_ATOMIC	(__GFP_NOWAIT | 0x1000u)
#define GFP_KERNEL	0x2000u
#define GFP_KERNEL_ACCOUNT (GFP_KERNEL | __GFP_ACCOUNT)
#define ZERO_SIZE_PTR	((void *)16)

void *kmalloc(size_t size, gfp_t flags);
void *kzalloc(size_t size, gfp_t flags);
void *kmalloc_node(size_t size, gfp_t flags, int node);
void kfree(const void *p);
size_t ksize(const void *p);

/* The kmalloc size class of @size, as 6.1's slab with 8-byte minimum alignment. */
static inline size_t uspace_kmalloc_class(size_t size)
{
	if (size <= 8)
		return 8;
	if (size > 64 && size <= 96)
		return 96;
	if (size > 128 && size <= 192)
		return 192;
	return (size_t)1 << fls(size - 1);
}
static inline void *kmemdup(const void *src, size_t len, gfp_t gfp)
{
	void *p = kmalloc(len, gfp);

	if (p)
		memcpy(p, src, len);
	return p;
}

void *__alloc_percpu_gfp(size_t size, size_t align, gfp_t gfp);
void *__alloc_percpu(size_t size, size_t align);
void free_percpu(void *p);
void *uspace_per_cpu_ptr(void *p, int cpu);
#define alloc_percpu(type) ((type *)__alloc_percpu(sizeof(type), __alignof__(type)))
#define alloc_percpu_gfp(type, gfp) \
	((type *)__alloc_percpu_gfp(sizeof(type), __alignof__(type), gfp))
#define per_cpu_ptr(p, cpu)	((typeof(p))uspace_per_cpu_ptr((void *)(p), (cpu)))
#define this_cpu_ptr(p)		per_cpu_ptr(p, uspace_this_cpu())
#define raw_cpu_ptr(p)		this_cpu_ptr(p)

/* --- memcg: no-ops (the allocator passes NULL without CONFIG_MEMCG) --- */

struct mem_cgroup;
struct obj_cgroup;
static inline struct mem_cgroup *set_active_memcg(struct mem_cgroup *m) { return NULL; }
static inline void mem_cgroup_put(struct mem_cgroup *m) { }
static inline void obj_cgroup_put(struct obj_cgroup *o) { }
static inline struct obj_cgroup *get_obj_cgroup_from_current(void) { return NULL; }
static inline struct mem_cgroup *get_mem_cgroup_from_objcg(struct obj_cgroup *o) { return NULL; }
/* 6.12: bpf_mem_alloc_init() asks before it charges anybody. */
static inline bool memcg_bpf_enabled(void) { return false; }

/* --- irq_work: runs on its CPU's thread once "interrupts" are on ------ */

struct irq_work {
	struct irq_work *next;	/* this CPU's pending list */
	int flags;		/* IRQ_WORK_PENDING | IRQ_WORK_BUSY */
	int cpu;		/* where it was queued */
	void (*func)(struct irq_work *work);
};
#define IRQ_WORK_PENDING	1
#define IRQ_WORK_BUSY		2
#define IRQ_WORK_INIT(f)	{ .func = (f) }
static inline void init_irq_work(struct irq_work *w, void (*f)(struct irq_work *))
{
	memset(w, 0, sizeof(*w));
	w->func = f;
}
bool irq_work_queue(struct irq_work *w);
void irq_work_sync(struct irq_work *w);

/* --- workqueue: one worker thread for system_unbound_wq -------------- */

struct work_struct {
	struct work_struct *next;
	void (*func)(struct work_struct *work);
};
struct workqueue_struct;
extern struct workqueue_struct *system_unbound_wq;
extern struct workqueue_struct *system_wq;
extern struct workqueue_struct *system_dfl_wq;	/* 7.2's name for the unbound one */
#define INIT_WORK(w, f)	do { (w)->next = NULL; (w)->func = (f); } while (0)
bool queue_work(struct workqueue_struct *wq, struct work_struct *w);
void uspace_flush_workqueue(void);	/* waits until no work is queued or running */

/* --- RCU and RCU tasks trace on liburcu (rcu.c) ------------------------ */

/*
 * liburcu's struct rcu_head (two words) followed by the kernel callback:
 * rcu.c hands liburcu a trampoline that tells TSan about the grace
 * period before calling it.
 */
struct rcu_head {
	void *urcu_head[2];
	void (*func)(struct rcu_head *head);
};
typedef void (*rcu_callback_t)(struct rcu_head *);
#define callback_head rcu_head

void call_rcu(struct rcu_head *head, rcu_callback_t func);
void synchronize_rcu(void);
void rcu_barrier(void);
void rcu_read_lock(void);
void rcu_read_unlock(void);
void call_rcu_tasks_trace(struct rcu_head *head, rcu_callback_t func);
void synchronize_rcu_tasks_trace(void);
void rcu_barrier_tasks_trace(void);
void rcu_read_lock_trace(void);
void rcu_read_unlock_trace(void);
/* guard(rcu)() of linux/cleanup.h (7.2's memalloc.c): a read section to the end of the scope */
typedef struct { char unused; } class_rcu_t;
static inline class_rcu_t class_rcu_constructor(void)
{
	rcu_read_lock();
	return (class_rcu_t){ 0 };
}
static inline void class_rcu_destructor(class_rcu_t *t)
{
	rcu_read_unlock();
}
#define __uspace_guard_id(n)	__uspace_guard_id2(n)
#define __uspace_guard_id2(n)	__guard_##n
#define guard(_name)							\
	class_##_name##_t __uspace_guard_id(__COUNTER__)		\
		__attribute__((cleanup(class_##_name##_destructor), unused)) = \
		class_##_name##_constructor
/*
 * 6.12: call_rcu_hurry() is call_rcu() without lazy batching, which
 * liburcu never does; rcu_request_urgent_qs_task(current) asks Tree RCU
 * to end the grace period sooner, a hint liburcu has no use for (its
 * grace periods are as short as its readers).
 */
#define call_rcu_hurry(head, func)	call_rcu(head, func)
struct task_struct;
#define current				((struct task_struct *)NULL)
static inline void rcu_request_urgent_qs_task(struct task_struct *t) { }
#ifdef USPACE_TRACE_IMPLIES_RCU_GP
/*
 * The explorer (tools/uspace/explore) models both grace periods itself
 * and answers as the base tree does (6.1's rcupdate_trace.h: true): its
 * tasks trace grace period also waits for every RCU reader.
 */
static inline bool rcu_trace_implies_rcu_gp(void) { return USPACE_TRACE_IMPLIES_RCU_GP; }
#else
/* Two independent liburcu flavours: one grace period never implies the other. */
static inline bool rcu_trace_implies_rcu_gp(void) { return false; }
#endif

/* --- debugfs and fault injection: a registry the tests read and set -- */

struct dentry;
struct fault_attr {
	int probability;	/* percent */
	atomic_t times;		/* failures left, -1: unlimited */
	atomic_t count;		/* failures injected */
};
#define FAULT_ATTR_INITIALIZER	{ .probability = 0, .times = ATOMIC_INIT(1) }
#define DECLARE_FAULT_ATTR(name) struct fault_attr name = FAULT_ATTR_INITIALIZER
#define FAULT_NOWARN	1
bool should_fail_ex(struct fault_attr *attr, ssize_t size, int flags);
#define should_fail(attr, size)	should_fail_ex(attr, size, 0)
static inline int setup_fault_attr(struct fault_attr *a, char *s) { return 1; }
struct dentry *fault_create_debugfs_attr(const char *name, struct dentry *parent,
					 struct fault_attr *attr);
struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
void debugfs_create_atomic_t(const char *name, unsigned short mode,
			     struct dentry *parent, atomic_t *value);
void debugfs_create_u64(const char *name, unsigned short mode,
			struct dentry *parent, u64 *value);
void debugfs_create_u32(const char *name, unsigned short mode,
			struct dentry *parent, u32 *value);
#define IS_ERR(p)	((unsigned long)(p) >= (unsigned long)-4095)
#define PTR_ERR(p)	((long)(p))
#define ERR_PTR(e)	((void *)(long)(e))
#define IS_ERR_OR_NULL(p) (!(p) || IS_ERR(p))

/* Boot parameters are ignored; initcalls run before main(). */
#define __setup(str, fn) \
	static int (*__uspace_setup_##fn)(char *) __attribute__((used)) = fn
#define __uspace_initcall(fn) \
	static void __attribute__((constructor)) __uspace_init_##fn(void) { (void)fn(); }
#define late_initcall(fn)	__uspace_initcall(fn)
#define subsys_initcall(fn)	__uspace_initcall(fn)
#define device_initcall(fn)	__uspace_initcall(fn)

#endif /* USPACE_H */
