// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The buffered mode's bookkeeping (lib/window.c) against a brute-force
 * oracle: a map of every byte written. Checks that a block remembers
 * exactly the bytes written into it (or refuses a write that would need
 * too many ranges, unchanged), that the runs write-behind sends carry
 * exactly those bytes, each contiguous in the file, and how the readahead
 * distance grows and resets.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buffered/window.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The runs of set bytes in map[0..WIN_BLOCK): how many, and each one in out. */
static unsigned oracle_ranges(const uint8_t *map, struct win_range *out, unsigned max)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < WIN_BLOCK;) {
		uint32_t j;

		if (!map[i]) {
			i++;
			continue;
		}
		for (j = i; j < WIN_BLOCK && map[j]; j++)
			;
		if (n < max)
			out[n] = (struct win_range){i, j};
		n++;
		i = j;
	}
	return n;
}

/* A range of a random kind: tiny, small, touching an edge, or whole. */
static void random_range(uint32_t *lo, uint32_t *hi)
{
	uint32_t a = (uint32_t)(next_rand() % WIN_BLOCK), len;

	switch (next_rand() % 4) {
	case 0:
		len = 1 + (uint32_t)(next_rand() % 64);
		break;
	case 1:
		len = 1 + (uint32_t)(next_rand() % 8192);
		break;
	case 2:
		a = next_rand() % 2 ? 0 : WIN_BLOCK - 1 - (uint32_t)(next_rand() % 4096);
		len = 1 + (uint32_t)(next_rand() % 4096);
		break;
	default:
		a = 0;
		len = WIN_BLOCK;
		break;
	}
	if (len > WIN_BLOCK - a)
		len = WIN_BLOCK - a;
	*lo = a;
	*hi = a + len;
}

static void test_block_ranges_match_oracle(void **state)
{
	static uint8_t map[WIN_BLOCK], trial[WIN_BLOCK];
	(void)state;

	for (int round = 0; round < 400; round++) {
		struct win_block b = {0};

		memset(map, 0, sizeof(map));
		for (int k = 0; k < 12; k++) {
			struct win_range want[WIN_RANGES];
			struct win_block before = b;
			uint32_t lo, hi;
			unsigned n;
			int r;

			random_range(&lo, &hi);
			memcpy(trial, map, sizeof(map));
			memset(trial + lo, 1, hi - lo);
			n = oracle_ranges(trial, want, WIN_RANGES);
			assert_int_equal(win_block_fits(&b, lo, hi), n <= WIN_RANGES);
			r = win_block_add(&b, lo, hi);
			if (n > WIN_RANGES) {
				assert_int_equal(r, -E2BIG);
				assert_memory_equal(&b, &before, sizeof(b));
				continue;
			}
			assert_int_equal(r, 0);
			memcpy(map, trial, sizeof(map));
			assert_int_equal(b.nranges, n);
			assert_memory_equal(b.r, want, n * sizeof(want[0]));
			assert_int_equal(win_block_full(&b), n == 1 && want[0].lo == 0 &&
							       want[0].hi == WIN_BLOCK);
		}
	}
}

#define NBLOCKS 48

/* Blocks 0..NBLOCKS-1 of a window, each present or not, with random ranges. */
static size_t random_blocks(struct window *w, struct win_block *blocks, struct win_block **v,
			    uint8_t *map)
{
	size_t n = 0;

	memset(map, 0, (size_t)NBLOCKS * WIN_BLOCK);
	for (uint64_t i = 0; i < NBLOCKS; i++) {
		struct win_block *b = &blocks[i];
		unsigned writes;

		memset(b, 0, sizeof(*b));
		if (next_rand() % 4 == 0)
			continue;
		b->index = i;
		win_insert(w, b, i);
		writes = 1 + (unsigned)(next_rand() % 5);
		/* Runs of whole blocks are common: sequential writers make them. */
		if (next_rand() % 2)
			writes = 0, win_block_add(b, 0, WIN_BLOCK);
		for (unsigned k = 0; k < writes; k++) {
			uint32_t lo, hi;

			random_range(&lo, &hi);
			win_block_add(b, lo, hi);
		}
		for (unsigned k = 0; k < b->nranges; k++)
			memset(map + i * WIN_BLOCK + b->r[k].lo, 1, b->r[k].hi - b->r[k].lo);
		win_note_write(w, b);
		v[n++] = b;
	}
	return n;
}

