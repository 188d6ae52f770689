/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in: local_t is modelled in uspace.h (NMI hook). */
#include "../uspace.h"
