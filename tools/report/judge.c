// SPDX-License-Identifier: GPL-2.0
/*
 * judge: the kit's one verdict on a KTAP report.
 *
 * Every producer of results (the guest's init, make stress, the upstream
 * runners, tools/uspace/run, tests/run) prints KTAP v1; this program reads
 * it into a tree, checks every plan against the results that came, applies
 * the expectations table (tools/report/expectations) for the run's
 * identity, and prints one line per result that is not a plain pass, the
 * problems, and the summary line "N passed, N failed, N skipped".  It
 * writes results.json, failures and summary into --out, each whole or not
 * at all, and exits 0 only when nothing failed.
 *
 *   judge [options] KTAP-FILE
 *     --out DIR           write DIR/results.json, DIR/failures, DIR/summary
 *     --expect FILE       the expectations table (default: none)
 *     --where PRODUCER    selftests, upstream, stress, uspace, kit (the
 *                         expectations' "where" key)
 *     --base B --variant V --uml yes|no
 *                         the run's identity, each its own key
 *     --filter GLOBS      the run's case filter (kit.t=): an expected case
 *                         outside it is not missing
 *     --guest-exit S      how ./linux ended: its exit status, or "timeout";
 *                         it must be the number of failed suites (plus
 *                         kmemleak's leaks), as init writes it
 *     --timeout S         the launcher's timeout, for the message
 *     --problem TEXT      a finding of the caller (a splat on the console);
 *                         each counts as one failure
 *     --suites FILE       the suites the image was built with, one a line
 *                         (build/rootfs/suites, kept by uml/run): each one
 *                         the filter chooses must be in the report (empty:
 *                         not known, not checked)
 *   judge --sum DIR...    add up the results.json of judged runs and print
 *                         the total line, after each failed run's FAIL
 *                         and XPASS cases and problems; a directory
 *                         without results.json is a failure
 *
 * With KIT_RESULTS_LIST set, a judged run appends its --out directory to
 * that file: make test (tests/run-all) adds them up at the end.
 *   judge --list --expect FILE --where P --base B --variant V --uml U
 *                         print the expectations that apply, a line each:
 *                         case, tool (or -), why (tools/uspace/run)
 *
 * The parser follows KTAP v1 as tools/testing/kunit/kunit_parser.py reads
 * it: four spaces of indentation per level, "# Subtest:", plans, results
 * with directives, "# " diagnostics that belong to the result after them.
 * Lines with a printk timestamp are the kernel's own, not the report's.
 * A library would do, but there is no KTAP parser in C in Debian, and
 * kunit_parser.py does not check plans the way a verdict must.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <jansson.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEPTH	8

enum outcome { PASS, FAIL, SKIP, XFAIL, XPASS };
static const char *const outcome_names[] = { "pass", "fail", "skip", "xfail", "xpass" };

struct result {
	char *name;
	int number;			/* N of "ok N" */
	bool ok;
	char *directive;		/* what follows '#' on the result line */
	char **diags;
	bool *indented;			/* diags[i] began "#  " or "#\t": it continues the line before */
	int nr_diags;
	struct block *sub;		/* the subtest this line closes, if any */
	struct result *next;
};

/* One KTAP document or subtest: a plan and the results at one level. */
struct block {
	char *subtest;			/* "# Subtest: NAME" */
	int plan;			/* -1: none */
	struct result *first, **last;
	int nr;
	char **pending;			/* diagnostics waiting for their result */
	bool *pending_indented;
	int nr_pending;
	struct block *pending_sub;	/* a closed subtest waiting for its result */
	struct block **orphans;		/* closed subtests whose result never came */
	int nr_orphans;
	struct block *next_doc;		/* depth 0: the next top-level document */
};

struct expectation {
	char *file;
	int line;
	char *cases;			/* glob of suite.case */
	char *where, *variants, *bases, *uml;
	char *shows[4];
	int nr_shows;
	char *skip;			/* an allowed skip: the reason's regex */
	char *tool;
	char *why;
	bool seen;
};

