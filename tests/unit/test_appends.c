// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * appends.c (pure): the ranges a file range asks of its objects, checked
 * byte by byte against striped_layout_map() of each single byte; where
 * objects end and which writes such a pool takes, against a model of the
 * pool's rule (a write lands on an object only at its end, at a multiple of
 * the alignment); the aligned layout units and operation pieces.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "appends.h"

/* The range of object o that bytes [off, off + len) cover, walked one byte at a time. */
static bool brute_range(const struct striped_layout *l, uint64_t off, uint64_t len, uint64_t o,
			uint64_t *from, uint64_t *to)
{
	bool found = false;

	for (uint64_t b = off; b < off + len; b++) {
		struct striped_extent e;

		assert_int_equal(striped_layout_map(l, b, 1, &e, 1), 1);
		if (e.objectno != o)
			continue;
		if (!found || e.offset < *from)
			*from = e.offset;
		if (!found || e.offset + 1 > *to)
			*to = e.offset + 1;
		found = true;
	}
	return found;
}

static void test_ranges_against_bytes(void **state)
{
	const struct striped_layout layouts[] = {
	    {65536, 1, 65536}, {65536, 3, 196608}, {65536, 2, 262144}, {131072, 4, 262144}};

	(void)state;
	srand(7);
	for (size_t li = 0; li < sizeof(layouts) / sizeof(layouts[0]); li++) {
		const struct striped_layout *l = &layouts[li];

		for (int t = 0; t < 40; t++) {
			uint64_t off = (uint64_t)rand() % (3 * l->stripe_count * l->object_size);
			uint64_t len = 1 + (uint64_t)rand() % (l->stripe_count * l->object_size);
			struct obj_range *r;
			ssize_t n = appends_ranges(l, off, len, &r);
			uint64_t objects = 0;

			assert_true(n > 0);
			for (ssize_t i = 0; i < n; i++) {
				uint64_t from = 0, to = 0;

				if (i)
					assert_true(r[i].objectno > r[i - 1].objectno);
				assert_true(brute_range(l, off, len, r[i].objectno, &from, &to));
				assert_int_equal(r[i].from, from);
				assert_int_equal(r[i].to, to);
				objects++;
			}
			/* No object is left out: every byte's object is listed. */
			for (uint64_t b = off; b < off + len; b += 4096) {
				struct striped_extent e;
				bool listed = false;

				striped_layout_map(l, b, 1, &e, 1);
				for (ssize_t i = 0; i < n; i++)
					listed |= r[i].objectno == e.objectno;
				assert_true(listed);
			}
			free(r);
		}
	}
}

static void test_map_learn_and_forget(void **state)
{
	struct append_map m;
	uint64_t end;

	(void)state;
	appends_map_init(&m);
	assert_false(appends_known(&m, 5, &end));
	for (uint64_t o = 200; o-- > 0;)
		assert_int_equal(appends_learn(&m, o * 3, o), 0);
	for (uint64_t o = 0; o < 200; o++) {
		assert_true(appends_known(&m, o * 3, &end));
		assert_int_equal(end, o);
		assert_false(appends_known(&m, o * 3 + 1, &end));
	}
	assert_int_equal(appends_learn(&m, 30, 999), 0);
	assert_true(appends_known(&m, 30, &end));
	assert_int_equal(end, 999);
	assert_int_equal(m.n, 200);
	appends_forget(&m);
	assert_false(appends_known(&m, 30, &end));
	appends_map_destroy(&m);
}

/*
 * Random writes on a model pool: objects' sizes, a write taken only when
 * each object's part starts at its size, at a multiple of the alignment.
 * appends_check() must say what the model says, and appends_advance() keep
 * the map equal to the model.
 */
