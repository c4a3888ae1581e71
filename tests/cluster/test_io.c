// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Striped-file I/O against the real sandbox cluster: round trips over many
 * layouts, holes, truncate, remove, concurrent writers, the statistics that
 * show a call's operations in flight together, and bad input.
 */
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "cluster_fixture.h"
#include "striped.h"

#define K64 65536ull
#define MiB (1ull << 20)

static struct striped_file *create_file(const char *name, const struct striped_layout *l)
{
	struct striped_file *f = NULL;

	assert_int_equal(striped_open(cl.io, name, STRIPED_CREATE | STRIPED_EXCL, l, &f), 0);
	return f;
}

static void write_pattern(struct striped_file *f, uint64_t seed, uint64_t off, size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);

	assert_non_null(buf);
	pattern_fill(buf, len, seed, off);
	assert_int_equal(striped_write(f, buf, len, off), (ssize_t)len);
	free(buf);
}

/* Read [off, off + len) and check it holds the pattern; returns bytes read. */
static ssize_t read_and_check(struct striped_file *f, uint64_t seed, uint64_t off, size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);
	ssize_t n;

	assert_non_null(buf);
	n = striped_read(f, buf, len, off);
	assert_true(n >= 0);
	assert_int_equal(pattern_check(buf, (size_t)n, seed, off), -1);
	free(buf);
	return n;
}

static void assert_zeros(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i]) {
			fail_msg("byte %zu is %u, want 0", i, buf[i]);
		}
}

static void remove_and_check_gone(const char *name)
{
	assert_int_equal(striped_remove(cl.io, name), 0);
	assert_int_equal(count_objects(cl.io, name), 0);
}

/* ---- round trips ---- */

static const struct striped_layout layouts[] = {
    {4 * MiB, 1, 4 * MiB},	 {K64, 1, K64},
    {K64, 1, 4 * MiB},		 {K64, 2, 2 * K64},
    {K64, 3, 4 * K64},		 {K64, 4, MiB},
    {K64, 8, 512 * 1024},	 {K64, 16, MiB},
    {128 * 1024, 5, 256 * 1024}, {256 * 1024, 4, MiB},
    {512 * 1024, 7, 2 * MiB},	 {MiB, 1, 8 * MiB},
    {MiB, 2, 4 * MiB},		 {MiB, 8, 4 * MiB},
    {MiB, 16, 16 * MiB},	 {2 * MiB, 3, 6 * MiB},
    {4 * MiB, 2, 8 * MiB},	 {4 * MiB, 4, 16 * MiB},
    {4 * MiB, 1, 64 * MiB},	 {K64, 12, 64 * MiB},
    {192 * 1024, 6, 576 * 1024}, {K64, 5, 320 * 1024},
};

static void test_roundtrip_layouts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct striped_layout *l = &layouts[i];
		uint64_t seed = 1000 + i, size;
		/* Unaligned: starts mid-unit, ends mid-unit, crosses object sets. */
		uint64_t off = l->stripe_unit / 3 + 7;
		size_t len = (size_t)(l->stripe_count * l->stripe_unit * 2 + 12345);
		struct striped_layout got;
		struct striped_file *f;
		char name[64];

		if (len > 24 * MiB)
			len = 24 * MiB + 4321;
		unique_name(name, sizeof(name), "rt");
		f = create_file(name, l);
		write_pattern(f, seed, off, len);
		/* A second, overlapping unaligned write. */
		write_pattern(f, seed, off + len / 2 + 3, len / 3);
		assert_int_equal(striped_stat(f, &size, &got), 0);
		assert_int_equal(size, off + len);
		assert_memory_equal(&got, l, sizeof(got));
		assert_int_equal(read_and_check(f, seed, off, len), (ssize_t)len);
		/* Odd sub-ranges, and the leading hole. */
		assert_int_equal(read_and_check(f, seed, off + 1, 99999), 99999);
		{
			uint8_t head[64];

			assert_int_equal(striped_read(f, head, sizeof(head), 0),
					 (ssize_t)sizeof(head));
			assert_zeros(head, off < sizeof(head) ? off : sizeof(head));
		}
		striped_close(f);

		/* A fresh open sees the same file. */
		assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
		assert_int_equal(read_and_check(f, seed, off + len - 5000, 10000), 5000);
		striped_close(f);
		remove_and_check_gone(name);
	}
}

static void test_holes_and_eof(void **state)
{
	struct striped_layout l = {K64, 4, 4 * K64};
	uint8_t *buf = malloc(8 * MiB);
	struct striped_file *f;
	char name[64];
	uint64_t size;

	(void)state;
	unique_name(name, sizeof(name), "hole");
	f = create_file(name, &l);
	write_pattern(f, 7, 5 * MiB + 3, 1000);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 5 * MiB + 1003);
	/* Everything before is a hole: zeros, though most objects do not exist. */
	memset(buf, 0xff, 8 * MiB);
	assert_int_equal(striped_read(f, buf, 8 * MiB, 0), (ssize_t)(5 * MiB + 1003));
	assert_zeros(buf, 5 * MiB + 3);
	assert_int_equal(pattern_check(buf + 5 * MiB + 3, 1000, 7, 5 * MiB + 3), -1);
	/* At and past the end: 0 bytes. */
	assert_int_equal(striped_read(f, buf, 10, size), 0);
	assert_int_equal(striped_read(f, buf, 10, size + 12345678), 0);
	/* A zero-length write changes nothing. */
	assert_int_equal(striped_write(f, buf, 0, 100 * MiB), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 5 * MiB + 1003);
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

static void test_truncate_down_and_up(void **state)
{
	struct striped_layout l = {K64, 3, 2 * K64};
	uint8_t *buf = malloc(4 * MiB);
	struct striped_file *f;
	char name[64];
	uint64_t size;

	(void)state;
	unique_name(name, sizeof(name), "trunc");
	f = create_file(name, &l);
	write_pattern(f, 3, 0, 3 * MiB + 17);
	assert_int_equal(striped_truncate(f, 300000), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 300000);
	assert_int_equal(read_and_check(f, 3, 0, 4 * MiB), 300000);
	/* Objects wholly past the end are gone: 300000 bytes need 3 objects here. */
	assert_int_equal(count_objects(cl.io, name), 3);
	/* Grow again: the regrown part reads as zeros, not the old bytes. */
	assert_int_equal(striped_truncate(f, 2 * MiB), 0);
	memset(buf, 0xff, 4 * MiB);
	assert_int_equal(striped_read(f, buf, 4 * MiB, 0), (ssize_t)(2 * MiB));
	assert_int_equal(pattern_check(buf, 300000, 3, 0), -1);
	assert_zeros(buf + 300000, 2 * MiB - 300000);
	/*
	 * A libradosstriper writer holds the lock shared: truncate and remove
	 * wait for nobody and say so; once it lets go they work.
	 */
	{
		char oid[128];

		striped_object_name(name, 0, oid, sizeof(oid));
		assert_int_equal(
		    rados_lock_shared(cl.io, oid, "striper.lock", "writer", "Tag", "", NULL, 0), 0);
		assert_int_equal(striped_truncate(f, 100), -EBUSY);
		assert_int_equal(striped_remove(cl.io, name), -EBUSY);
		assert_int_equal(rados_unlock(cl.io, oid, "striper.lock", "writer"), 0);
	}
	/* To zero: only the head remains, empty. */
	assert_int_equal(striped_truncate(f, 0), 0);
	assert_int_equal(striped_read(f, buf, 100, 0), 0);
	assert_int_equal(count_objects(cl.io, name), 1);
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

/* A size of 2^63 spans 2^41 objects: growing and shrinking must not walk them. */
static void test_truncate_huge_sparse(void **state)
{
	uint64_t far = 1ull << 62, size;
	struct striped_file *f;
	char name[64], buf[8];

	(void)state;
	unique_name(name, sizeof(name), "huge");
	f = create_file(name, NULL);
	write_pattern(f, 9, 0, 100);
	assert_int_equal(striped_truncate(f, 1ull << 63), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 1ull << 63);
	write_pattern(f, 9, far, 8);
	assert_int_equal(read_and_check(f, 9, far, 8), 8);
	assert_int_equal(striped_read(f, buf, 8, far - 8), 8);
	assert_zeros((uint8_t *)buf, 8);
	assert_int_equal(count_objects(cl.io, name), 2);
	/* Shrinking finds the far object through the pool's listing. */
	assert_int_equal(striped_truncate(f, 10), 0);
	assert_int_equal(count_objects(cl.io, name), 1);
	assert_int_equal(read_and_check(f, 9, 0, 100), 10);
	assert_int_equal(striped_truncate(f, UINT64_MAX), 0);
	striped_close(f);
	remove_and_check_gone(name);
}

/*
 * The widest layout Ceph takes: 4294967295 objects to a set. A small write
 * past the first 65536 objects touches one of them, and registers its
 * region alone; every region of the whole set was counted before, so it
 * failed with -EFBIG ("one call over 64 regions").
 */
static void test_widest_stripe_count(void **state)
{
	const struct striped_layout wide = {K64, UINT32_MAX, K64};
	const uint64_t far = 65536 * K64 + 5; /* object 65536: its region (16) is registered */
	struct striped_file *f;
	char name[64], oid[96], one;

	(void)state;
	unique_name(name, sizeof(name), "wide");
	f = create_file(name, &wide);
	write_pattern(f, 12, 0, 100);
	write_pattern(f, 12, far, 1000);
	assert_int_equal(read_and_check(f, 12, far, 1000), 1000);
	assert_int_equal(count_objects(cl.io, name), 2);
	striped_close(f);
	/* Registered, so remove finds it by name (test_truncate_huge_sparse removes one so). */
	striped_object_name(name, 0, oid, sizeof(oid));
	assert_int_equal(rados_getxattr(cl.io, oid, "striper.region.0000000000000010", &one, 1), 1);
	/* Not removed through the library: it would walk the first 65536 objects by name. */
	striped_object_name(name, 65536, oid, sizeof(oid));
	assert_int_equal(rados_remove(cl.io, oid), 0);
	striped_object_name(name, 0, oid, sizeof(oid));
	assert_int_equal(rados_remove(cl.io, oid), 0);
}

/* ---- concurrency ---- */

struct writer {
	char name[64];
	int id;
	int nwriters;
	size_t chunk;
	int rounds;
};

/* Writer k writes chunks k, k+n, k+2n, ...: every write extends the file. */
static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct striped_file *f;
	uint8_t *buf = malloc(w->chunk);

	if (striped_open(cl.io, w->name, 0, NULL, &f))
		return (void *)1;
	for (int r = 0; r < w->rounds; r++) {
		uint64_t off = ((uint64_t)r * w->nwriters + w->id) * w->chunk;

		pattern_fill(buf, w->chunk, 99, off);
		if (striped_write(f, buf, w->chunk, off) != (ssize_t)w->chunk)
			return (void *)1;
	}
	striped_close(f);
	free(buf);
	return NULL;
}

