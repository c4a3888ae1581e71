// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The parallel pool walk (striped_objects_walk()) and the listing built on
 * it (striped_list_*), on the sandbox cluster: every object of a namespace
 * seen exactly once whatever the number of slices, on a replicated and an
 * erasure-coded pool; nothing of another namespace; a stop by the caller's
 * function ends the walk at once; the listing sorted by name, with each
 * file's size, and only striped files (heads with a size that is a number).
 * Each test works in a namespace of its own, so other tests' objects of the
 * pool do not show.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cluster_fixture.h"
#include "striped.h"

#define OBJECTS 2500

static struct cluster cl;

struct seen {
	unsigned *count; /* per object number */
	size_t n;
	unsigned calls, foreign;
	unsigned stop_at; /* 0: never */
};

/* The walk's function: count each "o-NNNNN" seen, and anything else. */
static int count_object(void *arg, const char *oid)
{
	struct seen *s = arg;
	unsigned i;
	char tail;

	s->calls++;
	if (sscanf(oid, "o-%5u%c", &i, &tail) == 1 && i < s->n)
		s->count[i]++;
	else
		s->foreign++;
	return s->stop_at && s->calls == s->stop_at ? 42 : 0;
}

/* n objects "o-00000"... in io's namespace, written many at once. */
static void write_objects(rados_ioctx_t io, size_t n)
{
	rados_completion_t c[64];
	char oid[16];

	for (size_t done = 0; done < n;) {
		size_t batch = n - done < 64 ? n - done : 64;

		for (size_t i = 0; i < batch; i++) {
			snprintf(oid, sizeof(oid), "o-%05zu", done + i);
			assert_int_equal(rados_aio_create_completion2(NULL, NULL, &c[i]), 0);
			assert_int_equal(rados_aio_write_full(io, oid, c[i], "x", 1), 0);
		}
		for (size_t i = 0; i < batch; i++) {
			rados_aio_wait_for_complete(c[i]);
			assert_int_equal(rados_aio_get_return_value(c[i]), 0);
			rados_aio_release(c[i]);
		}
		done += batch;
	}
}

static void remove_objects(rados_ioctx_t io, size_t n)
{
	char oid[16];

	for (size_t i = 0; i < n; i++) {
		snprintf(oid, sizeof(oid), "o-%05zu", i);
		assert_int_equal(rados_remove(io, oid), 0);
	}
}

static rados_ioctx_t namespace_io(const char *pool, const char *what)
{
	rados_ioctx_t io;
	char ns[64];

	assert_int_equal(rados_ioctx_create(cl.rados, pool, &io), 0);
	unique_name(ns, sizeof(ns), what);
	rados_ioctx_set_namespace(io, ns);
	return io;
}

/* Every object once, for each number of slices at once. */
static void walk_each_once(rados_ioctx_t io, size_t n)
{
	static const unsigned parallel[] = {0, 1, 3, STRIPED_WALK_PARALLEL_MAX};
	struct seen s = {.count = calloc(n, sizeof(unsigned)), .n = n};

	assert_non_null(s.count);
	for (size_t p = 0; p < sizeof(parallel) / sizeof(parallel[0]); p++) {
		memset(s.count, 0, n * sizeof(unsigned));
		s.calls = s.foreign = 0;
		assert_int_equal(striped_objects_walk(io, parallel[p], count_object, &s), 0);
		for (size_t i = 0; i < n; i++)
			if (s.count[i] != 1)
				fail_msg("parallel %u: o-%05zu seen %u times", parallel[p], i, s.count[i]);
		assert_int_equal(s.foreign, 0);
		assert_int_equal(s.calls, n);
	}
	free(s.count);
}

static void test_walk_sees_each_object_once(void **state)
{
	rados_ioctx_t io = namespace_io(cl.pool, "walk"), other = namespace_io(cl.pool, "walk");
	struct seen none = {0};

	(void)state;
	write_objects(io, OBJECTS);
	walk_each_once(io, OBJECTS);
	/* Another namespace of the same pool holds none of them. */
	assert_int_equal(striped_objects_walk(other, 0, count_object, &none), 0);
	assert_int_equal(none.calls, 0);
	remove_objects(io, OBJECTS);
	rados_ioctx_destroy(other);
	rados_ioctx_destroy(io);
}

static void test_walk_erasure_coded_pool(void **state)
{
	const char *pool = getenv("STRIPED_TEST_EC_POOL");
	rados_ioctx_t io;

	(void)state;
	if (!pool)
		skip();
	io = namespace_io(pool, "walk-ec");
	write_objects(io, 300);
	walk_each_once(io, 300);
	remove_objects(io, 300);
	rados_ioctx_destroy(io);
}

