// SPDX-License-Identifier: GPL-2.0
/* The expectations table: loader and matcher (expectations.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expectations.h"
#include "report.h"

struct expectation *expectations;
int nr_expectations;

/* Another 'case' line of @e's stanza. */
static void add_case(struct expectation *e, const char *glob)
{
	e->cases = realloc(e->cases, (e->nr_cases + 1) * sizeof(*e->cases));
	if (!e->cases)
		die("out of memory");
	e->cases[e->nr_cases++] = xstrdup(glob);
}

/*
 * The table is made of stanzas separated by blank lines, one "key value"
 * a line (see the head of tools/report/expectations).
 */
void load_expectations(const char *path)
{
	FILE *f = fopen(path, "r");
	struct expectation *e = NULL;
	char *line = NULL;
	size_t cap = 0;
	int n = 0;

	if (!f)
		die("%s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		char *s = line, *key, *val;

		n++;
		if (*s == '#')
			continue;
		s = trim(s);
		if (!*s) {
			e = NULL;
			continue;
		}
		key = s;
		val = strpbrk(s, " \t");
		if (!val)
			die("%s:%d: '%s' has no value", path, n, key);
		*val++ = '\0';
		val = trim(val);
		if (!e) {
			expectations = realloc(expectations, (nr_expectations + 1) * sizeof(*e));
			if (!expectations)
				die("out of memory");
			e = &expectations[nr_expectations++];
			memset(e, 0, sizeof(*e));
			e->file = xstrdup(path);
			e->line = n;
		}
		if (!strcmp(key, "case"))
			add_case(e, val);
		else if (!strcmp(key, "producer"))
			e->producer = xstrdup(val);
		else if (!strcmp(key, "variant"))
			e->variants = xstrdup(val);
		else if (!strcmp(key, "base"))
			e->bases = xstrdup(val);
		else if (!strcmp(key, "uml"))
			e->uml = xstrdup(val);
		else if (!strcmp(key, "tool"))
			e->tool = xstrdup(val);
		else if (!strcmp(key, "why"))
			e->why = xstrdup(val);
		else if (!strcmp(key, "skip")) {
			regex_t re;

			if (regcomp(&re, val, REG_EXTENDED | REG_NOSUB))
				die("%s:%d: 'skip %s' is not an extended regular expression", path, n, val);
			regfree(&re);
			e->skip = xstrdup(val);
		} else if (!strcmp(key, "shows")) {
			regex_t re;

			if (e->nr_shows == 4)
				die("%s:%d: at most 4 'shows' lines", path, n);
			if (regcomp(&re, val, REG_EXTENDED | REG_NOSUB))
				die("%s:%d: 'shows %s' is not an extended regular expression", path, n, val);
			regfree(&re);
			e->shows[e->nr_shows++] = xstrdup(val);
		} else {
			die("%s:%d: unknown key '%s' (case, producer, variant, base, uml, shows, skip, tool, why)",
			    path, n, key);
		}
	}
	free(line);
	fclose(f);
	for (n = 0; n < nr_expectations; n++) {
		e = &expectations[n];
		if (!e->nr_cases || !e->producer || !e->variants || !e->why)
			die("%s:%d: an expectation needs case, producer, variant and why", e->file, e->line);
		if (e->skip && (e->nr_shows || e->tool))
			die("%s:%d: %s: an allowed skip ('skip REGEX') is a stanza of its own",
			    e->file, e->line, e->cases[0]);
		if (!e->skip && !e->nr_shows && !e->tool)
			die("%s:%d: %s: say what proves the failure's reason ('shows REGEX')",
			    e->file, e->line, e->cases[0]);
		/* A failure that did not run is missed per stanza (rules.c). */
		if (!e->skip && e->nr_cases > 1)
			die("%s:%d: %s: several 'case' lines are for a 'skip' stanza; an expected failure is a stanza of its own",
			    e->file, e->line, e->cases[1]);
	}
}

/* VALUE is one of the space-separated words of LIST, or LIST is "*". */
static bool in_list(const char *list, const char *value)
{
	size_t len = strlen(value);
	const char *p = list;

	if (!list || !strcmp(list, "*"))
		return true;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, value, len) && (p[len] == ' ' || p[len] == '\0'))
			return true;
		p = strchrnul(p, ' ');
	}
	return false;
}

bool applies(const struct expectation *e)
{
	return in_list(e->producer, run.producer) && in_list(e->variants, run.variant) &&
	       in_list(e->bases, run.base) && in_list(e->uml, run.uml);
}

/* One of @e's case globs matches @name. */
static bool names(const struct expectation *e, const char *name)
{
	int i;

	for (i = 0; i < e->nr_cases; i++)
		if (!fnmatch(e->cases[i], name, 0))
			return true;
	return false;
}

struct expectation *expectation_of(const char *name)
{
	int i;

	for (i = 0; i < nr_expectations; i++)
		if (!expectations[i].tool && !expectations[i].skip && applies(&expectations[i]) &&
		    names(&expectations[i], name))
			return &expectations[i];
	return NULL;
}

/*
 * Whether the table allows @name to skip here for @reason: a 'skip'
 * stanza of the run's identity whose regex the reason matches, or a
 * 'tool' expectation of the case (tools/uspace/run runs that case on its
 * own, under its tool, and the main run skips it).
 */
bool skip_allowed(const char *name, const char *reason)
{
	int i;

	for (i = 0; i < nr_expectations; i++) {
		struct expectation *e = &expectations[i];
		regex_t re;
		bool match;

		if ((!e->skip && !e->tool) || !applies(e) || !names(e, name))
			continue;
		if (e->tool)
			return true;
		regcomp(&re, e->skip, REG_EXTENDED | REG_NOSUB);
		match = !regexec(&re, reason, 0, NULL, 0);
		regfree(&re);
		if (match)
			return true;
	}
	return false;
}

int list_expectations(void)
{
	int i;

	for (i = 0; i < nr_expectations; i++)
		if (applies(&expectations[i]) && !expectations[i].skip)
			printf("%s\t%s\t%s\n", expectations[i].cases[0],
			       expectations[i].tool ? expectations[i].tool : "-", expectations[i].why);
	return 0;
}