static void test_four_writers_extend(void **state)
{
	struct striped_layout l = {K64, 4, 256 * 1024};
	struct writer w[4];
	pthread_t th[4];
	struct striped_file *f;
	char name[64];
	uint64_t size, want;

	(void)state;
	unique_name(name, sizeof(name), "writers");
	f = create_file(name, &l);
	for (int i = 0; i < 4; i++) {
		snprintf(w[i].name, sizeof(w[i].name), "%s", name);
		w[i].id = i;
		w[i].nwriters = 4;
		w[i].chunk = 100000;
		w[i].rounds = 12;
		assert_int_equal(pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		void *ret;

		pthread_join(th[i], &ret);
		assert_null(ret);
	}
	want = 4ull * 12 * 100000;
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, want);
	assert_int_equal(read_and_check(f, 99, 0, (size_t)want), (ssize_t)want);
	striped_close(f);
	remove_and_check_gone(name);
}

/*
 * Growing writes past the four size updates in flight share theirs: 16
 * appending aio writes of one object operation each send far fewer than 16
 * updates, and each call's data still lands, with the size right.
 */
static void test_growing_writes_share_size_updates(void **state)
{
	struct striped_layout l = {K64, 1, 4 * MiB};
	enum { CALLS = 16 };
	struct striped_completion *c[CALLS];
	uint8_t *buf = malloc(CALLS * K64);
	uint64_t ops = 0, size;
	struct striped_file *f;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "sizeshare");
	f = create_file(name, &l);
	pattern_fill(buf, CALLS * K64, 140, 0);
	for (int i = 0; i < CALLS; i++) {
		assert_int_equal(striped_completion_create(NULL, NULL, &c[i]), 0);
		assert_int_equal(striped_aio_write2(f, c[i], buf + i * K64, K64, (uint64_t)i * K64,
						    STRIPED_IO_ZEROCOPY),
				 0);
	}
	for (int i = 0; i < CALLS; i++) {
		struct striped_io_stats st;

		striped_completion_wait(c[i]);
		assert_int_equal(striped_completion_result(c[i]), (ssize_t)K64);
		assert_int_equal(striped_completion_stats(c[i], &st, sizeof(st)), 0);
		/* its data, and maybe the mark's raise and the size update it sent
		 * (lib/engine/io_grow.c counts each where it was sent) */
		assert_in_range(st.ops, 1, 3);
		ops += st.ops;
		striped_completion_release(c[i]);
	}
	/* 16 data operations and at least one update; one update each would be 32 */
	print_message("16 growing calls: %" PRIu64 " operations\n", ops);
	assert_in_range(ops, CALLS + 1, CALLS + CALLS / 2);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, CALLS * K64);
	striped_close(f);
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, CALLS * K64);
	assert_int_equal(read_and_check(f, 140, 0, CALLS * K64), (ssize_t)(CALLS * K64));
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

/* Two handles: the one that knows less must not shrink what the other grew. */
static void test_size_never_shrinks(void **state)
{
	struct striped_file *a, *b;
	char name[64], buf[10] = "0123456789";
	uint64_t size;

	(void)state;
	unique_name(name, sizeof(name), "shrink");
	a = create_file(name, NULL);
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &b), 0);
	assert_int_equal(striped_write(b, buf, 10, 0), 10); /* "10": two digits */
	/* a still believes the size is 0; "9" sorts after "10" as text, not as a number. */
	assert_int_equal(striped_write(a, buf, 9, 0), 9);
	assert_int_equal(striped_stat(b, &size, NULL), 0);
	assert_int_equal(size, 10);
	assert_int_equal(striped_write(a, buf, 5, 95), 5);
	assert_int_equal(striped_write(b, buf, 1, 99), 1);
	assert_int_equal(striped_stat(a, &size, NULL), 0);
	assert_int_equal(size, 100);
	striped_close(a);
	striped_close(b);
	remove_and_check_gone(name);
}

struct aio_count {
	pthread_mutex_t lock;
	int calls;
};

static void count_cb(struct striped_completion *c, void *arg)
{
	struct aio_count *n = arg;

	(void)c;
	pthread_mutex_lock(&n->lock);
	n->calls++;
	pthread_mutex_unlock(&n->lock);
}

static void test_aio_many_in_flight(void **state)
{
	struct striped_layout l = {K64, 8, MiB};
	struct aio_count n = {PTHREAD_MUTEX_INITIALIZER, 0};
	struct striped_completion *c[32];
	size_t chunk = 300001;
	uint8_t *buf = malloc(32 * chunk);
	struct striped_file *f;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "aio");
	f = create_file(name, &l);
	pattern_fill(buf, 32 * chunk, 5, 0);
	for (int i = 0; i < 32; i++) {
		assert_int_equal(striped_completion_create(count_cb, &n, &c[i]), 0);
		assert_int_equal(striped_aio_write(f, c[i], buf + i * chunk, chunk, i * chunk), 0);
		/* Half are released at once, while in flight: still safe. */
		if (i % 2)
			striped_completion_release(c[i]);
	}
	for (int i = 0; i < 32; i += 2) {
		assert_int_equal(striped_completion_wait(c[i]), 0);
		assert_int_equal(striped_completion_result(c[i]), (ssize_t)chunk);
		/* Used once: a second call on it is refused. */
		assert_int_equal(striped_aio_write(f, c[i], buf, 1, 0), -EBUSY);
		striped_completion_release(c[i]);
	}
	striped_close(f); /* waits for the released ones */
	assert_int_equal(n.calls, 32);
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(read_and_check(f, 5, 0, 32 * chunk), (ssize_t)(32 * chunk));
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

/* ---- the statistics show one call's operations in flight at once ---- */

/*
 * A call whose first operation returns before its last was sent shows
 * fewer: under ASan on a loaded 2-core host 5 tries all saw 15 once (CI,
 * 2026-11-26), so more tries; the loop stops at the first 16.
 */
#define IN_FLIGHT_TRIES 20

/* One aio call of len bytes at off: its result checked, its statistics in *st. */
static void stats_of_call(struct striped_file *f, uint8_t *buf, bool write, size_t len,
			  uint64_t off, struct striped_io_stats *st)
{
	struct striped_completion *c;

	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	if (write)
		assert_int_equal(striped_aio_write(f, c, buf, len, off), 0);
	else
		assert_int_equal(striped_aio_read(f, c, buf, len, off), 0);
	assert_int_equal(striped_completion_wait(c), 0);
	assert_int_equal(striped_completion_result(c), (ssize_t)len);
	assert_int_equal(striped_completion_stats(c, st, sizeof(*st)), 0);
	striped_completion_release(c);
}

/* The most operations one 1 MiB call had in flight, over a few calls. */
static uint64_t in_flight_best_of(struct striped_file *f, uint8_t *buf, bool write,
				  struct striped_io_stats *best)
{
	memset(best, 0, sizeof(*best));
	for (int i = 0; i < IN_FLIGHT_TRIES && best->max_in_flight < 16; i++) {
		struct striped_io_stats st;

		stats_of_call(f, buf, write, MiB, 0, &st);
		assert_int_equal(st.ops, 16);
		if (st.max_in_flight > best->max_in_flight)
			*best = st;
	}
	return best->max_in_flight;
}

/*
 * An object's share of a read or write goes as operations of at most 1 MiB,
 * cut at each MiB of the object, all in flight together; the bytes are the
 * caller's either way.
 */
