// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Shared files against the real sandbox cluster: every client here is an
 * independent cluster connection (its own rados_t, so its own lock owner),
 * and the crash checks kill separate writer processes. Each test is one
 * promise of the header's "Shared files: the contract".
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/wait.h>
#include <time.h>

#include <cmocka.h>
#include <radosstriper/libradosstriper.h>

#include "cluster_fixture.h"
#include "striped.h"

#define KiB 1024ull
#define MiB (1ull << 20)
/* The shortest idle time: an idle handle lets go of its lock after this (and a tick). */
#define LEASE 1
#define LAPSE_US ((LEASE * 1000 + 700) * 1000)

static struct cluster a, b, fresh_c;

static int group_setup(void **state)
{
	(void)state;
	cluster_connect(&a);
	cluster_connect(&b);
	cluster_connect(&fresh_c);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	cluster_disconnect(&a);
	cluster_disconnect(&b);
	cluster_disconnect(&fresh_c);
	return 0;
}

/* Pool listings started by anyone in this process (libstriped included). */
static int listings;

int rados_nobjects_list_open(rados_ioctx_t io, rados_list_ctx_t *ctx)
{
	static int (*real)(rados_ioctx_t, rados_list_ctx_t *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "rados_nobjects_list_open");
	__atomic_add_fetch(&listings, 1, __ATOMIC_SEQ_CST);
	return real(io, ctx);
}

static struct striped_file *open_on(struct cluster *cl_, const char *name, int flags,
				    const struct striped_layout *l)
{
	struct striped_file *f = NULL;

	assert_int_equal(striped_open(cl_->io, name, flags, l, &f), 0);
	return f;
}

static void write_pattern(struct striped_file *f, uint64_t seed, uint64_t off, size_t len)
{
	uint8_t *buf = malloc(len);

	pattern_fill(buf, len, seed, off);
	assert_int_equal(striped_write(f, buf, len, off), (ssize_t)len);
	free(buf);
}

static void assert_pattern(struct striped_file *f, uint64_t seed, uint64_t off, size_t len)
{
	uint8_t *buf = malloc(len);

	assert_int_equal(striped_read(f, buf, len, off), (ssize_t)len);
	assert_int_equal(pattern_check(buf, len, seed, off), -1);
	free(buf);
}

static uint64_t size_seen_by_fresh_client(const char *name)
{
	struct striped_file *f = open_on(&fresh_c, name, 0, NULL);
	uint64_t size;

	assert_int_equal(striped_stat(f, &size, NULL), 0);
	striped_close(f);
	return size;
}

/* Remove through client B: it succeeds and no object of the file is left. */
static void remove_leaves_nothing(const char *name)
{
	assert_int_equal(striped_remove(b.io, name), 0);
	assert_int_equal(count_objects(b.io, name), 0);
}

/* Let an idle handle let go by itself: shortest idle time, then idle past it. */
static void lapse(struct striped_file *f)
{
	assert_int_equal(striped_file_set_lease(f, LEASE), 0);
	usleep(LAPSE_US);
}

/* ---- a stale handle after another client's truncate ---- */

static void test_write_after_truncate_by_other(void **state)
{
	struct striped_layout l = {64 * KiB, 4, MiB};
	struct striped_file *fa, *fb;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "trunc-other");
	fa = open_on(&a, name, STRIPED_CREATE | STRIPED_EXCL, &l);
	write_pattern(fa, 1, 0, 24 * MiB);
	fb = open_on(&b, name, 0, NULL);
	/* A's handle is idle: asked, it hands its lock over at once. */
	assert_int_equal(striped_truncate(fb, 0), 0);
	/* A's handle knew 24 MiB: its write must still store the size it implies. */
	write_pattern(fa, 1, 0, 12 * KiB);
	assert_int_equal(size_seen_by_fresh_client(name), 12 * KiB);
	{
		struct striped_file *fc = open_on(&fresh_c, name, 0, NULL);

		assert_pattern(fc, 1, 0, 12 * KiB);
		striped_close(fc);
	}
	striped_close(fa);
	striped_close(fb);
	remove_leaves_nothing(name);
}

