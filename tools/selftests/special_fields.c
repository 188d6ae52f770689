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
 * field), and count under the spin lock from the value's 0 to 1.  Each
 * round inserts 64 keys, runs the program, checks each value with a
 * BPF_F_LOCK lookup, then deletes the keys, or first updates over every
 * one and runs the program again (those updates free the elements that
 * had timers); after a pause long enough for grace periods the next
 * round's elements are the freed ones again.  The last round's elements
 * stay, timers and all, for the map's own free.
 *
 * What is not covered: armed timers (bpf_timer_set_callback() needs a
 * callback, which the interpreter refuses) and kptrs (a kptr field needs
 * the kernel's BTF, which these kernels are built without, and the
 * kfuncs that acquire one, which the interpreter refuses).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "htab_util.h"
#include "ktap.h"

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
};

struct sf_result {
	__u64 visited;
	__u64 missing;
	__u64 busy;
	__u64 init_err;
	__u64 second_ok;
	__u64 stale_count;
	__u64 first_bad_key;
	__s64 first_bad_ret;
};

#include "special_fields.skel.h"

static __u64 pattern(__u32 round, __u32 key, int i)
{
	return ((__u64)round << 40) ^ ((__u64)key << 8) ^ (0x5a5a0000ULL + i);
}

static int put_keys(int fd, __u32 first, __u32 round, __u64 flags)
{
	struct sf_value v;
	__u32 key;
	int i;

	for (key = first; key < first + SF_BATCH; key++) {
		memset(&v, 0, sizeof(v));
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

static int run_prog(struct bpf_program *prog, __u32 first)
{
	skel->bss->args.first = first;
	skel->bss->args.nr = SF_BATCH;
	return htab_test_run(prog, 1, NULL) ? -1 : 0;
}

/* Each value as the program left it: counted once, this round's data. */
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
		if (v.count != 1 || v.data[0] != pattern(round, key, 0) ||
		    v.data[SF_DATA - 1] != pattern(round, key, SF_DATA - 1)) {
			ktap_diag("round %u: key %u holds count %u data 0x%llx..0x%llx, not 1 "
				  "0x%llx..0x%llx", round, key, v.count,
				  (unsigned long long)v.data[0],
				  (unsigned long long)v.data[SF_DATA - 1],
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
		err = put_keys(fd, first, round, BPF_NOEXIST) || run_prog(prog, first) ||
		      check_values(fd, first, round);
		expect_visits += SF_BATCH;
		if (!err && (round & 1)) {
			/* Update over each: the old elements, timers set, are freed. */
			err = put_keys(fd, first, round, BPF_EXIST) || run_prog(prog, first) ||
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
		err = put_keys(fd, 0, round, BPF_NOEXIST) || run_prog(prog, 0) ||
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
		    "key %llu): a freed element's timer was left set", (unsigned long long)r.busy,
		    (unsigned long long)r.first_bad_key);
	KTAP_EXPECT(!r.init_err, "bpf_timer_init() failed %llu times (first: key %llu, %lld)",
		    (unsigned long long)r.init_err, (unsigned long long)r.first_bad_key,
		    (long long)r.first_bad_ret);
	KTAP_EXPECT(!r.second_ok, "a second bpf_timer_init() on one timer was not -EBUSY %llu "
		    "times", (unsigned long long)r.second_ok);
	KTAP_EXPECT(!r.stale_count, "%llu new elements held a count other than 0 under their "
		    "lock", (unsigned long long)r.stale_count);
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

static const struct ktap_case cases[] = {
	{ "timer_lock_prealloc", timer_lock_prealloc },
	{ "timer_lock_no_prealloc", timer_lock_no_prealloc },
};

KTAP_SUITE_MAIN("special_fields", cases)