/* A nonzero return stops the walk: returned as is, and no call after it. */
static void test_walk_stops_when_asked(void **state)
{
	rados_ioctx_t io = namespace_io(cl.pool, "walk-stop");
	struct seen s = {.count = calloc(200, sizeof(unsigned)), .n = 200, .stop_at = 5};

	(void)state;
	write_objects(io, 200);
	assert_int_equal(striped_objects_walk(io, 0, count_object, &s), 42);
	assert_int_equal(s.calls, 5);
	s.calls = 0;
	s.stop_at = 1;
	assert_int_equal(striped_objects_walk(io, 1, count_object, &s), 42);
	assert_int_equal(s.calls, 1);
	remove_objects(io, 200);
	free(s.count);
	rados_ioctx_destroy(io);
}

static void test_walk_rejects_bad_arguments(void **state)
{
	struct seen s = {0};

	(void)state;
	assert_int_equal(striped_objects_walk(NULL, 0, count_object, &s), -EINVAL);
	assert_int_equal(striped_objects_walk(cl.io, 0, NULL, &s), -EINVAL);
	assert_int_equal(striped_objects_walk(cl.io, STRIPED_WALK_PARALLEL_MAX + 1, count_object, &s),
			 -EINVAL);
	assert_int_equal(s.calls, 0);
}

#define FILES 150 /* more than the listing's sizes in flight */

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* FILES names, not in order of creation nor of hash, and what is no file beside them. */
static void make_files(rados_ioctx_t io, char **names)
{
	static const char buf[FILES];

	for (unsigned i = 0; i < FILES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s%u", i % 3 ? "f-" : "f.", (i * 7919) % 1000);
		names[i] = strdup(name);
		assert_int_equal(striped_head_create(io, name, NULL, buf, i, NULL, 0), 0);
	}
	qsort(names, FILES, sizeof(names[0]), by_string);
	/* A head without a size, one whose size is no number, a data object alone. */
	assert_int_equal(rados_write_full(io, "plain.0000000000000000", "x", 1), 0);
	assert_int_equal(rados_write_full(io, "bad.0000000000000000", "x", 1), 0);
	assert_int_equal(rados_setxattr(io, "bad.0000000000000000", "striper.size", "12x", 3), 0);
	assert_int_equal(rados_write_full(io, "data.0000000000000001", "x", 1), 0);
}

static uint64_t size_made(const char *name)
{
	unsigned n = (unsigned)strtoul(name + 2, NULL, 10);

	for (unsigned i = 0; i < FILES; i++)
		if ((i * 7919) % 1000 == n && (name[1] == '.') == !(i % 3))
			return i;
	fail_msg("no file %s was made", name);
	return 0;
}

static void test_list_sorted_with_sizes(void **state)
{
	rados_ioctx_t io = namespace_io(cl.pool, "list");
	struct striped_list *it;
	char *names[FILES];
	const char *name;
	uint64_t size;
	unsigned n = 0;

	(void)state;
	make_files(io, names);
	assert_int_equal(striped_list_open(io, &it), 0);
	while (striped_list_next(it, &name, &size) == 0 && name) {
		assert_true(n < FILES);
		assert_string_equal(name, names[n]);
		assert_int_equal(size, size_made(name));
		n++;
	}
	assert_int_equal(n, FILES);
	striped_list_close(it);
	/* Closed after a few names, with sizes still in flight: nothing leaks (ASan). */
	assert_int_equal(striped_list_open(io, &it), 0);
	assert_int_equal(striped_list_next(it, &name, &size), 0);
	assert_string_equal(name, names[0]);
	striped_list_close(it);
	for (unsigned i = 0; i < FILES; i++) {
		assert_int_equal(striped_remove(io, names[i]), 0);
		free(names[i]);
	}
	rados_remove(io, "plain.0000000000000000");
	rados_remove(io, "bad.0000000000000000");
	rados_remove(io, "data.0000000000000001");
	rados_ioctx_destroy(io);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_walk_sees_each_object_once),
	    cmocka_unit_test(test_walk_erasure_coded_pool),
	    cmocka_unit_test(test_walk_stops_when_asked),
	    cmocka_unit_test(test_walk_rejects_bad_arguments),
	    cmocka_unit_test(test_list_sorted_with_sizes),
	};
	int r;

	cluster_connect(&cl);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	cluster_disconnect(&cl);
	return r;
}
