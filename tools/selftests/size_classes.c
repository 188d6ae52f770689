// SPDX-License-Identifier: GPL-2.0
/*
 * Hash elements at and around the edges of the allocator's size classes,
 * plain and per-cpu, allocated and freed in bursts, every byte of every
 * value written with a pattern and read back.
 *
 * Which sizes are edges.  A hash map's bpf_mem_alloc is a fixed-size one
 * (bpf_mem_alloc_init(&htab->ma, htab->elem_size, false)): its unit is
 * elem_size plus the llist_node that links a free unit (LLIST_NODE_SZ, 8
 * bytes), and each unit is a kmalloc() of exactly that, so the unit lands
 * in the kmalloc class at or above it.  elem_size is
 *
 *   sizeof(struct htab_elem) (48) + round_up(key_size, 8)
 *     + round_up(value_size, 8)          (plain hash)
 *     + sizeof(void *)                   (per-cpu hash: the value is a
 *                                         per-cpu area of round_up(value_size, 8)
 *                                         bytes from the per-cpu bpf_mem_alloc)
 *
 * so with a 4-byte key a plain unit is 64 + round_up(value_size, 8).  For
 * each kmalloc class C from 96 to 8192 the case uses the value sizes whose
 * unit is C - 8, exactly C (C - 65 and C - 64 bytes: one byte under the
 * rounding and on it), and one byte over (C - 63, a unit of C + 8, the
 * next class).  The 11 classes of bpf_mem_alloc's own sizes[] table
 * (bpf_mem_cache_idx()) serve only the any-size allocator
 * (bpf_mem_alloc_init(ma, 0, false)), which nothing an interpreted
 * program can reach uses on 6.1 or 6.12 (its users are kfuncs: bpf_obj_new,
 * dynptrs): those edges are not tested here.
 *
 * A per-cpu hash's unit is the same 72 bytes whatever its value size:
 * its edges are the per-cpu area's instead.  The per-cpu bpf_mem_alloc
 * (bpf_mem_alloc_init(&htab->pcpu_ma, round_up(value_size, 8), true))
 * hands out areas of round_up(value_size, 8) bytes from the percpu
 * allocator, whose granule is 4 bytes (PCPU_MIN_ALLOC_SIZE), and the
 * syscall path copies round_up(value_size, 8) bytes a CPU in and out
 * (6.1's pcpu_copy_value() writes them, every base's lookup reads them).
 * So the sizes that tell a rounded area from an unrounded one are those
 * 1-7 bytes under a multiple of 8, 4 under above all (an area the
 * granule does not round up either): an area cut at value_size lets the
 * copy-in overwrite the next area's first bytes, or the copy-out read
 * them into the padding of the caller's buffer, which must read back as
 * the zeroes written there.  pcpu_sizes[] holds those sizes and the
 * multiples of 8 beside them, from a lone word to a page, and the case
 * checks the limit too: round_up(value_size, 8) up to
 * PCPU_MIN_UNIT_SIZE (32 KiB) is a map, one byte more is -E2BIG.
 *
 * Each map of NR_KEYS elements goes through rounds: fill (a burst of
 * allocations), check every value, delete every other key (a burst of
 * frees), check the rest, fill again, check all, delete all, pause for
 * grace periods so the next round's elements are the freed ones.  A unit
 * too small for its element spills the value's last bytes into the next
 * object, whose free link a later free writes over (the default flavor
 * sees a value change, or the allocator follows a pattern as a pointer);
 * KASAN reports the out-of-bounds write itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ktap.h"

#define HTAB_ELEM	48	/* sizeof(struct htab_elem), 6.1 and 6.12 */
#define KEY_SIZE	4
#define NR_KEYS		96
/* Fewer of the large ones: the per-cpu allocator refills with GFP_NOWAIT. */
#define NR_KEYS_LARGE	32
#define ROUNDS		3

static const unsigned int classes[] = { 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192 };
static const unsigned int pcpu_sizes[] = { 4, 7, 8, 9, 12, 60, 64, 252, 256, 508, 512, 4092, 4096 };
#define PCPU_LIMIT	32768	/* PCPU_MIN_UNIT_SIZE */

static unsigned int ncpus;
static unsigned int nr_keys;	/* of the map being tested */
static unsigned long enomem_retries;
static unsigned char *buf, *got;

static unsigned int unit_of(unsigned int value_size, bool percpu)
{
	unsigned int elem = HTAB_ELEM + ((KEY_SIZE + 7) & ~7u);

	elem += percpu ? sizeof(void *) : (value_size + 7) & ~7u;
	return elem + 8;
}

