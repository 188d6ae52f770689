// SPDX-License-Identifier: GPL-2.0
/*
 * bench-report plot: the gnuplot script that draws chart.png, throughput
 * relative to the first variant (mean, stddev) and memory.peak.
 */
#include <stdio.h>
#include <string.h>

#include "report.h"

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

int cmd_plot(int argc, char **argv)
{
	json_t *res, *variants, *summary, *config, *e, *v, *first;
	size_t i, j;

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
