// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of the reuse-after-RCU-GP semantics, shared by the reuse
 * selftest suite (tools/selftests/reuse.c) and the long stress run
 * (tools/stress/reuse_stress.c).  See reuse_checks.h.
 */
#define _GNU_SOURCE	/* sched_getcpu(), CPU_SET() */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "clock.h"
#include "htab_util.h"
#include "ktap.h"
#include "memcg.h"
#include "rcu_wait.h"
#include "reuse_checks.h"
#include "sysfs.h"

#define PROBE_ATTEMPTS	100
/*
 * Inside each run: delete the probe key, PROBE_CHURN insert+delete pairs
 * of other keys (two batches of reuse-after-gp's watermark, 32: the
 * probe element's batch is handed on), then PROBE_FILL inserts, more
 * than can be reusable by then: a variant that reuses a batch without a
 * grace period hands the probe element out again (see the README's
 * "Mutation tests").  Both at most MAX_PROBE_OPS (tools/progs/htab.bpf.c).
 */
#define PROBE_CHURN	64
#define PROBE_FILL	256
#define PROBE_MARK	0x01dc0de0ULL
/*
 * A run whose old pointer read another key's value proves reuse,
 * whatever else happened in it, and counts as one of the PROBE_ATTEMPTS
 * runs even when its inserts met -ENOMEM: an allocator that hands out an
 * object still waiting for its grace period only when its cache runs dry
 * reuses in exactly those runs (kernel/mutants/6.1/reuse-under-pressure).
 * A run that saw no reuse and fell short with -ENOMEM alone proves
 * nothing either way (the fill may not have reached the probe element)
 * and says nothing against the allocator: inserts do not wait for a
 * refill (GFP_NOWAIT, from a program or the syscall), and per-cpu values
 * come from the percpu allocator's atomic reserve, which only its
 * balance work refills (reuse-after-gp@7.2 on two CPUs, whose freed
 * values wait for grace periods, empties it within a few runs).  Such a
 * run, or a probe key's insert refused with -ENOMEM, is done again after
 * a pause, at most PROBE_RETRIES times in all.  The diagnostics count
 * the short runs of both kinds.
 */
#define PROBE_RETRIES	100
#define PROBE_PAUSE_US	10000

/*
 * The probe on a map of @type: a plain hash element, or the per-cpu value
 * of a per-cpu hash element (its own bpf_mem_alloc, htab->pcpu_ma, whose
 * frees a variant may route differently from the element's).  @what
 * names what the old pointer points at, in the evidence line.
 */
static enum ktap_result no_immediate_reuse_of(enum bpf_map_type type, const char *what)
{
	struct htab_params p = {
		.type = type,
		.flags = BPF_F_NO_PREALLOC,
		.value_size = sizeof(__u64),
		/* alive at a time: the probe key, the fill and one churn key */
		.max_entries = PROBE_FILL + 2,
	};
	struct htab *skel = htab_open(&p);
	size_t n = htab_value_buf_size(&p) / sizeof(__u64);
	/* runs that saw reuse, and how many of them fell short */
	int reused = 0, reused_short = 0;
	/* what was done again: short runs without reuse, probe-key inserts */
	int short_again = 0, key_again = 0;
	__u64 first_seen = 0, churn_ok, fill_ok, nomem, *marks;
	int i, fd, err;
	size_t c;

