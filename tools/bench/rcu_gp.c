// SPDX-License-Identifier: GPL-2.0
/*
 * rcu_gp: what one RCU grace period costs, timed in the guest from user
 * space, operation by operation (the runner reports median, p90 and max).
 *
 * Why system calls and not an in-kernel probe: without a JIT, UML runs
 * no kfunc and no tracing program, and CONFIG_RCU_SCALE_TEST would not
 * do either: its writers time synchronize_rcu(), which on Tiny RCU is a
 * counter increment, and its gp_async mode times the posting of
 * call_rcu(), not the callback.  So each round times four operations:
 *
 *   synchronize_rcu  bpf_map_update_elem() on a BPF_MAP_TYPE_ARRAY_OF_MAPS
 *                    (its one slot set to the same inner map): 6.1 and
 *                    6.12 both end it in maybe_wait_bpf_programs() ->
 *                    synchronize_rcu().  On Tree RCU that is
 *                    wait_rcu_gp(call_rcu_hurry): a call_rcu() and the
 *                    wait for its callback, one grace period.  On Tiny
 *                    RCU it returns at once (a caller that may block is
 *                    its own quiescent state), so there it costs what
 *                    the next figure costs.
 *   array update     the same system call on a plain BPF_MAP_TYPE_ARRAY:
 *                    everything but the wait.
 *   io_destroy       io_setup(1) first (not timed), then io_destroy():
 *                    percpu_ref_kill(&ctx->users) is a call_rcu_hurry()
 *                    whose callback drops the last reference; its
 *                    release, free_ioctx_users(), kills ctx->reqs with a
 *                    second call_rcu_hurry(), whose callback completes
 *                    what io_destroy() waits for (fs/aio.c, both trees).
 *                    Two grace periods in a row, each from call_rcu() to
 *                    its callback, on both RCU flavours; plus the munmap
 *                    of the one-page ring.
 *   munmap           munmap() of a populated one-page shared mapping:
 *                    io_destroy's own work without the grace periods.
 *
 * So the grace period is synchronize_rcu minus array update (Tree RCU),
 * and (io_destroy minus munmap) / 2 for call_rcu() to its callback, on
 * either flavour.  The figures are never judged; the checks are that
 * every call succeeded, that the outer map holds the inner one, and
 * that every io_setup() was destroyed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/aio_abi.h>
#include <bpf/bpf.h>

#include "clock.h"
#include "bench.h"

enum { OP_SYNC, OP_UPDATE, OP_AIO, OP_MUNMAP, NR_OPS };

static struct {
	int outer_fd, inner_fd, array_fd;
	__u32 inner_id;
	__u64 ns[NR_OPS], cnt[NR_OPS];	/* since the last measure() */
	__u64 aio_setups, aio_destroys;
	__u64 rounds;
} ctx = { .outer_fd = -1, .inner_fd = -1, .array_fd = -1 };

static void timed(int op, __u64 start)
{
	__u64 ns = mono_ns() - start;

	__atomic_add_fetch(&ctx.ns[op], ns, __ATOMIC_RELAXED);
	__atomic_add_fetch(&ctx.cnt[op], 1, __ATOMIC_RELAXED);
	bench_latency(op, ns / 1000.0);
}

static const char *rcu_gp_validate(void)
{
	aio_context_t aio = 0;

	if (syscall(SYS_io_setup, 1, &aio) && errno == ENOSYS)
		return "no io_setup() (CONFIG_AIO)";
	if (aio)
		syscall(SYS_io_destroy, aio);
	return NULL;
}

