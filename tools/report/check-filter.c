// SPDX-License-Identifier: GPL-2.0
/*
 * check-filter FILTER SUITES-FILE
 *
 * Fail, listing the suites there are, when a glob of the T= filter
 * (tools/lib/filter.h) selects no suite of SUITES-FILE (one name a
 * line): a filter that matches nothing is a mistake, not an empty pass.
 * Case globs are checked in the guest, where the cases are known.
 * Exit 0 when every glob selects a suite, 1 when one does not, 2 on
 * bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

#define MAX_SUITES	256

int main(int argc, char **argv)
{
	char *suites[MAX_SUITES], line[256], bad[1024] = "", *filter, *glob, *save;
	int nr = 0, i;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: check-filter FILTER SUITES-FILE\n");
		return 2;
	}
	if (!*argv[1])
		return 0;
	f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	while (nr < MAX_SUITES && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (*line)
			suites[nr++] = strdup(line);
	}
	fclose(f);

	/* Each glob on its own: one that selects nothing is named. */
	filter = strdup(argv[1]);
	for (glob = strtok_r(filter, ",", &save); glob; glob = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < nr; i++)
			if (filter_suite(glob, suites[i], NULL, 0) > 0)
				break;
		if (i == nr)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " %s", glob);
	}
	if (!*bad)
		return 0;
	fprintf(stderr, "error: T=%s:%s matches no test suite; suites are:", argv[1], bad);
	for (i = 0; i < nr; i++)
		fprintf(stderr, " %s", suites[i]);
	fprintf(stderr, "\n       (T=suite or T=suite.case, globs allowed, comma-separated)\n");
	return 1;
}
