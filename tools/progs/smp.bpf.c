// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side of the two-CPU selftests (tools/selftests/smp.c): tc
 * programs run with BPF_PROG_TEST_RUN by processes pinned to one CPU
 * each (not XDP: with a JIT an XDP test run with repeat rewrites the XDP
 * dispatcher under stop_machine(), which stops the other side too).
 * Loaded only where the guest has two CPUs (7.2's SMP UML):
 * hold_across_delete uses may_goto, which 7.2's verifier knows and
 * 6.1's and 6.12's do not.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "kit_loop.h"
#include "smp.h"

char LICENSE[] SEC("license") = "GPL";


#define ENOMEM_		12
#define EEXIST_		17

/* --- reader_holds_across_delete ------------------------------------------ */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} held SEC(".maps");

/* Reads of writer_done between two may_goto checks: more time per budget. */
#define HOLD_INNER	16

/* Set by the reader before the run. */
__u32 hold_key;
/* Written by the writer process through the skeleton's mmap()ed bss. */
volatile __u32 writer_done;
/* Results; reader_holding is what the writer waits for. */
volatile __u32 reader_holding;
__u32 reader_cpu;
__u32 reader_saw_done;
__u32 reader_changed;
__s32 reader_err;
__u64 reader_before;
__u64 reader_after;
__u64 reader_first_other;
__u64 reader_changed_ns;
__u64 reader_ns;
__u64 reader_spins;

/*
 * One RCU read-side section: find hold_key's element, then keep reading
 * its value through that pointer until the writer on the other CPU says
 * it deleted the key and churned the map (or the may_goto budget runs
 * out), and report what the pointer read.
 */
SEC("tc")
int hold_across_delete(struct __sk_buff *ctx)
{
	__u32 key = hold_key, i;
	__u64 start, v, *old;

	reader_changed = 0;
	reader_saw_done = 0;
	reader_spins = 0;
	old = bpf_map_lookup_elem(&held, &key);
	if (!old) {
		reader_err = -1;
		return TC_ACT_SHOT;
	}
	reader_cpu = bpf_get_smp_processor_id();
	start = bpf_ktime_get_ns();
	reader_before = *old;
	reader_holding = 1;
	while (kit_can_loop) {
		for (i = 0; i < HOLD_INNER; i++)
			if (writer_done)
				break;
		if (writer_done) {
			reader_saw_done = 1;
			break;
		}
		v = *old;
		if (v != reader_before && !reader_changed) {
			reader_changed = 1;
			reader_first_other = v;
			reader_changed_ns = bpf_ktime_get_ns() - start;
		}
		reader_spins++;
	}
	reader_after = *old;
	reader_ns = bpf_ktime_get_ns() - start;
	return TC_ACT_OK;
}

/* Set by the writer before its run; read by both. */
__u32 block_key;
volatile __u32 blocker_running;
__u32 blocker_cpu;
__u32 blocker_saw_holding;
__s32 blocker_err;

/*
 * The writer's side: one RCU read-side section on the writer's CPU, so
 * that no grace period in flight can end while it runs, until the
 * reader holds block_key's element; then delete that key and return.
 * A grace period that began before the reader's section (and to which
 * the reader's CPU already reported) thus ends only after the delete.
 */
SEC("tc")
int block_and_delete(struct __sk_buff *ctx)
{
	__u32 key = block_key, i;

	blocker_saw_holding = 0;
	blocker_err = 0;
	blocker_cpu = bpf_get_smp_processor_id();
	blocker_running = 1;
	while (kit_can_loop) {
		for (i = 0; i < HOLD_INNER; i++)
			if (reader_holding)
				break;
		if (reader_holding) {
			blocker_saw_holding = 1;
			break;
		}
	}
	if (blocker_saw_holding)
		blocker_err = bpf_map_delete_elem(&held, &key);
	return TC_ACT_OK;
}

/* --- percpu_every_cpu --------------------------------------------------- */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct pcpu_value);
} pcpu SEC(".maps");

/* One per CPU: the process pinned to CPU c uses pcpu_args[c]. */
struct pcpu_args pcpu_args[PCPU_MAX_CPUS];

struct pcpu_result pcpu_result[PCPU_MAX_CPUS];

static __always_inline void pcpu_fill(struct pcpu_value *v, __u32 key, __u64 round, __u32 cpu)
{
	v->key = key;
	v->round = round;
	v->cpu = cpu;
	v->sum = key ^ round ^ cpu ^ PCPU_SALT;
}

/* Insert @key: this CPU's copy holds the pattern, the others 0. */
static __always_inline void pcpu_insert_key(__u32 key, __u32 cpu, struct pcpu_args *a,
					    struct pcpu_result *r)
{
	struct pcpu_value v;
	long err;

	pcpu_fill(&v, key, a->round, cpu);
	err = bpf_map_update_elem(&pcpu, &key, &v, BPF_NOEXIST);
	if (!err)
		r->inserted++;
	else if (err == -ENOMEM_)
		r->insert_nomem++;
	else if (err == -EEXIST_ && a->retry)
		r->insert_again++;
	else
		r->insert_err++;
}

/* Look @key up: this CPU's copy must hold this round's pattern. */
static __always_inline void pcpu_check_key(__u32 key, __u32 cpu, struct pcpu_args *a,
					   struct pcpu_result *r)
{
	struct pcpu_value *v = bpf_map_lookup_elem(&pcpu, &key);

