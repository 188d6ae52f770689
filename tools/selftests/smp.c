// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests that need two CPUs: a reader on one CPU against frees on
 * another, allocations freed on another CPU, per-cpu values and
 * BPF_F_LOCK copies from every CPU.  Each case runs its sides in
 * pinned processes (tools/lib/sides.h).  On a uniprocessor kernel every
 * case skips.
 *
 * A child reports its first failed check in shared memory and the
 * parent prints it as the case's one failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "htab_util.h"
#include "ktap.h"
#include "memcg.h"
#include "rcu_wait.h"
#include "reuse_checks.h"
#include "sides.h"
#include "../progs/smp.h"
#include "smp.skel.h"

#define READ_ONCE_U32(x)	(*(volatile __u32 *)&(x))
#define WRITE_ONCE_U32(x, v)	(*(volatile __u32 *)&(x) = (v))

/* Run tc @prog @repeat times: 0, or -1 when the run failed or was refused (TC_ACT_SHOT). */
static int smp_run(struct bpf_program *prog, int repeat)
{
	__u32 retval;

	return tc_test_run(prog, repeat, &retval) || retval ? -1 : 0;
}

/* --- reader_holds_across_delete ------------------------------------------
 *
 * The contract of a hash map whose deleted elements wait for an RCU
 * grace period (reuse-after-gp): an element that a reader found stays
 * the element it found until the reader's RCU read-side section ends,
 * whatever other CPUs delete and insert meanwhile.  A reader on CPU 0
 * runs hold_across_delete (tools/progs/smp.bpf.c): one program run, one
 * read-side section, that finds the probe key's element and keeps
 * reading its value through that pointer until the writer on CPU 1 is
 * done.  The writer inserted the probe key, then frees a few churn
 * elements (so that a batch of its frees waits for a grace period, G)
 * and runs block_and_delete, itself a read-side section: while it runs
 * G cannot end, and the reader spends HOLD_USER_MS in user mode, where
 * its CPU reports its quiescent state to G, before it starts.  Once the
 * reader holds the element, block_and_delete deletes the key, and the
 * writer then inserts and deletes other keys through the syscall path
 * for HOLD_CHURN_MS, several grace periods.  A correct allocator keeps
 * the element until a grace period that began after the delete, which
 * waits for the reader; one whose free joins G's batch
 * (kernel/mutants/7.2/gp-join-in-flight) hands it out again once G
 * ends, and vanilla's bpf_mem_cache_free() at once.  The case fails when
 * the pointer read another key's value in any run, and when a run did
 * not span the writer's work (then it tested nothing).
 */
#define HOLD_RUNS	30
/*
 * The reader's section must outlast the churn, in one program run: with
 * a JIT (x86, 7.2 but its interp flavor) may_goto ends a loop after a quarter
 * of a second (bpf_check_timed_may_goto(), kernel/bpf/core.c), so the
 * churn takes 150 ms, still several grace periods (Tree RCU on UML ends
 * one in a few 10 ms ticks).
 */
#define HOLD_CHURN_MS	150
#define HOLD_CHURN_KEYS	1024
#define HOLD_MARK	0x401dc0de00000000ULL
#define CHURN_MARK	0xc4c4000000000000ULL
#define CHURN_KEY	0x40000000U
#define HOLD_WAIT_MS	10000
/* Ticks of 10 ms (CONFIG_HZ=100) for the reader's CPU to report a quiescent state. */
#define HOLD_USER_MS	50
#define HOLD_PRE_CHURN	16
#define READER_CPU	0
#define WRITER_CPU	1

enum { SYNC_GO, SYNC_FINISHED };
enum { CNT_BEFORE, CNT_AFTER, CNT_ERR, CNT_CPU };

/* One insert+delete pair of a churn key through the syscall path. */
static int churn_pair(int fd, unsigned long long n)
{
	__u32 key = CHURN_KEY + n % HOLD_CHURN_KEYS;
	__u64 val = CHURN_MARK | key;

	if (bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST))
		return -errno;
	if (bpf_map_delete_elem(fd, &key))
		return -errno;
	return 0;
}

struct hold_ctx {
	struct smp *skel;
	struct shared *s;
};