	KTAP_EXPECT(skel, "cannot load the program");
	marks = calloc(n, sizeof(*marks));
	if (!marks) {
		htab__destroy(skel);
		ktap_diag("out of memory");
		return KTAP_FAIL;
	}
	fd = bpf_map__fd(skel->maps.htab);
	skel->bss->probe_fill = PROBE_FILL;
	skel->bss->probe_churn = PROBE_CHURN;
	for (i = 0; i < PROBE_ATTEMPTS; i++) {
		__u32 key = i;
		__u64 mark = PROBE_MARK + i;

		/* every CPU's copy of a per-cpu value: the run's CPU reads its own */
		for (c = 0; c < n; c++)
			marks[c] = mark;
		while ((err = bpf_map_update_elem(fd, &key, marks, BPF_NOEXIST)) &&
		       errno == ENOMEM && short_again + key_again < PROBE_RETRIES) {
			key_again++;
			usleep(PROBE_PAUSE_US);
		}
		if (!KTAP_CHECK(!err, "insert probe key %u: %s (done again: %d short runs, %d inserts; at most %d)",
				key, strerror(errno), short_again, key_again, PROBE_RETRIES))
			break;
		skel->bss->probe_key = key;
		skel->bss->probe_fill_ok = 0;
		skel->bss->probe_churn_ok = 0;
		skel->bss->probe_nomem = 0;
		if (!KTAP_CHECK(!htab_test_run(skel->progs.reuse_probe, 1, NULL),
				"run %d: probe run failed (probe_err %lld)", i,
				(long long)skel->bss->probe_err))
			break;
		churn_ok = skel->bss->probe_churn_ok;
		fill_ok = skel->bss->probe_fill_ok;
		nomem = skel->bss->probe_nomem;
		/* Proof of reuse, short or not: judged before the shortfall. */
		if (skel->bss->probe_seen != mark) {
			if (!reused++)
				first_seen = skel->bss->probe_seen;
			reused_short += churn_ok != PROBE_CHURN || fill_ok != PROBE_FILL;
			continue;
		}
		if (nomem && nomem == PROBE_CHURN + PROBE_FILL - churn_ok - fill_ok &&
		    short_again + key_again < PROBE_RETRIES) {
			short_again++;
			i--;
			usleep(PROBE_PAUSE_US);
			continue;
		}
		if (!KTAP_CHECK(churn_ok == PROBE_CHURN,
				"run %d: %llu of %d insert+delete pairs succeeded (%llu -ENOMEM; done again: %d short runs, %d inserts; at most %d)",
				i, (unsigned long long)churn_ok, PROBE_CHURN, (unsigned long long)nomem,
				short_again, key_again, PROBE_RETRIES) ||
		    !KTAP_CHECK(fill_ok == PROBE_FILL,
				"run %d: %llu of %d inserts succeeded (%llu -ENOMEM; done again: %d short runs, %d inserts; at most %d)",
				i, (unsigned long long)fill_ok, PROBE_FILL, (unsigned long long)nomem,
				short_again, key_again, PROBE_RETRIES))
			break;
	}
	htab__destroy(skel);
	free(marks);
	if (i < PROBE_ATTEMPTS)
		return KTAP_FAIL;
	/* The evidence is the failed check and the lines it carries. */
	if (!KTAP_CHECK(reused == 0, "deleted %s reused within the same program run in %d of %d runs",
			what, reused, PROBE_ATTEMPTS)) {
		ktap_diag("  first: the old pointer read %#llx, the value of a key inserted after the delete",
			  (unsigned long long)first_seen);
		ktap_diag("  short: %d of these %d runs fell short of their inserts (counted: a reuse seen is proof); done again: %d short runs without reuse, %d probe-key inserts",
			  reused_short, reused, short_again, key_again);
		return KTAP_FAIL;
	}
	ktap_diag("deleted %s reused within the same program run in 0 of %d runs", what, PROBE_ATTEMPTS);
	ktap_diag("done again after a %d us pause: %d runs that fell short with -ENOMEM and saw no reuse, %d probe-key inserts refused with -ENOMEM (at most %d in all)",
		  PROBE_PAUSE_US, short_again, key_again, PROBE_RETRIES);
	return KTAP_PASS;
}

enum ktap_result reuse_no_immediate_reuse(void)
{
	return no_immediate_reuse_of(BPF_MAP_TYPE_HASH, "element");
}

/*
 * A per-cpu hash element's value comes from a second allocator and is
 * freed beside the element: a variant may wait for the grace period
 * with the one and not the other (kernel/mutants/6.12/percpu-free-immediate).
 */
enum ktap_result reuse_no_immediate_percpu_reuse(void)
{
	return no_immediate_reuse_of(BPF_MAP_TYPE_PERCPU_HASH, "per-cpu value");
}

