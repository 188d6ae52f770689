// SPDX-License-Identifier: GPL-2.0
/*
 * Sleepable BPF_PROG_TYPE_SYSCALL programs that hold an inner map of a
 * map-in-map across points where they sleep (tools/selftests/map_in_map.c).
 *
 * Each run looks up the inner map of outer slot 0, reads its value (a
 * generation number and a pattern made from it), then sleeps a few
 * times: bpf_sys_bpf(BPF_MAP_CREATE) of an array large enough to be
 * vmalloc()ed reaches cond_resched() in vm_area_alloc_pages(), so
 * another process that is runnable gets the CPU while the program is
 * inside its rcu_read_lock_trace() section.  That process replaces or
 * deletes the outer entry and closes its own fd of the inner map.
 * Then the program creates a few arrays of the inner maps' size (see
 * bait()), reads the value again through the pointer it kept and looks
 * it up again through the inner map it holds: both must still show the
 * generation it saw first, because an inner map taken out of a
 * map-in-map may be freed only after an RCU tasks trace grace period
 * (bpf_map_fd_put_ptr(): free_after_mult_rcu_gp).
 *
 * The outer maps hold arrays and are preallocated, so every variant's
 * verifier lets a sleepable program use them (kmalloc-rcu and
 * free-after-gp refuse only non-preallocated hashes).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define MIM_WORDS	6	/* pattern words after the generation */
#define NAPS		4	/* sleeping points per run */
#define NAP_VALUE	4096
#define NAP_ENTRIES	64	/* 256 KiB: vmalloc()ed, so it reaches cond_resched() */
/* NAPS and the 256 KiB are map_in_map.c's too: it bounds their backlog. */
#define BAITS		4

struct mim_value {
	__u64 gen;
	__u64 word[MIM_WORDS];
};

struct mim_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mim_value);
};

struct mim_inner inner_tmpl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct mim_inner);
} outer_arr SEC(".maps") = {
	.values = { [0] = &inner_tmpl },
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 4);
	__type(key, __u32);
	__array(values, struct mim_inner);
} outer_hash SEC(".maps");

/* What the runs saw; user space reads and clears it between cases. */
struct mim_result {
	__u64 runs;		/* runs that found an inner map */
	__u64 absent;		/* runs that found slot 0 empty */
	__u64 overlapped;	/* slot 0 changed while the program held the inner map */
	__u64 changed;		/* the held inner map's value changed: a bug */
	__u64 lookup_lost;	/* the held inner map lost its element: a bug */
	__u64 nap_errors;	/* bpf_sys_bpf(BPF_MAP_CREATE) failed */
	__u64 first_gen;	/* the first broken run: what it saw first */
	__u64 then_gen;		/* ... and afterwards through the same pointer */
	__u64 then_word;	/* ... the last pattern word afterwards */
};

struct mim_result result;

/* The prefix of union bpf_attr that BPF_MAP_CREATE needs here. */
struct nap_attr {
	__u32 map_type;
	__u32 key_size;
	__u32 value_size;
	__u32 max_entries;
	__u32 map_flags;
};

static __always_inline void nap(void)
{
	struct nap_attr a = {
		.map_type = BPF_MAP_TYPE_ARRAY,
		.key_size = 4,
		.value_size = NAP_VALUE,
		.max_entries = NAP_ENTRIES,
	};
	long fd;

	fd = bpf_sys_bpf(BPF_MAP_CREATE, &a, sizeof(a));
	if (fd < 0)
		result.nap_errors++;
	else
		bpf_sys_close(fd);
}

/*
 * New arrays of the inner maps' own size: if an inner map this program
 * holds was freed during the naps, one of these takes its memory
 * (SLUB hands the last freed object out first) and zeroes it, so the
 * program's second read sees the free.  Their fds are closed, but the
 * maps live until the test run returns (the close is deferred to then).
 */
static __always_inline void bait(void)
{
	struct nap_attr a = {
		.map_type = BPF_MAP_TYPE_ARRAY,
		.key_size = 4,
		.value_size = sizeof(struct mim_value),
		.max_entries = 1,
	};
	long fd;

	fd = bpf_sys_bpf(BPF_MAP_CREATE, &a, sizeof(a));
	if (fd < 0)
		result.nap_errors++;
	else
		bpf_sys_close(fd);
}

static __always_inline __u64 pattern(__u64 gen, int i)
{
	return gen * 0x9e3779b97f4a7c15ULL + i;
}

static __always_inline void hold(void *inner, void *outer)
{
	struct mim_value *v, *again, *now;
	__u32 zero = 0;
	__u64 gen, later_gen, later_word;
	int i;

	v = bpf_map_lookup_elem(inner, &zero);
	if (!v)
		return;
	gen = v->gen;
	result.runs++;

	for (i = 0; i < NAPS; i++)
		nap();
	for (i = 0; i < BAITS; i++)
		bait();

	/* Through the pointer the program kept, and through the map it holds. */
	later_gen = v->gen;
	later_word = v->word[MIM_WORDS - 1];
	again = bpf_map_lookup_elem(inner, &zero);
	if (!again) {
		result.lookup_lost++;
	} else if (later_gen != gen || later_word != pattern(gen, MIM_WORDS - 1) ||
		   again->gen != gen) {
		if (!result.changed) {
			result.first_gen = gen;
			result.then_gen = later_gen;
			result.then_word = later_word;
		}
		result.changed++;
	}

	/* Did the other process change slot 0 meanwhile? */
	now = bpf_map_lookup_elem(outer, &zero);
	if (!now) {
		result.overlapped++;
	} else {
		struct mim_value *cur = bpf_map_lookup_elem(now, &zero);

		if (!cur || cur->gen != gen)
			result.overlapped++;
	}
}

/* Slot 0 of an outer map, held for the length of one program run. */
static __always_inline int hold_slot(void *outer)
{
	__u32 zero = 0;
	void *inner = bpf_map_lookup_elem(outer, &zero);

	if (!inner)
		result.absent++;
	else
		hold(inner, outer);
	return 0;
}

SEC("syscall")
int hold_array_slot(void *ctx)
{
	return hold_slot(&outer_arr);
}

SEC("syscall")
int hold_hash_slot(void *ctx)
{
	return hold_slot(&outer_hash);
}
