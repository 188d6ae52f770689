// SPDX-License-Identifier: GPL-2.0
/*
 * memalloc_test: a variant's kernel/bpf/memalloc.c, compiled in user space
 * against tools/uspace/include, driven by one thread per "CPU".
 *
 *   memalloc_test [-c CPUS] [-s SCALE] [-n CASE]... [GLOB]
 *
 * -c: CPUs (threads), default 4.  -s: percent of the default iteration
 * counts (Valgrind runs use less).  -n: a case not to run here
 * (tools/uspace/run runs a case with an expected tool report on its own).
 * Prints KTAP, each case's honest result: which failures a variant is
 * expected to have is tools/report/judge's business
 * (tools/report/expectations).  Any WARN_ON in the allocator fails the
 * case.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf_mem_alloc.h>
#include "uspace_test.h"
#include "ktap.h"

#define OPS		64	/* operations per iteration, as htab-mem */
#define MAX_EXCLUDED	8

static int nr_threads = 4;
static int scale = 100;
static const char *excluded[MAX_EXCLUDED];
static int nr_excluded;

static int iters(int n)
{
	n = n * scale / 100;
	return n > 0 ? n : 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The first word of an object is the allocator's llist_node while it is
 * free; the tests put a tag in the second, written and read atomically
 * so that the reuse check races with nothing but the allocator's reuse.
 */
static unsigned long next_tag(void)
{
	static unsigned long tag;

	return __atomic_add_fetch(&tag, 1, __ATOMIC_RELAXED);
}

static void stamp(void *obj, size_t size)
{
	unsigned long *w = obj;

	__atomic_store_n(&w[0], next_tag(), __ATOMIC_RELAXED);
	if (size > sizeof(long))
		memset(w + 1, 0xa5, size - sizeof(long));
}

static unsigned long tag_of(void *obj)
{
	return __atomic_load_n((unsigned long *)obj, __ATOMIC_RELAXED);
}

/* --- running N CPUs ------------------------------------------------------ */

struct cpu_arg {
	int cpu;
	struct bpf_mem_alloc *ma;
	void *ctx;
	long failures;		/* checks that failed on this CPU */
	long iterations;
};

static void *cpu_thread(void *p)
{
	struct cpu_arg *a = p;
	void (*fn)(struct cpu_arg *) = a->ctx;

	uspace_set_cpu(a->cpu);
	uspace_rcu_register();
	fn(a);
	uspace_rcu_unregister();
	uspace_set_cpu(-1);
	return NULL;
}

/* Run @fn on every CPU; returns the failures they counted. */
static long run_cpus(struct bpf_mem_alloc *ma, void (*fn)(struct cpu_arg *), long *iterations)
{
	pthread_t t[NR_CPUS];
	struct cpu_arg a[NR_CPUS];
	long failures = 0;
	int i;

	for (i = 0; i < nr_threads; i++) {
		a[i] = (struct cpu_arg){ .cpu = i, .ma = ma, .ctx = fn };
		if (pthread_create(&t[i], NULL, cpu_thread, &a[i]))
			abort();
	}
	for (i = 0; i < nr_threads; i++) {
		pthread_join(t[i], NULL);
		failures += a[i].failures;
		if (iterations)
			*iterations += a[i].iterations;
	}
	return failures;
}

/* The test's own thread is CPU 0 while no CPU thread runs (init, destroy). */
static int ma_init(struct bpf_mem_alloc *ma, int size, bool percpu)
{
	int err;

	uspace_set_cpu(0);
	err = bpf_mem_alloc_init(ma, size, percpu);
	uspace_set_cpu(-1);
	return err;
}

static void ma_destroy(struct bpf_mem_alloc *ma)
{
	uspace_set_cpu(0);
	bpf_mem_alloc_destroy(ma);
	uspace_set_cpu(-1);
}

/* Wait for the deferred destroy and every callback: all memory is back. */
static void quiesce(void)
{
	uspace_flush_workqueue();
	rcu_barrier();
	rcu_barrier_tasks_trace();
	rcu_barrier();
	uspace_flush_workqueue();
}

static long warnings_before;

#ifdef USPACE_INJECT
/*
 * A test-only mutant (tests/uspace.sh), never in the kit's own builds:
 * made with -DUSPACE_INJECT='"WHAT:CASE-GLOB"' (make US_INJECT=WHAT:GLOB),
 * each case whose name matches starts with a fault of its own, after its
 * memory baseline: "leak" keeps 8 bytes of the shim's slab, "warn" fires
 * a WARN_ON as the allocator's would, "invalid_read" reads a byte past a
 * malloc()ed block (a report of ASan or Valgrind).  The harness must fail
 * the case (and the run) for each, whatever else the case expected.
 */
#include <fnmatch.h>

/* Reachable to the end: the case's own check must see the leak, no tool. */
void *uspace_injected_leak[16];

static void inject(void)
{
	static const char spec[] = USPACE_INJECT;
	static int nr_leaked;
	const struct ktap_case *c = ktap_current_case();
	const char *glob = strchr(spec, ':');
	size_t len = glob ? (size_t)(glob - spec) : 0;

	if (!glob || !c || fnmatch(glob + 1, c->name, 0))
		return;
	if (len == 4 && !strncmp(spec, "leak", 4)) {
		if (nr_leaked < (int)ARRAY_SIZE(uspace_injected_leak))
			uspace_injected_leak[nr_leaked++] = kmalloc(8, GFP_KERNEL);
	} else if (len == 4 && !strncmp(spec, "warn", 4)) {
		uspace_warn(__FILE__, __LINE__, "injected by USPACE_INJECT");
	} else if (len == 12 && !strncmp(spec, "invalid_read", 12)) {
		volatile char *p = malloc(8);
		volatile int past = 8;

		if (p)
			(void)p[past];
		free((void *)p);
	} else {
		fprintf(stderr, "memalloc_test: unknown USPACE_INJECT '%s'\n", spec);
		abort();
	}
}
#else
static void inject(void)
{
}
#endif

/*
 * Every case calls this first, after taking its memory baseline: the
 * allocator's WARN_ONs from here on fail it (EXPECT_NO_LEAK).
 */
static void case_start(void)
{
	warnings_before = atomic_read(&uspace_warnings);
	inject();
}

#define EXPECT_NO_LEAK(base)						\
	do {								\
		quiesce();						\
		KTAP_EXPECT(uspace_mem_live() == (base),		\
			    "%ld bytes still allocated after destroy",	\
			    uspace_mem_live() - (base));		\
		KTAP_EXPECT(atomic_read(&uspace_warnings) == warnings_before, \
			    "the allocator warned (see stderr)");	\
	} while (0)

/* --- workloads of htab-mem, through bpf_mem_cache_alloc/free ---------- */

#define VALUE_SIZE	8	/* htab-mem: 4-byte key, 8-byte value */
#define ELEM_SIZE	48	/* roughly a struct htab_elem with them */

/*
 * One update: allocate with "interrupts" off, as htab_map_update_elem()
 * does under its bucket lock, so the refill irq_work runs at the unlock.
 */
static void *update_alloc(struct bpf_mem_alloc *ma)
{
	unsigned long flags;
	void *p;

	local_irq_save(flags);
	p = bpf_mem_cache_alloc(ma);
	local_irq_restore(flags);
	if (p)
		stamp(p, ELEM_SIZE);
	return p;
}

static void overwrite_cpu(struct cpu_arg *a)
{
	void *slot[OPS] = { NULL };
	int i, k, n = iters(2000);

	for (i = 0; i < n; i++) {
		rcu_read_lock();
		for (k = 0; k < OPS; k++) {
			void *p = update_alloc(a->ma);

			if (!p) {
				a->failures++;
				continue;
			}
			bpf_mem_cache_free(a->ma, slot[k]);
			slot[k] = p;
		}
		rcu_read_unlock();
		a->iterations++;
	}
	for (k = 0; k < OPS; k++)
		bpf_mem_cache_free(a->ma, slot[k]);
}

static void batch_cpu(struct cpu_arg *a)
{
	void *slot[OPS];
	int i, k, n = iters(2000);

	for (i = 0; i < n; i++) {
		rcu_read_lock();
		for (k = 0; k < OPS; k++) {
			slot[k] = update_alloc(a->ma);
			if (!slot[k])
				a->failures++;
		}
		for (k = 0; k < OPS; k++)
			bpf_mem_cache_free(a->ma, slot[k]);
		rcu_read_unlock();
		a->iterations++;
	}
}

static enum ktap_result run_workload(void (*fn)(struct cpu_arg *), const char *name)
{
	struct bpf_mem_alloc ma = {};
	long base = uspace_mem_live(), failures, it = 0;

	case_start();
	KTAP_EXPECT(!ma_init(&ma, ELEM_SIZE, false), "bpf_mem_alloc_init failed");
	failures = run_cpus(&ma, fn, &it);
	ma_destroy(&ma);
	ktap_diag("%s: %ld iterations of %d on %d CPUs, %ld failed allocations",
		  name, it, OPS, nr_threads, failures);
	KTAP_EXPECT(!failures, "%ld allocations failed", failures);
	EXPECT_NO_LEAK(base);
	return KTAP_PASS;
}

static enum ktap_result test_overwrite(void)
{
	return run_workload(overwrite_cpu, "overwrite");
}

static enum ktap_result test_batch_add_batch_del(void)
{
	return run_workload(batch_cpu, "batch_add_batch_del");
}

/*
 * add_del_on_diff_cpu: CPU 2k allocates, CPU 2k+1 frees what it got,
 * through a single-producer single-consumer ring, in lockstep.  Every
 * object is freed on a CPU other than the one it came from.
 */
#define RING	(4 * OPS)

struct ring {
	void *slot[RING];
	unsigned long head, tail;	/* producer, consumer */
	int done;
};

static struct ring rings[NR_CPUS / 2];
static int diff_cpu_iters = 4000;

static void diff_cpu_cpu(struct cpu_arg *a)
{
	struct ring *r = &rings[a->cpu / 2];
	int i, k, n = iters(diff_cpu_iters);

	if (a->cpu % 2 == 0) {
		for (i = 0; i < n; i++) {
			rcu_read_lock();
			for (k = 0; k < OPS; k++) {
				void *p = update_alloc(a->ma);

				if (!p) {
					a->failures++;
					continue;
				}
				while (__atomic_load_n(&r->head, __ATOMIC_RELAXED) -
				       __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == RING)
					sched_yield();
				r->slot[r->head % RING] = p;
				__atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
			}
			rcu_read_unlock();
			a->iterations++;
		}
		__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
		return;
	}
	for (;;) {
		unsigned long head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

		if (r->tail == head) {
			if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) &&
			    r->tail == __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
				break;
			sched_yield();
			continue;
		}
		rcu_read_lock();
		while (r->tail != head) {
			bpf_mem_cache_free(a->ma, r->slot[r->tail % RING]);
			__atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_RELEASE);
		}
		rcu_read_unlock();
	}
}