/* ---- a read past the end this handle knew, after another client grew the file ---- */

static void test_read_past_known_end_after_growth(void **state)
{
	struct striped_layout l = {64 * KiB, 4, 256 * KiB};
	const uint64_t small = 100 * KiB, far = 5 * MiB + 3 * KiB, tail = 70 * KiB;
	const size_t len = far + tail + MiB; /* and a MiB past the new end */
	struct striped_file *fa, *fb;
	uint8_t *buf = malloc(len);
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "grown");
	fa = open_on(&a, name, STRIPED_CREATE | STRIPED_EXCL, &l);
	write_pattern(fa, 3, 0, small);
	/* B writes far past A's end: A's handle still knows 100 KiB; a hole lies between. */
	fb = open_on(&b, name, 0, NULL);
	write_pattern(fb, 3, far, tail);
	/* A dirty buffer: every byte the read returns must be written by it. */
	memset(buf, 0xa5, len);
	assert_int_equal(striped_read(fa, buf, len, 0), (ssize_t)(far + tail));
	assert_int_equal(pattern_check(buf, small, 3, 0), -1);
	for (uint64_t i = small; i < far; i++)
		if (buf[i] != 0)
			fail_msg("byte %llu of the hole reads %#x, not zero", (unsigned long long)i,
				 buf[i]);
	assert_int_equal(pattern_check(buf + far, tail, 3, far), -1);
	free(buf);
	striped_close(fa);
	striped_close(fb);
	remove_leaves_nothing(name);
}

/* ---- a write after another client's remove ---- */

static void test_write_after_remove_by_other(void **state)
{
	struct striped_file *fa;
	char name[64], buf[4096] = {1};
	uint64_t size;

	(void)state;
	unique_name(name, sizeof(name), "rm-other");
	fa = open_on(&a, name, STRIPED_CREATE | STRIPED_EXCL, NULL);
	write_pattern(fa, 2, 0, 5 * MiB);
	assert_int_equal(striped_remove(b.io, name), 0);
	/* Growing, overwriting, reading, stat: all -ESTALE, and nothing comes back. */
	assert_int_equal(striped_write(fa, buf, sizeof(buf), 9 * MiB), -ESTALE);
	assert_int_equal(striped_write(fa, buf, sizeof(buf), 0), -ESTALE);
	assert_int_equal(striped_read(fa, buf, sizeof(buf), 0), -ESTALE);
	assert_int_equal(striped_stat(fa, &size, NULL), -ESTALE);
	assert_int_equal(count_objects(b.io, name), 0);
	striped_close(fa);
	assert_int_equal(count_objects(b.io, name), 0);
}

/* ---- removed and created again, with another layout or the same ---- */

static void recreate_case(const struct striped_layout *again)
{
	struct striped_layout first = {MiB, 2, 4 * MiB};
	struct striped_file *fa, *fa2, *fb;
	char name[64], buf[100] = {7};

	unique_name(name, sizeof(name), "recreate");
	fa = open_on(&a, name, STRIPED_CREATE | STRIPED_EXCL, &first);
	fa2 = open_on(&a, name, 0, NULL);
	write_pattern(fa, 3, 0, 3 * MiB);
	assert_int_equal(striped_remove(b.io, name), 0);
	fb = open_on(&b, name, STRIPED_CREATE | STRIPED_EXCL, again);
	write_pattern(fb, 4, 0, 6 * MiB);
	/* A truncate first (it takes the exclusive lock, not the handle's): refused too. */
	assert_int_equal(striped_truncate(fa2, 1000), -ESTALE);
	assert_int_equal(striped_write(fa, buf, sizeof(buf), 0), -ESTALE);
	assert_int_equal(striped_write(fa, buf, sizeof(buf), 100 * MiB), -ESTALE);
	assert_int_equal(striped_truncate(fa, 1000), -ESTALE);
	assert_int_equal(striped_write_full(fa, buf, sizeof(buf)), -ESTALE);
	/* B's file is untouched by A's stale handles. */
	assert_pattern(fb, 4, 0, 6 * MiB);
	assert_int_equal(size_seen_by_fresh_client(name), 6 * MiB);
	striped_close(fa);
	striped_close(fa2);
	striped_close(fb);
	remove_leaves_nothing(name);
}

