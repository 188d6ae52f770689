// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel services memalloc.c uses, on top of libc and pthreads:
 * CPUs and interrupt flags, irq_work, the NMI hook, malloc-backed slab
 * and percpu, the unbound workqueue, fault attributes and a debugfs
 * registry.  RCU is in rcu.c.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "uspace_test.h"
#include "uspace_races.h"

int uspace_nr_cpus = 1;
__thread int uspace_cpu = -1;
atomic_t uspace_warnings;

void uspace_warn(const char *file, int line, const char *cond)
{
	atomic_inc(&uspace_warnings);
	fprintf(stderr, "WARNING: CPU: %d at %s:%d: %s\n", uspace_cpu, file, line, cond);
}

void uspace_bug(const char *file, int line, const char *cond)
{
	fprintf(stderr, "BUG: CPU: %d at %s:%d: %s\n", uspace_cpu, file, line, cond);
	abort();
}

/*
 * USPACE_TSAN_ASSUME_FIXED: the functions, separated by spaces, whose
 * expected TSan report this run is not about (uspace_races.h).  Read
 * once, before main() starts any thread.
 */
static const char *assume_fixed = "";

static void __attribute__((constructor)) read_assume_fixed(void)
{
	const char *s = getenv("USPACE_TSAN_ASSUME_FIXED");

	if (s)
		assume_fixed = s;
}

