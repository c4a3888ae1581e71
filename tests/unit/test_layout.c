// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Layout and mapping against a brute-force model that places every byte on
 * its own (object set, row, column) and merges neighbours, over thousands of
 * random layouts and ranges, plus the edges.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "layout.h"
#include "striped.h"

#define K64 65536ull
/* The longest range walked byte by byte, to keep the suite fast. */
#define WALK_MAX (1ull << 20)

/* ---- the model ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible without libc's rand. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* Where byte pos lives, computed through the geometry of an object set. */
static void model_place(const struct striped_layout *l, uint64_t pos, uint64_t *obj, uint64_t *off)
{
	uint64_t set_bytes = l->stripe_count * l->object_size;
	uint64_t row_bytes = l->stripe_count * l->stripe_unit;
	uint64_t setno = pos / set_bytes;
	uint64_t in_set = pos % set_bytes;
	uint64_t row = in_set / row_bytes;
	uint64_t col = (in_set % row_bytes) / l->stripe_unit;

	*obj = setno * l->stripe_count + col;
	*off = row * l->stripe_unit + pos % l->stripe_unit;
}

/* Walk the range byte by byte, merging bytes that continue the previous run. */
static size_t model_map(const struct striped_layout *l, uint64_t off, uint64_t len,
			struct striped_extent *ext, size_t max)
{
	size_t n = 0;
	uint64_t i;

	for (i = 0; i < len; i++) {
		uint64_t obj, o;

		model_place(l, off + i, &obj, &o);
		if (n && ext[n - 1].objectno == obj && ext[n - 1].offset + ext[n - 1].length == o) {
			ext[n - 1].length++;
			continue;
		}
		assert_true(n < max);
		ext[n].objectno = obj;
		ext[n].offset = o;
		ext[n].length = 1;
		ext[n].buffer_offset = i;
		n++;
	}
	return n;
}

static struct striped_layout random_layout(void)
{
	struct striped_layout l;
	uint64_t units_per_object = 1 + rnd_below(6);

	l.stripe_unit = K64 * (1 + rnd_below(3));
	l.object_size = l.stripe_unit * units_per_object;
	l.stripe_count = 1 + rnd_below(rnd_below(4) == 0 ? 40 : 5);
	return l;
}

/* Each extent is a real run: its bytes are where the model puts them. */
static void check_extent_bytes(const struct striped_layout *l, uint64_t off,
			       const struct striped_extent *e)
{
	uint64_t probes[3] = {0, e->length - 1, rnd_below(e->length)};

	for (int p = 0; p < 3; p++) {
		uint64_t obj, o, file_off;

		model_place(l, off + e->buffer_offset + probes[p], &obj, &o);
		assert_int_equal(obj, e->objectno);
		assert_int_equal(o, e->offset + probes[p]);
		assert_int_equal(
		    striped_layout_unmap(l, e->objectno, e->offset + probes[p], &file_off), 0);
		assert_int_equal(file_off, off + e->buffer_offset + probes[p]);
	}
}

/*
 * Short ranges are walked byte by byte and must match exactly; long ones
 * (wide stripes) are checked to tile the range, each extent probed at its
 * ends and inside, and no two neighbours mergeable.
 */
static void check_range(const struct striped_layout *l, uint64_t off, uint64_t len)
{
	size_t cap = len / K64 + 8;
	struct striped_extent *want = calloc(cap, sizeof(*want));
	struct striped_extent *got = calloc(cap, sizeof(*got));
	uint64_t next = 0;
	ssize_t ngot;

	assert_non_null(want);
	assert_non_null(got);
	ngot = striped_layout_map(l, off, len, got, cap);
	assert_true(ngot >= 0 && (size_t)ngot < cap);
	if (len <= WALK_MAX) {
		size_t nwant = model_map(l, off, len, want, cap);

		assert_int_equal(ngot, (ssize_t)nwant);
		assert_memory_equal(got, want, nwant * sizeof(*want));
	}
	for (ssize_t i = 0; i < ngot; i++) {
		assert_int_equal(got[i].buffer_offset, next);
		assert_true(got[i].length > 0);
		next += got[i].length;
		check_extent_bytes(l, off, &got[i]);
		if (i)
			assert_false(got[i - 1].objectno == got[i].objectno &&
				     got[i - 1].offset + got[i - 1].length == got[i].offset);
	}
	assert_int_equal(next, len);
	free(want);
	free(got);
}