static void test_object_share_in_mib_operations(void **state)
{
	struct striped_layout wide = {K64, 2, 4 * MiB};
	uint8_t *buf = malloc(8 * MiB), *back = malloc(8 * MiB);
	uint64_t best = 0;
	struct striped_io_stats st;
	struct striped_file *f;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "mibops");
	f = create_file(name, NULL); /* 4 MiB units, 1 object per set, 4 MiB objects */
	pattern_fill(buf, 8 * MiB, 21, 0);
	assert_int_equal(striped_write(f, buf, 8 * MiB, 0), (ssize_t)(8 * MiB));
	/* Overwrites (no size update): two objects, four MiB each. */
	stats_of_call(f, buf, true, 8 * MiB, 0, &st);
	assert_int_equal(st.ops, 8);
	/* 3 MiB from 512 KiB: cut at 1, 2 and 3 MiB of the object. */
	pattern_fill(buf, 3 * MiB, 22, 512 * 1024);
	stats_of_call(f, buf, true, 3 * MiB, 512 * 1024, &st);
	assert_int_equal(st.ops, 4);
	for (int i = 0; i < IN_FLIGHT_TRIES && best < 4; i++) {
		stats_of_call(f, back, false, 4 * MiB, 0, &st);
		assert_int_equal(st.ops, 4);
		best = st.max_in_flight > best ? st.max_in_flight : best;
	}
	assert_int_equal(best, 4);
	assert_int_equal(pattern_check(back, 512 * 1024, 21, 0), -1);
	assert_int_equal(pattern_check(back + 512 * 1024, 3 * MiB, 22, 512 * 1024), -1);
	assert_int_equal(pattern_check(back + 7 * MiB / 2, MiB / 2, 21, 7 * MiB / 2), -1);
	/* The serial path keeps one operation per object. */
	assert_int_equal(striped_file_set_throttle(f, 1, 64 * MiB), 0);
	stats_of_call(f, buf, true, 8 * MiB, 0, &st);
	assert_int_equal(st.ops, 2);
	striped_close(f);
	remove_and_check_gone(name);

	/* 64 KiB units over two objects: each object's 64 pieces gather per MiB of it. */
	unique_name(name, sizeof(name), "mibops-wide");
	f = create_file(name, &wide);
	pattern_fill(buf, 8 * MiB, 23, 0);
	assert_int_equal(striped_write(f, buf, 8 * MiB, 0), (ssize_t)(8 * MiB));
	stats_of_call(f, buf, true, 8 * MiB, 0, &st);
	assert_int_equal(st.ops, 8);
	memset(back, 0, 8 * MiB);
	stats_of_call(f, back, false, 8 * MiB, 0, &st);
	assert_int_equal(st.ops, 8);
	assert_int_equal(pattern_check(back, 8 * MiB, 23, 0), -1);
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
	free(back);
}

/*
 * The serial path sends an object's share as one operation, but none over
 * 64 MiB: an OSD refuses a write above osd_max_write_size (90 MiB by
 * default), and objects may be 128 MiB.
 */
static void test_serial_path_large_objects(void **state)
{
	struct striped_layout big = {MiB, 1, 128 * MiB};
	uint64_t len = 96 * MiB;
	uint8_t *buf = malloc(len), *back = malloc(len);
	struct striped_io_stats st;
	struct striped_file *f;
	char name[64];

	(void)state;
	assert_non_null(buf);
	assert_non_null(back);
	unique_name(name, sizeof(name), "serial-big");
	f = create_file(name, &big);
	assert_int_equal(striped_file_set_throttle(f, 1, 256 * MiB), 0);
	pattern_fill(buf, len, 24, 0);
	assert_int_equal(striped_write(f, buf, len, 0), (ssize_t)len);
	stats_of_call(f, buf, true, len, 0, &st);
	assert_int_equal(st.ops, 2); /* 64 MiB, then 32 */
	memset(back, 0, len);
	stats_of_call(f, back, false, len, 0, &st);
	assert_int_equal(st.ops, 2);
	assert_int_equal(pattern_check(back, len, 24, 0), -1);
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
	free(back);
}

static void test_sixteen_objects_in_flight(void **state)
{
	struct striped_layout l = {K64, 16, MiB};
	struct striped_completion *c;
	struct striped_io_stats st;
	uint8_t *buf = malloc(16 * MiB);
	struct striped_file *f;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "inflight");
	f = create_file(name, &l);
	pattern_fill(buf, 16 * MiB, 11, 0);
	assert_int_equal(striped_write(f, buf, 16 * MiB, 0), (ssize_t)(16 * MiB));

	/*
	 * Overwrite one stripe, then read it: 16 objects, no size update, 16
	 * object operations of 64 KiB, all sent before any returns. A slow
	 * machine (a sanitizer build) may see the first return early, so the
	 * best of a few calls counts; a serial engine would never show 16.
	 */
	assert_int_equal(in_flight_best_of(f, buf, true, &st), 16);
	assert_int_equal(st.ops, 16);
	assert_int_equal(st.bytes, MiB);
	assert_int_equal(st.calls, 1);
	assert_true(st.latency_ns > 0);
	assert_int_equal(in_flight_best_of(f, buf, false, &st), 16);
	assert_int_equal(pattern_check(buf, MiB, 11, 0), -1);

	assert_int_equal(striped_file_set_throttle(f, 1, 64 * MiB), 0);
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_write(f, c, buf, 16 * MiB, 0), 0);
	striped_completion_wait(c);
	striped_completion_stats(c, &st, sizeof(st));
	assert_int_equal(st.ops, 16);
	assert_int_equal(st.max_in_flight, 1);
	assert_int_equal(st.throttle_waits, 15);
	striped_completion_release(c);

	assert_int_equal(striped_file_stats(f, &st, sizeof(st)), 0);
	/* Every call sent 16 operations; the first also raised the mark and grew the size. */
	assert_true(st.calls >= 4);
	assert_int_equal(st.ops, st.calls * 16 + 2);
	assert_true(st.max_in_flight >= 16);
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

/* ---- latency percentiles ---- */

#define LAT_CALLS 300
#define LAT_SLOW 3 /* of them 8 MiB instead of 64 KiB: the tail */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* One aio call of f, waited for; the latency its completion measured. */
static uint64_t timed_call(struct striped_file *f, bool write, uint8_t *buf, size_t len,
			   uint64_t off)
{
	struct striped_completion *c;
	struct striped_io_stats st;

	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	if (write)
		assert_int_equal(striped_aio_write(f, c, buf, len, off), 0);
	else
		assert_int_equal(striped_aio_read(f, c, buf, len, off), 0);
	striped_completion_wait(c);
	assert_int_equal(striped_completion_result(c), (ssize_t)len);
	assert_int_equal(striped_completion_stats(c, &st, sizeof(st)), 0);
	striped_completion_release(c);
	return st.latency_ns;
}

/* The library's percentiles against the calls' own latencies, sorted (nearest rank). */
static void check_percentiles(const struct striped_percentiles *p, uint64_t *lat, uint64_t n)
{
	const uint64_t per_1000[] = {500, 900, 990, 999};
	const uint64_t got[] = {p->p50_ns, p->p90_ns, p->p99_ns, p->p999_ns};

	qsort(lat, n, sizeof(*lat), cmp_u64);
	assert_int_equal(p->calls, n);
	assert_int_equal(p->max_ns, lat[n - 1]);
	for (int k = 0; k < 4; k++) {
		uint64_t x = lat[(n * per_1000[k] + 999) / 1000 - 1];

		/* the upper end of x's bucket (1/32 wide at most), never past the max */
		if (got[k] < x || got[k] > x + x / 32 || got[k] > p->max_ns)
			fail_msg("p%.1f: %" PRIu64 " ns, the calls' own: %" PRIu64 " ns",
				 (double)per_1000[k] / 10, got[k], x);
	}
}

/* What a completion callback read of its file's latency. */
struct latency_probe {
	struct striped_file *f;
	struct striped_latency lat;
	int r;
};

static void latency_in_callback(struct striped_completion *c, void *arg)
{
	struct latency_probe *p = arg;

	(void)c;
	p->r = striped_file_latency(p->f, &p->lat, sizeof(p->lat));
}

/*
 * An application reads p50/p99/p99.9 of its own reads and writes: what the
 * file's histograms say matches the latencies its calls' completions
 * measured, the slow calls in the tail; other calls count in neither.
 */