/* The pattern of byte @i of key @key's value in round @round (per-cpu: @cpu). */
static unsigned char pat(__u32 key, unsigned int i, unsigned int round, unsigned int cpu)
{
	return (unsigned char)(key * 131 + i * 7 + round * 61 + cpu * 17 + (i >> 8) + 1);
}

/* The value buffer of a syscall: per-cpu maps take round_up(size, 8) per CPU. */
static size_t stride(unsigned int value_size, bool percpu)
{
	return percpu ? (value_size + 7) & ~7u : value_size;
}

static void make_value(unsigned char *v, __u32 key, unsigned int value_size, bool percpu,
		       unsigned int round)
{
	unsigned int cpu, i, n = percpu ? ncpus : 1;

	memset(v, 0, stride(value_size, percpu) * n);
	for (cpu = 0; cpu < n; cpu++)
		for (i = 0; i < value_size; i++)
			v[cpu * stride(value_size, percpu) + i] = pat(key, i, round, cpu);
}

struct edge {
	unsigned int value_size;
	bool percpu;
	const char *what;
};

/* Check the values that round @round wrote to keys start, start + step, ... */
static int check_keys(int fd, const struct edge *e, __u32 start, __u32 step, unsigned int round,
		      int phase)
{
	size_t len = stride(e->value_size, e->percpu) * (e->percpu ? ncpus : 1);
	__u32 key;

	for (key = start; key < nr_keys; key += step) {
		unsigned int cpu, i;

		memset(got, 0, len);
		if (bpf_map_lookup_elem(fd, &key, got)) {
			ktap_diag("value %u (%s), round %u step %d: lookup of key %u: %s",
				  e->value_size, e->what, round, phase, key, strerror(errno));
			return -1;
		}
		make_value(buf, key, e->value_size, e->percpu, round);
		for (cpu = 0; cpu < (e->percpu ? ncpus : 1); cpu++) {
			size_t off = cpu * stride(e->value_size, e->percpu);

			for (i = 0; i < stride(e->value_size, e->percpu); i++) {
				if (got[off + i] == buf[off + i])
					continue;
				ktap_diag("value %u (%s, unit %u), round %u step %d: key %u cpu %u "
					  "byte %u of %u%s is 0x%02x, not 0x%02x", e->value_size, e->what,
					  unit_of(e->value_size, e->percpu), round, phase, key, cpu, i,
					  e->value_size, i < e->value_size ? "" : " (padding)",
					  got[off + i], buf[off + i]);
				return -1;
			}
		}
	}
	return 0;
}