static int hold_writer(void *arg, int side)
{
	struct hold_ctx *c = arg;
	struct smp *skel = c->skel;
	struct shared *s = c->s;
	int fd = bpf_map__fd(skel->maps.held);
	unsigned long long n = 0, before, errs = 0;
	int run, i;

	for (run = 1; run <= HOLD_RUNS; run++) {
		__u32 key = run;
		__u64 mark = HOLD_MARK | run;
		double t0 = mono_ms();

		while (__atomic_load_n(&s->sync[SYNC_GO], __ATOMIC_SEQ_CST) != run)
			SIDE_EXPECT(s, side, mono_ms() - t0 < HOLD_WAIT_MS, "run %d never started", run);
		SIDE_EXPECT(s, side, !bpf_map_update_elem(fd, &key, &mark, BPF_NOEXIST),
			    "insert key %u: %s", key, strerror(errno));
		/* A batch of frees waiting for its grace period, the last
		 * one freed now: a grace period is in flight.
		 */
		for (i = 0; i < HOLD_PRE_CHURN; i++)
			errs += churn_pair(fd, n++) != 0;
		skel->bss->block_key = key;
		SIDE_EXPECT(s, side, !smp_run(skel->progs.block_and_delete, 1),
			    "run %d: block_and_delete failed", run);
		SIDE_EXPECT(s, side, skel->bss->blocker_saw_holding,
			    "run %d: the reader never held the element", run);
		SIDE_EXPECT(s, side, !skel->bss->blocker_err, "run %d: delete key %u: %d", run, key,
			    skel->bss->blocker_err);
		s->count[side][CNT_CPU] = skel->bss->blocker_cpu;
		before = n;
		t0 = mono_ms();
		while (mono_ms() - t0 < HOLD_CHURN_MS)
			errs += churn_pair(fd, n++) != 0;
		s->count[side][CNT_AFTER] = n - before;
		WRITE_ONCE_U32(skel->bss->writer_done, 1);
		__atomic_store_n(&s->sync[SYNC_FINISHED], run, __ATOMIC_SEQ_CST);
	}
	s->count[side][CNT_ERR] = errs;
	SIDE_EXPECT(s, side, !errs, "%llu of %llu churn insert+delete pairs failed", errs, n);
	return 0;
}

static enum ktap_result reader_holds_across_delete(void)
{
	unsigned long long pairs_min = ~0ULL, pairs_max = 0;
	double ms_min = 1e9, ms_max = 0, t0;
	int run, reused = 0, short_runs = 0, first = 0;
	__u64 first_seen = 0, first_mark = 0, first_ns = 0;
	struct hold_ctx c = { 0 };
	const char *err;
	bool writer_ok;
	pid_t writer;

	if (!two_cpus("a reader on one, deletes and inserts on another"))
		return KTAP_SKIP;
	c.s = shared_new();
	KTAP_EXPECT(c.s, "mmap: %s", strerror(errno));
	c.skel = smp__open_and_load();
	KTAP_EXPECT(c.skel, "cannot load tools/progs/smp.bpf.c: %s", strerror(errno));
	KTAP_EXPECT(!pin_to(READER_CPU), "cannot run on CPU %d", READER_CPU);
	writer = side_start(c.s, 1, WRITER_CPU, hold_writer, &c);
	KTAP_EXPECT(writer > 0, "fork: %s", strerror(errno));
	for (run = 1; run <= HOLD_RUNS; run++) {
		struct smp__bss *b = c.skel->bss;
		unsigned long long pairs;
		double ms;

		WRITE_ONCE_U32(b->reader_holding, 0);
		WRITE_ONCE_U32(b->writer_done, 0);
		WRITE_ONCE_U32(b->blocker_running, 0);
		b->hold_key = run;
		__atomic_store_n(&c.s->sync[SYNC_GO], run, __ATOMIC_SEQ_CST);
		t0 = mono_ms();
		while (!READ_ONCE_U32(b->blocker_running) &&
		       !__atomic_load_n(&c.s->failed, __ATOMIC_SEQ_CST) && mono_ms() - t0 < HOLD_WAIT_MS)
			;
		if (!READ_ONCE_U32(b->blocker_running))
			break;
		/* The writer's CPU now holds the grace period in flight open.
		 * Run in user mode for a few ticks, so that this CPU reports
		 * its quiescent state to it (a tick in user mode is one).
		 */
		t0 = mono_ms();
		while (mono_ms() - t0 < HOLD_USER_MS)
			;
		KTAP_EXPECT(!smp_run(c.skel->progs.hold_across_delete, 1),
			    "run %d: reader's program failed (reader_err %d)", run, b->reader_err);
		t0 = mono_ms();
		while (__atomic_load_n(&c.s->sync[SYNC_FINISHED], __ATOMIC_SEQ_CST) != run &&
		       !__atomic_load_n(&c.s->failed, __ATOMIC_SEQ_CST) && mono_ms() - t0 < HOLD_WAIT_MS)
			usleep(100);
		if (__atomic_load_n(&c.s->sync[SYNC_FINISHED], __ATOMIC_SEQ_CST) != run)
			break;
		KTAP_EXPECT(b->reader_cpu == READER_CPU && b->blocker_cpu == WRITER_CPU,
			    "run %d: reader on CPU %u, writer on CPU %u", run, b->reader_cpu,
			    b->blocker_cpu);
		KTAP_EXPECT(b->reader_before == (HOLD_MARK | run),
			    "run %d: the element read %#llx, not its value %#llx, before the delete",
			    run, (unsigned long long)b->reader_before, HOLD_MARK | run);
		short_runs += !b->reader_saw_done;
		if ((b->reader_changed || b->reader_after != b->reader_before) && !reused++) {
			first = run;
			first_mark = b->reader_before;
			first_seen = b->reader_changed ? b->reader_first_other : b->reader_after;
			first_ns = b->reader_changed_ns;
		}
		ms = b->reader_ns / 1e6;
		ms_min = ms < ms_min ? ms : ms_min;
		ms_max = ms > ms_max ? ms : ms_max;
		pairs = c.s->count[1][CNT_AFTER];
		pairs_min = pairs < pairs_min ? pairs : pairs_min;
		pairs_max = pairs > pairs_max ? pairs : pairs_max;
	}
	writer_ok = side_wait(writer);
	err = first_failure(c.s);
	smp__destroy(c.skel);
	KTAP_EXPECT(writer_ok && !err, "%s", err ?: "the writer process failed");
	KTAP_EXPECT(run > HOLD_RUNS, "run %d did not complete", run);
	ktap_diag("%d runs: read sections of %.1f-%.1f ms on CPU %d, each spanning CPU %d's delete and %llu-%llu insert+delete pairs in %d ms",
		  HOLD_RUNS, ms_min, ms_max, READER_CPU, WRITER_CPU, pairs_min, pairs_max,
		  HOLD_CHURN_MS);
	KTAP_EXPECT(!short_runs,
		    "the reader's section ended before the writer's churn in %d of %d runs: they tested nothing",
		    short_runs, HOLD_RUNS);
	/* The evidence is the failed check and the line it carries. */
	if (!KTAP_CHECK(reused == 0,
			"the element a reader on CPU %d held was handed out again inside its read section in %d of %d runs",
			READER_CPU, reused, HOLD_RUNS)) {
		ktap_diag("  first: run %d, the pointer to the element of value %#llx read %#llx (a key CPU %d inserted after the delete) %.1f ms into the section",
			  first, (unsigned long long)first_mark, (unsigned long long)first_seen,
			  WRITER_CPU, first_ns / 1e6);
		return KTAP_FAIL;
	}
	ktap_diag("the element a reader on CPU %d held was handed out again inside its read section in 0 of %d runs",
		  READER_CPU, HOLD_RUNS);
	return KTAP_PASS;
}

