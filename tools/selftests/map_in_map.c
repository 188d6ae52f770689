// SPDX-License-Identifier: GPL-2.0
/*
 * Map-in-map lifetimes: an inner map that a program holds outlives its
 * place in the outer map.
 *
 * A program that looked an inner map up may use it until its read-side
 * section ends, however the outer map changes meanwhile.  So the last
 * reference to an inner map that is replaced in, or deleted from, an
 * outer map must be dropped only after an RCU grace period and, because
 * sleepable programs read maps under rcu_read_lock_trace(), an RCU tasks
 * trace grace period: bpf_map_fd_put_ptr() marks the inner map
 * free_after_mult_rcu_gp and __bpf_map_put() frees it through
 * call_rcu_tasks_trace() (upstream 876673364161, in 6.1 stable).  An
 * inner map freed at once (the work queue frees it as soon as it runs)
 * is freed while the program still reads it.
 *
 * On a uniprocessor UML only a program that sleeps can see that: the
 * sleepable BPF_PROG_TYPE_SYSCALL programs of map_in_map.bpf.c sleep in
 * bpf_sys_bpf(BPF_MAP_CREATE) (see there) between reading an inner map's
 * value and reading it again, while a second process replaces and
 * deletes the outer entry and closes its own fds of the inner maps it
 * put there, so the outer map holds their only reference.  The new inner
 * maps it creates are the same kmalloc size, so a freed one's memory is
 * soon another's, with another generation in it: the default flavor sees
 * the value change, KASAN sees the use after free.
 *
 * - held_while_replaced_array, held_while_replaced_hash: the contract
 *   above, for an ARRAY_OF_MAPS and a (preallocated) HASH_OF_MAPS outer
 *   map.  Each fails too when no run overlapped a change of the outer
 *   entry: then it tested nothing.
 * - fd_put_paths: every way an inner map leaves an outer map (update
 *   over it, delete, BPF_MAP_DELETE_BATCH, BPF_MAP_LOOKUP_AND_DELETE_BATCH,
 *   the outer map's own free), for array, hash and BPF_F_NO_PREALLOC hash
 *   outer maps: each inner map is freed afterwards (its id goes away),
 *   none early.  With lockdep's raw-lock nesting check (the debug
 *   flavor) it also runs each put path of the hash map under lockdep.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "ktap.h"
#include "sysfs.h"

/* As in map_in_map.bpf.c: the skeleton names the type, it does not define it. */
struct mim_result {
	__u64 runs;
	__u64 absent;
	__u64 overlapped;
	__u64 changed;
	__u64 lookup_lost;
	__u64 nap_errors;
	__u64 first_gen;
	__u64 then_gen;
	__u64 then_word;
};

#include "map_in_map.skel.h"

#define MIM_WORDS	6
#define RUN_SECONDS	3
#define MAX_RUNS	4000
/* Between two changes of the outer entry the churner sleeps this long:
 * its wake-up is what takes the CPU from a napping program.
 */
#define CHURN_SLEEP_US	300
/*
 * Each run leaves the NAPS arrays its program made (NAP_KB each, both as
 * in map_in_map.bpf.c) for a work queue to free: their last fds close as
 * the run returns to user space.  The loop below starts runs faster than
 * a work queue starved on a loaded host frees them, and a 64 MiB guest
 * holds a few dozen runs' worth before the OOM killer ends the case.  So
 * at most BACKLOG_RUNS runs' arrays may wait: past that the loop waits
 * for the work queue, up to BACKLOG_WAIT_S.
 */
#define NAPS		4
#define NAP_KB		256
#define BACKLOG_RUNS	8
#define BACKLOG_WAIT_S	10

struct mim_value {
	__u64 gen;
	__u64 word[MIM_WORDS];
};

struct churn_state {
	volatile int stop;
	volatile unsigned long replaced;
	volatile unsigned long deleted;
	volatile unsigned long errors;
	volatile int last_errno;
};

static __u64 pattern(__u64 gen, int i)
{
	return gen * 0x9e3779b97f4a7c15ULL + i;
}

/*
 * How new inner maps are created: with no BTF for outer maps made here,
 * with the BTF of the object's template for the object's outer maps (a
 * map with BTF has timer_off -ENOENT, one without -EINVAL, and
 * bpf_map_meta_equal() compares them).
 */
static struct bpf_map_create_opts inner_opts = { .sz = sizeof(inner_opts) };