static int fill(int fd, const struct edge *e, __u32 start, __u32 step, unsigned int round)
{
	__u32 key;

	for (key = start; key < nr_keys; key += step) {
		int tries = 0, err;

		make_value(buf, key, e->value_size, e->percpu, round);
		/*
		 * -ENOMEM is not what this case is about: the refill of a
		 * large per-cpu unit may find no populated per-cpu chunk
		 * (GFP_NOWAIT) until pcpu_balance_workfn() ran.
		 */
		while ((err = bpf_map_update_elem(fd, &key, buf, BPF_NOEXIST)) &&
		       errno == ENOMEM && tries++ < 100) {
			enomem_retries++;
			usleep(10 * 1000);
		}
		if (err) {
			ktap_diag("value %u (%s), round %u: insert of key %u: %s", e->value_size,
				  e->what, round, key, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int drop(int fd, const struct edge *e, __u32 start, __u32 step, unsigned int round)
{
	__u32 key;

	for (key = start; key < nr_keys; key += step) {
		if (bpf_map_delete_elem(fd, &key)) {
			ktap_diag("value %u (%s), round %u: delete of key %u: %s", e->value_size,
				  e->what, round, key, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* One map of @e's value size through ROUNDS rounds; 0 or -1 (diagnosed). */
static int one_edge(const struct edge *e)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	unsigned int round;
	int fd, err = 0;

	nr_keys = e->value_size > 1024 ? NR_KEYS_LARGE : NR_KEYS;
	fd = bpf_map_create(e->percpu ? BPF_MAP_TYPE_PERCPU_HASH : BPF_MAP_TYPE_HASH, "kit_edge",
			    KEY_SIZE, e->value_size, nr_keys, &opts);
	if (fd < 0) {
		ktap_diag("value %u (%s): create: %s", e->value_size, e->what, strerror(errno));
		return -1;
	}
	for (round = 0; round < ROUNDS && !err; round++) {
		/*
		 * A burst of allocations, a burst of frees of every other
		 * element (the survivors' neighbours), the holes filled
		 * again, then everything freed.
		 */
		err = fill(fd, e, 0, 1, round) || check_keys(fd, e, 0, 1, round, 1) ||
		      drop(fd, e, 0, 2, round) || check_keys(fd, e, 1, 2, round, 2) ||
		      fill(fd, e, 0, 2, round + 100) ||
		      check_keys(fd, e, 0, 2, round + 100, 3) ||
		      check_keys(fd, e, 1, 2, round, 3) || drop(fd, e, 0, 1, round);
		/* Grace periods: the next round reuses these elements. */
		usleep(20 * 1000);
	}
	close(fd);
	return err ? -1 : 0;
}

static int alloc_bufs(void)
{
	int ret = libbpf_num_possible_cpus();

	if (ret <= 0)
		return -1;
	ncpus = ret;
	enomem_retries = 0;
	buf = malloc(8192 * ncpus);
	got = malloc(8192 * ncpus);
	return buf && got ? 0 : -1;
}

static void free_bufs(void)
{
	free(buf);
	free(got);
}

static enum ktap_result plain_edges(void)
{
	unsigned int c, j, tested = 0;

	KTAP_EXPECT(!alloc_bufs(), "no memory, or no possible CPUs");
	for (c = 0; c < ARRAY_SIZE(classes); c++) {
		unsigned int C = classes[c];
		/* unit C - 8; unit C (value one under the rounding, and on it); unit C + 8 */
		int deltas[] = { -72, -65, -64, -63 };

		for (j = 0; j < ARRAY_SIZE(deltas); j++) {
			struct edge e = { .value_size = C + deltas[j], .what = "plain" };

			if (one_edge(&e)) {
				free_bufs();
				KTAP_EXPECT(0, "value size %u (unit %u, kmalloc class %u edge) lost "
					    "its pattern or failed (see above)", e.value_size,
					    unit_of(e.value_size, false), C);
			}
			tested++;
		}
	}
	free_bufs();
	ktap_diag("hash: %u value sizes at the edges of %zu kmalloc classes, %d elements each "
		  "(%d above 1024 bytes), %d rounds: every byte read back; %lu inserts retried "
		  "after -ENOMEM", tested, ARRAY_SIZE(classes), NR_KEYS, NR_KEYS_LARGE, ROUNDS,
		  enomem_retries);
	return KTAP_PASS;
}

/* A per-cpu hash of @value_size: its fd (closed), or -errno. */
static int pcpu_create(unsigned int value_size)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "kit_edge", KEY_SIZE, value_size, 1,
				&opts);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static enum ktap_result percpu_edges(void)
{
	unsigned int j;
	int err;

	err = pcpu_create(PCPU_LIMIT);
	KTAP_EXPECT(!err, "a per-cpu hash of %d-byte values (PCPU_MIN_UNIT_SIZE): %s",
		    PCPU_LIMIT, strerror(-err));
	err = pcpu_create(PCPU_LIMIT + 1);
	KTAP_EXPECT(err == -E2BIG, "a per-cpu hash of %d-byte values, past PCPU_MIN_UNIT_SIZE: "
		    "%s, not E2BIG", PCPU_LIMIT + 1, err ? strerror(-err) : "created");

	KTAP_EXPECT(!alloc_bufs(), "no memory, or no possible CPUs");
	for (j = 0; j < ARRAY_SIZE(pcpu_sizes); j++) {
		struct edge e = { .value_size = pcpu_sizes[j], .percpu = true, .what = "per-cpu" };

		if (one_edge(&e)) {
			free_bufs();
			KTAP_EXPECT(0, "value size %u (a per-cpu area of %u bytes) lost its pattern "
				    "or failed (see above)", e.value_size, (e.value_size + 7) & ~7u);
		}
	}
	free_bufs();
	ktap_diag("per-cpu hash: %zu value sizes around multiples of 8, %d elements each, %d "
		  "rounds: every byte of every CPU's copy read back, padding 0; %d-byte values "
		  "a map, %d-byte ones E2BIG; %lu inserts retried after -ENOMEM",
		  ARRAY_SIZE(pcpu_sizes), NR_KEYS, ROUNDS, PCPU_LIMIT, PCPU_LIMIT + 1,
		  enomem_retries);
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	{ "plain_edges", plain_edges },
	{ "percpu_edges", percpu_edges },
};

KTAP_SUITE_MAIN("size_classes", cases)