/* Sample the allocator's live memory while the CPUs run, as htab-mem does. */
struct sampler {
	pthread_t thread;
	int stop;
	double sum;
	long n;
};

static void *sample(void *p)
{
	struct sampler *s = p;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		s->sum += uspace_mem_live();
		s->n++;
		usleep(1000);
	}
	return NULL;
}

static enum ktap_result test_add_del_on_diff_cpu(void)
{
	struct bpf_mem_alloc ma = {};
	struct sampler s = {};
	long base = uspace_mem_live(), failures, it = 0;
	double t;

	case_start();
	if (nr_threads < 2 || nr_threads % 2) {
		ktap_skip_reason("needs an even number of CPUs, not %d", nr_threads);
		return KTAP_SKIP;
	}
	memset(rings, 0, sizeof(rings));
	KTAP_EXPECT(!ma_init(&ma, ELEM_SIZE, false), "bpf_mem_alloc_init failed");
	uspace_mem_reset_peak();
	t = now();
	pthread_create(&s.thread, NULL, sample, &s);
	failures = run_cpus(&ma, diff_cpu_cpu, &it);
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	pthread_join(s.thread, NULL);
	t = now() - t;
	/* One line the figures are taken from (README, make uspace-bench) */
	ktap_diag("figure add_del_on_diff_cpu: %.2f k/s per producer, avg mem %.2f MiB, peak mem %.2f MiB (%ld iterations, %d producer(s), %.2f s)",
		  it / t / 1e3 / (nr_threads / 2),
		  (s.n ? s.sum / s.n : uspace_mem_live()) / 1048576.0 - base / 1048576.0,
		  (uspace_mem_peak() - base) / 1048576.0, it, nr_threads / 2, t);
	ma_destroy(&ma);
	KTAP_EXPECT(!failures, "%ld allocations failed", failures);
	EXPECT_NO_LEAK(base);
	return KTAP_PASS;
}

