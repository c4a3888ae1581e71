// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Erasure-coded pools (the sandbox's STRIPED_TEST_EC_POOL, 2+1 without
 * overwrites, and STRIPED_TEST_ECOW_POOL, with). Without overwrites a pool
 * takes a write on an object only at the object's end, at a multiple of its
 * stripe width: every write of that kind is taken (in flight together too,
 * and after another client wrote), everything else refused with
 * -EOPNOTSUPP before a byte is sent (objects and size checked unchanged),
 * and truncate, remove, discard and write_full do what such a pool can.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <striped.h>

#include "cluster_fixture.h"

static struct cluster ec, ecow;
static uint64_t ec_width;

#define KiB 1024ull
#define MiB (1024ull * 1024)

static void connect_pool(struct cluster *pc, const char *env)
{
	const char *pool = getenv(env);

	cluster_skip_unless_configured();
	if (!pool) {
		if (cluster_required()) {
			fprintf(stderr, "%s unset (STRIPED_TEST_REQUIRE_CLUSTER=1)\n", env);
			exit(1);
		}
		printf("SKIP: %s unset: the cluster has no erasure-coded pools\n", env);
		exit(SKIP_EXIT);
	}
	setenv("STRIPED_TEST_POOL", pool, 1);
	cluster_connect(pc);
}

static char *name_of(const char *what)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "ec-%s-%d", what, (int)getpid());
	return buf;
}

/* Deterministic bytes: byte i of a file is pattern(i). */
static uint8_t pattern(uint64_t i)
{
	return (uint8_t)((i * 131 + (i >> 13) * 7) ^ 0x5a);
}

static void fill(uint8_t *buf, uint64_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern(off + i);
}

/* The file reads as pattern over [0, size) but for the zero ranges in holes. */
static void assert_content(struct striped_file *f, uint64_t size, uint64_t hole_from,
			   uint64_t hole_to)
{
	uint8_t *buf = malloc(size + 1);
	ssize_t n;

	assert_non_null(buf);
	n = striped_read(f, buf, size + 1, 0);
	assert_int_equal(n, (ssize_t)size);
	for (uint64_t i = 0; i < size; i++) {
		uint8_t want = i >= hole_from && i < hole_to ? 0 : pattern(i);

		if (buf[i] != want)
			fail_msg("byte %llu: %u, want %u", (unsigned long long)i, buf[i], want);
	}
	free(buf);
}

static ssize_t write_at(struct striped_file *f, uint64_t off, size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);
	ssize_t n;

	fill(buf, off, len);
	n = striped_write(f, buf, len, off);
	free(buf);
	return n;
}

/* An object's size, -1 when it is not there. */
static int64_t object_size(struct cluster *pc, const char *name, uint64_t objectno)
{
	char oid[256];
	uint64_t size;
	time_t mtime;

	striped_object_name(name, objectno, oid, sizeof(oid));
	return rados_stat(pc->io, oid, &size, &mtime) ? -1 : (int64_t)size;
}

static uint64_t file_size(struct striped_file *f)
{
	uint64_t size;

	assert_int_equal(striped_stat(f, &size, NULL), 0);
	return size;
}

static struct striped_file *create(struct cluster *pc, const char *name, uint64_t su, uint64_t sc,
				   uint64_t os)
{
	struct striped_layout l = {su, sc, os};
	struct striped_file *f;

	striped_remove(pc->io, name);
	assert_int_equal(striped_open(pc->io, name, STRIPED_CREATE | STRIPED_EXCL, &l, &f), 0);
	return f;
}

static void done(struct cluster *pc, struct striped_file *f, const char *name)
{
	striped_close(f);
	assert_int_equal(striped_remove(pc->io, name), 0);
	assert_int_equal(object_size(pc, name, 0), -1);
}

/* Front to back in pieces of 40 KiB (5 stripes): each lands where its objects end. */
static void test_sequential_writes_taken(void **state)
{
	const char *name = name_of("seq");
	struct striped_file *f = create(&ec, name, 64 * KiB, 3, 192 * KiB);
	uint64_t off;

	(void)state;
	for (off = 0; off < 1 * MiB; off += 40 * KiB)
		assert_int_equal(write_at(f, off, 40 * KiB), 40 * KiB);
	assert_int_equal(file_size(f), off);
	assert_content(f, off, 0, 0);
	done(&ec, f, name);
}