/*
 * A steady overwrite (htab-mem's "overwrite": every update frees the
 * element it replaces) keeps memory within what the design lets the
 * allocator hold, and gives it back once the overwrites stop, while the
 * map lives.  The bound is derived, not measured from an earlier run
 * (reuse-after-gp, kernel/patches/reuse-after-gp): a unit of U bytes
 * (the element with the allocator's llist header, rounded up to its
 * kmalloc cache, at that cache's slab_size, which red zones and KASAN
 * make larger, plus the memory cgroup's pointer per slab object) has
 * the watermark w = min(max(8192 / U, 1), 32), the batch is w, and per
 * CPU the caches hold at most free_llist 2w (a refill tops a list at w
 * up by a batch), free_by_rcu w (a batch is handed on at w) and one
 * batch parked on waiting_for_gp for the reuse_rcu() fallback: 4w.
 * Every other freed object is in a batch waiting for its RCU grace
 * period, or past it on reuse_ready/wait_for_free, where alloc_bulk()
 * takes it before any kmalloc() and free_rcu() gives the rest back after
 * an RCU tasks trace grace period.  How many frees one grace period
 * spans is the host's business (Tiny RCU ends it at a context switch,
 * Tree RCU after ~25 ms), so the test makes it measurable: the
 * overwrites run in windows of OVERWRITE_WINDOW frees, and after each
 * window user space waits until the RCU callbacks queued so far have
 * run, hence their grace periods passed (wait_grace_period(): an
 * rcu_barrier(), tools/lib/rcu_wait.c).  Objects
 * outside the caches then number at most two windows of frees: the
 * window's own, and the previous window's not yet reused (one callback
 * per cache at a time, as on 6.12 and the fallback, may leave them a
 * window more).  Objects past their RCU grace period that wait for RCU
 * tasks trace (6.12's and 7.2's free_by_rcu_ttrace and
 * waiting_for_gp_ttrace) add nothing: alloc_bulk() takes them before any
 * kmalloc(), so when memory grows they are none.  All of this is per
 * CPU: a batch is handed on only from its own CPU's irq_work (frees on a
 * CPU while its batch's grace period runs wait there for that CPU's next
 * free or refill), and objects past the grace period go to the cache of the CPU
 * that allocated them (c->tgt).  A writer that moves to another CPU
 * leaves up to two windows behind on the one it left, for as long as it
 * stays away, so the writer is pinned to one CPU: the bound is that of
 * one stream of frees, as on a uniprocessor.  Frees on one CPU of what
 * another allocated are another check's business.  Added: the
 * bpf_reuse_batch structs of
 * those batches, and the memory cgroup's charge granularity
 * (MEMCG_CHARGE_BATCH pages per CPU precharged into its stock).
 * During the run every reading must be within
 *   CPUs * 4w * U + 2 * window * U + (2 * window / w) * batch struct + CPUs * 64 pages.
 * Then the overwrites stop but for a few small rounds that hand the last
 * batches on, and the grace periods pass: the allocator may keep only
 * its caches and one batch,
 *   CPUs * 4w * U + w * U + CPUs * 64 pages,
 * which a port that never hands reuse_ready/wait_for_free back to slab
 * exceeds by about a window of frees.  Variants that reuse at once
 * (vanilla) or free every object after its grace period (kmalloc-rcu,
 * free-after-gp, 6.12) hold less than reuse-after-gp in both phases.
 * The debugfs batch counters, where the variant has them, show how many
 * batches each window queued.
 */
#define OVERWRITE_KEYS		1024
#define OVERWRITE_BURST		64
#define OVERWRITE_WINDOW_RUNS	256
#define OVERWRITE_WINDOW	(OVERWRITE_WINDOW_RUNS * OVERWRITE_BURST)
#define OVERWRITE_WINDOWS	64
#define OVERWRITE_OPS		(OVERWRITE_WINDOWS * OVERWRITE_WINDOW)
/* After the run: rounds of one burst each, OVERWRITE_SETTLE_MS apart. */
#define OVERWRITE_SETTLE_ROUNDS	60
#define OVERWRITE_SETTLE_MS	50
/* sizeof(struct htab_elem) on 64-bit 6.1 and 6.12 (hash_node, lru_node, hash) */
#define HTAB_ELEM_HDR		48
#define LLIST_NODE_SZ		8
#define MEMCG_OBJ_PTR		8
#define MEMCG_CHARGE_PAGES	64
/* struct bpf_reuse_batch (rcu_head, head, c): kmalloc-32 */
#define REUSE_BATCH_SZ		(32 + MEMCG_OBJ_PTR)

