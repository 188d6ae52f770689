/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules: what makes a run fail, applied to the KTAP tree with the
 * expectations of the run's identity; each result becomes a judged case.
 */
#ifndef KIT_RULES_H
#define KIT_RULES_H

#include "ktap_tree.h"
#include "report.h"

struct judged {
	char *name;
	enum outcome outcome;
	char *note;
	struct result *r;
};

extern struct judged *judged;
extern int nr_judged;

/* Judge every document of @docs, then what the run as a whole must show. */
void judge_report(struct block *docs);

#endif /* KIT_RULES_H */
