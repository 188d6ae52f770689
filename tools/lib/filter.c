// SPDX-License-Identifier: GPL-2.0
/* The T= grammar: see filter.h. */
#define _GNU_SOURCE	/* FNM_EXTMATCH */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "filter.h"

/* The next comma-separated item of *@s, as a length; NULL at the end. */
static const char *next_item(const char **s, size_t *len)
{
	const char *item = *s, *comma;

	if (!item || !*item)
		return NULL;
	comma = strchr(item, ',');
	*len = comma ? (size_t)(comma - item) : strlen(item);
	*s = comma ? comma + 1 : NULL;
	return item;
}

static bool glob_matches(const char *glob, size_t len, const char *name)
{
	char pattern[512];

	if (len >= sizeof(pattern))
		return false;
	memcpy(pattern, glob, len);
	pattern[len] = '\0';
	return !fnmatch(pattern, name, FNM_EXTMATCH);
}

int filter_suite(const char *filter, const char *suite, char *cases, size_t size)
{
	const char *glob, *rest = filter;
	bool selected = false, every_case = false;
	size_t len, used = 0;

	if (!filter || !*filter) {
		if (cases && size)
			cases[0] = '\0';
		return 1;
	}
	while ((glob = next_item(&rest, &len))) {
		const char *dot = memchr(glob, '.', len);
		size_t suite_len = dot ? (size_t)(dot - glob) : len;
		size_t case_len = dot ? len - suite_len - 1 : 0;

		if (!glob_matches(glob, suite_len, suite))
			continue;
		selected = true;
		if (!dot) {
			every_case = true;
			continue;
		}
		if (!cases)
			continue;
		if (used + !!used + case_len + 1 > size)
			return -1;
		if (used)
			cases[used++] = ',';
		memcpy(cases + used, dot + 1, case_len);
		used += case_len;
		cases[used] = '\0';
	}
	if (cases && size && (every_case || !selected))
		cases[0] = '\0';
	return selected;
}

bool filter_case(const char *cases, const char *name)
{
	const char *glob, *rest = cases;
	size_t len;

	if (!cases || !*cases)
		return true;
	while ((glob = next_item(&rest, &len)))
		if (glob_matches(glob, len, name))
			return true;
	return false;
}

bool filter_selects(const char *filter, const char *suite, const char *name)
{
	char cases[1024];
	int r = filter_suite(filter, suite, cases, sizeof(cases));

	/* A filter too long to hold selects as much as it can: everything. */
	return r < 0 || (r && filter_case(cases, name));
}
