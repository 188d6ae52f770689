// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmarks' statistics (stats.h), built into both the guest's
 * bench program and the host's bench-report.
 */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

struct stats stats_of(const double *v, long n)
{
	struct stats s = { .n = n };
	long i;

	for (i = 0; i < n; i++)
		s.mean += v[i] / n;
	if (n > 1) {
		for (i = 0; i < n; i++)
			s.stddev += (v[i] - s.mean) * (v[i] - s.mean) / (n - 1);
		s.stddev = sqrt(s.stddev);
	}
	return s;
}

double stats_percentile(const double *sorted, long n, double p)
{
	long rank = (long)ceil(p / 100 * n);

	return n ? sorted[rank > 0 ? rank - 1 : 0] : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stats_ranks stats_ranks_of(double *v, long n)
{
	struct stats_ranks r = { 0 };

	if (!n)
		return r;
	qsort(v, n, sizeof(*v), cmp_double);
	r.min = v[0];
	r.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	r.p90 = stats_percentile(v, n, 90);
	r.max = v[n - 1];
	return r;
}
