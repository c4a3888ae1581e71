/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* latency.c: per-call latency histograms, log-scaled buckets (pure, lock-free) */
#ifndef STRIPED_LATENCY_H
#define STRIPED_LATENCY_H

#include "striped_i.h"

/* 2^5 buckets to each power of two: a bucket is at most 1/32 of its lower end wide. */
#define LATENCY_SUB_BITS 5
/* Latencies from 2^44 ns (4.9 hours) on share the last bucket. */
#define LATENCY_TOP_BITS 44
#define LATENCY_BUCKETS ((LATENCY_TOP_BITS - LATENCY_SUB_BITS + 1) << LATENCY_SUB_BITS)

struct latency_hist {
	u64_atomic max_ns;
	u64_atomic buckets[LATENCY_BUCKETS];
};

/* The bucket of a latency, and the first and last latency it holds (the last one's: UINT64_MAX). */
unsigned latency_bucket(uint64_t ns);
uint64_t latency_bucket_low(unsigned b);
uint64_t latency_bucket_high(unsigned b);
/* Count one latency: atomics only, from any thread. */
void latency_record(struct latency_hist *h, uint64_t ns);
/*
 * The nearest-rank percentile (per_100k / 1000 percent) of total latencies
 * counted in counts[LATENCY_BUCKETS]: the upper end of its bucket, at most
 * max (the largest latency counted); 0 when total is 0.
 */
uint64_t latency_percentile(const uint64_t *counts, uint64_t total, uint64_t max,
			    unsigned per_100k);
/* Calls, percentiles and max of a histogram while others may record into it. */
void latency_read(struct latency_hist *h, struct striped_percentiles *out);

#endif /* STRIPED_LATENCY_H */
