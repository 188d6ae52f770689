// SPDX-License-Identifier: GPL-2.0
/*
 * Special fields of hash map values through their whole life.
 *
 * A hash value may hold a bpf_spin_lock and a bpf_timer.  update copies a
 * value around them (copy_map_value()), so what a new element holds there
 * is what the map left: the element must come with both clear, whether
 * it is fresh memory or an element freed by a delete or an update over it
 * and handed out again.  The free paths are what clear the timer:
 * check_and_free_fields() cancels and frees its struct bpf_hrtimer and
 * zeroes the field before the element goes back to the freelist
 * (preallocated maps) or to bpf_mem_alloc (BPF_F_NO_PREALLOC), and the
 * map's free does the same for the elements left in it.  A timer field
 * left set on an element that is handed out again makes bpf_timer_init()
 * on the new element fail with -EBUSY (and leaks the old bpf_hrtimer).
 *
 * The programs (special_fields.bpf.c) initialise each element's timer,
 * check a second bpf_timer_init() says -EBUSY (the first really set the
 * field), and add 1 under the spin lock to a count the update wrote.
 * Each round inserts 64 keys, runs the program, checks each value with a
 * BPF_F_LOCK lookup, then deletes the keys, or first updates over every
 * one and runs the program again (those updates free the elements that
 * had timers); after a pause long enough for grace periods the next
 * round's elements are the freed ones again.  The last round's elements
 * stay, timers and all, for the map's own free.
 *
 * What each check can see.  Only the special fields outlive an
 * element's memory: copy_map_value() writes every other byte of the new
 * value, so a count the update had zeroed could never read stale.  So
 * the count is a stamp of the round and the key (count_stamp()), and
 * under the lock it must be that stamp (the update wrote the element the
 * program found, all of it), the stamp plus one afterwards; and the
 * value user space passes holds junk where the timer is, which an update
 * that copied the field would put in the element.  -EBUSY from a new
 * element's first bpf_timer_init() is then a timer a freed element kept
 * (kernel/mutants/6.1/htab-free-keeps-timer) or one copied in; the lock
 * word is left 0 in the value passed (one copied in set would hang the
 * program rather than fail a check: htab_spin_lock's business).
 *
 * held_across_delete (two CPUs, 7.2) is the element's other life: a
 * reader holding it while another CPU deletes it and reuses memory.
 *
 * What is not covered: armed timers (bpf_timer_set_callback() needs a
 * callback, which the interpreter refuses) and kptrs (a kptr field needs
 * the kernel's BTF, which these kernels are built without, and the
 * kfuncs that acquire one, which the interpreter refuses).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "htab_util.h"
#include "ktap.h"
#include "sides.h"

#define SF_DATA		4
#define SF_BATCH	64
#define ROUNDS		24

struct sf_value {
	__u32 lock;
	__u32 count;
	__u64 timer[2];
	__u64 data[SF_DATA];
};

struct sf_args {
	__u32 first;
	__u32 nr;
	__u32 round;
};

struct sf_result {
	__u64 visited;
	__u64 missing;
	__u64 busy;
	__u64 init_err;
	__u64 second_ok;
	__u64 wrong_count;
	__u64 first_bad_key;
	__s64 first_bad_ret;
};

struct churn_result {
	__u64 visited;
	__u64 missing;
	__u64 busy;
	__u64 init_err;
	__s64 first_err;
};

#include "special_fields.skel.h"

static __u64 pattern(__u32 round, __u32 key, int i)
{
	return ((__u64)round << 40) ^ ((__u64)key << 8) ^ (0x5a5a0000ULL + i);
}

/* The count an update writes, special_fields.bpf.c's count_stamp(). */
static __u32 count_stamp(__u32 round, __u32 key)
{
	return (round + 1) << 16 | key;
}

/*
 * Bytes in the timer's place of the value user space passes: the update
 * must copy around them (copy_map_value()), or the element's first
 * bpf_timer_init() says -EBUSY.  The lock word stays 0: one copied in
 * set would hang the program's bpf_spin_lock() instead of failing a
 * check.
 */
#define TIMER_JUNK	0x7e7e7e7e7e7e7e7eULL

