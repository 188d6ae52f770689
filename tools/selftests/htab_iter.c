// SPDX-License-Identifier: GPL-2.0
/*
 * Walks over a hash map that another CPU changes meanwhile.
 *
 * batch_delete_vs_delete: BPF_MAP_LOOKUP_AND_DELETE_BATCH on CPU 0
 * against single deletes of the same keys on CPU 1.  The batch walks
 * the buckets in order and, for each bucket that holds elements, copies
 * and unlinks all of them under the bucket's lock, freeing them once it
 * has dropped the lock (__htab_map_lookup_and_delete_batch()); a single
 * delete unlinks its element under the same lock.  So the two exclude
 * each other per bucket, and every key the map held is taken exactly
 * once: returned by the batch or deleted by CPU 1, never both, never
 * neither, and every value the batch returns is its key's.  A walk that
 * unlinks outside the lock lets both take an element (a double unlink,
 * a double free), which kernel/mutants/7.2/batch-unlink-unlocked shows.
 * Each of BATCH_ROUNDS rounds fills BATCH_KEYS keys from user space,
 * then starts both sides at a barrier: CPU 0 takes BATCH_COUNT elements
 * a call until -ENOENT, CPU 1 deletes keys in the order the batch walks
 * them (the map's buckets, fixed by its hash seed: the first round runs
 * the batch alone to learn it), always the next key at or past the
 * batch's front, so that it deletes in the buckets the batch's current
 * call is copying, not once where the walks cross.  The values are large
 * (BATCH_VALUE bytes): copying a bucket takes a while.  The case fails
 * too when no round had both sides take keys: then the walks never met
 * and it tested nothing.
 *
 * for_each_vs_churn: bpf_for_each_map_elem() over a BPF_F_NO_PREALLOC
 * hash on CPU 0, whose callback deletes every other key it visits, while
 * a program on CPU 1 inserts and deletes other keys of the same map.
 * bpf_for_each_hash_elem() walks each bucket under RCU, without its lock,
 * and the callback may delete the element it stands on: the walk goes
 * on through that element's next pointer.  That holds only while no
 * element unlinked during the walk is handed out again before the walk
 * ends, which an allocator that waits for a grace period before reuse
 * promises (the walk is one program run, one RCU read-side section).  A
 * reused element is linked into another bucket, and a walk standing on
 * it goes on there: it visits that bucket's keys again and leaves the
 * rest of its own.  So every key that the other CPU does not touch is
 * visited exactly once, with its own value, and the callback's deletes
 * all succeed.  ITER_WALKS walks, the deleted keys inserted again
 * between them; the case fails too when no walk met a churn element.  A
 * callback needs a JIT: without one the case skips.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "htab_util.h"
#include "ktap.h"
#include "sides.h"
#include "sysfs.h"
#include "../progs/htab_iter.h"
#include "htab_iter.skel.h"

#define BATCH_ROUNDS	30
#define BATCH_KEYS	256
/* Elements a batch call may return: several buckets' worth, a short walk. */
#define BATCH_COUNT	8
#define BATCH_VALUE	16384
#define BATCH_SALT	0x6261746368ULL

struct batch_value {
	__u64 key;
	__u64 round;
	__u64 sum;
	__u8 pad[BATCH_VALUE - 3 * sizeof(__u64)];
};

/* What both sides saw, in the shared page of the case. */
struct batch_tally {
	unsigned char taken[BATCH_KEYS];	/* by the batch: 1, by a delete: 2; or'ed */
	unsigned long long wrong;		/* values the batch returned not of their key */
	struct batch_value first_wrong;
	__u32 first_wrong_key;
	unsigned long long batched, deleted;	/* this round */
	__u32 order[BATCH_KEYS];		/* keys as the batch returned them */
};

struct batch_ctx {
	struct shared *s;
	struct batch_tally *t;
	int fd;
	int round;
};

static void batch_fill(struct batch_value *v, __u32 key, int round)
{
	v->key = key;
	v->round = round;
	v->sum = key ^ round ^ BATCH_SALT;
}