static void test_map_random_against_model(void **state)
{
	(void)state;
	for (int i = 0; i < 3000; i++) {
		struct striped_layout l = random_layout();
		uint64_t set_bytes = l.stripe_count * l.object_size;
		uint64_t off, len;

		switch (rnd_below(4)) {
		case 0: /* small, anywhere in the first few sets */
			off = rnd_below(3 * set_bytes);
			len = rnd_below(3 * l.stripe_unit);
			break;
		case 1: /* across object sets */
			off = rnd_below(2 * set_bytes);
			len =
			    rnd_below(set_bytes < 2 * WALK_MAX ? 2 * set_bytes + 1 : 4 * WALK_MAX);
			break;
		case 2: /* unit-aligned */
			off = rnd_below(8) * l.stripe_unit;
			len = rnd_below(8) * l.stripe_unit;
			break;
		default: /* far out in the file */
			off = (rnd() >> 8) / set_bytes * set_bytes + rnd_below(set_bytes);
			len = rnd_below(l.stripe_unit * 3);
			break;
		}
		check_range(&l, off, len);
	}
}

/* ---- the objects a range touches (layout_object_runs), against the model ---- */

#define RUNS_OBJECTS 4096

struct runs {
	uint64_t obj[RUNS_OBJECTS];
	size_t n, runs;
};

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int take_run(void *arg, uint64_t first, uint64_t last)
{
	struct runs *r = arg;

	assert_true(first <= last);
	/* Increasing, never touching the run before (it would have been one run). */
	assert_true(r->n == 0 || first > r->obj[r->n - 1]);
	r->runs++;
	for (uint64_t o = first; o <= last && r->n < RUNS_OBJECTS; o++)
		r->obj[r->n++] = o;
	return 0;
}

/* Every object the model places a byte of the range in, and no other, in increasing order. */
static void check_runs(const struct striped_layout *l, uint64_t off, uint64_t len)
{
	struct runs *got = calloc(1, sizeof(*got));
	uint64_t *want = calloc(RUNS_OBJECTS, sizeof(*want)), pos, obj, o;
	size_t nwant = 0;

	assert_non_null(got);
	assert_non_null(want);
	assert_int_equal(layout_object_runs(l, off, len, take_run, got), 0);
	assert_true(got->runs <= 3);
	/* A unit's first byte in the range places the whole unit's share: one step per unit. */
	for (pos = off; pos - off < len && nwant < RUNS_OBJECTS;
	     pos = (pos / l->stripe_unit + 1) * l->stripe_unit) {
		size_t i;

		model_place(l, pos, &obj, &o);
		for (i = 0; i < nwant && want[i] != obj; i++)
			;
		if (i == nwant)
			want[nwant++] = obj;
		if (pos / l->stripe_unit == UINT64_MAX / l->stripe_unit)
			break;
	}
	qsort(want, nwant, sizeof(*want), u64_cmp);
	if (nwant < RUNS_OBJECTS && got->n < RUNS_OBJECTS) {
		assert_int_equal(got->n, nwant);
		assert_memory_equal(got->obj, want, nwant * sizeof(*want));
	}
	free(want);
	free(got);
}

static void test_object_runs(void **state)
{
	const struct striped_layout widest = {K64, UINT32_MAX, K64}, four = {K64, 4, 4 * K64};

	(void)state;
	for (int i = 0; i < 3000; i++) {
		struct striped_layout l = random_layout();
		uint64_t set_bytes = l.stripe_count * l.object_size;

		check_runs(&l, rnd_below(3 * set_bytes), rnd_below(5 * l.stripe_unit) + 1);
		check_runs(&l, (rnd() >> 8) / set_bytes * set_bytes + rnd_below(set_bytes),
			   rnd_below(3 * set_bytes) + 1);
	}
	/* 4294967295 objects to a set: a small range touches one or two of them. */
	check_runs(&widest, 65536 * K64 + 5, 1000);
	check_runs(&widest, 65536 * K64 - 5, 10);
	check_runs(&widest, (uint64_t)UINT32_MAX * K64 - 3, 6); /* into the next set */
	/* A range wrapping past the last stripe position of its set: two runs, lower first. */
	check_runs(&four, 3 * K64, 2 * K64);
	check_runs(&four, 16 * K64 - 1, 2); /* the set boundary: two sets */
	check_runs(&four, K64 - 1, 40 * K64); /* whole sets in between: one run */
	check_runs(&four, UINT64_MAX - 10, 11); /* the end of the address space */
}

