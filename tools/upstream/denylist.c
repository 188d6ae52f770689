// SPDX-License-Identifier: GPL-2.0
#include <fnmatch.h>
#include <stdio.h>

#include "denylist.h"

const char *deny_reason(const struct deny_entry *deny, size_t nr_deny,
			const char *name)
{
	size_t i;

	for (i = 0; i < nr_deny; i++)
		if (!fnmatch(deny[i].glob, name, 0))
			return deny[i].reason;
	return NULL;
}

int deny_check(const char *prog, const struct deny_entry *deny, size_t nr_deny,
	       const struct ktap_case *cases, size_t nr_cases)
{
	size_t i, j;
	int unused = 0;

	for (i = 0; i < nr_deny; i++) {
		for (j = 0; j < nr_cases; j++)
			if (!fnmatch(deny[i].glob, cases[j].name, 0))
				break;
		if (j == nr_cases) {
			fprintf(stderr, "error: DENYLIST: %s.%s matches no %s case\n",
				prog, deny[i].glob, prog);
			unused++;
		}
	}
	return unused;
}
