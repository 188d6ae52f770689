// SPDX-License-Identifier: GPL-2.0
/*
 * The allocator's kfunc users: bpf_obj_new()/bpf_obj_drop() and
 * bpf_percpu_obj_new()/bpf_percpu_obj_drop(), whose memory comes from
 * the any-size allocators bpf_global_ma and bpf_global_percpu_ma
 * (7.2's kernel/bpf/helpers.c and memalloc.c).  The programs are
 * tools/progs/obj_new.bpf.c: for each type size, SLOTS objects stashed
 * as local kptrs in an array map, each word stamped with its owner, and
 * taken out, checked and dropped by the next round, which puts new ones
 * in their place.
 *
 * A round allocates every size in turn, so the objects of all classes
 * are live at once; between rounds the case sleeps a few ticks, in which
 * the dropped objects' grace periods (bpf_mem_free_rcu()) end and the
 * caches take them back, to hand them out in the next round's bursts.
 * An object handed out in the wrong class, or freed into one, overlaps
 * its neighbours in the slab and shows another owner's stamp.
 *
 * kfunc calls need the JIT (and kernel BTF to resolve them): the cases
 * run on 7.2's default flavor and skip on every kernel without both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "htab_util.h"
#include "ktap.h"
#include "sysfs.h"
#include "obj_new.skel.h"

#define ROUNDS		8
/* Ticks (HZ=100) between rounds: a grace period or two. */
#define ROUND_GAP_MS	30
#define SLOTS		32	/* tools/progs/obj_new.bpf.c */
#define PCPU_LIMIT	512	/* BPF_GLOBAL_PERCPU_MA_MAX_SIZE */

static bool can_call_kfuncs(void)
{
	if (sysfs_read_ll("/proc/sys/net/core/bpf_jit_enable") <= 0) {
		ktap_skip_reason("bpf_obj_new() and the other kfuncs need a BPF JIT and kernel BTF: no BPF JIT on this kernel");
		return false;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		ktap_skip_reason("bpf_obj_new() and the other kfuncs need a BPF JIT and kernel BTF: no kernel BTF on this kernel");
		return false;
	}
	return true;
}

