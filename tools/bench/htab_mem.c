// SPDX-License-Identifier: GPL-2.0
/*
 * htab-mem (upstream: tools/testing/selftests/bpf/benchs/bench_htab_mem.c,
 * Hou Tao): a BPF_F_NO_PREALLOC hash map with 4-byte keys and 8-byte
 * values, max(8192, 64 * nr_cpus) entries, each producer working on its
 * own keys (from its number, stepping by the number of producers).  The
 * figure is upstream's: 64-operation iterations per second per producer
 * (per-prod-op, k/s), with the memory cgroup's average memory.current
 * and memory.peak.  One program run is one upstream syscall; the
 * programs are in tools/progs/bench_htab_mem.bpf.c.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bench.h"
#include "bench_htab_mem.skel.h"
#include "htab_util.h"

#define OP_BATCH	64
#define VALUE_SIZE	8

static struct {
	struct bench_htab_mem *skel;
	/* The producers' program; add_del_on_diff_cpu: the adders'. */
	struct bpf_program *prog;
	/* add_del_on_diff_cpu: the deleters' program. */
	struct bpf_program *del_prog;
	/* op_cnt added per program run (batch_add_batch_del: 2). */
	int ops_per_run;
	/* op_cnt taken by measure() so far. */
	__u64 measured;
	/* add_del_on_diff_cpu: one barrier per pair, and the pair's state. */
	pthread_barrier_t pair_sync[BENCH_MAX_PRODUCERS / 2];
	bool pair_done[BENCH_MAX_PRODUCERS / 2];
	bool pair_failed[BENCH_MAX_PRODUCERS / 2];
	int nr_pairs;
} ctx;

static int max_entries(void)
{
	return 64 * env.nr_cpus > 8192 ? 64 * env.nr_cpus : 8192;
}

static int htab_mem_setup(const char *prog, const char *del_prog, int ops_per_run)
{
	struct bpf_program *p;
	int err;

	memset(&ctx, 0, sizeof(ctx));
	ctx.skel = bench_htab_mem__open();
	if (!ctx.skel) {
		bench_fail("bench_htab_mem__open: %s", strerror(errno));
		return -errno;
	}
	bpf_map__set_value_size(ctx.skel->maps.htab, VALUE_SIZE);
	/* As upstream: different CPUs can operate on different subsets. */
	bpf_map__set_max_entries(ctx.skel->maps.htab, max_entries());
	ctx.skel->rodata->nr_thread = env.producers;
	bpf_object__for_each_program(p, ctx.skel->obj) {
		const char *name = bpf_program__name(p);

		bpf_program__set_autoload(p, !strcmp(name, prog) ||
					  (del_prog && !strcmp(name, del_prog)));
	}
	err = bench_htab_mem__load(ctx.skel);
	if (err) {
		bench_fail("bench_htab_mem__load: %s", strerror(-err));
		bench_htab_mem__destroy(ctx.skel);
		ctx.skel = NULL;
		return err;
	}
	ctx.prog = bpf_object__find_program_by_name(ctx.skel->obj, prog);
	if (del_prog)
		ctx.del_prog = bpf_object__find_program_by_name(ctx.skel->obj, del_prog);
	ctx.ops_per_run = ops_per_run;
	return 0;
}

static void htab_mem_teardown(void)
{
	int i;

	for (i = 0; i < ctx.nr_pairs; i++)
		pthread_barrier_destroy(&ctx.pair_sync[i]);
	bench_htab_mem__destroy(ctx.skel);
	ctx.skel = NULL;
}

static struct bpf_program *htab_mem_prog(int id)
{
	return ctx.prog;
}

static void htab_mem_measure(struct bench_sample *s, double seconds)
{
	__u64 ops = bench_swap(&ctx.skel->bss->op_cnt);

	ctx.measured += ops;
	s->value[0] = ops / (double)env.producers / seconds / 1000;
}

/*
 * What every htab-mem workload must show: the programs counted as many
 * iterations as the runs asked for, no update or delete failed, and the
 * map holds what the last operations left in it.
 */
static void htab_mem_check(__u64 runs, __u64 updates, __u64 deletes, int keys_left)
{
	__u64 total = ctx.measured + bench_swap(&ctx.skel->bss->op_cnt);
	__u64 upd_err = bench_read(&ctx.skel->bss->update_err);
	__u64 del_err = bench_read(&ctx.skel->bss->delete_err);
	int count = htab_count(bpf_map__fd(ctx.skel->maps.htab));

	bench_check(total == runs * ctx.ops_per_run, "iterations_match_runs",
		    "programs counted %llu iterations, %llu runs x %d expected",
		    (unsigned long long)total, (unsigned long long)runs, ctx.ops_per_run);
	bench_check(runs > 0, "producers_ran", "%llu program runs", (unsigned long long)runs);
	bench_check(!upd_err, "every_update_succeeds", "%llu of %llu updates failed",
		    (unsigned long long)upd_err, (unsigned long long)updates);
	if (deletes)
		bench_check(!del_err, "every_delete_succeeds", "%llu of %llu deletes failed",
			    (unsigned long long)del_err, (unsigned long long)deletes);
	bench_check(count == keys_left, "map_content", "%d keys in the map, %d expected",
		    count, keys_left);
}

static const struct bench_metric per_prod_op = {
	.name = "per_prod_op", .label = "per-prod-op", .unit = "k/s",
};

/* --- no_op ------------------------------------------------------------------ */

static int no_op_setup(void)
{
	return htab_mem_setup("no_op", NULL, 1);
}

static void no_op_check(void)
{
	__u64 runs = bench_runs(0, 1);

	htab_mem_check(runs, 0, 0, 0);
}

