// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF_F_NO_PREALLOC hash map through the bpf() syscall: every element
 * comes from the BPF memory allocator.  One case per behaviour.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "htab_util.h"
#include "ktap.h"

#define NR_KEYS 64

static int create_map(__u32 max_entries)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);

	return bpf_map_create(BPF_MAP_TYPE_HASH, "kit_htab", sizeof(__u32),
			      sizeof(__u64), max_entries, &opts);
}

static enum ktap_result update_then_lookup(void)
{
	__u64 val;
	__u32 key;
	int fd = create_map(NR_KEYS);

	KTAP_EXPECT(fd >= 0, "map create: %s", strerror(errno));
	for (key = 0; key < NR_KEYS; key++) {
		val = key * 3;
		KTAP_EXPECT(!bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST),
			    "update of key %u: %s", key, strerror(errno));
	}
	for (key = 0; key < NR_KEYS; key++) {
		KTAP_EXPECT(!bpf_map_lookup_elem(fd, &key, &val),
			    "lookup of key %u: %s", key, strerror(errno));
		KTAP_EXPECT(val == key * 3, "key %u holds %llu", key, (unsigned long long)val);
	}
	KTAP_EXPECT(htab_count(fd) == NR_KEYS, "map holds %d keys", htab_count(fd));
	close(fd);
	return KTAP_PASS;
}

static enum ktap_result overwrite_replaces_value(void)
{
	__u32 key = 7;
	__u64 val = 1;
	int fd = create_map(NR_KEYS);

	KTAP_EXPECT(fd >= 0, "map create: %s", strerror(errno));
	KTAP_EXPECT(!bpf_map_update_elem(fd, &key, &val, BPF_ANY), "%s", strerror(errno));
	val = 2;
	KTAP_EXPECT(!bpf_map_update_elem(fd, &key, &val, BPF_EXIST), "%s", strerror(errno));
	KTAP_EXPECT(!bpf_map_lookup_elem(fd, &key, &val), "%s", strerror(errno));
	KTAP_EXPECT(val == 2, "value is %llu", (unsigned long long)val);
	KTAP_EXPECT(htab_count(fd) == 1, "map holds %d keys", htab_count(fd));
	close(fd);
	return KTAP_PASS;
}

static enum ktap_result noexist_on_present_key_fails(void)
{
	__u32 key = 1;
	__u64 val = 1;
	int fd = create_map(NR_KEYS);

	KTAP_EXPECT(fd >= 0, "map create: %s", strerror(errno));
	KTAP_EXPECT(!bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST), "%s", strerror(errno));
	KTAP_EXPECT(bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST) && errno == EEXIST,
		    "second BPF_NOEXIST update: errno %d", errno);
	close(fd);
	return KTAP_PASS;
}

static enum ktap_result delete_removes_key(void)
{
	__u32 key;
	__u64 val = 0;
	int fd = create_map(NR_KEYS);

	KTAP_EXPECT(fd >= 0, "map create: %s", strerror(errno));
	for (key = 0; key < NR_KEYS; key++)
		KTAP_EXPECT(!bpf_map_update_elem(fd, &key, &val, BPF_ANY), "%s", strerror(errno));
	for (key = 0; key < NR_KEYS; key += 2)
		KTAP_EXPECT(!bpf_map_delete_elem(fd, &key), "delete %u: %s", key, strerror(errno));
	for (key = 0; key < NR_KEYS; key++) {
		int err = bpf_map_lookup_elem(fd, &key, &val);

		KTAP_EXPECT(key % 2 ? !err : (err && errno == ENOENT),
			    "lookup of key %u after deleting even keys: err %d errno %d", key, err, errno);
	}
	KTAP_EXPECT(bpf_map_delete_elem(fd, &(__u32){ 0 }) && errno == ENOENT,
		    "second delete of key 0: errno %d", errno);
	close(fd);
	return KTAP_PASS;
}

static enum ktap_result full_map_rejects_new_key(void)
{
	__u32 key;
	__u64 val = 0;
	int fd = create_map(8);

	KTAP_EXPECT(fd >= 0, "map create: %s", strerror(errno));
	for (key = 0; key < 8; key++)
		KTAP_EXPECT(!bpf_map_update_elem(fd, &key, &val, BPF_ANY), "%s", strerror(errno));
	KTAP_EXPECT(bpf_map_update_elem(fd, &key, &val, BPF_ANY) && errno == E2BIG,
		    "update past max_entries: errno %d", errno);
	close(fd);
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	{ "update_then_lookup", update_then_lookup },
	{ "overwrite_replaces_value", overwrite_replaces_value },
	{ "noexist_on_present_key_fails", noexist_on_present_key_fails },
	{ "delete_removes_key", delete_removes_key },
	{ "full_map_rejects_new_key", full_map_rejects_new_key },
};

KTAP_SUITE_MAIN("htab_syscall", cases)