/* ---- object count and object sizes against a walk over stripe units ---- */

static void model_object_sizes(const struct striped_layout *l, uint64_t size, uint64_t *sizes,
			       size_t nobj, uint64_t *count)
{
	uint64_t pos;

	memset(sizes, 0, nobj * sizeof(*sizes));
	*count = 0;
	for (pos = 0; pos < size; pos += l->stripe_unit) {
		uint64_t obj, o, run = size - pos < l->stripe_unit ? size - pos : l->stripe_unit;

		model_place(l, pos, &obj, &o);
		assert_true(obj < nobj);
		if (o + run > sizes[obj])
			sizes[obj] = o + run;
		if (obj + 1 > *count)
			*count = obj + 1;
	}
}

static void test_object_count_and_sizes(void **state)
{
	(void)state;
	for (int i = 0; i < 2000; i++) {
		struct striped_layout l = random_layout();
		uint64_t set_bytes = l.stripe_count * l.object_size;
		uint64_t size = rnd_below(3 * set_bytes + 1);
		size_t nobj = (size_t)(4 * l.stripe_count + 2);
		uint64_t *sizes = calloc(nobj, sizeof(*sizes));
		uint64_t count, want_count;

		if (rnd_below(5) == 0)
			size = rnd_below(5) * l.stripe_unit; /* aligned ends */
		model_object_sizes(&l, size, sizes, nobj, &want_count);
		assert_int_equal(striped_layout_object_count(&l, size, &count), 0);
		assert_int_equal(count, want_count);
		for (size_t o = 0; o < nobj; o++) {
			uint64_t s;

			assert_int_equal(striped_layout_object_size(&l, o, size, &s), 0);
			assert_int_equal(s, sizes[o]);
		}
		free(sizes);
	}
}

/* ---- edges ---- */

static void test_validate(void **state)
{
	static const struct striped_layout bad[] = {
	    {0, 1, K64},
	    {K64, 0, K64},
	    {K64, 1, 0},
	    {4096, 1, K64},	    /* unit not a multiple of 64 KiB */
	    {K64, 1, K64 + 4096},   /* object not a multiple of 64 KiB */
	    {2 * K64, 1, 3 * K64},  /* object not a multiple of the unit */
	    {2 * K64, 1, K64},	    /* object smaller than the unit */
	    {K64, 1ull << 32, K64}, /* does not fit Ceph's 32 bits */
	    {K64, 1, 1ull << 32},
	};
	struct striped_layout good = STRIPED_LAYOUT_DEFAULT_INIT;

	(void)state;
	assert_int_equal(striped_layout_validate(&good), 0);
	assert_int_equal(striped_layout_validate(&(struct striped_layout){K64, 4096, 64 * K64}), 0);
	assert_int_equal(striped_layout_validate(NULL), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct striped_extent e;

		assert_int_equal(striped_layout_validate(&bad[i]), -EINVAL);
		assert_int_equal(striped_layout_map(&bad[i], 0, 1, &e, 1), -EINVAL);
	}
}

static void test_zero_length_and_null(void **state)
{
	struct striped_layout l = STRIPED_LAYOUT_DEFAULT_INIT;
	struct striped_extent e;
	uint64_t v;

	(void)state;
	assert_int_equal(striped_layout_map(&l, 12345, 0, &e, 1), 0);
	assert_int_equal(striped_layout_map(&l, UINT64_MAX, 0, NULL, 0), 0);
	assert_int_equal(striped_layout_map(&l, 0, 1, NULL, 1), -EINVAL);
	assert_int_equal(striped_layout_map(&l, 0, 10 << 20, NULL, 0), 3);
	assert_int_equal(striped_layout_unmap(&l, 0, l.object_size, &v), -EINVAL);
	assert_int_equal(striped_layout_unmap(&l, 0, 0, NULL), -EINVAL);
	assert_int_equal(striped_layout_object_count(&l, 0, NULL), -EINVAL);
	assert_int_equal(striped_layout_object_size(&l, 0, 0, NULL), -EINVAL);
	assert_int_equal(striped_layout_object_count(&l, 0, &v), 0);
	assert_int_equal(v, 0);
}