/* A program run; -ENOENT when it returned TC_ACT_SHOT: a slot lookup failed. */
static int tc_run(struct bpf_program *prog)
{
	__u32 retval;
	int err = tc_test_run(prog, 1, &retval);

	return err ?: retval == 2 ? -ENOENT : 0;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * The skeleton with only the programs named @only (exact) or starting
 * with @prefix loaded, the verifier's log of the load in @log.
 */
static struct obj_new *load_some(const char *prefix, const char *only, char *log, size_t len)
{
	struct bpf_program *prog;
	struct obj_new *skel;
	int err;

	skel = obj_new__open();
	if (!skel)
		return NULL;
	bpf_object__for_each_program(prog, skel->obj) {
		const char *name = bpf_program__name(prog);
		bool on = (prefix && has_prefix(name, prefix)) || (only && !strcmp(name, only));

		bpf_program__set_autoload(prog, on);
		if (on && log)
			bpf_program__set_log_buf(prog, log, len);
	}
	if (log)
		log[0] = 0;
	err = obj_new__load(skel);
	if (err) {
		obj_new__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

/* The last line of a verifier log that says something. */
static const char *log_tail(char *log)
{
	char *end = log + strlen(log), *p;

	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		*--end = 0;
	p = strrchr(log, '\n');
	return p ? p + 1 : log;
}

struct totals {
	unsigned long long allocated, failed, dropped;
};

/*
 * ROUNDS rounds of every program whose name starts with @prefix, and a
 * last one that only drops; 0, or a negative errno with the program's
 * name in @what.  A program (a size) that was never handed an object in
 * all the rounds tested nothing: its name goes to @unserved (else NULL).
 */
#define MAX_PROGS	64
static int run_rounds(struct obj_new *skel, const char *prefix, const char **what,
		      const char **unserved)
{
	unsigned long long served[MAX_PROGS] = { 0 };
	struct obj_new__bss *b = skel->bss;
	struct bpf_program *prog;
	int r, n, err;

	for (r = 1; r <= ROUNDS + 1; r++) {
		b->cur_round = r;
		b->keep = r <= ROUNDS;
		n = 0;
		bpf_object__for_each_program(prog, skel->obj) {
			unsigned long long before = b->allocated;

			if (!has_prefix(bpf_program__name(prog), prefix))
				continue;
			err = tc_run(prog);
			if (err) {
				*what = bpf_program__name(prog);
				return err;
			}
			if (n < MAX_PROGS)
				served[n++] += b->allocated - before;
		}
		usleep(ROUND_GAP_MS * 1000);
	}
	*unserved = NULL;
	n = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		if (!has_prefix(bpf_program__name(prog), prefix))
			continue;
		if (n < MAX_PROGS && !served[n++] && !*unserved)
			*unserved = bpf_program__name(prog);
	}
	return 0;
}

/* --- size_class_bursts ---------------------------------------------------
 *
 * For each of bpf_global_ma's classes C (16 ... 4096), types of C - 8
 * bytes (the unit, with its llist_node, exactly C) and C - 4 (the
 * smallest unit over C): SLOTS objects of each, allocated and stamped
 * in one program run, live while every other size is allocated, and
 * checked word by word when the next round drops them; ROUNDS rounds.
 * And a type one word over the largest class (4092 bytes, a 4100-byte
 * unit) is never served: bpf_obj_new() returns NULL.
 */
#define TOO_BIG_TRIES	64

static enum ktap_result size_class_bursts(void)
{
	struct obj_new *skel;
	struct obj_new__bss *b;
	const char *what = "", *unserved = NULL;
	int err, i;

	if (!can_call_kfuncs())
		return KTAP_SKIP;
	skel = load_some("cycle_", "too_big", NULL, 0);
	KTAP_EXPECT(skel, "cannot load tools/progs/obj_new.bpf.c: %s", strerror(errno));
	b = skel->bss;
	err = run_rounds(skel, "cycle_", &what, &unserved);
	for (i = 0; !err && i < TOO_BIG_TRIES; i++)
		err = tc_run(skel->progs.too_big);
	/*
	 * On a failure the objects stay stashed, the skeleton open: an
	 * object overlapping another may have broken its neighbour's
	 * header, which a drop would follow.
	 */
	KTAP_EXPECT(b->bad_objects == 0,
		    "%llu of %llu objects dropped held another owner's stamp; first: a %u-byte object in slot %u, word %u read 0x%08x, not 0x%08x",
		    (unsigned long long)b->bad_objects, (unsigned long long)b->dropped,
		    b->bad_size, b->bad_slot, b->bad_word, b->bad_read, b->bad_want);
	KTAP_EXPECT(!err, "test run of %s: %s", what, strerror(-err));
	KTAP_EXPECT(b->too_big_served == 0,
		    "bpf_obj_new() of a 4092-byte type (a 4100-byte unit, over the largest class) returned an object %llu of %d times",
		    (unsigned long long)b->too_big_served, TOO_BIG_TRIES);
	KTAP_EXPECT(b->dropped == b->allocated,
		    "%llu objects allocated, %llu dropped: the last round leaves every slot empty",
		    (unsigned long long)b->allocated, (unsigned long long)b->dropped);
	KTAP_EXPECT(!unserved, "%s was handed no object in %d rounds (%llu allocations failed "
		    "in all): that size tested nothing", unserved, ROUNDS,
		    (unsigned long long)b->alloc_failed);
	ktap_diag("0 of %llu objects of 21 sizes (8 ... 4088 bytes, in bursts of %d) held another owner's stamp over %d rounds; %llu allocations returned NULL; a 4092-byte type: NULL %d of %d times",
		  (unsigned long long)b->dropped, SLOTS, ROUNDS,
		  (unsigned long long)b->alloc_failed, TOO_BIG_TRIES, TOO_BIG_TRIES);
	obj_new__destroy(skel);
	return KTAP_PASS;
}

/* --- percpu_objects ------------------------------------------------------
 *
 * The verifier's limit first: a program allocating a per-cpu type of
 * exactly 512 bytes loads, one of 513 bytes is refused with "type size
 * (513) is greater than 512".  Then bursts as above of per-cpu types of
 * 8 ... 512 bytes (each class C of bpf_global_percpu_ma, and C + 4),
 * every CPU's copy stamped with its CPU and checked before the next
 * round drops it.
 */
#define LOG_LEN		(1 << 20)
static char verifier_log[LOG_LEN];

static enum ktap_result percpu_objects(void)
{
	static const char over_msg[] = "bpf_percpu_obj_new type size (513) is greater than 512";
	libbpf_print_fn_t old_print;
	struct obj_new *skel;
	struct obj_new__bss *b;
	const char *what = "", *unserved = NULL;
	int err;

	if (!can_call_kfuncs())
		return KTAP_SKIP;
	skel = load_some(NULL, "pcycle_512", verifier_log, LOG_LEN);
	KTAP_EXPECT(skel,
		    "a program allocating a per-cpu type of %d bytes (the verifier's limit) was refused: %s: %s",
		    PCPU_LIMIT, strerror(errno), log_tail(verifier_log));
	obj_new__destroy(skel);
	/* The refusal is expected: keep libbpf's report of it off the console. */
	old_print = libbpf_set_print(NULL);
	skel = load_some(NULL, "percpu_over_limit", verifier_log, LOG_LEN);
	libbpf_set_print(old_print);
	obj_new__destroy(skel);
	KTAP_EXPECT(!skel,
		    "a program allocating a per-cpu type of %d bytes (over the verifier's limit of %d) loaded",
		    PCPU_LIMIT + 1, PCPU_LIMIT);
	KTAP_EXPECT(strstr(verifier_log, over_msg),
		    "the %d-byte per-cpu type was refused, but not for its size: %s",
		    PCPU_LIMIT + 1, log_tail(verifier_log));

	skel = load_some("pcycle_", NULL, NULL, 0);
	KTAP_EXPECT(skel, "cannot load tools/progs/obj_new.bpf.c: %s", strerror(errno));
	b = skel->bss;
	err = run_rounds(skel, "pcycle_", &what, &unserved);
	KTAP_EXPECT(b->bad_objects == 0,
		    "%llu of %llu per-cpu objects dropped held another owner's stamp; first: a %u-byte object in slot %u, CPU %u's word %u read 0x%08x, not 0x%08x",
		    (unsigned long long)b->bad_objects, (unsigned long long)b->dropped,
		    b->bad_size, b->bad_slot, b->bad_cpu, b->bad_word, b->bad_read, b->bad_want);
	KTAP_EXPECT(!err, "test run of %s: %s", what, strerror(-err));
	KTAP_EXPECT(b->dropped == b->allocated,
		    "%llu per-cpu objects allocated, %llu dropped: the last round leaves every slot empty",
		    (unsigned long long)b->allocated, (unsigned long long)b->dropped);
	/*
	 * A program cannot wait for a refill, and a per-cpu one needs the
	 * percpu allocator's atomic reserve: a burst meets NULL now and then
	 * (a fifth to a third of the allocations here), and the slot stays
	 * empty until the next round.  That is the allocator's design; a
	 * size never served in any round tested nothing.
	 */
	KTAP_EXPECT(!unserved, "%s was handed no per-cpu object in %d rounds (%llu allocations "
		    "failed in all): that size tested nothing", unserved, ROUNDS,
		    (unsigned long long)b->alloc_failed);
	ktap_diag("a %d-byte per-cpu type loads, %d bytes is refused (\"%s\"); 0 of %llu per-cpu objects of 14 sizes (8 ... 512 bytes, every CPU's copy) held another owner's stamp over %d rounds; %llu allocations returned NULL",
		  PCPU_LIMIT, PCPU_LIMIT + 1, over_msg, (unsigned long long)b->dropped, ROUNDS,
		  (unsigned long long)b->alloc_failed);
	obj_new__destroy(skel);
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	{ "size_class_bursts", size_class_bursts },
	{ "percpu_objects", percpu_objects },
};

KTAP_SUITE_MAIN("obj_new", cases)
