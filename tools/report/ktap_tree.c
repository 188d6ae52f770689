// SPDX-License-Identifier: GPL-2.0
/* The KTAP tree (ktap_tree.h); a library would do, but Debian has no KTAP parser in C. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "ktap_tree.h"
#include "report.h"

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
struct block *ktap_parse(FILE *f)
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

bool is_skip(const struct result *r)
{
	return r->directive && !strncasecmp(r->directive, "SKIP", 4);
}
