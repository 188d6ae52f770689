// SPDX-License-Identifier: GPL-2.0
/* The rules of the verdict (rules.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expectations.h"
#include "filter.h"
#include "rules.h"

struct judged *judged;
int nr_judged;
static int judged_cap;

/* --- the run's filter: tools/lib/filter.c's grammar, init's ------------- */

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* run.conf says "all" for no filter. */
static const char *run_filter(void)
{
	return run.filter && *run.filter && strcmp(run.filter, "all") ? run.filter : NULL;
}

/* Whether the run's filter chose @suite. */
static bool suite_chosen(const char *suite)
{
	return filter_suite(run_filter(), suite, NULL, 0) > 0;
}

/* Whether the run's filter selected @name: "suite.case", or a suite. */
static bool selected(const char *name)
{
	const char *dot = strchr(name, '.');
	char *suite;
	bool sel;

	if (!dot)
		return suite_chosen(name);
	suite = xasprintf("%.*s", (int)(dot - name), name);
	sel = filter_selects(run_filter(), suite, dot + 1);
	free(suite);
	return sel;
}

/*
 * The evidence of an expected failure (README, "Expected failures"):
 *
 * A failed check is a diagnostic "<file>:<line>: expected <cond>: <message>"
 * (KTAP_EXPECT, tools/lib/ktap.h); the lines it carries are the indented
 * diagnostics ("#   ...") right after it.  A tool report line is one of
 * a sanitizer's or Valgrind's, or the user-space allocator's WARN_ON.
 * A failing case is the expected failure only when it has exactly one
 * failed check, no tool report line, and each 'shows' matches the failed
 * check's message (the text after any ": " past "expected ", so that an
 * anchored regex can match the message alone) or one of its carried lines.
 * Diagnostics printed before the check are not evidence: they may come
 * from before a check that failed for another reason.
 *
 * The tree's own programs (producer "upstream") print no such lines: each
 * case is one program, relayed by tools/upstream/child.c, whose failed
 * check is its exit ("exited with N"), and which carries everything the
 * program printed before it.
 */
#define TOOL_REPORTS "ERROR: [A-Za-z]*Sanitizer|runtime error:|WARNING: ThreadSanitizer|" \
	"ThreadSanitizer:|== ERROR SUMMARY: [1-9]|definitely lost: [1-9]|indirectly lost: [1-9]|" \
	"Invalid (read|write|free)|Mismatched free|Conditional jump or move depends on uninitialised|" \
	"^WARNING: CPU|^BUG: CPU"

/* "<file>:<line>: expected ": where the condition begins, or NULL. */
static const char *check_line(const char *d)
{
	const char *p = d;

	while (*p && *p != ':' && *p != ' ')
		p++;
	if (p == d || *p != ':' || p[1] < '0' || p[1] > '9')
		return NULL;
	p++;
	while (*p >= '0' && *p <= '9')
		p++;
	return strncmp(p, ": expected ", 11) ? NULL : p + 11;
}

static bool is_exit_line(const char *d)
{
	int n;

	return sscanf(d, "exited with %d", &n) == 1;
}

static bool is_tool_report(const char *d)
{
	static regex_t re;
	static bool compiled;

	if (!compiled && regcomp(&re, TOOL_REPORTS, REG_EXTENDED | REG_NOSUB))
		die("bad TOOL_REPORTS");
	compiled = true;
	return !regexec(&re, d, 0, NULL, 0);
}

static bool upstream_run(void)
{
	return !strcmp(run.producer, "upstream");
}

/* @re matches the message of the failed check @d, or a part of it after ": ". */
static bool message_shows(const regex_t *re, const char *d)
{
	const char *p = check_line(d);

	if (!p)
		return !regexec(re, d, 0, NULL, 0);
	for (; (p = strstr(p, ": ")); p += 2)
		if (!regexec(re, p + 2, 0, NULL, 0))
			return true;
	return false;
}

/* @r is the failure @e expects, or say why not (naming the line). */
static char *missing_evidence(const struct expectation *e, const struct result *r)
{
	int i, j, check = -1, first = 0, last;

	for (i = 0; i < r->nr_diags; i++) {
		const char *d = r->diags[i];

		if (is_tool_report(d))
			return xasprintf("expected to fail (%s), but a tool reported: %s", e->why, d);
		if (!(check_line(d) || (upstream_run() && is_exit_line(d))))
			continue;
		if (check >= 0)
			return xasprintf("expected to fail (%s) on one failed check, but another failed too: %s",
					 e->why, d);
		check = i;
	}
	if (check < 0)
		return xasprintf("expected to fail showing /%s/ (%s) in its failed check, but no check failed; it said: %s",
				 e->shows[0], e->why, r->nr_diags ? r->diags[r->nr_diags - 1] : "nothing");
	if (check_line(r->diags[check])) {
		first = check;
		for (last = check + 1; last < r->nr_diags && r->indented[last]; last++)
			;
	} else {
		/* An upstream program: its exit carries its whole output. */
		first = 0;
		last = check;
	}
	for (i = 0; i < e->nr_shows; i++) {
		regex_t re;
		bool found = false;

		regcomp(&re, e->shows[i], REG_EXTENDED | REG_NOSUB);
		for (j = first; j < last && !found; j++)
			found = j == check ? message_shows(&re, r->diags[j])
					   : !regexec(&re, r->diags[j], 0, NULL, 0);
		regfree(&re);
		if (!found)
			return xasprintf("expected to fail showing /%s/ (%s) in its failed check, but it said: %s",
					 e->shows[i], e->why, r->diags[check]);
	}
	return NULL;
}

