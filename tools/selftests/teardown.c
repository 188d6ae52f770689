// SPDX-License-Identifier: GPL-2.0
/*
 * Maps destroyed with the allocator's work in flight: a refill irq_work
 * still pending, RCU and RCU tasks trace callbacks still queued, many
 * times over.
 *
 * UML 6.1 with uml/patches runs a raised irq_work at once, as x86 does
 * after its self-IPI, so a map is never destroyed with its refill
 * pending there.  On PREEMPT_RT and on architectures without an
 * irq_work interrupt it is: bpf_mem_alloc_destroy() must wait for it
 * (irq_work_sync()) before it frees the per-cpu caches the work runs
 * on.  uml/patches/6.1/0004 adds uml.irq_work=tick, which keeps raised
 * irq_work for the next timer tick (up to 10 ms at HZ=100); every case
 * here runs with it where the kernel has the knob, switched on through
 * sysfs for the case unless the kernel was booted with it.  Only the
 * refill_pending_* cases need it, and skip on a kernel without it: the
 * others destroy maps with RCU callbacks in flight, which a raised
 * irq_work does not take away, and run there with irq_work at once.
 *
 * A round: create a map, insert keys from user space until an insert
 * fails with -ENOMEM (the cache is empty: its refill is raised and
 * waits for the tick), read every inserted value back, optionally
 * delete them all (their frees queue the allocator's RCU and tasks
 * trace callbacks), close the map at once.  Its destroy, from a
 * kworker, comes well within the tick: a round takes a fraction of a
 * millisecond.  After all rounds the memory cgroup's charge must come
 * back to where it started.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ktap.h"
#include "memcg.h"
#include "sysfs.h"

#define IRQ_WORK_KNOB	"/sys/module/uml/parameters/irq_work"
#define CGROUP		"kit-teardown"

/* Rounds per value size; each destroys one map. */
#define ROUNDS		100
/* A round's cap when no insert fails (raise mode, preallocated maps). */
#define MAX_KEYS	64
/*
 * What a correct destroy may leave charged after the rounds, as in
 * reuse.destroy_with_callbacks_in_flight: the memcg's per-cpu charge
 * stock and slab pages partly used by other objects.  A leak of what a
 * refill brought into a destroyed cache is a batch of units per round,
 * hundreds of rounds: many MiB.
 */
#define SLACK		(1 << 20)

struct teardown {
	enum bpf_map_type type;
	__u32 flags;			/* BPF_F_NO_PREALLOC or 0 */
	bool delete_all;		/* free every element before the close */
	bool refill_pending;		/* needs irq_work late (the knob) */
	__u32 sizes[3];			/* value sizes, 0 ends the list */
};

/* What the rounds of one case saw. */
struct tally {
	unsigned int maps;		/* maps destroyed */
	unsigned int late;		/* maps whose last insert found the cache empty */
	unsigned long long inserted;
};

static bool is_percpu(enum bpf_map_type type)
{
	return type == BPF_MAP_TYPE_PERCPU_HASH;
}

static const char *map_name(const struct teardown *t)
{
	if (is_percpu(t->type))
		return t->flags & BPF_F_NO_PREALLOC ? "percpu_hash" : "prealloc percpu_hash";
	return t->flags & BPF_F_NO_PREALLOC ? "hash" : "prealloc hash";
}

/* The value of @key in round @round, byte @i of CPU @cpu's copy. */
static unsigned char pattern(unsigned int round, __u32 key, unsigned int cpu, size_t i)
{
	return (unsigned char)(round * 31 + key * 7 + cpu * 13 + i + 1);
}

static void fill(unsigned char *buf, __u32 stride, int nr_cpus, unsigned int round, __u32 key)
{
	int cpu;
	size_t i;

	for (cpu = 0; cpu < nr_cpus; cpu++)
		for (i = 0; i < stride; i++)
			buf[cpu * stride + i] = pattern(round, key, cpu, i);
}

/*
 * One map through its life; 0, or -1 with a diagnostic.  *@late is set
 * when an insert failed with -ENOMEM: its refill was then pending at
 * the close.
 */