/* --- alloc_free_on_diff_cpu ------------------------------------------------
 *
 * The add_del_on_diff_cpu of Hou Tao's RFC v2 "Introduce
 * BPF_MA_REUSE_AFTER_RCU_GP": a producer on CPU 0 inserts keys
 * 0, 1, 2, ... into a BPF_F_NO_PREALLOC hash map through the syscall
 * path (waiting while the map is full), a consumer on CPU 1 deletes
 * them in the same order: every element is allocated on one CPU and
 * freed on the other.  The memory the map's cgroup is charged stays
 * within what 7.2's allocator (kernel/bpf/memalloc.c) lets it hold.
 * Every element is freed to the consumer's cache and goes back to the
 * cache that allocated it (c->tgt, the producer's): at once in vanilla
 * (free_bulk() past the high watermark), after an RCU grace period in
 * reuse-after-gp (free_by_rcu, waiting_for_gp, __free_by_rcu()); there
 * it lands on free_by_rcu_ttrace or waiting_for_gp_ttrace, from which
 * alloc_bulk() takes objects before any kmalloc(), so the producer's
 * cache allocates new memory only when nothing freed is ready.  At such
 * a moment the objects are the live elements (at most DIFF_KEYS), the
 * two CPUs' free lists (at most high + batch each: a refill tops a list
 * below the low watermark up by a batch, a free past the high watermark
 * raises the irq_work that trims it) and the frees still waiting for
 * their grace period.  How many frees one grace period spans is the
 * host's business, so after every DIFF_WINDOW deletes the consumer
 * waits until the RCU callbacks queued so far have run (an
 * rcu_barrier(), tools/lib/rcu_wait.c; a grace period alone would leave
 * them to a tick that a loaded host delays): then at most two
 * windows of frees wait (the window's own, and the previous window's
 * that stayed on free_by_rcu while the batch before them was in
 * flight).  With U an object's cost (reuse_checks.c: the kmalloc
 * cache's slab_size and the memory cgroup's pointer) and the memory
 * cgroup's charge stock of MEMCG_CHARGE_PAGES per CPU:
 *   (DIFF_KEYS + CPUs * (high + batch) + 2 * DIFF_WINDOW) * U + CPUs * 64 pages.
 */
