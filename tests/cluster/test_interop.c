// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The on-RADOS format is libradosstriper's, both ways: files it writes read
 * back byte for byte through libstriped, and files libstriped writes read
 * back through libradosstriper, for several non-default layouts and odd
 * sizes. Only this test links libradosstriper.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <radosstriper/libradosstriper.h>

#include "cluster_fixture.h"
#include "striped.h"

#define K64 65536ull
#define MiB (1ull << 20)

static const struct {
	struct striped_layout layout;
	size_t size;
} cases[] = {
    {{4 * MiB, 1, 4 * MiB}, 9 * MiB + 1}, {{K64, 1, K64}, 1},
    {{K64, 3, 4 * K64}, 5 * MiB + 12345}, {{K64, 16, MiB}, 17 * MiB + 3},
    {{MiB, 4, 4 * MiB}, 33 * MiB - 7},	  {{512 * 1024, 7, 2 * MiB}, 3 * MiB + 77777},
    {{2 * MiB, 2, 8 * MiB}, 0},
};

static rados_striper_t make_striper(const struct striped_layout *l)
{
	rados_striper_t s;

	assert_int_equal(rados_striper_create(cl.io, &s), 0);
	assert_int_equal(rados_striper_set_object_layout_stripe_unit(s, (unsigned)l->stripe_unit),
			 0);
	assert_int_equal(rados_striper_set_object_layout_stripe_count(s, (unsigned)l->stripe_count),
			 0);
	assert_int_equal(rados_striper_set_object_layout_object_size(s, (unsigned)l->object_size),
			 0);
	return s;
}

/* libradosstriper writes in two calls (one unaligned); libstriped reads. */
static void test_radosstriper_to_striped(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct striped_layout *l = &cases[i].layout;
		size_t size = cases[i].size, half = size / 3;
		uint8_t *buf = malloc(size + 1), *back = malloc(size + 100);
		rados_striper_t s = make_striper(l);
		struct striped_layout got;
		struct striped_file *f;
		char name[64];
		uint64_t fsize;

		unique_name(name, sizeof(name), "from-rs");
		pattern_fill(buf, size, 40 + i, 0);
		if (size) {
			assert_int_equal(
			    rados_striper_write(s, name, (char *)buf + half, size - half, half), 0);
			assert_int_equal(rados_striper_write(s, name, (char *)buf, half, 0), 0);
		} else {
			assert_int_equal(rados_striper_write(s, name, (char *)buf, 0, 0), 0);
		}
		assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
		assert_int_equal(striped_stat(f, &fsize, &got), 0);
		assert_int_equal(fsize, size);
		assert_memory_equal(&got, l, sizeof(got));
		assert_int_equal(striped_read(f, back, size + 100, 0), (ssize_t)size);
		assert_int_equal(pattern_check(back, size, 40 + i, 0), -1);
		striped_close(f);
		/* And libstriped removes it completely. */
		assert_int_equal(striped_remove(cl.io, name), 0);
		assert_int_equal(count_objects(cl.io, name), 0);
		rados_striper_destroy(s);
		free(buf);
		free(back);
	}
}

/* libstriped writes (unaligned, out of order); libradosstriper reads, stats and removes. */
static void test_striped_to_radosstriper(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct striped_layout *l = &cases[i].layout;
		size_t size = cases[i].size, half = size / 2 + 1;
		uint8_t *buf = malloc(size + 1), *back = malloc(size + 1);
		/*
		 * Pacific's libradosstriper reads an existing file's layout, but its
		 * remove counts objects with the striper's own layout: give it the
		 * file's, as its users do.
		 */
		rados_striper_t s = make_striper(l);
		struct striped_file *f;
		char name[64];
		uint64_t psize;
		time_t mtime;

		unique_name(name, sizeof(name), "to-rs");
		pattern_fill(buf, size, 70 + i, 0);
		assert_int_equal(striped_open(cl.io, name, STRIPED_CREATE | STRIPED_EXCL, l, &f),
				 0);
		if (size > half)
			assert_int_equal(striped_write(f, buf + half, size - half, half),
					 (ssize_t)(size - half));
		if (size)
			assert_int_equal(striped_write(f, buf, size < half ? size : half, 0),
					 (ssize_t)(size < half ? size : half));
		striped_close(f);

		assert_int_equal(rados_striper_stat(s, name, &psize, &mtime), 0);
		assert_int_equal(psize, size);
		if (size) {
			assert_int_equal(rados_striper_read(s, name, (char *)back, size, 0),
					 (int)size);
			assert_int_equal(pattern_check(back, size, 70 + i, 0), -1);
		}
		/* It can take the shared lock we never hold, and truncate with its own. */
		assert_int_equal(rados_striper_trunc(s, name, size / 3), 0);
		assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
		assert_int_equal(striped_read(f, back, size + 1, 0), (ssize_t)(size / 3));
		assert_int_equal(pattern_check(back, size / 3, 70 + i, 0), -1);
		striped_close(f);
		/* Pacific's striper returns a non-negative count here, not 0. */
		assert_true(rados_striper_remove(s, name) >= 0);
		assert_int_equal(count_objects(cl.io, name), 0);
		rados_striper_destroy(s);
		free(buf);
		free(back);
	}
}

