/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in: the real header pulls in most of the kernel. */
#include "../uspace.h"
/*
 * Under TSan, the annotations of the known races (uspace_races.h): every
 * base's memalloc.c includes this header, right after <linux/llist.h>.
 */
#include "../uspace_races.h"