static void test_end_of_address_space(void **state)
{
	struct striped_layout l = {K64, 3, 4 * K64};
	struct striped_extent e[4];
	uint64_t file_off;
	ssize_t n;

	(void)state;
	/* Ends exactly at 2^64 - 1: fine. */
	n = striped_layout_map(&l, UINT64_MAX - 100, 100, e, 4);
	assert_int_equal(n, 1);
	assert_int_equal(e[0].length, 100);
	assert_int_equal(striped_layout_unmap(&l, e[0].objectno, e[0].offset, &file_off), 0);
	assert_int_equal(file_off, UINT64_MAX - 100);
	/* One more byte does not fit. */
	assert_int_equal(striped_layout_map(&l, UINT64_MAX - 100, 101, e, 4), -EOVERFLOW);
	assert_int_equal(striped_layout_map(&l, UINT64_MAX, 1, e, 4), -EOVERFLOW);
	assert_int_equal(striped_layout_map(&l, 1, UINT64_MAX, e, 4), -EOVERFLOW);
	/* The whole space: counted without walking it. */
	n = striped_layout_map(&l, 0, UINT64_MAX, e, 4);
	assert_int_equal(n, (ssize_t)(UINT64_MAX / K64 + 1));
	assert_int_equal(e[3].buffer_offset, 3 * K64);
	/* An object number whose file offset would pass 2^64. */
	assert_int_equal(striped_layout_unmap(&l, UINT64_MAX, 0, &file_off), -EOVERFLOW);
	check_range(&l, UINT64_MAX - 5 * K64, 5 * K64);
}

static void test_count_beyond_max(void **state)
{
	struct striped_layout l = {K64, 4, 2 * K64};
	struct striped_extent e[3], all[20];
	ssize_t n;

	(void)state;
	memset(e, 0xab, sizeof(e));
	n = striped_layout_map(&l, 1000, 10 * K64, e, 2);
	assert_int_equal(n, 11);
	assert_int_equal(striped_layout_map(&l, 1000, 10 * K64, all, 20), 11);
	assert_memory_equal(e, all, 2 * sizeof(e[0]));
	/* Untouched past max. */
	assert_int_equal(e[2].objectno, 0xababababababababull);
}

static void test_wide_stripe(void **state)
{
	struct striped_layout l = {K64, 3000, 2 * K64};

	(void)state;
	check_range(&l, 0, 7000 * K64 + 17);
	check_range(&l, 2999 * K64 + 5, 3 * K64);
	check_range(&l, 6000 * K64 - 1, 2); /* the set boundary */
}

static void test_last_unit_of_object_set(void **state)
{
	struct striped_layout l = {2 * K64, 4, 8 * K64};
	uint64_t set_bytes = l.stripe_count * l.object_size;
	struct striped_extent e[4];

	(void)state;
	/* Offset inside the last stripe unit of the first object set. */
	check_range(&l, set_bytes - 100, 300);
	assert_int_equal(striped_layout_map(&l, set_bytes - 100, 300, e, 4), 2);
	assert_int_equal(e[0].objectno, 3);
	assert_int_equal(e[0].offset, l.object_size - 100);
	assert_int_equal(e[1].objectno, 4);
	assert_int_equal(e[1].offset, 0);
	assert_int_equal(e[1].buffer_offset, 100);
}

static void test_single_object_set_merges(void **state)
{
	struct striped_layout l = {K64, 1, 16 * K64};
	struct striped_extent e[4];

	(void)state;
	/* Stripe units chain inside one object: one piece per object. */
	assert_int_equal(striped_layout_map(&l, 5, 40 * K64, e, 4), 3);
	assert_int_equal(e[0].length, 16 * K64 - 5);
	assert_int_equal(e[1].objectno, 1);
	assert_int_equal(e[1].length, 16 * K64);
	assert_int_equal(e[2].length, 8 * K64 + 5);
}

static void test_object_name(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(striped_object_name("f", 0x1a, buf, sizeof(buf)), 18);
	assert_string_equal(buf, "f.000000000000001a");
	assert_int_equal(striped_object_name("file", UINT64_MAX, buf, 4), 21);
	assert_int_equal(striped_object_name(NULL, 0, buf, sizeof(buf)), -EINVAL);
}

