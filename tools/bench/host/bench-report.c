// SPDX-License-Identifier: GPL-2.0
/*
 * bench-report: the host side of `make bench` (scripts/bench).
 *
 *   bench-report extract CONSOLE.log
 *	the JSON documents the guest's bench program printed, as an array
 *   bench-report merge OUT.json [--config KEY=VALUE]... --run VARIANT:ROUND:RUNDIR...
 *	every run's documents and a summary per benchmark and variant
 *	(samples of all rounds pooled), written to OUT.json whole or not
 *	at all (a temporary file renamed over it); VARIANT may name a
 *	flavor after a colon of its own (base:preempt:1:logs/...)
 *   bench-report table RESULTS.json
 *	the summary as markdown: one row per workload, one column group
 *	per variant, then the ratio of each other variant to the first
 *   bench-report flavours RESULTS.json
 *	the htab-mem workloads as seed 003 tabulates its four flavours: per
 *	variant, loop (k/s), average and peak memory (MiB) per workload
 *   bench-report percpu RESULTS.json
 *	bpf_ma percpu as seed 002 reports it: per variant, alloc and free
 *	rates (M/s), average and peak memory (MiB), failed inserts
 *   bench-report plot RESULTS.json PNG
 *	a gnuplot script drawing PNG: throughput relative to the first
 *	variant, and peak memory
 *   bench-report latency RESULTS.json
 *	each timed operation of each run (the documents' "latency", rcu_gp):
 *	median, p90 and max in microseconds and the number of timings, one
 *	row per variant, round and operation (percentiles are not pooled)
 *   bench-report status RESULTS.json
 *	"VARIANT ROUND BENCH STATUS" per run and benchmark
 *
 * C with jansson rather than shell: the documents are JSON, and
 * statistics over pooled samples need real arithmetic.  The statistics
 * are hand-rolled (mean and sample standard deviation, tools/bench/stats.h,
 * shared with the guest as upstream's bench computes them); no library
 * call does just that.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "stats.h"

#define MARK_BEGIN	"# bench-json-begin "
#define MARK_END	"# bench-json-end "

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("bench-report: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* --- extract ----------------------------------------------------------------- */

static char *skip_blanks(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * The documents of one console log.  init indents the program's lines;
 * each line of a document is a "# " diagnostic.  Lines between the
 * markers that are not (a kernel message printed meanwhile) are left
 * out.  A document cut short (the guest died) or unparsable is reported
 * in @errors and left out.
 */
static json_t *extract(const char *path, json_t *errors)
{
	json_t *docs = json_array();
	char *line = NULL, *buf = NULL, name[128] = "";
	size_t cap = 0, len = 0, bufcap = 0;
	bool inside = false;
	ssize_t n;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		json_array_append_new(errors, json_sprintf("%s: %s", path, strerror(errno)));
		return docs;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		char *s;

		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		s = skip_blanks(line);
		if (!strncmp(s, MARK_BEGIN, strlen(MARK_BEGIN))) {
			if (inside)
				json_array_append_new(errors, json_sprintf("%s: document %s cut short",
									   path, name));
			snprintf(name, sizeof(name), "%s", s + strlen(MARK_BEGIN));
			inside = true;
			len = 0;
			continue;
		}
		if (!inside)
			continue;
		if (!strncmp(s, MARK_END, strlen(MARK_END))) {
			json_error_t err;
			json_t *doc;

			inside = false;
			doc = json_loadb(buf ? buf : "", len, 0, &err);
			if (!doc) {
				json_array_append_new(errors, json_sprintf("%s: document %s: %s (line %d)",
									   path, name, err.text, err.line));
				continue;
			}
			json_array_append_new(docs, doc);
			continue;
		}
		if (*s != '#')
			continue;
		s++;
		if (*s == ' ')
			s++;
		if (len + strlen(s) + 2 > bufcap) {
			bufcap = (len + strlen(s) + 2) * 2;
			buf = realloc(buf, bufcap);
			if (!buf)
				die("out of memory");
		}
		len += sprintf(buf + len, "%s\n", s);
	}
	if (inside)
		json_array_append_new(errors, json_sprintf("%s: document %s cut short", path, name));
	fclose(f);
	free(line);
	free(buf);
	return docs;
}

