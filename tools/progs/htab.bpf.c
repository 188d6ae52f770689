// SPDX-License-Identifier: GPL-2.0
/*
 * XDP programs that drive a hash map from BPF, run by the selftests with
 * BPF_PROG_TEST_RUN.  The loader sets the map's flags, sizes and the
 * scratch value size before load, so one object serves every size class.
 * UML 6.1 has no JIT, so no bpf_loop() or callbacks: plain bounded loops.
 * Sizes are given as key_size/value_size rather than BTF types, because
 * the loader changes them and a BTF type would no longer match.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define MAX_BURST 64
/* Upper bound of reuse_probe's churn and fill. */
#define MAX_PROBE_OPS 256
/* reuse_probe's churn and fill keys: far above the probe keys. */
#define CHURN_KEY 0x40000000U
#define FILL_KEY 0x50000000U
#define ENOMEM 12

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
} htab SEC(".maps");

/* Source of values as big as the hash map's; one element. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
} scratch SEC(".maps");

/* Set by the loader. */
const volatile __u32 burst = 16;
const volatile __u32 key_range = 1;

/* Results, read by the loader through the skeleton's bss. */
__u32 next_key;
__u32 next_del_key;
__u64 runs;
__u64 updates_ok;
__u64 updates_nomem;
__u64 updates_other_err;
__u64 deletes_ok;
__u64 lookups_ok;

/*
 * Reuse probe: key to look up and delete, insert+delete pairs of other
 * keys after the delete, keys to insert afterwards.
 */
__u32 probe_key;
__u32 probe_churn;
__u32 probe_fill;
__u64 probe_churn_ok;
__u64 probe_seen;
__u64 probe_fill_ok;
__u64 probe_nomem;	/* churn and fill inserts that met -ENOMEM */
__s64 probe_err;

static __always_inline __u64 *scratch_value(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

/* Update @key with @val and count the outcome. */
static __always_inline void update_counted(__u32 key, __u64 *val)
{
	long err;

	*val = key;
	err = bpf_map_update_elem(&htab, &key, val, BPF_ANY);
	if (!err)
		updates_ok++;
	else if (err == -ENOMEM)
		updates_nomem++;
	else
		updates_other_err++;
}

/* Insert @burst new keys, each value starting with its key. */
SEC("xdp")
int update_burst(struct xdp_md *ctx)
{
	__u64 *val = scratch_value();
	__u32 i;

	if (!val)
		return XDP_ABORTED;
	runs++;
	for (i = 0; i < MAX_BURST && i < burst; i++)
		update_counted(next_key++, val);
	return XDP_PASS;
}

/*
 * htab-mem's "overwrite": @burst BPF_ANY updates of keys cycling through
 * [0, key_range), so every update replaces an element and frees the old
 * one to the allocator.
 */
SEC("xdp")
int overwrite(struct xdp_md *ctx)
{
	__u64 *val = scratch_value();
	__u32 i;

	if (!val)
		return XDP_ABORTED;
	runs++;
	for (i = 0; i < MAX_BURST && i < burst; i++)
		update_counted(next_key++ % key_range, val);
	return XDP_PASS;
}

/*
 * Look up and then delete the next @burst keys, counting up from 0:
 * the keys update_burst or user space inserted.
 */
SEC("xdp")
int lookup_delete(struct xdp_md *ctx)
{
	__u64 *val;
	__u32 i;

	for (i = 0; i < MAX_BURST && i < burst; i++) {
		__u32 key = next_del_key++;

		val = bpf_map_lookup_elem(&htab, &key);
		if (val && *val == key)
			lookups_ok++;
		if (!bpf_map_delete_elem(&htab, &key))
			deletes_ok++;
	}
	return XDP_PASS;
}

/*
 * The use-after-free the reuse-after-GP series is about, inside one run
 * (one RCU read-side section): keep a pointer to probe_key's value,
 * delete probe_key, insert and delete probe_churn other keys one at a
 * time, insert probe_fill new keys, all with values 0xfeed0000 + key,
 * read through the old pointer, and delete the fill keys again.  The
 * churn's frees hand the batch that holds the probe element on (the
 * port passes frees to call_rcu() in batches of its watermark, 32), and
 * the fill allocates more than everything that could be reusable by
 * then, newest batches first: an allocator that makes a batch reusable
 * without waiting for a grace period gives the probe element out again
 * before the run ends.  No grace period can end inside one run.
 */
SEC("xdp")
int reuse_probe(struct xdp_md *ctx)
{
	__u64 *old, *val = scratch_value();
	__u32 i, key = probe_key;
	long err;

	if (!val)
		return XDP_ABORTED;
	old = bpf_map_lookup_elem(&htab, &key);
	if (!old) {
		probe_err = -1;
		return XDP_ABORTED;
	}
	probe_err = bpf_map_delete_elem(&htab, &key);
	if (probe_err)
		return XDP_ABORTED;
	for (i = 0; i < MAX_PROBE_OPS && i < probe_churn; i++) {
		key = CHURN_KEY + i;
		*val = 0xfeed0000ULL + key;
		err = bpf_map_update_elem(&htab, &key, val, BPF_NOEXIST);
		if (err) {
			probe_nomem += err == -ENOMEM;
			continue;
		}
		if (!bpf_map_delete_elem(&htab, &key))
			probe_churn_ok++;
	}
	for (i = 0; i < MAX_PROBE_OPS && i < probe_fill; i++) {
		key = FILL_KEY + i;
		*val = 0xfeed0000ULL + key;
		err = bpf_map_update_elem(&htab, &key, val, BPF_NOEXIST);
		if (!err)
			probe_fill_ok++;
		else
			probe_nomem += err == -ENOMEM;
	}
	probe_seen = *old;
	for (i = 0; i < MAX_PROBE_OPS && i < probe_fill; i++) {
		key = FILL_KEY + i;
		bpf_map_delete_elem(&htab, &key);
	}
	return XDP_PASS;
}