static int rcu_gp_setup(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), key = 0;

	memset(&ctx, 0, sizeof(ctx));
	ctx.outer_fd = ctx.inner_fd = ctx.array_fd = -1;
	ctx.inner_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "kit_gp_inner", 4, 4, 1, NULL);
	ctx.array_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "kit_gp_array", 4, 4, 1, NULL);
	if (ctx.inner_fd < 0 || ctx.array_fd < 0) {
		bench_fail("creating the array maps: %s", strerror(errno));
		return -errno;
	}
	opts.inner_map_fd = ctx.inner_fd;
	ctx.outer_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "kit_gp_outer", 4, 4, 1, &opts);
	if (ctx.outer_fd < 0) {
		bench_fail("creating the array of maps: %s", strerror(errno));
		return -errno;
	}
	if (bpf_obj_get_info_by_fd(ctx.inner_fd, &info, &len)) {
		bench_fail("the inner map's info: %s", strerror(errno));
		return -errno;
	}
	ctx.inner_id = info.id;
	/* The first update replaces nothing; time the ones that do. */
	if (bpf_map_update_elem(ctx.outer_fd, &key, &ctx.inner_fd, BPF_ANY)) {
		bench_fail("setting the outer map's slot: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static void rcu_gp_teardown(void)
{
	if (ctx.outer_fd >= 0)
		close(ctx.outer_fd);
	if (ctx.inner_fd >= 0)
		close(ctx.inner_fd);
	if (ctx.array_fd >= 0)
		close(ctx.array_fd);
	ctx.outer_fd = ctx.inner_fd = ctx.array_fd = -1;
}

static bool rcu_gp_produce(int id, const bool *stop)
{
	__u32 key = 0, val = id;
	aio_context_t aio = 0;
	__u64 t;
	void *p;

	if (bench_stopping(stop))
		return false;

	t = mono_ns();
	if (bpf_map_update_elem(ctx.outer_fd, &key, &ctx.inner_fd, BPF_ANY)) {
		bench_fail("updating the array of maps: %s", strerror(errno));
		return false;
	}
	timed(OP_SYNC, t);

	t = mono_ns();
	if (bpf_map_update_elem(ctx.array_fd, &key, &val, BPF_ANY)) {
		bench_fail("updating the array: %s", strerror(errno));
		return false;
	}
	timed(OP_UPDATE, t);

	if (syscall(SYS_io_setup, 1, &aio)) {
		bench_fail("io_setup: %s", strerror(errno));
		return false;
	}
	__atomic_add_fetch(&ctx.aio_setups, 1, __ATOMIC_RELAXED);
	t = mono_ns();
	if (syscall(SYS_io_destroy, aio)) {
		bench_fail("io_destroy: %s", strerror(errno));
		return false;
	}
	timed(OP_AIO, t);
	__atomic_add_fetch(&ctx.aio_destroys, 1, __ATOMIC_RELAXED);

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE,
		 -1, 0);
	if (p == MAP_FAILED) {
		bench_fail("mmap: %s", strerror(errno));
		return false;
	}
	t = mono_ns();
	if (munmap(p, 4096)) {
		bench_fail("munmap: %s", strerror(errno));
		return false;
	}
	timed(OP_MUNMAP, t);
	__atomic_add_fetch(&ctx.rounds, 1, __ATOMIC_RELAXED);
	return true;
}

/* Each operation's mean over the last second, in microseconds. */
static void rcu_gp_measure(struct bench_sample *s, double seconds)
{
	int op;

	(void)seconds;
	for (op = 0; op < NR_OPS; op++) {
		__u64 ns = bench_swap(&ctx.ns[op]), cnt = bench_swap(&ctx.cnt[op]);

		s->value[op] = cnt ? ns / 1000.0 / cnt : 0;
	}
}

static void rcu_gp_check(void)
{
	__u32 key = 0, id = 0;
	int err = bpf_map_lookup_elem(ctx.outer_fd, &key, &id);

	bench_check(!err && id == ctx.inner_id, "outer_holds_inner",
		    "slot 0 of the array of maps: lookup %s, map id %u, the inner map's is %u",
		    err ? strerror(errno) : "ok", id, ctx.inner_id);
	bench_check(ctx.rounds > 0, "rounds_ran", "%llu rounds of the four operations",
		    (unsigned long long)ctx.rounds);
	bench_check(ctx.aio_setups == ctx.aio_destroys, "every_aio_context_destroyed",
		    "%llu io_setup(), %llu io_destroy()", (unsigned long long)ctx.aio_setups,
		    (unsigned long long)ctx.aio_destroys);
}

const struct bench bench_rcu_gp = {
	.name = "rcu_gp",
	.group = "rcu",
	.title = "grace-period latency",
	.upstream = "none (the kit's own: synchronize_rcu() and call_rcu() timed from user space)",
	.about = "synchronize_rcu() (array-of-maps update) and 2 chained call_rcu() (io_destroy), timed",
	.metrics = {
		{ .name = "sync_us", .label = "synchronize_rcu", .unit = "us" },
		{ .name = "update_us", .label = "array update", .unit = "us" },
		{ .name = "aio_us", .label = "io_destroy", .unit = "us" },
		{ .name = "munmap_us", .label = "munmap", .unit = "us" },
	},
	.nr_metrics = NR_OPS,
	.latencies = {
		{ .name = "sync", .label = "synchronize_rcu (array-of-maps update)", .unit = "us" },
		{ .name = "update", .label = "array update", .unit = "us" },
		{ .name = "aio", .label = "io_destroy (2 call_rcu in a row)", .unit = "us" },
		{ .name = "munmap", .label = "munmap (1 page)", .unit = "us" },
	},
	.nr_latencies = NR_OPS,
	.validate = rcu_gp_validate,
	.setup = rcu_gp_setup,
	.produce = rcu_gp_produce,
	.measure = rcu_gp_measure,
	.check = rcu_gp_check,
	.teardown = rcu_gp_teardown,
};