#define DIFF_KEYS		256
#define DIFF_WINDOW		1024
#define DIFF_WINDOWS		24
#define DIFF_OPS		(DIFF_WINDOW * DIFF_WINDOWS)
#define DIFF_ELEM		(48 + 8 + 8)	/* struct htab_elem, u32 key rounded, u64 value */
/* 7.2's init_refill_work() for units up to 256 bytes */
#define MA_LOW			32
#define MA_HIGH			96
#define MA_BATCH		((MA_HIGH - MA_LOW) / 4 * 3)
#define MEMCG_OBJ_PTR		8
#define MEMCG_CHARGE_PAGES	64
#define PRODUCER_CPU		0
#define CONSUMER_CPU		1

struct diff_ctx {
	struct shared *s;
	int fd;
};

static int diff_producer(void *arg, int side)
{
	struct diff_ctx *c = arg;
	unsigned long long full = 0;
	__u32 key;

	for (key = 0; key < DIFF_OPS; key++) {
		__u64 val = key;

		while (bpf_map_update_elem(c->fd, &key, &val, BPF_NOEXIST)) {
			SIDE_EXPECT(c->s, side, errno == E2BIG, "insert %u: %s", key, strerror(errno));
			SIDE_EXPECT(c->s, side, !__atomic_load_n(&c->s->failed, __ATOMIC_SEQ_CST),
				    "the consumer failed");
			full++;
			sched_yield();
		}
	}
	c->s->count[side][0] = full;
	return 0;
}

static enum ktap_result alloc_free_on_diff_cpu(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, hash_opts, .map_flags = BPF_F_NO_PREALLOC);
	long slab = bpf_ma_unit(DIFF_ELEM + 8), unit = slab_obj_size(slab) + MEMCG_OBJ_PTR;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	long long bound, start, cur, peak = 0, live, max_seen;
	int fd, w, peak_at = 0, gp_err;
	unsigned long long absent = 0;
	struct diff_ctx c = { 0 };
	double t0, secs;
	__u32 key = 0;
	const char *err;
	bool ok;
	pid_t producer;

	if (!two_cpus("adds on one, deletes on another"))
		return KTAP_SKIP;
	bound = (DIFF_KEYS + cpus * (MA_HIGH + MA_BATCH) + 2LL * DIFF_WINDOW) * unit +
		cpus * MEMCG_CHARGE_PAGES * sysconf(_SC_PAGESIZE);
	ktap_diag("bound: (keys %d + CPUs %ld * (high %d + batch %d) + 2 * window %d) * U %ld B (kmalloc-%ld's slab_size + memcg pointer) + charge stock %ld * %d pages = %.3f MiB",
		  DIFF_KEYS, cpus, MA_HIGH, MA_BATCH, DIFF_WINDOW, unit, slab, cpus,
		  MEMCG_CHARGE_PAGES, MiB(bound));
	c.s = shared_new();
	KTAP_EXPECT(c.s, "mmap: %s", strerror(errno));
	KTAP_EXPECT(!memcg_enter("kit-smp-diff-cpu"), "cannot set up a memory cgroup");
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "kit_diff_cpu", 4, 8, DIFF_KEYS, &hash_opts);
	KTAP_EXPECT(fd >= 0, "creating the hash map: %s", strerror(errno));
	c.fd = fd;
	KTAP_EXPECT(!pin_to(CONSUMER_CPU), "cannot run on CPU %d", CONSUMER_CPU);
	start = memcg_current();
	t0 = mono_ms();
	producer = side_start(c.s, 0, PRODUCER_CPU, diff_producer, &c);
	KTAP_EXPECT(producer > 0, "fork: %s", strerror(errno));
	for (w = 0; w < DIFF_WINDOWS && !c.s->failed; w++) {
		__u32 end = key + DIFF_WINDOW;

		while (key < end && !c.s->failed) {
			if (!bpf_map_delete_elem(fd, &key)) {
				key++;
				continue;
			}
			if (errno != ENOENT) {
				side_fail(c.s, 1, "delete %u: %s", key, strerror(errno));
				break;
			}
			absent++;
		}
		gp_err = rcu_wait_callbacks();
		if (gp_err) {
			side_fail(c.s, 1, "rcu_barrier (a dummy netdev's deletion): %s", strerror(-gp_err));
			break;
		}
		cur = memcg_current() - start;
		if (cur > peak) {
			peak = cur;
			peak_at = w;
		}
	}
	secs = (mono_ms() - t0) / 1e3;
	ok = side_wait(producer);
	err = first_failure(c.s);
	live = memcg_current() - start;
	max_seen = memcg_peak() - start;
	close(fd);
	memcg_leave("kit-smp-diff-cpu");
	KTAP_EXPECT(ok && !err, "%s", err ?: "the producer process failed");
	ktap_diag("%d elements added on CPU %d and deleted on CPU %d in %.2f s (%.0f pairs/s; the producer found the map full %llu times, the consumer a key not yet added %llu times)",
		  DIFF_OPS, PRODUCER_CPU, CONSUMER_CPU, secs, DIFF_OPS / secs, c.s->count[0][0], absent);
	ktap_diag("growth: memory.peak %.3f MiB against the bound %.3f MiB; memory.current after the windows' grace periods at most %.3f MiB (window %d of %d), %.3f MiB at the end",
		  MiB(max_seen), MiB(bound), MiB(peak), peak_at, DIFF_WINDOWS, MiB(live));
	KTAP_EXPECT(max_seen <= bound,
		    "memory grew %.3f MiB with adds on CPU %d and deletes on CPU %d, past the design's %.3f MiB",
		    MiB(max_seen), PRODUCER_CPU, CONSUMER_CPU, MiB(bound));
	return KTAP_PASS;
}

