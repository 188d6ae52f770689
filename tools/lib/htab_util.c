// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "htab_util.h"
#include "ktap.h"

struct htab *htab_open(const struct htab_params *p)
{
	struct htab *skel;
	int err;

	skel = htab__open();
	if (!skel) {
		ktap_diag("htab__open: %s", strerror(errno));
		return NULL;
	}
	bpf_map__set_type(skel->maps.htab, p->type);
	bpf_map__set_map_flags(skel->maps.htab, p->flags);
	bpf_map__set_value_size(skel->maps.htab, p->value_size);
	bpf_map__set_max_entries(skel->maps.htab, p->max_entries);
	bpf_map__set_value_size(skel->maps.scratch, p->value_size);
	skel->rodata->burst = p->burst;
	skel->rodata->key_range = p->key_range ? p->key_range : 1;

	err = htab__load(skel);
	if (err) {
		ktap_diag("htab__load (value_size %u, max_entries %u): %s",
			  p->value_size, p->max_entries, strerror(-err));
		htab__destroy(skel);
		return NULL;
	}
	return skel;
}

int xdp_test_run(struct bpf_program *prog, const void *pkt, __u32 len, int repeat,
		 __u32 *avg_ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = pkt,
		.data_size_in = len,
		.repeat = repeat,
	);
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
	if (err) {
		err = -errno;
		ktap_diag("BPF_PROG_TEST_RUN %s: %s", bpf_program__name(prog), strerror(errno));
		return err;
	}
	if (avg_ns)
		*avg_ns = opts.duration;
	if (opts.retval != XDP_PASS) {
		ktap_diag("%s returned %u, not XDP_PASS", bpf_program__name(prog), opts.retval);
		return -EINVAL;
	}
	return 0;
}

static const char tc_frame[64];

int tc_test_run(struct bpf_program *prog, int repeat, __u32 *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = tc_frame,
		    .data_size_in = sizeof(tc_frame), .repeat = repeat);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts))
		return -errno;
	if (retval)
		*retval = opts.retval;
	return 0;
}

int htab_test_run(struct bpf_program *prog, int repeat, __u32 *avg_ns)
{
	char pkt[64] = { 0 };

	return xdp_test_run(prog, pkt, sizeof(pkt), repeat, avg_ns);
}

int htab_count(int map_fd)
{
	__u32 key, next;
	int n = 0;

	if (bpf_map_get_next_key(map_fd, NULL, &next))
		return 0;
	do {
		key = next;
		n++;
	} while (!bpf_map_get_next_key(map_fd, &key, &next));
	return n;
}

size_t htab_value_buf_size(const struct htab_params *p)
{
	size_t v = (p->value_size + 7) & ~7u;

	if (p->type == BPF_MAP_TYPE_PERCPU_HASH)
		return v * libbpf_num_possible_cpus();
	return p->value_size;
}