/* --- every unit size, plain and per-cpu ------------------------------- */

static void sizes_cpu(struct cpu_arg *a)
{
	static const int sizes[] = { 1, 8, 9, 16, 24, 56, 88, 96, 100, 120, 184,
				     192, 200, 248, 256, 500, 1000, 1016, 2000,
				     2040, 4000, 4088 };
	void *p[ARRAY_SIZE(sizes)][8], *zero;
	int i, j, r, n = iters(200);

	for (r = 0; r < n; r++) {
		for (i = 0; i < (int)ARRAY_SIZE(sizes); i++)
			for (j = 0; j < 8; j++) {
				p[i][j] = bpf_mem_alloc(a->ma, sizes[i]);
				if (!p[i][j]) {
					a->failures++;
					continue;
				}
				/* The whole object: ASan and Valgrind check the bounds */
				memset(p[i][j], 0x5a, sizes[i]);
			}
		for (i = 0; i < (int)ARRAY_SIZE(sizes); i++)
			for (j = 0; j < 8; j++)
				bpf_mem_free(a->ma, p[i][j]);
	}
	/*
	 * Above 4096 - 8 there is no bucket.  Size 0 is no object either:
	 * 6.1 returns ZERO_SIZE_PTR, 6.12 NULL (its bpf_mem_alloc() checks
	 * !size first); anything else is an object nobody may have.
	 */
	if (bpf_mem_alloc(a->ma, 4089))
		a->failures++;
	zero = bpf_mem_alloc(a->ma, 0);
	if (zero && zero != ZERO_SIZE_PTR)
		a->failures++;
}