	r->checked++;
	if (!v) {
		r->missing++;
		return;
	}
	if (v->key != key || v->round != a->round || v->cpu != cpu ||
	    v->sum != (key ^ a->round ^ cpu ^ PCPU_SALT)) {
		if (!r->wrong++) {
			r->first_wrong_key = key;
			r->first_wrong = *v;
		}
	}
}

enum pcpu_op { PCPU_INSERT, PCPU_CHECK, PCPU_DELETE };

/* @op on the keys [first, first + nr) that this CPU's pcpu_args name. */
static __always_inline int pcpu_burst(enum pcpu_op op)
{
	__u32 cpu = bpf_get_smp_processor_id(), i, key;
	struct pcpu_args *a;
	struct pcpu_result *r;

	if (cpu >= PCPU_MAX_CPUS)
		return TC_ACT_SHOT;
	a = &pcpu_args[cpu];
	r = &pcpu_result[cpu];
	for (i = 0; i < PCPU_BURST && i < a->nr; i++) {
		key = a->first + i;
		if (op == PCPU_INSERT)
			pcpu_insert_key(key, cpu, a, r);
		else if (op == PCPU_CHECK)
			pcpu_check_key(key, cpu, a, r);
		else if (!bpf_map_delete_elem(&pcpu, &key))
			r->deleted++;
	}
	return TC_ACT_OK;
}

SEC("tc")
int pcpu_insert(struct __sk_buff *ctx)
{
	return pcpu_burst(PCPU_INSERT);
}

SEC("tc")
int pcpu_check(struct __sk_buff *ctx)
{
	return pcpu_burst(PCPU_CHECK);
}

/* Half of a round's deletes are from BPF, half through the syscall. */
SEC("tc")
int pcpu_delete(struct __sk_buff *ctx)
{
	return pcpu_burst(PCPU_DELETE);
}

/* --- lock_update_vs_delete ------------------------------------------------ */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 2 * LOCK_KEYS);
	__type(key, __u32);
	__type(value, struct lock_value);
} locked SEC(".maps");

/* The value written: LOCK_WORDS stamps, no lock (BPF_F_LOCK skips it). */
struct lock_source {
	__u64 head;
	__u64 stamp[LOCK_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_source);
} lock_source SEC(".maps");

struct lock_stats lock_stats[PCPU_MAX_CPUS];

/* Read @key's value under its lock: all its words must hold one stamp. */
static __always_inline void lock_check(__u32 key, struct lock_stats *st)
{
	struct lock_value *v = bpf_map_lookup_elem(&locked, &key);
	__u64 w0, wj = 0;
	__u32 j, bad = 0;

	if (!v) {
		st->absent++;
		return;
	}
	bpf_spin_lock(&v->lock);
	w0 = v->stamp[0];
	for (j = 1; j < LOCK_WORDS; j++) {
		if (v->stamp[j] != w0) {
			bad = j;
			wj = v->stamp[j];
			break;
		}
	}
	bpf_spin_unlock(&v->lock);
	st->reads++;
	if (bad && !st->torn++) {
		st->torn_key = key;
		st->torn_word0 = w0;
		st->torn_word = wj;
		st->torn_at = bad;
	}
}

static __always_inline void lock_count_err(long err, struct lock_stats *st)
{
	if (err == -ENOMEM_)
		st->nomem++;
	else if (!st->errors++)
		st->first_error = err;
}

/* This run's source value: every word (CPU + 1) << 48 | run. */
static __always_inline struct lock_source *lock_fill(__u32 cpu, struct lock_stats *st)
{
	struct lock_source *src;
	__u32 zero = 0, j;
	__u64 stamp;

	src = bpf_map_lookup_elem(&lock_source, &zero);
	if (!src)
		return NULL;
	stamp = (__u64)(cpu + 1) << 48 | ++st->runs;
	for (j = 0; j < LOCK_WORDS; j++)
		src->stamp[j] = stamp;
	return src;
}

/*
 * One burst of BPF_F_LOCK writes of the LOCK_KEYS keys, each read back
 * under its lock: updates in place, or (recycle) each key deleted and
 * inserted again, so that its element may be a reused one.
 */
static __always_inline int lock_burst(int recycle)
{
	__u32 cpu = bpf_get_smp_processor_id(), i, key;
	__u64 flags = recycle ? BPF_NOEXIST | BPF_F_LOCK : BPF_F_LOCK;
	struct lock_source *src;
	struct lock_stats *st;
	long err;

	if (cpu >= PCPU_MAX_CPUS)
		return TC_ACT_SHOT;
	st = &lock_stats[cpu];
	src = lock_fill(cpu, st);
	if (!src)
		return TC_ACT_SHOT;
	for (i = 0; i < LOCK_BURST; i++) {
		key = i % LOCK_KEYS;
		if (recycle)
			bpf_map_delete_elem(&locked, &key);
		err = bpf_map_update_elem(&locked, &key, src, flags);
		if (recycle && err == -EEXIST_)
			st->reinserted++;
		else if (err)
			lock_count_err(err, st);
		else
			st->writes++;
		lock_check(key, st);
	}
	return TC_ACT_OK;
}

SEC("tc")
int lock_update(struct __sk_buff *ctx)
{
	return lock_burst(0);
}

SEC("tc")
int lock_recycle(struct __sk_buff *ctx)
{
	return lock_burst(1);
}
