/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The expectations table (tools/report/expectations): its loader and the
 * matcher of a case, or a skip, against the run's identity.
 */
#ifndef KIT_EXPECTATIONS_H
#define KIT_EXPECTATIONS_H

#include <stdbool.h>

struct expectation {
	char *file;
	int line;
	/*
	 * Globs of suite.case: one, or several in a 'skip' stanza (a list of
	 * the cases a tree skips for one reason).  A failure stanza has one,
	 * so that each expected failure is looked for on its own.
	 */
	char **cases;
	int nr_cases;
	char *producer, *variants, *bases, *uml;
	char *shows[4];
	int nr_shows;
	char *skip;			/* an allowed skip: the reason's regex */
	char *tool;
	char *why;
	bool seen;
};

extern struct expectation *expectations;
extern int nr_expectations;

void load_expectations(const char *path);
/* @e is for the run's identity (run.producer, run.variant, run.base, run.uml). */
bool applies(const struct expectation *e);
/* The expected failure of @name here, if any. */
struct expectation *expectation_of(const char *name);
bool skip_allowed(const char *name, const char *reason);
/* judge --list: the expectations that apply, "case\ttool\twhy" a line. */
int list_expectations(void);

#endif /* KIT_EXPECTATIONS_H */
