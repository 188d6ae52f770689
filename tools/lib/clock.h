/* SPDX-License-Identifier: GPL-2.0 */
/* The monotonic clock the selftests and benchmarks time themselves with. */
#ifndef KIT_CLOCK_H
#define KIT_CLOCK_H

#include <time.h>

/*
 * unsigned long long, as __u64 is: tools/uspace compiles ktap.c against
 * its own stand-ins for the kernel's headers, which have no __u64.
 */
static inline unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline double mono_ms(void)
{
	return mono_ns() / 1e6;
}

static inline double mono_s(void)
{
	return mono_ns() / 1e9;
}

#endif /* KIT_CLOCK_H */