/* A file libradosstriper extends after libstriped opened it: reads see the growth. */
static void test_growth_seen_across_clients(void **state)
{
	struct striped_layout l = {K64, 2, 2 * K64};
	rados_striper_t s = make_striper(&l);
	uint8_t buf[300000], back[400000];
	struct striped_file *f;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "grow");
	pattern_fill(buf, sizeof(buf), 5, 0);
	assert_int_equal(striped_open(cl.io, name, STRIPED_CREATE, &l, &f), 0);
	assert_int_equal(striped_write(f, buf, 1000, 0), 1000);
	assert_int_equal(rados_striper_write(s, name, (char *)buf + 1000, sizeof(buf) - 1000, 1000),
			 0);
	assert_int_equal(striped_read(f, back, sizeof(back), 0), (ssize_t)sizeof(buf));
	assert_int_equal(pattern_check(back, sizeof(buf), 5, 0), -1);
	/* Our next extension starts from the size the other client left. */
	assert_int_equal(striped_write(f, buf, 10, sizeof(buf)), 10);
	{
		uint64_t psize;
		time_t mtime;

		assert_int_equal(rados_striper_stat(s, name, &psize, &mtime), 0);
		assert_int_equal(psize, sizeof(buf) + 10);
	}
	striped_close(f);
	assert_int_equal(striped_remove(cl.io, name), 0);
	rados_striper_destroy(s);
}

/* Extended attributes: each library reads what the other set, and neither shows the format's own. */
static void test_xattrs_both_ways(void **state)
{
	static const char bin[] = {'v', 0, 1, 2, (char)0xff};
	struct striped_layout l = {K64, 2, 2 * K64};
	rados_striper_t s = make_striper(&l);
	rados_xattrs_iter_t rit;
	struct striped_xattrs *it;
	struct striped_file *f;
	const char *key;
	const void *val;
	const char *cval;
	char back[16], name[64];
	size_t len, seen = 0;

	(void)state;
	unique_name(name, sizeof(name), "xattr-rs");
	assert_int_equal(rados_striper_write(s, name, "data", 4, 0), 0);
	assert_int_equal(rados_striper_setxattr(s, name, "user.from-rs", bin, sizeof(bin)), 0);
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_getxattr(f, "user.from-rs", back, sizeof(back)), sizeof(bin));
	assert_memory_equal(back, bin, sizeof(bin));
	assert_int_equal(striped_setxattr(f, "user.from-striped", "abc", 3), 0);
	/* libstriped lists the user's attributes only. */
	assert_int_equal(striped_getxattrs(f, &it), 0);
	while (striped_getxattrs_next(it, &key, &val, &len) == 0 && key) {
		assert_true(!strcmp(key, "user.from-rs") || !strcmp(key, "user.from-striped"));
		seen++;
	}
	striped_getxattrs_end(it);
	assert_int_equal(seen, 2);
	striped_close(f); /* libradosstriper's calls would wait for libstriped's lease */
	assert_int_equal(rados_striper_getxattr(s, name, "user.from-striped", back, sizeof(back)), 3);
	assert_memory_equal(back, "abc", 3);
	/* libradosstriper hides its own attributes and the lock; libstriped's identity it shows. */
	seen = 0;
	assert_int_equal(rados_striper_getxattrs(s, name, &rit), 0);
	while (rados_striper_getxattrs_next(rit, &key, &cval, &len) == 0 && key) {
		assert_true(strncmp(key, "striper.layout", 14) && strcmp(key, "lock.striper.lock"));
		seen++;
	}
	rados_striper_getxattrs_end(rit);
	assert_true(seen >= 2);
	assert_int_equal(rados_striper_rmxattr(s, name, "user.from-striped"), 0);
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_getxattr(f, "user.from-striped", back, sizeof(back)), -ENODATA);
	striped_close(f);
	assert_int_equal(rados_striper_remove(s, name), 0);
	rados_striper_destroy(s);
}