/* --- judging ------------------------------------------------------------ */

static void judge_block(struct block *b, const char *prefix);

static void judge_leaf(const char *name, enum outcome o, char *note, struct result *r)
{
	if (nr_judged == judged_cap) {
		judged_cap = judged_cap ? 2 * judged_cap : 256;
		judged = realloc(judged, judged_cap * sizeof(*judged));
		if (!judged)
			die("out of memory");
	}
	judged[nr_judged++] = (struct judged){ xstrdup(name), o, note, r };
}

static char *identity(void)
{
	return xasprintf("producer %s, variant %s, base %s, uml %s", run.producer,
			 *run.variant ? run.variant : "-", *run.base ? run.base : "-", run.uml);
}

static void judge_case(const char *name, struct result *r)
{
	struct expectation *e = expectation_of(name);
	const char *reason = is_skip(r) ? trim(r->directive + 4) : NULL;
	char *why;

	if (reason && !r->ok) {
		/* "not ok N x # SKIP": a failure whatever the directive says. */
		judge_leaf(name, FAIL, xasprintf("not ok with a SKIP directive (%s): a failure",
						 *reason ? reason : "no reason"), r);
		return;
	}
	if (!e) {
		if (reason && skip_allowed(name, reason))
			judge_leaf(name, SKIP, *reason ? xstrdup(reason) : NULL, r);
		else if (reason) {
			char *id = identity();

			judge_leaf(name, FAIL,
				   xasprintf("skipped (%s), but no skip of it is declared for %s (tools/report/expectations, 'skip')",
					     *reason ? reason : "no reason", id), r);
			free(id);
		} else
			judge_leaf(name, r->ok ? PASS : FAIL, NULL, r);
		return;
	}
	e->seen = true;
	if (r->ok) {
		judge_leaf(name, XPASS, xasprintf("%s, expected to fail on %s: %s",
						  reason ? "skipped" : "passed", run.variant, e->why), r);
		return;
	}
	why = missing_evidence(e, r);
	if (why)
		judge_leaf(name, FAIL, why, r);
	else
		judge_leaf(name, XFAIL, xstrdup(e->why), r);
}

static bool any_case_failed(const struct block *b)
{
	const struct result *r;

	for (r = b->first; r; r = r->next)
		if (!r->ok || (r->sub && any_case_failed(r->sub)))
			return true;
	return false;
}

static bool diag_says_killed(const struct result *r, char **what)
{
	int i;

	for (i = 0; i < r->nr_diags; i++) {
		const char *k = strstr(r->diags[i], "killed by signal");

		if (k) {
			*what = xstrdup(k);
			return true;
		}
	}
	return false;
}

/* A subtest whose result line never came: the run was cut off there. */
static void judge_cut(struct block *cut, const char *prefix, const char *why)
{
	const char *n = cut->subtest ? cut->subtest : "(unnamed subtest)";
	char *name = *prefix ? xasprintf("%s.%s", prefix, n) : xstrdup(n);

	judge_block(cut, name);
	judge_leaf(name, FAIL, xstrdup(why), NULL);
	free(name);
}

