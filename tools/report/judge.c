// SPDX-License-Identifier: GPL-2.0
/*
 * judge: the kit's one verdict on a KTAP report.
 *
 * Every producer of results (the guest's init, make stress, the upstream
 * runners, tools/uspace/run, tests/run) prints KTAP v1; this program reads
 * it into a tree, checks every plan against the results that came, applies
 * the expectations table (tools/report/expectations) for the run's
 * identity, and prints one line per result that is not a plain pass, the
 * problems, and the summary line "N passed, N failed, N skipped".  It
 * writes results.json, failures and summary into --out, each whole or not
 * at all, and exits 0 only when nothing failed.
 *
 *   judge [options] KTAP-FILE
 *     --out DIR           write DIR/results.json, DIR/failures, DIR/summary
 *     --expect FILE       the expectations table (default: none)
 *     --producer P        selftests, upstream, stress, uspace, kit (the
 *                         expectations' "producer" key)
 *     --base B --variant V --uml yes|no
 *                         the run's identity, each its own key
 *     --filter GLOBS      the run's case filter (kit.t=): an expected case
 *                         outside it is not missing
 *     --problem TEXT      a finding of the caller (a splat on the console);
 *                         each counts as one failure
 *     --suites FILE       the suites the image was built with, one a line
 *                         (build/rootfs/suites, kept by uml/run): each one
 *                         the filter chooses must be in the report (empty:
 *                         not known, not checked)
 *   judge --sum DIR...    add up the results.json of judged runs and print
 *                         the total line, after each failed run's FAIL
 *                         and XPASS cases and problems; a directory
 *                         without results.json is a failure
 *
 * With KIT_RESULTS_LIST set, a judged run appends its --out directory to
 * that file: make test (tests/run-all) adds them up at the end.
 *   judge --list --expect FILE --producer P --base B --variant V --uml U
 *                         print the expectations that apply, a line each:
 *                         case, tool (or -), why (tools/uspace/run)
 *
 * The parser follows KTAP v1 as tools/testing/kunit/kunit_parser.py reads
 * it: four spaces of indentation per level, "# Subtest:", plans, results
 * with directives, "# " diagnostics that belong to the result after them.
 * Lines with a printk timestamp are the kernel's own, not the report's.
 * A library would do, but there is no KTAP parser in C in Debian, and
 * kunit_parser.py does not check plans the way a verdict must.
 *
 * Cut along its seams as kunit.py is: report.h and util.c (the run, the
 * helpers), ktap_tree.c (the parser, a tree), expectations.c (the table's
 * loader and matcher), rules.c (what fails a run, with the T= filter of
 * tools/lib/filter.c), output.c (the lines, results.json and the summary,
 * judge --sum); built by tools/report/report.mk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expectations.h"
#include "ktap_tree.h"
#include "output.h"
#include "report.h"
#include "rules.h"

struct run run = { .producer = "selftests", .base = "", .variant = "", .uml = "yes" };

/* The report, kept until exit (a one-shot program frees nothing). */
static struct block *docs;

static void usage_exit(void)
{
	fputs("usage: judge [--out DIR] [--expect FILE] [--producer P] [--base B] [--variant V]\n"
	      "             [--uml yes|no] [--filter GLOBS]\n"
	      "             [--suites FILE] [--problem TEXT]... KTAP-FILE\n"
	      "       judge --sum DIR...\n"
	      "       judge --list --expect FILE [--producer P] [--base B] [--variant V] [--uml U]\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *expect = NULL, *input = NULL;
	bool listing = false;
	FILE *f;
	int opt;
	static const struct option options[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "expect", required_argument, NULL, 'e' },
		{ "producer", required_argument, NULL, 'P' },
		{ "base", required_argument, NULL, 'b' },
		{ "variant", required_argument, NULL, 'v' },
		{ "uml", required_argument, NULL, 'u' },
		{ "filter", required_argument, NULL, 'f' },
		{ "problem", required_argument, NULL, 'p' },
		{ "suites", required_argument, NULL, 's' },
		{ "list", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};

	if (argc > 1 && !strcmp(argv[1], "--sum"))
		return sum(argc - 2, argv + 2);
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'e':
			expect = optarg;
			break;
		case 'P':
			run.producer = optarg;
			break;
		case 'b':
			run.base = optarg;
			break;
		case 'v':
			run.variant = optarg;
			break;
		case 'u':
			run.uml = optarg;
			break;
		case 'f':
			run.filter = optarg;
			break;
		case 'p':
			problem(xstrdup(optarg));
			break;
		case 's':
			run.suites = *optarg ? optarg : NULL;
			break;
		case 'l':
			listing = true;
			break;
		default:
			usage_exit();
		}
	}
	if (optind < argc)
		input = argv[optind++];
	if (optind < argc)
		usage_exit();
	if (expect)
		load_expectations(expect);
	if (listing)
		return list_expectations();
	if (!input)
		usage_exit();

	f = strcmp(input, "-") ? fopen(input, "r") : stdin;
	if (!f)
		die("%s: %s", input, strerror(errno));
	docs = ktap_parse(f);
	if (f != stdin)
		fclose(f);

	judge_report(docs);
	return report_verdict(out) ? 1 : 0;
}
