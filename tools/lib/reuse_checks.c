// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of the reuse-after-RCU-GP semantics, shared by the reuse
 * selftest suite (tools/selftests/reuse.c) and the long stress run
 * (tools/stress/reuse_stress.c).  See reuse_checks.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "htab_util.h"
#include "ktap.h"
#include "memcg.h"
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

enum ktap_result reuse_no_immediate_reuse(void)
{
	struct htab_params p = {
		.type = BPF_MAP_TYPE_HASH,
		.flags = BPF_F_NO_PREALLOC,
		.value_size = sizeof(__u64),
		/* alive at a time: the probe key, the fill and one churn key */
		.max_entries = PROBE_FILL + 2,
	};
	struct htab *skel = htab_open(&p);
	int i, fd, reused = 0;
	__u64 first_seen = 0;

	KTAP_EXPECT(skel, "cannot load the program");
	fd = bpf_map__fd(skel->maps.htab);
	skel->bss->probe_fill = PROBE_FILL;
	skel->bss->probe_churn = PROBE_CHURN;
	for (i = 0; i < PROBE_ATTEMPTS; i++) {
		__u32 key = i;
		__u64 mark = PROBE_MARK + i;

		KTAP_EXPECT(!bpf_map_update_elem(fd, &key, &mark, BPF_NOEXIST),
			    "insert probe key %u: %s", key, strerror(errno));
		skel->bss->probe_key = key;
		skel->bss->probe_fill_ok = 0;
		skel->bss->probe_churn_ok = 0;
		KTAP_EXPECT(!htab_test_run(skel->progs.reuse_probe, 1, NULL),
			    "probe run failed (probe_err %lld)", (long long)skel->bss->probe_err);
		KTAP_EXPECT(skel->bss->probe_churn_ok == PROBE_CHURN,
			    "%llu of %d insert+delete pairs succeeded",
			    (unsigned long long)skel->bss->probe_churn_ok, PROBE_CHURN);
		KTAP_EXPECT(skel->bss->probe_fill_ok == PROBE_FILL, "%llu of %d inserts succeeded",
			    (unsigned long long)skel->bss->probe_fill_ok, PROBE_FILL);
		if (skel->bss->probe_seen != mark && !reused++)
			first_seen = skel->bss->probe_seen;
	}
	htab__destroy(skel);
	/* The evidence is the failed check and the line it carries. */
	if (!KTAP_CHECK(reused == 0, "deleted element reused within the same program run in %d of %d runs",
			reused, PROBE_ATTEMPTS)) {
		ktap_diag("  first: the old pointer read %#llx, the value of a key inserted after the delete",
			  (unsigned long long)first_seen);
		return KTAP_FAIL;
	}
	ktap_diag("deleted element reused within the same program run in 0 of %d runs", PROBE_ATTEMPTS);
	return KTAP_PASS;
}

/*
 * A steady overwrite (htab-mem's "overwrite": every update frees the
 * element it replaces) keeps memory bounded: frees are reused after a
 * grace period.  The run is cut in OVERWRITE_CHUNKS test runs and the
 * memory cgroup read after each: memory must stop growing (the mean of
 * the second half's readings may not exceed the first half's peak by
 * more than OVERWRITE_CREEP) and stay under OVERWRITE_BOUND.  A mean
 * against a peak: where frees wait for grace periods without reuse
 * (kmalloc-rcu, free-after-gp) the readings are a saw-tooth of the
 * callbacks in flight, 0 to 19 MiB here, whose highest tooth may fall in
 * either half.  An allocator that neither reused nor freed would grow by
 * the element size (96 bytes with its header) per update, 96 MiB over the
 * run, linearly: its second half's mean is about 1.5 times the first
 * half's peak, 27 MiB above it.  The creep allowed is 4 MiB, far below
 * that: on a loaded host grace periods end later and reuse-after-gp's
 * plateau was seen to settle a few MiB higher mid-run (4.2 to 7.5 MiB).
 */
#define OVERWRITE_KEYS		1024
#define OVERWRITE_CHUNKS	16
#define OVERWRITE_CHUNK_RUNS	1024
#define OVERWRITE_OPS		(OVERWRITE_CHUNKS * OVERWRITE_CHUNK_RUNS * 64)
#define OVERWRITE_BOUND		(24 << 20)
#define OVERWRITE_CREEP		(4 << 20)