/* CPU 0: take the whole map with BPF_MAP_LOOKUP_AND_DELETE_BATCH. */
static int batch_side(struct batch_ctx *c, int side)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	static struct batch_value vals[BATCH_COUNT];
	__u32 keys[BATCH_COUNT], out_batch, in_batch;
	struct batch_value want;
	struct batch_tally *t = c->t;
	bool first = true;
	__u32 i, n;
	int err;

	do {
		n = BATCH_COUNT;
		err = bpf_map_lookup_and_delete_batch(c->fd, first ? NULL : &in_batch, &out_batch,
						      keys, vals, &n, &opts);
		err = err ? -errno : 0;
		SIDE_EXPECT(c->s, side, !err || err == -ENOENT,
			    "round %d: BPF_MAP_LOOKUP_AND_DELETE_BATCH: %s", c->round, strerror(-err));
		for (i = 0; i < n; i++) {
			SIDE_EXPECT(c->s, side, keys[i] < BATCH_KEYS,
				    "round %d: the batch returned key %u, never inserted", c->round,
				    keys[i]);
			__atomic_or_fetch(&t->taken[keys[i]], 1, __ATOMIC_SEQ_CST);
			batch_fill(&want, keys[i], c->round);
			if (!c->round && t->batched + i < BATCH_KEYS)
				t->order[t->batched + i] = keys[i];
			if (memcmp(&vals[i], &want, offsetof(struct batch_value, pad)) &&
			    !t->wrong++) {
				t->first_wrong = vals[i];
				t->first_wrong_key = keys[i];
			}
		}
		__atomic_add_fetch(&t->batched, n, __ATOMIC_SEQ_CST);
		in_batch = out_batch;
		first = false;
	} while (!err);
	return 0;
}

/*
 * CPU 1: delete keys in the batch's @order, each the next at or past its
 * front (the keys it returned and those deleted here are behind it),
 * counting the deletes that took one.
 */
static int delete_side(struct batch_ctx *c, int side, const __u32 *order)
{
	struct batch_tally *t = c->t;
	unsigned long long front;
	__u32 i, key;

	for (i = 0; i < BATCH_KEYS; i++) {
		front = __atomic_load_n(&t->batched, __ATOMIC_SEQ_CST) + t->deleted;
		if (i < front)
			i = front < BATCH_KEYS ? front : BATCH_KEYS - 1;
		key = order[i];
		if (!bpf_map_delete_elem(c->fd, &key)) {
			__atomic_or_fetch(&t->taken[key], 2, __ATOMIC_SEQ_CST);
			t->deleted++;
			continue;
		}
		SIDE_EXPECT(c->s, side, errno == ENOENT, "round %d: delete %u: %s", c->round, key,
			    strerror(errno));
	}
	return 0;
}

static int batch_round_side(void *arg, int side)
{
	struct batch_ctx *c = arg;
	__u32 order[BATCH_KEYS];

	memcpy(order, c->t->order, sizeof(order));
	if (!barrier(c->s, 2))
		return -1;
	return side ? delete_side(c, side, order) : batch_side(c, side);
}

