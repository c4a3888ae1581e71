// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A draft's bytes (mount/core/draft.c) against a plain byte array: random
 * writes and truncates within and past its limit give the same bytes and
 * size, a refused one changes nothing; the daemon's budget for all drafts
 * refuses once spent and takes again once a draft is freed; attribute
 * changes kept with it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "draft.h"

#define LIMIT (64u << 10)

static void check_same(const struct draft *d, const char *want, size_t want_len)
{
	size_t len;
	const char *bytes = draft_bytes(d, &len);

	assert_int_equal(len, want_len);
	if (len)
		assert_memory_equal(bytes, want, len);
}

static void test_against_oracle(void **state)
{
	static char want[LIMIT], buf[LIMIT];

	(void)state;
	for (unsigned int seed = 1; seed <= 200; seed++) {
		struct mattr attrs = {.mode = 0100644};
		struct draft *d = draft_new(&attrs, LIMIT);
		unsigned int r = seed;
		size_t len = 0;

		assert_non_null(d);
		memset(want, 0, sizeof(want));
		for (int op = 0; op < 50; op++) {
			uint64_t off = (uint64_t)(rand_r(&r) % (LIMIT + 4096));
			size_t n = (size_t)(rand_r(&r) % 9000);

			if (rand_r(&r) % 4) { /* a write */
				memset(buf, 'a' + op % 26, n);
				bool fits = off + n <= LIMIT;

				assert_int_equal(draft_write(d, buf, n, off), fits);
				if (fits) {
					memcpy(want + off, buf, n);
					if (off + n > len)
						len = (size_t)(off + n);
				}
			} else { /* a truncate */
				bool fits = off <= LIMIT;

				assert_int_equal(draft_truncate(d, off), fits);
				if (fits && off < len)
					memset(want + off, 0, len - off); /* a later growth reads zeros */
				if (fits)
					len = (size_t)off;
			}
			check_same(d, want, len);
		}
		draft_free(d);
	}
}

static void test_attrs(void **state)
{
	struct mattr attrs = {.mode = 0100600, .uid = 7, .has_uid = true}, a;
	struct timespec t = {.tv_sec = 1000, .tv_nsec = 5};
	struct draft *d = draft_new(&attrs, 4096);

	(void)state;
	assert_true(draft_write(d, "hello", 5, 10));
	draft_attrs(d, &t, &a);
	assert_int_equal(a.size, 15);
	assert_int_equal(a.uid, 7);
	assert_true(a.has_mode && a.has_uid && a.has_gid);
	assert_int_equal(a.mtime.tv_sec, 1000);
	assert_int_equal(a.atime.tv_nsec, 5);
	assert_int_equal(draft_create_attrs(d)->mode, 0100600);
	assert_false(draft_write(d, "x", 1, 4096)); /* past its limit */
	draft_free(d);
	draft_free(NULL);
}

/*
 * A chmod, chown and utimens kept in a draft: what a stat says and what its
 * make stores; ctime the later of its mtime and the change; the head of a
 * taken name kept as given.
 */
static void test_attr_changes(void **state)
{
	struct mattr attrs = {.mode = 0100600}, a, change = {0};
	struct timespec early = {.tv_sec = 1000}, late = {.tv_sec = 2000};
	struct striped_head h = {.size = 0, .id = 42, .reserved = 65536};
	struct draft *d = draft_new(&attrs, 4096);

	(void)state;
	assert_null(draft_taken(d));
	draft_set_taken(d, &h);
	assert_int_equal(draft_taken(d)->id, 42);
	change.mode = 0100644;
	change.has_mode = true;
	change.uid = 1234;
	change.has_uid = true;
	change.atime = late;
	change.has_atime = true;
	change.ctime = (struct timespec){.tv_sec = 1500};
	change.has_ctime = true;
	draft_set_attrs(d, &change);
	draft_attrs(d, &early, &a); /* utimens set mtime back: ctime stays the change's */
	assert_int_equal(a.mode, 0100644);
	assert_int_equal(a.uid, 1234);
	assert_int_equal(a.gid, 0);
	assert_int_equal(a.mtime.tv_sec, 1000);
	assert_int_equal(a.atime.tv_sec, 2000);
	assert_int_equal(a.ctime.tv_sec, 1500);
	draft_attrs(d, &late, &a); /* a write after the change: its time */
	assert_int_equal(a.ctime.tv_sec, 2000);
	assert_true(draft_create_attrs(d)->has_mode && draft_create_attrs(d)->has_uid &&
		    !draft_create_attrs(d)->has_gid && draft_create_attrs(d)->has_atime);
	draft_free(d);
}

static void test_budget(void **state)
{
	struct mattr attrs = {0};
	struct draft *d[1100] = {0};
	static char page[LIMIT];
	int taken = 0;

	(void)state;
	/* 64 MiB for all drafts: 1024 of 64 KiB, then none */
	for (int i = 0; i < 1100; i++) {
		d[i] = draft_new(&attrs, LIMIT);
		assert_non_null(d[i]);
		taken += draft_write(d[i], page, LIMIT, 0);
	}
	assert_int_equal(taken, 1024);
	assert_false(draft_write(d[1099], page, 1, 0));
	draft_free(d[0]); /* its bytes are the budget's again */
	assert_true(draft_write(d[1099], page, LIMIT, 0));
	for (int i = 1; i < 1100; i++)
		draft_free(d[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_oracle),
		cmocka_unit_test(test_attrs),
		cmocka_unit_test(test_attr_changes),
		cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
