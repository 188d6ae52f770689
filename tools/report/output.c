// SPDX-License-Identifier: GPL-2.0
/* The verdict's output (output.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "rules.h"

const char *const outcome_names[] = { "pass", "fail", "skip", "xfail", "xpass" };

static char **failures_text;
static int nr_failures_text;

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
			    json_pack("{s:s, s:s, s:s, s:s, s:s}", "producer", run.producer,
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
int sum(int argc, char **argv)
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


int report_verdict(const char *out)
{
	int counts[5] = { 0 }, i, failed;
	char line[256];

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
	return failed;
}