static int one_round(const struct teardown *t, __u32 value_size, unsigned int round,
		     unsigned int *nr_inserted, bool *late)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = t->flags);
	int nr_cpus = is_percpu(t->type) ? libbpf_num_possible_cpus() : 1;
	/* Per-cpu values cross the syscall rounded up to 8 bytes a CPU. */
	__u32 stride = is_percpu(t->type) ? (value_size + 7) & ~7u : value_size;
	size_t len = (size_t)stride * nr_cpus;
	unsigned char *val = malloc(len), *got = malloc(len);
	__u32 key, nr = 0;
	int fd, ret = -1;

	*late = false;
	fd = bpf_map_create(t->type, "kit_teardown", sizeof(key), value_size, MAX_KEYS, &opts);
	if (fd < 0 || !val || !got) {
		ktap_diag("round %u: cannot create a %s of value_size %u: %s", round,
			  map_name(t), value_size, strerror(errno));
		goto out;
	}
	for (key = 0; key < MAX_KEYS; key++) {
		fill(val, stride, nr_cpus, round, key);
		if (!bpf_map_update_elem(fd, &key, val, BPF_NOEXIST))
			continue;
		if (errno != ENOMEM) {
			ktap_diag("round %u: %s value_size %u: insert %u: %s", round,
				  map_name(t), value_size, key, strerror(errno));
			goto out;
		}
		*late = true;
		break;
	}
	nr = key;
	for (key = 0; key < nr; key++) {
		fill(val, stride, nr_cpus, round, key);
		if (bpf_map_lookup_elem(fd, &key, got)) {
			ktap_diag("round %u: %s value_size %u: lookup %u of %u: %s", round,
				  map_name(t), value_size, key, nr, strerror(errno));
			goto out;
		}
		if (memcmp(got, val, len)) {
			ktap_diag("round %u: %s value_size %u: key %u of %u reads another value",
				  round, map_name(t), value_size, key, nr);
			goto out;
		}
	}
	for (key = 0; t->delete_all && key < nr; key++)
		if (bpf_map_delete_elem(fd, &key)) {
			ktap_diag("round %u: %s value_size %u: delete %u: %s", round,
				  map_name(t), value_size, key, strerror(errno));
			goto out;
		}
	*nr_inserted = nr;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(val);
	free(got);
	return ret;
}

/* How a case's irq_work runs. */
enum irq_work_mode {
	IRQ_WORK_UNAVAILABLE = -1,	/* no knob, and the case needs it */
	IRQ_WORK_AT_ONCE,		/* no knob: raised work runs at once */
	IRQ_WORK_LATE_BOOT,		/* booted with uml.irq_work=tick */
	IRQ_WORK_LATE_SWITCHED,		/* switched to tick for this case */
};

/*
 * uml.irq_work=tick for the case, where the kernel has the knob.
 * Without it a case that @needs_late skips (the reason set); the others
 * run with irq_work at once.
 */
static enum irq_work_mode irq_work_late_begin(bool needs_late)
{
	char mode[16] = "";
	FILE *f = fopen(IRQ_WORK_KNOB, "r");

	if (!f) {
		if (!needs_late) {
			ktap_diag("no %s: irq_work runs when this kernel runs it; maps go with callbacks in flight",
				  IRQ_WORK_KNOB);
			return IRQ_WORK_AT_ONCE;
		}
		ktap_skip_reason("no %s: irq_work cannot be made late on this kernel (the knob is uml/patches/6.1/0004's)",
				 IRQ_WORK_KNOB);
		return IRQ_WORK_UNAVAILABLE;
	}
	if (!fgets(mode, sizeof(mode), f))
		mode[0] = '\0';
	fclose(f);
	if (!strncmp(mode, "tick", 4)) {
		ktap_diag("irq_work waits for the tick for the whole boot (uml.irq_work=tick)");
		return IRQ_WORK_LATE_BOOT;
	}
	if (sysfs_write(IRQ_WORK_KNOB, "tick")) {
		ktap_skip_reason("cannot write tick to %s", IRQ_WORK_KNOB);
		return IRQ_WORK_UNAVAILABLE;
	}
	return IRQ_WORK_LATE_SWITCHED;
}

static void irq_work_late_end(enum irq_work_mode mode)
{
	if (mode == IRQ_WORK_LATE_SWITCHED && sysfs_write(IRQ_WORK_KNOB, "raise"))
		ktap_diag("cannot switch %s back to raise", IRQ_WORK_KNOB);
}

static enum ktap_result rounds(const struct teardown *t, struct tally *tally)
{
	unsigned int r, s, nr;
	long long start, end;
	bool late;