/* --- percpu_every_cpu ------------------------------------------------------
 *
 * A BPF_F_NO_PREALLOC per-cpu hash map worked from every CPU at once,
 * each CPU's process on its own range of PCPU_KEYS keys in a round and
 * on the next CPU's range in the next round, so that values allocated
 * on one CPU are freed on another.  In a round a process (1) reads the
 * range the previous round's owner left, every CPU's copy through the
 * syscall path, and deletes it, half from BPF and half through the
 * syscall; (2) inserts the range from BPF: this CPU's copy holds the
 * round's pattern and every other copy must read 0 (a BPF update sets
 * only its own CPU's copy and zeroes the others, even in reused
 * memory); (3) sets every CPU's copy through the syscall path and reads
 * its own from BPF.  Every value read must be this round's (or, in
 * (1), the last round's) pattern for that key and that CPU.
 */
#define PCPU_KEYS	PCPU_BURST
#define PCPU_ROUNDS	40
#define PCPU_RETRIES	100
#define PCPU_PAUSE_US	10000

struct pcpu_ctx {
	struct smp *skel;
	struct shared *s;
	int sides;
	int possible;
};

static void pcpu_fill(struct pcpu_value *v, __u32 key, __u64 round, __u64 cpu)
{
	v->key = key;
	v->round = round;
	v->cpu = cpu;
	v->sum = key ^ round ^ cpu ^ PCPU_SALT;
}

/* Side @side's copy of @key's value on @cpu read @v; 0 when it is @want. */
static int pcpu_compare(struct shared *s, int side, const char *what, __u32 key, int cpu,
			const struct pcpu_value *v, const struct pcpu_value *want)
{
	if (!memcmp(v, want, sizeof(*v)))
		return 0;
	return side_fail(s, side,
			 "%s: key %u's copy of CPU %d read {key %llu, round %llu, cpu %llu, sum %#llx}, not {%llu, %llu, %llu, %#llx}",
			 what, key, cpu, v->key, v->round, v->cpu, v->sum, want->key, want->round,
			 want->cpu, want->sum);
}

static int pcpu_run(struct pcpu_ctx *c, int side, struct bpf_program *prog, __u32 first,
		    __u32 nr, __u64 round)
{
	struct pcpu_args *a = &c->skel->bss->pcpu_args[side];

	a->first = first;
	a->nr = nr;
	a->round = round;
	a->retry = 0;
	if (smp_run(prog, 1))
		return side_fail(c->s, side, "%s on CPU %d failed", bpf_program__name(prog), side);
	return 0;
}

/*
 * Insert [first, first + PCPU_KEYS) from BPF.  An insert from BPF gets
 * -ENOMEM when this CPU's cache of the allocator is empty: the program
 * cannot wait for the refill, and a variant whose frees wait for grace
 * periods empties it faster (its per-cpu values also come back to the
 * percpu allocator late, whose atomic reserve then runs low).  The
 * contract is the refill's, not the insert's: after a pause the inserts
 * that failed so must go in, within PCPU_RETRIES pauses.
 */
static int pcpu_insert_range(struct pcpu_ctx *c, int side, __u32 first, __u64 round)
{
	struct pcpu_result *res = &c->skel->bss->pcpu_result[side];
	unsigned long long want = res->inserted + PCPU_KEYS;
	int tries;

	if (pcpu_run(c, side, c->skel->progs.pcpu_insert, first, PCPU_KEYS, round))
		return -1;
	for (tries = 0; res->inserted < want && tries < PCPU_RETRIES; tries++) {
		usleep(PCPU_PAUSE_US);
		c->skel->bss->pcpu_args[side].retry = 1;
		if (smp_run(c->skel->progs.pcpu_insert, 1))
			return side_fail(c->s, side, "pcpu_insert on CPU %d failed", side);
	}
	SIDE_EXPECT(c->s, side, res->inserted == want && !res->insert_err,
		    "round %llu: %llu of %d inserts from BPF on CPU %d went in after %d pauses of %d us (%llu -ENOMEM, %llu other errors)",
		    (unsigned long long)round, PCPU_KEYS - (want - res->inserted), PCPU_KEYS, side,
		    tries, PCPU_PAUSE_US, (unsigned long long)res->insert_nomem,
		    (unsigned long long)res->insert_err);
	return 0;
}