bool uspace_assume_fixed(const char *func)
{
	size_t n = strlen(func);
	const char *p;

	for (p = assume_fixed; (p = strstr(p, func)); p += n)
		if ((p == assume_fixed || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

/* --- CPUs ---------------------------------------------------------------- */

/*
 * The state of one CPU.  Only the thread that is this CPU touches it
 * (plain fields: TSan reports any other thread that does).
 */
struct uspace_cpu_state {
	bool irqs_off;
	bool in_nmi;
	struct irq_work *pending;	/* queued irq_work, LIFO */
	void (*nmi)(void);
	unsigned int nmi_period, nmi_tick;
	unsigned long nmis;
} __attribute__((aligned(64)));

static struct uspace_cpu_state cpus[NR_CPUS];
/* Threads that are no CPU (RCU callbacks, the workqueue) still disable irqs. */
static __thread struct uspace_cpu_state nocpu;

static struct uspace_cpu_state *cpu_state(void)
{
	return uspace_cpu >= 0 ? &cpus[uspace_cpu] : &nocpu;
}

void uspace_set_cpu(int cpu)
{
	BUG_ON(cpu < -1 || cpu >= uspace_nr_cpus);
	if (uspace_cpu >= 0)
		BUG_ON(cpus[uspace_cpu].pending || cpus[uspace_cpu].irqs_off);
	uspace_cpu = cpu;
	if (cpu >= 0)
		cpus[cpu].nmi = NULL;
}

int uspace_this_cpu(void)
{
	if (uspace_cpu < 0)
		uspace_bug(__FILE__, __LINE__, "per-cpu access from a thread that is no CPU");
	return uspace_cpu;
}

bool uspace_irqs_disabled(void)
{
	return cpu_state()->irqs_off;
}

bool uspace_in_nmi(void)
{
	return cpu_state()->in_nmi;
}

/* Like the irq_work interrupt handler: irqs off, each work once. */
static void irq_work_run(struct uspace_cpu_state *s)
{
	struct irq_work *w;

	s->irqs_off = true;
	while ((w = s->pending)) {
		s->pending = w->next;
		/* PENDING -> BUSY: it may be queued again from func() */
		__atomic_store_n(&w->flags, IRQ_WORK_BUSY, __ATOMIC_RELEASE);
		w->func(w);
		/* Release: irq_work_sync() on another thread then sees func()'s writes. */
		__atomic_store_n(&w->flags, w->flags & ~IRQ_WORK_BUSY, __ATOMIC_RELEASE);
	}
	s->irqs_off = false;
}

unsigned long uspace_irq_save(void)
{
	struct uspace_cpu_state *s = cpu_state();
	unsigned long flags = s->irqs_off;

	s->irqs_off = true;
	return flags;
}

/* Turning irqs back on delivers the pending irq_work, like a self-IPI. */
void uspace_irq_restore(unsigned long flags)
{
	struct uspace_cpu_state *s = cpu_state();

	s->irqs_off = flags;
	if (!flags && !s->in_nmi && s->pending && uspace_cpu >= 0)
		irq_work_run(s);
}

bool irq_work_queue(struct irq_work *w)
{
	struct uspace_cpu_state *s;
	int old = 0;

	/* Claim: fails when already pending, like the kernel's */
	if (!__atomic_compare_exchange_n(&w->flags, &old, IRQ_WORK_PENDING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (old != IRQ_WORK_BUSY)
			return false;
		/* Running now (from this CPU's handler): queue again */
		__atomic_store_n(&w->flags, IRQ_WORK_PENDING | IRQ_WORK_BUSY, __ATOMIC_RELEASE);
	}
	s = &cpus[uspace_this_cpu()];
	w->cpu = uspace_cpu;
	w->next = s->pending;
	s->pending = w;
	if (!s->irqs_off && !s->in_nmi)
		irq_work_run(s);
	return true;
}

void irq_work_sync(struct irq_work *w)
{
	while (__atomic_load_n(&w->flags, __ATOMIC_ACQUIRE))
		sched_yield();
}

void uspace_set_nmi(void (*handler)(void), unsigned int period)
{
	struct uspace_cpu_state *s = &cpus[uspace_this_cpu()];

	s->nmi_period = period;
	s->nmi_tick = 0;
	s->nmi = handler;
}

static atomic_long_t nmis_total;

unsigned long uspace_nmis(void)
{
	return atomic_long_read(&nmis_total);
}

long uspace_local_inc_return(local_t *l)
{
	struct uspace_cpu_state *s = cpu_state();
	long v = ++l->v;

	if (s->nmi && !s->in_nmi && ++s->nmi_tick >= s->nmi_period) {
		bool irqs_off = s->irqs_off;

		s->nmi_tick = 0;
		s->in_nmi = true;
		s->irqs_off = true;
		s->nmi();
		s->irqs_off = irqs_off;
		s->in_nmi = false;
		atomic_long_inc(&nmis_total);
	}
	return v;
}

void uspace_spin_lock(raw_spinlock_t *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			sched_yield();
}

void uspace_spin_unlock(raw_spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* --- slab and percpu ---------------------------------------------------- */

static long mem_live, mem_peak;
static int failslab;

long uspace_mem_live(void)
{
	return __atomic_load_n(&mem_live, __ATOMIC_RELAXED);
}

long uspace_mem_peak(void)
{
	return __atomic_load_n(&mem_peak, __ATOMIC_RELAXED);
}

void uspace_mem_reset_peak(void)
{
	__atomic_store_n(&mem_peak, uspace_mem_live(), __ATOMIC_RELAXED);
}

void uspace_set_failslab(int percent)
{
	__atomic_store_n(&failslab, percent, __ATOMIC_RELAXED);
}

static void mem_account(long bytes)
{
	long live = __atomic_add_fetch(&mem_live, bytes, __ATOMIC_RELAXED);
	long peak = __atomic_load_n(&mem_peak, __ATOMIC_RELAXED);

	while (live > peak &&
	       !__atomic_compare_exchange_n(&mem_peak, &peak, live, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static __thread unsigned int rnd_state = 1;

static bool fail_nowait(gfp_t flags)
{
	int pct = __atomic_load_n(&failslab, __ATOMIC_RELAXED);

	if (!pct || !(flags & __GFP_NOWAIT))
		return false;
	return (int)(rand_r(&rnd_state) % 100) < pct;
}

/*
 * The slab object's requested size sits in a header in front of it;
 * ksize() needs it (bpf_mem_free() finds the bucket from it).  The object
 * ends where malloc()'s block ends, so ASan and Valgrind catch overflows
 * byte-exact; an underflow into the header goes unseen.
 */
#define KM_HDR	16

void *kmalloc(size_t size, gfp_t flags)
{
	char *p;

	if (fail_nowait(flags))
		return NULL;
	p = malloc(KM_HDR + size);
	if (!p)
		return NULL;
	*(size_t *)p = size;
	if (flags & __GFP_ZERO)
		memset(p + KM_HDR, 0, size);
	mem_account(size);
	return p + KM_HDR;
}

void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

void *kmalloc_node(size_t size, gfp_t flags, int node)
{
	return kmalloc(size, flags);
}

/* The tests' hooks into kfree(): see uspace_test.h. */
static __thread void (*kfree_hook)(void);
static const void *watched[NR_CPUS];
static bool watch_hit[NR_CPUS];
static int nr_watched;

void uspace_set_kfree_hook(void (*hook)(void))
{
	kfree_hook = hook;
}

void uspace_watch(int slot, const void *obj)
{
	BUG_ON(slot < 0 || slot >= NR_CPUS);
	__atomic_store_n(&watch_hit[slot], false, __ATOMIC_RELAXED);
	__atomic_store_n(&watched[slot], obj, __ATOMIC_RELEASE);
	__atomic_add_fetch(&nr_watched, obj ? 1 : -1, __ATOMIC_RELEASE);
}

bool uspace_watched_freed(int slot)
{
	return __atomic_load_n(&watch_hit[slot], __ATOMIC_ACQUIRE);
}

static void watch_kfree(const char *p, size_t size)
{
	int i;

	for (i = 0; i < NR_CPUS; i++) {
		const char *w = __atomic_load_n(&watched[i], __ATOMIC_ACQUIRE);

		if (w && w >= p && w < p + size)
			__atomic_store_n(&watch_hit[i], true, __ATOMIC_RELEASE);
	}
}

void kfree(const void *p)
{
	char *h;

	if (!p || p == ZERO_SIZE_PTR)
		return;
	if (kfree_hook) {
		void (*hook)(void) = kfree_hook;

		kfree_hook = NULL;
		hook();
	}
	h = (char *)p - KM_HDR;
	if (__atomic_load_n(&nr_watched, __ATOMIC_ACQUIRE))
		watch_kfree(p, *(size_t *)h);
	mem_account(-(long)*(size_t *)h);
	free(h);
}

/* The object's kmalloc size class (uspace.h). */
size_t ksize(const void *p)
{
	return uspace_kmalloc_class(*(const size_t *)((const char *)p - KM_HDR));
}

/* A percpu pointer is a table of one malloc() block per CPU. */
struct pcpu_area {
	size_t size;
	void *cpu[];
};

void *__alloc_percpu_gfp(size_t size, size_t align, gfp_t gfp)
{
	struct pcpu_area *a;
	int cpu;

	if (fail_nowait(gfp))
		return NULL;
	a = calloc(1, sizeof(*a) + uspace_nr_cpus * sizeof(void *));
	if (!a)
		return NULL;
	a->size = size;
	for (cpu = 0; cpu < uspace_nr_cpus; cpu++) {
		if (posix_memalign(&a->cpu[cpu], align < sizeof(void *) ? sizeof(void *) : align,
				   size)) {
			while (cpu--)
				free(a->cpu[cpu]);
			free(a);
			return NULL;
		}
		memset(a->cpu[cpu], 0, size);
	}
	mem_account((long)size * uspace_nr_cpus);
	return a;
}

void *__alloc_percpu(size_t size, size_t align)
{
	return __alloc_percpu_gfp(size, align, GFP_KERNEL);
}

void free_percpu(void *p)
{
	struct pcpu_area *a = p;
	int cpu;

	if (!a)
		return;
	for (cpu = 0; cpu < uspace_nr_cpus; cpu++)
		free(a->cpu[cpu]);
	mem_account(-(long)a->size * uspace_nr_cpus);
	free(a);
}

void *uspace_per_cpu_ptr(void *p, int cpu)
{
	BUG_ON(cpu < 0 || cpu >= uspace_nr_cpus);
	return ((struct pcpu_area *)p)->cpu[cpu];
}

/* --- the unbound workqueue: one worker thread --------------------------- */

struct workqueue_struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct work_struct *head, **tail;
	int busy;
	bool started;
	pthread_t thread;
};

static struct workqueue_struct unbound = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.tail = &unbound.head,
};
struct workqueue_struct *system_unbound_wq = &unbound;
struct workqueue_struct *system_wq = &unbound;
struct workqueue_struct *system_dfl_wq = &unbound;

static void *worker(void *arg)
{
	struct workqueue_struct *wq = arg;
	struct work_struct *w;

	uspace_rcu_register();
	pthread_mutex_lock(&wq->lock);
	for (;;) {
		while (!wq->head)
			pthread_cond_wait(&wq->cond, &wq->lock);
		w = wq->head;
		wq->head = w->next;
		if (!wq->head)
			wq->tail = &wq->head;
		wq->busy++;
		pthread_mutex_unlock(&wq->lock);
		w->func(w);
		pthread_mutex_lock(&wq->lock);
		wq->busy--;
		pthread_cond_broadcast(&wq->cond);
	}
	return NULL;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *w)
{
	pthread_mutex_lock(&wq->lock);
	if (!wq->started) {
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		BUG_ON(pthread_create(&wq->thread, &attr, worker, wq));
		pthread_attr_destroy(&attr);
		wq->started = true;
	}
	w->next = NULL;
	*wq->tail = w;
	wq->tail = &w->next;
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
	return true;
}

void uspace_flush_workqueue(void)
{
	struct workqueue_struct *wq = &unbound;

	pthread_mutex_lock(&wq->lock);
	while (wq->head || wq->busy)
		pthread_cond_wait(&wq->cond, &wq->lock);
	pthread_mutex_unlock(&wq->lock);
}

/* Fault attributes and debugfs files: debugfs.c. */

/* probability and times as in the kernel's fault_attr; no interval, space or filters. */
bool should_fail_ex(struct fault_attr *attr, ssize_t size, int flags)
{
	int pct = __atomic_load_n(&attr->probability, __ATOMIC_RELAXED);
	int times;

	if (!pct || (pct < 100 && (int)(rand_r(&rnd_state) % 100) >= pct))
		return false;
	do {
		times = atomic_read(&attr->times);
		if (!times)
			return false;
	} while (times > 0 && atomic_cmpxchg(&attr->times, times, times - 1) != times);
	atomic_inc(&attr->count);
	return true;
}
