/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in: the real header pulls in most of the kernel. */
#include "../uspace.h"
