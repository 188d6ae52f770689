// SPDX-License-Identifier: GPL-2.0
/*
 * bench-report merge: every run's documents, and per workload and
 * variant the figures over the samples of all rounds (pooled), with the
 * ratios of each other variant to the first; bench-report stats: the
 * same statistics of any numbers.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "stats.h"

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

int cmd_merge(int argc, char **argv)
{
	json_t *out = json_object(), *config = json_object(), *runs = json_array();
	json_t *variants = json_array(), *benchs = json_array(), *errors = json_array();
	json_t *summary = json_array(), *run, *doc, *v;
	const char *path;
	size_t i, j, k;
	int a;

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

int cmd_stats(int argc, char **argv)
{
	size_t n = 0, cap = 0;
	double *v = NULL, x;
	struct stats_ranks r;
	struct stats st;
	int c;

	while ((c = scanf("%lf", &x)) == 1) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				die("out of memory");
		}
		v[n++] = x;
	}
	if (c != EOF)
		die("stats: standard input has something other than numbers after %zu of them", n);
	st = stats_of(v, n);
	r = stats_ranks_of(v, n);
	printf("n %zu mean %g stddev %g min %g median %g p90 %g max %g\n",
	       n, st.mean, st.stddev, r.min, r.median, r.p90, r.max);
	free(v);
	return 0;
}
