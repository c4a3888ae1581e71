// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The buffered mode (STRIPED_BUFFERED) against the real sandbox cluster:
 * write-behind and readahead return the right bytes; memory stays within
 * the window; a failed write-behind is reported, never dropped; and the
 * coherence promised in striped.h holds across independent connections
 * and processes (close-to-open, handover to truncate and remove, what a
 * concurrent reader sees, writers of disjoint ranges, a writer killed with
 * data in its window).
 */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "cluster_fixture.h"
#include "striped.h"

#define KiB 1024ull
#define MiB (1ull << 20)

static const struct striped_layout layout_1m8 = {MiB, 8, 4 * MiB};
static const struct striped_layout layout_64k = {64 * KiB, 3, 256 * KiB};

static struct striped_file *open_buffered(rados_ioctx_t io, const char *name,
					  const struct striped_layout *l, int flags)
{
	struct striped_file *f = NULL;

	assert_int_equal(striped_open(io, name, STRIPED_BUFFERED | flags, l, &f), 0);
	return f;
}

/* The buffered handle's settings, with a dirty age long enough that nothing goes by age. */
static void set_buffer(struct striped_file *f, uint64_t window, uint64_t ra, uint32_t age_ms)
{
	struct striped_buffer_config cfg = {window, ra, age_ms};

	assert_int_equal(striped_file_set_buffer(f, &cfg, sizeof(cfg)), 0);
}

/* Check [off, off + len) of name holds seed's pattern, read by a fresh unbuffered handle. */
static void assert_pattern_fresh(rados_ioctx_t io, const char *name, uint64_t seed, uint64_t off,
				 size_t len, uint64_t want_size)
{
	struct striped_file *f = NULL;
	uint8_t *buf = malloc(len);
	uint64_t size;
	ssize_t n;

	assert_non_null(buf);
	assert_int_equal(striped_open(io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, want_size);
	n = striped_read(f, buf, len, off);
	assert_int_equal(n, (ssize_t)len);
	assert_int_equal(pattern_check(buf, len, seed, off), -1);
	striped_close(f);
	free(buf);
}

/* Write [0, total) in calls of bs bytes (the last shorter), seed's pattern. */
static void write_sequential(struct striped_file *f, uint64_t seed, uint64_t total, size_t bs)
{
	uint8_t *buf = malloc(bs);

	assert_non_null(buf);
	for (uint64_t off = 0; off < total; off += bs) {
		size_t n = total - off < bs ? (size_t)(total - off) : bs;

		pattern_fill(buf, n, seed, off);
		assert_int_equal(striped_write(f, buf, n, off), (ssize_t)n);
	}
	free(buf);
}

/* Read [0, total) in calls of bs bytes and check each against seed's pattern. */
static void read_sequential(struct striped_file *f, uint64_t seed, uint64_t total, size_t bs)
{
	uint8_t *buf = malloc(bs);

	assert_non_null(buf);
	for (uint64_t off = 0; off < total; off += bs) {
		size_t want = total - off < bs ? (size_t)(total - off) : bs;
		ssize_t n = striped_read(f, buf, bs, off);

		assert_int_equal(n, (ssize_t)want);
		if (pattern_check(buf, want, seed, off) != -1)
			fail_msg("wrong bytes at %" PRIu64,
				 off + (uint64_t)pattern_check(buf, want, seed, off));
	}
	assert_int_equal(striped_read(f, buf, bs, total), 0);
	free(buf);
}

/* Offsets of a random reader: spread, and never two in a row. */
static uint64_t next_offset(int i)
{
	uint64_t x = ((uint64_t)i + 1) * 0x9e3779b97f4a7c15ull;

	return x ^ (x >> 29);
}

static void test_sequential_round_trip(void **state)
{
	static const size_t sizes[] = {4 * KiB, 64 * KiB, 100 * KiB + 7, MiB};
	char name[64];
	(void)state;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const struct striped_layout *l = i % 2 ? &layout_64k : &layout_1m8;
		uint64_t total = 24 * MiB + 12345;
		struct striped_file *f;

		unique_name(name, sizeof(name), "buf-seq");
		f = open_buffered(cl.io, name, l, STRIPED_CREATE | STRIPED_EXCL);
		write_sequential(f, i + 1, total, sizes[i]);
		/* Its own reads see the window, and its size view includes it. */
		read_sequential(f, i + 1, total, sizes[i] * 3);
		assert_int_equal(striped_close2(f), 0);
		assert_pattern_fresh(cl.io, name, i + 1, 0, total, total);
		assert_int_equal(striped_remove(cl.io, name), 0);
	}
}

/*
 * A new file of `total` bytes of seed's pattern (8 MiB stripes), then read
 * whole in 64 KiB calls through a buffered handle with the file's throttle
 * at throttle_bytes (0: the default): the RADOS calls the reads made.
 */