static void test_check_against_model(void **state)
{
	const struct striped_layout l = {65536, 3, 196608};
	const uint64_t align = 8192;
	uint64_t sizes[64] = {0};
	struct append_map m;
	int taken = 0, refused = 0;

	(void)state;
	srand(11);
	appends_map_init(&m);
	for (uint64_t o = 0; o < 64; o++)
		appends_learn(&m, o, 0);
	for (int t = 0; t < 3000; t++) {
		uint64_t file_end = 0, off, len;
		struct obj_range *r;
		ssize_t n;
		bool ok = true;

		/* Every 40 writes the file starts again (a short write ends its appends). */
		if (t % 40 == 0)
			for (uint64_t o = 0; o < 64; o++) {
				sizes[o] = 0;
				appends_learn(&m, o, 0);
			}
		for (uint64_t o = 0; o < 64; o++) {
			uint64_t fo;

			if (sizes[o] && !striped_layout_unmap(&l, o, sizes[o] - 1, &fo) &&
			    fo + 1 > file_end)
				file_end = fo + 1;
		}
		/* Mostly at the file's end (a writer going front to back), else anywhere near. */
		off = rand() % 4 ? file_end : (uint64_t)rand() % (file_end + 100000);
		len =
		    rand() % 10 ? 8192 * (1 + (uint64_t)rand() % 40) : 1 + (uint64_t)rand() % 50000;
		if (off + len > 64 * 65536)
			continue;
		n = appends_ranges(&l, off, len, &r);
		assert_true(n > 0);
		for (ssize_t i = 0; i < n; i++)
			ok &= r[i].from == sizes[r[i].objectno] && r[i].from % align == 0;
		assert_int_equal(appends_check(&m, align, r, (size_t)n), ok ? 0 : -EOPNOTSUPP);
		if (ok) {
			assert_int_equal(appends_advance(&m, r, (size_t)n), 0);
			for (ssize_t i = 0; i < n; i++)
				sizes[r[i].objectno] = r[i].to;
			taken++;
		} else {
			refused++;
		}
		free(r);
	}
	/* Both ways were exercised. */
	assert_true(taken > 500);
	assert_true(refused > 200);
	appends_map_destroy(&m);
}

static void test_check_unknown(void **state)
{
	struct append_map m;
	struct obj_range r[2] = {{0, 0, 100}, {1, 0, 100}};

	(void)state;
	appends_map_init(&m);
	appends_learn(&m, 0, 0);
	assert_int_equal(appends_check(&m, 8192, r, 2), -ENOENT);
	/* A refusal wins over an object not known. */
	appends_learn(&m, 0, 8192);
	assert_int_equal(appends_check(&m, 8192, r, 2), -EOPNOTSUPP);
	appends_map_destroy(&m);
}

static void test_aligned_units(void **state)
{
	(void)state;
	assert_int_equal(appends_aligned_unit(4 << 20, 0), 4 << 20);
	assert_int_equal(appends_aligned_unit(4 << 20, 8192), 4 << 20);
	assert_int_equal(appends_aligned_unit(4 << 20, 32768), 4 << 20);
	/* 3 x 4 KiB chunks: 192 KiB is the least common multiple with 64 KiB. */
	assert_int_equal(appends_aligned_unit(4 << 20, 12288), 21 * 196608);
	assert_int_equal(appends_aligned_unit(65536, 12288), 196608);
	assert_int_equal(appends_aligned_unit(4 << 20, 1ull << 33), 0);
	for (uint64_t sw = 4096; sw <= 1 << 20; sw += 4096) {
		uint64_t u = appends_aligned_unit(4 << 20, sw);
		struct striped_layout l = {u, 1, u};

		assert_int_equal(u % sw, 0);
		assert_int_equal(u % 65536, 0);
		assert_int_equal(striped_layout_validate(&l), 0);
	}
	assert_int_equal(appends_aligned_piece(1 << 20, 0), 1 << 20);
	assert_int_equal(appends_aligned_piece(1 << 20, 8192), 1 << 20);
	assert_int_equal(appends_aligned_piece(1 << 20, 12288), 85 * 12288);
	assert_int_equal(appends_aligned_piece(1 << 20, 3 << 20), 3 << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ranges_against_bytes),
	    cmocka_unit_test(test_map_learn_and_forget),
	    cmocka_unit_test(test_check_against_model),
	    cmocka_unit_test(test_check_unknown),
	    cmocka_unit_test(test_aligned_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
