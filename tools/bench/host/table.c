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
 * Figures as the seeds print them: two decimals, none from 1000 on;
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

/* Every workload of @res, and its figures beyond the first; false: none. */
bool print_table(json_t *res)
{
	json_t *variants, *summary, *e, *v, *first;
	size_t i, j, m;
	bool extra = false;

	variants = json_object_get(res, "variants");
	summary = json_object_get(res, "summary");
	first = json_array_get(variants, 0);

	printf("| workload |");
	json_array_foreach(variants, i, v)
		printf(" %s | avg mem (MiB) | peak mem (MiB) |", json_string_value(v));
	json_array_foreach(variants, i, v)
		if (i)
			printf(" %s/%s | avg mem | peak mem |", json_string_value(v),
			       json_string_value(first));
	printf("\n| --- |");
	json_array_foreach(variants, i, v)
		printf(" ---: | ---: | ---: |");
	json_array_foreach(variants, i, v)
		if (i)
			printf(" ---: | ---: | ---: |");
	printf("\n");

	json_array_foreach(summary, i, e) {
		json_t *per = json_object_get(e, "variants");

		printf("| %s %s |", str(e, "group"), str(e, "title"));
		json_array_foreach(variants, j, v) {
			json_t *s = json_object_get(per, json_string_value(v));

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
			char key[256];
			json_t *r, *m0;

			if (!j)
				continue;
			snprintf(key, sizeof(key), "%s/%s", json_string_value(v),
				 json_string_value(first));
			r = json_object_get(json_object_get(e, "ratios"), key);
			m0 = json_array_get(json_object_get(json_object_get(per,
					    json_string_value(v)), "metrics"), 0);
			ratio_cell(r, m0 ? str(m0, "name") : "");
			ratio_cell(r, "avg_mem");
			ratio_cell(r, "peak_mem");
		}
		printf("\n");
	}
	if (!extra)
		goto out;

	/* Figures beyond each workload's first: a row each. */
	printf("\n| workload, figure |");
	json_array_foreach(variants, i, v)
		printf(" %s |", json_string_value(v));
	json_array_foreach(variants, i, v)
		if (i)
			printf(" %s/%s |", json_string_value(v), json_string_value(first));
	printf("\n| --- |");
	json_array_foreach(variants, i, v)
		printf(" ---: |");
	json_array_foreach(variants, i, v)
		if (i)
			printf(" ---: |");
	printf("\n");
	json_array_foreach(summary, i, e) {
		json_t *per = json_object_get(e, "variants");
		json_t *ms = NULL, *mdef;

		json_array_foreach(variants, j, v) {
			json_t *s = json_object_get(per, json_string_value(v));

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
				json_t *s = json_object_get(per, json_string_value(v));

				if (strcmp(str(s, "status"), "ok"))
					status_cells(s, 1);
				else
					metric_cell(s, m);
			}
			json_array_foreach(variants, j, v) {
				char key[256];

				if (!j)
					continue;
				snprintf(key, sizeof(key), "%s/%s", json_string_value(v),
					 json_string_value(first));
				ratio_cell(json_object_get(json_object_get(e, "ratios"), key),
					   str(mdef, "name"));
			}
			printf("\n");
		}
	}
out:
	return json_array_size(summary) > 0;
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

	print_thread_sections(res);
	if (has_latency(res)) {
		printf("## Timed operations (microseconds), per variant and round\n\n");
		print_latency(res);
		printf("\n");
	}
	printf("## Every workload, ratios to %s\n\n",
	       json_string_value(json_array_get(json_object_get(res, "variants"), 0)));
	print_table(res);
	json_decref(res);
	return 0;
}
