/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A KTAP v1 report as a tree, read as tools/testing/kunit/kunit_parser.py
 * reads it: four spaces of indentation per level, "# Subtest:", plans,
 * results with directives, "# " diagnostics that belong to the result
 * after them.  Lines with a printk timestamp are the kernel's own, not
 * the report's.  Nothing is judged here: the tree keeps what was said
 * (numbers, subtests whose result never came) for the rules to judge.
 */
#ifndef KIT_KTAP_TREE_H
#define KIT_KTAP_TREE_H

#include <stdbool.h>
#include <stdio.h>

#define MAX_DEPTH	8

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

/* Parse a report into a list of top-level documents (NULL: no KTAP at all). */
struct block *ktap_parse(FILE *f);

/* The result's directive is "SKIP [reason]". */
bool is_skip(const struct result *r);

#endif /* KIT_KTAP_TREE_H */
