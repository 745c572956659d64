/* SPDX-License-Identifier: MIT */
/*
 * Statistics the benchmarks share: the median of a set of timings (or of
 * paired ratios), which a few slow rounds on a shared machine do not move.
 */
#ifndef SECBPF_BENCH_STATS_H
#define SECBPF_BENCH_STATS_H

#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n-1] (n > 0); sorts v in place. */
static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