/* --- merge -------------------------------------------------------------------- */

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

static double num(json_t *obj, const char *key)
{
	return json_number_value(json_object_get(obj, key));
}

/* The values of @key in the samples of every ok document in @docs. */
static double *pool(json_t *docs, const char *key, int *n)
{
	size_t i, j, total = 0;
	json_t *doc, *s;
	double *v;

	json_array_foreach(docs, i, doc)
		total += json_array_size(json_object_get(doc, "samples"));
	v = calloc(total + 1, sizeof(*v));
	if (!v)
		die("out of memory");
	*n = 0;
	json_array_foreach(docs, i, doc)
		json_array_foreach(json_object_get(doc, "samples"), j, s)
			if (json_is_number(json_object_get(s, key)))
				v[(*n)++] = num(s, key);
	return v;
}

/* One benchmark on one variant, from the documents of all its rounds. */
static json_t *summarize(json_t *docs)
{
	json_t *ok = json_array(), *out = json_object(), *metrics, *m, *doc;
	const char *status = NULL, *reason = "";
	double peak = 0;
	size_t i;
	int fails = 0, skips = 0;

	json_array_foreach(docs, i, doc) {
		const char *st = str(doc, "status");

		if (!strcmp(st, "ok")) {
			json_array_append(ok, doc);
			peak = fmax(peak, num(json_object_get(doc, "mem"), "peak_mib"));
		} else if (!strcmp(st, "skip")) {
			skips++;
			reason = str(doc, "skip_reason");
		} else {
			fails++;
			reason = str(doc, "failure");
		}
	}
	/* Rounds that ran the benchmark but printed nothing count as missing. */
	if (fails)
		status = "fail";
	else if (json_array_size(ok))
		status = "ok";
	else if (skips)
		status = "skip";
	else
		status = "missing";
	json_object_set_new(out, "status", json_string(status));
	/* Run with -f where it could not mean what it should (one CPU). */
	json_array_foreach(ok, i, doc)
		if (json_is_true(json_object_get(json_object_get(doc, "env"), "forced")))
			json_object_set_new(out, "forced", json_true());
	json_object_set_new(out, "rounds", json_integer(json_array_size(ok)));
	if (*reason)
		json_object_set_new(out, "reason", json_string(reason));

	metrics = json_array();
	if (json_array_size(ok)) {
		json_array_foreach(json_object_get(json_array_get(ok, 0), "metrics"), i, m) {
			int n;
			double *v = pool(ok, str(m, "name"), &n);
			struct stats st = stats_of(v, n);

			json_array_append_new(metrics, json_pack("{s:s, s:s, s:s, s:f, s:f, s:i}",
					      "name", str(m, "name"), "label", str(m, "label"),
					      "unit", str(m, "unit"), "mean", st.mean,
					      "stddev", st.stddev, "samples", n));
			free(v);
		}
		{
			int n;
			double *v = pool(ok, "mem_mib", &n);
			struct stats st = stats_of(v, n);

			json_object_set_new(out, "mem", json_pack("{s:f, s:f, s:f}",
					    "avg_mib", st.mean, "stddev_mib", st.stddev,
					    "peak_mib", peak));
			free(v);
		}
	}
	json_object_set_new(out, "metrics", metrics);
	json_decref(ok);
	return out;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static json_t *ratios(json_t *v, json_t *base)
{
	json_t *r = json_object(), *m;
	size_t i;

	if (strcmp(str(v, "status"), "ok") || strcmp(str(base, "status"), "ok"))
		return r;
	json_array_foreach(json_object_get(v, "metrics"), i, m) {
		double x = ratio(num(m, "mean"),
				 num(json_array_get(json_object_get(base, "metrics"), i), "mean"));

		if (isfinite(x))
			json_object_set_new(r, str(m, "name"), json_real(x));
	}
	{
		json_t *mv = json_object_get(v, "mem"), *mb = json_object_get(base, "mem");
		double a = ratio(num(mv, "avg_mib"), num(mb, "avg_mib"));
		double p = ratio(num(mv, "peak_mib"), num(mb, "peak_mib"));

		if (isfinite(a))
			json_object_set_new(r, "avg_mem", json_real(a));
		if (isfinite(p))
			json_object_set_new(r, "peak_mem", json_real(p));
	}
	return r;
}

static bool in_array(json_t *arr, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (!strcmp(json_string_value(v), s))
			return true;
	return false;
}

static void write_whole(const char *path, json_t *doc)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, getpid());
	if (json_dump_file(doc, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(10))) {
		unlink(tmp);
		die("cannot write %s", tmp);
	}
	if (rename(tmp, path)) {
		unlink(tmp);
		die("rename %s: %s", path, strerror(errno));
	}
}

