// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Per-call latency histograms: log-scaled buckets, counted with atomics so
 * that the calls recording them (on librados' callback threads and the
 * submitters') never take a lock, and read into percentiles.
 *
 * Values below 2^LATENCY_SUB_BITS ns have a bucket each; above, every power
 * of two [2^e, 2^(e+1)) is cut into 2^LATENCY_SUB_BITS buckets of equal width
 * 2^(e - LATENCY_SUB_BITS), so a bucket is at most 1/32 of its lower end
 * wide: the relative error of a percentile, whatever the scale (HdrHistogram's
 * layout). Values from 2^LATENCY_TOP_BITS ns on share the last bucket, whose
 * upper end is the maximum seen.
 */
#include "latency.h"

#define SUB (1u << LATENCY_SUB_BITS)
#define LAST_BUCKET (LATENCY_BUCKETS - 1)

unsigned latency_bucket(uint64_t ns)
{
	unsigned e;

	if (ns < SUB)
		return (unsigned)ns;
	if (ns >> LATENCY_TOP_BITS)
		return LAST_BUCKET;
	e = 63u - (unsigned)__builtin_clzll(ns); /* ns in [2^e, 2^(e+1)), e >= SUB_BITS */
	return ((e - LATENCY_SUB_BITS + 1) << LATENCY_SUB_BITS) +
	       (unsigned)((ns >> (e - LATENCY_SUB_BITS)) & (SUB - 1));
}

uint64_t latency_bucket_low(unsigned b)
{
	unsigned group = b >> LATENCY_SUB_BITS, sub = b & (SUB - 1);

	if (!group)
		return sub;
	return (uint64_t)(SUB + sub) << (group - 1);
}

uint64_t latency_bucket_high(unsigned b)
{
	unsigned group = b >> LATENCY_SUB_BITS;

	if (b >= LAST_BUCKET)
		return UINT64_MAX;
	return latency_bucket_low(b) + (group ? (1ull << (group - 1)) - 1 : 0);
}

void latency_record(struct latency_hist *h, uint64_t ns)
{
	u64_atomic_max(&h->max_ns, ns);
	/* release: whoever sees this count sees the max it raised */
	atomic_fetch_add_explicit(&h->buckets[latency_bucket(ns)], 1, memory_order_release);
}

uint64_t latency_percentile(const uint64_t *counts, uint64_t total, uint64_t max, unsigned per_100k)
{
	/*
	 * Nearest rank: the smallest value with at least per_100k/100000 of
	 * them at or below, rank ceil(total * per_100k / 100000) computed
	 * without overflow.
	 */
	uint64_t rank = total / 100000 * per_100k + ((total % 100000) * per_100k + 99999) / 100000;
	uint64_t seen = 0;
	unsigned b;

	if (!total)
		return 0;
	if (!rank)
		rank = 1;
	for (b = 0; b < LAST_BUCKET; b++) {
		seen += counts[b];
		if (seen >= rank)
			break;
	}
	return latency_bucket_high(b) < max ? latency_bucket_high(b) : max;
}

void latency_read(struct latency_hist *h, struct striped_percentiles *out)
{
	uint64_t counts[LATENCY_BUCKETS], total = 0, max;
	unsigned b;

	for (b = 0; b < LATENCY_BUCKETS; b++) {
		counts[b] = atomic_load_explicit(&h->buckets[b], memory_order_acquire);
		total += counts[b];
	}
	max = atomic_load_explicit(&h->max_ns, memory_order_relaxed);
	*out = (struct striped_percentiles){
	    .calls = total,
	    .p50_ns = latency_percentile(counts, total, max, 50000),
	    .p90_ns = latency_percentile(counts, total, max, 90000),
	    .p99_ns = latency_percentile(counts, total, max, 99000),
	    .p999_ns = latency_percentile(counts, total, max, 99900),
	    .max_ns = total ? max : 0,
	};
}