struct judged {
	char *name;
	enum outcome outcome;
	char *note;
	struct result *r;
};

static struct {
	const char *where, *base, *variant, *uml, *filter, *guest_exit, *timeout, *suites;
	char *problems[32];
	int nr_problems;
} run = { .where = "selftests", .base = "", .variant = "", .uml = "yes" };

/* The report, kept until exit (a one-shot program frees nothing). */
static struct block *docs;
static struct expectation *expectations;
static int nr_expectations;
static struct judged *judged;
static int nr_judged, judged_cap;
static char **failures_text;
static int nr_failures_text;

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("judge: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

static void push_str(char ***v, int *n, const char *s)
{
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	if (!*v)
		die("out of memory");
	(*v)[(*n)++] = xstrdup(s);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* --- the KTAP tree ------------------------------------------------------ */

static struct block *new_block(void)
{
	struct block *b = xcalloc(1, sizeof(*b));

	b->plan = -1;
	b->last = &b->first;
	return b;
}

/* "[   12.345678] ": a kernel message, not part of the report. */
static bool is_printk(const char *s)
{
	if (*s != '[')
		return false;
	s++;
	while (*s == ' ')
		s++;
	while ((*s >= '0' && *s <= '9') || *s == '.')
		s++;
	return *s == ']';
}

/*
 * Hand the closed subtest @sub to @parent, where the next result line
 * takes it.  One that was already waiting never got its result line: a
 * second KTAP header at its level began before it ended; it is kept, to
 * be judged as cut off, never dropped.
 */
static void hand_sub(struct block *parent, struct block *sub)
{
	if (parent->pending_sub && parent->pending_sub != sub) {
		parent->orphans = realloc(parent->orphans,
					  (parent->nr_orphans + 1) * sizeof(*parent->orphans));
		if (!parent->orphans)
			die("out of memory");
		parent->orphans[parent->nr_orphans++] = parent->pending_sub;
	}
	parent->pending_sub = sub;
}

static void add_result(struct block *b, const char *line, bool ok)
{
	struct result *r = xcalloc(1, sizeof(*r));
	const char *p = line + (ok ? 3 : 7);
	char *name, *hash;

	r->number = atoi(p);
	while (*p >= '0' && *p <= '9')
		p++;
	while (*p == ' ')
		p++;
	name = xstrdup(p);
	hash = strstr(name, " #");
	if (!hash && name[0] == '#')
		hash = name;
	if (hash) {
		*hash = '\0';
		r->directive = xstrdup(trim(hash + (hash == name ? 1 : 2)));
	}
	r->name = xstrdup(trim(name));
	free(name);
	r->ok = ok;
	r->diags = b->pending;
	r->indented = b->pending_indented;
	r->nr_diags = b->nr_pending;
	b->pending = NULL;
	b->pending_indented = NULL;
	b->nr_pending = 0;
	r->sub = b->pending_sub;
	b->pending_sub = NULL;
	*b->last = r;
	b->last = &r->next;
	b->nr++;
}

static bool is_result(const char *s, bool *ok)
{
	const char *p;

	if (!strncmp(s, "ok ", 3))
		p = s + 3, *ok = true;
	else if (!strncmp(s, "not ok ", 7))
		p = s + 7, *ok = false;
	else
		return false;
	return *p >= '0' && *p <= '9';
}

/*
 * Parse a report into a list of top-level documents.  stack[d] is the
 * block that holds the lines indented by d levels.
 */
static struct block *parse(FILE *f)
{
	struct block *docs = NULL, **last_doc = &docs, *stack[MAX_DEPTH] = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int depth = -1;

	while (getline(&line, &cap, f) > 0) {
		char *s = line, *e = line + strlen(line);
		int spaces = 0, level, d;
		bool ok;

		while (e > s && (e[-1] == '\n' || e[-1] == '\r'))
			*--e = '\0';
		while (s[spaces] == ' ')
			spaces++;
		s += spaces;
		if (spaces % 4 || is_printk(s))
			continue;
		level = spaces / 4;
		if (level >= MAX_DEPTH)
			continue;
		if (!strncmp(s, "KTAP version ", 13) || !strncmp(s, "TAP version ", 12)) {
			if (level == 0) {
				/* What the last document left open ends here. */
				for (d = depth; d > 0; d--) {
					hand_sub(stack[d - 1], stack[d]);
					stack[d] = NULL;
				}
				/* A new document, unless the header repeats. */
				if (depth < 0 || stack[0]->nr || stack[0]->plan >= 0 ||
				    stack[0]->pending_sub) {
					stack[0] = new_block();
					*last_doc = stack[0];
					last_doc = &stack[0]->next_doc;
				}
				depth = 0;
				continue;
			}
			if (depth < 0 || level > depth + 1)
				continue;
			/* A new subtest: what was open at its level and below ends. */
			for (d = depth; d >= level; d--)
				hand_sub(stack[d - 1], stack[d]);
			stack[level] = new_block();
			depth = level;
			continue;
		}
		if (depth < 0)
			continue;	/* before the report */
		if (strncmp(s, "# ", 2) && strcmp(s, "#") && strncmp(s, "1..", 3) && !is_result(s, &ok))
			continue;	/* not KTAP: a kernel or program message */
		if (level > depth) {
			/* A subtest without its own header (tolerated). */
			if (level != depth + 1)
				continue;
			stack[level] = new_block();
			depth = level;
		}
		/* Deeper subtests end here: hand each to the level above. */
		for (d = depth; d > level; d--) {
			hand_sub(stack[d - 1], stack[d]);
			stack[d] = NULL;
		}
		depth = level;
		if (!strncmp(s, "# Subtest: ", 11)) {
			free(stack[level]->subtest);
			stack[level]->subtest = xstrdup(trim(s + 11));
		} else if (!strncmp(s, "1..", 3)) {
			stack[level]->plan = atoi(s + 3);
		} else if (is_result(s, &ok)) {
			add_result(stack[level], s, ok);
		} else {
			struct block *b = stack[level];

			b->pending_indented = realloc(b->pending_indented,
						      (b->nr_pending + 1) * sizeof(bool));
			if (!b->pending_indented)
				die("out of memory");
			b->pending_indented[b->nr_pending] =
				s[1] == '\t' || (s[1] == ' ' && (s[2] == ' ' || s[2] == '\t'));
			push_str(&b->pending, &b->nr_pending, trim(s + 1));
		}
	}
	free(line);
	for (; depth > 0; depth--)
		hand_sub(stack[depth - 1], stack[depth]);
	return docs;
}

/* --- expectations ------------------------------------------------------- */

/*
 * The table is made of stanzas separated by blank lines, one "key value"
 * a line (see the head of tools/report/expectations).
 */
static void load_expectations(const char *path)
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
			e->cases = xstrdup(val);
		else if (!strcmp(key, "where"))
			e->where = xstrdup(val);
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
			die("%s:%d: unknown key '%s' (case, where, variant, base, uml, shows, skip, tool, why)",
			    path, n, key);
		}
	}
	free(line);
	fclose(f);
	for (n = 0; n < nr_expectations; n++) {
		e = &expectations[n];
		if (!e->cases || !e->where || !e->variants || !e->why)
			die("%s:%d: an expectation needs case, where, variant and why", e->file, e->line);
		if (e->skip && (e->nr_shows || e->tool))
			die("%s:%d: %s: an allowed skip ('skip REGEX') is a stanza of its own",
			    e->file, e->line, e->cases);
		if (!e->skip && !e->nr_shows && !e->tool)
			die("%s:%d: %s: say what proves the failure's reason ('shows REGEX')",
			    e->file, e->line, e->cases);
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

static bool applies(const struct expectation *e)
{
	return in_list(e->where, run.where) && in_list(e->variants, run.variant) &&
	       in_list(e->bases, run.base) && in_list(e->uml, run.uml);
}

static struct expectation *expectation_of(const char *name)
{
	int i;

	for (i = 0; i < nr_expectations; i++)
		if (!expectations[i].tool && !expectations[i].skip && applies(&expectations[i]) &&
		    !fnmatch(expectations[i].cases, name, 0))
			return &expectations[i];
	return NULL;
}

/*
 * Whether the table allows @name to skip here for @reason: a 'skip'
 * stanza of the run's identity whose regex the reason matches, or a
 * 'tool' expectation of the case (tools/uspace/run runs that case on its
 * own, under its tool, and the main run skips it).
 */
static bool skip_allowed(const char *name, const char *reason)
{
	int i;

	for (i = 0; i < nr_expectations; i++) {
		struct expectation *e = &expectations[i];
		regex_t re;
		bool match;

		if ((!e->skip && !e->tool) || !applies(e) || fnmatch(e->cases, name, 0))
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

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/*
 * Whether the run's filter selected suite.case, as init and ktap.c do:
 * the first glob whose part before the dot matches the suite decides,
 * its rest (extended glob) picks the cases.
 */
static bool selected(const char *name)
{
	char *filter, *glob, *save, suite[256];
	const char *dot = strchr(name, '.');
	bool sel = false;

	if (!run.filter || !*run.filter || !strcmp(run.filter, "all"))
		return true;
	snprintf(suite, sizeof(suite), "%.*s", dot ? (int)(dot - name) : (int)strlen(name), name);
	filter = xstrdup(run.filter);
	for (glob = strtok_r(filter, ",", &save); glob; glob = strtok_r(NULL, ",", &save)) {
		char *gdot = strchr(glob, '.');

		if (gdot)
			*gdot = '\0';
		if (fnmatch(glob, suite, 0))
			continue;
		sel = !gdot || !dot || !fnmatch(gdot + 1, dot + 1, FNM_EXTMATCH);
		break;
	}
	free(filter);
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
 * The tree's own programs (where "upstream") print no such lines: each
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
	return !strcmp(run.where, "upstream");
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
			return xasprintf("expected to fail showing /%s/ (%s), but its failed check said: %s",
					 e->shows[i], e->why, r->diags[check]);
	}
	return NULL;
}

/* --- judging ------------------------------------------------------------ */

static void judge_block(struct block *b, const char *prefix);
static void problem(char *text);

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

static bool is_skip(const struct result *r)
{
	return r->directive && !strncasecmp(r->directive, "SKIP", 4);
}

static char *identity(void)
{
	return xasprintf("where %s, variant %s, base %s, uml %s", run.where,
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
		bool found = false;

		if (e->tool || e->skip || !applies(e) || e->seen)
			continue;
		if (has_glob(e->cases)) {
			/*
			 * A pattern needs one case when its suite was chosen;
			 * one whose suite is a pattern too ("*.case": every
			 * kind of the user-space runs), one case unless the
			 * run was filtered.
			 */
			char *suite = xstrdup(e->cases), *dot = strchr(suite, '.');

			if (dot)
				*dot = '\0';
			if (has_glob(suite))
				found = run.filter && *run.filter && strcmp(run.filter, "all");
			else
				found = !selected(suite);
			for (j = 0; j < nr_judged && !found; j++)
				found = !fnmatch(e->cases, judged[j].name, 0);
			free(suite);
		} else {
			found = !selected(e->cases);
		}
		if (!found)
			judge_leaf(e->cases, FAIL,
				   xasprintf("expected to fail (%s), but did not run (%s:%d)", e->why,
					     e->file, e->line), NULL);
	}
}

/* Whether @suite is one the run's filter chose, as init's suite_selected() decides. */
static bool suite_chosen(const char *suite)
{
	char *filter, *glob, *save;
	bool chosen = false;

	if (!run.filter || !*run.filter || !strcmp(run.filter, "all"))
		return true;
	filter = xstrdup(run.filter);
	for (glob = strtok_r(filter, ",", &save); glob && !chosen; glob = strtok_r(NULL, ",", &save)) {
		char *dot = strchr(glob, '.');

		if (dot)
			*dot = '\0';
		chosen = !fnmatch(glob, suite, 0);
	}
	free(filter);
	return chosen;
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

/* The failed suites init counted, plus the leaks kmemleak found. */
static int exit_status_of(const struct block *doc)
{
	const struct result *r;
	int failed = 0, leaks = 0, i;

	for (r = doc->first; r; r = r->next)
		failed += !r->ok;
	if (!doc->nr)
		return 1;
	/* init prints "# kmemleak: N leaks after the tests" last. */
	for (i = 0; i < doc->nr_pending; i++)
		sscanf(doc->pending[i], "kmemleak: %d leaks", &leaks);
	failed += leaks;
	return failed > 125 ? 125 : failed;
}

static void problem(char *text)
{
	if (run.nr_problems < 32)
		run.problems[run.nr_problems++] = text;
}

static void judge_exit(const struct block *docs)
{
	const struct block *doc = docs;
	char *end;
	long status;
	int expected;

	if (!run.guest_exit)
		return;
	if (!strcmp(run.guest_exit, "timeout")) {
		problem(xasprintf("guest hung: killed after %s s", run.timeout ? run.timeout : "?"));
		return;
	}
	status = strtol(run.guest_exit, &end, 10);
	if (*end || end == run.guest_exit) {
		problem(xasprintf("guest exit status '%s' is not a number", run.guest_exit));
		return;
	}
	if (status == 134) {
		problem(xstrdup("guest panicked (exit status 134)"));
		return;
	}
	if (!doc)
		return;	/* "no KTAP report" says it */
	while (doc->next_doc)
		doc = doc->next_doc;
	expected = exit_status_of(doc);
	if (status != expected)
		problem(xasprintf("./linux exited with %ld, but the report's failed suites make %d%s",
				  status, expected,
				  status > 128 ? " (killed by a signal?)" : ""));
}

/* --- output ------------------------------------------------------------- */

/* Print a line of the verdict and keep it for DIR/failures. */
#define say(...)							\
	do {								\
		char *line_ = xasprintf(__VA_ARGS__);			\
									\
		puts(line_);						\
		push_str(&failures_text, &nr_failures_text, line_);	\
		free(line_);						\
	} while (0)

static FILE *open_tmp(const char *dir, const char *name, char **tmp)
{
	FILE *f;

	*tmp = xasprintf("%s/.%s.tmp", dir, name);
	f = fopen(*tmp, "w");
	if (!f)
		die("%s: %s", *tmp, strerror(errno));
	return f;
}

/* Write DIR/NAME whole or not at all: a temporary file, then rename(). */
static void commit_tmp(FILE *f, const char *dir, const char *name, char *tmp)
{
	char *path = xasprintf("%s/%s", dir, name);

	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		die("cannot write %s: %s", path, strerror(errno));
	}
	free(path);
	free(tmp);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void write_results(const char *dir, int counts[5], int failed, const char *summary)
{
	json_t *root = json_object(), *cases = json_array(), *probs = json_array();
	char *tmp;
	FILE *f;
	int i, j;

	for (i = 0; i < nr_judged; i++) {
		json_t *c = json_object(), *d = json_array();

		json_object_set_new(c, "name", json_string(judged[i].name));
		json_object_set_new(c, "outcome", json_string(outcome_names[judged[i].outcome]));
		json_object_set_new(c, "note", str_or_null(judged[i].note));
		for (j = 0; judged[i].r && j < judged[i].r->nr_diags; j++)
			json_array_append_new(d, json_string(judged[i].r->diags[j]));
		json_object_set_new(c, "diagnostics", d);
		json_array_append_new(cases, c);
	}
	for (i = 0; i < run.nr_problems; i++)
		json_array_append_new(probs, json_string(run.problems[i]));
	json_object_set_new(root, "identity",
			    json_pack("{s:s, s:s, s:s, s:s, s:s}", "where", run.where,
				      "base", run.base, "variant", run.variant, "uml", run.uml,
				      "filter", run.filter ? run.filter : "all"));
	json_object_set_new(root, "passed", json_integer(counts[PASS] + counts[XFAIL]));
	json_object_set_new(root, "failed", json_integer(failed));
	json_object_set_new(root, "skipped", json_integer(counts[SKIP]));
	json_object_set_new(root, "xfail", json_integer(counts[XFAIL]));
	json_object_set_new(root, "summary", json_string(summary));
	json_object_set_new(root, "problems", probs);
	json_object_set_new(root, "cases", cases);

	f = open_tmp(dir, "results.json", &tmp);
	if (json_dumpf(root, f, JSON_INDENT(1) | JSON_SORT_KEYS) || fputc('\n', f) == EOF)
		die("%s: cannot write JSON", tmp);
	commit_tmp(f, dir, "results.json", tmp);
	json_decref(root);

	f = open_tmp(dir, "failures", &tmp);
	for (i = 0; i < nr_failures_text; i++)
		fprintf(f, "%s\n", failures_text[i]);
	commit_tmp(f, dir, "failures", tmp);

	f = open_tmp(dir, "summary", &tmp);
	fprintf(f, "%s\n", summary);
	commit_tmp(f, dir, "summary", tmp);
}

static void print_summary(int passed, int failed, int skipped, int xfail, const char *what,
			  char *out, size_t size)
{
	if (xfail)
		snprintf(out, size, "%d passed, %d failed, %d skipped (%d expected failures%s%s)",
			 passed, failed, skipped, xfail, what ? " on " : "", what ? what : "");
	else
		snprintf(out, size, "%d passed, %d failed, %d skipped", passed, failed, skipped);
	puts(out);
}

/*
 * What made the judged run in @dir fail, a line each, so that the end of a
 * long make test names the case without a search through its log.
 */
static void print_run_failures(const char *dir, json_t *root)
{
	json_t *c, *p;
	size_t i;

	json_array_foreach(json_object_get(root, "cases"), i, c) {
		const char *outcome = json_string_value(json_object_get(c, "outcome"));
		const char *note = json_string_value(json_object_get(c, "note"));

		if (!outcome || (strcmp(outcome, "fail") && strcmp(outcome, "xpass")))
			continue;
		printf("%-5s %s: %s%s%s\n", strcmp(outcome, "fail") ? "XPASS" : "FAIL", dir,
		       json_string_value(json_object_get(c, "name")),
		       note ? ": " : "", note ? note : "");
	}
	json_array_foreach(json_object_get(root, "problems"), i, p)
		printf("FAIL  %s: %s\n", dir, json_string_value(p));
}

/* judge --sum DIR...: the total of judged runs, after what failed in each. */
static int sum(int argc, char **argv)
{
	long passed = 0, failed = 0, skipped = 0, xfail = 0;
	char line[256];
	int i;

	for (i = 0; i < argc; i++) {
		char *path = xasprintf("%s/results.json", argv[i]);
		json_error_t err;
		json_t *root = json_load_file(path, 0, &err);

		if (!root) {
			printf("FAIL  %s: no results (%s)\n", argv[i], err.text);
			failed++;
		} else {
			passed += json_integer_value(json_object_get(root, "passed"));
			failed += json_integer_value(json_object_get(root, "failed"));
			skipped += json_integer_value(json_object_get(root, "skipped"));
			xfail += json_integer_value(json_object_get(root, "xfail"));
			if (json_integer_value(json_object_get(root, "failed")))
				print_run_failures(argv[i], root);
			json_decref(root);
		}
		free(path);
	}
	if (!argc) {
		puts("FAIL  no judged run to add up");
		failed++;
	}
	print_summary(passed, failed, skipped, xfail, NULL, line, sizeof(line));
	return failed ? 1 : 0;
}

static int list(void)
{
	int i;

	for (i = 0; i < nr_expectations; i++)
		if (applies(&expectations[i]) && !expectations[i].skip)
			printf("%s\t%s\t%s\n", expectations[i].cases,
			       expectations[i].tool ? expectations[i].tool : "-", expectations[i].why);
	return 0;
}

static void usage(void)
{
	fputs("usage: judge [--out DIR] [--expect FILE] [--where P] [--base B] [--variant V]\n"
	      "             [--uml yes|no] [--filter GLOBS] [--guest-exit S] [--timeout S]\n"
	      "             [--suites FILE] [--problem TEXT]... KTAP-FILE\n"
	      "       judge --sum DIR...\n"
	      "       judge --list --expect FILE [--where P] [--base B] [--variant V] [--uml U]\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *expect = NULL, *input = NULL;
	int counts[5] = { 0 }, i, failed;
	bool listing = false;
	struct block *doc;
	char line[256];
	FILE *f;
	int opt;
	static const struct option options[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "expect", required_argument, NULL, 'e' },
		{ "where", required_argument, NULL, 'w' },
		{ "base", required_argument, NULL, 'b' },
		{ "variant", required_argument, NULL, 'v' },
		{ "uml", required_argument, NULL, 'u' },
		{ "filter", required_argument, NULL, 'f' },
		{ "guest-exit", required_argument, NULL, 'x' },
		{ "timeout", required_argument, NULL, 't' },
		{ "problem", required_argument, NULL, 'p' },
		{ "suites", required_argument, NULL, 's' },
		{ "list", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};

	if (argc > 1 && !strcmp(argv[1], "--sum"))
		return sum(argc - 2, argv + 2);
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'e': expect = optarg; break;
		case 'w': run.where = optarg; break;
		case 'b': run.base = optarg; break;
		case 'v': run.variant = optarg; break;
		case 'u': run.uml = optarg; break;
		case 'f': run.filter = optarg; break;
		case 'x': run.guest_exit = optarg; break;
		case 't': run.timeout = optarg; break;
		case 'p': problem(xstrdup(optarg)); break;
		case 's': run.suites = *optarg ? optarg : NULL; break;
		case 'l': listing = true; break;
		default: usage();
		}
	}
	if (optind < argc)
		input = argv[optind++];
	if (optind < argc)
		usage();
	if (expect)
		load_expectations(expect);
	if (listing)
		return list();
	if (!input)
		usage();

	f = strcmp(input, "-") ? fopen(input, "r") : stdin;
	if (!f)
		die("%s: %s", input, strerror(errno));
	docs = parse(f);
	if (f != stdin)
		fclose(f);

	if (!docs)
		problem(xstrdup("no KTAP report (did the guest boot? did the program start?)"));
	for (doc = docs; doc; doc = doc->next_doc)
		judge_block(doc, "");
	judge_suites(docs);
	judge_missing();
	judge_exit(docs);

	for (i = 0; i < nr_judged; i++) {
		struct judged *j = &judged[i];

		counts[j->outcome]++;
		switch (j->outcome) {
		case PASS:
			break;
		case FAIL:
			say("FAIL  %s%s%s", j->name, j->note ? ": " : "", j->note ? j->note : "");
			break;
		case SKIP:
			say("SKIP  %s%s%s", j->name, j->note ? " # " : "", j->note ? j->note : "");
			break;
		case XFAIL:
			say("XFAIL %s (%s)", j->name, j->note);
			break;
		case XPASS:
			say("XPASS %s (%s)", j->name, j->note);
			break;
		}
	}
	for (i = 0; i < run.nr_problems; i++)
		say("PROBLEM %s", run.problems[i]);

	failed = counts[FAIL] + counts[XPASS] + run.nr_problems;
	print_summary(counts[PASS] + counts[XFAIL], failed, counts[SKIP], counts[XFAIL],
		      *run.variant ? run.variant : NULL, line, sizeof(line));
	if (out) {
		const char *list = getenv("KIT_RESULTS_LIST");

		write_results(out, counts, failed, line);
		/* make test adds up every judged run (judge --sum). */
		if (list && *list) {
			FILE *l = fopen(list, "a");

			if (!l || fprintf(l, "%s\n", out) < 0 || fclose(l))
				die("%s: %s", list, strerror(errno));
		}
	}
	return failed ? 1 : 0;
}