static void test_latency_percentiles(void **state)
{
	struct striped_layout l = {K64, 4, MiB};
	uint64_t wlat[LAT_CALLS], rlat[LAT_CALLS], off = 0, size;
	uint8_t *buf = malloc(8 * MiB);
	struct striped_latency lat, part;
	struct latency_probe probe;
	struct striped_completion *c;
	struct striped_file *f;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "latency");
	f = create_file(name, &l);
	assert_non_null(buf);
	pattern_fill(buf, 8 * MiB, 5, 0);
	assert_int_equal(striped_file_latency(f, &lat, sizeof(lat)), 0);
	assert_int_equal(lat.read.calls + lat.write.calls + lat.write.max_ns, 0);
	for (int i = 0; i < LAT_CALLS; i++) {
		size_t len = i % (LAT_CALLS / LAT_SLOW) == 7 ? 8 * MiB : 64 * 1024;

		wlat[i] = timed_call(f, true, buf, len, off);
		rlat[i] = timed_call(f, false, buf, len, off);
		off += len;
	}
	/* stat, flush and a refused call count in neither */
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(striped_flush(f), 0);
	assert_int_equal(striped_write(f, NULL, 1, 0), -EINVAL);

	assert_int_equal(striped_file_latency(f, &lat, sizeof(lat)), 0);
	check_percentiles(&lat.write, wlat, LAT_CALLS);
	check_percentiles(&lat.read, rlat, LAT_CALLS);
	/* 1% of the calls are slow: p99.9 is theirs, p50 is not */
	assert_true(lat.write.p999_ns > lat.write.p50_ns && lat.read.p999_ns > lat.read.p50_ns);
	print_message("latency of %d calls: write p50 %" PRIu64 " p99 %" PRIu64 " p99.9 %" PRIu64
		      " us, read p50 %" PRIu64 " p99 %" PRIu64 " p99.9 %" PRIu64 " us\n",
		      LAT_CALLS, lat.write.p50_ns / 1000, lat.write.p99_ns / 1000,
		      lat.write.p999_ns / 1000, lat.read.p50_ns / 1000, lat.read.p99_ns / 1000,
		      lat.read.p999_ns / 1000);

	/* A caller built when the struct held the reads only gets the reads. */
	memset(&part, 0xa5, sizeof(part));
	assert_int_equal(striped_file_latency(f, &part, sizeof(part.read)), 0);
	assert_memory_equal(&part.read, &lat.read, sizeof(part.read));
	assert_int_equal(part.write.calls, 0xa5a5a5a5a5a5a5a5ull);
	assert_int_equal(striped_file_latency(NULL, &lat, sizeof(lat)), -EINVAL);
	assert_int_equal(striped_file_latency(f, NULL, sizeof(lat)), -EINVAL);

	/* Inside its callback a call already counts. */
	probe.f = f;
	probe.r = -1;
	assert_int_equal(striped_completion_create(latency_in_callback, &probe, &c), 0);
	assert_int_equal(striped_aio_read(f, c, buf, 4096, 0), 0);
	striped_completion_wait(c);
	striped_completion_release(c);
	assert_int_equal(probe.r, 0);
	assert_int_equal(probe.lat.read.calls, LAT_CALLS + 1);
	assert_int_equal(probe.lat.write.calls, LAT_CALLS);

	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

/* ---- bad input ---- */

static void test_open_errors(void **state)
{
	struct striped_layout bad = {K64, 1, K64 + 1};
	struct striped_layout huge = {K64, 1, 256 * MiB};
	struct striped_file *f = NULL;
	char name[64], longname[4096];

	(void)state;
	unique_name(name, sizeof(name), "errs");
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), -ENOENT);
	assert_int_equal(striped_open(cl.io, name, STRIPED_CREATE, &bad, &f), -EINVAL);
	assert_int_equal(striped_open(cl.io, name, STRIPED_CREATE, &huge, &f), -EFBIG);
	assert_int_equal(striped_open(cl.io, name, STRIPED_EXCL, NULL, &f), -EINVAL);
	assert_int_equal(striped_open(cl.io, name, 0x100, NULL, &f), -EINVAL);
	assert_int_equal(striped_open(cl.io, NULL, 0, NULL, &f), -EINVAL);
	assert_int_equal(striped_open(cl.io, "", 0, NULL, &f), -EINVAL);
	assert_int_equal(striped_open(cl.io, name, 0, NULL, NULL), -EINVAL);
	assert_int_equal(striped_open(NULL, name, 0, NULL, &f), -EINVAL);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(striped_open(cl.io, longname, STRIPED_CREATE, NULL, &f), -ENAMETOOLONG);
	assert_int_equal(striped_remove(cl.io, name), -ENOENT);

	f = create_file(name, NULL);
	striped_close(f);
	assert_int_equal(striped_open(cl.io, name, STRIPED_CREATE | STRIPED_EXCL, NULL, &f),
			 -EEXIST);
	/* CREATE without EXCL opens the existing file with its own layout. */
	assert_int_equal(
	    striped_open(cl.io, name, STRIPED_CREATE, &(struct striped_layout){K64, 2, K64}, &f),
	    0);
	{
		struct striped_layout got, def = STRIPED_LAYOUT_DEFAULT_INIT;

		assert_int_equal(striped_stat(f, NULL, &got), 0);
		assert_memory_equal(&got, &def, sizeof(got));
	}
	striped_close(f);
	remove_and_check_gone(name);

	/* A plain object where the head would be is not a striped file. */
	{
		char oid[128];

		striped_object_name(name, 0, oid, sizeof(oid));
		assert_int_equal(rados_write_full(cl.io, oid, "plain", 5), 0);
		assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), -ENODATA);
		assert_int_equal(striped_open(cl.io, name, STRIPED_CREATE, NULL, &f), -ENODATA);
		assert_int_equal(striped_remove(cl.io, name), -ENODATA);
		assert_int_equal(rados_setxattr(cl.io, oid, "striper.layout.stripe_unit", "x1", 2),
				 0);
		assert_int_equal(rados_setxattr(cl.io, oid, "striper.layout.stripe_count", "1", 1),
				 0);
		assert_int_equal(
		    rados_setxattr(cl.io, oid, "striper.layout.object_size", "65536", 5), 0);
		assert_int_equal(rados_setxattr(cl.io, oid, "striper.size", "0", 1), 0);
		/* Striper metadata that is no number: damaged (tests/cluster/test_damaged_heads.c says more). */
		assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), -EUCLEAN);
		assert_int_equal(rados_remove(cl.io, oid), 0);
	}
}

static void test_io_errors(void **state)
{
	struct striped_completion *c;
	struct striped_file *f;
	char name[64], buf[16] = {0};

	(void)state;
	unique_name(name, sizeof(name), "ioerr");
	f = create_file(name, NULL);
	assert_int_equal(striped_write(f, buf, 16, UINT64_MAX - 8), -EOVERFLOW);
	assert_int_equal(striped_read(f, buf, 16, UINT64_MAX - 8), -EOVERFLOW);
	assert_int_equal(striped_write(f, NULL, 16, 0), -EINVAL);
	assert_int_equal(striped_read(f, NULL, 16, 0), -EINVAL);
	assert_int_equal(striped_write(NULL, buf, 16, 0), -EINVAL);
	assert_int_equal(striped_write(f, buf, (size_t)SSIZE_MAX + 1, 0), -EINVAL);
	assert_int_equal(striped_stat(NULL, NULL, NULL), -EINVAL);
	assert_int_equal(striped_truncate(NULL, 0), -EINVAL);
	assert_int_equal(striped_completion_create(NULL, NULL, NULL), -EINVAL);
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_completion_wait(c), -EINVAL); /* nothing started */
	assert_int_equal(striped_completion_result(c), -EINPROGRESS);
	assert_int_equal(striped_aio_write(f, NULL, buf, 1, 0), -EINVAL);
	/* A refused call leaves the completion usable. */
	assert_int_equal(striped_aio_write(f, c, buf, 16, UINT64_MAX - 8), -EOVERFLOW);
	assert_int_equal(striped_aio_write(f, c, buf, 16, 0), 0);
	striped_completion_wait(c);
	assert_int_equal(striped_completion_result(c), 16);
	striped_completion_release(c);
	assert_int_equal(striped_file_set_throttle(f, 0, 1), -EINVAL);
	assert_int_equal(striped_file_set_throttle(f, 1, 0), -EINVAL);
	/* An idle open handle hands its lock over: remove goes on, the handle learns it. */
	assert_int_equal(striped_remove(cl.io, name), 0);
	assert_int_equal(count_objects(cl.io, name), 0);
	assert_int_equal(striped_write(f, buf, 16, 0), -ESTALE);
	assert_int_equal(count_objects(cl.io, name), 0);
	striped_close(f);
	striped_close(NULL);
	striped_completion_release(NULL);
}

static void test_aio_stat(void **state)
{
	struct striped_completion *c;
	struct striped_file *f;
	char name[64];
	uint64_t size = 0;

	(void)state;
	unique_name(name, sizeof(name), "astat");
	f = create_file(name, NULL);
	write_pattern(f, 1, 12345, 678);
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_stat(f, c, &size), 0);
	striped_completion_wait(c);
	assert_int_equal(striped_completion_result(c), 0);
	assert_int_equal(size, 12345 + 678);
	striped_completion_release(c);
	striped_close(f);
	remove_and_check_gone(name);
}

/* ---- the async contract ---- */

struct where {
	pthread_t thread;
	int calls;
	struct striped_file *f;
	int truncate_result;
};

static void note_thread_cb(struct striped_completion *c, void *arg)
{
	struct where *w = arg;

	(void)c;
	w->thread = pthread_self();
	w->calls++;
}

