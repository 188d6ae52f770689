/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One upstream test case in a child process of its own, for the
 * tools/upstream runners: the upstream tests end the process on failure
 * (assert(), CHECK(), exit()) and keep state in globals, so that each
 * case gets a fresh copy of the runner and a failing case ends its
 * child, not the suite.
 */
#ifndef KIT_UPSTREAM_CHILD_H
#define KIT_UPSTREAM_CHILD_H

#include "ktap.h"

/*
 * Run @body(@arg) in a child with its stdout and stderr relayed as KTAP
 * diagnostics, and its duration.  @body returns the child's exit code: 0
 * for a pass, KSFT_SKIP for a skip, anything else for a failure; so does
 * a child killed by a signal, or by SIGALRM after @timeout seconds (0:
 * none).
 */
enum ktap_result run_in_child(int (*body)(void *arg), void *arg, unsigned int timeout);

#endif /* KIT_UPSTREAM_CHILD_H */