static int pcpu_side(void *arg, int side)
{
	struct pcpu_ctx *c = arg;
	struct shared *s = c->s;
	struct pcpu_result *res = &c->skel->bss->pcpu_result[side];
	int fd = bpf_map__fd(c->skel->maps.pcpu), r, i;
	struct pcpu_value *buf = calloc(c->possible, sizeof(*buf)), want, zero = { 0 };
	unsigned long long checked = 0;
	__u32 key, first;

	SIDE_EXPECT(s, side, buf, "out of memory");
	for (r = 1; r <= PCPU_ROUNDS; r++) {
		first = (side + r) % c->sides * PCPU_KEYS;
		if (r > 1) {
			/* (1) the previous owner's values, then delete them */
			for (key = first; key < first + PCPU_KEYS; key++) {
				SIDE_EXPECT(s, side, !bpf_map_lookup_elem(fd, &key, buf),
					    "round %d: lookup %u: %s", r, key, strerror(errno));
				for (i = 0; i < c->possible; i++) {
					pcpu_fill(&want, key, r - 1, i);
					if (pcpu_compare(s, side, "left by the last round", key, i, &buf[i], &want))
						return -1;
					checked++;
				}
			}
			if (pcpu_run(c, side, c->skel->progs.pcpu_delete, first, PCPU_KEYS / 2, r))
				return -1;
			for (key = first + PCPU_KEYS / 2; key < first + PCPU_KEYS; key++)
				SIDE_EXPECT(s, side, !bpf_map_delete_elem(fd, &key),
					    "round %d: delete %u: %s", r, key, strerror(errno));
			for (key = first; key < first + PCPU_KEYS; key++)
				SIDE_EXPECT(s, side, bpf_map_lookup_elem(fd, &key, buf) && errno == ENOENT,
					    "round %d: key %u still there after its delete", r, key);
		}
		/* (2) insert from BPF: this CPU's copy, the others zero */
		if (pcpu_insert_range(c, side, first, r) ||
		    pcpu_run(c, side, c->skel->progs.pcpu_check, first, PCPU_KEYS, r))
			return -1;
		for (key = first; key < first + PCPU_KEYS; key++) {
			SIDE_EXPECT(s, side, !bpf_map_lookup_elem(fd, &key, buf),
				    "round %d: lookup %u: %s", r, key, strerror(errno));
			for (i = 0; i < c->possible; i++) {
				pcpu_fill(&want, key, r, i);
				if (pcpu_compare(s, side, "inserted from BPF", key, i, &buf[i],
						 i == side ? &want : &zero))
					return -1;
				checked++;
			}
		}
		/* (3) every CPU's copy through the syscall path, read back from BPF */
		for (key = first; key < first + PCPU_KEYS; key++) {
			for (i = 0; i < c->possible; i++)
				pcpu_fill(&buf[i], key, r, i);
			SIDE_EXPECT(s, side, !bpf_map_update_elem(fd, &key, buf, BPF_EXIST),
				    "round %d: update %u: %s", r, key, strerror(errno));
		}
		if (pcpu_run(c, side, c->skel->progs.pcpu_check, first, PCPU_KEYS, r))
			return -1;
		SIDE_EXPECT(s, side, res->inserted == (__u64)r * PCPU_KEYS && !res->insert_err,
			    "round %d: %llu inserts from BPF on CPU %d, %llu failed", r,
			    (unsigned long long)res->inserted, side, (unsigned long long)res->insert_err);
		SIDE_EXPECT(s, side, !res->missing && !res->wrong,
			    "round %d: BPF on CPU %d found %llu keys missing and %llu wrong; first wrong: key %llu {key %llu, round %llu, cpu %llu}",
			    r, side, (unsigned long long)res->missing, (unsigned long long)res->wrong,
			    (unsigned long long)res->first_wrong_key,
			    (unsigned long long)res->first_wrong.key,
			    (unsigned long long)res->first_wrong.round,
			    (unsigned long long)res->first_wrong.cpu);
		if (!barrier(s, c->sides))
			return -1;
	}
	s->count[side][0] = checked;
	free(buf);
	return 0;
}

static enum ktap_result percpu_every_cpu(void)
{
	struct pcpu_ctx c = { 0 };
	unsigned long long copies = 0, bpf_checked = 0, nomem = 0;
	pid_t pids[MAX_SIDES];
	bool ok = true;
	const char *err;
	__u32 key;
	int i;

