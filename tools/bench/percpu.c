// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_ma --percpu as far as 6.1 goes: per-cpu allocations and frees
 * through a BPF_F_NO_PREALLOC per-cpu hash map (every insert takes a
 * per-cpu value from htab->pcpu_ma, every delete gives it back).  Figures
 * as upstream's bench_bpf_ma: allocations and frees per second of time
 * spent in them (M/s, per producer, timed inside the program), and the
 * memory cgroup's usage; plus htab-mem's per-prod-op and the share of
 * inserts that failed.  Those failures are a figure, not an error: the
 * per-cpu values come from the percpu allocator, whose GFP_NOWAIT path
 * only has the pages a workqueue populated in advance, and a burst on a
 * uniprocessor can outrun it (tools/lib/reuse_checks.c measured it on
 * both variants).  The program is in tools/progs/bench_percpu.bpf.c.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bench.h"
#include "bench_percpu.skel.h"
#include "htab_util.h"

#define OP_BATCH	64

static struct {
	struct bench_percpu *skel;
	__u64 ops, allocs, frees, alloc_fails;
} ctx;

static int percpu_setup(void)
{
	int entries = 64 * env.nr_cpus > 8192 ? 64 * env.nr_cpus : 8192;
	int err;

	memset(&ctx, 0, sizeof(ctx));
	ctx.skel = bench_percpu__open();
	if (!ctx.skel) {
		bench_fail("bench_percpu__open: %s", strerror(errno));
		return -errno;
	}
	bpf_map__set_max_entries(ctx.skel->maps.pcpu_htab, entries);
	ctx.skel->rodata->nr_thread = env.producers;
	err = bench_percpu__load(ctx.skel);
	if (err) {
		bench_fail("bench_percpu__load: %s", strerror(-err));
		bench_percpu__destroy(ctx.skel);
		ctx.skel = NULL;
	}
	return err;
}

static void percpu_teardown(void)
{
	bench_percpu__destroy(ctx.skel);
	ctx.skel = NULL;
}

static struct bpf_program *percpu_prog(int id)
{
	return ctx.skel->progs.percpu_alloc_free;
}

/* Operations per microsecond of the time spent in them is M/s. */
static double rate(__u64 cnt, __u64 ns)
{
	return ns ? cnt * 1000.0 / ns : 0;
}

static void percpu_measure(struct bench_sample *s, double seconds)
{
	struct bench_percpu__bss *bss = ctx.skel->bss;
	__u64 ops = bench_swap(&bss->op_cnt);
	__u64 allocs = bench_swap(&bss->alloc_cnt), alloc_ns = bench_swap(&bss->alloc_ns);
	__u64 frees = bench_swap(&bss->free_cnt), free_ns = bench_swap(&bss->free_ns);
	__u64 fails = bench_swap(&bss->update_err);

	ctx.ops += ops;
	ctx.allocs += allocs;
	ctx.frees += frees;
	ctx.alloc_fails += fails;
	s->value[0] = rate(allocs, alloc_ns);
	s->value[1] = rate(frees, free_ns);
	s->value[2] = ops / (double)env.producers / seconds / 1000;
	s->value[3] = allocs + fails ? 100.0 * fails / (allocs + fails) : 0;
}

static void percpu_check(void)
{
	struct bench_percpu__bss *bss = ctx.skel->bss;
	__u64 runs = bench_runs(0, 1), ops, allocs, frees, fails, del_err;
	int count;

	ops = ctx.ops + bench_swap(&bss->op_cnt);
	allocs = ctx.allocs + bench_swap(&bss->alloc_cnt);
	frees = ctx.frees + bench_swap(&bss->free_cnt);
	fails = ctx.alloc_fails + bench_swap(&bss->update_err);
	del_err = bench_read(&bss->delete_err);
	count = htab_count(bpf_map__fd(ctx.skel->maps.pcpu_htab));

	bench_check(ops == runs * 2, "iterations_match_runs",
		    "programs counted %llu iterations, %llu runs x 2 expected",
		    (unsigned long long)ops, (unsigned long long)runs);
	bench_check(runs > 0, "producers_ran", "%llu program runs", (unsigned long long)runs);
	bench_check(allocs + fails == runs * OP_BATCH, "every_insert_counted",
		    "%llu inserts, %llu of them failed (-ENOMEM of the percpu allocator), of %llu",
		    (unsigned long long)(allocs + fails), (unsigned long long)fails,
		    (unsigned long long)runs * OP_BATCH);
	/* A delete fails exactly where its insert did. */
	bench_check(frees == allocs && del_err == fails, "every_insert_freed",
		    "%llu deletes of %llu inserted elements; %llu deletes failed",
		    (unsigned long long)frees, (unsigned long long)allocs,
		    (unsigned long long)del_err);
	bench_check(count == 0, "map_empty", "%d keys left in the map", count);
}

const struct bench bench_percpu_alloc_free = {
	.name = "percpu_alloc_free",
	.group = "bpf_ma",
	.title = "percpu alloc/free (per-cpu hash)",
	.upstream = "bench bpf_ma --percpu (per-cpu hash map instead of bpf_percpu_obj_new)",
	.about = "64 inserts then 64 deletes in a BPF_F_NO_PREALLOC per-cpu hash, timed in BPF",
	.metrics = {
		{ .name = "alloc", .label = "per-prod alloc", .unit = "M/s" },
		{ .name = "free", .label = "free", .unit = "M/s" },
		{ .name = "per_prod_op", .label = "per-prod-op", .unit = "k/s" },
		{ .name = "alloc_fail", .label = "failed inserts", .unit = "%" },
	},
	.nr_metrics = 4,
	.repeat = 16,
	.setup = percpu_setup,
	.prog = percpu_prog,
	.measure = percpu_measure,
	.check = percpu_check,
	.teardown = percpu_teardown,
};