/* A listing's object names split back as striped_object_name() wrote them, nothing else. */
static void test_object_split(void **state)
{
	uint64_t no = 7;

	(void)state;
	assert_int_equal(layout_object_split("big.dat.0000000000000000", &no), 7);
	assert_int_equal(no, 0);
	assert_int_equal(layout_object_split("a.ffffffffffffffff", &no), 1);
	assert_int_equal(no, UINT64_MAX);
	assert_int_equal(layout_object_split("a.b.000000000000002a", &no), 3);
	assert_int_equal(no, 42);
	assert_int_equal(layout_object_split(".0000000000000000", &no), -1); /* no name */
	assert_int_equal(layout_object_split("a.000000000000000A", &no), -1); /* upper case */
	assert_int_equal(layout_object_split("a.00000000000000001", &no), -1);
	assert_int_equal(layout_object_split("a_0000000000000000", &no), -1);
	assert_int_equal(layout_object_split("rbd_data.1234", &no), -1);
}

/*
 * The public split (striped_object_name_split): the names `striped check`
 * tells a file's objects by (moved here from test_cli_args.c with the split
 * itself), refusals as -EINVAL with objectno left alone, and the inverse of
 * striped_object_name().
 */
static void test_object_name_split(void **state)
{
	static const uint64_t numbers[] = {0, 1, 42, 0xffffffffULL, 1ULL << 32, UINT64_MAX};
	char oid[64];
	uint64_t n = 99;

	(void)state;
	assert_int_equal(striped_object_name_split("big.0000000000000000", &n), 3);
	assert_int_equal(n, 0);
	assert_int_equal(striped_object_name_split("a.b.00000000000000ff", &n), 3);
	assert_int_equal(n, 255);
	assert_int_equal(striped_object_name_split("x.ffffffffffffffff", &n), 1);
	assert_int_equal(n, UINT64_MAX);
	/* a file whose name looks like an object's has objects of its own */
	assert_int_equal(striped_object_name_split("f.0000000000000001.0000000000000002", &n), 18);
	assert_int_equal(n, 2);
	n = 99;
	assert_int_equal(striped_object_name_split(".0000000000000000", &n), -EINVAL);
	assert_int_equal(striped_object_name_split("big.000000000000000", &n), -EINVAL);
	assert_int_equal(striped_object_name_split("big.00000000000000000", &n), -EINVAL);
	assert_int_equal(striped_object_name_split("big_0000000000000000", &n), -EINVAL);
	assert_int_equal(striped_object_name_split("big.000000000000000A", &n), -EINVAL);
	assert_int_equal(striped_object_name_split("big.000000000000000g", &n), -EINVAL);
	assert_int_equal(striped_object_name_split("rbd_header.1234", &n), -EINVAL);
	assert_int_equal(striped_object_name_split("", &n), -EINVAL);
	assert_int_equal(n, 99);
	assert_int_equal(striped_object_name_split(NULL, &n), -EINVAL);
	assert_int_equal(striped_object_name_split("big.0000000000000000", NULL), -EINVAL);
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		assert_int_equal(striped_object_name("file.v2", numbers[i], oid, sizeof(oid)), 24);
		assert_int_equal(striped_object_name_split(oid, &n), 7);
		assert_int_equal(n, numbers[i]);
	}
}

static void test_truncate_size_matches_ceph_examples(void **state)
{
	/* Hand-worked: su 64K, sc 2, os 128K; a file of 200K. */
	struct striped_layout l = {K64, 2, 2 * K64};
	uint64_t s;

	(void)state;
	/* Bytes 0-64K obj0, 64-128K obj1, 128-192K obj0, 192-200K obj1. */
	assert_int_equal(striped_layout_object_size(&l, 0, 200 * 1024, &s), 0);
	assert_int_equal(s, 2 * K64);
	assert_int_equal(striped_layout_object_size(&l, 1, 200 * 1024, &s), 0);
	assert_int_equal(s, K64 + 8 * 1024);
	assert_int_equal(striped_layout_object_size(&l, 2, 200 * 1024, &s), 0);
	assert_int_equal(s, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_validate),
	    cmocka_unit_test(test_zero_length_and_null),
	    cmocka_unit_test(test_end_of_address_space),
	    cmocka_unit_test(test_count_beyond_max),
	    cmocka_unit_test(test_wide_stripe),
	    cmocka_unit_test(test_last_unit_of_object_set),
	    cmocka_unit_test(test_single_object_set_merges),
	    cmocka_unit_test(test_object_name),
	    cmocka_unit_test(test_object_split),
	    cmocka_unit_test(test_object_name_split),
	    cmocka_unit_test(test_truncate_size_matches_ceph_examples),
	    cmocka_unit_test(test_map_random_against_model),
	    cmocka_unit_test(test_object_runs),
	    cmocka_unit_test(test_object_count_and_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