static int like_template(const struct bpf_object *obj, const struct bpf_map *tmpl)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_map__fd(tmpl), &info, &len))
		return -errno;
	inner_opts.btf_fd = bpf_object__btf_fd(obj);
	inner_opts.btf_key_type_id = info.btf_key_type_id;
	inner_opts.btf_value_type_id = info.btf_value_type_id;
	return 0;
}

/* A new inner map holding generation @gen; its fd, or -errno. */
static int new_inner(__u64 gen)
{
	struct mim_value v = { .gen = gen };
	__u32 zero = 0;
	int fd, i, err;

	for (i = 0; i < MIM_WORDS; i++)
		v.word[i] = pattern(gen, i);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "kit_mim_inner", sizeof(__u32), sizeof(v), 1,
			    &inner_opts);
	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(fd, &zero, &v, BPF_ANY)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Put a new inner map of generation @gen into slot 0, keeping no fd of it. */
static int install(int outer_fd, __u64 gen)
{
	__u32 zero = 0;
	int fd = new_inner(gen), err = 0;

	if (fd < 0)
		return fd;
	if (bpf_map_update_elem(outer_fd, &zero, &fd, BPF_ANY))
		err = -errno;
	close(fd);
	return err;
}

/* The other process: change slot 0 until told to stop. */
static void churn(int outer_fd, struct churn_state *st)
{
	__u32 zero = 0;
	__u64 gen;

	for (gen = 2; !st->stop; gen++) {
		int err = 0;

		if (gen % 5 == 0) {
			/* Deleted, and filled again at once by the next round. */
			if (bpf_map_delete_elem(outer_fd, &zero) && errno != ENOENT)
				err = -errno;
			else
				st->deleted++;
			if (!err)
				continue;
		} else {
			err = install(outer_fd, gen);
			if (!err)
				st->replaced++;
		}
		if (err) {
			st->errors++;
			st->last_errno = -err;
		}
		usleep(CHURN_SLEEP_US);
	}
}

/*
 * Wait until at most BACKLOG_RUNS runs' arrays are still allocated, above
 * the @base of VmallocUsed.  0, or -ETIMEDOUT with the backlog in @kb.
 */
static int drain_backlog(long long base, long long *kb, double *waited)
{
	const long long bound = BACKLOG_RUNS * NAPS * NAP_KB;
	double start = mono_s();

	for (;;) {
		*kb = meminfo_kb("VmallocUsed") - base;
		if (*kb <= bound)
			break;
		if (mono_s() - start > BACKLOG_WAIT_S)
			return -ETIMEDOUT;
		usleep(1000);
	}
	*waited += mono_s() - start;
	return 0;
}