	if (!two_cpus("a per-cpu hash map updated and deleted from every CPU"))
		return KTAP_SKIP;
	c.sides = sysconf(_SC_NPROCESSORS_ONLN);
	c.sides = c.sides > MAX_SIDES ? MAX_SIDES : c.sides;
	c.possible = libbpf_num_possible_cpus();
	KTAP_EXPECT(c.possible >= c.sides, "libbpf_num_possible_cpus: %d", c.possible);
	c.s = shared_new();
	KTAP_EXPECT(c.s, "mmap: %s", strerror(errno));
	c.skel = smp__open_and_load();
	KTAP_EXPECT(c.skel, "cannot load tools/progs/smp.bpf.c: %s", strerror(errno));
	for (i = 0; i < c.sides; i++)
		pids[i] = side_start(c.s, i, i, pcpu_side, &c);
	for (i = 0; i < c.sides; i++) {
		ok &= side_wait(pids[i]);
		copies += c.s->count[i][0];
		bpf_checked += c.skel->bss->pcpu_result[i].checked;
		nomem += c.skel->bss->pcpu_result[i].insert_nomem;
	}
	err = first_failure(c.s);
	if (ok && !err)
		for (key = 0; key < (__u32)c.sides * PCPU_KEYS; key++)
			if (bpf_map_delete_elem(bpf_map__fd(c.skel->maps.pcpu), &key))
				ok = false;
	smp__destroy(c.skel);
	KTAP_EXPECT(ok && !err, "%s", err ?: "a side failed, or the last round's keys were not all there");
	ktap_diag("%d CPUs, %d rounds of %d keys each: %llu per-cpu copies read through the syscall path and %llu values from BPF, all as written; %llu inserts from BPF met -ENOMEM and went in after a pause",
		  c.sides, PCPU_ROUNDS, PCPU_KEYS, copies, bpf_checked, nomem);
	return KTAP_PASS;
}

/* --- lock_update_vs_delete -------------------------------------------------
 *
 * BPF_F_LOCK copies a value under the element's bpf_spin_lock: when
 * every writer of a key uses it, every value read under the lock is
 * whole.  A BPF_F_LOCK update finds the element without the bucket
 * lock and copies into it under its lock; if another CPU deletes the
 * element meanwhile and an insert is handed the same memory at once,
 * the insert must copy under that lock too (upstream's "bpf: Fix torn
 * writes in htab BPF_F_LOCK": alloc_htab_elem()'s
 * copy_map_value_locked()), or the two copies mix in the new element.
 * A program on CPU 0 updates LOCK_KEYS keys with BPF_F_LOCK, one on
 * CPU 1 deletes them and inserts them again with BPF_NOEXIST |
 * BPF_F_LOCK, for LOCK_MS each, both reading every key back under its
 * lock after writing it (tools/progs/smp.bpf.c): every value read must
 * hold one writer's stamp in all its LOCK_WORDS words.
 *
 * A variant whose deletes wait for grace periods holds every element CPU
 * 1 deleted until an RCU and an RCU Tasks Trace grace period have passed:
 * about 120000 deletes a second of kmalloc-1k objects here, over 100 MiB
 * in flight on a slow day, which in a 128 MiB guest is the OOM killer.
 * The case runs in its own memory cgroup and CPU 1 waits, whenever more
 * than LOCK_PENDING is charged beyond the map, until half of it has come
 * back: memory, not time, bounds what is in flight, and vanilla (whose
 * deletes are reused at once) never waits.  While it waits CPU 1 inserts
 * and deletes one key the programs do not use every LOCK_KICK_MS: 7.2's
 * allocator moves the objects freed while a grace period was running
 * (free_by_rcu) to the next one only from the irq_work of a later free
 * on that CPU (__free_by_rcu() does not start it, unlike __free_rcu()
 * for the Tasks Trace stage), so a CPU that stops freeing keeps them.
 * Memory that does not come back within LOCK_DRAIN_MS fails the case.
 */
#define LOCK_MS		1500
#define LOCK_REPEAT	64
#define LOCK_PENDING	(8LL << 20)
#define LOCK_DRAIN_MS	10000
#define LOCK_KICK_MS	20

struct lock_ctx {
	struct smp *skel;
	struct shared *s;
	long long start;
};

/* CPU 1's wait for the elements it deleted to come back; 0 or -1. */
static int lock_drain(struct lock_ctx *c, int side)
{
	int fd = bpf_map__fd(c->skel->maps.locked), ms;
	long long held = memcg_current() - c->start, left = held;
	struct lock_value v = { 0 };
	__u32 key = LOCK_KEYS;

	if (held <= LOCK_PENDING)
		return 0;
	c->s->count[side][0]++;
	for (ms = 0; ms < LOCK_DRAIN_MS && left > LOCK_PENDING / 2; ms += LOCK_KICK_MS) {
		SIDE_EXPECT(c->s, side, !bpf_map_update_elem(fd, &key, &v, BPF_ANY) &&
			    !bpf_map_delete_elem(fd, &key),
			    "insert and delete of key %u: %s", key, strerror(errno));
		usleep(LOCK_KICK_MS * 1000);
		left = memcg_current() - c->start;
	}
	SIDE_EXPECT(c->s, side, left <= LOCK_PENDING / 2,
		    "%.3f MiB charged beyond the map still %.3f MiB after %d ms: the deleted elements do not come back",
		    MiB(held), MiB(left), LOCK_DRAIN_MS);
	return 0;
}

