// SPDX-License-Identifier: GPL-2.0
/*
 * map_perf: the hash map tests of samples/bpf/map_perf_test (HASH_KMALLOC,
 * HASH_PREALLOC) and the full preallocated map of Feng Zhou's
 * percpu_freelist patch (upstream's bench bpf-hashmap-full-update).  The
 * figure is upstream's: events per second, per producer (map_perf_test
 * prints one line per process).  The programs are in
 * tools/progs/bench_map_perf.bpf.c.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bench.h"
#include "bench_map_perf.skel.h"
#include "htab_util.h"

#define FULL_BATCH	64

static struct {
	struct bench_map_perf *skel;
	struct bpf_program *prog;
	int max_entries;
	__u64 measured;
} ctx;

static int map_perf_setup(const char *prog, __u32 map_flags, int max_entries)
{
	struct bpf_program *p;
	int err;

	memset(&ctx, 0, sizeof(ctx));
	ctx.skel = bench_map_perf__open();
	if (!ctx.skel) {
		bench_fail("bench_map_perf__open: %s", strerror(errno));
		return -errno;
	}
	bpf_map__set_map_flags(ctx.skel->maps.hash_map, map_flags);
	bpf_map__set_max_entries(ctx.skel->maps.hash_map, max_entries);
	ctx.skel->rodata->full_key_base = max_entries;
	bpf_object__for_each_program(p, ctx.skel->obj)
		bpf_program__set_autoload(p, !strcmp(bpf_program__name(p), prog));
	err = bench_map_perf__load(ctx.skel);
	if (err) {
		bench_fail("bench_map_perf__load: %s", strerror(-err));
		bench_map_perf__destroy(ctx.skel);
		ctx.skel = NULL;
		return err;
	}
	ctx.prog = bpf_object__find_program_by_name(ctx.skel->obj, prog);
	ctx.max_entries = max_entries;
	return 0;
}

static void map_perf_teardown(void)
{
	bench_map_perf__destroy(ctx.skel);
	ctx.skel = NULL;
}

static struct bpf_program *map_perf_prog(int id)
{
	return ctx.prog;
}

static void map_perf_measure(struct bench_sample *s, double seconds)
{
	__u64 events = bench_swap(&ctx.skel->bss->events);

	ctx.measured += events;
	s->value[0] = events / (double)env.producers / seconds;
}

static const struct bench_metric events_per_sec = {
	.name = "events", .label = "events per sec", .unit = "events/s",
};

/* --- hash_map_perf kmalloc / pre-alloc --------------------------------------- */

/* `map_perf_test 4 8 16384`, as in Hou Tao's figures: 16384 entries. */
static int hash_kmalloc_setup(void)
{
	return map_perf_setup("stress_hmap", BPF_F_NO_PREALLOC, 16384);
}

/* `map_perf_test 1`, as in Feng Zhou's figures: map_perf_test's 1000. */
static int hash_prealloc_setup(void)
{
	return map_perf_setup("stress_hmap", 0, 1000);
}

static void stress_hmap_check(void)
{
	__u64 events = ctx.measured + bench_swap(&ctx.skel->bss->events);
	__u64 runs = bench_runs(0, 1);
	__u64 upd_err = bench_read(&ctx.skel->bss->update_err);
	__u64 miss = bench_read(&ctx.skel->bss->lookup_miss);
	__u64 del_err = bench_read(&ctx.skel->bss->delete_err);
	int count = htab_count(bpf_map__fd(ctx.skel->maps.hash_map));

	bench_check(events == runs, "events_match_runs",
		    "programs counted %llu events, %llu runs expected",
		    (unsigned long long)events, (unsigned long long)runs);
	bench_check(runs > 0, "producers_ran", "%llu program runs", (unsigned long long)runs);
	bench_check(!upd_err && !miss && !del_err, "every_operation_succeeds",
		    "of %llu each: %llu updates failed, %llu lookups missed, %llu deletes failed",
		    (unsigned long long)runs * 10, (unsigned long long)upd_err,
		    (unsigned long long)miss, (unsigned long long)del_err);
	bench_check(count == 0, "map_empty", "%d keys left in the map", count);
}