static void percpu_cpu(struct cpu_arg *a)
{
	void *p[OPS];
	int i, k, cpu, n = iters(500);

	for (i = 0; i < n; i++) {
		for (k = 0; k < OPS; k++) {
			p[k] = bpf_mem_cache_alloc(a->ma);
			if (!p[k]) {
				a->failures++;
				continue;
			}
			/* As htab's per-cpu values: every CPU's copy, whole */
			for_each_possible_cpu(cpu)
				memset(per_cpu_ptr(*(void **)p[k], cpu), cpu, 40);
		}
		for (k = 0; k < OPS; k++)
			bpf_mem_cache_free(a->ma, p[k]);
	}
}

/* One cache (or the size-0 buckets), @fn on every CPU, then destroy. */
static enum ktap_result run_on_cache(int size, bool percpu, void (*fn)(struct cpu_arg *))
{
	struct bpf_mem_alloc ma = {};
	long base = uspace_mem_live(), failures;

	case_start();
	KTAP_EXPECT(!ma_init(&ma, size, percpu), "bpf_mem_alloc_init(%d, %d) failed", size, percpu);
	failures = run_cpus(&ma, fn, NULL);
	ma_destroy(&ma);
	KTAP_EXPECT(!failures, "%ld failed allocations or wrong results", failures);
	EXPECT_NO_LEAK(base);
	return KTAP_PASS;
}

static enum ktap_result test_all_sizes(void)
{
	return run_on_cache(0, false, sizes_cpu);
}

static enum ktap_result test_percpu(void)
{
	return run_on_cache(40, true, percpu_cpu);
}

/* --- no reuse before a grace period ------------------------------------ */

static long reuses;

/*
 * A reader holds an object across its free, inside one RCU read-side
 * section, while this CPU and the others allocate: none of them may get
 * it (every allocation rewrites the tag) until the section ends.  The
 * OPS frees after it hand its batch on (the port's watermark is 32), and
 * a burst of REUSE_BURST allocations then takes everything that is
 * reusable, newest batches first: an allocator that makes a batch
 * reusable without waiting for a grace period gives the object out again
 * within the burst.
 */
#define REUSE_BURST	(4 * OPS)

/*
 * One CPU's share of the reuse checks: hold an object across its free
 * with @free_obj inside the read section, churn a batch's worth, take a
 * burst, and count the held object coming back.  @alloc and @free_obj are
 * the immediate or the *_free_rcu() pair.
 */
static void reuse_probe(struct cpu_arg *a, void *(*alloc)(struct bpf_mem_alloc *),
			void (*free_obj)(struct bpf_mem_alloc *, void *))
{
	void *churn[OPS], *burst[REUSE_BURST];
	int i, k, n = iters(300);

	for (i = 0; i < n; i++) {
		unsigned long tag;
		void *held;

		rcu_read_lock();
		held = alloc(a->ma);
		if (!held) {
			a->failures++;
			rcu_read_unlock();
			continue;
		}
		tag = tag_of(held);
		free_obj(a->ma, held);
		for (k = 0; k < OPS; k++)
			churn[k] = alloc(a->ma);
		for (k = 0; k < OPS; k++)
			free_obj(a->ma, churn[k]);
		for (k = 0; k < REUSE_BURST; k++)
			burst[k] = alloc(a->ma);
		if (tag_of(held) != tag)
			__atomic_add_fetch(&reuses, 1, __ATOMIC_RELAXED);
		for (k = 0; k < REUSE_BURST; k++)
			free_obj(a->ma, burst[k]);
		rcu_read_unlock();
		a->iterations++;
	}
}

static void reuse_cpu(struct cpu_arg *a)
{
	reuse_probe(a, update_alloc, bpf_mem_cache_free);
}

static enum ktap_result reuse_check(int fault_pct)
{
	struct fault_attr *fa = uspace_fault_attr("fail_bpf_reuse_batch");
	struct bpf_mem_alloc ma = {};
	long base = uspace_mem_live(), failures, rh = uspace_debugfs_read("reuse_rh_batches");