static int lock_side(void *arg, int side)
{
	struct lock_ctx *c = arg;
	struct bpf_program *prog = side ? c->skel->progs.lock_recycle : c->skel->progs.lock_update;
	double t0;

	if (!barrier(c->s, 2))
		return -1;
	t0 = mono_ms();
	while (mono_ms() - t0 < LOCK_MS) {
		SIDE_EXPECT(c->s, side, !__atomic_load_n(&c->s->failed, __ATOMIC_SEQ_CST),
			    "the other side failed");
		SIDE_EXPECT(c->s, side, !smp_run(prog, LOCK_REPEAT),
			    "%s on CPU %d failed", bpf_program__name(prog), side);
		if (side && lock_drain(c, side))
			return -1;
	}
	return 0;
}

static enum ktap_result lock_update_vs_delete(void)
{
	struct lock_stats stats[2], *u = &stats[0], *r = &stats[1];
	struct lock_ctx c = { 0 };
	pid_t pids[2];
	const char *err;
	bool ok;
	int i;

	if (!two_cpus("BPF_F_LOCK updates on one, deletes and inserts on another"))
		return KTAP_SKIP;
	c.s = shared_new();
	KTAP_EXPECT(c.s, "mmap: %s", strerror(errno));
	KTAP_EXPECT(!memcg_enter("kit-smp-lock"), "cannot set up a memory cgroup");
	c.skel = smp__open_and_load();
	KTAP_EXPECT(c.skel, "cannot load tools/progs/smp.bpf.c: %s", strerror(errno));
	c.start = memcg_current();
	for (i = 0; i < 2; i++)
		pids[i] = side_start(c.s, i, i, lock_side, &c);
	ok = side_wait(pids[0]);
	ok &= side_wait(pids[1]);
	err = first_failure(c.s);
	memcpy(stats, c.skel->bss->lock_stats, sizeof(stats));
	ktap_diag("memory charged beyond the map: peak %.3f MiB; CPU 1 waited %llu times for more than %.3f MiB of deleted elements to come back",
		  MiB(memcg_peak() - c.start), c.s->count[1][0], MiB(LOCK_PENDING));
	smp__destroy(c.skel);
	memcg_leave("kit-smp-lock");
	ktap_diag("%d keys for %d ms: CPU 0 %llu BPF_F_LOCK updates, CPU 1 %llu deletes and BPF_F_LOCK inserts (%llu found the key back already); -ENOMEM %llu + %llu",
		  LOCK_KEYS, LOCK_MS, (unsigned long long)u->writes, (unsigned long long)r->writes,
		  (unsigned long long)r->reinserted, (unsigned long long)u->nomem,
		  (unsigned long long)r->nomem);
	ktap_diag("values read under their lock: %llu + %llu, %llu + %llu torn, %llu + %llu found no key",
		  (unsigned long long)u->reads, (unsigned long long)r->reads,
		  (unsigned long long)u->torn, (unsigned long long)r->torn,
		  (unsigned long long)u->absent, (unsigned long long)r->absent);
	KTAP_EXPECT(ok && !err, "%s", err ?: "a side failed");
	for (i = 0; i < 2; i++) {
		struct lock_stats *st = i ? r : u;

		KTAP_EXPECT(!st->errors, "CPU %d: %llu map updates failed, the first with %lld", i,
			    (unsigned long long)st->errors, (long long)st->first_error);
	}
	KTAP_EXPECT(u->writes && r->writes && u->reads && r->reads, "a side wrote or read nothing");
	for (i = 0; i < 2; i++) {
		struct lock_stats *st = i ? r : u;

		/* The evidence is the failed check and the line it carries. */
		if (!KTAP_CHECK(!st->torn, "%llu of %llu values read under their lock on CPU %d were torn",
				(unsigned long long)st->torn, (unsigned long long)st->reads, i)) {
			ktap_diag("  first: key %llu, word 0 %#llx, word %llu %#llx (stamps (CPU + 1) << 48 | run)",
				  (unsigned long long)st->torn_key, (unsigned long long)st->torn_word0,
				  (unsigned long long)st->torn_at, (unsigned long long)st->torn_word);
			return KTAP_FAIL;
		}
	}
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	{ "reader_holds_across_delete", reader_holds_across_delete },
	{ "alloc_free_on_diff_cpu", alloc_free_on_diff_cpu },
	{ "percpu_every_cpu", percpu_every_cpu },
	{ "lock_update_vs_delete", lock_update_vs_delete },
};

KTAP_SUITE_MAIN("smp", cases)