static enum ktap_result held_while_replaced(bool hash)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct map_in_map *skel;
	struct bpf_program *prog, *p;
	struct churn_state *st;
	struct mim_result *r;
	unsigned long runs = 0;
	int outer_fd, err, status;
	long long vmalloc_base, backlog_kb = 0;
	double end, waited = 0;
	pid_t pid;

	skel = map_in_map__open();
	KTAP_EXPECT(skel, "open the map_in_map object: %s", strerror(errno));
	prog = hash ? skel->progs.hold_hash_slot : skel->progs.hold_array_slot;
	bpf_object__for_each_program(p, skel->obj) {
		bpf_program__set_autoload(p, p == prog);
		bpf_program__set_flags(p, bpf_program__flags(p) | BPF_F_SLEEPABLE);
	}
	err = map_in_map__load(skel);
	if (err)
		map_in_map__destroy(skel);
	KTAP_EXPECT(!err, "load the sleepable program %s: %d", bpf_program__name(prog), err);
	outer_fd = hash ? bpf_map__fd(skel->maps.outer_hash) : bpf_map__fd(skel->maps.outer_arr);
	err = like_template(skel->obj, skel->maps.inner_tmpl);
	if (!err)
		err = install(outer_fd, 1);
	if (err)
		map_in_map__destroy(skel);
	KTAP_EXPECT(!err, "first inner map: %s", strerror(-err));

	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		map_in_map__destroy(skel);
	KTAP_EXPECT(st != MAP_FAILED, "shared page: %s", strerror(errno));
	memset(st, 0, sizeof(*st));
	pid = fork();
	if (pid == 0) {
		churn(outer_fd, st);
		_exit(0);
	}
	if (pid < 0) {
		munmap(st, sizeof(*st));
		map_in_map__destroy(skel);
	}
	KTAP_EXPECT(pid > 0, "fork: %s", strerror(errno));

	vmalloc_base = meminfo_kb("VmallocUsed");
	end = mono_s() + RUN_SECONDS;
	err = vmalloc_base < 0 ? -ENOENT : 0;
	while (!err && runs < MAX_RUNS && mono_s() < end) {
		if (runs % (BACKLOG_RUNS / 2) == 0) {
			err = drain_backlog(vmalloc_base, &backlog_kb, &waited);
			if (err)
				break;
		}
		if (bpf_prog_test_run_opts(bpf_program__fd(prog), &topts)) {
			err = -errno;
			break;
		}
		runs++;
	}
	st->stop = 1;
	waitpid(pid, &status, 0);

	r = &skel->bss->result;
	ktap_diag("%s: %lu test runs: %llu held an inner map, %llu found the slot empty, "
		  "%llu overlapped a change of the slot; the other process replaced it %lu "
		  "times and deleted it %lu times; %.2f s waiting for freed arrays",
		  hash ? "HASH_OF_MAPS" : "ARRAY_OF_MAPS",
		  runs, (unsigned long long)r->runs, (unsigned long long)r->absent,
		  (unsigned long long)r->overlapped, st->replaced, st->deleted, waited);
	{
		struct mim_result res = *r;
		unsigned long churn_errors = st->errors;
		int churn_errno = st->last_errno;

		munmap(st, sizeof(*st));
		map_in_map__destroy(skel);
		inner_opts.btf_fd = inner_opts.btf_key_type_id = inner_opts.btf_value_type_id = 0;
		KTAP_EXPECT(vmalloc_base >= 0, "no VmallocUsed in /proc/meminfo");
		KTAP_EXPECT(err != -ETIMEDOUT, "the arrays of finished runs were not freed: "
			    "%lld kB above VmallocUsed at the start after %d s (bound %d kB)",
			    backlog_kb, BACKLOG_WAIT_S, BACKLOG_RUNS * NAPS * NAP_KB);
		KTAP_EXPECT(!err, "BPF_PROG_TEST_RUN: %s", strerror(-err));
		KTAP_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status),
			    "the churning process ended with status 0x%x", status);
		KTAP_EXPECT(!churn_errors, "the churning process failed %lu times, last: %s",
			    churn_errors, strerror(churn_errno));
		KTAP_EXPECT(!res.nap_errors, "bpf_sys_bpf(BPF_MAP_CREATE) failed %llu times "
			    "in the program", (unsigned long long)res.nap_errors);
		KTAP_EXPECT(!res.lookup_lost, "a held inner map lost its element in %llu of %llu runs",
			    (unsigned long long)res.lookup_lost, (unsigned long long)res.runs);
		KTAP_EXPECT(!res.changed, "inner map freed under a sleepable program that held it: "
			    "its value changed in %llu of %llu runs (generation %llu read as %llu, "
			    "pattern word 0x%llx)", (unsigned long long)res.changed,
			    (unsigned long long)res.runs, (unsigned long long)res.first_gen,
			    (unsigned long long)res.then_gen, (unsigned long long)res.then_word);
		KTAP_EXPECT(res.overlapped, "no run overlapped a change of the outer entry "
			    "(%llu runs): the case tested nothing", (unsigned long long)res.runs);
	}
	return KTAP_PASS;
}

static enum ktap_result held_while_replaced_array(void)
{
	return held_while_replaced(false);
}

static enum ktap_result held_while_replaced_hash(void)
{
	return held_while_replaced(true);
}

/* fd_put_paths ------------------------------------------------------------ */

#define NR_INNER 32

struct outer_kind {
	const char *name;
	enum bpf_map_type type;
	__u32 flags;
	bool batch;		/* has the htab batch operations */
};

static const struct outer_kind outer_kinds[] = {
	{ "ARRAY_OF_MAPS", BPF_MAP_TYPE_ARRAY_OF_MAPS, 0, false },
	{ "HASH_OF_MAPS", BPF_MAP_TYPE_HASH_OF_MAPS, 0, true },
	{ "HASH_OF_MAPS no-prealloc", BPF_MAP_TYPE_HASH_OF_MAPS, BPF_F_NO_PREALLOC, true },
};