	case_start();
	if (fault_pct && !fa) {
		ktap_skip_reason("this variant has no fail_bpf_reuse_batch");
		return KTAP_SKIP;
	}
	if (fa) {
		atomic_set(&fa->times, -1);
		__atomic_store_n(&fa->probability, fault_pct, __ATOMIC_RELAXED);
	}
	reuses = 0;
	KTAP_EXPECT(!ma_init(&ma, ELEM_SIZE, false), "bpf_mem_alloc_init failed");
	failures = run_cpus(&ma, reuse_cpu, NULL);
	ma_destroy(&ma);
	if (fa)
		__atomic_store_n(&fa->probability, 0, __ATOMIC_RELAXED);
	KTAP_EXPECT(!failures, "%ld allocations failed", failures);
	if (fault_pct)
		KTAP_EXPECT(uspace_debugfs_read("reuse_rh_batches") > rh,
			    "the fault injection sent no batch through reuse_rcu()");
	EXPECT_NO_LEAK(base);
	/*
	 * Last, and the only line that says it: where this case is
	 * expected to fail (tools/report/expectations), the failure must
	 * be this assertion's, so every other check ran and passed first.
	 */
	KTAP_EXPECT(!reuses, "%ld objects handed out again inside the read section that freed them",
		    reuses);
	ktap_diag("0 objects handed out again inside the read section that freed them");
	return KTAP_PASS;
}

static enum ktap_result test_no_reuse_before_gp(void)
{
	return reuse_check(0);
}

static enum ktap_result test_no_reuse_before_gp_fallback(void)
{
	return reuse_check(100);
}

/*
 * The same check through the frees that wait for a grace period before
 * reuse (6.12 on: unit_free_rcu(), free_by_rcu -> waiting_for_gp ->
 * free_by_rcu_ttrace), which a tree without them does not have: weak, so
 * that the test links against every variant and skips where they are
 * NULL.  First a fixed-size cache (bpf_mem_cache_free_rcu()), then the
 * size buckets (bpf_mem_free_rcu()), in the same pattern: the held
 * object, OPS frees more, then a burst that takes all that is reusable.
 */
extern void bpf_mem_cache_free_rcu(struct bpf_mem_alloc *ma, void *ptr) __attribute__((weak));
extern void bpf_mem_free_rcu(struct bpf_mem_alloc *ma, void *ptr) __attribute__((weak));

static bool rcu_sized;		/* the size buckets, not one cache */

static void *rcu_alloc(struct bpf_mem_alloc *ma)
{
	unsigned long flags;
	void *p;

	if (!rcu_sized)
		return update_alloc(ma);
	local_irq_save(flags);
	p = bpf_mem_alloc(ma, ELEM_SIZE);
	local_irq_restore(flags);
	if (p)
		stamp(p, ELEM_SIZE);
	return p;
}

static void rcu_free(struct bpf_mem_alloc *ma, void *p)
{
	if (rcu_sized)
		bpf_mem_free_rcu(ma, p);
	else
		bpf_mem_cache_free_rcu(ma, p);
}

static void reuse_rcu_cpu(struct cpu_arg *a)
{
	reuse_probe(a, rcu_alloc, rcu_free);
}

static enum ktap_result test_no_reuse_before_gp_free_rcu(void)
{
	long base = uspace_mem_live(), failures = 0, it[2] = { 0, 0 }, found[2];
	int sized;

	case_start();
	if (!bpf_mem_cache_free_rcu || !bpf_mem_free_rcu) {
		ktap_skip_reason("this variant has no bpf_mem_cache_free_rcu()/bpf_mem_free_rcu() (6.12 on)");
		return KTAP_SKIP;
	}
	for (sized = 0; sized < 2; sized++) {
		struct bpf_mem_alloc ma = {};

		rcu_sized = sized;
		reuses = 0;
		KTAP_EXPECT(!ma_init(&ma, sized ? 0 : ELEM_SIZE, false), "bpf_mem_alloc_init failed");
		failures += run_cpus(&ma, reuse_rcu_cpu, &it[sized]);
		ma_destroy(&ma);
		found[sized] = reuses;
	}
	rcu_sized = false;
	KTAP_EXPECT(!failures, "%ld allocations failed", failures);
	EXPECT_NO_LEAK(base);
	/* Last, the counts in its own message (see reuse_check()) */
	KTAP_EXPECT(!found[0] && !found[1],
		    "bpf_mem_cache_free_rcu: %ld of %ld, bpf_mem_free_rcu: %ld of %ld iterations handed the object out again inside the read section that freed it",
		    found[0], it[0], found[1], it[1]);
	ktap_diag("bpf_mem_cache_free_rcu: 0 of %ld, bpf_mem_free_rcu: 0 of %ld iterations handed the object out again inside the read section that freed it",
		  it[0], it[1]);
	return KTAP_PASS;
}

