// SPDX-License-Identifier: GPL-2.0
/*
 * bench-report's markdown: the cells every table shares, the table of
 * every workload with the ratios to the first variant, the timed
 * operations per run, the runs' status, and table.md whole (markdown).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/*
 * Figures as the patch threads print them: two decimals, none from 1000 on;
 * a standard deviation with the decimals of its mean.
 */
const char *fig(char *buf, size_t len, double v, double scale)
{
	snprintf(buf, len, fabs(scale) >= 1000 ? "%.0f" : "%.2f", v);
	return buf;
}

void mean_cell(double mean, double stddev, const char *unit, const char *note)
{
	char a[64], b[64];

	printf(" %s \u00b1 %s%s%s%s |", fig(a, sizeof(a), mean, mean),
	       fig(b, sizeof(b), stddev, mean), *unit ? " " : "", unit, note);
}

/* A workload run with -f where it cannot mean what it should says so. */
static void metric_cell(json_t *s, size_t i)
{
	json_t *m = json_array_get(json_object_get(s, "metrics"), i);

	mean_cell(num(m, "mean"), num(m, "stddev"), str(m, "unit"),
		  json_is_true(json_object_get(s, "forced")) ? " (forced, -f)" : "");
}

/* Average memory (mean, stddev) of a variant's summary. */
void mem_avg_cell(json_t *s)
{
	json_t *mem = json_object_get(s, "mem");

	mean_cell(num(mem, "avg_mib"), num(mem, "stddev_mib"), "", "");
}

/* Its memory.peak, the highest of the rounds. */
void mem_peak_cell(json_t *s)
{
	double peak = num(json_object_get(s, "mem"), "peak_mib");
	char buf[64];

	printf(" %s |", fig(buf, sizeof(buf), peak, peak));
}

void status_cells(json_t *s, int cells)
{
	const char *st = str(s, "status"), *reason = str(s, "reason");
	int i;

	if (!strcmp(st, "skip"))
		printf(" skipped: %s |", reason);
	else if (!strcmp(st, "fail"))
		printf(" FAILED: %s |", *reason ? reason : "see the log");
	else
		printf(" no result |");
	for (i = 1; i < cells; i++)
		printf(" |");
}

static void ratio_cell(json_t *r, const char *key)
{
	json_t *v = json_object_get(r, key);

	if (v)
		printf(" %.2f |", json_number_value(v));
	else
		printf(" |");
}

/*
 * The header of a table with a column group per variant, then one per
 * other variant for its ratios to the first: @variant_cols and
 * @ratio_cols follow the name of each (" | avg mem (MiB) |..."), @cells
 * columns each.
 */
static void variants_header(const char *what, json_t *variants, const char *variant_cols,
			    const char *ratio_cols, int cells)
{
	const char *first = json_string_value(json_array_get(variants, 0));
	size_t i, n = json_array_size(variants);
	json_t *v;
	int c;

	printf("| %s |", what);
	json_array_foreach(variants, i, v)
		printf(" %s%s", json_string_value(v), variant_cols);
	json_array_foreach(variants, i, v)
		if (i)
			printf(" %s/%s%s", json_string_value(v), first, ratio_cols);
	printf("\n| --- |");
	for (i = 0; n && i < 2 * n - 1; i++)
		for (c = 0; c < cells; c++)
			printf(" ---: |");
	printf("\n");
}

/* The ratios of variant @v to the first of @variants, for workload @e. */
static json_t *ratios_of(json_t *e, json_t *variants, json_t *v)
{
	char key[256];

	snprintf(key, sizeof(key), "%s/%s", json_string_value(v),
		 json_string_value(json_array_get(variants, 0)));
	return json_object_get(json_object_get(e, "ratios"), key);
}

/* Each workload's first figure and memory; true when some have more figures. */
static bool print_first_figures(json_t *variants, json_t *summary)
{
	json_t *e, *v;
	size_t i, j;
	bool extra = false;

	variants_header("workload", variants, " | avg mem (MiB) | peak mem (MiB) |",
			" | avg mem | peak mem |", 3);
	json_array_foreach(summary, i, e) {
		printf("| %s %s |", str(e, "group"), str(e, "title"));
		json_array_foreach(variants, j, v) {
			json_t *s = variant_summary(e, v);

			if (strcmp(str(s, "status"), "ok")) {
				status_cells(s, 3);
				continue;
			}
			metric_cell(s, 0);
			mem_avg_cell(s);
			mem_peak_cell(s);
			extra |= json_array_size(json_object_get(s, "metrics")) > 1;
		}
		json_array_foreach(variants, j, v) {
			json_t *r = ratios_of(e, variants, v), *m0;

			if (!j)
				continue;
			m0 = json_array_get(json_object_get(variant_summary(e, v), "metrics"), 0);
			ratio_cell(r, m0 ? str(m0, "name") : "");
			ratio_cell(r, "avg_mem");
			ratio_cell(r, "peak_mem");
		}
		printf("\n");
	}
	return extra;
}