static int cmd_merge(int argc, char **argv)
{
	json_t *out = json_object(), *config = json_object(), *runs = json_array();
	json_t *variants = json_array(), *benchs = json_array(), *errors = json_array();
	json_t *summary = json_array(), *run, *doc, *v;
	const char *path;
	size_t i, j, k;
	int a;

	if (argc < 1)
		die("usage: merge OUT.json [--config KEY=VALUE]... --run VARIANT:ROUND:RUNDIR...");
	path = argv[0];
	for (a = 1; a < argc; a++) {
		char *arg = argv[a + 1], *c1, *c2, console[4096];

		if (a + 1 >= argc)
			die("%s needs an argument", argv[a]);
		if (!strcmp(argv[a], "--config")) {
			char *eq = strchr(arg, '=');

			if (!eq)
				die("--config %s: not KEY=VALUE", arg);
			*eq = '\0';
			json_object_set_new(config, arg, json_string(eq + 1));
		} else if (!strcmp(argv[a], "--run")) {
			/* From the right: a variant may carry its flavor after a colon. */
			c1 = NULL;
			c2 = strrchr(arg, ':');
			if (c2) {
				*c2 = '\0';
				c1 = strrchr(arg, ':');
				*c2 = ':';
			}
			if (!c1 || c1 == arg)
				die("--run %s: not VARIANT:ROUND:RUNDIR", arg);
			*c1 = *c2 = '\0';
			snprintf(console, sizeof(console), "%s/console.log", c2 + 1);
			run = json_pack("{s:s, s:i, s:s}", "variant", arg, "round", atoi(c1 + 1),
					"log", c2 + 1);
			json_object_set_new(run, "benchs", extract(console, errors));
			json_array_append_new(runs, run);
			if (!in_array(variants, arg))
				json_array_append_new(variants, json_string(arg));
		} else {
			die("unknown argument %s", argv[a]);
		}
		a++;
	}

	/* Benchmarks in the order the guest ran them. */
	json_array_foreach(runs, i, run)
		json_array_foreach(json_object_get(run, "benchs"), j, doc)
			if (!in_array(benchs, str(doc, "bench")))
				json_array_append_new(benchs, json_string(str(doc, "bench")));

	json_array_foreach(benchs, i, v) {
		const char *name = json_string_value(v);
		json_t *entry = json_object(), *per_variant = json_object(), *rat = json_object();
		json_t *variant, *first = NULL;

		json_array_foreach(variants, j, variant) {
			json_t *docs = json_array();

			json_array_foreach(runs, k, run) {
				json_t *d;
				size_t l;

				if (strcmp(str(run, "variant"), json_string_value(variant)))
					continue;
				json_array_foreach(json_object_get(run, "benchs"), l, d) {
					if (strcmp(str(d, "bench"), name))
						continue;
					json_array_append(docs, d);
					if (!json_object_get(entry, "title")) {
						json_object_set_new(entry, "bench", json_string(name));
						json_object_set_new(entry, "group",
								    json_string(str(d, "group")));
						json_object_set_new(entry, "title",
								    json_string(str(d, "title")));
						json_object_set_new(entry, "upstream",
								    json_string(str(d, "upstream")));
					}
				}
			}
			json_object_set_new(per_variant, json_string_value(variant),
					    summarize(docs));
			json_decref(docs);
		}
		json_array_foreach(variants, j, variant) {
			json_t *s = json_object_get(per_variant, json_string_value(variant));
			char key[256];

			if (!first) {
				first = variant;
				continue;
			}
			snprintf(key, sizeof(key), "%s/%s", json_string_value(variant),
				 json_string_value(first));
			json_object_set_new(rat, key, ratios(s, json_object_get(per_variant,
							      json_string_value(first))));
		}
		json_object_set_new(entry, "variants", per_variant);
		json_object_set_new(entry, "ratios", rat);
		json_array_append_new(summary, entry);
	}

	json_object_set_new(out, "format", json_string("memalloc-uml bench results v1"));
	json_object_set_new(out, "config", config);
	json_object_set_new(out, "variants", variants);
	json_object_set_new(out, "summary", summary);
	json_object_set_new(out, "errors", errors);
	json_object_set_new(out, "runs", runs);
	json_decref(benchs);
	write_whole(path, out);
	json_decref(out);
	return 0;
}

