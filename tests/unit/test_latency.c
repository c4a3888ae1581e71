// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The latency histograms (lib/latency.c) against brute force: the buckets
 * walked value by value up to 2^22 and bucket by bucket beyond, percentiles
 * of random samples against the sorted samples, the rank arithmetic at
 * counts where a product would overflow, recording from several threads at
 * once, and a file's account sorting calls into its read and write
 * histograms.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "account.h"
#include "completion.h"
#include "latency.h"

#define LAST (LATENCY_BUCKETS - 1)

static uint64_t width(unsigned b)
{
	return latency_bucket_high(b) - latency_bucket_low(b) + 1;
}

/* Every value below 2^22, one by one: contiguous buckets, each at most 1/32 of its low end wide. */
static void test_buckets_by_value(void **state)
{
	unsigned prev = 0;

	(void)state;
	for (uint64_t v = 0; v < (1u << 22); v++) {
		unsigned b = latency_bucket(v);

		assert_true(latency_bucket_low(b) <= v && v <= latency_bucket_high(b));
		if (v && b != prev) {
			assert_int_equal(b, prev + 1);
			assert_int_equal(latency_bucket_low(b), v);
			assert_int_equal(latency_bucket_high(prev), v - 1);
		}
		assert_true(width(b) == 1 || width(b) * 32 <= latency_bucket_low(b));
		prev = b;
	}
	assert_int_equal(latency_bucket(31), 31); /* exact below 64 */
	assert_int_equal(latency_bucket(63), 63);
	assert_int_equal(width(latency_bucket(64)), 2);
}

/* Beyond, bucket by bucket: each begins where the last ended, and holds both its ends. */
static void test_buckets_by_bucket(void **state)
{
	(void)state;
	assert_int_equal(latency_bucket_low(0), 0);
	for (unsigned b = 0; b < LAST; b++) {
		uint64_t lo = latency_bucket_low(b), hi = latency_bucket_high(b);

		assert_int_equal(latency_bucket(lo), b);
		assert_int_equal(latency_bucket(hi), b);
		assert_int_equal(latency_bucket(lo + (hi - lo) / 2), b);
		assert_int_equal(latency_bucket_low(b + 1), hi + 1);
		assert_true(width(b) == 1 || width(b) * 32 <= lo);
	}
	/* the last bucket holds everything from its low end on; its high end is the max seen */
	assert_int_equal(latency_bucket(latency_bucket_low(LAST)), LAST);
	assert_int_equal(latency_bucket(1ull << LATENCY_TOP_BITS), LAST);
	assert_int_equal(latency_bucket(UINT64_MAX), LAST);
	assert_true(latency_bucket_high(LAST) == UINT64_MAX);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A latency drawn from one of a few shapes: small, log-uniform, a tail, duplicates. */
static uint64_t sample(uint64_t *rng, int shape)
{
	uint64_t r = next_random(rng);

	switch (shape) {
	case 0:
		return r % 100;
	case 1:
		return r >> (r % 64); /* log-uniform over the whole range, some past 2^44 */
	case 2:
		return r % 100 ? 1000000 + r % 50000 : 80000000 + r % 1000000; /* 1% slow */
	default:
		return (r % 4) * 123456789;
	}
}

/* What the histogram must say: the sample at nearest rank, as the upper end of its bucket. */
static uint64_t oracle(const uint64_t *sorted, uint64_t n, unsigned per_100k)
{
	uint64_t rank = (n * per_100k + 99999) / 100000, x, hi;

	x = sorted[(rank ? rank : 1) - 1];
	hi = latency_bucket_high(latency_bucket(x));
	return hi < sorted[n - 1] ? hi : sorted[n - 1];
}

static void check_sample(const uint64_t *v, uint64_t n)
{
	static struct latency_hist h;
	struct striped_percentiles p;
	const unsigned per[] = {50000, 90000, 99000, 99900};
	uint64_t *sorted = malloc(n * sizeof(*sorted)), got[4];

	assert_non_null(sorted);
	memset(&h, 0, sizeof(h));
	for (uint64_t i = 0; i < n; i++)
		latency_record(&h, v[i]);
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	latency_read(&h, &p);
	assert_int_equal(p.calls, n);
	assert_int_equal(p.max_ns, sorted[n - 1]);
	got[0] = p.p50_ns, got[1] = p.p90_ns, got[2] = p.p99_ns, got[3] = p.p999_ns;
	for (int k = 0; k < 4; k++) {
		uint64_t want = oracle(sorted, n, per[k]);
		uint64_t x = sorted[((n * per[k] + 99999) / 100000) - 1];

		assert_int_equal(got[k], want);
		/* never below the true percentile, at most 1/32 above it (but past the top) */
		if (latency_bucket(x) == LAST)
			assert_int_equal(got[k], sorted[n - 1]);
		else
			assert_true(got[k] >= x && got[k] - x <= x / 32);
	}
	free(sorted);
}

static void test_percentiles_against_sorted(void **state)
{
	const uint64_t sizes[] = {1, 2, 3, 7, 10, 99, 100, 101, 999, 1000, 1001, 12345, 200000};
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int shape = 0; shape < 4; shape++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			uint64_t n = sizes[s], *v = malloc(n * sizeof(*v));

			assert_non_null(v);
			for (uint64_t i = 0; i < n; i++)
				v[i] = sample(&rng, shape);
			check_sample(v, n);
			free(v);
		}
	}
}

