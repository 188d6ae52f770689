// SPDX-License-Identifier: GPL-2.0
/*
 * Sleepable BPF_PROG_TYPE_SYSCALL programs (the selftest sets
 * BPF_F_SLEEPABLE) that use a BPF_F_NO_PREALLOC hash map, directly
 * and through an ARRAY_OF_MAPS, a BPF_F_NO_PREALLOC per-cpu hash map,
 * and a BPF_F_NO_PREALLOC hash of (preallocated array) maps.  tools/selftests/sleepable_maps.c loads one at a time: whether
 * each loads is pinned per variant (tools/report/expectations), and
 * the verifier must treat both ways of reaching the hash alike.
 * BTF-defined maps: map-in-map needs the inner map's definition.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct kit_inner_htab {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
};

struct kit_inner_htab htab SEC(".maps");
struct kit_inner_htab inner_htab SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct kit_inner_htab);
} outer SEC(".maps") = {
	.values = { [0] = &inner_htab },
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} percpu_htab SEC(".maps");

struct kit_inner_array {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
};

/* Its own elements, which hold the inner maps, are not preallocated. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct kit_inner_array);
} hash_of_maps SEC(".maps");

__u64 seen;

/* Reads key 0 of a map: the access the verifier must allow or refuse. */
static __always_inline int read_key0(void *map)
{
	__u32 key = 0;
	__u64 *val = bpf_map_lookup_elem(map, &key);

	if (val)
		seen = *val;
	return 0;
}

/* Reads key 0 of the inner map in slot 0 of a map-in-map. */
static __always_inline int read_key0_inner(void *outer)
{
	__u32 key = 0;
	void *inner = bpf_map_lookup_elem(outer, &key);

	return inner ? read_key0(inner) : 0;
}

/* Uses the no-prealloc hash map itself. */
SEC("syscall")
int lookup_direct(void *ctx)
{
	return read_key0(&htab);
}

/* Reaches a no-prealloc hash map through the map-in-map. */
SEC("syscall")
int lookup_through_outer(void *ctx)
{
	return read_key0_inner(&outer);
}

/* Uses the no-prealloc per-cpu hash map itself. */
SEC("syscall")
int lookup_percpu(void *ctx)
{
	return read_key0(&percpu_htab);
}

/* Uses the no-prealloc hash of maps itself. */
SEC("syscall")
int lookup_hash_of_maps(void *ctx)
{
	return read_key0_inner(&hash_of_maps);
}