/* 64 writes in flight together, started front to back from one thread: all taken. */
static void test_aio_in_flight_taken(void **state)
{
	const char *name = name_of("aio");
	struct striped_file *f = create(&ec, name, 64 * KiB, 4, 256 * KiB);
	struct striped_completion *c[64];
	uint8_t *buf = malloc(64 * 64 * KiB);

	(void)state;
	fill(buf, 0, 64 * 64 * KiB);
	for (int i = 0; i < 64; i++) {
		assert_int_equal(striped_completion_create(NULL, NULL, &c[i]), 0);
		assert_int_equal(striped_aio_write(f, c[i], buf + i * 64 * KiB, 64 * KiB,
						   (uint64_t)i * 64 * KiB),
				 0);
	}
	for (int i = 0; i < 64; i++) {
		striped_completion_wait(c[i]);
		assert_int_equal(striped_completion_result(c[i]), 64 * KiB);
		striped_completion_release(c[i]);
	}
	free(buf);
	assert_content(f, 64 * 64 * KiB, 0, 0);
	done(&ec, f, name);
}

/* Each refusal changes nothing: neither the size nor any object. */
static void assert_refused(struct striped_file *f, const char *name, uint64_t off, size_t len,
			   uint64_t size, const int64_t *objects, int nobjects)
{
	assert_int_equal(write_at(f, off, len), -EOPNOTSUPP);
	assert_int_equal(file_size(f), size);
	for (int i = 0; i < nobjects; i++)
		assert_int_equal(object_size(&ec, name, (uint64_t)i), objects[i]);
}

static void test_refused_before_any_byte(void **state)
{
	const char *name = name_of("refused");
	/* Two objects to a set, 64 KiB units: 0-64K obj 0, 64-128K obj 1, 128-192K obj 0... */
	struct striped_file *f = create(&ec, name, 64 * KiB, 2, 128 * KiB);
	int64_t objects[2] = {64 * KiB, -1};

	(void)state;
	assert_int_equal(write_at(f, 0, 64 * KiB), 64 * KiB);
	/* An overwrite, inside an object. */
	assert_refused(f, name, 0, 8 * KiB, 64 * KiB, objects, 2);
	/* Past the end: object 1 would be written at 8 KiB, where it does not reach. */
	assert_refused(f, name, 72 * KiB, 8 * KiB, 64 * KiB, objects, 2);
	/* At the end of object 0 (taken there) and behind object 1's end: nothing sent. */
	assert_refused(f, name, 128 * KiB, 128 * KiB, 64 * KiB, objects, 2);
	/* Not at a multiple of the stripe width. */
	assert_int_equal(write_at(f, 64 * KiB, 8 * KiB + 100), 8 * KiB + 100);
	objects[1] = 8 * KiB + 100;
	assert_refused(f, name, 72 * KiB + 100, 8 * KiB, 72 * KiB + 100, objects, 2);
	/* Nothing written is nothing refused. */
	assert_int_equal(write_at(f, 5 * MiB, 0), 0);
	assert_content(f, 72 * KiB + 100, 0, 0);
	done(&ec, f, name);
}

/* Whole objects past the end start at their own end (0): the pool takes them. */
static void test_whole_objects_past_end_taken(void **state)
{
	const char *name = name_of("past");
	struct striped_file *f = create(&ec, name, 64 * KiB, 1, 64 * KiB);

	(void)state;
	assert_int_equal(write_at(f, 0, 64 * KiB), 64 * KiB);
	assert_int_equal(write_at(f, 256 * KiB, 64 * KiB), 64 * KiB);
	assert_int_equal(file_size(f), 320 * KiB);
	assert_int_equal(object_size(&ec, name, 2), -1);
	assert_content(f, 320 * KiB, 64 * KiB, 256 * KiB);
	done(&ec, f, name);
}