static void test_empty(void **state)
{
	static struct latency_hist h;
	struct striped_percentiles p;

	(void)state;
	memset(&p, 0xff, sizeof(p));
	latency_read(&h, &p);
	assert_true(!p.calls && !p.p50_ns && !p.p90_ns && !p.p99_ns && !p.p999_ns && !p.max_ns);
}

/* Counts whose product with the percentile overflows 64 bits: the rank is still exact. */
static void test_rank_at_huge_counts(void **state)
{
	static uint64_t counts[LATENCY_BUCKETS];
	const unsigned per[] = {1, 50000, 99000, 99900, 99999, 100000};
	/* bucket 10: 3 * 10^14 - 1 calls, bucket 40: 1; total * 99999 > 2^64 */
	uint64_t n10 = 300000000000000ull - 1, total = n10 + 1;

	(void)state;
	counts[10] = n10;
	counts[40] = 1;
	for (size_t k = 0; k < sizeof(per) / sizeof(per[0]); k++) {
		unsigned __int128 want_rank = ((unsigned __int128)total * per[k] + 99999) / 100000;
		uint64_t want =
		    want_rank <= n10 ? latency_bucket_high(10) : latency_bucket_high(40);

		assert_int_equal(latency_percentile(counts, total, UINT64_MAX, per[k]), want);
	}
	/* the max caps the upper end of a bucket */
	assert_int_equal(latency_percentile(counts, total, 10, 50000), 10);
}

struct recorder {
	struct latency_hist *h;
	uint64_t seed, n;
};

static void *record_many(void *arg)
{
	struct recorder *r = arg;
	uint64_t rng = r->seed;

	for (uint64_t i = 0; i < r->n; i++)
		latency_record(r->h, sample(&rng, 1));
	return NULL;
}

/* Four threads at once count exactly what one thread counts of the same values. */
static void test_concurrent_records(void **state)
{
	static struct latency_hist shared, alone;
	struct recorder r[4];
	pthread_t t[4];
	struct striped_percentiles a, b;

	(void)state;
	for (int i = 0; i < 4; i++) {
		r[i] = (struct recorder){&shared, 0x1234567ull * (uint64_t)(i + 1), 200000};
		assert_int_equal(pthread_create(&t[i], NULL, record_many, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		r[i].h = &alone;
		record_many(&r[i]);
	}
	for (unsigned i = 0; i < LATENCY_BUCKETS; i++)
		assert_int_equal(atomic_load(&shared.buckets[i]), atomic_load(&alone.buckets[i]));
	latency_read(&shared, &a);
	latency_read(&alone, &b);
	assert_int_equal(a.calls, 800000);
	assert_memory_equal(&a, &b, sizeof(a));
}

/* A file's account: reads and writes in their own histograms, other calls in neither. */
static void test_account_kinds(void **state)
{
	static struct io_account a;
	struct striped_io_stats call = {.calls = 1, .ops = 3, .bytes = 4096, .latency_ns = 5000};
	struct striped_io_stats st;
	struct striped_latency lat;

	(void)state;
	account_init(&a);
	account_call(&a, &call, ACCOUNT_READ);
	call.latency_ns = 7000000;
	account_call(&a, &call, ACCOUNT_WRITE);
	account_call(&a, &call, ACCOUNT_WRITE);
	call.latency_ns = 1;
	account_call(&a, &call, ACCOUNT_OTHER);
	account_op_begin(&a);
	account_op_begin(&a);
	account_op_end(&a);
	account_op_begin(&a);
	account_op_end(&a);
	account_op_end(&a);
	account_read(&a, &st);
	assert_int_equal(st.calls, 4);
	assert_int_equal(st.ops, 12);
	assert_int_equal(st.bytes, 4 * 4096);
	assert_int_equal(st.latency_ns, 5000 + 2 * 7000000 + 1);
	assert_int_equal(st.max_in_flight, 2);
	account_latency(&a, &lat);
	assert_int_equal(lat.read.calls, 1);
	assert_int_equal(lat.read.max_ns, 5000);
	assert_int_equal(lat.read.p50_ns, 5000); /* its bucket ends higher: the max caps it */
	assert_int_equal(lat.write.calls, 2);
	assert_int_equal(lat.write.p999_ns, 7000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buckets_by_value),
	    cmocka_unit_test(test_buckets_by_bucket),
	    cmocka_unit_test(test_percentiles_against_sorted),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_rank_at_huge_counts),
	    cmocka_unit_test(test_concurrent_records),
	    cmocka_unit_test(test_account_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