/* --- no free before an RCU tasks trace grace period -------------------- */

/*
 * A sleepable program's reader: inside rcu_read_lock_trace() only (no
 * rcu_read_lock()), it frees its object, frees two batches more, and
 * lets RCU grace periods end and their callbacks run, which a sleepable
 * program may sleep through.  The object may be handed out again by
 * then, but its memory must not go back to slab before the tasks trace
 * section ends (free_rcu() after call_rcu_tasks_trace()).
 */
static void trace_reader_cpu(struct cpu_arg *a)
{
	void *churn[OPS];
	int i, k, n = iters(30);

	for (i = 0; i < n; i++) {
		void *held;

		rcu_read_lock_trace();
		held = update_alloc(a->ma);
		if (!held) {
			a->failures++;
			rcu_read_unlock_trace();
			continue;
		}
		uspace_watch(a->cpu, held);
		bpf_mem_cache_free(a->ma, held);
		for (k = 0; k < OPS; k++)
			churn[k] = update_alloc(a->ma);
		for (k = 0; k < OPS; k++)
			bpf_mem_cache_free(a->ma, churn[k]);
		/* The batches' grace period and their callbacks */
		synchronize_rcu();
		rcu_barrier();
		/* A refill that may take the batch back, and its callbacks */
		for (k = 0; k < OPS; k++)
			churn[k] = update_alloc(a->ma);
		for (k = 0; k < OPS; k++)
			bpf_mem_cache_free(a->ma, churn[k]);
		rcu_barrier();
		if (uspace_watched_freed(a->cpu))
			__atomic_add_fetch(&reuses, 1, __ATOMIC_RELAXED);
		else
			(void)tag_of(held);	/* still the allocator's memory */
		uspace_watch(a->cpu, NULL);
		rcu_read_unlock_trace();
	}
}

static enum ktap_result test_no_free_before_trace_gp(void)
{
	struct bpf_mem_alloc ma = {};
	long base = uspace_mem_live(), failures;

	case_start();
	reuses = 0;
	KTAP_EXPECT(!ma_init(&ma, ELEM_SIZE, false), "bpf_mem_alloc_init failed");
	failures = run_cpus(&ma, trace_reader_cpu, NULL);
	ma_destroy(&ma);
	KTAP_EXPECT(!failures, "%ld allocations failed", failures);
	EXPECT_NO_LEAK(base);
	/* Last, the evidence in its own message (see reuse_check()) */
	KTAP_EXPECT(!reuses,
		    "%ld objects given back to slab inside the tasks trace read section that freed them",
		    reuses);
	ktap_diag("0 objects given back to slab inside the tasks trace read section that freed them");
	return KTAP_PASS;
}

/* --- destroy with callbacks in flight ---------------------------------- */

static void free_all_cpu(struct cpu_arg *a)
{
	void *p[3 * OPS];
	int k;

	/* No stamp: in a per-cpu cache the object holds the percpu pointer */
	for (k = 0; k < 3 * OPS; k++)
		p[k] = bpf_mem_cache_alloc(a->ma);
	for (k = 0; k < 3 * OPS; k++)
		bpf_mem_cache_free(a->ma, p[k]);
}

static void free_all_sizes_cpu(struct cpu_arg *a)
{
	void *p[OPS];
	int k;

	for (k = 0; k < OPS; k++)
		p[k] = bpf_mem_alloc(a->ma, 8 << (k % 9));
	for (k = 0; k < OPS; k++)
		bpf_mem_free(a->ma, p[k]);
}

/*
 * Maps destroyed right after their last frees, with RCU callbacks still
 * pending: the deferred path (rcu_barrier()s in the workqueue), the
 * inline one (its kmalloc made to fail), and through reuse_rcu().
 */
static enum ktap_result test_destroy_in_flight(void)
{
	struct fault_attr *fa = uspace_fault_attr("fail_bpf_reuse_batch");
	long base = uspace_mem_live();
	int i, n = iters(40);