/* The kmalloc cache bpf_mem_alloc serves @size from (bpf_mem_cache_idx). */
long bpf_ma_unit(long size)
{
	static const long sizes[] = { 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		if (size <= sizes[i])
			return sizes[i];
	return size;
}

/*
 * What one object of kmalloc-@cache costs in the slab: its slab_size,
 * which the debug flavors' red zones and KASAN's metadata make larger
 * than the cache's name (the memory cgroup charges that much).
 */
long slab_obj_size(long cache)
{
	static const char *const names[] = { "kmalloc-cg-%ld", "kmalloc-%ld" };
	char path[128], name[32];
	long long v;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(name, sizeof(name), names[i], cache);
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/slab_size", name);
		v = sysfs_read_ll(path);
		if (v > 0)
			return v;
	}
	return cache;
}

static long bpf_ma_watermark(long unit)
{
	long w = 32 * 256 / unit;

	return w < 1 ? 1 : w > 32 ? 32 : w;
}

/* reuse-after-gp@6.1's batch counters */
#define STATS_DIR	"/sys/kernel/debug/bpf_mem_alloc"

static long long read_stat(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", STATS_DIR, name);
	return sysfs_read_ll(path);
}

/* How long the waits for grace periods took, for the diagnostics. */
struct gp_waits {
	long long ns;
	int n;
};

/*
 * Wait for the grace periods of the batches queued so far and for their
 * callbacks.  A grace period alone (synchronize_rcu(), through an
 * ARRAY_OF_MAPS update or membarrier()) leaves the callbacks to a later
 * tick of their CPU, which a loaded host delays: the bound would then
 * hold only as long as a sleep outlasts that.
 */
static int wait_grace_period(struct gp_waits *w)
{
	long long t0 = mono_ns();
	int err = rcu_wait_callbacks();

	w->ns += mono_ns() - t0;
	w->n++;
	return err;
}

