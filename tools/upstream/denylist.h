/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/upstream/denylist/<base> at run time, for the upstream programs whose
 * cases are only known once built (test_verifier names its cases from
 * its tests[] table).  tools/upstream/gen-denylist turns the program's
 * entries into DENY("glob", "reason") lines; the runner's
 * --check-denylist, run at build time, fails on an entry that matches
 * no case, as gen-test-maps does for test_maps.
 */
#ifndef KIT_UPSTREAM_DENYLIST_H
#define KIT_UPSTREAM_DENYLIST_H

#include <stddef.h>

#include "ktap.h"

struct deny_entry {
	const char *glob;
	const char *reason;
};

/* The reason @name is denylisted for, or NULL. */
const char *deny_reason(const struct deny_entry *deny, size_t nr_deny,
			const char *name);

/*
 * Print an error for each entry of @deny that matches none of @cases and
 * return how many did.
 */
int deny_check(const char *prog, const struct deny_entry *deny, size_t nr_deny,
	       const struct ktap_case *cases, size_t nr_cases);

#endif /* KIT_UPSTREAM_DENYLIST_H */