/* A zero-length call completes inside the submitting call, in its thread. */
static void test_callback_thread_of_zero_length_call(void **state)
{
	struct where w = {0};
	struct striped_completion *c;
	struct striped_file *f;
	char name[64], buf[1];

	(void)state;
	unique_name(name, sizeof(name), "cbthread");
	f = create_file(name, NULL);
	assert_int_equal(striped_completion_create(note_thread_cb, &w, &c), 0);
	assert_int_equal(striped_aio_write(f, c, buf, 0, 0), 0);
	assert_int_equal(w.calls, 1); /* before the submitting call returned */
	assert_true(pthread_equal(w.thread, pthread_self()));
	assert_int_equal(striped_completion_is_complete(c), 1);
	striped_completion_release(c);
	striped_close(f);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

/* Calls started from callbacks with STRIPED_IO_NOWAIT: a chain that never deadlocks. */
struct chain {
	struct striped_file *f;
	uint8_t *buf;
	int left, started, refused, failed;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
};

static void chain_cb(struct striped_completion *c, void *arg);

static void chain_next(struct chain *k)
{
	struct striped_completion *c;
	uint64_t off = (uint64_t)k->started * 300000;
	int r;

	striped_completion_create(chain_cb, k, &c);
	r = striped_aio_write2(k->f, c, k->buf + off, 300000, off, STRIPED_IO_NOWAIT);
	if (r == 0) {
		k->started++;
		striped_completion_release(c); /* the call holds it until its end */
		return;
	}
	striped_completion_release(c);
	pthread_mutex_lock(&k->lock);
	if (r == -EAGAIN)
		k->refused++;
	else
		k->failed++;
	k->done = 1; /* the main thread goes on from here */
	pthread_cond_signal(&k->cond);
	pthread_mutex_unlock(&k->lock);
}

static void chain_cb(struct striped_completion *c, void *arg)
{
	struct chain *k = arg;

	if (striped_completion_result(c) != 300000)
		k->failed++;
	if (--k->left > 0) {
		chain_next(k);
		return;
	}
	pthread_mutex_lock(&k->lock);
	k->done = 1;
	pthread_cond_signal(&k->cond);
	pthread_mutex_unlock(&k->lock);
}

static void test_nowait_calls_from_callbacks(void **state)
{
	struct striped_layout l = {K64, 4, 256 * 1024};
	struct chain k = {.left = 24, .lock = PTHREAD_MUTEX_INITIALIZER,
			  .cond = PTHREAD_COND_INITIALIZER};
	struct striped_completion *c1, *c2;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "nowait");
	k.f = create_file(name, &l);
	k.buf = malloc(24 * 300000);
	pattern_fill(k.buf, 24 * 300000, 21, 0);
	/* A full throttle refuses at once, leaving the completion unused. */
	assert_int_equal(striped_file_set_throttle(k.f, 2, 64 * MiB), 0);
	assert_int_equal(striped_completion_create(NULL, NULL, &c1), 0);
	assert_int_equal(striped_completion_create(NULL, NULL, &c2), 0);
	assert_int_equal(striped_aio_write2(k.f, c1, k.buf, 4 * K64, 0, STRIPED_IO_NOWAIT), 0);
	assert_int_equal(striped_aio_write2(k.f, c2, k.buf, 4 * K64, 0, STRIPED_IO_NOWAIT),
			 -EAGAIN);
	assert_int_equal(striped_aio_read2(k.f, c2, k.buf, 4 * K64, 0, 0x100), -EINVAL);
	striped_completion_wait(c1);
	assert_int_equal(striped_aio_write2(k.f, c2, k.buf, 4 * K64, 0, STRIPED_IO_NOWAIT), 0);
	striped_completion_wait(c2);
	striped_completion_release(c1);
	striped_completion_release(c2);
	/* Each growing write starts the next from its callback, on the librados thread. */
	assert_int_equal(striped_file_set_throttle(k.f, 64, 64 * MiB), 0);
	while (k.left > 0 && !k.failed) {
		k.done = 0;
		chain_next(&k);
		pthread_mutex_lock(&k.lock);
		while (!k.done)
			pthread_cond_wait(&k.cond, &k.lock);
		pthread_mutex_unlock(&k.lock);
	}
	striped_close(k.f); /* waits for the chain's last call */
	assert_int_equal(k.failed, 0);
	print_message("nowait chain: %d calls, %d refused with -EAGAIN and retried\n", k.started,
		      k.refused);
	k.f = NULL;
	{
		struct striped_file *f;

		assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
		assert_int_equal(read_and_check(f, 21, 0, 24 * 300000), 24 * 300000);
		striped_close(f);
	}
	assert_int_equal(striped_remove(cl.io, name), 0);
	free(k.buf);
}

/* Closing, or truncating, a file from its own call's callback. */
static void close_from_cb(struct striped_completion *c, void *arg)
{
	struct where *w = arg;

	(void)c;
	w->truncate_result = striped_truncate(w->f, 0);
	striped_close(w->f); /* must not wait for the call that runs this */
	w->calls++;
}

static void test_close_from_callback(void **state)
{
	struct where w = {0};
	struct striped_completion *c;
	char name[64], buf[4096] = {1};

	(void)state;
	unique_name(name, sizeof(name), "closecb");
	w.f = create_file(name, NULL);
	assert_int_equal(striped_completion_create(close_from_cb, &w, &c), 0);
	assert_int_equal(striped_aio_write(w.f, c, buf, sizeof(buf), 0), 0);
	assert_int_equal(striped_completion_wait(c), 0);
	assert_int_equal(w.calls, 1);
	assert_int_equal(w.truncate_result, -EDEADLK);
	striped_completion_release(c);
	/* The deferred close let go of the lock: remove works at once. */
	for (int i = 0; i < 50 && striped_remove(cl.io, name) == -EBUSY; i++)
		usleep(20000);
	assert_int_equal(count_objects(cl.io, name), 0);
}

/* objecter_inflight_op_bytes = 0 is Ceph's "unlimited", not a throttle of 0. */
static void test_unlimited_objecter_bytes(void **state)
{
	struct striped_layout l = {K64, 16, MiB};
	struct striped_completion *c;
	struct striped_io_stats st;
	struct cluster other;
	struct striped_file *f;
	uint8_t *buf = calloc(1, MiB);
	char name[64];
	int r;

	(void)state;
	r = rados_create2(&other.rados, "ceph", "client.admin", 0);
	assert_int_equal(r, 0);
	assert_int_equal(rados_conf_read_file(other.rados, NULL), 0);
	assert_int_equal(rados_conf_set(other.rados, "objecter_inflight_op_bytes", "0"), 0);
	assert_int_equal(rados_connect(other.rados), 0);
	assert_int_equal(rados_ioctx_create(other.rados, cl.pool, &other.io), 0);
	unique_name(name, sizeof(name), "unlimited");
	assert_int_equal(striped_open(other.io, name, STRIPED_CREATE, &l, &f), 0);
	assert_int_equal(striped_write(f, buf, MiB, 0), (ssize_t)MiB);
	for (int i = 0; i < IN_FLIGHT_TRIES; i++) {
		assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
		assert_int_equal(striped_aio_write(f, c, buf, MiB, 0), 0);
		striped_completion_wait(c);
		striped_completion_stats(c, &st, sizeof(st));
		striped_completion_release(c);
		if (st.max_in_flight > 1)
			break;
	}
	assert_true(st.max_in_flight > 1); /* serial (one at a time) before */
	striped_close(f);
	assert_int_equal(striped_remove(other.io, name), 0);
	cluster_disconnect(&other);
	free(buf);
}

/* ---- buffers: copied before an aio write returns, unless zero copy ---- */

/* Start a write with flags, then scribble over buf at once; returns the result. */
static ssize_t write_then_scribble(struct striped_file *f, uint8_t *buf, size_t len, uint64_t off,
				   int flags)
{
	struct striped_completion *c;
	ssize_t r;
	int started;

	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	while ((started = striped_aio_write2(f, c, buf, len, off, flags)) == -EAGAIN)
		usleep(1000); /* STRIPED_IO_NOWAIT: the throttle was busy */
	assert_int_equal(started, 0);
	memset(buf, 0xee, len);
	striped_completion_wait(c);
	r = striped_completion_result(c);
	striped_completion_release(c);
	return r;
}

static void test_aio_write_buffer_reuse(void **state)
{
	struct striped_layout l = {K64, 4, 256 * 1024};
	const int cases[] = {0, STRIPED_IO_NOWAIT};
	uint8_t *buf = malloc(MiB);
	struct striped_file *f;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "reuse");
	f = create_file(name, &l);
	for (int i = 0; i < 2; i++) {
		/* A growing write (its data waits for the size update), then an overwrite. */
		for (int over = 0; over < 2; over++) {
			uint64_t off = (uint64_t)i * MiB;

			pattern_fill(buf, MiB, 40 + i * 2 + over, off);
			assert_int_equal(write_then_scribble(f, buf, MiB, off, cases[i]), (ssize_t)MiB);
			assert_int_equal(read_and_check(f, 40 + i * 2 + over, off, MiB), (ssize_t)MiB);
		}
	}
	{
		struct striped_completion *c;

		assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
		assert_int_equal(striped_aio_write2(f, c, buf, 1, 0, 0x80), -EINVAL); /* unknown flag */
		striped_completion_release(c);
	}
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

/*
 * Zero-copy writes land as written, over whole objects (sent as write_full,
 * the head object included: its xattrs and lock stay) and parts of them.
 */
static void test_zero_copy_writes(void **state)
{
	struct striped_layout l = {K64, 2, 4 * K64};
	const struct {
		uint64_t off, len;
	} calls[] = {{0, 8 * K64}, {K64 / 2, 3 * K64}, {8 * K64 - 100, 8 * K64 + 200}, {0, 1}};
	size_t n = sizeof(calls) / sizeof(calls[0]);
	uint8_t *buf = malloc(MiB);
	struct striped_completion *c;
	struct striped_layout got;
	struct striped_file *f, *g;
	struct cluster other;
	uint64_t size;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "zc");
	f = create_file(name, &l);
	for (size_t i = 0; i < n; i++) {
		pattern_fill(buf, calls[i].len, 50 + i, calls[i].off);
		assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
		assert_int_equal(striped_aio_write2(f, c, buf, calls[i].len, calls[i].off,
						    STRIPED_IO_ZEROCOPY),
				 0);
		striped_completion_wait(c);
		assert_int_equal(striped_completion_result(c), (ssize_t)calls[i].len);
		striped_completion_release(c);
		assert_int_equal(read_and_check(f, 50 + i, calls[i].off, calls[i].len),
				 (ssize_t)calls[i].len);
	}
	/* Another client sees the size and layout, and truncates while f is idle: f learns it. */
	cluster_connect(&other);
	assert_int_equal(striped_open(other.io, name, 0, NULL, &g), 0);
	assert_int_equal(striped_stat(g, &size, &got), 0);
	assert_int_equal(size, 16 * K64 + 100);
	assert_memory_equal(&got, &l, sizeof(l));
	striped_close(g);
	assert_int_equal(striped_open(other.io, name, 0, NULL, &g), 0);
	assert_int_equal(striped_truncate(g, 100), 0);
	striped_close(g);
	cluster_disconnect(&other);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 100);
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

