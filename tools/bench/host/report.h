/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench-report's modules (main.c is the command line):
 *
 *   results.c  errors, reading and writing JSON files whole
 *   extract.c  the documents of a guest's console log
 *   merge.c    every run's documents, pooled per workload and variant
 *              (stats.c), with the ratios to the first variant
 *   table.c    the markdown tables: every workload, the timed operations,
 *              the runs' status, and table.md whole
 *   threads.c  the tables of the patch threads, as descriptions
 *   plot.c     the gnuplot script of chart.png
 *
 * The results file (merge) is the interface between them: "variants"
 * (the first is the baseline), "summary" (per workload: "variants" with
 * status, metrics and mem; "ratios"), "runs" (every document), "config".
 */
#ifndef KIT_BENCH_REPORT_H
#define KIT_BENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* results.c */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
const char *str(json_t *obj, const char *key);
double num(json_t *obj, const char *key);
json_t *load(const char *path);
void write_whole(const char *path, json_t *doc);
/* Variant @v's summary of workload @e of the results' "summary". */
json_t *variant_summary(json_t *e, json_t *v);

/* extract.c */
json_t *extract(const char *path, json_t *errors);
int cmd_extract(int argc, char **argv);

/* merge.c */
int cmd_merge(int argc, char **argv);
int cmd_stats(int argc, char **argv);

/* table.c: the cells the tables share */
const char *fig(char *buf, size_t len, double v, double scale);
void mean_cell(double mean, double stddev, const char *unit, const char *note);
void mem_avg_cell(json_t *s);
void mem_peak_cell(json_t *s);
void status_cells(json_t *s, int cells);
/* table.c: the commands */
void print_table(json_t *res);
bool print_latency(json_t *res);
int cmd_table(int argc, char **argv);
int cmd_latency(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_markdown(int argc, char **argv);

/* threads.c */
/* Prints table.md's sections of the patch threads' tables that have rows. */
void print_thread_sections(json_t *res);
int cmd_thread_table(const char *command, char **argv);

/* plot.c */
int cmd_plot(int argc, char **argv);

#endif /* KIT_BENCH_REPORT_H */