static void check_runs(struct win_block **v, size_t n, const uint8_t *map, size_t max_pieces)
{
	static uint8_t seen[NBLOCKS * WIN_BLOCK];
	struct win_piece pieces[NBLOCKS * WIN_RANGES];
	size_t at = 0, range = 0, runs = 0;

	memset(seen, 0, sizeof(seen));
	while (at < n) {
		size_t used, next_range;
		size_t np = win_next_run(v + at, n - at, range, pieces, max_pieces, &used,
					 &next_range);
		uint64_t off = win_run_offset(&pieces[0]), pos = off;

		assert_true(np >= 1 && np <= max_pieces);
		for (size_t i = 0; i < np; i++) {
			uint64_t start = pieces[i].b->index * WIN_BLOCK + pieces[i].lo;

			/* Each piece follows the last without a gap: one write of contiguous bytes. */
			assert_int_equal(start, pos);
			assert_true(pieces[i].lo < pieces[i].hi);
			for (uint64_t p = start; p < start + (pieces[i].hi - pieces[i].lo); p++) {
				assert_int_equal(map[p], 1); /* only bytes written */
				assert_int_equal(seen[p], 0); /* and each once */
				seen[p] = 1;
			}
			pos = start + (pieces[i].hi - pieces[i].lo);
		}
		assert_int_equal(win_run_length(pieces, np), pos - off);
		/* With room for all, a run stops only where the written bytes do. */
		if (max_pieces >= NBLOCKS * WIN_RANGES && pos < (uint64_t)NBLOCKS * WIN_BLOCK)
			assert_int_equal(map[pos], 0);
		assert_true(used > 0 || next_range > range);
		at += used;
		range = next_range;
		runs++;
	}
	/* Every byte written is in exactly one run. */
	assert_memory_equal(seen, map, sizeof(seen));
	assert_true(runs >= 1 || n == 0);
}

static void test_runs_carry_exactly_the_bytes_written(void **state)
{
	static uint8_t map[NBLOCKS * WIN_BLOCK];
	struct win_block blocks[NBLOCKS];
	struct win_block *v[NBLOCKS];
	(void)state;

	for (int round = 0; round < 300; round++) {
		struct window w;
		size_t n;

		assert_int_equal(win_init(&w, NBLOCKS), 0);
		n = random_blocks(&w, blocks, v, map);
		/* Shuffled, then sorted as the flusher sorts them. */
		for (size_t i = n; i > 1; i--) {
			size_t j = (size_t)(next_rand() % i);
			struct win_block *t = v[i - 1];

			v[i - 1] = v[j];
			v[j] = t;
		}
		win_sort(v, n);
		if (n) {
			check_runs(v, n, map, NBLOCKS * WIN_RANGES);
			check_runs(v, n, map, 1 + (size_t)(next_rand() % 4));
		}
		win_destroy(&w);
	}
}

static void test_index_and_units(void **state)
{
	static uint8_t map[NBLOCKS * WIN_BLOCK];
	struct win_block blocks[NBLOCKS];
	struct win_block *v[NBLOCKS];
	(void)state;

	for (int round = 0; round < 200; round++) {
		struct window w;
		uint64_t end = 0;
		size_t n;

		assert_int_equal(win_init(&w, NBLOCKS), 0);
		n = random_blocks(&w, blocks, v, map);
		for (uint64_t p = (uint64_t)NBLOCKS * WIN_BLOCK; p > 0 && !end; p--)
			if (map[p - 1])
				end = p;
		assert_int_equal(w.end, end);
		assert_int_equal(w.nblocks, n);
		assert_int_equal(w.dirty, n);
		for (uint64_t i = 0; i < NBLOCKS; i++)
			assert_ptr_equal(win_find(&w, i), blocks[i].nranges ? &blocks[i] : NULL);
		/* A unit is complete when every block of it is there, dirty and whole. */
		for (uint64_t first = 0; first + 4 <= NBLOCKS; first += 4) {
			bool whole = true;

			for (uint64_t p = first * WIN_BLOCK; p < (first + 4) * WIN_BLOCK; p++)
				whole = whole && map[p];
			assert_int_equal(win_unit_complete(&w, first, 4), whole);
			if (whole) {
				win_mark_sending(&w, &blocks[first + 1]);
				assert_false(win_unit_complete(&w, first, 4));
			}
		}
		/* Sent or not, every block leaves; the end resets once none is left. */
		for (size_t i = 0; i < n; i++) {
			win_remove(&w, v[i]);
			/* While a block is left, the end covers it. */
			if (w.nblocks)
				assert_true(w.end >= win_block_end(v[n - 1]));
		}
		assert_int_equal(w.nblocks, 0);
		assert_int_equal(w.dirty, 0);
		assert_null(w.oldest);
		assert_int_equal(w.end, 0);
		for (uint64_t i = 0; i < NBLOCKS; i++)
			assert_null(win_find(&w, i));
		win_destroy(&w);
	}
}

