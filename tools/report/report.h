/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The judge's common ground (tools/report/judge.c and its parts): the
 * helpers of a one-shot program that frees nothing and dies on an error,
 * the outcomes of a case, and the run being judged.
 */
#ifndef KIT_REPORT_H
#define KIT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

enum outcome { PASS, FAIL, SKIP, XFAIL, XPASS };
extern const char *const outcome_names[];

/* The run being judged: its identity, its filter and what its caller found. */
struct run {
	const char *producer, *base, *variant, *uml, *filter, *suites;
	char *problems[32];
	int nr_problems;
};
extern struct run run;

/* A finding about the run as a whole; each counts as one failure. */
void problem(char *text);

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void push_str(char ***v, int *n, const char *s);
char *trim(char *s);

#endif /* KIT_REPORT_H */