	case_start();
	for (i = 0; i < n; i++) {
		struct bpf_mem_alloc ma = {}, ma2 = {};

		if (fa) {
			atomic_set(&fa->times, -1);
			__atomic_store_n(&fa->probability, i % 3 ? 0 : 100, __ATOMIC_RELAXED);
		}
		KTAP_EXPECT(!ma_init(&ma, ELEM_SIZE, i % 2), "bpf_mem_alloc_init failed");
		KTAP_EXPECT(!ma_init(&ma2, 0, false), "bpf_mem_alloc_init failed");
		run_cpus(&ma, free_all_cpu, NULL);
		run_cpus(&ma2, free_all_sizes_cpu, NULL);
		/*
		 * Every other round: let the callbacks finish first (a sleep,
		 * which orders nothing for TSan), so that destroy takes the
		 * fast path and frees caches the callbacks have just used.
		 */
		if (i % 2)
			usleep(20000);
		/* Every fourth round: no memory for the deferred destroy */
		uspace_set_failslab(i % 4 == 3 ? 100 : 0);
		ma_destroy(&ma);
		ma_destroy(&ma2);
		uspace_set_failslab(0);
	}
	if (fa)
		__atomic_store_n(&fa->probability, 0, __ATOMIC_RELAXED);
	EXPECT_NO_LEAK(base);
	return KTAP_PASS;
}

/* --- drain racing with RCU callbacks ---------------------------------- */

/* 8 batches of the port's watermark (32) per CPU, all queued at once. */
#define DRAIN_OBJS	(4 * OPS)

static void many_batches_cpu(struct cpu_arg *a)
{
	void *p[DRAIN_OBJS];
	int k;

	for (k = 0; k < DRAIN_OBJS; k++)
		p[k] = update_alloc(a->ma);
	for (k = 0; k < DRAIN_OBJS; k++)
		bpf_mem_cache_free(a->ma, p[k]);
}

/*
 * A reader of both flavours held from before the frees into the drain:
 * no batch's RCU callback runs before the destroy, and no free_rcu()
 * completes until the callbacks have run inside the drain.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int step;		/* 1: holding; 2: drop rcu; 3: drop trace; 4: done */
} drain_reader = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

static void drain_reader_step(int step)
{
	pthread_mutex_lock(&drain_reader.lock);
	drain_reader.step = step;
	pthread_cond_broadcast(&drain_reader.cond);
	pthread_mutex_unlock(&drain_reader.lock);
}

static void drain_reader_wait(int step)
{
	pthread_mutex_lock(&drain_reader.lock);
	while (drain_reader.step < step)
		pthread_cond_wait(&drain_reader.cond, &drain_reader.lock);
	pthread_mutex_unlock(&drain_reader.lock);
}

static void *drain_reader_thread(void *unused)
{
	uspace_rcu_register();
	rcu_read_lock_trace();
	rcu_read_lock();
	drain_reader_step(1);
	drain_reader_wait(2);
	rcu_read_unlock();
	drain_reader_wait(3);
	rcu_read_unlock_trace();
	uspace_rcu_unregister();
	return NULL;
}

static int drain_hook_runs;

/* At the drain's first kfree(): every pending RCU callback runs, now. */
static void callbacks_inside_drain(void)
{
	drain_hook_runs++;
	drain_reader_step(2);
	rcu_barrier();
	drain_reader_step(3);
}

/*
 * Destroy while batches wait for their grace period, and run their
 * callbacks (on liburcu's thread, another CPU) in the middle of the
 * drain, after its first kfree() has started: they must free their
 * objects themselves (direct_free), or the objects leak.  Variants
 * without reuse lists (no fail_bpf_reuse_batch) skip.
 */
static enum ktap_result test_drain_vs_callbacks(void)
{
	struct fault_attr *fa = uspace_fault_attr("fail_bpf_reuse_batch");
	long base = uspace_mem_live();
	int i, n = iters(20);

	case_start();
	if (!fa) {
		ktap_skip_reason("this variant has no reuse lists (no fail_bpf_reuse_batch)");
		return KTAP_SKIP;
	}
	drain_hook_runs = 0;
	for (i = 0; i < n; i++) {
		struct bpf_mem_alloc ma = {};
		pthread_t t;

		KTAP_EXPECT(!ma_init(&ma, ELEM_SIZE, false), "bpf_mem_alloc_init failed");
		drain_reader.step = 0;
		if (pthread_create(&t, NULL, drain_reader_thread, NULL))
			abort();
		drain_reader_wait(1);
		run_cpus(&ma, many_batches_cpu, NULL);
		uspace_set_kfree_hook(callbacks_inside_drain);
		ma_destroy(&ma);
		uspace_set_kfree_hook(NULL);
		/* Let the reader go, whether or not the hook ran. */
		drain_reader_step(3);
		pthread_join(t, NULL);
	}
	EXPECT_NO_LEAK(base);
	/* Each destroy frees batches, so each must have run the callbacks inside its drain. */
	KTAP_EXPECT(drain_hook_runs == n,
		    "the callbacks ran inside the drain in %d of %d destroys: the others tested nothing",
		    drain_hook_runs, n);
	return KTAP_PASS;
}

/* --- NMI reentrancy ---------------------------------------------------- */

