// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF_F_NO_PREALLOC hash map driven from an XDP program run with
 * BPF_PROG_TEST_RUN, checked from user space.  One case per behaviour.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "htab_util.h"
#include "ktap.h"
#include "sysfs.h"

#define BURST 16

static const struct htab_params params = {
	.type = BPF_MAP_TYPE_HASH,
	.flags = BPF_F_NO_PREALLOC,
	.value_size = sizeof(__u64),
	.max_entries = 1024,
	.burst = BURST,
};

/*
 * Say how the program runs: JIT-compiled (its tag and the size of its
 * image) or interpreted, with the kernel's bpf_jit_enable, so that a run
 * with the JIT (7.2 but its interp flavor) shows it ran what it compiled.
 */
static void show_jit(struct bpf_program *prog)
{
	long long enable = sysfs_read_ll("/proc/sys/net/core/bpf_jit_enable");
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	char state[24] = "absent", tag[2 * BPF_TAG_SIZE + 1];
	int i;

	if (enable >= 0)
		snprintf(state, sizeof(state), "%lld", enable);
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len)) {
		ktap_diag("bpf_jit_enable %s; program info: %s", state, strerror(errno));
		return;
	}
	for (i = 0; i < BPF_TAG_SIZE; i++)
		snprintf(tag + 2 * i, 3, "%02x", info.tag[i]);
	ktap_diag("bpf_jit_enable %s; program %s, tag %s: %s (%u bytes of BPF, %u of x86-64)",
		  state, bpf_program__name(prog), tag,
		  info.jited_prog_len ? "JIT-compiled" : "interpreted",
		  info.xlated_prog_len, info.jited_prog_len);
}

static enum ktap_result prog_updates_are_visible(void)
{
	struct htab *skel = htab_open(&params);
	__u64 val;
	__u32 key;

	KTAP_EXPECT(skel, "cannot load the program");
	show_jit(skel->progs.update_burst);
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
