// SPDX-License-Identifier: GPL-2.0
/*
 * Armed bpf_timers in hash map values, on two CPUs: an element deleted
 * on one CPU while its timer is armed on the other, a timer cancelled
 * from one CPU while its callback runs on the other, and a map freed
 * with timers armed on both.  The programs are tools/progs/htab_timers.bpf.c
 * (a BPF_F_NO_PREALLOC hash of struct { struct bpf_timer; __u64 tag; }).
 *
 * The contracts, from 7.2's kernel/bpf/helpers.c and hashtab.c: a hash
 * map owns its elements' timers.  Deleting an element, or updating over
 * it, cancels its timer and frees it (free_htab_elem() ->
 * check_and_cancel_fields() -> bpf_timer_cancel_and_free()); the map's
 * last user reference does the same for every element left
 * (htab_map_free_internal_structs()); bpf_timer_cancel() takes the
 * callback away and waits for a running one (hrtimer_cancel()).  The
 * free path does not wait for a running callback: it takes the callback
 * away, tries to cancel, and frees the timer after an RCU Tasks Trace
 * grace period.  So the cases never time a callback: a delete or free
 * counts only when it returned before the timer's expiry (the program
 * records the time before it arms, and a cancel before the expiry takes
 * the hrtimer off its queue, so no callback may run at all), and the
 * time a case watches for callbacks afterwards is the expiry again,
 * long against a 10 ms tick; a control timer armed beside the others
 * must fire within that window, or the window proved nothing.
 *
 * A timer is armed only with a callback, which only a JIT can run: the
 * cases run on every 7.2 flavor but interp (the interpreter) and skip
 * there; on 6.1 and 6.12 (one CPU) they skip first for that.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "htab_util.h"
#include "ktap.h"
#include "sides.h"
#include "sysfs.h"
#include "htab_timers.skel.h"

#define CPU_A		0
#define CPU_B		1
#define MS		1000000ULL
/* The guest's tick (CONFIG_HZ=100): the granularity of "soon". */
#define TICK_MS		10
/* How long a side waits for the other before it gives up. */
#define SIDE_WAIT_MS	10000

#define TAG_TARGET	1
#define TAG_CONTROL	2	/* tools/progs/htab_timers.bpf.c */
#define TAG_OTHER	3

struct tval {
	__u64 timer[2];
	__u64 tag;
};

static void sleep_until(__u64 t)
{
	__u64 n;

	while ((n = mono_ns()) < t)
		usleep((t - n) / 1000 + 1);
}