static __u32 map_id(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

/* How many of @ids still name a map, after waiting up to ~3 s for them to go. */
static int still_alive(const __u32 *ids, int nr)
{
	int alive = 0, i, tries;

	for (tries = 0; tries < 150; tries++) {
		alive = 0;
		for (i = 0; i < nr; i++) {
			int fd = bpf_map_get_fd_by_id(ids[i]);

			if (fd >= 0) {
				alive++;
				close(fd);
			}
		}
		if (!alive)
			break;
		usleep(20 * 1000);
	}
	return alive;
}

/* Insert inner maps for keys [0, NR_INNER) into @outer_fd; their ids into @ids. */
static int fill_outer(int outer_fd, __u64 gen, __u32 *ids)
{
	__u32 key;

	for (key = 0; key < NR_INNER; key++) {
		int fd = new_inner(gen + key), err = 0;

		if (fd < 0)
			return fd;
		ids[key] = map_id(fd);
		if (bpf_map_update_elem(outer_fd, &key, &fd, BPF_ANY))
			err = -errno;
		close(fd);
		if (err)
			return err;
	}
	return 0;
}

static enum ktap_result put_paths_of(const struct outer_kind *k)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	__u32 ids[4][NR_INNER], keys[NR_INNER], vals[NR_INNER], key, count, batch;
	int proto, outer, err, alive, i;

	proto = new_inner(0);
	KTAP_EXPECT(proto >= 0, "%s: inner template: %s", k->name, strerror(-proto));
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = k->flags, .inner_map_fd = proto);
	outer = bpf_map_create(k->type, "kit_mim_outer", sizeof(__u32), sizeof(__u32),
			       NR_INNER, &opts);
	err = -errno;
	close(proto);
	KTAP_EXPECT(outer >= 0, "%s: create: %s", k->name, strerror(-err));

	/* 1. Update over every entry: the old inner maps leave by update. */
	err = fill_outer(outer, 100, ids[0]);
	if (!err)
		err = fill_outer(outer, 200, ids[1]);
	if (err)
		close(outer);
	KTAP_EXPECT(!err, "%s: fill: %s", k->name, strerror(-err));
	/* 2. Delete half of them, one by one. */
	for (key = 0; key < NR_INNER / 2; key++) {
		if (bpf_map_delete_elem(outer, &key)) {
			err = -errno;
			close(outer);
			KTAP_EXPECT(!err, "%s: delete key %u: %s", k->name, key, strerror(-err));
		}
	}
	/* 3. The rest by the batch operations, where the map has them. */
	if (k->batch) {
		for (i = 0; i < NR_INNER / 4; i++)
			keys[i] = NR_INNER / 2 + i;
		count = NR_INNER / 4;
		if (bpf_map_delete_batch(outer, keys, &count, &bopts)) {
			err = -errno;
			close(outer);
			KTAP_EXPECT(!err, "%s: BPF_MAP_DELETE_BATCH: %s", k->name, strerror(-err));
		}
		count = NR_INNER;
		err = bpf_map_lookup_and_delete_batch(outer, NULL, &batch, keys, vals, &count,
						      &bopts);
		if (err && errno != ENOENT) {
			err = -errno;
			close(outer);
			KTAP_EXPECT(!err, "%s: BPF_MAP_LOOKUP_AND_DELETE_BATCH: %s", k->name,
				    strerror(-err));
		}
		for (i = 0; i < (int)count; i++) {
			if (vals[i] != ids[1][keys[i]]) {
				close(outer);
				KTAP_EXPECT(vals[i] == ids[1][keys[i]], "%s: batch gave key %u the "
					    "map id %u, not %u", k->name, keys[i], vals[i],
					    ids[1][keys[i]]);
			}
		}
	} else {
		for (key = NR_INNER / 2; key < NR_INNER; key++)
			bpf_map_delete_elem(outer, &key);
	}
	/* 4. Filled again, and the outer map closed with its entries. */
	err = fill_outer(outer, 300, ids[2]);
	close(outer);
	KTAP_EXPECT(!err, "%s: fill again: %s", k->name, strerror(-err));

	alive = still_alive(&ids[0][0], 3 * NR_INNER);
	KTAP_EXPECT(!alive, "%s: %d of %d inner maps taken out of the outer map are still "
		    "alive after 3 s", k->name, alive, 3 * NR_INNER);
	ktap_diag("%s: %d inner maps left by update, delete%s and the outer map's free; "
		  "all freed", k->name, 3 * NR_INNER, k->batch ? ", both batch deletes" : "");
	return KTAP_PASS;
}

static enum ktap_result fd_put_paths(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(outer_kinds); i++)
		if (put_paths_of(&outer_kinds[i]) != KTAP_PASS)
			return KTAP_FAIL;
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	{ "held_while_replaced_array", held_while_replaced_array },
	{ "held_while_replaced_hash", held_while_replaced_hash },
	{ "fd_put_paths", fd_put_paths },
};

KTAP_SUITE_MAIN("map_in_map", cases)