const struct bench bench_no_op = {
	.name = "no_op",
	.group = "htab-mem",
	.title = "no_op",
	.upstream = "bench htab-mem --use-case no_op",
	.about = "no map operation: one iteration per program run, the floor of the others",
	.metrics = { per_prod_op },
	.nr_metrics = 1,
	.repeat = 16,
	.setup = no_op_setup,
	.prog = htab_mem_prog,
	.measure = htab_mem_measure,
	.check = no_op_check,
	.teardown = htab_mem_teardown,
};

/* --- overwrite ------------------------------------------------------------ */

static int overwrite_setup(void)
{
	return htab_mem_setup("overwrite", NULL, 1);
}

static void overwrite_check(void)
{
	__u64 runs = bench_runs(0, 1);

	/* Each producer's 64 keys stay in the map. */
	htab_mem_check(runs, runs * OP_BATCH, 0, runs ? OP_BATCH * env.producers : 0);
}

const struct bench bench_overwrite = {
	.name = "overwrite",
	.group = "htab-mem",
	.title = "overwrite",
	.upstream = "bench htab-mem --use-case overwrite",
	.about = "64 BPF_ANY updates of the producer's keys per iteration: each frees an element",
	.metrics = { per_prod_op },
	.nr_metrics = 1,
	.repeat = 16,
	.setup = overwrite_setup,
	.prog = htab_mem_prog,
	.measure = htab_mem_measure,
	.check = overwrite_check,
	.teardown = htab_mem_teardown,
};

/* --- batch_add_batch_del ---------------------------------------------------- */

static int batch_setup(void)
{
	return htab_mem_setup("batch_add_batch_del", NULL, 2);
}

static void batch_check(void)
{
	__u64 runs = bench_runs(0, 1);

	htab_mem_check(runs, runs * OP_BATCH, runs * OP_BATCH, 0);
}

const struct bench bench_batch_add_batch_del = {
	.name = "batch_add_batch_del",
	.group = "htab-mem",
	.title = "batch_add_batch_del",
	.upstream = "bench htab-mem --use-case batch_add_batch_del",
	.about = "64 updates then 64 deletes of the producer's keys: two iterations per run",
	.metrics = { per_prod_op },
	.nr_metrics = 1,
	.repeat = 16,
	.setup = batch_setup,
	.prog = htab_mem_prog,
	.measure = htab_mem_measure,
	.check = batch_check,
	.teardown = htab_mem_teardown,
};

/* --- add_del_on_diff_cpu --------------------------------------------------- */

static const char *add_del_validate(void)
{
	static char why[128];

	/* Producers come in pairs: upstream refuses an odd count; round up. */
	if (env.producers % 2)
		env.producers++;
	/* Lockstep: one program run at a time, whatever -r says. */
	env.repeat = 1;
	if (env.nr_cpus < 2) {
		snprintf(why, sizeof(why),
			 "needs SMP: 2 CPUs (adds on one, deletes on another), this kernel has %d",
			 env.nr_cpus);
		return why;
	}
	/* The point is that a pair's two producers run on different CPUs. */
	env.affinity = true;
	return NULL;
}

static int add_del_setup(void)
{
	int i, err;

	err = htab_mem_setup("add_only", "del_only", 1);
	if (err)
		return err;
	ctx.nr_pairs = env.producers / 2;
	for (i = 0; i < ctx.nr_pairs; i++)
		pthread_barrier_init(&ctx.pair_sync[i], NULL, 2);
	return 0;
}

/*
 * As upstream's htab_mem_add_fn()/htab_mem_delete_fn(), one program run
 * each, in lockstep: the adder (even producer) adds, the deleter (odd)
 * then deletes the same keys.  The adder decides for the pair when to
 * stop, so that neither waits forever at the barrier for the other.
 */
static bool add_del_produce(int id, const bool *stop)
{
	pthread_barrier_t *sync = &ctx.pair_sync[id / 2];
	bool *done = &ctx.pair_done[id / 2];
	bool *failed = &ctx.pair_failed[id / 2];

	if (id % 2 == 0) {
		*done = bench_stopping(stop);
		if (!*done)
			*done = bench_test_run(ctx.prog, id, 1) != 0;
		pthread_barrier_wait(sync);	/* added, or the pair stops */
		if (*done)
			return false;
		pthread_barrier_wait(sync);	/* deleted */
		return !*failed;
	}
	pthread_barrier_wait(sync);
	if (*done)
		return false;
	*failed = bench_test_run(ctx.del_prog, id, 1) != 0;
	pthread_barrier_wait(sync);
	return !*failed;
}

static void add_del_check(void)
{
	__u64 adds = bench_runs(0, 2), dels = bench_runs(1, 2);

	bench_check(adds == dels, "pairs_in_step", "%llu add runs, %llu delete runs",
		    (unsigned long long)adds, (unsigned long long)dels);
	htab_mem_check(adds + dels, adds * OP_BATCH, dels * OP_BATCH, 0);
}

const struct bench bench_add_del_on_diff_cpu = {
	.name = "add_del_on_diff_cpu",
	.group = "htab-mem",
	.title = "add_del_on_diff_cpu",
	.upstream = "bench htab-mem --use-case add_del_on_diff_cpu -a",
	.about = "pairs of producers on two CPUs: one adds 64 keys, the other deletes them",
	.metrics = { per_prod_op },
	.nr_metrics = 1,
	.repeat = 1,
	.validate = add_del_validate,
	.setup = add_del_setup,
	.produce = add_del_produce,
	.measure = htab_mem_measure,
	.check = add_del_check,
	.teardown = htab_mem_teardown,
};