/* A file that ends inside a stripe takes no more; append refuses before it claims. */
static void test_short_last_piece_ends_appends(void **state)
{
	const char *name = name_of("short");
	struct striped_file *f = create(&ec, name, 64 * KiB, 1, 4 * MiB);
	uint8_t buf[8192];

	(void)state;
	assert_int_equal(write_at(f, 0, 64 * KiB), 64 * KiB);
	fill(buf, 64 * KiB, sizeof(buf));
	assert_int_equal(striped_append(f, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	assert_int_equal(write_at(f, 72 * KiB, 100), 100);
	assert_int_equal(striped_append(f, buf, sizeof(buf)), -EOPNOTSUPP);
	assert_int_equal(write_at(f, 72 * KiB + 100, 8 * KiB), -EOPNOTSUPP);
	assert_int_equal(file_size(f), 72 * KiB + 100);
	assert_int_equal(object_size(&ec, name, 0), 72 * KiB + 100);
	assert_content(f, 72 * KiB + 100, 0, 0);
	done(&ec, f, name);
}

/*
 * An append whose end an object does not reach (removed by a discard, or
 * past a growing truncate) is refused before it claims: the size stays.
 */
static void test_refused_append_claims_nothing(void **state)
{
	const char *name = name_of("claim");
	struct striped_file *f = create(&ec, name, 64 * KiB, 1, 64 * KiB);
	uint8_t buf[8192];

	(void)state;
	fill(buf, 0, sizeof(buf));
	assert_int_equal(write_at(f, 0, 72 * KiB), 72 * KiB);
	assert_int_equal(striped_discard(f, 64 * KiB, 64 * KiB), 0);
	assert_int_equal(striped_append(f, buf, sizeof(buf)), -EOPNOTSUPP);
	assert_int_equal(striped_append(f, buf, sizeof(buf)), -EOPNOTSUPP);
	assert_int_equal(file_size(f), 72 * KiB);
	assert_int_equal(striped_truncate(f, 64 * KiB), 0);
	/* 200 KiB is inside object 3, which does not reach it (at 256 KiB object 4 would begin) */
	assert_int_equal(striped_truncate(f, 200 * KiB), 0);
	assert_int_equal(striped_append(f, buf, sizeof(buf)), -EOPNOTSUPP);
	assert_int_equal(file_size(f), 200 * KiB);
	assert_int_equal(striped_truncate(f, 64 * KiB), 0);
	assert_int_equal(striped_append(f, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	assert_int_equal(file_size(f), 72 * KiB);
	done(&ec, f, name);
}

static void test_truncate(void **state)
{
	const char *name = name_of("trunc");
	struct striped_file *f = create(&ec, name, 64 * KiB, 1, 64 * KiB);

	(void)state;
	assert_int_equal(write_at(f, 0, 256 * KiB), 256 * KiB);
	/* A cut inside an object: refused, nothing changed. */
	assert_int_equal(striped_truncate(f, 100 * KiB), -EOPNOTSUPP);
	assert_int_equal(file_size(f), 256 * KiB);
	assert_int_equal(object_size(&ec, name, 1), 64 * KiB);
	assert_int_equal(object_size(&ec, name, 3), 64 * KiB);
	/* Down to whole objects: those past go. */
	assert_int_equal(striped_truncate(f, 128 * KiB), 0);
	assert_int_equal(file_size(f), 128 * KiB);
	assert_int_equal(object_size(&ec, name, 2), -1);
	assert_int_equal(object_size(&ec, name, 1), 64 * KiB);
	/* Up: nothing to cut; the new bytes are zeros, and no write lands behind its objects' ends.
	 */
	assert_int_equal(striped_truncate(f, 200 * KiB), 0);
	assert_content(f, 200 * KiB, 128 * KiB, 200 * KiB);
	assert_int_equal(write_at(f, 200 * KiB, 8 * KiB), -EOPNOTSUPP);
	/* To 0: the head is emptied, then written again from the start. */
	assert_int_equal(striped_truncate(f, 0), 0);
	assert_int_equal(file_size(f), 0);
	assert_int_equal(object_size(&ec, name, 0), 0);
	assert_int_equal(object_size(&ec, name, 1), -1);
	assert_int_equal(write_at(f, 0, 100 * KiB), 100 * KiB);
	assert_content(f, 100 * KiB, 0, 0);
	done(&ec, f, name);
}

static void test_discard_whole_objects_only(void **state)
{
	const char *name = name_of("discard");
	struct striped_file *f = create(&ec, name, 64 * KiB, 1, 64 * KiB);

	(void)state;
	assert_int_equal(write_at(f, 0, 256 * KiB), 256 * KiB);
	assert_int_equal(striped_discard(f, 64 * KiB, 32 * KiB), -EOPNOTSUPP);
	assert_int_equal(striped_discard(f, 0, 64 * KiB), -EOPNOTSUPP); /* the head */
	assert_int_equal(object_size(&ec, name, 1), 64 * KiB);
	assert_int_equal(striped_discard(f, 64 * KiB, 128 * KiB), 0);
	assert_int_equal(object_size(&ec, name, 1), -1);
	assert_int_equal(object_size(&ec, name, 2), -1);
	assert_content(f, 256 * KiB, 64 * KiB, 192 * KiB);
	/* An object it removed starts again at 0, the one after it is full. */
	assert_int_equal(write_at(f, 64 * KiB, 64 * KiB), 64 * KiB);
	assert_int_equal(write_at(f, 192 * KiB, 8 * KiB), -EOPNOTSUPP);
	assert_content(f, 256 * KiB, 128 * KiB, 192 * KiB);
	done(&ec, f, name);
}

static void test_write_full_rewrites(void **state)
{
	const char *name = name_of("full");
	struct striped_file *f = create(&ec, name, 64 * KiB, 2, 128 * KiB);
	uint8_t *buf = malloc(100 * KiB);

	(void)state;
	assert_int_equal(write_at(f, 0, 1 * MiB), 1 * MiB);
	fill(buf, 0, 100 * KiB);
	assert_int_equal(striped_write_full(f, buf, 100 * KiB), 0);
	free(buf);
	assert_int_equal(file_size(f), 100 * KiB);
	assert_content(f, 100 * KiB, 0, 0);
	assert_int_equal(object_size(&ec, name, 2), -1);
	done(&ec, f, name);
}

/* Another client wrote past the ends this handle knew: learned again, not refused. */
static void test_other_client_appended(void **state)
{
	const char *name = name_of("two");
	struct cluster other;
	struct striped_file *f = create(&ec, name, 64 * KiB, 1, 4 * MiB), *g;

	(void)state;
	connect_pool(&other, "STRIPED_TEST_EC_POOL");
	assert_int_equal(striped_open(other.io, name, 0, NULL, &g), 0);
	assert_int_equal(write_at(f, 0, 64 * KiB), 64 * KiB);
	assert_int_equal(write_at(g, 64 * KiB, 64 * KiB), 64 * KiB);
	assert_int_equal(write_at(f, 128 * KiB, 64 * KiB), 64 * KiB);
	assert_int_equal(write_at(g, 192 * KiB, 64 * KiB), 64 * KiB);
	striped_close(g);
	cluster_disconnect(&other);
	assert_content(f, 256 * KiB, 0, 0);
	done(&ec, f, name);
}

/*
 * After another client's write, a handle whose ends are stale may send a
 * write over its bytes: the pool refuses it, whole objects included (never
 * sent as write_full, which the pool would take over them), and the other
 * client's bytes stay.
 */
static void test_stale_ends_never_overwrite(void **state)
{
	const char *name = name_of("stale");
	struct cluster other;
	struct striped_file *f = create(&ec, name, 64 * KiB, 1, 64 * KiB), *g;
	uint8_t buf[8 * KiB];

	(void)state;
	connect_pool(&other, "STRIPED_TEST_EC_POOL");
	assert_int_equal(striped_open(other.io, name, 0, NULL, &g), 0);
	assert_int_equal(write_at(f, 0, 64 * KiB), 64 * KiB);
	assert_int_equal(write_at(g, 64 * KiB, 8 * KiB), 8 * KiB);
	striped_close(g);
	cluster_disconnect(&other);
	assert_int_equal(write_at(f, 64 * KiB, 128 * KiB), -EOPNOTSUPP);
	assert_int_equal(object_size(&ec, name, 1), 8 * KiB);
	assert_int_equal(striped_read(f, buf, sizeof(buf), 64 * KiB), (ssize_t)sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], pattern(64 * KiB + i));
	done(&ec, f, name);
}

/* An append after another client truncated and rewrote the file: taken at its new end. */
static void test_append_after_other_client(void **state)
{
	const char *name = name_of("append2");
	struct cluster other;
	struct striped_file *f = create(&ec, name, 64 * KiB, 1, 4 * MiB), *g;
	uint8_t *buf = malloc(30976);

	(void)state;
	fill(buf, 0, 30976);
	assert_int_equal(striped_write_full(f, buf, 30976), 0);
	connect_pool(&other, "STRIPED_TEST_EC_POOL");
	assert_int_equal(striped_open(other.io, name, 0, NULL, &g), 0);
	assert_int_equal(striped_truncate(g, 0), 0);
	assert_int_equal(write_at(g, 0, 16 * KiB), 16 * KiB);
	striped_close(g);
	cluster_disconnect(&other);
	fill(buf, 16 * KiB, 8 * KiB);
	assert_int_equal(striped_append(f, buf, 8 * KiB), 8 * KiB);
	assert_int_equal(file_size(f), 24 * KiB);
	assert_content(f, 24 * KiB, 0, 0);
	free(buf);
	done(&ec, f, name);
}

/*
 * Another client's short write moved the end past what this handle knows:
 * its append, claiming at the new end, is refused there before the claim.
 */
static void test_append_behind_short_write_claims_nothing(void **state)
{
	const char *name = name_of("append3");
	struct cluster other;
	struct striped_file *f = create(&ec, name, 64 * KiB, 1, 4 * MiB), *g;
	uint8_t buf[8 * KiB];

	(void)state;
	connect_pool(&other, "STRIPED_TEST_EC_POOL");
	assert_int_equal(striped_open(other.io, name, 0, NULL, &g), 0);
	assert_int_equal(write_at(f, 0, 16 * KiB), 16 * KiB);
	assert_int_equal(write_at(g, 16 * KiB, 6400), 6400);
	striped_close(g);
	cluster_disconnect(&other);
	fill(buf, 22784, sizeof(buf));
	assert_int_equal(striped_append(f, buf, sizeof(buf)), -EOPNOTSUPP);
	assert_int_equal(file_size(f), 22784);
	assert_content(f, 22784, 0, 0);
	done(&ec, f, name);
}

/*
 * This handle's size is behind another client's aligned append, and its
 * object ends were learned anew (a refused write forgets them): its append
 * goes at the file's stored end, never refused for the size it had.
 */
static void test_append_at_stored_end_after_other_client(void **state)
{
	const char *name = name_of("append4");
	struct cluster other;
	struct striped_file *f = create(&ec, name, 64 * KiB, 1, 4 * MiB), *g;
	uint8_t buf[8 * KiB];

	(void)state;
	fill(buf, 0, sizeof(buf));
	assert_int_equal(striped_append(f, buf, sizeof(buf)), sizeof(buf));
	connect_pool(&other, "STRIPED_TEST_EC_POOL");
	assert_int_equal(striped_open(other.io, name, 0, NULL, &g), 0);
	fill(buf, 8 * KiB, sizeof(buf));
	assert_int_equal(striped_append(g, buf, sizeof(buf)), sizeof(buf));
	striped_close(g);
	cluster_disconnect(&other);
	/* a write behind the end is refused, and the handle forgets its ends */
	assert_int_equal(write_at(f, 100, 100), -EOPNOTSUPP);
	fill(buf, 16 * KiB, sizeof(buf));
	assert_int_equal(striped_append(f, buf, sizeof(buf)), sizeof(buf));
	assert_int_equal(file_size(f), 24 * KiB);
	assert_content(f, 24 * KiB, 0, 0);
	done(&ec, f, name);
}

/* The buffered mode's write-behind goes front to back too. */
static void test_buffered_sequential(void **state)
{
	const char *name = name_of("buffered");
	struct striped_layout l = {1 * MiB, 2, 4 * MiB};
	struct striped_file *f;
	uint8_t buf[4096];

	(void)state;
	striped_remove(ec.io, name);
	assert_int_equal(striped_open(ec.io, name, STRIPED_CREATE | STRIPED_BUFFERED, &l, &f), 0);
	for (uint64_t off = 0; off < 8 * MiB; off += sizeof(buf)) {
		fill(buf, off, sizeof(buf));
		assert_int_equal(striped_write(f, buf, sizeof(buf), off), (ssize_t)sizeof(buf));
	}
	assert_int_equal(striped_close2(f), 0);
	assert_int_equal(striped_open(ec.io, name, 0, NULL, &f), 0);
	assert_content(f, 8 * MiB, 0, 0);
	done(&ec, f, name);
}

/* A new file's default layout: stripe units of whole stripes, on both kinds of pool. */
static void test_default_layout_whole_stripes(void **state)
{
	struct cluster *pools[] = {&ec, &ecow};

	(void)state;
	for (int i = 0; i < 2; i++) {
		const char *name = name_of("default");
		struct striped_layout l;
		struct striped_file *f;
		uint64_t width;

		assert_int_equal(rados_ioctx_pool_required_alignment2(pools[i]->io, &width), 0);
		assert_true(width > 0);
		striped_remove(pools[i]->io, name);
		assert_int_equal(striped_open(pools[i]->io, name, STRIPED_CREATE, NULL, &f), 0);
		assert_int_equal(striped_stat(f, NULL, &l), 0);
		assert_int_equal(l.stripe_unit % width, 0);
		assert_int_equal(l.stripe_unit % (64 * KiB), 0);
		assert_true(l.stripe_unit <= 4 * MiB);
		done(pools[i], f, name);
	}
}

/*
 * A small file made whole by name (striped_head_create()) on both kinds of
 * erasure-coded pool: the pool's default layout, then appended to through
 * a handle where the pool takes only appends.
 */
static void test_head_create(void **state)
{
	struct cluster *pools[] = {&ec, &ecow};
	uint8_t buf[64 * KiB];

	(void)state;
	fill(buf, 0, sizeof(buf));
	for (int i = 0; i < 2; i++) {
		const char *name = name_of("hcreate");
		struct striped_head h;
		struct striped_layout l;
		struct striped_file *f;
		uint64_t width;

		assert_int_equal(rados_ioctx_pool_required_alignment2(pools[i]->io, &width), 0);
		striped_remove(pools[i]->io, name);
		assert_int_equal(striped_head_create(pools[i]->io, name, NULL, buf, 5000, NULL, 0), 0);
		assert_int_equal(striped_open(pools[i]->io, name, 0, NULL, &f), 0);
		assert_int_equal(striped_stat(f, NULL, &l), 0);
		assert_int_equal(l.stripe_unit % width, 0);
		assert_content(f, 5000, 0, 0);
		striped_close(f);
		striped_remove(pools[i]->io, name);
		/* a stripe unit of 64 KiB, one whole: then appended at its end, in order */
		l = (struct striped_layout){64 * KiB, 1, 4 * MiB};
		assert_int_equal(striped_head_create(pools[i]->io, name, &l, buf, sizeof(buf), NULL, 0),
				 0);
		assert_int_equal(striped_open(pools[i]->io, name, 0, NULL, &f), 0);
		assert_int_equal(write_at(f, 64 * KiB, 64 * KiB), 64 * KiB);
		assert_content(f, 128 * KiB, 0, 0);
		done(pools[i], f, name);
		/* removed as read, in one operation; then not there: -ENOENT, as on a replicated pool */
		assert_int_equal(striped_head_create(pools[i]->io, name, &l, buf, 100, NULL, 0), 0);
		assert_int_equal(striped_head_read(pools[i]->io, name, &h, sizeof(h)), 0);
		assert_int_equal(striped_head_remove(pools[i]->io, name, &h, sizeof(h)), 0);
		assert_int_equal(striped_head_remove(pools[i]->io, name, &h, sizeof(h)), -ENOENT);
	}
}

/* With overwrites an erasure-coded pool takes what a replicated one does. */
static void test_ecow_overwrites(void **state)
{
	const char *name = name_of("ecow");
	struct striped_file *f = create(&ecow, name, 64 * KiB, 2, 128 * KiB);

	(void)state;
	assert_int_equal(write_at(f, 0, 512 * KiB), 512 * KiB);
	assert_int_equal(write_at(f, 1000, 3000), 3000);
	assert_int_equal(write_at(f, 700 * KiB + 5, 100), 100);
	assert_int_equal(striped_truncate(f, 100 * KiB + 3), 0);
	assert_int_equal(striped_discard(f, 4 * KiB, 8 * KiB), 0);
	assert_content(f, 100 * KiB + 3, 4 * KiB, 12 * KiB);
	done(&ecow, f, name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sequential_writes_taken),
	    cmocka_unit_test(test_aio_in_flight_taken),
	    cmocka_unit_test(test_refused_before_any_byte),
	    cmocka_unit_test(test_whole_objects_past_end_taken),
	    cmocka_unit_test(test_short_last_piece_ends_appends),
	    cmocka_unit_test(test_refused_append_claims_nothing),
	    cmocka_unit_test(test_truncate),
	    cmocka_unit_test(test_discard_whole_objects_only),
	    cmocka_unit_test(test_write_full_rewrites),
	    cmocka_unit_test(test_other_client_appended),
	    cmocka_unit_test(test_stale_ends_never_overwrite),
	    cmocka_unit_test(test_append_after_other_client),
	    cmocka_unit_test(test_append_behind_short_write_claims_nothing),
	    cmocka_unit_test(test_append_at_stored_end_after_other_client),
	    cmocka_unit_test(test_buffered_sequential),
	    cmocka_unit_test(test_default_layout_whole_stripes),
	    cmocka_unit_test(test_ecow_overwrites),
	    cmocka_unit_test(test_head_create),
	};
	int r;

	connect_pool(&ecow, "STRIPED_TEST_ECOW_POOL");
	connect_pool(&ec, "STRIPED_TEST_EC_POOL");
	assert_int_equal(rados_ioctx_pool_required_alignment2(ec.io, &ec_width), 0);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	cluster_disconnect(&ec);
	cluster_disconnect(&ecow);
	return r;
}