static int put_keys(int fd, __u32 first, __u32 round, __u64 flags)
{
	struct sf_value v;
	__u32 key;
	int i;

	for (key = first; key < first + SF_BATCH; key++) {
		memset(&v, 0, sizeof(v));
		v.count = count_stamp(round, key);
		v.timer[0] = v.timer[1] = TIMER_JUNK;
		for (i = 0; i < SF_DATA; i++)
			v.data[i] = pattern(round, key, i);
		if (bpf_map_update_elem(fd, &key, &v, flags)) {
			ktap_diag("round %u: update of key %u (flags 0x%llx): %s", round, key,
				  (unsigned long long)flags, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static struct special_fields *skel;

static int run_prog(struct bpf_program *prog, __u32 first, __u32 round)
{
	skel->bss->args.first = first;
	skel->bss->args.nr = SF_BATCH;
	skel->bss->args.round = round;
	return htab_test_run(prog, 1, NULL) ? -1 : 0;
}

/* Each value as the program left it: this round's stamp counted once, this round's data. */
static int check_values(int fd, __u32 first, __u32 round)
{
	struct sf_value v;
	__u32 key;

	for (key = first; key < first + SF_BATCH; key++) {
		if (bpf_map_lookup_elem_flags(fd, &key, &v, BPF_F_LOCK)) {
			ktap_diag("round %u: BPF_F_LOCK lookup of key %u: %s", round, key,
				  strerror(errno));
			return -1;
		}
		if (v.count != count_stamp(round, key) + 1 || v.data[0] != pattern(round, key, 0) ||
		    v.data[SF_DATA - 1] != pattern(round, key, SF_DATA - 1)) {
			ktap_diag("round %u: key %u holds count %#x data 0x%llx..0x%llx, not %#x "
				  "0x%llx..0x%llx", round, key, v.count,
				  (unsigned long long)v.data[0],
				  (unsigned long long)v.data[SF_DATA - 1],
				  count_stamp(round, key) + 1,
				  (unsigned long long)pattern(round, key, 0),
				  (unsigned long long)pattern(round, key, SF_DATA - 1));
			return -1;
		}
	}
	return 0;
}

static int delete_keys(int fd, __u32 first, __u32 round)
{
	__u32 key;

	for (key = first; key < first + SF_BATCH; key++) {
		if (bpf_map_delete_elem(fd, &key)) {
			ktap_diag("round %u: delete of key %u: %s", round, key, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static enum ktap_result life_cycle(bool prealloc)
{
	struct bpf_program *prog, *p;
	struct sf_result r;
	__u64 expect_visits = 0;
	__u32 round, first;
	int fd, err = 0;

	skel = special_fields__open();
	KTAP_EXPECT(skel, "open the special_fields object: %s", strerror(errno));
	prog = prealloc ? skel->progs.init_prealloc : skel->progs.init_no_prealloc;
	/* One program: the two-CPU case's need 7.2's verifier (may_goto). */
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == prog);
	err = special_fields__load(skel);
	if (err)
		special_fields__destroy(skel);
	KTAP_EXPECT(!err, "load the %s program: %d", prealloc ? "prealloc" : "no-prealloc", err);
	fd = prealloc ? bpf_map__fd(skel->maps.prealloc) : bpf_map__fd(skel->maps.no_prealloc);

	for (round = 0; round < ROUNDS && !err; round++) {
		/* Keys move over 4 windows of the 256 the map holds. */
		first = (round % 4) * SF_BATCH;
		err = put_keys(fd, first, round, BPF_NOEXIST) || run_prog(prog, first, round) ||
		      check_values(fd, first, round);
		expect_visits += SF_BATCH;
		if (!err && (round & 1)) {
			/* Update over each: the old elements, timers set, are freed. */
			err = put_keys(fd, first, round, BPF_EXIST) || run_prog(prog, first, round) ||
			      check_values(fd, first, round);
			expect_visits += SF_BATCH;
		}
		if (!err)
			err = delete_keys(fd, first, round);
		/* Grace periods, so that freed elements are handed out again. */
		usleep(30 * 1000);
	}
	/* The last elements keep their timers into the map's free. */
	if (!err) {
		err = put_keys(fd, 0, round, BPF_NOEXIST) || run_prog(prog, 0, round) ||
		      check_values(fd, 0, round);
		expect_visits += SF_BATCH;
	}
	r = skel->bss->result;
	special_fields__destroy(skel);

	KTAP_EXPECT(!err, "the round failed (see above)");
	ktap_diag("%s hash: %llu elements got a timer and a counted lock over %d rounds, "
		  "through delete and update; the last %d freed with the map",
		  prealloc ? "preallocated" : "BPF_F_NO_PREALLOC", (unsigned long long)r.visited,
		  ROUNDS, SF_BATCH);
	KTAP_EXPECT(!r.missing, "the program did not find %llu keys", (unsigned long long)r.missing);
	KTAP_EXPECT(!r.busy, "bpf_timer_init() on a new element said -EBUSY %llu times (first: "
		    "key %llu): a freed element's timer was left set, or the update copied the "
		    "value's bytes in its place", (unsigned long long)r.busy,
		    (unsigned long long)r.first_bad_key);
	KTAP_EXPECT(!r.init_err, "bpf_timer_init() failed %llu times (first: key %llu, %lld)",
		    (unsigned long long)r.init_err, (unsigned long long)r.first_bad_key,
		    (long long)r.first_bad_ret);
	KTAP_EXPECT(!r.second_ok, "a second bpf_timer_init() on one timer was not -EBUSY %llu "
		    "times", (unsigned long long)r.second_ok);
	KTAP_EXPECT(!r.wrong_count, "%llu elements held under their lock a count other than "
		    "the one their update wrote", (unsigned long long)r.wrong_count);
	KTAP_EXPECT(r.visited == expect_visits, "the program visited %llu elements, not %llu",
		    (unsigned long long)r.visited, (unsigned long long)expect_visits);
	return KTAP_PASS;
}

static enum ktap_result timer_lock_prealloc(void)
{
	return life_cycle(true);
}

static enum ktap_result timer_lock_no_prealloc(void)
{
	return life_cycle(false);
}

/* --- held_across_delete ---------------------------------------------------
 *
 * A reader on CPU 0 holds an element of a BPF_F_NO_PREALLOC hash whose
 * value has a bpf_spin_lock and a bpf_timer while CPU 1 deletes it and
 * inserts others.  What 7.2's hashtab.c does with such an element:
 * htab_map_delete_elem() unlinks it and, before it returns,
 * free_htab_elem() -> htab_elem_free() -> check_and_cancel_fields()
 * cancels and frees its timer and clears the field (bpf_obj_cancel_fields(),
 * the xchg() in bpf_async_cancel_and_free()); the lock is left as it is;
 * then the element goes to bpf_mem_cache_free_rcu(), which hands it out
 * again only after an RCU grace period.  Other fields (kptrs and the
 * like, none here) are released by the allocator's destructor,
 * htab_mem_dtor(), only when the memory goes back to slab.  So a reader
 * whose read-side section began before the delete:
 *   - reads the element's own data, and a count it keeps under the
 *     element's lock stays its own, until its section ends: the memory is
 *     not handed out again;
 *   - finds the timer released as soon as the delete returned, still
 *     inside its section: bpf_timer_cancel() is -EINVAL (no timer), not 0
 *     (a timer the delete left, or a new element's in reused memory).
 * What it may not do is not tested: a reader that calls bpf_timer_init()
 * on the deleted element puts a timer back, and nothing clears it
 * before the element is handed out again (the destructor runs only on
 * the way back to slab): the next owner's bpf_timer_init() says -EBUSY.
 *
 * Each run: the writer (CPU 1) inserts the run's key, and
 * init_block_delete gives its element a timer, waits for the reader to
 * hold it, deletes it and sets element_deleted.  The reader (CPU 0,
 * hold_fields: one program run) probes the element until the writer is
 * done; the writer meanwhile inserts, gives timers to (churn_timers) and
 * deletes churn keys through the syscall path for HOLD_CHURN_MS, several
 * grace periods elsewhere, so that memory freed before the run is handed
 * out again; a churn element's first bpf_timer_init() must be 0.  The
 * case fails when a run tested nothing: the reader's timer was not
 * there before the delete, no probe came after it, or the section ended
 * before the churn.
 */
#define HOLD_RUNS	20
/* Shorter than a JIT's may_goto limit of a quarter of a second (smp.c). */
#define HOLD_CHURN_MS	120
#define HOLD_WAIT_MS	10000
#define HOLD_MARK	0x401dc0de00000000ULL
#define CHURN_MARK	0xc4c4000000000000ULL
#define CHURN_KEY	0x40000000U
#define CHURN_KEYS	1024
#define READER_CPU	0
#define WRITER_CPU	1

#define READ_ONCE_U32(x)	(*(volatile __u32 *)&(x))
#define WRITE_ONCE_U32(x, v)	(*(volatile __u32 *)&(x) = (v))

enum { SYNC_GO, SYNC_FINISHED };
enum { CNT_PAIRS, CNT_PAIRS_MIN, CNT_PAIRS_MAX };

static void hold_value(struct sf_value *v, __u64 mark)
{
	int i;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < SF_DATA; i++)
		v->data[i] = mark;
}

/* One batch of churn keys: inserted, given timers, deleted. */
static int churn_batch(struct special_fields *sk, int fd, __u32 first)
{
	struct sf_value v;
	__u32 key;

	for (key = first; key < first + SF_BATCH; key++) {
		hold_value(&v, CHURN_MARK | key);
		if (bpf_map_update_elem(fd, &key, &v, BPF_NOEXIST))
			return -errno;
	}
	sk->bss->churn_args.first = first;
	sk->bss->churn_args.nr = SF_BATCH;
	if (htab_test_run(sk->progs.churn_timers, 1, NULL))
		return -EIO;
	for (key = first; key < first + SF_BATCH; key++)
		if (bpf_map_delete_elem(fd, &key))
			return -errno;
	return 0;
}

struct hold_ctx {
	struct special_fields *skel;
	struct shared *s;
};

static int hold_writer(void *arg, int side)
{
	struct hold_ctx *c = arg;
	struct special_fields *sk = c->skel;
	struct shared *s = c->s;
	int fd = bpf_map__fd(sk->maps.held), run, err;
	unsigned long long n = 0, pairs, lo = ~0ULL, hi = 0;
	struct sf_value v;
	double t0;

	for (run = 1; run <= HOLD_RUNS; run++) {
		__u32 key = run;

		t0 = mono_ms();
		while (__atomic_load_n(&s->sync[SYNC_GO], __ATOMIC_SEQ_CST) != run)
			SIDE_EXPECT(s, side, mono_ms() - t0 < HOLD_WAIT_MS, "run %d never started", run);
		hold_value(&v, HOLD_MARK | run);
		SIDE_EXPECT(s, side, !bpf_map_update_elem(fd, &key, &v, BPF_NOEXIST),
			    "insert key %u: %s", key, strerror(errno));
		sk->bss->block_key = key;
		SIDE_EXPECT(s, side, !htab_test_run(sk->progs.init_block_delete, 1, NULL) &&
			    !sk->bss->blocker_init,
			    "run %d: init_block_delete failed (bpf_timer_init() of key %u: %d)", run,
			    key, sk->bss->blocker_init);
		SIDE_EXPECT(s, side, sk->bss->blocker_saw_holding,
			    "run %d: the reader never held the element", run);
		SIDE_EXPECT(s, side, !sk->bss->blocker_err, "run %d: delete key %u: %d", run, key,
			    sk->bss->blocker_err);
		pairs = 0;
		t0 = mono_ms();
		while (mono_ms() - t0 < HOLD_CHURN_MS) {
			err = churn_batch(sk, fd, CHURN_KEY + n % CHURN_KEYS);
			SIDE_EXPECT(s, side, !err, "run %d: churn keys from %llu: %s", run,
				    CHURN_KEY + n % CHURN_KEYS, strerror(-err));
			n += SF_BATCH;
			pairs += SF_BATCH;
		}
		lo = pairs < lo ? pairs : lo;
		hi = pairs > hi ? pairs : hi;
		WRITE_ONCE_U32(sk->bss->writer_done, 1);
		__atomic_store_n(&s->sync[SYNC_FINISHED], run, __ATOMIC_SEQ_CST);
	}
	s->count[side][CNT_PAIRS] = n;
	s->count[side][CNT_PAIRS_MIN] = lo;
	s->count[side][CNT_PAIRS_MAX] = hi;
	return 0;
}

static enum ktap_result held_across_delete(void)
{
	int run, short_runs = 0, unprobed = 0, reused = 0, live = 0, other = 0;
	int first_other_run = 0, first_other = 0;
	unsigned long long probes = 0, released = 0;
	struct special_fields__bss *b;
	struct hold_ctx c = { 0 };
	struct churn_result ch;
	char reuse_line[300] = "", live_line[200] = "";
	double ms_min = 1e9, ms_max = 0, t0;
	const char *err;
	bool writer_ok;
	pid_t writer;
	int ret;

	if (!two_cpus("a reader on one, delete and reuse on another"))
		return KTAP_SKIP;
	c.s = shared_new();
	KTAP_EXPECT(c.s, "mmap: %s", strerror(errno));
	c.skel = special_fields__open_and_load();
	KTAP_EXPECT(c.skel, "cannot load tools/progs/special_fields.bpf.c: %s", strerror(errno));
	b = c.skel->bss;
	KTAP_EXPECT(!pin_to(READER_CPU), "cannot run on CPU %d", READER_CPU);
	writer = side_start(c.s, 1, WRITER_CPU, hold_writer, &c);
	KTAP_EXPECT(writer > 0, "fork: %s", strerror(errno));
	for (run = 1; run <= HOLD_RUNS; run++) {
		double ms;

		WRITE_ONCE_U32(b->reader_holding, 0);
		WRITE_ONCE_U32(b->writer_done, 0);
		WRITE_ONCE_U32(b->blocker_running, 0);
		WRITE_ONCE_U32(b->element_deleted, 0);
		b->hold_key = run;
		__atomic_store_n(&c.s->sync[SYNC_GO], run, __ATOMIC_SEQ_CST);
		t0 = mono_ms();
		while (!READ_ONCE_U32(b->blocker_running) &&
		       !__atomic_load_n(&c.s->failed, __ATOMIC_SEQ_CST) && mono_ms() - t0 < HOLD_WAIT_MS)
			;
		if (!READ_ONCE_U32(b->blocker_running))
			break;
		ret = htab_test_run(c.skel->progs.hold_fields, 1, NULL);
		if (ret || b->reader_err) {
			side_fail(c.s, 0, "run %d: hold_fields failed (%d, reader_err %d)", run, ret,
				  b->reader_err);
			break;
		}
		t0 = mono_ms();
		while (__atomic_load_n(&c.s->sync[SYNC_FINISHED], __ATOMIC_SEQ_CST) != run &&
		       !__atomic_load_n(&c.s->failed, __ATOMIC_SEQ_CST) && mono_ms() - t0 < HOLD_WAIT_MS)
			usleep(100);
		if (__atomic_load_n(&c.s->sync[SYNC_FINISHED], __ATOMIC_SEQ_CST) != run)
			break;
		if (b->reader_cpu != READER_CPU || b->blocker_cpu != WRITER_CPU) {
			side_fail(c.s, 0, "run %d: reader on CPU %u, writer on CPU %u", run,
				  b->reader_cpu, b->blocker_cpu);
			break;
		}
		if (b->reader_before != (HOLD_MARK | run) || b->reader_timer_before) {
			side_fail(c.s, 0, "run %d: before the delete the element read %#llx (not %#llx) and bpf_timer_cancel() %lld (not 0, the timer init_block_delete set)",
				  run, (unsigned long long)b->reader_before, HOLD_MARK | run,
				  (long long)b->reader_timer_before);
			break;
		}
		short_runs += !b->reader_saw_done;
		unprobed += !(b->reader_released + b->reader_live + b->reader_other_ret);
		probes += b->reader_probes;
		released += b->reader_released;
		if ((b->reader_changed || b->reader_after != b->reader_before ||
		     b->reader_lock_bad) && !reused++) {
			snprintf(reuse_line, sizeof(reuse_line),
				 "first: run %d, the element of value %#llx read %#llx %.1f ms into the section (%llu probes), %#llx at its end; the count under its lock was %#x, not the reader's %#x (%llu probes)",
				 run, (unsigned long long)b->reader_before,
				 (unsigned long long)b->reader_first_other, b->reader_changed_ns / 1e6,
				 (unsigned long long)b->reader_changed,
				 (unsigned long long)b->reader_after, b->reader_lock_seen,
				 b->reader_lock_expect, (unsigned long long)b->reader_lock_bad);
		}
		if (b->reader_live && !live++) {
			snprintf(live_line, sizeof(live_line),
				 "first: run %d, %llu of %llu probes after the delete found a timer, the first %.3f ms after the reader saw the delete",
				 run, (unsigned long long)b->reader_live,
				 (unsigned long long)(b->reader_live + b->reader_released),
				 b->reader_live_ns / 1e6);
		}
		if (b->reader_other_ret && !other++) {
			first_other_run = run;
			first_other = b->reader_other_first;
		}
		ms = b->reader_ns / 1e6;
		ms_min = ms < ms_min ? ms : ms_min;
		ms_max = ms > ms_max ? ms : ms_max;
	}
	writer_ok = side_wait(writer);
	err = first_failure(c.s);
	ch = c.skel->bss->churn;
	special_fields__destroy(c.skel);
	KTAP_EXPECT(writer_ok && !err, "%s", err ?: "the writer process failed");
	KTAP_EXPECT(run > HOLD_RUNS, "run %d did not complete", run);
	ktap_diag("%d runs: read sections of %.1f-%.1f ms on CPU %d, each spanning CPU %d's delete and %llu-%llu churn inserts and deletes in %d ms; %llu probes, %llu after a delete found the timer released",
		  HOLD_RUNS, ms_min, ms_max, READER_CPU, WRITER_CPU,
		  c.s->count[1][CNT_PAIRS_MIN], c.s->count[1][CNT_PAIRS_MAX], HOLD_CHURN_MS,
		  probes, released);
	KTAP_EXPECT(!short_runs,
		    "the reader's section ended before the writer's churn in %d of %d runs: they tested nothing",
		    short_runs, HOLD_RUNS);
	KTAP_EXPECT(!unprobed,
		    "the reader probed the element after its delete in no probe of %d of %d runs: they tested nothing",
		    unprobed, HOLD_RUNS);
	if (!KTAP_CHECK(!reused,
			"the deleted element a reader on CPU %d held was handed out again inside its read section in %d of %d runs",
			READER_CPU, reused, HOLD_RUNS)) {
		ktap_diag("  %s", reuse_line);
		return KTAP_FAIL;
	}
	if (!KTAP_CHECK(!live,
			"the deleted element's timer was in its field after the delete returned in %d of %d runs, not released at unlink",
			live, HOLD_RUNS)) {
		ktap_diag("  %s", live_line);
		return KTAP_FAIL;
	}
	KTAP_EXPECT(!other, "bpf_timer_cancel() on the deleted element was neither 0 nor -EINVAL in %d runs (first: run %d, %d)",
		    other, first_other_run, first_other);
	KTAP_EXPECT(!ch.missing && !ch.init_err,
		    "churn_timers: %llu churn keys missing, %llu bpf_timer_init() errors (first %lld)",
		    (unsigned long long)ch.missing, (unsigned long long)ch.init_err,
		    (long long)ch.first_err);
	KTAP_EXPECT(!ch.busy,
		    "bpf_timer_init() on a new churn element said -EBUSY %llu of %llu times: memory handed out again kept a timer",
		    (unsigned long long)ch.busy, (unsigned long long)ch.visited);
	ktap_diag("the deleted element a reader on CPU %d held was handed out again inside its read section in 0 of %d runs; its timer was in its field after the delete returned in 0; %llu churn elements' timers were clear",
		  READER_CPU, HOLD_RUNS, (unsigned long long)ch.visited);
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	{ "timer_lock_prealloc", timer_lock_prealloc },
	{ "timer_lock_no_prealloc", timer_lock_no_prealloc },
	{ "held_across_delete", held_across_delete },
};

KTAP_SUITE_MAIN("special_fields", cases)