enum ktap_result reuse_overwrite_memory_bounded(void)
{
	struct htab_params p = {
		.type = BPF_MAP_TYPE_HASH,
		.flags = BPF_F_NO_PREALLOC,
		.value_size = sizeof(__u64),
		.max_entries = OVERWRITE_KEYS,
		.burst = 64,
		.key_range = OVERWRITE_KEYS,
	};
	long long start, cur, first_half = 0, second_half = 0, first_sum = 0, second_sum = 0;
	char trace[OVERWRITE_CHUNKS * 8 + 1], *t = trace;
	struct htab *skel;
	int i;

	KTAP_EXPECT(!memcg_enter("kit-reuse-overwrite"), "cannot set up a memory cgroup");
	skel = htab_open(&p);
	KTAP_EXPECT(skel, "cannot load the program");
	/* Fill the key range first: from then on every update replaces. */
	KTAP_EXPECT(!htab_test_run(skel->progs.overwrite, OVERWRITE_KEYS / 64, NULL), "fill failed");
	start = memcg_current();
	for (i = 0; i < OVERWRITE_CHUNKS; i++) {
		KTAP_EXPECT(!htab_test_run(skel->progs.overwrite, OVERWRITE_CHUNK_RUNS, NULL),
			    "test run failed");
		cur = memcg_current() - start;
		if (i < OVERWRITE_CHUNKS / 2) {
			first_half = cur > first_half ? cur : first_half;
			first_sum += cur;
		} else {
			second_half = cur > second_half ? cur : second_half;
			second_sum += cur;
		}
		t += snprintf(t, trace + sizeof(trace) - t, " %.1f", MiB(cur));
	}
	ktap_diag("%d overwrites of %d keys: memory.current growth (MiB) per %d:%s",
		  OVERWRITE_OPS, OVERWRITE_KEYS, OVERWRITE_CHUNK_RUNS * 64, trace);
	ktap_diag("growth, mean (peak): first half %.2f (%.2f) MiB, second half %.2f (%.2f) MiB, memory.peak %.2f MiB",
		  MiB(first_sum) / (OVERWRITE_CHUNKS / 2), MiB(first_half),
		  MiB(second_sum) / (OVERWRITE_CHUNKS / 2), MiB(second_half), MiB(memcg_peak()));
	KTAP_EXPECT(skel->bss->updates_ok == OVERWRITE_OPS + OVERWRITE_KEYS,
		    "%llu updates succeeded, %llu -ENOMEM",
		    (unsigned long long)skel->bss->updates_ok,
		    (unsigned long long)skel->bss->updates_nomem);
	htab__destroy(skel);
	KTAP_EXPECT(second_sum / (OVERWRITE_CHUNKS / 2) <= first_half + OVERWRITE_CREEP,
		    "memory still growing in the second half of the run");
	KTAP_EXPECT(second_half < OVERWRITE_BOUND, "memory grew past %.0f MiB", MiB(OVERWRITE_BOUND));
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
	const unsigned int nr_maps = sizeof(maps) / sizeof(maps[0]);
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
	};
	const char *name = type == BPF_MAP_TYPE_HASH ? "hash" : "percpu_hash";
	struct htab *skel = htab_open(&p);
	void *val = calloc(1, htab_value_buf_size(&p));
	unsigned long long nomem = 0;
	__u32 key;
	int fd;

	KTAP_EXPECT(skel && val, "cannot set up %s value_size %u", name, value_size);
	fd = bpf_map__fd(skel->maps.htab);
	/* BPF inserts 0..63, user space 64..127. */
	while (skel->bss->runs < 64 / p.burst)
		KTAP_EXPECT(!htab_test_run(skel->progs.update_burst, 1, NULL), "update run failed");
	KTAP_EXPECT(skel->bss->updates_ok == 64,
		    "%s value_size %u: %llu BPF updates ok, %llu -ENOMEM, %llu other errors",
		    name, value_size, (unsigned long long)skel->bss->updates_ok,
		    (unsigned long long)skel->bss->updates_nomem,
		    (unsigned long long)skel->bss->updates_other_err);
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

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
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
#define STATS_DIR	"/sys/kernel/debug/bpf_mem_alloc"

static long long read_stat(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", STATS_DIR, name);
	return sysfs_read_ll(path);
}

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