static __u64 load_u64(volatile __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static int put_key(int fd, __u32 key, __u64 tag)
{
	struct tval v = { .tag = tag };

	return bpf_map_update_elem(fd, &key, &v, BPF_NOEXIST) ? -errno : 0;
}

/* Wait for s->sync[i] to reach @v; false when it did not within SIDE_WAIT_MS. */
static bool wait_sync(struct shared *s, int i, int v)
{
	__u64 t0 = mono_ns();

	while (__atomic_load_n(&s->sync[i], __ATOMIC_SEQ_CST) != v) {
		if (__atomic_load_n(&s->failed, __ATOMIC_SEQ_CST) ||
		    mono_ns() - t0 > SIDE_WAIT_MS * MS)
			return false;
		usleep(100);
	}
	return true;
}

/*
 * Both CPUs, and a JIT to run the callbacks: true, or false with the
 * skip's reason given.
 */
static bool can_arm(const char *what)
{
	if (!two_cpus(what))
		return false;
	if (sysfs_read_ll("/proc/sys/net/core/bpf_jit_enable") <= 0) {
		ktap_skip_reason("armed timers need a BPF callback, which the interpreter refuses: no BPF JIT on this kernel");
		return false;
	}
	return true;
}

/* --- delete_before_expiry ------------------------------------------------
 *
 * CPU A inserts a target and a control key and arms both timers
 * (expiry DEL_EXPIRY_MS, pinned to CPU A); CPU B deletes the target
 * through the syscall path.  A run counts when the delete returned
 * before the expiry: the delete cancelled a queued hrtimer, and no
 * callback may run for the element afterwards.  CPU A then watches
 * until DEL_EXPIRY_MS past the expiry, in which the control's callback
 * must have run.  A delete that left the timer armed
 * (kernel/mutants/7.2/htab-unlink-keeps-timer) lets it fire on the
 * element the map no longer has.
 */
#define DEL_RUNS	20
#define DEL_EXPIRY_MS	100

enum { SYNC_GO, SYNC_DONE };
enum { CNT_T, CNT_ERR, CNT_ARMED, CNT_ARM_ERR, CNT_ARM_DONE };

struct ctx {
	struct htab_timers *skel;
	struct shared *s;
};

static int delete_side(void *arg, int side)
{
	struct ctx *c = arg;
	struct shared *s = c->s;
	int fd = bpf_map__fd(c->skel->maps.timers);
	int run;
	__u32 key;

	for (run = 1;; run++) {
		__u64 t0 = mono_ns();
		int go;

		while ((go = __atomic_load_n(&s->sync[SYNC_GO], __ATOMIC_SEQ_CST)) != run &&
		       go >= 0)
			SIDE_EXPECT(s, side, mono_ns() - t0 < SIDE_WAIT_MS * MS,
				    "run %d never started", run);
		if (go < 0)
			return 0;
		key = 2 * run;
		s->count[side][CNT_ERR] = bpf_map_delete_elem(fd, &key) ? errno : 0;
		s->count[side][CNT_T] = mono_ns();
		__atomic_store_n(&s->sync[SYNC_DONE], run, __ATOMIC_SEQ_CST);
	}
}

static enum ktap_result delete_before_expiry(void)
{
	int run, valid = 0, late = 0, no_control = 0, overdue = 0, fd;
	struct htab_timers *skel;
	struct ctx c = { 0 };
	struct htab_timers__bss *b;
	const char *err;
	long long arm_err = 0;
	bool side_ok;
	pid_t pid;

	if (!can_arm("a timer armed on one, its element deleted on another"))
		return KTAP_SKIP;
	skel = htab_timers__open_and_load();
	KTAP_EXPECT(skel, "cannot load tools/progs/htab_timers.bpf.c: %s", strerror(errno));
	c.skel = skel;
	c.s = shared_new();
	KTAP_EXPECT(c.s, "mmap: %s", strerror(errno));
	b = skel->bss;
	fd = bpf_map__fd(skel->maps.timers);
	KTAP_EXPECT(!pin_to(CPU_A), "cannot run on CPU %d", CPU_A);
	pid = side_start(c.s, 1, CPU_B, delete_side, &c);
	KTAP_EXPECT(pid > 0, "fork: %s", strerror(errno));

	for (run = 1; valid < DEL_RUNS && run <= 2 * DEL_RUNS; run++) {
		__u64 f0 = load_u64(&b->fired), c0 = load_u64(&b->fired_control);
		__u64 expiry;

		if (put_key(fd, 2 * run, TAG_TARGET) || put_key(fd, 2 * run + 1, TAG_CONTROL)) {
			arm_err = -errno;
			break;
		}
		b->arm_first = 2 * run;
		b->arm_nr = 2;
		b->arm_ns = DEL_EXPIRY_MS * MS;
		if (tc_test_run(skel->progs.arm, 1, NULL) || b->arm_err || b->arm_done != 2) {
			/* Reported after the callbacks: a timer a delete left
			 * set makes a recycled element's bpf_timer_init() -EBUSY.
			 */
			arm_err = b->arm_err ?: -1;
			break;
		}
		expiry = b->armed_at + DEL_EXPIRY_MS * MS;
		__atomic_store_n(&c.s->sync[SYNC_GO], run, __ATOMIC_SEQ_CST);
		if (!wait_sync(c.s, SYNC_DONE, run))
			break;
		sleep_until(expiry + DEL_EXPIRY_MS * MS);
		if (c.s->count[1][CNT_ERR]) {
			arm_err = -(long long)c.s->count[1][CNT_ERR];
			break;
		}
		if (c.s->count[1][CNT_T] < expiry) {
			valid++;
			late += load_u64(&b->fired) != f0;
			no_control += load_u64(&b->fired_control) == c0;
		} else {
			overdue++;
		}
		/* The control fired; its delete frees an idle timer. */
		bpf_map_delete_elem(fd, &(__u32){ 2 * run + 1 });
	}
	__atomic_store_n(&c.s->sync[SYNC_GO], -1, __ATOMIC_SEQ_CST);
	side_ok = side_wait(pid);
	err = first_failure(c.s);
	htab_timers__destroy(skel);
	KTAP_EXPECT(side_ok && !err, "%s", err ?: "the deleting process failed");
	/* The evidence first: a later run's arm may fail because of it. */
	KTAP_EXPECT(late == 0,
		    "the timers of %d of %d elements deleted on CPU %d before their expiry fired on CPU %d after the delete returned",
		    late, valid, CPU_B, CPU_A);
	KTAP_EXPECT(!arm_err, "run %d: insert, arm or delete failed: %lld", run, arm_err);
	KTAP_EXPECT(!no_control,
		    "the control timer armed beside the deleted one did not fire within %d ms of its expiry in %d of %d runs: the window proves nothing",
		    DEL_EXPIRY_MS, no_control, valid);
	KTAP_EXPECT(valid == DEL_RUNS,
		    "%d of %d runs deleted the element before its timer's expiry (%d deleted after it): too few tested anything",
		    valid, DEL_RUNS, overdue);
	ktap_diag("the timers of 0 of %d elements deleted on CPU %d before their expiry fired on CPU %d after the delete returned; every control fired (%d runs deleted after the expiry, not counted)",
		  valid, CPU_B, CPU_A, overdue);
	return KTAP_PASS;
}

/* --- cancel_waits_for_callback -------------------------------------------
 *
 * CPU A arms a timer whose callback runs for SPIN_MS and arms it again
 * REARM_MS later, so that it is nearly always running; CPU B waits
 * until it runs and calls bpf_timer_cancel() from a program, which
 * reads the callback's state before and after the call.  A run counts
 * when the cancel found the callback running.  After the cancel, no
 * callback may be running (hrtimer_cancel() waited for it) and none may
 * start again (the cancel took the callback away; the running one's
 * re-arm then fails): CPU B watches for CANCEL_WATCH_MS, several
 * periods of the callback, and checks that none started.  A cancel
 * that does not wait (kernel/mutants/7.2/timer-cancel-no-wait) returns
 * with the callback still running.
 */
#define CANCEL_RUNS	10
#define SPIN_MS		20
#define REARM_MS	1
#define CANCEL_WATCH_MS	(5 * (SPIN_MS + REARM_MS) + TICK_MS)

enum { CNT_SAW, CNT_LEFT, CNT_UNFINISHED, CNT_RESTARTED, CNT_RET, CNT_CPU };

static int cancel_side(void *arg, int side)
{
	struct ctx *c = arg;
	struct shared *s = c->s;
	struct htab_timers__bss *b = c->skel->bss;
	int run;

	for (run = 1;; run++) {
		__u64 t0 = mono_ns();
		int go;

		while ((go = __atomic_load_n(&s->sync[SYNC_GO], __ATOMIC_SEQ_CST)) != run &&
		       go >= 0)
			SIDE_EXPECT(s, side, mono_ns() - t0 < SIDE_WAIT_MS * MS,
				    "run %d never started", run);
		if (go < 0)
			return 0;
		t0 = mono_ns();
		while (!__atomic_load_n(&b->cb_running, __ATOMIC_SEQ_CST))
			SIDE_EXPECT(s, side, mono_ns() - t0 < SIDE_WAIT_MS * MS,
				    "run %d: the callback never ran", run);
		SIDE_EXPECT(s, side, !tc_test_run(c->skel->progs.cancel, 1, NULL), "run %d: cancel: %s", run,
			    strerror(errno));
		usleep(CANCEL_WATCH_MS * 1000);
		s->count[side][CNT_SAW] = b->cancel_saw_running;
		s->count[side][CNT_LEFT] = b->cancel_left_running;
		s->count[side][CNT_UNFINISHED] = b->cancel_started != b->cancel_finished;
		s->count[side][CNT_RESTARTED] = load_u64(&b->cb_started) != b->cancel_started;
		s->count[side][CNT_RET] = b->cancel_ret;
		s->count[side][CNT_CPU] = b->cancel_cpu;
		__atomic_store_n(&s->sync[SYNC_DONE], run, __ATOMIC_SEQ_CST);
	}
}

static enum ktap_result cancel_waits_for_callback(void)
{
	int run, valid = 0, left = 0, restarted = 0, missed = 0, fd;
	struct htab_timers *skel;
	struct htab_timers__bss *b;
	struct ctx c = { 0 };
	long long fail = 0;
	const char *err;
	__u32 cb_cpu = 0, cancel_cpu = CPU_B;
	bool side_ok;
	pid_t pid;

	if (!can_arm("a callback running on one, cancelled from another"))
		return KTAP_SKIP;
	skel = htab_timers__open_and_load();
	KTAP_EXPECT(skel, "cannot load tools/progs/htab_timers.bpf.c: %s", strerror(errno));
	c.skel = skel;
	c.s = shared_new();
	KTAP_EXPECT(c.s, "mmap: %s", strerror(errno));
	b = skel->bss;
	fd = bpf_map__fd(skel->maps.timers);
	KTAP_EXPECT(!pin_to(CPU_A), "cannot run on CPU %d", CPU_A);
	pid = side_start(c.s, 1, CPU_B, cancel_side, &c);
	KTAP_EXPECT(pid > 0, "fork: %s", strerror(errno));

	for (run = 1; valid < CANCEL_RUNS && run <= 2 * CANCEL_RUNS; run++) {
		__u32 key = 1000 + run;

		if (put_key(fd, key, TAG_OTHER)) {
			fail = -errno;
			break;
		}
		/* The last run's timer is cancelled and its callback done. */
		b->cb_started = 0;
		b->cb_finished = 0;
		b->cb_running = 0;
		b->spin_key = key;
		b->spin_ns = SPIN_MS * MS;
		b->rearm_ns = REARM_MS * MS;
		if (tc_test_run(skel->progs.arm_spin, 1, NULL) || b->spin_arm_err) {
			fail = b->spin_arm_err ?: -1;
			break;
		}
		__atomic_store_n(&c.s->sync[SYNC_GO], run, __ATOMIC_SEQ_CST);
		if (!wait_sync(c.s, SYNC_DONE, run))
			break;
		cb_cpu = b->cb_cpu;
		cancel_cpu = c.s->count[1][CNT_CPU];
		if (c.s->count[1][CNT_SAW]) {
			valid++;
			left += c.s->count[1][CNT_LEFT] || c.s->count[1][CNT_UNFINISHED];
			restarted += c.s->count[1][CNT_RESTARTED] != 0;
		} else {
			missed++;
		}
		bpf_map_delete_elem(fd, &key);
	}
	__atomic_store_n(&c.s->sync[SYNC_GO], -1, __ATOMIC_SEQ_CST);
	side_ok = side_wait(pid);
	err = first_failure(c.s);
	htab_timers__destroy(skel);
	KTAP_EXPECT(side_ok && !err, "%s", err ?: "the cancelling process failed");
	KTAP_EXPECT(!fail, "run %d: insert or arm failed: %lld", run, fail);
	KTAP_EXPECT(cb_cpu == CPU_A && cancel_cpu == CPU_B,
		    "the callback ran on CPU %u and the cancel on CPU %u", cb_cpu, cancel_cpu);
	KTAP_EXPECT(left == 0,
		    "bpf_timer_cancel() on CPU %d returned while the callback still ran on CPU %d in %d of %d runs",
		    CPU_B, CPU_A, left, valid);
	KTAP_EXPECT(restarted == 0,
		    "a callback started within %d ms after bpf_timer_cancel() returned in %d of %d runs",
		    CANCEL_WATCH_MS, restarted, valid);
	KTAP_EXPECT(valid == CANCEL_RUNS,
		    "the cancel found the callback running in %d of %d runs (%d not): too few tested anything",
		    valid, CANCEL_RUNS, missed);
	ktap_diag("bpf_timer_cancel() on CPU %d returned while the callback still ran on CPU %d in 0 of %d runs; none started again within %d ms (%d runs found it idle, not counted)",
		  CPU_B, CPU_A, valid, CANCEL_WATCH_MS, missed);
	return KTAP_PASS;
}

/* --- map_freed_with_timers_armed -----------------------------------------
 *
 * Each CPU arms FREE_PER_CPU timers (expiry FREE_EXPIRY_MS, pinned to
 * it) in one map.  The first round keeps the map until the window ends:
 * every timer must fire (the control).  The second closes every file
 * of the skeleton before the expiry: the map's last user reference
 * cancels and frees every timer, and the map itself goes once the
 * programs the timers held are released.  The case keeps the program's
 * .bss (another map) open and mapped to count callbacks: none may run
 * after the free, and the timers' map must be gone within
 * FREE_GONE_MS (RCU Tasks Trace and RCU grace periods, then a work
 * item: a few ticks each).  A callback after the map is gone is a use
 * after free, which KASAN would also report.  A uref release that
 * leaves the timers armed (kernel/mutants/7.2/htab-uref-keeps-timers)
 * lets them all fire after the close.
 */
#define FREE_PER_CPU	32
#define FREE_EXPIRY_MS	200
#define FREE_GONE_MS	5000

static int arm_side(void *arg, int side)
{
	struct ctx *c = arg;
	struct shared *s = c->s;
	struct htab_timers__bss *b = c->skel->bss;

	if (!wait_sync(s, SYNC_GO, 1))
		return side_fail(s, side, "CPU %d never armed", CPU_A);
	b->arm_first = 2000 + FREE_PER_CPU * side;
	b->arm_nr = FREE_PER_CPU;
	b->arm_ns = FREE_EXPIRY_MS * MS;
	SIDE_EXPECT(s, side, !tc_test_run(c->skel->progs.arm, 1, NULL), "arm: %s", strerror(errno));
	s->count[side][CNT_ARMED] = b->armed_at;
	s->count[side][CNT_ARM_ERR] = b->arm_err;
	s->count[side][CNT_ARM_DONE] = b->arm_done;
	return 0;
}

struct free_round {
	__u64 armed_first;	/* before the first start */
	__u64 armed_last;
	__u64 fired_before;	/* callbacks before the free */
	__u64 fired_after;	/* ... after it returned */
	__u64 freed_at;
	bool gone;
};

static int free_round(bool free_early, struct free_round *r)
{
	struct htab_timers *skel;
	struct htab_timers__bss *b;
	struct ctx c = { 0 };
	int fd, i, bss_fd = -1, ret = -1;
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), id;
	size_t bss_len = 0;
	const char *err;
	bool side_ok;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	skel = htab_timers__open_and_load();
	if (!skel) {
		ktap_diag("cannot load tools/progs/htab_timers.bpf.c: %s", strerror(errno));
		return -1;
	}
	c.skel = skel;
	c.s = shared_new();
	b = skel->bss;
	fd = bpf_map__fd(skel->maps.timers);
	for (i = 0; i < 2 * FREE_PER_CPU; i++)
		if (put_key(fd, 2000 + i, TAG_OTHER)) {
			ktap_diag("insert key %d: %s", 2000 + i, strerror(errno));
			goto out;
		}
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		ktap_diag("map info: %s", strerror(errno));
		goto out;
	}
	id = info.id;
	if (!c.s || pin_to(CPU_A))
		goto out;
	pid = side_start(c.s, 1, CPU_B, arm_side, &c);
	if (pid <= 0)
		goto out;
	b->arm_first = 2000;
	b->arm_nr = FREE_PER_CPU;
	b->arm_ns = FREE_EXPIRY_MS * MS;
	i = tc_test_run(skel->progs.arm, 1, NULL);
	c.s->count[0][CNT_ARMED] = b->armed_at;
	c.s->count[0][CNT_ARM_ERR] = i ?: b->arm_err;
	c.s->count[0][CNT_ARM_DONE] = b->arm_done;
	__atomic_store_n(&c.s->sync[SYNC_GO], 1, __ATOMIC_SEQ_CST);
	/* The side's exit closes its copies of the skeleton's files. */
	side_ok = side_wait(pid);
	err = first_failure(c.s);
	if (!side_ok || err) {
		ktap_diag("%s", err ?: "the arming process failed");
		goto out;
	}
	for (i = 0; i < 2; i++)
		if (c.s->count[i][CNT_ARM_ERR] || c.s->count[i][CNT_ARM_DONE] != FREE_PER_CPU) {
			ktap_diag("CPU %d armed %llu of %d timers: %lld", i,
				  c.s->count[i][CNT_ARM_DONE], FREE_PER_CPU,
				  (long long)c.s->count[i][CNT_ARM_ERR]);
			goto out;
		}
	r->armed_first = c.s->count[0][CNT_ARMED];
	r->armed_last = c.s->count[1][CNT_ARMED];
	if (free_early) {
		/* The counts outlive the skeleton in a mapping of their own. */
		bss_fd = dup(bpf_map__fd(skel->maps.bss));
		bss_len = bpf_map__value_size(skel->maps.bss);
		b = bss_fd < 0 ? MAP_FAILED : mmap(NULL, bss_len, PROT_READ, MAP_SHARED, bss_fd, 0);
		if (b == MAP_FAILED) {
			ktap_diag("keep the .bss: %s", strerror(errno));
			goto out;
		}
		r->fired_before = load_u64(&b->fired);
		htab_timers__destroy(skel);
		skel = NULL;
		r->freed_at = mono_ns();
	}
	sleep_until(r->armed_last + 2 * FREE_EXPIRY_MS * MS);
	r->fired_after = load_u64(&b->fired) - r->fired_before;
	if (free_early) {
		__u64 t0 = mono_ns();
		int map_fd;

		while (!r->gone && mono_ns() - t0 < FREE_GONE_MS * MS) {
			map_fd = bpf_map_get_fd_by_id(id);
			if (map_fd < 0 && errno == ENOENT)
				r->gone = true;
			else if (map_fd >= 0)
				close(map_fd);
			usleep(TICK_MS * 1000);
		}
		/* And after it is gone, another window. */
		usleep(FREE_EXPIRY_MS * 1000);
		r->fired_after = load_u64(&b->fired) - r->fired_before;
		munmap(b, bss_len);
	}
	ret = 0;