	KTAP_EXPECT(!memcg_enter(CGROUP), "cannot set up a memory cgroup");
	/* One round of each size first: the baseline then holds the slab
	 * and per-cpu pages each kind of map leaves charged.
	 */
	for (s = 0; s < 3 && t->sizes[s]; s++)
		KTAP_EXPECT(!one_round(t, t->sizes[s], 0, &nr, &late), "warm-up round failed");
	start = memcg_wait_below(0, 500);
	for (r = 1; r <= ROUNDS; r++)
		for (s = 0; s < 3 && t->sizes[s]; s++) {
			KTAP_EXPECT(!one_round(t, t->sizes[s], r, &nr, &late),
				    "round %u of %s value_size %u failed", r, map_name(t), t->sizes[s]);
			tally->maps++;
			tally->late += late;
			tally->inserted += nr;
		}
	end = memcg_wait_below(start + SLACK, 5000);
	memcg_leave(CGROUP);
	ktap_diag("%s: %u maps destroyed, %u with an insert that found the cache empty, %llu elements; memory.current %.2f -> %.2f MiB (slack %.0f MiB)",
		  map_name(t), tally->maps, tally->late, tally->inserted, MiB(start), MiB(end), MiB(SLACK));
	KTAP_EXPECT(end <= start + SLACK, "memory did not come back after %u destroys: %.2f MiB more",
		    tally->maps, MiB(end - start));
	return KTAP_PASS;
}

static enum ktap_result teardown_case(const struct teardown *t)
{
	struct tally tally = { 0 };
	enum irq_work_mode mode;
	enum ktap_result r;

	mode = irq_work_late_begin(t->refill_pending);
	if (mode == IRQ_WORK_UNAVAILABLE)
		return KTAP_SKIP;
	r = rounds(t, &tally);
	irq_work_late_end(mode);
	if (r != KTAP_PASS)
		return r;
	/*
	 * With irq_work late, a map's first inserts empty its cache (6.1
	 * prefills a few units) and the next fails until the tick: that
	 * failure is the sign the refill was pending when the map went.
	 * A case that never saw one tested nothing.
	 */
	if ((t->flags & BPF_F_NO_PREALLOC) && mode != IRQ_WORK_AT_ONCE)
		KTAP_EXPECT(tally.late > 0,
			    "no insert found its cache empty in %u maps: the refill never was pending at a destroy",
			    tally.maps);
	return KTAP_PASS;
}

#define CASE(name, ...)							\
static enum ktap_result name(void)					\
{									\
	static const struct teardown t = { __VA_ARGS__ };		\
									\
	return teardown_case(&t);					\
}

/*
 * Value sizes: a small, a medium and a page-sized unit; per-cpu values
 * around the size of a struct bpf_mem_cache, the per-cpu object a
 * destroyed cache leaves free for the next per-cpu allocation.
 */
CASE(refill_pending_hash, BPF_MAP_TYPE_HASH, BPF_F_NO_PREALLOC, false, true, { 8, 256, 4000 })
CASE(refill_pending_percpu_hash, BPF_MAP_TYPE_PERCPU_HASH, BPF_F_NO_PREALLOC, false, true,
	{ 8, 64, 256 })
CASE(callbacks_pending_hash, BPF_MAP_TYPE_HASH, BPF_F_NO_PREALLOC, true, false, { 8, 256, 4000 })
CASE(callbacks_pending_percpu_hash, BPF_MAP_TYPE_PERCPU_HASH, BPF_F_NO_PREALLOC, true, false,
	{ 8, 64, 256 })
CASE(prealloc_hash, BPF_MAP_TYPE_HASH, 0, true, false, { 8, 256, 4000 })
CASE(prealloc_percpu_hash, BPF_MAP_TYPE_PERCPU_HASH, 0, true, false, { 8, 64, 256 })

static const struct ktap_case cases[] = {
	{ "refill_pending_hash", refill_pending_hash },
	{ "refill_pending_percpu_hash", refill_pending_percpu_hash },
	{ "callbacks_pending_hash", callbacks_pending_hash },
	{ "callbacks_pending_percpu_hash", callbacks_pending_percpu_hash },
	{ "prealloc_hash", prealloc_hash },
	{ "prealloc_percpu_hash", prealloc_percpu_hash },
};

KTAP_SUITE_MAIN("teardown", cases)