static void test_recreated_other_layout(void **state)
{
	struct striped_layout other = {64 * KiB, 8, 512 * KiB};

	(void)state;
	recreate_case(&other);
}

static void test_recreated_same_layout(void **state)
{
	struct striped_layout same = {MiB, 2, 4 * MiB};

	(void)state;
	recreate_case(&same);
}

/* ---- truncating a removed file leaves no trace ---- */

static void test_truncate_removed_file(void **state)
{
	struct striped_file *fa, *fb;
	char name[64], oid[128];

	(void)state;
	unique_name(name, sizeof(name), "trunc-removed");
	striped_object_name(name, 0, oid, sizeof(oid));
	fa = open_on(&a, name, STRIPED_CREATE | STRIPED_EXCL, NULL);
	write_pattern(fa, 5, 0, MiB);
	assert_int_equal(striped_remove(b.io, name), 0);
	assert_int_equal(striped_truncate(fa, 10), -ESTALE);
	assert_int_equal(striped_truncate(fa, 10 * MiB), -ESTALE);
	/* No head was made by the lock requests: the name is free. */
	assert_int_equal(count_objects(b.io, name), 0);
	assert_int_equal(striped_remove(b.io, name), -ENOENT);
	assert_int_equal(striped_open(b.io, name, 0, NULL, &fb), -ENOENT);
	assert_int_equal(count_objects(b.io, name), 0);
	fb = open_on(&b, name, STRIPED_CREATE | STRIPED_EXCL, NULL);
	striped_close(fb);
	striped_close(fa);
	assert_int_equal(striped_remove(b.io, name), 0);
	/* And a remove of a plain object that is no striped file does not lock it. */
	assert_int_equal(rados_write_full(b.io, oid, "x", 1), 0);
	assert_int_equal(striped_remove(b.io, name), -ENODATA);
	assert_int_equal(striped_open(b.io, name, 0, NULL, &fb), -ENODATA);
	{
		char val[8];

		assert_int_equal(rados_getxattr(b.io, oid, "lock.striper.lock", val, sizeof(val)),
				 -ENODATA);
	}
	assert_int_equal(rados_remove(b.io, oid), 0);
}

/* ---- truncate racing extending writers ---- */

#define RACE_WRITES 40
#define RACE_CHUNK (64 * KiB)

struct acked {
	uint64_t off, end, ack_ns;
};

