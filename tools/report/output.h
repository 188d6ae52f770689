/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict's output: a line per case that is not a plain pass, the
 * summary, and --out DIR's results.json, failures and summary, each
 * written whole or not at all; and judge --sum, which adds judged runs up
 * from their results.json.
 */
#ifndef KIT_OUTPUT_H
#define KIT_OUTPUT_H

/* Print the judged cases and problems, write @out (if any): the failures. */
int report_verdict(const char *out);
int sum(int argc, char **argv);

#endif /* KIT_OUTPUT_H */