/*
 * A zero-copy buffer is the caller's again once the call completes: freed at
 * once (ASan, in the sanitizer build, sees any later touch), and a buffer
 * overwritten right after striped_write() returns changes nothing stored.
 */
static void test_zero_copy_buffer_lifetime(void **state)
{
	struct striped_layout l = {K64, 3, 3 * K64};
	const size_t len = 700001;
	struct striped_completion *c;
	struct striped_file *f;
	char name[64];
	uint8_t *buf;

	(void)state;
	unique_name(name, sizeof(name), "zclife");
	f = create_file(name, &l);
	for (int i = 0; i < 8; i++) {
		uint64_t off = (uint64_t)(i % 4) * len; /* growing writes, then overwrites */

		buf = malloc(len);
		pattern_fill(buf, len, 60 + i, off);
		assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
		assert_int_equal(striped_aio_write2(f, c, buf, len, off, STRIPED_IO_ZEROCOPY), 0);
		striped_completion_wait(c);
		assert_int_equal(striped_completion_result(c), (ssize_t)len);
		striped_completion_release(c);
		free(buf);
	}
	buf = malloc(len);
	pattern_fill(buf, len, 70, len);
	assert_int_equal(striped_write(f, buf, len, len), (ssize_t)len);
	memset(buf, 0xee, len);
	free(buf);
	usleep(100000); /* time for any late touch of the freed buffers */
	assert_int_equal(read_and_check(f, 64, 0, len), (ssize_t)len);
	assert_int_equal(read_and_check(f, 70, len, len), (ssize_t)len);
	assert_int_equal(read_and_check(f, 66, 2 * len, len), (ssize_t)len);
	assert_int_equal(read_and_check(f, 67, 3 * len, len), (ssize_t)len);
	striped_close(f);
	remove_and_check_gone(name);
}

/* ---- flush, stat with time, xattrs (0.3) ---- */

struct flush_seen {
	struct aio_count *writes;
	int writes_done_at_flush;
};

static void flush_cb(struct striped_completion *c, void *arg)
{
	struct flush_seen *fs = arg;

	(void)c;
	pthread_mutex_lock(&fs->writes->lock);
	fs->writes_done_at_flush = fs->writes->calls;
	pthread_mutex_unlock(&fs->writes->lock);
}

/* A flush completes after every call started before it, released or not. */
static void test_flush(void **state)
{
	struct striped_layout l = {K64, 4, 4 * K64};
	struct aio_count n = {PTHREAD_MUTEX_INITIALIZER, 0};
	struct flush_seen fs = {&n, -1};
	const size_t chunk = 3 * K64 + 5;
	uint8_t *buf = malloc(16 * chunk);
	struct striped_completion *c;
	struct striped_file *f;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "flush");
	f = create_file(name, &l);
	assert_int_equal(striped_flush(f), 0); /* nothing in flight */
	pattern_fill(buf, 16 * chunk, 80, 0);
	for (int i = 0; i < 16; i++) {
		assert_int_equal(striped_completion_create(count_cb, &n, &c), 0);
		assert_int_equal(striped_aio_write(f, c, buf + i * chunk, chunk, i * chunk), 0);
		striped_completion_release(c); /* nobody waits on it: only the flush */
	}
	assert_int_equal(striped_completion_create(flush_cb, &fs, &c), 0);
	assert_int_equal(striped_aio_flush(f, c), 0);
	assert_int_equal(striped_aio_flush(f, c), -EBUSY); /* c is in use */
	assert_int_equal(striped_completion_wait(c), 0);
	assert_int_equal(striped_completion_result(c), 0);
	assert_int_equal(fs.writes_done_at_flush, 16);
	striped_completion_release(c);
	/* Another client sees every byte once the flush is done. */
	{
		struct cluster other;
		struct striped_file *g;

		cluster_connect(&other);
		assert_int_equal(striped_open(other.io, name, 0, NULL, &g), 0);
		assert_int_equal(read_and_check(g, 80, 0, 16 * chunk), (ssize_t)(16 * chunk));
		striped_close(g);
		cluster_disconnect(&other);
	}
	assert_int_equal(striped_flush(NULL), -EINVAL);
	assert_int_equal(striped_aio_flush(f, NULL), -EINVAL);
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

static void test_fstat(void **state)
{
	struct striped_layout l = {K64, 3, 3 * K64};
	struct striped_stat st;
	struct striped_file *f;
	uint64_t only_size = 0;
	time_t before = time(NULL);
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "fstat");
	f = create_file(name, &l);
	write_pattern(f, 3, 5 * K64, 12345);
	memset(&st, 0xee, sizeof(st));
	assert_int_equal(striped_fstat(f, &st, sizeof(st)), 0);
	assert_int_equal(st.size, 5 * K64 + 12345);
	assert_memory_equal(&st.layout, &l, sizeof(l));
	assert_true(st.mtime.tv_sec >= before - 2 && st.mtime.tv_sec <= time(NULL) + 2);
	assert_true(st.mtime.tv_nsec >= 0 && st.mtime.tv_nsec < 1000000000);
	/* An older, smaller struct: only what it holds is written. */
	assert_int_equal(striped_fstat(f, (struct striped_stat *)&only_size, sizeof(only_size)), 0);
	assert_int_equal(only_size, 5 * K64 + 12345);
	assert_int_equal(striped_fstat(f, &st, 0), -EINVAL);
	assert_int_equal(striped_fstat(f, NULL, sizeof(st)), -EINVAL);
	assert_int_equal(striped_fstat(NULL, &st, sizeof(st)), -EINVAL);
	striped_close(f);
	remove_and_check_gone(name);
}

static void test_xattrs(void **state)
{
	static const char bin[] = {0, 1, 2, 0, (char)0xfe};
	struct striped_layout l = {K64, 2, 2 * K64};
	char name[64], back[8], longname[STRIPED_XATTR_NAME_MAX + 2];
	struct striped_file *f, *g;
	struct striped_xattrs *it;
	struct cluster other;
	const char *key;
	const void *val;
	size_t len;
	int seen = 0;

	(void)state;
	unique_name(name, sizeof(name), "xattr");
	f = create_file(name, &l);
	assert_int_equal(striped_setxattr(f, "user.bin", bin, sizeof(bin)), 0);
	assert_int_equal(striped_setxattr(f, "user.empty", NULL, 0), 0);
	/* Another client reads them. */
	cluster_connect(&other);
	assert_int_equal(striped_open(other.io, name, 0, NULL, &g), 0);
	assert_int_equal(striped_getxattr(g, "user.bin", NULL, 0), sizeof(bin));
	assert_int_equal(striped_getxattr(g, "user.bin", back, sizeof(back)), sizeof(bin));
	assert_memory_equal(back, bin, sizeof(bin));
	assert_int_equal(striped_getxattr(g, "user.bin", back, 2), -ERANGE);
	assert_int_equal(striped_getxattr(g, "user.empty", back, sizeof(back)), 0);
	assert_int_equal(striped_getxattr(g, "user.none", back, sizeof(back)), -ENODATA);
	/* The list holds the user's two and none of the format's own. */
	assert_int_equal(striped_getxattrs(g, &it), 0);
	while (striped_getxattrs_next(it, &key, &val, &len) == 0 && key) {
		if (!strcmp(key, "user.bin"))
			assert_memory_equal(val, bin, sizeof(bin));
		else
			assert_string_equal(key, "user.empty");
		seen++;
	}
	assert_int_equal(striped_getxattrs_next(it, &key, &val, &len), 0);
	assert_null(key);
	striped_getxattrs_end(it);
	assert_int_equal(seen, 2);
	assert_int_equal(striped_rmxattr(g, "user.bin"), 0);
	assert_int_equal(striped_rmxattr(g, "user.none"), 0);
	assert_int_equal(striped_getxattr(f, "user.bin", back, sizeof(back)), -ENODATA);
	/* Reserved, bad and too long names. */
	assert_int_equal(striped_setxattr(f, "striper.size", "0", 1), -EPERM);
	assert_int_equal(striped_getxattr(f, "striper.layout.stripe_unit", back, 8), -EPERM);
	assert_int_equal(striped_rmxattr(f, "lock.striper.lock"), -EPERM);
	assert_int_equal(striped_setxattr(f, "", "x", 1), -EINVAL);
	assert_int_equal(striped_setxattr(f, NULL, "x", 1), -EINVAL);
	assert_int_equal(striped_setxattr(f, "user.x", NULL, 1), -EINVAL);
	assert_int_equal(striped_getxattr(f, "user.x", NULL, 1), -EINVAL);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(striped_setxattr(f, longname, "x", 1), -ENAMETOOLONG);
	longname[STRIPED_XATTR_NAME_MAX] = '\0';
	assert_int_equal(striped_setxattr(f, longname, "x", 1), 0);
	assert_int_equal(striped_getxattrs(f, NULL), -EINVAL);
	assert_int_equal(striped_getxattrs_next(NULL, &key, &val, &len), -EINVAL);
	striped_getxattrs_end(NULL);
	/*
	 * Another client removes the file once f's lease lapsed: f's xattr
	 * calls then fail with -ESTALE, and none of them makes a head.
	 */
	striped_close(g);
	assert_int_equal(striped_file_set_lease(f, STRIPED_LEASE_MIN_SECONDS), 0);
	usleep((STRIPED_LEASE_MIN_SECONDS * 1000 + 700) * 1000);
	assert_int_equal(striped_remove(other.io, name), 0);
	assert_int_equal(striped_setxattr(f, "user.late", "x", 1), -ESTALE);
	assert_int_equal(striped_getxattr(f, "user.empty", back, sizeof(back)), -ESTALE);
	assert_int_equal(striped_rmxattr(f, "user.empty"), -ESTALE);
	assert_int_equal(striped_fstat(f, &(struct striped_stat){0}, sizeof(struct striped_stat)),
			 -ESTALE);
	assert_int_equal(count_objects(cl.io, name), 0);
	striped_close(f);
	cluster_disconnect(&other);
}