/* --- table -------------------------------------------------------------------- */

static json_t *load(const char *path)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);

	if (!doc)
		die("%s: %s (line %d)", path, err.text, err.line);
	return doc;
}

/*
 * Figures as the seeds print them: two decimals, none from 1000 on;
 * a standard deviation with the decimals of its mean.
 */
static const char *fig(char *buf, size_t len, double v, double scale)
{
	snprintf(buf, len, fabs(scale) >= 1000 ? "%.0f" : "%.2f", v);
	return buf;
}

static void mean_cell(double mean, double stddev, const char *unit, const char *note)
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

/* Average memory (mean, stddev) and peak of a variant's summary. */
static void mem_cells(json_t *s)
{
	json_t *mem = json_object_get(s, "mem");
	char peak[64];

	mean_cell(num(mem, "avg_mib"), num(mem, "stddev_mib"), "", "");
	printf(" %s |", fig(peak, sizeof(peak), num(mem, "peak_mib"), num(mem, "peak_mib")));
}

static void status_cells(json_t *s, int cells)
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

static int cmd_table(int argc, char **argv)
{
	json_t *res, *variants, *summary, *e, *v, *first;
	size_t i, j, m;
	bool extra = false;

	if (argc != 1)
		die("usage: table RESULTS.json");
	res = load(argv[0]);
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
			mem_cells(s);
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
	json_decref(res);
	return 0;
}

/* --- flavours, percpu: the seeds' own tables ------------------------------------ */

/* The figure named @name of a variant's summary, or NULL. */
static json_t *metric_named(json_t *s, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(s, "metrics"), i, m)
		if (!strcmp(str(m, "name"), name))
			return m;
	return NULL;
}

static void metric_named_cell(json_t *s, const char *name)
{
	json_t *m = metric_named(s, name);

	if (m)
		mean_cell(num(m, "mean"), num(m, "stddev"), "", "");
	else
		printf(" |");
}

/* A workload with no figures: why, once, then empty cells. */
static void why_cells(json_t *s, int cells)
{
	const char *st = str(s, "status");

	if (!strcmp(st, "skip") && !strncmp(str(s, "reason"), "needs SMP", 9))
		printf(" %s |", str(s, "reason"));
	else
		status_cells(s, 1);
	while (--cells > 0)
		printf(" |");
}

/*
 * A row of the seeds' tables: @label, then each of @cells, a figure's
 * name or "mem" (average and peak memory); or why there are no figures.
 */
static void seed_row(json_t *s, const char *label, const char *const *cells, int n)
{
	int i, width = 0;

	printf("| %s |", label);
	for (i = 0; i < n; i++)
		width += strcmp(cells[i], "mem") ? 1 : 2;
	if (strcmp(str(s, "status"), "ok")) {
		why_cells(s, width);
	} else {
		for (i = 0; i < n; i++) {
			if (!strcmp(cells[i], "mem"))
				mem_cells(s);
			else
				metric_named_cell(s, cells[i]);
		}
	}
	printf("\n");
}

/* The summary of RESULTS.json, the only argument of @cmd. */
static json_t *load_results(int argc, char **argv, const char *cmd)
{
	if (argc != 1)
		die("usage: %s RESULTS.json", cmd);
	return load(argv[0]);
}