struct race_writer {
	struct cluster conn;
	char name[64];
	int id;
	struct acked w[RACE_WRITES];
	int n;
	int errors;
	int finished;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *race_writer_main(void *arg)
{
	struct race_writer *w = arg;
	struct striped_file *f;
	uint8_t *buf = malloc(RACE_CHUNK);
	int r0 = buf ? striped_open(w->conn.io, w->name, 0, NULL, &f) : -ENOMEM;

	if (r0 == 0 && (r0 = striped_file_set_lease(f, LEASE)) != 0)
		striped_close(f);
	if (r0) {
		/* the test counts what was acked: a writer that never opened adds none */
		fprintf(stderr, "race writer %d: open: %s\n", w->id, strerror(-r0));
		free(buf);
		__atomic_store_n(&w->finished, 1, __ATOMIC_SEQ_CST);
		return (void *)1;
	}
	for (int i = 0; i < RACE_WRITES; i++) {
		uint64_t off = ((uint64_t)i * 2 + (uint64_t)w->id) * RACE_CHUNK;
		ssize_t r;

		pattern_fill(buf, RACE_CHUNK, 9, off);
		r = striped_write(f, buf, RACE_CHUNK, off);
		if (r == (ssize_t)RACE_CHUNK) {
			w->w[w->n++] = (struct acked){off, off + RACE_CHUNK, now_ns()};
		} else {
			w->errors++;
			fprintf(stderr, "race writer %d: %s\n", w->id, strerror((int)-r));
		}
		/* Pauses past the lease let truncates in between the writes. */
		if (i % 8 == 7)
			usleep(LAPSE_US);
	}
	striped_close(f);
	free(buf);
	__atomic_store_n(&w->finished, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

struct truncation {
	uint64_t size, end_ns;
};

static void test_truncate_races_extending_writers(void **state)
{
	struct striped_layout l = {64 * KiB, 3, 192 * KiB};
	static struct race_writer w[2];
	struct truncation done[1000];
	int ndone = 0, busy = 0;
	pthread_t th[2];
	struct striped_file *ft, *fc;
	char name[64];
	uint64_t size;
	uint8_t *buf;

	(void)state;
	unique_name(name, sizeof(name), "race");
	ft = open_on(&b, name, STRIPED_CREATE | STRIPED_EXCL, &l);
	for (int i = 0; i < 2; i++) {
		cluster_connect(&w[i].conn);
		snprintf(w[i].name, sizeof(w[i].name), "%s", name);
		w[i].id = i;
		w[i].n = w[i].errors = w[i].finished = 0;
		assert_int_equal(pthread_create(&th[i], NULL, race_writer_main, &w[i]), 0);
	}
	/* Truncate to random sizes while they write: each waits for the writes in flight, then runs alone. */
	for (int i = 0; i < 1000 && !(__atomic_load_n(&w[0].finished, __ATOMIC_SEQ_CST) &&
					 __atomic_load_n(&w[1].finished, __ATOMIC_SEQ_CST));
	     i++) {
		uint64_t to = (uint64_t)(rand() % 40) * RACE_CHUNK;
		int r = striped_truncate(ft, to);

		if (r == 0)
			done[ndone++] = (struct truncation){to, now_ns()};
		else
			busy++;
		usleep(40000);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		cluster_disconnect(&w[i].conn);
	}
	print_message("race: %d truncates ran, %d refused; writes %d + %d acked\n", ndone, busy,
		      w[0].n, w[1].n);
	assert_true(ndone > 0);
	assert_int_equal(busy, 0);
	/*
	 * Every acknowledged write is there unless a truncate that ended after
	 * its ack cut it (a truncate waits for the writes in flight, so one
	 * begun before the ack may still run after it).
	 */
	fc = open_on(&fresh_c, name, 0, NULL);
	assert_int_equal(striped_stat(fc, &size, NULL), 0);
	buf = malloc(RACE_CHUNK);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < w[k].n; i++) {
			struct acked *x = &w[k].w[i];
			bool cut = false;

			for (int t = 0; t < ndone; t++)
				if (done[t].end_ns > x->ack_ns && done[t].size < x->end)
					cut = true;
			if (cut)
				continue;
			if (x->end > size)
				fail_msg("write [%llu, %llu) acked, size %llu", (unsigned long long)x->off,
					 (unsigned long long)x->end, (unsigned long long)size);
			assert_int_equal(striped_read(fc, buf, RACE_CHUNK, x->off),
					 (ssize_t)RACE_CHUNK);
			assert_int_equal(pattern_check(buf, RACE_CHUNK, 9, x->off), -1);
		}
	free(buf);
	striped_close(fc);
	striped_close(ft);
	assert_int_equal(w[0].errors + w[1].errors, 0);
	remove_leaves_nothing(name);
}

/* ---- libradosstriper against libstriped, both ways ---- */

static void test_radosstriper_excluded(void **state)
{
	struct striped_layout l = STRIPED_LAYOUT_DEFAULT_INIT;
	rados_striper_t rs;
	struct striped_file *fa;
	char name[64], oid[128], data[4096] = {3};

	(void)state;
	unique_name(name, sizeof(name), "rs-excl");
	striped_object_name(name, 0, oid, sizeof(oid));
	assert_int_equal(rados_striper_create(b.io, &rs), 0);
	fa = open_on(&a, name, STRIPED_CREATE | STRIPED_EXCL, &l);
	/* Kept while idle, so the refusals below do not depend on timing. */
	assert_int_equal(striped_file_set_lease(fa, 60), 0);
	write_pattern(fa, 6, 0, 2 * MiB);
	/* Our shared lock keeps libradosstriper's truncate and remove out: they cannot ask. */
	assert_int_equal(rados_striper_trunc(rs, name, 0), -EBUSY);
	assert_int_equal(rados_striper_remove(rs, name), -EBUSY);
	/* Its own writers and ours share the lock: its write goes through. */
	assert_int_equal(rados_striper_write(rs, name, data, sizeof(data), 3 * MiB), 0);
	write_pattern(fa, 6, 4 * MiB, 100);
	lapse(fa);
	/* Our idle handle let go: its truncate runs; our handle learns the size. */
	assert_int_equal(rados_striper_trunc(rs, name, MiB), 0);
	{
		uint64_t size;

		assert_int_equal(striped_stat(fa, &size, NULL), 0);
		assert_int_equal(size, MiB);
	}
	/* The other way: an exclusive holder (as a truncate of either library) keeps both out. */
	lapse(fa);
	assert_int_equal(rados_lock_exclusive(b.io, oid, "striper.lock", "trunc", "", NULL, 0), 0);
	assert_int_equal(rados_striper_write(rs, name, data, sizeof(data), 0), -EBUSY);
	/* Ours waits a moment for the holder to finish, then says so. */
	assert_int_equal(striped_write(fa, data, sizeof(data), 0), -EBUSY);
	assert_int_equal(striped_remove(a.io, name), -EBUSY);
	assert_int_equal(rados_unlock(b.io, oid, "striper.lock", "trunc"), 0);
	assert_int_equal(striped_write(fa, data, sizeof(data), 0), (ssize_t)sizeof(data));
	striped_close(fa);
	assert_int_equal(rados_striper_remove(rs, name), 0);
	assert_int_equal(count_objects(b.io, name), 0);
	rados_striper_destroy(rs);
}

/* ---- an idle handle lets go by itself, then takes its lock back ---- */

/* Try libradosstriper's way (one exclusive lock attempt, no asking) until it works. */
static double seconds_until_exclusive(const char *oid)
{
	uint64_t t0 = now_ns();
	int r;

	while ((r = rados_lock_exclusive(b.io, oid, "striper.lock", "probe", "", NULL, 0)) ==
		       -EBUSY &&
	       now_ns() - t0 < 10000000000ull)
		usleep(20000);
	assert_int_equal(r, 0);
	assert_int_equal(rados_unlock(b.io, oid, "striper.lock", "probe"), 0);
	return (double)(now_ns() - t0) / 1e9;
}

static void test_idle_handle_lets_go(void **state)
{
	struct striped_file *fa, *fb;
	char name[64], oid[128];
	uint64_t size;
	double idle_s;

	(void)state;
	unique_name(name, sizeof(name), "idle");
	striped_object_name(name, 0, oid, sizeof(oid));
	fa = open_on(&a, name, STRIPED_CREATE | STRIPED_EXCL, NULL);
	write_pattern(fa, 7, 0, MiB);
	assert_int_equal(striped_file_set_lease(fa, 0), -EINVAL);
	assert_int_equal(striped_file_set_lease(fa, STRIPED_LEASE_MAX_SECONDS + 1), -EINVAL);
	assert_int_equal(striped_file_set_lease(NULL, LEASE), -EINVAL);
	/* By default (1 s) the lock goes within about a second of the last call. */
	write_pattern(fa, 7, 0, 4096);
	idle_s = seconds_until_exclusive(oid);
	print_message("an idle handle let go of its lock %.2f s after its last call\n", idle_s);
	assert_true(idle_s < 2.0);
	/* A NOWAIT call cannot take it back itself: refused, and taken back for the next try. */
	{
		struct striped_completion *c;
		uint8_t buf[4096];
		int r, tries = 0;

		pattern_fill(buf, sizeof(buf), 7, 0);
		assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
		while ((r = striped_aio_write2(fa, c, buf, sizeof(buf), 0, STRIPED_IO_NOWAIT)) ==
			       -EAGAIN &&
		       tries++ < 500)
			usleep(10000);
		assert_int_equal(r, 0);
		assert_true(tries > 0);
		striped_completion_wait(c);
		assert_int_equal(striped_completion_result(c), (ssize_t)sizeof(buf));
		striped_completion_release(c);
		print_message("a NOWAIT call went through after %d refusals\n", tries);
	}
	/* Another client truncates (it grows here); the handle takes its lock back, new size. */
	fb = open_on(&b, name, 0, NULL);
	assert_int_equal(striped_truncate(fb, 3 * MiB), 0);
	striped_close(fb);
	write_pattern(fa, 7, 3 * MiB, 100);
	assert_int_equal(striped_stat(fa, &size, NULL), 0);
	assert_int_equal(size, 3 * MiB + 100);
	assert_pattern(fa, 7, 0, MiB);
	/* A handle kept busy keeps its lock: libradosstriper's way finds it held. */
	for (int i = 0; i < 10; i++) {
		write_pattern(fa, 7, (uint64_t)i * 4096, 4096);
		assert_int_equal(rados_lock_exclusive(b.io, oid, "striper.lock", "probe", "", NULL,
						      0),
				 -EBUSY);
		usleep(250000);
	}
	striped_close(fa);
	assert_int_equal(striped_remove(b.io, name), 0);
}

/* ---- a writer killed at random points ---- */

#define KILLS 20

static pid_t spawn_writer(const char *name, uint64_t seed, int *ready_fd)
{
	pid_t pid = spawn_helper("STRIPED_SHARED_WRITER", name, seed, "2", ready_fd);

	assert_true(pid >= 0);
	return pid;
}

/* The seed of the file's earlier life, whose bytes must never show again. */
#define EARLIER_SEED(seed) ((seed) + 1000)
/* This many of the kills get an earlier life that was itself a killed writer. */
#define CRASHED_EARLIER_LIVES 5

/* Start a writer on name and SIGKILL it after ms milliseconds of writing. */
static void kill_writer_after(const char *name, uint64_t seed, int ms)
{
	char line[16];
	int fd, status;
	pid_t pid = spawn_writer(name, seed, &fd);

	assert_true(read(fd, line, sizeof(line)) > 0); /* "ready" */
	close(fd);
	usleep((useconds_t)ms * 1000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status));
}

/*
 * The name had an earlier life, then was truncated to nothing, as a file
 * rewritten from scratch is: 8 MiB of other bytes, or a writer of other
 * bytes killed mid-call (its calls in flight may have left bytes past its
 * size, which the truncate must clean: it cleans up to the high-water mark).
 */
static void give_an_earlier_life(const char *name, uint64_t seed, bool crashed)
{
	struct striped_layout l = {64 * KiB, 4, 256 * KiB}; /* shared_writer's */
	struct striped_file *f = open_on(&b, name, STRIPED_CREATE | STRIPED_EXCL, &l);

	if (crashed)
		kill_writer_after(name, EARLIER_SEED(seed), 100 + rand() % 400);
	else
		write_pattern(f, EARLIER_SEED(seed), 0, 8 * MiB);
	assert_int_equal(striped_truncate(f, 0), 0);
	striped_close(f);
}

/*
 * Bytes from off for len are each zero or the killed writer's pattern,
 * never the earlier life's; returns how many were the pattern.
 */
static uint64_t check_bytes(struct striped_file *f, const char *name, uint64_t seed, uint64_t off,
			    uint64_t len, const char *where)
{
	size_t chunk = 4 * MiB;
	uint8_t *buf = malloc(chunk);
	uint64_t end = off + len, data = 0;

	for (; off < end; off += chunk) {
		size_t want = end - off < chunk ? (size_t)(end - off) : chunk;
		ssize_t n = striped_read(f, buf, want, off);

		assert_true(n > 0);
		for (ssize_t i = 0; i < n; i++) {
			uint64_t at = off + (uint64_t)i;

			if (!buf[i])
				continue;
			if (buf[i] != pattern_byte(seed, at))
				fail_msg("%s: %s byte %llu is %u: neither data nor zero%s", name,
					 where, (unsigned long long)at, buf[i],
					 buf[i] == pattern_byte(EARLIER_SEED(seed), at)
						 ? " (the earlier life's)"
						 : "");
			data++;
		}
	}
	free(buf);
	return data;
}

/*
 * Every byte below the size is the pattern or zero. An extension past the
 * end shows, between the old size and its data, zeros or bytes of the
 * writer's calls that were in flight when it was killed (at the offsets
 * they were written to, as if their size update had landed), never bytes
 * of the file's earlier life.
 * @return how many bytes of calls in flight showed after the extension
 */
static uint64_t check_crashed_file(const char *name, uint64_t seed)
{
	struct striped_file *f = open_on(&fresh_c, name, 0, NULL);
	uint64_t size, gap = 3 * MiB + 5, shown;

	assert_int_equal(striped_stat(f, &size, NULL), 0);
	check_bytes(f, name, seed, 0, size, "");
	write_pattern(f, seed, size + gap, 10);
	shown = check_bytes(f, name, seed, size, gap, "after extension, hole");
	striped_close(f);
	return shown;
}

static void test_writer_killed_at_random_points(void **state)
{
	char names[KILLS][64];
	int at_kill_ms[KILLS];
	uint64_t in_flight_shown = 0;

	(void)state;
	if (!getenv("STRIPED_SHARED_WRITER"))
		skip();
	srand((unsigned)getpid());
	for (int k = 0; k < KILLS; k++) {
		unique_name(names[k], sizeof(names[k]), "killed");
		give_an_earlier_life(names[k], 100 + (uint64_t)k, k < CRASHED_EARLIER_LIVES);
		at_kill_ms[k] = 20 + rand() % 600;
		kill_writer_after(names[k], 100 + (uint64_t)k, at_kill_ms[k]);
		in_flight_shown += check_crashed_file(names[k], 100 + (uint64_t)k);
	}
	/* The killed writers' locks are fenced and broken; remove finds every object. */
	for (int k = 0; k < KILLS; k++) {
		assert_int_equal(striped_remove(b.io, names[k]), 0);
		assert_int_equal(count_objects(b.io, names[k]), 0);
	}
	print_message("killed %d writers after 20-620 ms (first at %d ms); %llu bytes of calls in "
		      "flight at the kills showed after an extension\n",
		      KILLS, at_kill_ms[0], (unsigned long long)in_flight_shown);
}

/* ---- bytes past the size, under the high-water mark ---- */

/*
 * What a call that died between its data and its size update leaves: bytes
 * past the size (written here straight into the object, as its data op
 * would have), under the mark the write raised before sending them.
 */
static void leave_bytes_past_the_size(const char *name, const struct striped_layout *l,
				      uint64_t off)
{
	struct striped_extent e;
	char oid[256];
	uint8_t junk[4096];

	memset(junk, 0xee, sizeof(junk));
	assert_int_equal(striped_layout_map(l, off, sizeof(junk), &e, 1), 1);
	assert_true(striped_object_name(name, e.objectno, oid, sizeof(oid)) > 0);
	assert_int_equal(rados_write(b.io, oid, (const char *)junk, sizeof(junk), e.offset), 0);
}

static void assert_zeros(struct striped_file *f, uint64_t off, size_t len)
{
	uint8_t *buf = malloc(len);

	assert_int_equal(striped_read(f, buf, len, off), (ssize_t)len);
	for (size_t i = 0; i < len; i++)
		if (buf[i])
			fail_msg("byte %llu is %u, want 0", (unsigned long long)(off + i), buf[i]);
	free(buf);
}

static uint64_t stored_mark(const char *name)
{
	char head[256], val[32];
	int n;

	assert_true(striped_object_name(name, 0, head, sizeof(head)) > 0);
	n = rados_getxattr(b.io, head, "striper.reserved", val, sizeof(val) - 1);
	assert_true(n > 0);
	val[n] = '\0';
	return strtoull(val, NULL, 10);
}

static void test_bytes_past_the_size_are_cleaned(void **state)
{
	struct striped_layout l = {64 * KiB, 4, 256 * KiB};
	struct striped_file *f;
	char name[64], probe;
	uint64_t size;

	(void)state;
	unique_name(name, sizeof(name), "leftover");
	f = open_on(&a, name, STRIPED_CREATE | STRIPED_EXCL, &l);
	write_pattern(f, 11, 0, MiB);
	striped_close(f);
	/* Growing to 1 MiB raised the mark ahead: 4 MiB further at least. */
	assert_true(stored_mark(name) >= 5 * MiB);

	/* Nobody reads past the size; a truncate growing over the bytes zeroes them. */
	leave_bytes_past_the_size(name, &l, 2 * MiB);
	f = open_on(&fresh_c, name, 0, NULL);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, MiB);
	assert_int_equal(striped_read(f, &probe, 1, 2 * MiB), 0);
	assert_int_equal(striped_truncate(f, 4 * MiB), 0);
	assert_zeros(f, MiB, 3 * MiB);

