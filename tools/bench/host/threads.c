// SPDX-License-Identifier: GPL-2.0
/*
 * The tables of the allocator's patch threads, as the threads print
 * them, so that a run here reads beside the published figures
 * (tools/bench/README.md quotes them): each is a description, the
 * workloads it shows, its layout and its columns; one renderer draws
 * them all.  A new thread's table is a new entry of thread_tables[].
 */
#include <stdio.h>
#include <string.h>

#include "report.h"

#define MAX_COLUMNS	8

struct column {
	/* A metric's name in the documents, or "avg_mem", "peak_mem". */
	const char *figure;
	const char *header;
};

struct thread_table {
	const char *command;	/* bench-report COMMAND */
	const char *heading;	/* its section of table.md (markdown) */
	/* The workloads it shows: those of @group, or the one named @bench. */
	const char *group;
	const char *bench;
	/*
	 * A table per variant, "(N) VARIANT" above it, a row per workload
	 * (as the RFC v2 has one per design); else one table, a row per
	 * variant.
	 */
	bool table_per_variant;
	const char *row_header;
	struct column columns[MAX_COLUMNS];
};

static const struct thread_table thread_tables[] = {
	{
		/* Hou Tao's htab-mem, the four designs of his RFC v2. */
		.command = "designs",
		.heading = "htab-mem per variant (RFC v2, Introduce BPF_MA_REUSE_AFTER_RCU_GP)",
		.group = "htab-mem",
		.table_per_variant = true,
		.row_header = "name",
		.columns = {
			{ "per_prod_op", "loop (k/s)" },
			{ "avg_mem", "average memory (MiB)" },
			{ "peak_mem", "peak memory (MiB)" },
		},
	},
	{
		/* Yonghong Song's bench bpf_ma --percpu, his v6. */
		.command = "percpu",
		.heading = "bpf_ma percpu (v6, Reduce memory usage for bpf_global_percpu_ma)",
		.bench = "percpu_alloc_free",
		.row_header = "variant",
		.columns = {
			{ "alloc", "per-prod alloc (M/s)" },
			{ "free", "free (M/s)" },
			{ "avg_mem", "average memory (MiB)" },
			{ "peak_mem", "peak memory (MiB)" },
			{ "alloc_fail", "failed inserts (%)" },
		},
	},
};

static int nr_columns(const struct thread_table *t)
{
	int n = 0;

	while (n < MAX_COLUMNS && t->columns[n].figure)
		n++;
	return n;
}

static bool shows(const struct thread_table *t, json_t *e)
{
	return t->group ? !strcmp(str(e, "group"), t->group) : !strcmp(str(e, "bench"), t->bench);
}

static bool has_rows(const struct thread_table *t, json_t *res)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(res, "summary"), i, e)
		if (shows(t, e))
			return true;
	return false;
}

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

static void figure_cell(json_t *s, const char *figure)
{
	json_t *m;

	if (!strcmp(figure, "avg_mem")) {
		mem_avg_cell(s);
	} else if (!strcmp(figure, "peak_mem")) {
		mem_peak_cell(s);
	} else {
		m = metric_named(s, figure);
		if (m)
			mean_cell(num(m, "mean"), num(m, "stddev"), "", "");
		else
			printf(" |");
	}
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

/* A row: @label, then each column's figure of variant summary @s, or why there are none. */
static void row(const struct thread_table *t, json_t *s, const char *label)
{
	int i, n = nr_columns(t);

	printf("| %s |", label);
	if (strcmp(str(s, "status"), "ok"))
		why_cells(s, n);
	else
		for (i = 0; i < n; i++)
			figure_cell(s, t->columns[i].figure);
	printf("\n");
}

static void header(const struct thread_table *t)
{
	int i, n = nr_columns(t);

	printf("| %s |", t->row_header);
	for (i = 0; i < n; i++)
		printf(" %s |", t->columns[i].header);
	printf("\n| -- |");
	for (i = 0; i < n; i++)
		printf(" --: |");
	printf("\n");
}

static void print_thread_table(const struct thread_table *t, json_t *res)
{
	json_t *variants = json_object_get(res, "variants");
	json_t *summary = json_object_get(res, "summary"), *e, *v;
	size_t i, j;

	if (!t->table_per_variant)
		header(t);
	json_array_foreach(variants, j, v) {
		if (t->table_per_variant) {
			printf("%s(%zu) %s\n\n", j ? "\n" : "", j + 1, json_string_value(v));
			header(t);
		}
		json_array_foreach(summary, i, e) {
			if (!shows(t, e))
				continue;
			row(t, variant_summary(e, v),
			    t->table_per_variant ? str(e, "bench") : json_string_value(v));
		}
	}
}

void print_thread_sections(json_t *res)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(thread_tables); i++) {
		if (!has_rows(&thread_tables[i], res))
			continue;
		printf("## %s\n\n", thread_tables[i].heading);
		print_thread_table(&thread_tables[i], res);
		printf("\n");
	}
}

int cmd_thread_table(const char *command, char **argv)
{
	const struct thread_table *t = NULL;
	json_t *res;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(thread_tables); i++)
		if (!strcmp(thread_tables[i].command, command))
			t = &thread_tables[i];
	if (!t)
		die("no table %s", command);
	res = load(argv[0]);
	if (!has_rows(t, res))
		die("%s has no %s workload (BENCH= left it out?)", argv[0],
		    t->group ? t->group : t->bench);
	print_thread_table(t, res);
	json_decref(res);
	return 0;
}