/* ---- append and whole-file write (0.3) ---- */

#define APPENDERS 3
#define APPENDS 15
#define RECORD 10007 /* odd: records straddle stripe units and objects */

struct appender {
	const char *name;
	int id;
	int failures;
};

/* A record names its writer and number in its first 8 bytes; the rest is their pattern. */
static void fill_record(uint8_t *rec, int id, int seq)
{
	uint64_t tag = (uint64_t)id * 1000 + (uint64_t)seq;

	pattern_fill(rec, RECORD, tag, 0);
	memcpy(rec, &tag, sizeof(tag));
}

/* Each appender has its own cluster connection, as separate clients would. */
static void *append_records(void *arg)
{
	struct appender *ap = arg;
	uint8_t rec[RECORD];
	struct striped_file *f;
	struct cluster mine;

	cluster_connect(&mine);
	if (striped_open(mine.io, ap->name, 0, NULL, &f)) {
		ap->failures = APPENDS;
	} else {
		for (int seq = 0; seq < APPENDS; seq++) {
			fill_record(rec, ap->id, seq);
			ap->failures += striped_append(f, rec, RECORD) != RECORD;
		}
		striped_close(f);
	}
	cluster_disconnect(&mine);
	return NULL;
}

/* Appenders racing on one file each get their own range: every record is there, whole. */
static void test_concurrent_appends(void **state)
{
	struct striped_layout l = {K64, 3, 3 * K64};
	struct appender ap[APPENDERS];
	pthread_t th[APPENDERS];
	bool seen[APPENDERS][APPENDS] = {{false}};
	uint8_t *all, want[RECORD];
	struct striped_file *f;
	uint64_t size;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "append");
	f = create_file(name, &l);
	striped_close(f);
	for (int i = 0; i < APPENDERS; i++) {
		ap[i] = (struct appender){name, i + 1, 0};
		assert_int_equal(pthread_create(&th[i], NULL, append_records, &ap[i]), 0);
	}
	for (int i = 0; i < APPENDERS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(ap[i].failures, 0);
	}
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, (uint64_t)APPENDERS * APPENDS * RECORD);
	all = malloc(size);
	assert_int_equal(striped_read(f, all, size, 0), (ssize_t)size);
	for (uint64_t off = 0; off < size; off += RECORD) {
		uint64_t tag;
		int id, seq;

		memcpy(&tag, all + off, sizeof(tag));
		id = (int)(tag / 1000);
		seq = (int)(tag % 1000);
		assert_true(id >= 1 && id <= APPENDERS && seq < APPENDS);
		assert_false(seen[id - 1][seq]);
		seen[id - 1][seq] = true;
		fill_record(want, id, seq);
		assert_memory_equal(all + off, want, RECORD);
	}
	assert_int_equal(striped_append(f, NULL, 1), -EINVAL);
	assert_int_equal(striped_append(f, NULL, 0), 0);
	striped_close(f);
	remove_and_check_gone(name);
	free(all);
}

static void test_write_full(void **state)
{
	struct striped_layout l = {K64, 2, 2 * K64};
	struct striped_file *f, *g;
	struct cluster other;
	uint8_t *buf = malloc(MiB);
	uint64_t size;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "wfull");
	f = create_file(name, &l);
	write_pattern(f, 90, 0, 700000);
	/* Shorter, then longer, then nothing: the file is exactly what was given. */
	pattern_fill(buf, 12345, 91, 0);
	assert_int_equal(striped_write_full(f, buf, 12345), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 12345);
	assert_int_equal(read_and_check(f, 91, 0, 100000), 12345);
	pattern_fill(buf, MiB, 92, 0);
	assert_int_equal(striped_write_full(f, buf, MiB), 0);
	assert_int_equal(read_and_check(f, 92, 0, 2 * MiB), (ssize_t)MiB);
	/* Another client's idle handle hands the lock over, then reads what was written. */
	cluster_connect(&other);
	assert_int_equal(striped_open(other.io, name, 0, NULL, &g), 0);
	assert_int_equal(read_and_check(g, 92, 0, 2 * MiB), (ssize_t)MiB);
	assert_int_equal(striped_write_full(f, buf, 10), 0);
	assert_int_equal(read_and_check(g, 92, 0, 2 * MiB), 10);
	striped_close(g);
	cluster_disconnect(&other);
	assert_int_equal(striped_write_full(f, NULL, 0), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 0);
	assert_int_equal(striped_write_full(f, NULL, 1), -EINVAL);
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

/* ---- scatter-gather (0.3) ---- */

/* Cut [0, len) of buf into segments of odd sizes, some empty; returns how many. */
static int cut_segments(uint8_t *buf, size_t len, struct iovec *iov, int max)
{
	static const size_t sizes[] = {1, 0, 4095, 65536, 7, 0, 100003, 3, 250000};
	size_t done = 0;
	int n = 0;

	while (done < len && n < max - 1) {
		size_t want = sizes[n % (sizeof(sizes) / sizeof(sizes[0]))];

		if (want > len - done)
			want = len - done;
		iov[n++] = (struct iovec){buf + done, want};
		done += want;
	}
	iov[n++] = (struct iovec){buf + done, len - done};
	return n;
}

static void test_scatter_gather(void **state)
{
	struct striped_layout l = {K64, 3, 3 * K64};
	const size_t len = 1500000;
	uint8_t *src = malloc(len), *dst = malloc(len + 100);
	struct iovec iov[64];
	struct striped_completion *c;
	struct striped_file *f;
	char name[64];
	int n;

	(void)state;
	unique_name(name, sizeof(name), "sg");
	f = create_file(name, &l);
	/* writev, read back whole */
	pattern_fill(src, len, 100, 5000);
	n = cut_segments(src, len, iov, 64);
	assert_int_equal(striped_writev(f, iov, n, 5000), (ssize_t)len);
	assert_int_equal(read_and_check(f, 100, 5000, len), (ssize_t)len);
	/* readv into odd segments of a dirty buffer, stopping at the end of the file */
	memset(dst, 0xee, len + 100);
	n = cut_segments(dst, len + 100, iov, 64);
	assert_int_equal(striped_readv(f, iov, n, 5000), (ssize_t)len);
	assert_int_equal(pattern_check(dst, len, 100, 5000), -1);
	/* the hole before 5000 reads as zeros through readv */
	memset(dst, 0xee, 6000);
	n = cut_segments(dst, 6000, iov, 64);
	assert_int_equal(striped_readv(f, iov, n, 0), 6000);
	assert_zeros(dst, 5000);
	assert_int_equal(pattern_check(dst + 5000, 1000, 100, 5000), -1);
	/* aio: the segments are copied before aio_writev returns */
	pattern_fill(src, len, 101, 0);
	n = cut_segments(src, len, iov, 64);
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_writev(f, c, iov, n, 0), 0);
	memset(src, 0x5a, len);
	striped_completion_wait(c);
	assert_int_equal(striped_completion_result(c), (ssize_t)len);
	striped_completion_release(c);
	memset(dst, 0xee, len);
	n = cut_segments(dst, len, iov, 64);
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_readv(f, c, iov, n, 0), 0);
	striped_completion_wait(c);
	assert_int_equal(striped_completion_result(c), (ssize_t)len);
	striped_completion_release(c);
	assert_int_equal(pattern_check(dst, len, 101, 0), -1);
	/* zero segments, and bad arrays */
	assert_int_equal(striped_writev(f, iov, 0, 0), 0);
	assert_int_equal(striped_writev(f, NULL, 1, 0), -EINVAL);
	assert_int_equal(striped_readv(f, iov, -1, 0), -EINVAL);
	assert_int_equal(striped_readv(f, iov, IOV_MAX + 1, 0), -EINVAL);
	iov[0] = (struct iovec){NULL, 1};
	assert_int_equal(striped_writev(f, iov, 1, 0), -EINVAL);
	striped_close(f);
	remove_and_check_gone(name);
	free(src);
	free(dst);
}