static int cmd_flavours(int argc, char **argv)
{
	static const char *const cells[] = { "per_prod_op", "mem" };
	json_t *res = load_results(argc, argv, "flavours"), *e, *v;
	json_t *variants = json_object_get(res, "variants");
	size_t i, j;
	int rows = 0;

	json_array_foreach(variants, j, v) {
		printf("%s(%zu) %s\n\n", j ? "\n" : "", j + 1, json_string_value(v));
		printf("| name | loop (k/s) | average memory (MiB) | peak memory (MiB) |\n");
		printf("| -- | --: | --: | --: |\n");
		json_array_foreach(json_object_get(res, "summary"), i, e) {
			if (strcmp(str(e, "group"), "htab-mem"))
				continue;
			rows++;
			seed_row(json_object_get(json_object_get(e, "variants"), json_string_value(v)),
				 str(e, "bench"), cells, 2);
		}
	}
	json_decref(res);
	if (!rows)
		die("%s has no htab-mem workload (BENCH= left them out?)", argv[0]);
	return 0;
}

static int cmd_percpu(int argc, char **argv)
{
	static const char *const cells[] = { "alloc", "free", "mem", "alloc_fail" };
	json_t *res = load_results(argc, argv, "percpu"), *e, *v;
	size_t i, j;
	int rows = 0;

	printf("| variant | per-prod alloc (M/s) | free (M/s) | average memory (MiB) | peak memory (MiB) | failed inserts (%%) |\n");
	printf("| -- | --: | --: | --: | --: | --: |\n");
	json_array_foreach(json_object_get(res, "summary"), i, e) {
		if (strcmp(str(e, "bench"), "percpu_alloc_free"))
			continue;
		json_array_foreach(json_object_get(res, "variants"), j, v) {
			rows++;
			seed_row(json_object_get(json_object_get(e, "variants"), json_string_value(v)),
				 json_string_value(v), cells, 4);
		}
	}
	json_decref(res);
	if (!rows)
		die("%s has no percpu_alloc_free workload (BENCH= left it out?)", argv[0]);
	return 0;
}

static int cmd_latency(int argc, char **argv)
{
	json_t *res = load_results(argc, argv, "latency"), *run, *doc, *l;
	size_t i, j, k;
	int rows = 0;

	printf("| variant | round | operation | median (us) | p90 (us) | max (us) | samples |\n");
	printf("| -- | --: | -- | --: | --: | --: | --: |\n");
	json_array_foreach(json_object_get(res, "runs"), i, run)
		json_array_foreach(json_object_get(run, "benchs"), j, doc)
			json_array_foreach(json_object_get(doc, "latency"), k, l) {
				rows++;
				printf("| %s | %d | %s | %.1f | %.1f | %.1f | %lld |\n",
				       str(run, "variant"),
				       (int)json_integer_value(json_object_get(run, "round")),
				       str(l, "label"), num(l, "median_us"), num(l, "p90_us"),
				       num(l, "max_us"),
				       (long long)json_integer_value(json_object_get(l, "samples")));
			}
	json_decref(res);
	if (!rows)
		die("%s has no timed operations (rcu_gp left out by BENCH=?)", argv[0]);
	return 0;
}

/* --- plot --------------------------------------------------------------------- */