/* Keep the calling thread on the CPU it runs on; @old gets its mask. */
static int pin_to_this_cpu(cpu_set_t *old, int *cpu)
{
	cpu_set_t one;

	if (sched_getaffinity(0, sizeof(*old), old))
		return -errno;
	*cpu = sched_getcpu();
	if (*cpu < 0)
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(*cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -errno : 0;
}

static long long batches_queued(void)
{
	long long d = read_stat("dyn_reuse_batches"), r = read_stat("reuse_rh_batches");

	return d < 0 || r < 0 ? -1 : d + r;
}

enum ktap_result reuse_overwrite_memory_bounded(void)
{
	struct htab_params p = {
		.type = BPF_MAP_TYPE_HASH,
		.flags = BPF_F_NO_PREALLOC,
		.value_size = sizeof(__u64),
		.max_entries = OVERWRITE_KEYS,
		.burst = OVERWRITE_BURST,
		.key_range = OVERWRITE_KEYS,
	};
	long elem = HTAB_ELEM_HDR + 8 /* u32 key, rounded */ + 8 /* u64 value */;
	long slab = bpf_ma_unit(elem + LLIST_NODE_SZ), unit = slab_obj_size(slab) + MEMCG_OBJ_PTR;
	long w = bpf_ma_watermark(slab), cpus = sysconf(_SC_NPROCESSORS_CONF);
	long long cache, inflight, structs, charge, bound_run, bound_idle;
	long long start, cur, peak = 0, settled = 0, b0, b1, max_batches = -1;
	int i, peak_at = -1, rounds = 0;
	char trace[OVERWRITE_WINDOWS * 7 + 1], *t = trace;
	struct gp_waits waits = { 0 };
	struct htab *skel;
	cpu_set_t old_mask;
	int cpu = -1;

	cpus = cpus < 1 ? 1 : cpus;
	cache = cpus * 4 * w * unit;
	inflight = 2LL * OVERWRITE_WINDOW * unit;
	structs = 2LL * OVERWRITE_WINDOW / w * REUSE_BATCH_SZ;
	charge = cpus * MEMCG_CHARGE_PAGES * sysconf(_SC_PAGESIZE);
	bound_run = cache + inflight + structs + charge;
	bound_idle = cache + w * unit + charge;
	ktap_diag("bound: element %ld B, unit U %ld B (kmalloc-%ld's slab_size %ld + memcg pointer), watermark w = batch = %ld, %ld CPU(s)",
		  elem, unit, slab, unit - MEMCG_OBJ_PTR, w, cpus);
	ktap_diag("bound while overwriting: caches CPUs*4w*U %.3f + in flight 2*%d*U %.3f + batch structs %.3f + charge stock CPUs*%d pages %.3f = %.3f MiB",
		  MiB(cache), OVERWRITE_WINDOW, MiB(inflight), MiB(structs), MEMCG_CHARGE_PAGES, MiB(charge),
		  MiB(bound_run));
	ktap_diag("bound once the grace periods passed: caches %.3f + one batch w*U %.3f + charge stock %.3f = %.3f MiB",
		  MiB(cache), MiB(w * unit), MiB(charge), MiB(bound_idle));

	KTAP_EXPECT(!pin_to_this_cpu(&old_mask, &cpu), "sched_setaffinity: %s", strerror(errno));
	ktap_diag("writer pinned to CPU %d", cpu);
	KTAP_EXPECT(!memcg_enter("kit-reuse-overwrite"), "cannot set up a memory cgroup");
	skel = htab_open(&p);
	KTAP_EXPECT(skel, "cannot load the program");
	/* Fill the key range first: from then on every update replaces. */
	KTAP_EXPECT(!htab_test_run(skel->progs.overwrite, OVERWRITE_KEYS / OVERWRITE_BURST, NULL),
		    "fill failed");
	KTAP_EXPECT(!wait_grace_period(&waits), "rcu_barrier (a dummy netdev's deletion): %s",
		    strerror(errno));
	start = memcg_current();
	for (i = 0; i < OVERWRITE_WINDOWS; i++) {
		b0 = batches_queued();
		KTAP_EXPECT(!htab_test_run(skel->progs.overwrite, OVERWRITE_WINDOW_RUNS, NULL),
			    "test run failed");
		cur = memcg_current() - start;
		b1 = batches_queued();
		if (b0 >= 0 && b1 >= 0 && b1 - b0 > max_batches)
			max_batches = b1 - b0;
		if (i == 0 || cur > peak) {
			peak = cur;
			peak_at = i;
		}
		if (i % 2 == 0)
			t += snprintf(t, trace + sizeof(trace) - t, " %.2f", MiB(cur));
		KTAP_EXPECT(!wait_grace_period(&waits), "rcu_barrier (a dummy netdev's deletion): %s",
			    strerror(errno));
	}
	ktap_diag("%d overwrites of %d keys in windows of %d: memory.current growth (MiB), every other window:%s",
		  OVERWRITE_OPS, OVERWRITE_KEYS, OVERWRITE_WINDOW, trace);
	if (max_batches >= 0)
		ktap_diag("batches queued in one window: at most %lld (each of w = %ld objects or more; the window freed %d)",
			  max_batches, w, OVERWRITE_WINDOW);
	/* The overwrites stop; a burst now and then hands the last batches on. */
	while (rounds < OVERWRITE_SETTLE_ROUNDS) {
		rounds++;
		KTAP_EXPECT(!htab_test_run(skel->progs.overwrite, 1, NULL), "test run failed");
		KTAP_EXPECT(!wait_grace_period(&waits), "rcu_barrier (a dummy netdev's deletion): %s",
			    strerror(errno));
		usleep(OVERWRITE_SETTLE_MS * 1000);
		settled = memcg_current() - start;
		if (settled <= bound_idle)
			break;
	}
	ktap_diag("grace period waits (rcu_barrier): %d, mean %.2f ms",
		  waits.n, waits.ns / 1e6 / (waits.n ? waits.n : 1));
	ktap_diag("growth: peak %.3f MiB (window %d) against %.3f; after the run %.3f MiB against %.3f (%d rounds of %d ms); memory.peak %.2f MiB",
		  MiB(peak), peak_at, MiB(bound_run), MiB(settled), MiB(bound_idle), rounds,
		  OVERWRITE_SETTLE_MS, MiB(memcg_peak()));
	KTAP_EXPECT(skel->bss->updates_ok == (__u64)OVERWRITE_OPS + OVERWRITE_KEYS + (__u64)rounds * OVERWRITE_BURST,
		    "%llu updates succeeded, %llu -ENOMEM",
		    (unsigned long long)skel->bss->updates_ok,
		    (unsigned long long)skel->bss->updates_nomem);
	htab__destroy(skel);
	KTAP_EXPECT(!sched_setaffinity(0, sizeof(old_mask), &old_mask), "sched_setaffinity: %s",
		    strerror(errno));
	KTAP_EXPECT(peak <= bound_run, "memory grew %.3f MiB while overwriting, past the design's %.3f MiB",
		    MiB(peak), MiB(bound_run));
	KTAP_EXPECT(settled <= bound_idle,
		    "memory not given back while the map lives: %.3f MiB held after the grace periods, the design allows %.3f MiB",
		    MiB(settled), MiB(bound_idle));
	return KTAP_PASS;
}

/*
 * Free many elements and destroy the map at once, so the destroy path
 * runs while reuse and free callbacks are still queued; repeat for
 * plain and per-cpu maps and small, medium and page-sized values.
 * Afterwards the cgroup's memory must come back to where it started: a
 * leak of the objects in flight would be several MiB.
 */
#define DESTROY_ROUNDS	20
#define DESTROY_KEYS	512
#define DESTROY_SLACK	(1 << 20)
/*
 * Per-cpu values come from the percpu allocator, which serves
 * GFP_NOWAIT requests only from pages populated in advance by a
 * workqueue; a program run cannot wait for that, so per-cpu maps get
 * small bursts, one per run, as the allocator is designed for.
 */
#define PCPU_BURST	16

/* -ENOMEM seen (and retried) while filling maps for the destroy check. */
static unsigned long long fill_nomem;

/*
 * Fill every key, then overwrite each once, so that about half of the
 * frees are in flight when the map goes.  Per-cpu values come from the
 * percpu allocator, whose GFP_NOWAIT path only uses pages populated in
 * advance by a workqueue, and a burst on a uniprocessor can outrun it
 * (on both variants).  That -ENOMEM is the allocator working as
 * designed, not what this check is about: back off for a millisecond
 * (the workqueue runs) and carry on, counting it.
 */
static int fill_and_drop(enum bpf_map_type type, __u32 value_size)
{
	struct htab_params p = {
		.type = type,
		.flags = BPF_F_NO_PREALLOC,
		.value_size = value_size,
		.max_entries = DESTROY_KEYS,
		.burst = PCPU_BURST,
		.key_range = DESTROY_KEYS,
	};
	struct htab *skel = htab_open(&p);
	__u64 nomem = 0;
	__u32 key;
	int i, fd;

	if (!skel)
		return -1;
	fd = bpf_map__fd(skel->maps.htab);
	for (i = 0; i < 100 * DESTROY_KEYS / PCPU_BURST; i++) {
		if (skel->bss->updates_ok >= 2 * DESTROY_KEYS && htab_count(fd) == DESTROY_KEYS)
			break;
		if (htab_test_run(skel->progs.overwrite, 1, NULL))
			goto err;
		if (skel->bss->updates_nomem > nomem) {
			nomem = skel->bss->updates_nomem;
			usleep(1000);
		}
	}
	fill_nomem += nomem;
	if (htab_count(fd) != DESTROY_KEYS) {
		ktap_diag("only %d of %d keys inserted, %llu -ENOMEM",
			  htab_count(fd), DESTROY_KEYS, (unsigned long long)nomem);
		goto err;
	}
	for (key = 0; key < DESTROY_KEYS; key++)
		if (bpf_map_delete_elem(fd, &key)) {
			ktap_diag("delete %u: %s", key, strerror(errno));
			goto err;
		}
	htab__destroy(skel);
	return 0;
err:
	htab__destroy(skel);
	return -1;
}

enum ktap_result reuse_destroy_with_callbacks_in_flight(void)
{
	static const struct {
		enum bpf_map_type type;
		__u32 value_size;
	} maps[] = {
		{ BPF_MAP_TYPE_HASH, 8 },
		{ BPF_MAP_TYPE_HASH, 256 },
		{ BPF_MAP_TYPE_HASH, 4000 },
		{ BPF_MAP_TYPE_PERCPU_HASH, 8 },
		{ BPF_MAP_TYPE_PERCPU_HASH, 256 },
	};
	const unsigned int nr_maps = ARRAY_SIZE(maps);
	long long start, end;
	unsigned int r, m;

	KTAP_EXPECT(!memcg_enter("kit-reuse-destroy"), "cannot set up a memory cgroup");
	fill_nomem = 0;
	/* One round first, so the baseline includes the slab and percpu
	 * pages every kind of map leaves charged to the cgroup.
	 */
	for (m = 0; m < nr_maps; m++)
		KTAP_EXPECT(!fill_and_drop(maps[m].type, maps[m].value_size), "warm-up round failed");
	start = memcg_wait_below(0, 500);
	for (r = 0; r < DESTROY_ROUNDS; r++)
		for (m = 0; m < nr_maps; m++)
			KTAP_EXPECT(!fill_and_drop(maps[m].type, maps[m].value_size),
				    "round %u, %s, value_size %u failed", r,
				    maps[m].type == BPF_MAP_TYPE_HASH ? "hash" : "percpu_hash",
				    maps[m].value_size);
	end = memcg_wait_below(start + DESTROY_SLACK, 5000);
	ktap_diag("%d maps destroyed with frees in flight: memory.current %.2f -> %.2f MiB (slack %.0f MiB); %llu -ENOMEM retried while filling",
		  DESTROY_ROUNDS * nr_maps, MiB(start), MiB(end), MiB(DESTROY_SLACK), fill_nomem);
	KTAP_EXPECT(end <= start + DESTROY_SLACK, "memory did not come back: %.2f MiB more",
		    MiB(end - start));
	return KTAP_PASS;
}

/* The first key below @nr that @fd lacks, or @nr; @buf takes the values. */
static __u32 first_missing(int fd, __u32 nr, void *buf)
{
	__u32 key;

	for (key = 0; key < nr; key++)
		if (bpf_map_lookup_elem(fd, &key, buf))
			break;
	return key;
}

/*
 * Updates and deletes from BPF and from user space, every size class of
 * plain hash maps and the per-cpu sizes up to 512 bytes (the limit
 * bpf_global_percpu_ma later adopted upstream).
 */
static enum ktap_result update_delete(enum bpf_map_type type, __u32 value_size)
{
	struct htab_params p = {
		.type = type,
		.flags = BPF_F_NO_PREALLOC,
		.value_size = value_size,
		.max_entries = 256,
		.burst = type == BPF_MAP_TYPE_HASH ? 64 : PCPU_BURST,
		.key_range = 64,
	};
	const char *name = type == BPF_MAP_TYPE_HASH ? "hash" : "percpu_hash";
	struct htab *skel = htab_open(&p);
	void *val = calloc(1, htab_value_buf_size(&p));
	unsigned long long nomem = 0;
	unsigned int nomem_bursts = 0, bursts = 0;
	__u32 key;
	int fd;

	KTAP_EXPECT(skel && val, "cannot set up %s value_size %u", name, value_size);
	fd = bpf_map__fd(skel->maps.htab);
	/*
	 * BPF inserts 0..63, user space 64..127.  A per-cpu burst can meet
	 * the -ENOMEM fill_and_drop() describes (seen on 7.2 with 2 CPUs
	 * beside a build: "percpu_hash value_size 512: 54 BPF updates ok,
	 * 10 -ENOMEM"): back off a millisecond and run a burst again from
	 * the first key still missing (overwrite keeps its keys below
	 * key_range), for at most 100 bursts that met it.
	 */
	while ((key = first_missing(fd, 64, val)) < 64) {
		unsigned long long before = skel->bss->updates_nomem;

		KTAP_EXPECT(bursts++ < 64 / p.burst + 100, "%s value_size %u: key %u still "
			    "missing after %u bursts", name, value_size, key, bursts - 1);
		skel->bss->next_key = key;
		KTAP_EXPECT(!htab_test_run(skel->progs.overwrite, 1, NULL), "update run failed");
		KTAP_EXPECT(!skel->bss->updates_other_err, "%s value_size %u: %llu BPF updates "
			    "failed, not with -ENOMEM", name, value_size,
			    (unsigned long long)skel->bss->updates_other_err);
		if (skel->bss->updates_nomem == before)
			continue;
		KTAP_EXPECT(type == BPF_MAP_TYPE_PERCPU_HASH && ++nomem_bursts <= 100,
			    "%s value_size %u: %llu BPF updates ok, %llu -ENOMEM in %u bursts",
			    name, value_size, (unsigned long long)skel->bss->updates_ok,
			    (unsigned long long)skel->bss->updates_nomem, nomem_bursts);
		usleep(1000);
	}
	if (nomem_bursts)
		ktap_diag("%s value_size %u: BPF bursts met -ENOMEM %u times (%llu updates), "
			  "run again after 1 ms", name, value_size, nomem_bursts,
			  (unsigned long long)skel->bss->updates_nomem);
	for (key = 64; key < 128; key++) {
		int tries = 0;

		/*
		 * As in fill_and_drop(): a per-cpu value comes from the percpu
		 * allocator's pages populated in advance by its workqueue, which
		 * a burst of syscalls can outrun (seen on free-after-gp and
		 * percpu-marks under load: "update 88: Cannot allocate
		 * memory").  Back off a millisecond so that it runs, count it,
		 * and fail if 100 tries do not get the element.
		 */
		while (bpf_map_update_elem(fd, &key, val, BPF_NOEXIST)) {
			KTAP_EXPECT(errno == ENOMEM && type == BPF_MAP_TYPE_PERCPU_HASH && tries < 100,
				    "%s value_size %u: update %u: %s (%d retries)", name,
				    value_size, key, strerror(errno), tries);
			tries++;
			nomem++;
			usleep(1000);
		}
	}
	if (nomem)
		ktap_diag("%s value_size %u: %llu -ENOMEM retried after 1 ms", name, value_size, nomem);
	/* BPF deletes 0..63 (PCPU_BURST at a time is enough), user space 64..127. */
	while (skel->bss->deletes_ok < 64) {
		__u64 before = skel->bss->deletes_ok;

		KTAP_EXPECT(!htab_test_run(skel->progs.lookup_delete, 1, NULL), "delete run failed");
		KTAP_EXPECT(skel->bss->deletes_ok > before, "%s value_size %u: %llu BPF deletes",
			    name, value_size, (unsigned long long)skel->bss->deletes_ok);
	}
	for (key = 64; key < 128; key++)
		KTAP_EXPECT(!bpf_map_delete_elem(fd, &key),
			    "%s value_size %u: delete %u: %s", name, value_size, key, strerror(errno));
	KTAP_EXPECT(htab_count(fd) == 0, "map not empty");
	free(val);
	htab__destroy(skel);
	return KTAP_PASS;
}

enum ktap_result reuse_update_delete_all_sizes(void)
{
	static const __u32 sizes[] = { 8, 16, 64, 128, 192, 256, 512, 1024, 2048, 4000, 8192 };
	unsigned int s;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		if (update_delete(BPF_MAP_TYPE_HASH, sizes[s]) != KTAP_PASS)
			return KTAP_FAIL;
		if (sizes[s] <= 512 && update_delete(BPF_MAP_TYPE_PERCPU_HASH, sizes[s]) != KTAP_PASS)
			return KTAP_FAIL;
	}
	return KTAP_PASS;
}