static __thread struct bpf_mem_alloc *nmi_ma;
static __thread void *nmi_stash[8];

/*
 * A perf-event prog in NMI: it hits while the interrupted CPU holds
 * 'active', so its free goes to free_llist_extra and its alloc may fail.
 */
static void nmi_prog(void)
{
	int i;

	for (i = 0; i < 8; i++) {
		if (nmi_stash[i]) {
			bpf_mem_cache_free(nmi_ma, nmi_stash[i]);
			nmi_stash[i] = NULL;
		} else {
			nmi_stash[i] = bpf_mem_cache_alloc(nmi_ma);
		}
		if (i == 3)
			break;
	}
}

static void nmi_cpu(struct cpu_arg *a)
{
	int i;

	nmi_ma = a->ma;
	uspace_set_nmi(nmi_prog, 7);
	overwrite_cpu(a);
	batch_cpu(a);
	uspace_set_nmi(NULL, 0);
	for (i = 0; i < 8; i++)
		bpf_mem_cache_free(a->ma, nmi_stash[i]);
	memset(nmi_stash, 0, sizeof(nmi_stash));
}

static enum ktap_result test_nmi_reentrancy(void)
{
	struct bpf_mem_alloc ma = {};
	long base = uspace_mem_live(), failures;
	unsigned long nmis = uspace_nmis();
	int saved = scale;

	case_start();
	KTAP_EXPECT(!ma_init(&ma, ELEM_SIZE, false), "bpf_mem_alloc_init failed");
	scale = scale / 4 ? scale / 4 : 1;
	failures = run_cpus(&ma, nmi_cpu, NULL);
	scale = saved;
	ma_destroy(&ma);
	ktap_diag("%lu NMIs, %ld allocations failed in the interrupted context", uspace_nmis() - nmis,
		  failures);
	KTAP_EXPECT(uspace_nmis() > nmis, "no NMI ran");
	/* An NMI never makes the interrupted CPU's own allocation fail */
	KTAP_EXPECT(!failures, "%ld allocations failed", failures);
	EXPECT_NO_LEAK(base);
	return KTAP_PASS;
}

/* --- the runner ---------------------------------------------------------- */

static const struct ktap_case cases[] = {
	{ "all_sizes", test_all_sizes },
	{ "percpu", test_percpu },
	{ "overwrite", test_overwrite },
	{ "batch_add_batch_del", test_batch_add_batch_del },
	{ "add_del_on_diff_cpu", test_add_del_on_diff_cpu },
	{ "no_reuse_before_gp", test_no_reuse_before_gp },
	{ "no_reuse_before_gp_fallback", test_no_reuse_before_gp_fallback },
	{ "no_reuse_before_gp_free_rcu", test_no_reuse_before_gp_free_rcu },
	{ "no_free_before_trace_gp", test_no_free_before_trace_gp },
	{ "destroy_in_flight", test_destroy_in_flight },
	{ "drain_vs_callbacks", test_drain_vs_callbacks },
	{ "nmi_reentrancy", test_nmi_reentrancy },
};

static enum ktap_result excluded_case(void)
{
	ktap_skip_reason("run on its own: a tool report is expected on this variant");
	return KTAP_SKIP;
}

int main(int argc, char **argv)
{
	struct ktap_case run[ARRAY_SIZE(cases)];
	int opt, i, j, n = 0, rc;

	while ((opt = getopt(argc, argv, "c:s:d:n:")) != -1) {
		switch (opt) {
		case 'c':
			nr_threads = atoi(optarg);
			break;
		case 's':
			scale = atoi(optarg);
			break;
		case 'd':
			diff_cpu_iters = atoi(optarg);
			break;
		case 'n':
			if (nr_excluded < MAX_EXCLUDED)
				excluded[nr_excluded++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-c CPUS] [-s SCALE%%] [-d DIFF_CPU_ITERS] [-n CASE]... [GLOB]\n",
				argv[0]);
			return 2;
		}
	}
	if (nr_threads < 1 || nr_threads > NR_CPUS || scale < 1) {
		fprintf(stderr, "memalloc_test: -c must be 1..%d and -s at least 1\n", NR_CPUS);
		return 2;
	}
	uspace_nr_cpus = nr_threads;
	uspace_rcu_register();

	for (i = 0; i < (int)ARRAY_SIZE(cases); i++) {
		run[n] = cases[i];
		for (j = 0; j < nr_excluded; j++)
			if (!strcmp(excluded[j], cases[i].name))
				run[n].run = excluded_case;
		n++;
	}
	rc = ktap_run_suite("uspace_memalloc", run, n, optind < argc ? argv[optind] : NULL);
	quiesce();
	uspace_rcu_unregister();
	return rc;
}