static uint64_t sequential_read_calls(const char *name, uint64_t seed, uint64_t total,
				      uint64_t throttle_bytes)
{
	struct striped_io_stats st;
	struct striped_file *f;

	f = open_buffered(cl.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	write_sequential(f, seed, total, 4 * MiB);
	assert_int_equal(striped_close2(f), 0);

	f = open_buffered(cl.io, name, NULL, 0);
	if (throttle_bytes)
		assert_int_equal(striped_file_set_throttle(f, 256, throttle_bytes), 0);
	read_sequential(f, seed, total, 64 * KiB);
	assert_int_equal(striped_file_stats(f, &st, sizeof(st)), 0);
	striped_close(f);
	return st.calls;
}

static void test_readahead_serves_sequential_readers(void **state)
{
	uint64_t total = 32 * MiB, calls;
	struct striped_io_stats st;
	struct striped_file *f;
	char name[64];
	(void)state;

	unique_name(name, sizeof(name), "buf-ra");
	calls = sequential_read_calls(name, 7, total, 0);
	/* 512 reads of 64 KiB: they went to RADOS as a few large reads ahead. */
	if (calls > 64)
		fail_msg("%" PRIu64 " calls to RADOS for 512 sequential reads", calls);

	/* Random reads: nothing read ahead, one call each. */
	f = open_buffered(cl.io, name, NULL, 0);
	for (int i = 0; i < 64; i++) {
		uint64_t off = (next_offset(i) % (total / (4 * KiB))) * 4 * KiB;
		uint8_t buf[4096];

		assert_int_equal(striped_read(f, buf, sizeof(buf), off), 4096);
		assert_int_equal(pattern_check(buf, sizeof(buf), 7, off), -1);
	}
	assert_int_equal(striped_file_stats(f, &st, sizeof(st)), 0);
	assert_int_equal(st.calls, 64);
	assert_true(st.bytes <= 64 * 4 * KiB);
	striped_close(f);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

/*
 * A readahead bound above the file's throttle: the segments past what the
 * throttle lets out at once wait for the next read, and are not given up
 * (a reader would then read each of their bytes itself, a call each).
 */
static void test_readahead_beyond_the_throttle(void **state)
{
	uint64_t calls;
	char name[64];
	(void)state;

	unique_name(name, sizeof(name), "buf-rathr");
	/* Below one 8 MiB segment: one segment in flight at a time. */
	calls = sequential_read_calls(name, 9, 32 * MiB, 4 * MiB);
	if (calls > 16)
		fail_msg("%" PRIu64 " calls to RADOS for 512 sequential reads", calls);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

/* ---- write-behind: memory, errors, the handle's own calls ---- */

static bool under_address_sanitizer(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return true;
#else
	return false;
#endif
}

/* The process's resident memory now, in bytes. */
static uint64_t rss_now(void)
{
	uint64_t kib = rss_kib();

	assert_true(kib > 0);
	return kib * 1024;
}

static void test_memory_stays_within_the_window(void **state)
{
	const uint64_t window = 8 * MiB, total = 192 * MiB;
	uint64_t before, peak = 0;
	uint8_t *buf = malloc(64 * KiB);
	struct striped_file *f;
	char name[64];
	(void)state;

	assert_non_null(buf);
	unique_name(name, sizeof(name), "buf-mem");
	f = open_buffered(cl.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	set_buffer(f, window, 0, 200);
	before = rss_now();
	for (uint64_t off = 0; off < total; off += 64 * KiB) {
		pattern_fill(buf, 64 * KiB, 3, off);
		assert_int_equal(striped_write(f, buf, 64 * KiB, off), (ssize_t)(64 * KiB));
		if (off % MiB == 0 && rss_now() > peak)
			peak = rss_now();
	}
	assert_int_equal(striped_close2(f), 0);
	free(buf);
	/* A full window makes the writer wait: memory follows the window, not the data.
	 * AddressSanitizer keeps freed memory resident in its quarantine, so the
	 * resident size says nothing about the window there; the plain build checks it. */
	if (!under_address_sanitizer() && peak > before + window + 8 * MiB)
		fail_msg("resident memory grew by %" PRIu64 " KiB for a %" PRIu64 " KiB window",
			 (peak - before) / 1024, window / 1024);
	assert_pattern_fresh(cl.io, name, 3, total - MiB, MiB, total);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

static void test_own_truncate_append_discard_see_the_window(void **state)
{
	struct striped_buffer_config cfg = {64 * MiB, 32 * MiB, 60000};
	uint8_t buf[8192];
	struct striped_file *f;
	uint64_t size;
	char name[64];
	(void)state;

	unique_name(name, sizeof(name), "buf-own");
	f = open_buffered(cl.io, name, &layout_64k, STRIPED_CREATE | STRIPED_EXCL);
	assert_int_equal(striped_file_set_buffer(f, &cfg, sizeof(cfg)), 0);
	write_sequential(f, 5, 3 * MiB + 100, 100 * KiB);
	/* Nothing went by age; the size this handle sees includes its window. */
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 3 * MiB + 100);
	/* Truncate: the window lands first, then the file is cut. */
	assert_int_equal(striped_truncate(f, 2 * MiB + 7), 0);
	assert_pattern_fresh(cl.io, name, 5, 0, 2 * MiB + 7, 2 * MiB + 7);
	/* Append after buffered writes: at the end the window made, not the stored one. */
	write_sequential(f, 5, 2 * MiB + 7, 64 * KiB); /* rewrites, still in the window */
	pattern_fill(buf, sizeof(buf), 5, 2 * MiB + 7);
	assert_int_equal(striped_append(f, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	assert_pattern_fresh(cl.io, name, 5, 0, 2 * MiB + 7 + sizeof(buf),
			     2 * MiB + 7 + sizeof(buf));
	/* Discard over bytes still in the window: they land first, then read as zeros. */
	pattern_fill(buf, sizeof(buf), 5, MiB);
	assert_int_equal(striped_write(f, buf, sizeof(buf), MiB), (ssize_t)sizeof(buf));
	assert_int_equal(striped_discard(f, MiB, sizeof(buf)), 0);
	assert_int_equal(striped_read(f, buf, sizeof(buf), MiB), (ssize_t)sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(striped_close2(f), 0);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

static void test_reads_see_the_window(void **state)
{
	struct striped_file *f;
	uint8_t *buf = malloc(12 * MiB);
	char name[64];
	(void)state;

	assert_non_null(buf);
	unique_name(name, sizeof(name), "buf-see");
	f = open_buffered(cl.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	set_buffer(f, 64 * MiB, 32 * MiB, 60000);
	write_sequential(f, 31, 16 * MiB, 4 * MiB);
	assert_int_equal(striped_flush(f), 0);
	/* Read the start: the next bytes are read ahead. */
	assert_int_equal(striped_read(f, buf, 64 * KiB, 0), (ssize_t)(64 * KiB));
	assert_int_equal(striped_read(f, buf, 64 * KiB, 64 * KiB), (ssize_t)(64 * KiB));
	/* Write over bytes that were read ahead: the next reads return the new ones. */
	pattern_fill(buf, 64 * KiB, 32, 2 * MiB);
	assert_int_equal(striped_write(f, buf, 64 * KiB, 2 * MiB), (ssize_t)(64 * KiB));
	assert_int_equal(striped_read(f, buf, 4 * MiB, 128 * KiB), (ssize_t)(4 * MiB));
	assert_int_equal(pattern_check(buf, 2 * MiB - 128 * KiB, 31, 128 * KiB), -1);
	assert_int_equal(pattern_check(buf + 2 * MiB - 128 * KiB, 64 * KiB, 32, 2 * MiB), -1);
	assert_int_equal(
	    pattern_check(buf + 2 * MiB - 64 * KiB, 2 * MiB - 64 * KiB, 31, 2 * MiB + 64 * KiB),
	    -1);
	/* Past the stored end, a write still in the window: a hole of zeros, then it. */
	pattern_fill(buf, 1000, 33, 20 * MiB);
	assert_int_equal(striped_write(f, buf, 1000, 20 * MiB), 1000);
	memset(buf, 0xee, 12 * MiB);
	assert_int_equal(striped_read(f, buf, 12 * MiB, 10 * MiB), (ssize_t)(10 * MiB + 1000));
	assert_int_equal(pattern_check(buf, 6 * MiB, 31, 10 * MiB), -1);
	for (uint64_t i = 6 * MiB; i < 10 * MiB; i++)
		if (buf[i])
			fail_msg("byte %" PRIu64 " of the hole is %u", (uint64_t)(10 * MiB + i),
				 buf[i]);
	assert_int_equal(pattern_check(buf + 10 * MiB, 1000, 33, 20 * MiB), -1);
	assert_int_equal(striped_close2(f), 0);
	assert_int_equal(striped_remove(cl.io, name), 0);
	free(buf);
}

static void aio_done(struct striped_completion *c, void *arg)
{
	(void)c;
	(*(int *)arg)++;
}

static void test_aio_calls_go_through_the_window(void **state)
{
	struct striped_completion *c;
	struct striped_file *f;
	uint8_t *w = malloc(3 * MiB), *r = malloc(3 * MiB);
	struct iovec iov[2];
	char name[64];
	int calls = 0;
	(void)state;

	assert_true(w && r);
	unique_name(name, sizeof(name), "buf-aio");
	f = open_buffered(cl.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	set_buffer(f, 64 * MiB, 32 * MiB, 60000);
	pattern_fill(w, 3 * MiB, 9, 0);
	/* A write completes once its bytes are in the window: before the call returns. */
	assert_int_equal(striped_completion_create(aio_done, &calls, &c), 0);
	assert_int_equal(striped_aio_write(f, c, w, 2 * MiB, 0), 0);
	assert_int_equal(striped_completion_is_complete(c), 1);
	assert_int_equal(striped_completion_result(c), 2 * MiB);
	assert_int_equal(striped_aio_write(f, c, w, MiB, 0), -EBUSY); /* used */
	striped_completion_release(c);
	iov[0] = (struct iovec){w + 2 * MiB, 1000};
	iov[1] = (struct iovec){w + 2 * MiB + 1000, MiB - 1000};
	assert_int_equal(striped_completion_create(aio_done, &calls, &c), 0);
	assert_int_equal(striped_aio_writev(f, c, iov, 2, 2 * MiB), 0);
	assert_int_equal(striped_completion_result(c), MiB);
	striped_completion_release(c);
	/* An aio read sees the window (nothing was sent: the age is 60 s). */
	memset(r, 0xee, 3 * MiB);
	assert_int_equal(striped_completion_create(aio_done, &calls, &c), 0);
	assert_int_equal(striped_aio_read(f, c, r, 3 * MiB, 0), 0);
	striped_completion_wait(c);
	assert_int_equal(striped_completion_result(c), 3 * MiB);
	assert_memory_equal(r, w, 3 * MiB);
	striped_completion_release(c);
	/* A flush sends the window; once it completed, a fresh client sees it all. */
	assert_int_equal(striped_completion_create(aio_done, &calls, &c), 0);
	assert_int_equal(striped_aio_flush(f, c), 0);
	striped_completion_wait(c);
	assert_int_equal(striped_completion_result(c), 0);
	striped_completion_release(c);
	assert_int_equal(calls, 4);
	assert_pattern_fresh(cl.io, name, 9, 0, 3 * MiB, 3 * MiB);
	assert_int_equal(striped_close2(f), 0);
	assert_int_equal(striped_remove(cl.io, name), 0);
	free(w);
	free(r);
}

static void test_settings_are_checked(void **state)
{
	struct striped_buffer_config cfg = STRIPED_BUFFER_CONFIG_INIT;
	struct striped_file *f, *plain;
	char name[64];
	(void)state;

	unique_name(name, sizeof(name), "buf-cfg");
	f = open_buffered(cl.io, name, NULL, STRIPED_CREATE | STRIPED_EXCL);
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &plain), 0);
	assert_int_equal(striped_file_set_buffer(plain, &cfg, sizeof(cfg)), -EINVAL);
	assert_int_equal(striped_file_set_buffer(NULL, &cfg, sizeof(cfg)), -EINVAL);
	assert_int_equal(striped_file_set_buffer(f, NULL, sizeof(cfg)), -EINVAL);
	assert_int_equal(striped_file_set_buffer(f, &cfg, 4), -EINVAL);
	assert_int_equal(striped_file_set_buffer(f, &cfg, sizeof(cfg)), 0);
	cfg.window = 512 * KiB;
	assert_int_equal(striped_file_set_buffer(f, &cfg, sizeof(cfg)), -EINVAL);
	cfg = (struct striped_buffer_config)STRIPED_BUFFER_CONFIG_INIT;
	cfg.readahead_max = cfg.window + 1;
	assert_int_equal(striped_file_set_buffer(f, &cfg, sizeof(cfg)), -EINVAL);
	cfg = (struct striped_buffer_config)STRIPED_BUFFER_CONFIG_INIT;
	cfg.dirty_age_ms = 60001;
	assert_int_equal(striped_file_set_buffer(f, &cfg, sizeof(cfg)), -EINVAL);
	/* A caller that knows only the window gets the defaults for the rest. */
	cfg.window = 4 * MiB;
	assert_int_equal(striped_file_set_buffer(f, &cfg, sizeof(cfg.window)), 0);
	assert_int_equal(striped_open(cl.io, name, 0x80, NULL, &plain), -EINVAL);
	striped_close(plain);
	assert_int_equal(striped_close2(f), 0);
	assert_int_equal(striped_close2(NULL), 0);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

/* ---- coherence across clients ---- */

static void test_close_to_open(void **state)
{
	struct cluster other;
	struct striped_file *w;
	uint64_t total = 9 * MiB + 333;
	char name[64];
	(void)state;

	cluster_connect(&other);
	unique_name(name, sizeof(name), "buf-cto");
	w = open_buffered(other.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	set_buffer(w, 64 * MiB, 32 * MiB, 60000);
	write_sequential(w, 11, total, 64 * KiB);
	/* After the flush returned, a handle opened on another connection sees it all. */
	assert_int_equal(striped_flush(w), 0);
	assert_pattern_fresh(cl.io, name, 11, 0, total, total);
	write_sequential(w, 11, 2 * total, 64 * KiB);
	assert_int_equal(striped_close2(w), 0);
	assert_pattern_fresh(cl.io, name, 11, 0, 2 * total, 2 * total);
	cluster_disconnect(&other);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

struct watcher {
	const char *name;
	uint64_t seed;
	atomic_bool stop; /* set by either thread */
	int reads;
	uint64_t max_size;
};

/* Another client reads the file as a buffered handle writes it: every byte new, or zero. */
static void *watch_main(void *arg)
{
	struct watcher *wt = arg;
	struct cluster c;
	struct striped_file *f = NULL;
	uint8_t *buf = malloc(64 * MiB);

	cluster_connect(&c);
	while (striped_open(c.io, wt->name, 0, NULL, &f) != 0)
		usleep(1000);
	while (!wt->stop) {
		uint64_t size;
		ssize_t n;

		if (striped_stat(f, &size, NULL) || size > 64 * MiB)
			break;
		n = striped_read(f, buf, size, 0);
		if (n < 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] && buf[i] != pattern_byte(wt->seed, (uint64_t)i)) {
				fprintf(stderr, "byte %zd is %u\n", i, buf[i]);
				wt->max_size = UINT64_MAX;
				wt->stop = true;
			}
		if (wt->max_size != UINT64_MAX && size > wt->max_size)
			wt->max_size = size;
		wt->reads++;
	}
	striped_close(f);
	cluster_disconnect(&c);
	free(buf);
	return NULL;
}

static void test_concurrent_reader_sees_new_bytes_or_zeros(void **state)
{
	struct watcher wt = {.seed = 13};
	struct striped_file *w;
	pthread_t th;
	char name[64];
	(void)state;

	unique_name(name, sizeof(name), "buf-conc");
	w = open_buffered(cl.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	wt.name = name;
	assert_int_equal(pthread_create(&th, NULL, watch_main, &wt), 0);
	/* Slowly enough that the reader reads it many times meanwhile. */
	for (uint64_t off = 0; off < 48 * MiB; off += 2 * MiB) {
		uint8_t *buf = malloc(2 * MiB);

		pattern_fill(buf, 2 * MiB, 13, off);
		for (uint64_t k = 0; k < 2 * MiB; k += 64 * KiB)
			assert_int_equal(striped_write(w, buf + k, 64 * KiB, off + k),
					 (ssize_t)(64 * KiB));
		free(buf);
		usleep(20 * 1000);
	}
	assert_int_equal(striped_close2(w), 0);
	usleep(200 * 1000);
	wt.stop = true;
	pthread_join(th, NULL);
	assert_true(wt.max_size != UINT64_MAX);
	assert_true(wt.reads > 0);
	print_message("a concurrent reader read %d times, saw up to %" PRIu64 " bytes\n", wt.reads,
		      wt.max_size);
	assert_pattern_fresh(cl.io, name, 13, 0, 48 * MiB, 48 * MiB);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

/* A buffered holder with data in its window, on a connection of its own. */
static struct striped_file *holder_with_dirty_window(struct cluster *other, const char *name,
						     uint64_t seed, uint64_t len)
{
	struct striped_file *w;

	cluster_connect(other);
	w = open_buffered(other->io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	set_buffer(w, 64 * MiB, 32 * MiB, 60000);
	/* Less than a stripe (8 MiB): nothing is sent until the lock is asked for. */
	write_sequential(w, seed, len, 64 * KiB);
	return w;
}

static void test_truncate_by_another_client_lands_the_window_first(void **state)
{
	const uint64_t len = 8 * MiB - 100 * KiB;
	struct cluster other;
	struct striped_file *w, *t;
	uint64_t t0, took_ms;
	char name[64];
	(void)state;

	unique_name(name, sizeof(name), "buf-trunc");
	w = holder_with_dirty_window(&other, name, 17, len);
	/* Past the idle time (1 s): a holder with unsent data keeps its lock anyway. */
	usleep(1500 * 1000);
	/* The truncating client asks; the holder sends its window, then lets go. */
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &t), 0);
	t0 = realtime_ns();
	assert_int_equal(striped_truncate(t, 3 * MiB + 1), 0);
	took_ms = (realtime_ns() - t0) / 1000000;
	striped_close(t);
	assert_pattern_fresh(cl.io, name, 17, 0, 3 * MiB + 1, 3 * MiB + 1);
	/* The holder goes on: its lock taken back, the new size learned. */
	write_sequential(w, 17, 5 * MiB, MiB);
	assert_int_equal(striped_close2(w), 0);
	assert_pattern_fresh(cl.io, name, 17, 0, 5 * MiB, 5 * MiB);
	cluster_disconnect(&other);
	assert_int_equal(striped_remove(cl.io, name), 0);
	print_message("truncate behind a buffered holder with %" PRIu64 " KiB unsent: %" PRIu64
		      " ms\n",
		      len / 1024, took_ms);
	assert_true(took_ms < 5000);
}

/* The handle's own truncate, on a thread: when it began and ended. */
struct own_truncate {
	struct striped_file *f;
	uint64_t size;
	_Atomic uint64_t began_ns; /* polled by the test's thread */
	uint64_t ended_ns;
	int r;
};

static void *own_truncate_run(void *arg)
{
	struct own_truncate *t = arg;

	t->began_ns = realtime_ns();
	t->r = striped_truncate(t->f, t->size);
	t->ended_ns = realtime_ns();
	return NULL;
}

/*
 * A write made while the handle's own truncate runs enters the window only
 * once the truncate took the lock back. Acknowledged during the truncate's
 * drain (the lock still held then), it was sent only after the truncate let
 * go of the lock, so another client's truncate could run in between and the
 * write land after it, though it was acknowledged before that truncate began
 * (found by the thrasher, K2). The drain is made long: 96 MiB unsent (about
 * 220 ms here). The write is let go of a moment before striped_truncate()
 * returns, and on a busy host that moment may last: the write must return
 * in the second half of the truncate's time (it returned a few ms in when
 * it did not wait), not within a fixed 10 ms of its end, which a thread
 * held back by the scheduler can outlast.
 */
static void test_write_waits_for_own_truncate(void **state)
{
	const size_t dirty = 96 * MiB;
	struct own_truncate t = {0};
	struct striped_file *f;
	uint8_t *buf = malloc(dirty);
	uint64_t wrote_ns, began_write_ns;
	char name[64];
	pthread_t th;
	(void)state;

	assert_non_null(buf);
	unique_name(name, sizeof(name), "buf-own-trunc");
	f = open_buffered(cl.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	set_buffer(f, 128 * MiB, 0, 60000);
	pattern_fill(buf, dirty, 22, 0);
	assert_int_equal(striped_write(f, buf, dirty, 0), (ssize_t)dirty);
	pattern_fill(buf, 4096, 23, 0);
	t.f = f;
	t.size = 0;
	assert_int_equal(pthread_create(&th, NULL, own_truncate_run, &t), 0);
	while (!t.began_ns)
		usleep(100);
	usleep(2000);
	began_write_ns = realtime_ns();
	assert_int_equal(striped_write(f, buf, 4096, 0), 4096);
	wrote_ns = realtime_ns();
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(t.r, 0);
	print_message("own truncate behind 96 MiB unsent: %" PRIu64 " ms; the write began %" PRIu64
		      " ms in and returned %" PRIu64 " ms in\n",
		      (t.ended_ns - t.began_ns) / 1000000, (began_write_ns - t.began_ns) / 1000000,
		      (wrote_ns - t.began_ns) / 1000000);
	/* The write began while the truncate ran (else this proves nothing), and waited for it. */
	assert_true(began_write_ns + 20 * 1000000 < t.ended_ns);
	assert_true(wrote_ns - t.began_ns >= (t.ended_ns - t.began_ns) / 2);
	assert_int_equal(striped_close2(f), 0);
	assert_pattern_fresh(cl.io, name, 23, 0, 4096, 4096);
	assert_int_equal(striped_remove(cl.io, name), 0);
	free(buf);
}

/*
 * A buffered aio read enters the handle once: its internal read used to
 * enter a second time, and when the handle's own aio truncate closed the
 * gate in between, the truncate waited for the read's first entry and the
 * read for the gate, for ever (found by the thrasher's buffered aio client;
 * a hang within a few hundred rounds). A watchdog turns a hang into a failure.
 */
static atomic_int aio_rounds_done; /* read by the watchdog's thread */

static void *aio_rounds_watchdog(void *arg)
{
	int last = -1;

	(void)arg;
	for (;;) {
		sleep(30);
		if (aio_rounds_done < 0)
			return NULL;
		if (aio_rounds_done == last) {
			fprintf(stderr, "aio reads beside the handle's own truncates: no progress in "
					"30 s after %d rounds: a call hangs\n", last);
			abort();
		}
		last = aio_rounds_done;
	}
}

static void test_aio_reads_beside_own_truncates(void **state)
{
	enum { ROUNDS = 1500, CALLS = 4 };
	static uint8_t bufs[CALLS][64 * 1024];
	struct striped_completion *c[CALLS];
	struct striped_file *f;
	pthread_t dog;
	char name[64];
	(void)state;

	unique_name(name, sizeof(name), "buf-aio-trunc");
	f = open_buffered(cl.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	pattern_fill(bufs[0], sizeof(bufs[0]), 31, 0);
	assert_int_equal(striped_write(f, bufs[0], sizeof(bufs[0]), 0), (ssize_t)sizeof(bufs[0]));
	aio_rounds_done = 0;
	assert_int_equal(pthread_create(&dog, NULL, aio_rounds_watchdog, NULL), 0);
	for (int round = 0; round < ROUNDS; round++) {
		for (int i = 0; i < CALLS; i++) {
			assert_int_equal(striped_completion_create(NULL, NULL, &c[i]), 0);
			if (i % 2 == 0)
				assert_int_equal(striped_aio_truncate(f, c[i], (uint64_t)(round % 7) * 9000), 0);
			else
				assert_int_equal(striped_aio_read(f, c[i], bufs[i], sizeof(bufs[i]), 0), 0);
		}
		for (int i = 0; i < CALLS; i++) {
			assert_int_equal(striped_completion_wait(c[i]), 0);
			assert_true(striped_completion_result(c[i]) >= 0);
			striped_completion_release(c[i]);
		}
		aio_rounds_done = round + 1;
	}
	aio_rounds_done = -1;
	assert_int_equal(pthread_detach(dog), 0);
	assert_int_equal(striped_close2(f), 0);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

static void test_remove_by_another_client(void **state)
{
	struct cluster other;
	struct striped_file *w;
	uint8_t buf[4096];
	char name[64];
	(void)state;

	unique_name(name, sizeof(name), "buf-rm");
	w = holder_with_dirty_window(&other, name, 19, 5 * MiB);
	assert_int_equal(striped_remove(cl.io, name), 0);
	assert_int_equal(count_objects(cl.io, name), 0);
	/* The file is gone: the handle says so, and nothing of it comes back. */
	pattern_fill(buf, sizeof(buf), 19, 0);
	assert_int_equal(striped_write(w, buf, sizeof(buf), 0), -ESTALE);
	assert_int_equal(striped_read(w, buf, sizeof(buf), 0), -ESTALE);
	assert_int_equal(striped_close2(w), 0); /* its window had landed before the remove */
	assert_int_equal(count_objects(cl.io, name), 0);
	cluster_disconnect(&other);
}

/*
 * A buffered reader has bytes read ahead when another client rewrites the
 * file from scratch: asked for its lock (it holds it), or after it let go
 * by itself (idle: the rewrite does not need to ask).
 */
static void earlier_life_case(bool idle_first)
{
	const uint64_t total = 32 * MiB;
	struct cluster other;
	struct striped_file *f, *r;
	uint8_t *buf = malloc(64 * KiB);
	char name[64];

	assert_non_null(buf);
	unique_name(name, sizeof(name), "buf-life");
	f = open_buffered(cl.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	write_sequential(f, 21, total, 4 * MiB);
	assert_int_equal(striped_close2(f), 0);
	/* A buffered reader on its own connection reads the start: more is read ahead. */
	cluster_connect(&other);
	r = open_buffered(other.io, name, NULL, 0);
	for (uint64_t off = 0; off < 4 * MiB; off += 64 * KiB) {
		assert_int_equal(striped_read(r, buf, 64 * KiB, off), (ssize_t)(64 * KiB));
		assert_int_equal(pattern_check(buf, 64 * KiB, 21, off), -1);
	}
	if (idle_first)
		usleep(1500 * 1000);
	/* Another client rewrites the file from scratch with other bytes. */
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_truncate(f, 0), 0);
	write_sequential(f, 22, total, 4 * MiB);
	striped_close(f);
	/* The reader goes on where it was: it reads the new bytes, never the old ones. */
	for (uint64_t off = 4 * MiB; off < total; off += 64 * KiB) {
		assert_int_equal(striped_read(r, buf, 64 * KiB, off), (ssize_t)(64 * KiB));
		if (pattern_check(buf, 64 * KiB, 22, off) != -1)
			fail_msg("read at %" PRIu64 " returned bytes of the file's earlier life"
				 " (old pattern: %s)",
				 off, pattern_check(buf, 64 * KiB, 21, off) == -1 ? "yes" : "no");
	}
	striped_close(r);
	cluster_disconnect(&other);
	assert_int_equal(striped_remove(cl.io, name), 0);
	free(buf);
}

static void test_readahead_never_returns_an_earlier_life(void **state)
{
	(void)state;
	earlier_life_case(false);
	earlier_life_case(true);
}

/* ---- processes: disjoint writers, a writer killed, a writer fenced ---- */

/* Run buffered_writer NAME SEED MODE OFF LEN; its stdout on *out_fd. */
static pid_t spawn_buffered(const char *name, uint64_t seed, const char *mode, uint64_t off,
			    uint64_t len, int *out_fd)
{
	char off_s[32], len_s[32];
	pid_t pid;

	snprintf(off_s, sizeof(off_s), "%" PRIu64, off);
	snprintf(len_s, sizeof(len_s), "%" PRIu64, len);
	pid = spawn_helper_args("STRIPED_BUFFERED_WRITER", name, seed, mode, off_s, len_s, out_fd);
	assert_true(pid > 0);
	return pid;
}

/*
 * A reader's memory too, in a process of its own (this one's heap grew in
 * earlier tests): what it read ahead came in librados' buffers, which glibc
 * keeps on its heaps once freed; the handle hands them back as it goes.
 */
static void test_reader_memory_stays_within_the_window(void **state)
{
	const uint64_t window = 32 * MiB, total = 512 * MiB;
	uint64_t grew_kib = 0;
	struct striped_file *f;
	char name[64], line[64];
	int fd, status;
	FILE *out;
	pid_t pid;
	(void)state;

	unique_name(name, sizeof(name), "buf-rmem");
	f = open_buffered(cl.io, name, NULL, STRIPED_CREATE | STRIPED_EXCL);
	write_sequential(f, 29, total, 4 * MiB);
	assert_int_equal(striped_close2(f), 0);
	pid = spawn_buffered(name, 29, "read", 0, total, &fd);
	out = fdopen(fd, "r");
	assert_non_null(out);
	assert_non_null(fgets(line, sizeof(line), out));
	fclose(out);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(sscanf(line, "grew %" SCNu64, &grew_kib), 1);
	print_message("a buffered reader of %" PRIu64 " MiB, %" PRIu64
		      " MiB window: resident memory grew by %" PRIu64 " KiB\n",
		      (uint64_t)(total / MiB), (uint64_t)(window / MiB), grew_kib);
	if (!under_address_sanitizer() && grew_kib * 1024 > window + window / 10)
		fail_msg("a reader's resident memory grew by %" PRIu64 " KiB for a %" PRIu64
			 " KiB window",
			 grew_kib, window / 1024);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

static void test_disjoint_writers_lose_nothing(void **state)
{
	/* Regions that end mid-block: neighbours share blocks, never bytes. */
	const uint64_t region = 3 * MiB + 12345;
	struct striped_file *f;
	pid_t pids[4];
	int fds[4], status;
	char name[64];
	(void)state;

	unique_name(name, sizeof(name), "buf-disj");
	f = open_buffered(cl.io, name, &layout_64k, STRIPED_CREATE | STRIPED_EXCL);
	striped_close(f);
	for (int i = 0; i < 4; i++)
		pids[i] = spawn_buffered(name, 23, "region", (uint64_t)i * region, region, &fds[i]);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		close(fds[i]);
	}
	assert_pattern_fresh(cl.io, name, 23, 0, 4 * region, 4 * region);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

/* Wait for the helper's "ready". */
static void wait_ready(int fd)
{
	char line[16];

	assert_true(read(fd, line, sizeof(line)) > 0);
}

static void test_killed_writer_leaves_new_bytes_or_nothing(void **state)
{
	const uint64_t len = 40 * MiB + 5000;
	struct striped_file *f;
	uint64_t size, data = 0;
	uint8_t *buf = malloc(4 * MiB);
	int fd, status;
	char name[64];
	pid_t pid;
	(void)state;

	assert_non_null(buf);
	unique_name(name, sizeof(name), "buf-kill");
	/* An earlier life, then the file emptied, as a rewrite from scratch does. */
	f = open_buffered(cl.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	write_sequential(f, 1025, 64 * MiB, 4 * MiB);
	assert_int_equal(striped_truncate(f, 0), 0);
	striped_close(f);
	pid = spawn_buffered(name, 25, "kill", 0, len, &fd);
	wait_ready(fd);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(fd);
	assert_true(WIFSIGNALED(status));
	/* Its whole stripes were sent; the rest of its window died with it. */
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_true(size <= len);
	for (uint64_t off = 0; off < size; off += 4 * MiB) {
		ssize_t n = striped_read(f, buf, 4 * MiB, off);

		assert_true(n > 0);
		for (ssize_t i = 0; i < n; i++) {
			uint64_t at = off + (uint64_t)i;

			if (buf[i] == pattern_byte(25, at) && buf[i])
				data++;
			else if (buf[i])
				fail_msg("byte %" PRIu64 " is %u: neither the writer's nor zero%s",
					 at, buf[i],
					 buf[i] == pattern_byte(1025, at) ? " (the earlier life's)"
									  : "");
		}
	}
	striped_close(f);
	print_message("a buffered writer killed with %" PRIu64 " MiB written: size %" PRIu64
		      " MiB, %" PRIu64 " MiB of its bytes landed\n",
		      len >> 20, size >> 20, data >> 20);
	/* Its lock is fenced and broken by the remove; nothing is left. */
	assert_int_equal(striped_remove(cl.io, name), 0);
	assert_int_equal(count_objects(cl.io, name), 0);
	free(buf);
}

static void fenced_case(const char *mode)
{
	struct striped_file *f;
	uint64_t size;
	int fd, status, first = 1, last = 1;
	char name[64], line[64] = "";
	ssize_t n;
	pid_t pid;

	unique_name(name, sizeof(name), "buf-fence");
	f = open_buffered(cl.io, name, &layout_1m8, STRIPED_CREATE | STRIPED_EXCL);
	striped_close(f);
	pid = spawn_buffered(name, 27, mode, 0, 6 * MiB, &fd);
	wait_ready(fd);
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	assert_true(WIFSTOPPED(status));
	/* Another client truncates: the stopped holder cannot answer, so it is fenced. */
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_truncate(f, 0), 0);
	kill(pid, SIGCONT);
	n = read(fd, line, sizeof(line) - 1);
	assert_true(n > 0);
	line[n] = '\0';
	assert_int_equal(sscanf(line, "first %d close %d", &first, &last), 2);
	waitpid(pid, &status, 0);
	close(fd);
	/* Its unsent bytes are lost, and it says so at its next call, never success. */
	if (first >= 0)
		fail_msg("%s: the fenced writer's first call returned %d", mode, first);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 0);
	assert_int_equal(count_objects(cl.io, name), 1); /* the head only */
	striped_close(f);
	print_message("%s: first call %d (%s), close %d\n", mode, first, strerror(-first), last);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

static void test_fenced_writer_reports_lost_data(void **state)
{
	(void)state;
	fenced_case("fenced-flush");
	fenced_case("fenced-write");
	fenced_case("fenced-close");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sequential_round_trip),
	    cmocka_unit_test(test_readahead_serves_sequential_readers),
	    cmocka_unit_test(test_readahead_beyond_the_throttle),
	    cmocka_unit_test(test_memory_stays_within_the_window),
	    cmocka_unit_test(test_own_truncate_append_discard_see_the_window),
	    cmocka_unit_test(test_reads_see_the_window),
	    cmocka_unit_test(test_aio_calls_go_through_the_window),
	    cmocka_unit_test(test_settings_are_checked),
	    cmocka_unit_test(test_close_to_open),
	    cmocka_unit_test(test_concurrent_reader_sees_new_bytes_or_zeros),
	    cmocka_unit_test(test_truncate_by_another_client_lands_the_window_first),
	    cmocka_unit_test(test_write_waits_for_own_truncate),
	    cmocka_unit_test(test_aio_reads_beside_own_truncates),
	    cmocka_unit_test(test_remove_by_another_client),
	    cmocka_unit_test(test_readahead_never_returns_an_earlier_life),
	    cmocka_unit_test(test_reader_memory_stays_within_the_window),
	    cmocka_unit_test(test_disjoint_writers_lose_nothing),
	    cmocka_unit_test(test_killed_writer_leaves_new_bytes_or_nothing),
	    cmocka_unit_test(test_fenced_writer_reports_lost_data),
	};

	cluster_skip_unless_configured();
	return cmocka_run_group_tests(tests, cluster_group_setup, cluster_group_teardown);
}
