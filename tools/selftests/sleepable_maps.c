// SPDX-License-Identifier: GPL-2.0
/*
 * Sleepable programs and BPF_F_NO_PREALLOC hash maps.
 *
 * A sleepable program reads map elements under rcu_read_lock_trace(), so
 * an element of a map it uses may only go back to slab after an RCU tasks
 * trace grace period.  The 6.1 allocator, reuse-after-gp and percpu-marks
 * wait for one before they kfree(); a hash map whose elements go back to
 * slab after a plain RCU grace period (kmalloc-rcu, as before Linux 6.1,
 * and free-after-gp) does not, and its verifier must refuse sleepable
 * programs that use such a map: directly, and through a map-in-map, whose
 * inner maps the program never names (pre-6.1 is_preallocated_map()
 * checked inner_map_meta).
 *
 * The image does not know the variant, so each case states one promise
 * and the judge knows which variants keep it:
 *
 * - no_prealloc_hash_loads, no_prealloc_percpu_hash_loads,
 *   no_prealloc_hash_of_maps_loads: a sleepable program that uses such a
 *   map (a hash of maps: its elements hold the inner maps) loads.
 *   tools/report/expectations names the variants whose verifier must
 *   refuse it instead (an expected failure that shows the refusal); on
 *   every other variant and base it must load.  So a variant that loses
 *   its verifier rule passes where it must fail (XPASS), and one that
 *   gains a refusal fails.
 *
 * - map_in_map_no_prealloc_as_direct: whatever the verifier decides for
 *   the direct use it decides for the map-in-map use too.
 */
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "ktap.h"
#include "sleepable_maps.skel.h"

#define REFUSAL "Sleepable programs can only use preallocated hash maps"

static char log_buf[64 * 1024];

struct load_result {
	int err;		/* 0, or the load's -errno */
	bool said_refusal;	/* the verifier log holds REFUSAL */
};

/* Load only @name of the object, sleepable, with its verifier log. */
static int load_one(const char *name, struct load_result *res)
{
	struct sleepable_maps *skel = sleepable_maps__open();
	struct bpf_program *prog, *p;

	if (!skel) {
		ktap_diag("cannot open the sleepable_maps object: %s", strerror(errno));
		return -1;
	}
	prog = bpf_object__find_program_by_name(skel->obj, name);
	if (!prog) {
		ktap_diag("no program %s in the object", name);
		sleepable_maps__destroy(skel);
		return -1;
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == prog);
	/* libbpf 1.1 adds it only inside load(): ask for it in the open. */
	bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_SLEEPABLE);
	log_buf[0] = '\0';
	bpf_program__set_log_buf(prog, log_buf, sizeof(log_buf));
	bpf_program__set_log_level(prog, 1);
	res->err = sleepable_maps__load(skel);
	res->said_refusal = strstr(log_buf, REFUSAL) != NULL;
	sleepable_maps__destroy(skel);
	return 0;
}

/*
 * The one check of a *_loads case: the program loaded.  A refusal fails
 * here, and the diagnostic says whether the verifier gave the pre-6.1
 * reason, which is what tools/report/expectations looks for.
 */
static enum ktap_result expect_loads(const char *name, const char *what)
{
	struct load_result res;

	KTAP_EXPECT(!load_one(name, &res), "cannot try %s", name);
	KTAP_EXPECT(!res.err, "sleepable program using %s refused (%d): %s", what,
		    res.err, res.said_refusal ? REFUSAL : "log without the refusal");
	ktap_diag("sleepable program using %s loads: the variant must keep its "
		  "elements from slab until RCU tasks trace ends", what);
	return KTAP_PASS;
}

static enum ktap_result no_prealloc_hash_loads(void)
{
	return expect_loads("lookup_direct", "a BPF_F_NO_PREALLOC hash");
}

static enum ktap_result no_prealloc_percpu_hash_loads(void)
{
	return expect_loads("lookup_percpu", "a BPF_F_NO_PREALLOC per-cpu hash");
}

static enum ktap_result no_prealloc_hash_of_maps_loads(void)
{
	return expect_loads("lookup_hash_of_maps", "a BPF_F_NO_PREALLOC hash of maps");
}

static enum ktap_result map_in_map_no_prealloc_as_direct(void)
{
	struct load_result direct, inner;

	KTAP_EXPECT(!load_one("lookup_direct", &direct), "cannot try the direct program");
	KTAP_EXPECT(!load_one("lookup_through_outer", &inner), "cannot try the map-in-map program");

	if (direct.err) {
		/* The variant refuses sleepable users of no-prealloc hashes. */
		KTAP_EXPECT(direct.said_refusal,
			    "direct use refused (%d) without \"" REFUSAL "\" in the log", direct.err);
		ktap_diag("direct use refused: %s", REFUSAL);
		KTAP_EXPECT(inner.err, "sleepable syscall program reaching a BPF_F_NO_PREALLOC "
			    "hash through an ARRAY_OF_MAPS was loaded, while direct use is refused");
		KTAP_EXPECT(inner.err == -EINVAL && inner.said_refusal,
			    "map-in-map use refused with %d, log without \"" REFUSAL "\"", inner.err);
		ktap_diag("map-in-map use refused: %s", REFUSAL);
	} else {
		/* Which of the two a variant must do: the *_loads cases. */
		KTAP_EXPECT(!inner.err, "direct use loads, map-in-map use refused (%d)%s",
			    inner.err, inner.said_refusal ? ": " REFUSAL : "");
		ktap_diag("direct and map-in-map use both load");
	}
	return KTAP_PASS;
}

static const struct ktap_case cases[] = {
	{ "no_prealloc_hash_loads", no_prealloc_hash_loads },
	{ "no_prealloc_percpu_hash_loads", no_prealloc_percpu_hash_loads },
	{ "no_prealloc_hash_of_maps_loads", no_prealloc_hash_of_maps_loads },
	{ "map_in_map_no_prealloc_as_direct", map_in_map_no_prealloc_as_direct },
};

KTAP_SUITE_MAIN("sleepable_maps", cases)