	/* A truncate shrinking the file cleans them too: an extension then shows zeros. */
	assert_int_equal(striped_truncate(f, MiB), 0);
	assert_int_equal(stored_mark(name), MiB); /* cleaned up to it: the mark comes down */
	write_pattern(f, 11, MiB, MiB);
	leave_bytes_past_the_size(name, &l, 3 * MiB);
	assert_int_equal(striped_truncate(f, 0), 0);
	write_pattern(f, 11, 4 * MiB, 10);
	assert_zeros(f, 0, 4 * MiB);

	/* Remove finds them by the mark, without listing the pool. */
	leave_bytes_past_the_size(name, &l, 6 * MiB);
	striped_close(f);
	assert_int_equal(striped_remove(b.io, name), 0);
	assert_int_equal(count_objects(b.io, name), 0);
}

/* ---- removing a file of more than 65,536 objects lists nothing ---- */

static void test_remove_many_objects_without_listing(void **state)
{
	struct striped_layout l = {64 * KiB, 1, 64 * KiB};
	uint64_t objects = 70000, t0;
	struct striped_file *f;
	char name[64];
	int before;

	(void)state;
	unique_name(name, sizeof(name), "many");
	f = open_on(&a, name, STRIPED_CREATE | STRIPED_EXCL, &l);
	/* Sparse: a few objects written across 70,000 (4.3 GiB with 64 KiB objects). */
	for (uint64_t i = 0; i < objects; i += 9999)
		write_pattern(f, 8, i * 64 * KiB, 100);
	write_pattern(f, 8, objects * 64 * KiB - 100, 100);
	striped_close(f);
	before = __atomic_load_n(&listings, __ATOMIC_SEQ_CST);
	t0 = now_ns();
	assert_int_equal(striped_remove(a.io, name), 0);
	print_message("removed a file of %llu objects in %.1f s\n", (unsigned long long)objects,
		      (double)(now_ns() - t0) / 1e9);
	assert_int_equal(__atomic_load_n(&listings, __ATOMIC_SEQ_CST), before);
	assert_int_equal(count_objects(a.io, name), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_write_after_truncate_by_other),
	    cmocka_unit_test(test_read_past_known_end_after_growth),
	    cmocka_unit_test(test_write_after_remove_by_other),
	    cmocka_unit_test(test_recreated_other_layout),
	    cmocka_unit_test(test_recreated_same_layout),
	    cmocka_unit_test(test_truncate_removed_file),
	    cmocka_unit_test(test_radosstriper_excluded),
	    cmocka_unit_test(test_idle_handle_lets_go),
	    cmocka_unit_test(test_truncate_races_extending_writers),
	    cmocka_unit_test(test_writer_killed_at_random_points),
	    cmocka_unit_test(test_bytes_past_the_size_are_cleaned),
	    cmocka_unit_test(test_remove_many_objects_without_listing),
	};

	cluster_skip_unless_configured();
	/* STRIPED_TEST_FILTER=test_name (a glob) runs only those. */
	if (getenv("STRIPED_TEST_FILTER"))
		cmocka_set_test_filter(getenv("STRIPED_TEST_FILTER"));
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
