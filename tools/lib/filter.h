/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kit's test filter, T= on make's command line, kit.t= on the
 * guest's: one grammar for init, the suites (tools/lib/ktap.c), the judge
 * and make's check of the filter, as kunit's filter_glob is one grammar
 * for kunit.py and the kernel.
 *
 *   FILTER     GLOB[,GLOB...]          a case runs when any GLOB selects it
 *   GLOB       SUITE-GLOB[.CASE-GLOB]  split at the first '.'; no CASE-GLOB
 *                                      selects every case of the suite
 *
 * Globs are fnmatch(3) patterns with ksh's extended patterns
 * (FNM_EXTMATCH), so that "test_maps.!(*.map_parallel|*.map_stress)"
 * says "all but these".  A comma always separates globs.
 */
#ifndef KIT_FILTER_H
#define KIT_FILTER_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Whether @filter selects any case of @suite.  When it does and
 * @cases is not NULL, write there the case filter to hand the suite:
 * "" for every case, else the CASE-GLOBs of every GLOB that selects
 * the suite, comma-separated.  A case filter longer than @size is an
 * error (-1), never a silently shorter filter.
 */
int filter_suite(const char *filter, const char *suite, char *cases, size_t size);

/* Whether the case filter @cases ("" or NULL: all) selects case @name. */
bool filter_case(const char *cases, const char *name);

/* Whether @filter (NULL or "": everything) selects @suite.@name. */
bool filter_selects(const char *filter, const char *suite, const char *name);

#endif /* KIT_FILTER_H */