static enum ktap_result batch_delete_vs_delete(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mopts, .map_flags = BPF_F_NO_PREALLOC);
	unsigned long long met = 0, batched = 0, deleted = 0;
	struct batch_ctx c = { 0 };
	static struct batch_value v;
	const char *err = NULL;
	__u32 key;
	bool ok = true;

	if (!two_cpus("a batch on one CPU, deletes on the other"))
		return KTAP_SKIP;
	c.s = shared_new();
	c.t = mmap(NULL, sizeof(*c.t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	KTAP_EXPECT(c.s && c.t != MAP_FAILED, "mmap: %s", strerror(errno));
	c.fd = bpf_map_create(BPF_MAP_TYPE_HASH, "kit_batch", sizeof(__u32), sizeof(v),
			      BATCH_KEYS, &mopts);
	KTAP_EXPECT(c.fd >= 0, "create a no-prealloc hash of %d: %s", BATCH_KEYS, strerror(errno));

	for (c.round = 0; ok && c.round <= BATCH_ROUNDS; c.round++) {
		pid_t pids[2] = { -1, -1 };
		int i;

		memset(c.t->taken, 0, sizeof(c.t->taken));
		c.t->batched = c.t->deleted = 0;
		for (key = 0; key < BATCH_KEYS; key++) {
			batch_fill(&v, key, c.round);
			KTAP_EXPECT(!bpf_map_update_elem(c.fd, &key, &v, BPF_NOEXIST),
				    "round %d: insert %u: %s", c.round, key, strerror(errno));
		}
		if (!c.round) {
			/* The batch alone: the order of the buckets. */
			ok = !batch_side(&c, 0);
		} else {
			for (i = 0; i < 2; i++)
				pids[i] = side_start(c.s, i, i, batch_round_side, &c);
			for (i = 0; i < 2; i++)
				ok &= side_wait(pids[i]);
		}
		err = first_failure(c.s);
		if (!ok || err)
			break;
		for (key = 0; key < BATCH_KEYS; key++)
			KTAP_EXPECT(c.t->taken[key] == 1 || c.t->taken[key] == 2,
				    "round %d: key %u was %s", c.round, key,
				    c.t->taken[key] ? "returned by the batch and deleted on CPU 1 too" :
						      "neither returned by the batch nor deleted on CPU 1");
		KTAP_EXPECT(!c.t->wrong,
			    "round %d: the batch returned %llu values not of their key; first: key %u read {key %llu, round %llu, sum %#llx}",
			    c.round, c.t->wrong, c.t->first_wrong_key, c.t->first_wrong.key,
			    c.t->first_wrong.round, c.t->first_wrong.sum);
		KTAP_EXPECT(bpf_map_get_next_key(c.fd, NULL, &key) && errno == ENOENT,
			    "round %d: key %u still in the map after both walks", c.round, key);
		if (!c.round)
			continue;
		met += c.t->batched && c.t->deleted;
		batched += c.t->batched;
		deleted += c.t->deleted;
	}
	close(c.fd);
	KTAP_EXPECT(ok && !err, "%s", err ?: "a side failed");
	ktap_diag("%d rounds of %d keys: %llu returned by the batch on CPU 0, %llu deleted on CPU 1, each exactly once; both sides took keys in %llu rounds",
		  BATCH_ROUNDS, BATCH_KEYS, batched, deleted, met);
	KTAP_EXPECT(met, "in no round did both CPUs take keys: the walks never met");
	return KTAP_PASS;
}

/* --- for_each_vs_churn --------------------------------------------------- */

#define ITER_WALKS	400

struct iter_ctx {
	struct shared *s;
	struct htab_iter *skel;
	int fd;
};

static int iter_insert(int fd, __u32 key)
{
	struct iter_value v = { .key = key, .salt = ITER_SALT };

	return bpf_map_update_elem(fd, &key, &v, BPF_NOEXIST) ? -errno : 0;
}

/* CPU 1: churn until the walker is done. */
static int churn_side(struct iter_ctx *c, int side)
{
	while (!__atomic_load_n(&c->s->sync[0], __ATOMIC_SEQ_CST)) {
		int err = tc_test_run(c->skel->progs.churn, 1, NULL);

		SIDE_EXPECT(c->s, side, !err, "churn run: %s", strerror(-err));
	}
	return 0;
}

/* CPU 0: ITER_WALKS walks, each checked. */
static int walk_side(struct iter_ctx *c, int side)
{
	struct htab_iter__bss *b = c->skel->bss;
	unsigned long long met = 0;
	__u32 key, w;
	int err;

	for (w = 1; w <= ITER_WALKS; w++) {
		memset(b->visits, 0, sizeof(b->visits));
		b->wrong = b->own_deletes = b->own_delete_err = b->churn_seen = 0;
		err = tc_test_run(c->skel->progs.walk, 1, NULL);
		SIDE_EXPECT(c->s, side, !err, "walk %u: %s", w, strerror(-err));
		SIDE_EXPECT(c->s, side, !b->wrong,
			    "walk %u: %llu stable elements read with another key's value; first: key %u read {key %llu, salt %#llx}",
			    w, (unsigned long long)b->wrong, b->first_wrong_key,
			    (unsigned long long)b->first_wrong_value.key,
			    (unsigned long long)b->first_wrong_value.salt);
		for (key = 0; key < ITER_STABLE; key++)
			SIDE_EXPECT(c->s, side, b->visits[key] == 1,
				    "walk %u: stable key %u visited %u times, not once (%llu churn elements met)",
				    w, key, b->visits[key], (unsigned long long)b->churn_seen);
		SIDE_EXPECT(c->s, side, b->own_deletes == ITER_STABLE / 2 && !b->own_delete_err,
			    "walk %u: the callback deleted %llu of %d keys, %llu deletes failed", w,
			    (unsigned long long)b->own_deletes, ITER_STABLE / 2,
			    (unsigned long long)b->own_delete_err);
		met += b->churn_seen > 0;
		/* The callback's deletes undone for the next walk. */
		for (key = 0; key < ITER_STABLE; key += 2) {
			err = iter_insert(c->fd, key);
			SIDE_EXPECT(c->s, side, !err, "walk %u: insert %u again: %s", w, key,
				    strerror(-err));
		}
	}
	c->s->count[side][0] = met;
	return 0;
}

static int iter_side(void *arg, int side)
{
	struct iter_ctx *c = arg;
	int err;

	if (!barrier(c->s, 2))
		return -1;
	if (side)
		return churn_side(c, side);
	err = walk_side(c, side);
	__atomic_store_n(&c->s->sync[0], 1, __ATOMIC_SEQ_CST);
	return err;
}

/* (Not named for_each_*: checkpatch reads that as a loop macro.) */
static enum ktap_result walk_vs_churn(void)
{
	struct iter_ctx c = { 0 };
	unsigned long long churn_ops, churn_err;
	const char *err = NULL;
	pid_t pids[2];
	bool ok = true;
	__u32 key;
	int i;

	if (!two_cpus("a walk on one CPU, inserts and deletes on the other"))
		return KTAP_SKIP;
	if (sysfs_read_ll("/proc/sys/net/core/bpf_jit_enable") <= 0) {
		ktap_skip_reason("bpf_for_each_map_elem() takes a callback, which the interpreter refuses: no BPF JIT on this kernel");
		return KTAP_SKIP;
	}
	c.s = shared_new();
	KTAP_EXPECT(c.s, "mmap: %s", strerror(errno));
	c.skel = htab_iter__open_and_load();
	KTAP_EXPECT(c.skel, "cannot load tools/progs/htab_iter.bpf.c: %s", strerror(errno));
	c.fd = bpf_map__fd(c.skel->maps.walked);
	for (key = 0; key < ITER_STABLE; key++)
		if (iter_insert(c.fd, key)) {
			htab_iter__destroy(c.skel);
			KTAP_EXPECT(0, "insert %u: %s", key, strerror(errno));
		}
	for (i = 0; i < 2; i++)
		pids[i] = side_start(c.s, i, i, iter_side, &c);
	for (i = 0; i < 2; i++)
		ok &= side_wait(pids[i]);
	err = first_failure(c.s);
	churn_ops = c.skel->bss->churn_ops;
	churn_err = c.skel->bss->churn_err;
	htab_iter__destroy(c.skel);
	KTAP_EXPECT(ok && !err, "%s", err ?: "a side failed");
	ktap_diag("%d walks of %d stable keys, each visited once with its value, the callback deleting every other one; %llu inserts and deletes of churn keys on CPU 1 meanwhile; %llu walks met churn elements",
		  ITER_WALKS, ITER_STABLE, churn_ops, c.s->count[0][0]);
	KTAP_EXPECT(!churn_err, "%llu of the churn's %llu inserts and deletes failed", churn_err,
		    churn_ops);
	KTAP_EXPECT(c.s->count[0][0], "no walk met a churn element: the walks tested nothing");
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	{ "batch_delete_vs_delete", batch_delete_vs_delete },
	{ "for_each_vs_churn", walk_vs_churn },
};

KTAP_SUITE_MAIN("htab_iter", cases)