/*
 * The fallback path: with the kit patch's fail_bpf_reuse_batch fault
 * injection on, every struct bpf_reuse_batch allocation fails and the
 * frees go through the per-cache reuse_rh and reuse_rcu().  The same
 * cases must hold, and the fallback must really have been taken
 * (the patch counts its batches in debugfs).
 */
#define FAIL_DIR	"/sys/kernel/debug/fail_bpf_reuse_batch"

int reuse_fail_batches(bool on)
{
	int err = 0;

	err = err ?: sysfs_write(FAIL_DIR "/interval", "1");
	err = err ?: sysfs_write(FAIL_DIR "/times", "-1");
	err = err ?: sysfs_write(FAIL_DIR "/probability", on ? "100" : "0");
	return err;
}

bool reuse_fallback_available(void)
{
	return !access(FAIL_DIR, F_OK);
}

enum ktap_result reuse_through_fallback(enum ktap_result (*test)(void))
{
	long long before, after;
	enum ktap_result r;

	if (!reuse_fallback_available()) {
		ktap_skip_reason("no %s: this variant has no reuse_rcu() fallback to force", FAIL_DIR);
		return KTAP_SKIP;
	}
	before = read_stat("reuse_rh_batches");
	KTAP_EXPECT(before >= 0, "cannot read %s/reuse_rh_batches", STATS_DIR);
	KTAP_EXPECT(!reuse_fail_batches(true), "cannot turn on %s", FAIL_DIR);
	r = test();
	KTAP_EXPECT(!reuse_fail_batches(false), "cannot turn off %s", FAIL_DIR);
	after = read_stat("reuse_rh_batches");
	ktap_diag("batches through reuse_rcu(): %lld, dyn_reuse_rcu() batches so far: %lld",
		  after - before, read_stat("dyn_reuse_batches"));
	KTAP_EXPECT(after > before, "the reuse_rcu() fallback was never taken");
	return r;
}