/* Judge the results of @b, whose path is @prefix ("" at the top). */
static void judge_block(struct block *b, const char *prefix)
{
	struct result *r;
	int i, expected_number = 1;

	if (!*prefix && !b->nr && b->plan <= 0)
		judge_leaf("report", FAIL, xasprintf("no suite ran (%s)", b->plan ? "no plan, no results" :
							  "the report's plan is 1..0"), NULL);
	else if (b->plan < 0 && b->nr)
		judge_leaf(*prefix ? prefix : "report", FAIL,
			   xasprintf("no plan (1..N) before its %d results", b->nr), NULL);
	else if (b->plan >= 0 && b->nr != b->plan)
		judge_leaf(*prefix ? prefix : "report", FAIL,
			   xasprintf("%d of %d planned %s reported", b->nr, b->plan,
				     *prefix ? "cases" : "suites"), NULL);

	for (i = 0; i < b->nr_orphans; i++)
		judge_cut(b->orphans[i], prefix,
			  "cut off: no result line for the suite before the next KTAP header at its level");
	if (b->pending_sub)
		judge_cut(b->pending_sub, prefix, "cut off: no result line for the suite");

	for (r = b->first; r; r = r->next, expected_number++) {
		char *name = *prefix ? xasprintf("%s.%s", prefix, r->name) : xstrdup(r->name);
		char *what;

		if (r->number != expected_number)
			judge_leaf(name, FAIL, xasprintf("numbered %d where %d comes: KTAP counts 1, 2, 3, ... "
							 "(a result repeated, lost or out of order)",
							 r->number, expected_number), r);
		if (r->directive && !strncasecmp(r->directive, "timeout", 7))
			judge_leaf(name, FAIL, xasprintf("timed out (%s)", r->directive), r);
		else if (diag_says_killed(r, &what))
			judge_leaf(name, FAIL, what, r);
		if (r->sub && !r->sub->nr && r->sub->plan == 0 && !r->sub->pending_sub &&
		    !r->sub->nr_orphans) {
			/* "1..0": a suite of no cases is no pass (kunit.py: NO_TESTS). */
			judge_leaf(name, FAIL, xstrdup("planned no cases (1..0)"), r);
		} else if (!r->sub || (!r->sub->nr && r->sub->plan <= 0 && !r->sub->pending_sub &&
				       !r->sub->nr_orphans)) {
			judge_case(name, r);
		} else {
			judge_block(r->sub, name);
			/* A suite's own status must agree with its cases'. */
			if (!r->ok && !any_case_failed(r->sub))
				judge_leaf(name, FAIL, xasprintf("%s after its cases passed",
								 is_skip(r) ? "says not ok # SKIP" :
								 "exited with a failure"), r);
			else if (r->ok && any_case_failed(r->sub))
				judge_leaf(name, FAIL, xstrdup("says ok, but a case failed"), r);
		}
		free(name);
	}
}

/* Expected cases that should have run here, and did not. */
static void judge_missing(void)
{
	int i, j;

	for (i = 0; i < nr_expectations; i++) {
		struct expectation *e = &expectations[i];
		/* Its one case: only a 'skip' stanza has several. */
		const char *glob;
		bool found = false;

		if (e->tool || e->skip || !applies(e) || e->seen)
			continue;
		glob = e->cases[0];
		if (has_glob(glob)) {
			/*
			 * A pattern needs one case when its suite was chosen;
			 * one whose suite is a pattern too ("*.case": every
			 * kind of the user-space runs), one case unless the
			 * run was filtered.
			 */
			char *suite = xstrdup(glob), *dot = strchr(suite, '.');

			if (dot)
				*dot = '\0';
			if (has_glob(suite))
				found = run.filter && *run.filter && strcmp(run.filter, "all");
			else
				found = !selected(suite);
			for (j = 0; j < nr_judged && !found; j++)
				found = !fnmatch(glob, judged[j].name, 0);
			free(suite);
		} else {
			found = !selected(glob);
		}
		if (!found)
			judge_leaf(glob, FAIL,
				   xasprintf("expected to fail (%s), but did not run (%s:%d)", e->why,
					     e->file, e->line), NULL);
	}
}

static bool suite_reported(const struct block *docs, const char *suite)
{
	const struct block *doc;
	const struct result *r;
	int i;

	for (doc = docs; doc; doc = doc->next_doc) {
		for (r = doc->first; r; r = r->next)
			if (!strcmp(r->name, suite))
				return true;
		/* Cut off: a failure of its own already. */
		if (doc->pending_sub && doc->pending_sub->subtest &&
		    !strcmp(doc->pending_sub->subtest, suite))
			return true;
		for (i = 0; i < doc->nr_orphans; i++)
			if (doc->orphans[i]->subtest && !strcmp(doc->orphans[i]->subtest, suite))
				return true;
	}
	return false;
}

/*
 * Every suite the image was built with (--suites: the build's list, one
 * name a line) that the filter chose must be in the report: init's plan
 * is its own readdir(), which cannot see a suite missing from the image.
 */
static void judge_suites(const struct block *docs)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	int listed = 0;

	if (!run.suites)
		return;
	f = fopen(run.suites, "r");
	if (!f) {
		problem(xasprintf("the image's suite list %s: %s", run.suites, strerror(errno)));
		return;
	}
	while (getline(&line, &cap, f) >= 0) {
		char *suite = trim(line);

		if (!*suite || *suite == '#')
			continue;
		listed++;
		if (suite_chosen(suite) && !suite_reported(docs, suite))
			judge_leaf(suite, FAIL,
				   xasprintf("built into the image (%s) and chosen by the filter (%s), but did not run",
					     run.suites, run.filter && *run.filter ? run.filter : "all"), NULL);
	}
	free(line);
	fclose(f);
	if (!listed)
		problem(xasprintf("the image's suite list %s is empty", run.suites));
}

void problem(char *text)
{
	if (run.nr_problems < 32)
		run.problems[run.nr_problems++] = text;
}

void judge_report(struct block *docs)
{
	struct block *doc;

	if (!docs)
		problem(xstrdup("no KTAP report (did the guest boot? did the program start?)"));
	for (doc = docs; doc; doc = doc->next_doc)
		judge_block(doc, "");
	judge_suites(docs);
	judge_missing();
}