/* A gnuplot string: double quotes, with " and \\ escaped. */
static void gp_quoted(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

/* The x label of a workload: its name, and why there are no bars. */
static void gp_label(json_t *e, json_t *variants)
{
	json_t *v, *per = json_object_get(e, "variants");
	const char *why = NULL;
	size_t i;

	json_array_foreach(variants, i, v) {
		const char *st = str(json_object_get(per, json_string_value(v)), "status");

		if (!strcmp(st, "ok"))
			break;
		if (!why || strcmp(st, why))
			why = why ? "no result" : st;
	}
	printf("\"%s%s%s\"", str(e, "bench"), why ? "\\n" : "",
	       !why ? "" : !strcmp(why, "skip") ? "(skipped)" : !strcmp(why, "fail") ?
	       "(failed)" : "(no result)");
}

static int cmd_plot(int argc, char **argv)
{
	json_t *res, *variants, *summary, *config, *e, *v, *first;
	size_t i, j;

	if (argc != 2)
		die("usage: plot RESULTS.json PNG");
	res = load(argv[0]);
	variants = json_object_get(res, "variants");
	summary = json_object_get(res, "summary");
	config = json_object_get(res, "config");
	first = json_array_get(variants, 0);

	printf("set terminal pngcairo size 1200,900 noenhanced font ',10'\n");
	printf("set output ");
	gp_quoted(argv[1]);
	printf("\nset datafile missing 'NaN'\n");
	printf("set multiplot layout 2,1 title ");
	{
		char title[512];

		snprintf(title, sizeof(title),
			 "memalloc-uml bench %s (UML, BPF interpreter): args '%s', %s round(s)",
			 str(config, "date"), str(config, "bench_args"), str(config, "rounds"));
		gp_quoted(title);
	}
	printf("\nset style fill solid 0.85 border -1\n"
	       "set boxwidth 0.9\n"
	       "set grid ytics\n"
	       "set key outside right top\n"
	       "set xtics rotate by -25 scale 0\n"
	       "set yrange [0:*]\n");

	/* Panel 1: throughput (first figure) relative to the first variant. */
	printf("$rate << EOD\n");
	json_array_foreach(summary, i, e) {
		json_t *per = json_object_get(e, "variants");
		json_t *base = json_array_get(json_object_get(json_object_get(per,
					      json_string_value(first)), "metrics"), 0);
		double b = base ? num(base, "mean") : 0;

		gp_label(e, variants);
		json_array_foreach(variants, j, v) {
			json_t *s = json_object_get(per, json_string_value(v));
			json_t *m = json_array_get(json_object_get(s, "metrics"), 0);

			if (!strcmp(str(s, "status"), "ok") && m && b > 0)
				printf(" %g %g", num(m, "mean") / b, num(m, "stddev") / b);
			else
				printf(" NaN NaN");
		}
		printf("\n");
	}
	printf("EOD\n");
	printf("set style data histogram\nset style histogram errorbars gap 1 lw 1\n");
	printf("set ylabel ");
	{
		char label[256];

		snprintf(label, sizeof(label), "throughput / %s (mean, stddev)",
			 json_string_value(first));
		gp_quoted(label);
	}
	printf("\nplot");
	json_array_foreach(variants, j, v) {
		printf("%s $rate using %zu:%zu%s title ", j ? "," : "", 2 + 2 * j, 3 + 2 * j,
		       j ? "" : ":xtic(1)");
		gp_quoted(json_string_value(v));
	}
	printf("\n");

	/* Panel 2: peak memory in MiB. */
	printf("$mem << EOD\n");
	json_array_foreach(summary, i, e) {
		json_t *per = json_object_get(e, "variants");

		gp_label(e, variants);
		json_array_foreach(variants, j, v) {
			json_t *s = json_object_get(per, json_string_value(v));

			if (!strcmp(str(s, "status"), "ok"))
				printf(" %g", num(json_object_get(s, "mem"), "peak_mib"));
			else
				printf(" NaN");
		}
		printf("\n");
	}
	printf("EOD\n");
	printf("set style histogram clustered gap 1\nset ylabel 'memory.peak (MiB)'\nplot");
	json_array_foreach(variants, j, v) {
		printf("%s $mem using %zu%s title ", j ? "," : "", 2 + j, j ? "" : ":xtic(1)");
		gp_quoted(json_string_value(v));
	}
	printf("\nunset multiplot\n");
	json_decref(res);
	return 0;
}

/* --- status / extract ---------------------------------------------------------- */

static int cmd_status(int argc, char **argv)
{
	json_t *res, *run, *doc, *err;
	size_t i, j;

	if (argc != 1)
		die("usage: status RESULTS.json");
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

static int cmd_extract(int argc, char **argv)
{
	json_t *errors = json_array(), *docs, *e;
	size_t i;
	int status;

	if (argc != 1)
		die("usage: extract CONSOLE.log");
	docs = extract(argv[0], errors);
	json_dumpf(docs, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	putchar('\n');
	json_array_foreach(errors, i, e)
		fprintf(stderr, "bench-report: %s\n", json_string_value(e));
	status = json_array_size(errors) ? 1 : 0;
	json_decref(docs);
	json_decref(errors);
	return status;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "extract"))
		return cmd_extract(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "merge"))
		return cmd_merge(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "table"))
		return cmd_table(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "flavours"))
		return cmd_flavours(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "percpu"))
		return cmd_percpu(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "plot"))
		return cmd_plot(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "latency"))
		return cmd_latency(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "status"))
		return cmd_status(argc - 2, argv + 2);
	fprintf(stderr, "usage: bench-report extract|merge|table|flavours|percpu|latency|plot|status ...\n");
	return 2;
}