static void test_dirty_list_keeps_write_order(void **state)
{
	struct win_block blocks[8] = {0};
	struct window w;
	uint64_t order[8] = {5, 2, 7, 0, 3, 1, 6, 4};
	(void)state;

	assert_int_equal(win_init(&w, 8), 0);
	for (int i = 0; i < 8; i++) {
		blocks[i].index = order[i];
		win_insert(&w, &blocks[i], 100 + (uint64_t)i);
	}
	win_mark_sending(&w, &blocks[2]);
	win_remove(&w, &blocks[5]);
	{
		struct win_block *b = w.oldest;
		int expect[] = {0, 1, 3, 4, 6, 7};

		for (size_t k = 0; k < 6; k++, b = b->newer) {
			assert_ptr_equal(b, &blocks[expect[k]]);
			assert_int_equal(b->dirtied_ns, 100 + (uint64_t)expect[k]);
		}
		assert_null(b);
	}
	assert_int_equal(w.dirty, 6);
	assert_int_equal(w.nblocks, 7); /* the one being sent is still found */
	assert_ptr_equal(win_find(&w, 7), &blocks[2]);
	win_destroy(&w);
}

static void test_readahead_grows_and_resets(void **state)
{
	struct ra_policy p;
	const uint64_t M = 1 << 20;
	(void)state;

	ra_init(&p, 4 * M, 32 * M);
	/* From the start of the file: one segment ahead, then doubling to the bound. */
	assert_int_equal(ra_observe(&p, 0, 64 << 10), 4 * M);
	assert_int_equal(ra_observe(&p, 64 << 10, 64 << 10), 8 * M);
	assert_int_equal(ra_observe(&p, 128 << 10, 64 << 10), 16 * M);
	assert_int_equal(ra_observe(&p, 192 << 10, 64 << 10), 32 * M);
	assert_int_equal(ra_observe(&p, 256 << 10, 64 << 10), 32 * M);
	/* A jump: nothing ahead, and it starts over. */
	assert_int_equal(ra_observe(&p, 100 * M, 4096), 0);
	assert_int_equal(ra_observe(&p, 7 * M, 4096), 0);
	assert_int_equal(ra_observe(&p, 7 * M + 4096, 4096), 4 * M);
	/* Large sequential reads start at twice their size. */
	ra_init(&p, 4 * M, 32 * M);
	assert_int_equal(ra_observe(&p, 0, 8 * M), 16 * M);
	assert_int_equal(ra_observe(&p, 8 * M, 8 * M), 32 * M);
	/* Not at 0 first: random until it proves sequential. */
	ra_init(&p, 4 * M, 32 * M);
	assert_int_equal(ra_observe(&p, 5 * M, M), 0);
	assert_int_equal(ra_observe(&p, 6 * M, M), 4 * M);
	/* Readahead off. */
	ra_init(&p, 4 * M, 0);
	assert_int_equal(ra_observe(&p, 0, M), 0);
	assert_int_equal(ra_observe(&p, M, M), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_block_ranges_match_oracle),
	    cmocka_unit_test(test_runs_carry_exactly_the_bytes_written),
	    cmocka_unit_test(test_index_and_units),
	    cmocka_unit_test(test_dirty_list_keeps_write_order),
	    cmocka_unit_test(test_readahead_grows_and_resets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