/* ---- discard (0.3) ---- */

static void test_discard(void **state)
{
	struct striped_layout l = {K64, 2, 2 * K64};
	const size_t len = MiB, from = 100000, to = 700000;
	uint8_t *buf = malloc(len);
	struct striped_completion *c;
	struct striped_file *f;
	uint64_t size;
	char name[64];
	int before;

	(void)state;
	unique_name(name, sizeof(name), "discard");
	f = create_file(name, &l);
	write_pattern(f, 110, 0, len);
	before = count_objects(cl.io, name);
	assert_int_equal(before, 8);
	assert_int_equal(striped_discard(f, from, to - from), 0);
	/* Objects 2 and 3 lay wholly inside [100000, 700000): removed. */
	assert_int_equal(count_objects(cl.io, name), before - 2);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, len);
	memset(buf, 0xee, len);
	assert_int_equal(striped_read(f, buf, len, 0), (ssize_t)len);
	assert_int_equal(pattern_check(buf, from, 110, 0), -1);
	assert_zeros(buf + from, to - from);
	assert_int_equal(pattern_check(buf + to, len - to, 110, to), -1);
	/* Past the end: nothing is created. */
	assert_int_equal(striped_discard(f, 2 * len, len), 0);
	assert_int_equal(count_objects(cl.io, name), before - 2);
	/* The whole file, asynchronously: the head stays (zeroed), the size too. */
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_discard(f, c, 0, len), 0);
	striped_completion_wait(c);
	assert_int_equal(striped_completion_result(c), 0);
	striped_completion_release(c);
	assert_int_equal(count_objects(cl.io, name), 1);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, len);
	memset(buf, 0xee, len);
	assert_int_equal(striped_read(f, buf, len, 0), (ssize_t)len);
	assert_zeros(buf, len);
	assert_int_equal(striped_discard(f, 1, UINT64_MAX), -EOVERFLOW);
	assert_int_equal(striped_discard(NULL, 0, 1), -EINVAL);
	assert_int_equal(striped_aio_discard(f, NULL, 0, 1), -EINVAL);
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

/* Fadvise hints ride along on every operation; what is stored is unchanged. */
static void test_fadvise_flags(void **state)
{
	static const int hints[] = {STRIPED_IO_FADVISE_RANDOM, STRIPED_IO_FADVISE_SEQUENTIAL,
				    STRIPED_IO_FADVISE_WILLNEED, STRIPED_IO_FADVISE_DONTNEED,
				    STRIPED_IO_FADVISE_NOCACHE,
				    STRIPED_IO_FADVISE_SEQUENTIAL | STRIPED_IO_ZEROCOPY};
	struct striped_layout l = {K64, 4, 4 * K64};
	const size_t len = 300000;
	uint8_t *buf = malloc(len);
	struct striped_completion *c;
	struct striped_file *f;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "fadvise");
	f = create_file(name, &l);
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		pattern_fill(buf, len, 120 + i, i * 1000);
		assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
		assert_int_equal(striped_aio_write2(f, c, buf, len, i * 1000, hints[i]), 0);
		striped_completion_wait(c);
		assert_int_equal(striped_completion_result(c), (ssize_t)len);
		striped_completion_release(c);
		memset(buf, 0xee, len);
		assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
		assert_int_equal(striped_aio_read2(f, c, buf, len, i * 1000,
						   hints[i] & ~STRIPED_IO_ZEROCOPY),
				 0);
		striped_completion_wait(c);
		assert_int_equal(striped_completion_result(c), (ssize_t)len);
		striped_completion_release(c);
		assert_int_equal(pattern_check(buf, len, 120 + i, i * 1000), -1);
	}
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_read2(f, c, buf, 1, 0, 0x80), -EINVAL); /* FUA: not ours */
	striped_completion_release(c);
	striped_close(f);
	remove_and_check_gone(name);
	free(buf);
}

/* ---- open, truncate and remove without blocking (0.3) ---- */

static void note_thread(struct striped_completion *c, void *arg)
{
	(void)c;
	*(pthread_t *)arg = pthread_self();
}

/* Run one asynchronous metadata call's completion to its end: its result. */
static ssize_t finish(struct striped_completion *c)
{
	ssize_t r;

	assert_int_equal(striped_completion_wait(c), 0);
	r = striped_completion_result(c);
	striped_completion_release(c);
	return r;
}

static void test_async_metadata(void **state)
{
	struct striped_layout l = {K64, 2, 2 * K64};
	struct striped_completion *c;
	struct striped_file *f = NULL, *g = NULL;
	pthread_t cb_thread = pthread_self();
	uint64_t size;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "aio-meta");
	/* open: the callback runs on the library's thread, not ours */
	assert_int_equal(striped_completion_create(note_thread, &cb_thread, &c), 0);
	assert_int_equal(striped_aio_open(cl.io, c, name, STRIPED_CREATE | STRIPED_EXCL, &l, &f), 0);
	assert_int_equal(finish(c), 0);
	assert_non_null(f);
	assert_false(pthread_equal(cb_thread, pthread_self()));
	write_pattern(f, 130, 0, 500000);
	/* a second exclusive create fails through its completion */
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_open(cl.io, c, name, STRIPED_CREATE | STRIPED_EXCL, &l, &g), 0);
	assert_int_equal(finish(c), -EEXIST);
	assert_null(g);
	/* truncate */
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_truncate(f, c, 70000), 0);
	assert_int_equal(finish(c), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 70000);
	assert_int_equal(read_and_check(f, 130, 0, 100000), 70000);
	striped_close(f);
	/* appends in flight together land in ranges of their own */
	{
		uint8_t rec[3][RECORD], *all = malloc(3 * RECORD);
		struct striped_completion *ca[3];
		int seen = 0;

		assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
		for (int i = 0; i < 3; i++) {
			fill_record(rec[i], 9, i);
			assert_int_equal(striped_completion_create(NULL, NULL, &ca[i]), 0);
			assert_int_equal(striped_aio_append(f, ca[i], rec[i], RECORD), 0);
		}
		for (int i = 0; i < 3; i++)
			assert_int_equal(finish(ca[i]), RECORD);
		assert_int_equal(striped_read(f, all, 3 * RECORD, 70000), 3 * RECORD);
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++)
				seen += !memcmp(all + i * RECORD, rec[k], RECORD);
		assert_int_equal(seen, 3);
		assert_int_equal(striped_aio_append(f, NULL, rec[0], 1), -EINVAL);
		striped_close(f);
		free(all);
	}
	/* remove, then remove again */
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_remove(cl.io, c, name), 0);
	assert_int_equal(finish(c), 0);
	assert_int_equal(count_objects(cl.io, name), 0);
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_remove(cl.io, c, name), 0);
	assert_int_equal(finish(c), -ENOENT);
	/* bad input is refused at once, c untouched */
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_open(cl.io, NULL, name, 0, NULL, &f), -EINVAL);
	assert_int_equal(striped_aio_open(cl.io, c, "", 0, NULL, &f), -EINVAL);
	assert_int_equal(striped_aio_open(cl.io, c, name, STRIPED_EXCL, NULL, &f), -EINVAL);
	assert_int_equal(striped_aio_remove(NULL, c, name), -EINVAL);
	assert_int_equal(striped_aio_truncate(NULL, c, 0), -EINVAL);
	assert_int_equal(striped_completion_wait(c), -EINVAL); /* never started */
	striped_completion_release(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_open_errors),
	    cmocka_unit_test(test_io_errors),
	    cmocka_unit_test(test_aio_stat),
	    cmocka_unit_test(test_holes_and_eof),
	    cmocka_unit_test(test_truncate_down_and_up),
	    cmocka_unit_test(test_truncate_huge_sparse),
	    cmocka_unit_test(test_widest_stripe_count),
	    cmocka_unit_test(test_sixteen_objects_in_flight),
	    cmocka_unit_test(test_object_share_in_mib_operations),
	    cmocka_unit_test(test_serial_path_large_objects),
	    cmocka_unit_test(test_latency_percentiles),
	    cmocka_unit_test(test_aio_many_in_flight),
	    cmocka_unit_test(test_four_writers_extend),
	    cmocka_unit_test(test_growing_writes_share_size_updates),
	    cmocka_unit_test(test_size_never_shrinks),
	    cmocka_unit_test(test_roundtrip_layouts),
	    cmocka_unit_test(test_callback_thread_of_zero_length_call),
	    cmocka_unit_test(test_nowait_calls_from_callbacks),
	    cmocka_unit_test(test_close_from_callback),
	    cmocka_unit_test(test_unlimited_objecter_bytes),
	    cmocka_unit_test(test_aio_write_buffer_reuse),
	    cmocka_unit_test(test_zero_copy_writes),
	    cmocka_unit_test(test_zero_copy_buffer_lifetime),
	    cmocka_unit_test(test_flush),
	    cmocka_unit_test(test_fstat),
	    cmocka_unit_test(test_xattrs),
	    cmocka_unit_test(test_concurrent_appends),
	    cmocka_unit_test(test_write_full),
	    cmocka_unit_test(test_scatter_gather),
	    cmocka_unit_test(test_discard),
	    cmocka_unit_test(test_fadvise_flags),
	    cmocka_unit_test(test_async_metadata),
	};

	cluster_skip_unless_configured();
	return cmocka_run_group_tests(tests, cluster_group_setup, cluster_group_teardown);
}