const struct bench bench_hash_kmalloc = {
	.name = "hash_kmalloc",
	.group = "map_perf",
	.title = "hash_map_perf kmalloc",
	.upstream = "map_perf_test 4 8 16384 (HASH_KMALLOC)",
	.about = "10 x update, lookup, delete of one key in a BPF_F_NO_PREALLOC hash per event",
	.metrics = { events_per_sec },
	.nr_metrics = 1,
	.repeat = 64,
	.setup = hash_kmalloc_setup,
	.prog = map_perf_prog,
	.measure = map_perf_measure,
	.check = stress_hmap_check,
	.teardown = map_perf_teardown,
};

const struct bench bench_hash_prealloc = {
	.name = "hash_prealloc",
	.group = "map_perf",
	.title = "hash_map_perf pre-alloc",
	.upstream = "map_perf_test 1 (HASH_PREALLOC)",
	.about = "10 x update, lookup, delete of one key in a preallocated hash per event",
	.metrics = { events_per_sec },
	.nr_metrics = 1,
	.repeat = 64,
	.setup = hash_prealloc_setup,
	.prog = map_perf_prog,
	.measure = map_perf_measure,
	.check = stress_hmap_check,
	.teardown = map_perf_teardown,
};

/* --- full preallocated map --------------------------------------------------- */

static int full_update_setup(void)
{
	__u64 value;
	__u32 key;
	int fd, err;

	err = map_perf_setup("full_update", 0, 1000);
	if (err)
		return err;
	fd = bpf_map__fd(ctx.skel->maps.hash_map);
	for (key = 0; key < (__u32)ctx.max_entries; key++) {
		value = key;
		if (bpf_map_update_elem(fd, &key, &value, BPF_NOEXIST)) {
			err = -errno;
			bench_fail("filling the map, key %u: %s", key, strerror(errno));
			return err;
		}
	}
	return 0;
}

static void full_update_check(void)
{
	__u64 events = ctx.measured + bench_swap(&ctx.skel->bss->events);
	__u64 updates = bench_runs(0, 1) * FULL_BATCH;
	__u64 e2big = bench_read(&ctx.skel->bss->full_e2big);
	__u64 other = bench_read(&ctx.skel->bss->full_other);
	int count = htab_count(bpf_map__fd(ctx.skel->maps.hash_map));

	bench_check(events == updates, "events_match_runs",
		    "programs counted %llu updates, %llu expected",
		    (unsigned long long)events, (unsigned long long)updates);
	bench_check(updates > 0, "producers_ran", "%llu updates", (unsigned long long)updates);
	bench_check(e2big == updates && !other, "every_update_finds_no_free_element",
		    "%llu updates failed with -E2BIG, %llu otherwise (succeeded or other error)",
		    (unsigned long long)e2big, (unsigned long long)other);
	bench_check(count == ctx.max_entries, "map_stays_full", "%d keys in the map, %d expected",
		    count, ctx.max_entries);
}

const struct bench bench_hash_full_update = {
	.name = "hash_full_update",
	.group = "map_perf",
	.title = "hash_map_perf pre-alloc, full map (no free elems)",
	.upstream = "bench bpf-hashmap-full-update (map_perf_test 2048 in the patch)",
	.about = "BPF_ANY updates of an absent key in a full preallocated hash: all -E2BIG",
	.metrics = { events_per_sec },
	.nr_metrics = 1,
	.repeat = 16,
	.setup = full_update_setup,
	.prog = map_perf_prog,
	.measure = map_perf_measure,
	.check = full_update_check,
	.teardown = map_perf_teardown,
};
