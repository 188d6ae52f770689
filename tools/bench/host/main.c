// SPDX-License-Identifier: GPL-2.0
/*
 * bench-report: the host side of `make bench` (scripts/bench), and its
 * command line.  The commands are in the table below; report.h says
 * which module does what.
 *
 * C with jansson rather than shell: the documents are JSON, and
 * statistics over pooled samples need real arithmetic (tools/bench/stats.c,
 * the guest program's own).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "report.h"

struct command {
	const char *name;
	const char *args;
	int nargs;		/* exactly; -1: at least one */
	int (*run)(int argc, char **argv);
	const char *help;
};

/* The patch threads' tables, by their descriptions (threads.c). */
static int run_designs(int argc, char **argv)
{
	return cmd_thread_table("designs", argv);
}

static int run_percpu(int argc, char **argv)
{
	return cmd_thread_table("percpu", argv);
}

static const struct command commands[] = {
	{ "extract", "CONSOLE.log", 1, cmd_extract,
	  "the JSON documents the guest's bench program printed, as an array" },
	{ "merge", "OUT.json [--config KEY=VALUE]... --run VARIANT:ROUND:RUNDIR...", -1, cmd_merge,
	  "every run's documents and a summary per benchmark and variant\n"
	  "(samples of all rounds pooled), written to OUT.json whole or not at\n"
	  "all; VARIANT may name a flavor after a colon of its own\n"
	  "(vanilla:preempt:1:logs/...)" },
	{ "markdown", "RESULTS.json", 1, cmd_markdown,
	  "table.md: the patch threads' tables that have rows (designs,\n"
	  "percpu), the timed operations if any (latency), then every\n"
	  "workload (table), each under a heading" },
	{ "table", "RESULTS.json", 1, cmd_table,
	  "the summary as markdown: one row per workload, one column group\n"
	  "per variant, then the ratio of each other variant to the first" },
	{ "designs", "RESULTS.json", 1, run_designs,
	  "the htab-mem workloads as RFC v2 \"Introduce\n"
	  "BPF_MA_REUSE_AFTER_RCU_GP\" tabulates its four designs: per\n"
	  "variant, loop (k/s), average and peak memory (MiB) per workload" },
	{ "percpu", "RESULTS.json", 1, run_percpu,
	  "bpf_ma percpu as v6 \"Reduce memory usage for bpf_global_percpu_ma\"\n"
	  "reports it: per variant, alloc and free rates (M/s), average and\n"
	  "peak memory (MiB), failed inserts" },
	{ "latency", "RESULTS.json", 1, cmd_latency,
	  "each timed operation of each run (the documents' \"latency\", rcu_gp):\n"
	  "median, p90 and max in microseconds and the number of timings, one\n"
	  "row per variant, round and operation (percentiles are not pooled)" },
	{ "plot", "RESULTS.json PNG", 2, cmd_plot,
	  "a gnuplot script drawing PNG: throughput relative to the first\n"
	  "variant, and peak memory" },
	{ "status", "RESULTS.json", 1, cmd_status,
	  "\"VARIANT ROUND BENCH STATUS\" per run and benchmark" },
	{ "stats", "", 0, cmd_stats,
	  "the numbers on standard input (white-space separated) as the benchmarks'\n"
	  "statistics: n, mean, stddev, min, median, p90, max" },
};

static void print_help(FILE *f)
{
	size_t i;

	fprintf(f, "usage: bench-report COMMAND ARGS...\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		const char *h = commands[i].help, *nl;

		fprintf(f, "  bench-report %s%s%s\n", commands[i].name, *commands[i].args ? " " : "",
			commands[i].args);
		for (; *h; h = *nl ? nl + 1 : nl) {
			nl = strchrnul(h, '\n');
			fprintf(f, "\t%.*s\n", (int)(nl - h), h);
		}
	}
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		print_help(stdout);
		return 0;
	}
	for (i = 0; argc >= 2 && i < ARRAY_SIZE(commands); i++) {
		const struct command *c = &commands[i];

		if (strcmp(argv[1], c->name))
			continue;
		if (c->nargs >= 0 ? argc - 2 != c->nargs : argc - 2 < 1) {
			fprintf(stderr, "usage: bench-report %s%s%s\n", c->name, *c->args ? " " : "",
				c->args);
			return 2;
		}
		return c->run(argc - 2, argv + 2);
	}
	if (argc >= 2)
		fprintf(stderr, "bench-report: unknown command '%s'\n", argv[1]);
	print_help(stderr);
	return 2;
}
