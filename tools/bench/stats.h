/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics of the benchmarks, one definition for the guest's bench
 * program and the host's bench-report, so that a figure means the same
 * on both sides: mean and sample standard deviation as upstream's bench
 * report_final() computes them, and the nearest-rank percentiles of
 * timings (bench_latency()).
 */
#ifndef KIT_BENCH_STATS_H
#define KIT_BENCH_STATS_H

struct stats {
	long n;
	double mean, stddev;	/* stddev: sample (n - 1), 0 for n < 2 */
};

/* Mean and sample standard deviation of @v[@n]; all 0 for n = 0. */
struct stats stats_of(const double *v, long n);

struct stats_ranks {
	double min, median, p90, max;
};

/*
 * Sorts @v[@n] ascending and returns its smallest value, median (the mean
 * of the middle two of an even count), 90th percentile (nearest rank)
 * and largest value; all 0 for n = 0.
 */
struct stats_ranks stats_ranks_of(double *v, long n);

/* Nearest-rank percentile @p (0 < p <= 100) of the sorted @v[@n]; 0 for n = 0. */
double stats_percentile(const double *sorted, long n, double p);

#endif /* KIT_BENCH_STATS_H */