/* Figures beyond each workload's first: a row each. */
static void print_other_figures(json_t *variants, json_t *summary)
{
	json_t *e, *v, *ms, *mdef;
	size_t i, j, m;

	variants_header("workload, figure", variants, " |", " |", 1);
	json_array_foreach(summary, i, e) {
		ms = NULL;
		json_array_foreach(variants, j, v) {
			json_t *s = variant_summary(e, v);

			if (!strcmp(str(s, "status"), "ok")) {
				ms = json_object_get(s, "metrics");
				break;
			}
		}
		json_array_foreach(ms, m, mdef) {
			if (!m)
				continue;
			printf("| %s %s, %s |", str(e, "group"), str(e, "title"), str(mdef, "label"));
			json_array_foreach(variants, j, v) {
				json_t *s = variant_summary(e, v);

				if (strcmp(str(s, "status"), "ok"))
					status_cells(s, 1);
				else
					metric_cell(s, m);
			}
			json_array_foreach(variants, j, v)
				if (j)
					ratio_cell(ratios_of(e, variants, v), str(mdef, "name"));
			printf("\n");
		}
	}
}

/* Every workload of @res, then its figures beyond the first, if any. */
void print_table(json_t *res)
{
	json_t *variants = json_object_get(res, "variants");
	json_t *summary = json_object_get(res, "summary");

	if (print_first_figures(variants, summary)) {
		printf("\n");
		print_other_figures(variants, summary);
	}
}

int cmd_table(int argc, char **argv)
{
	json_t *res = load(argv[0]);

	print_table(res);
	json_decref(res);
	return 0;
}

/* Does @res time operations (rcu_gp)? */
static bool has_latency(json_t *res)
{
	json_t *run, *doc;
	size_t i, j;

	json_array_foreach(json_object_get(res, "runs"), i, run)
		json_array_foreach(json_object_get(run, "benchs"), j, doc)
			if (json_array_size(json_object_get(doc, "latency")))
				return true;
	return false;
}

/* Each timed operation of each run; false: there are none. */
bool print_latency(json_t *res)
{
	json_t *run, *doc, *l;
	size_t i, j, k;

	if (!has_latency(res))
		return false;
	printf("| variant | round | operation | median (us) | p90 (us) | max (us) | samples |\n");
	printf("| -- | --: | -- | --: | --: | --: | --: |\n");
	json_array_foreach(json_object_get(res, "runs"), i, run)
		json_array_foreach(json_object_get(run, "benchs"), j, doc)
			json_array_foreach(json_object_get(doc, "latency"), k, l)
				printf("| %s | %d | %s | %.1f | %.1f | %.1f | %lld |\n",
				       str(run, "variant"),
				       (int)json_integer_value(json_object_get(run, "round")),
				       str(l, "label"), num(l, "median_us"), num(l, "p90_us"),
				       num(l, "max_us"),
				       (long long)json_integer_value(json_object_get(l, "samples")));
	return true;
}

int cmd_latency(int argc, char **argv)
{
	json_t *res = load(argv[0]);

	if (!print_latency(res))
		die("%s has no timed operations (rcu_gp left out by BENCH=?)", argv[0]);
	json_decref(res);
	return 0;
}

int cmd_status(int argc, char **argv)
{
	json_t *res, *run, *doc, *err;
	size_t i, j;

	res = load(argv[0]);
	json_array_foreach(json_object_get(res, "runs"), i, run)
		json_array_foreach(json_object_get(run, "benchs"), j, doc)
			printf("%s %d %s %s\n", str(run, "variant"),
			       (int)json_integer_value(json_object_get(run, "round")),
			       str(doc, "bench"), str(doc, "status"));
	json_array_foreach(json_object_get(res, "errors"), i, err)
		printf("error %s\n", json_string_value(err));
	json_decref(res);
	return 0;
}

/*
 * table.md as scripts/bench writes it: a section per table that has
 * rows, the patch threads' first; which ones, the results say (each
 * document names its workload's group), not a list of workload names.
 */
int cmd_markdown(int argc, char **argv)
{
	json_t *res = load(argv[0]);
	const char *first;

	print_thread_sections(res);
	if (has_latency(res)) {
		printf("## Timed operations (microseconds), per variant and round\n\n");
		print_latency(res);
		printf("\n");
	}
	first = json_string_value(json_array_get(json_object_get(res, "variants"), 0));
	printf("## Every workload, ratios to %s\n\n", first ? first : "the first variant (no run)");
	print_table(res);
	json_decref(res);
	return 0;
}