out:
	if (bss_fd >= 0)
		close(bss_fd);
	if (c.s)
		munmap(c.s, sizeof(*c.s));
	htab_timers__destroy(skel);
	return ret;
}

static enum ktap_result map_freed_with_timers_armed(void)
{
	struct free_round keep, freed;

	if (!can_arm("timers armed on both when the map is freed"))
		return KTAP_SKIP;
	KTAP_EXPECT(!free_round(false, &keep), "the control round failed (see above)");
	KTAP_EXPECT(keep.fired_after == 2 * FREE_PER_CPU,
		    "%llu of %d timers armed on CPUs %d and %d fired within %d ms of their expiry in a map kept: the window proves nothing",
		    keep.fired_after, 2 * FREE_PER_CPU, CPU_A, CPU_B, FREE_EXPIRY_MS);
	KTAP_EXPECT(!free_round(true, &freed), "the round that frees the map failed (see above)");
	KTAP_EXPECT(freed.fired_after == 0,
		    "%llu callbacks of the %d timers armed on CPUs %d and %d ran after the map's last file was closed",
		    freed.fired_after, 2 * FREE_PER_CPU, CPU_A, CPU_B);
	KTAP_EXPECT(freed.fired_before == 0 &&
		    freed.freed_at < freed.armed_first + FREE_EXPIRY_MS * MS,
		    "the map was freed %.1f ms after the first timer was armed, %llu callbacks before: not before the expiry (%d ms), it tested nothing",
		    (double)(freed.freed_at - freed.armed_first) / MS, freed.fired_before,
		    FREE_EXPIRY_MS);
	KTAP_EXPECT(freed.gone, "the timers' map was not freed within %d ms of its last file's close",
		    FREE_GONE_MS);
	ktap_diag("0 callbacks of the %d timers armed on CPUs %d and %d ran after the map's last file was closed, %.1f ms before their expiry; the map was gone after it; kept, all %d fired",
		  2 * FREE_PER_CPU, CPU_A, CPU_B,
		  (double)(freed.armed_first + FREE_EXPIRY_MS * MS - freed.freed_at) / MS,
		  2 * FREE_PER_CPU);
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	{ "delete_before_expiry", delete_before_expiry },
	{ "cancel_waits_for_callback", cancel_waits_for_callback },
	{ "map_freed_with_timers_armed", map_freed_with_timers_armed },
};

KTAP_SUITE_MAIN("htab_timers", cases)