/* Appends from both libraries, one after the other, line up end to end. */
static void test_appends_both_ways(void **state)
{
	struct striped_layout l = {K64, 3, 3 * K64};
	rados_striper_t s = make_striper(&l);
	const size_t part = 100003;
	uint8_t *buf = malloc(3 * part), *back = malloc(3 * part + 10);
	struct striped_file *f;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "append-both");
	pattern_fill(buf, 3 * part, 77, 0);
	assert_int_equal(rados_striper_append(s, name, (const char *)buf, part), 0);
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_append(f, buf + part, part), (ssize_t)part);
	striped_close(f);
	assert_int_equal(rados_striper_append(s, name, (const char *)buf + 2 * part, part), 0);
	assert_int_equal(rados_striper_read(s, name, (char *)back, 3 * part + 10, 0),
			 (int)(3 * part));
	assert_memory_equal(back, buf, 3 * part);
	assert_int_equal(rados_striper_remove(s, name), 0);
	rados_striper_destroy(s);
	free(buf);
	free(back);
}

/* The listing shows the files of both libraries with their sizes, and nothing else. */
static void test_listing_both(void **state)
{
	struct striped_layout l = {K64, 2, 2 * K64};
	rados_striper_t s = make_striper(&l);
	char prefix[64], rs_name[96], st_name[96], plain[128];
	uint8_t *buf = calloc(1, 200000);
	struct striped_list *it;
	struct striped_file *f;
	const char *name;
	uint64_t size;
	int found = 0;

	(void)state;
	unique_name(prefix, sizeof(prefix), "list");
	snprintf(rs_name, sizeof(rs_name), "%s-rs", prefix);
	snprintf(st_name, sizeof(st_name), "%s-st", prefix);
	snprintf(plain, sizeof(plain), "%s-plain.0000000000000000", prefix);
	assert_int_equal(rados_striper_write(s, rs_name, (const char *)buf, 123457, 0), 0);
	assert_int_equal(striped_open(cl.io, st_name, STRIPED_CREATE | STRIPED_EXCL, &l, &f), 0);
	assert_int_equal(striped_write(f, buf, 200000, 0), 200000);
	striped_close(f);
	assert_int_equal(rados_write_full(cl.io, plain, "not striped", 11), 0);
	assert_int_equal(striped_list_open(cl.io, &it), 0);
	while (striped_list_next(it, &name, &size) == 0 && name) {
		if (strncmp(name, prefix, strlen(prefix)))
			continue; /* other tests' files */
		if (!strcmp(name, rs_name))
			assert_int_equal(size, 123457);
		else if (!strcmp(name, st_name))
			assert_int_equal(size, 200000);
		else
			fail_msg("listed %s", name);
		found++;
	}
	assert_int_equal(striped_list_next(it, &name, &size), 0);
	assert_null(name);
	striped_list_close(it);
	assert_int_equal(found, 2);
	assert_int_equal(striped_list_open(NULL, &it), -EINVAL);
	assert_int_equal(striped_list_open(cl.io, NULL), -EINVAL);
	assert_int_equal(striped_list_next(NULL, &name, &size), -EINVAL);
	striped_list_close(NULL);
	assert_int_equal(rados_remove(cl.io, plain), 0);
	assert_int_equal(rados_striper_remove(s, rs_name), 0);
	assert_int_equal(striped_remove(cl.io, st_name), 0);
	rados_striper_destroy(s);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_radosstriper_to_striped),
	    cmocka_unit_test(test_striped_to_radosstriper),
	    cmocka_unit_test(test_growth_seen_across_clients),
	    cmocka_unit_test(test_xattrs_both_ways),
	    cmocka_unit_test(test_appends_both_ways),
	    cmocka_unit_test(test_listing_both),
	};

	cluster_skip_unless_configured();
	return cmocka_run_group_tests(tests, cluster_group_setup, cluster_group_teardown);
}
