// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF_F_NO_PREALLOC hash map driven from an XDP program run with
 * BPF_PROG_TEST_RUN, checked from user space.  One case per behaviour.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "htab_util.h"
#include "ktap.h"

#define BURST 16

static const struct htab_params params = {
	.type = BPF_MAP_TYPE_HASH,
	.flags = BPF_F_NO_PREALLOC,
	.value_size = sizeof(__u64),
	.max_entries = 1024,
	.burst = BURST,
};

static enum ktap_result prog_updates_are_visible(void)
{
	struct htab *skel = htab_open(&params);
	__u64 val;
	__u32 key;

	KTAP_EXPECT(skel, "cannot load the program");
	KTAP_EXPECT(!htab_test_run(skel->progs.update_burst, 1, NULL), "test run failed");
	KTAP_EXPECT(skel->bss->runs == 1, "program ran %llu times", (unsigned long long)skel->bss->runs);
	KTAP_EXPECT(skel->bss->updates_ok == BURST, "%llu of %d updates succeeded (%llu -ENOMEM)",
		    (unsigned long long)skel->bss->updates_ok, BURST,
		    (unsigned long long)skel->bss->updates_nomem);
	for (key = 0; key < BURST; key++) {
		KTAP_EXPECT(!bpf_map__lookup_elem(skel->maps.htab, &key, sizeof(key), &val, sizeof(val), 0),
			    "lookup of key %u: %s", key, strerror(errno));
		KTAP_EXPECT(val == key, "key %u holds %llu", key, (unsigned long long)val);
	}
	htab__destroy(skel);
	return KTAP_PASS;
}

static enum ktap_result repeat_runs_the_program_n_times(void)
{
	struct htab *skel = htab_open(&params);
	int fd;

	KTAP_EXPECT(skel, "cannot load the program");
	fd = bpf_map__fd(skel->maps.htab);
	KTAP_EXPECT(!htab_test_run(skel->progs.update_burst, 8, NULL), "test run failed");
	KTAP_EXPECT(skel->bss->runs == 8, "program ran %llu times", (unsigned long long)skel->bss->runs);
	KTAP_EXPECT(htab_count(fd) == 8 * BURST, "map holds %d keys", htab_count(fd));
	htab__destroy(skel);
	return KTAP_PASS;
}

static enum ktap_result prog_lookup_and_delete(void)
{
	struct htab *skel = htab_open(&params);
	__u32 key;
	__u64 val;
	int fd;

	KTAP_EXPECT(skel, "cannot load the program");
	fd = bpf_map__fd(skel->maps.htab);
	for (key = 0; key < BURST; key++) {
		val = key;
		KTAP_EXPECT(!bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST), "%s", strerror(errno));
	}
	KTAP_EXPECT(!htab_test_run(skel->progs.lookup_delete, 1, NULL), "test run failed");
	KTAP_EXPECT(skel->bss->lookups_ok == BURST, "%llu lookups found the right value",
		    (unsigned long long)skel->bss->lookups_ok);
	KTAP_EXPECT(skel->bss->deletes_ok == BURST, "%llu deletes succeeded",
		    (unsigned long long)skel->bss->deletes_ok);
	KTAP_EXPECT(htab_count(fd) == 0, "map still holds %d keys", htab_count(fd));
	htab__destroy(skel);
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	{ "prog_updates_are_visible", prog_updates_are_visible },
	{ "repeat_runs_the_program_n_times", repeat_runs_the_program_n_times },
	{ "prog_lookup_and_delete", prog_lookup_and_delete },
};

KTAP_SUITE_MAIN("htab_xdp", cases)
