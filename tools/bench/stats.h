/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mean and sample standard deviation, as upstream's bench report_final():
 * the guest's bench program and the host's bench-report must agree.
 */
#ifndef KIT_BENCH_STATS_H
#define KIT_BENCH_STATS_H

#include <math.h>

static inline void bench_mean_stddev(const double *v, int n, double *mean, double *stddev)
{
	int i;

	*mean = 0;
	*stddev = 0;
	for (i = 0; i < n; i++)
		*mean += v[i] / n;
	if (n > 1) {
		for (i = 0; i < n; i++)
			*stddev += (v[i] - *mean) * (v[i] - *mean) / (n - 1);
		*stddev = sqrt(*stddev);
	}
}

#endif /* KIT_BENCH_STATS_H */
