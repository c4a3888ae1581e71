// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A buffered writer for test_buffer, run as its own process (its own
 * cluster connection): several write disjoint regions of one file at once,
 * or one is killed (SIGKILL) with data still in its window.
 *
 * usage: buffered_writer NAME SEED MODE OFFSET LENGTH
 *   region  open NAME (it exists) with STRIPED_BUFFERED, write the position
 *           pattern over [OFFSET, OFFSET + LENGTH) in calls of 100 KiB + 7,
 *           close with striped_close2(); exit 0 only if every call and the
 *           close succeeded;
 *   kill    open NAME the same way with a 256 MiB window and a dirty age of
 *           60 s, write the pattern over [OFFSET, OFFSET + LENGTH) in 64 KiB
 *           calls, print "ready" and wait to be killed: what the window still
 *           holds then never lands;
 *   fenced-flush, fenced-write, fenced-close
 *           as kill, but stop itself (SIGSTOP) instead, as a paused process
 *           would; once continued (another client fenced it meanwhile), make
 *           one call: striped_flush(), a striped_write() of 4 KiB at OFFSET,
 *           or striped_close2(), then close, and print "first R close R"
 *           (each 0 or -errno);
 *   read    open NAME with a 32 MiB window, read [OFFSET, OFFSET + LENGTH)
 *           in 64 KiB calls, check them against SEED's pattern, and print
 *           "grew KiB": how far resident memory rose above what it was
 *           before the first read (a process of its own: no earlier test
 *           grew its heap first).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster_fixture.h"
#include "striped.h"

#define KiB 1024ull
#define MiB (1ull << 20)

static int write_region(struct striped_file *f, uint64_t seed, uint64_t off, uint64_t len,
			size_t bs)
{
	uint8_t *buf = malloc(bs);

	if (!buf)
		return 1;
	for (uint64_t pos = off; pos < off + len; pos += bs) {
		size_t n = off + len - pos < bs ? (size_t)(off + len - pos) : bs;

		pattern_fill(buf, n, seed, pos);
		if (striped_write(f, buf, n, pos) != (ssize_t)n) {
			free(buf);
			return 1;
		}
	}
	free(buf);
	return 0;
}

/* Stopped with data in the window, continued after a fence: one call, then close. */
static int after_pause(struct striped_file *f, struct cluster *c, const char *call, uint64_t seed,
		       uint64_t off)
{
	uint8_t buf[4096];
	int first, last = 0;

	printf("ready\n");
	fflush(stdout);
	raise(SIGSTOP);
	if (!strcmp(call, "flush")) {
		first = striped_flush(f);
	} else if (!strcmp(call, "write")) {
		pattern_fill(buf, sizeof(buf), seed, off);
		first = (int)striped_write(f, buf, sizeof(buf), off);
		first = first == (int)sizeof(buf) ? 0 : first;
	} else {
		first = striped_close2(f);
		f = NULL;
	}
	if (f)
		last = striped_close2(f);
	printf("first %d close %d\n", first, last);
	fflush(stdout);
	cluster_disconnect(c);
	return 0;
}

static int read_region(struct striped_file *f, uint64_t seed, uint64_t off, uint64_t len)
{
	struct striped_buffer_config cfg = {32 * MiB, 16 * MiB, 200};
	uint8_t *buf = malloc(64 * KiB);
	uint64_t before, peak = 0, now;
	int r = striped_file_set_buffer(f, &cfg, sizeof(cfg));

	before = rss_kib();
	if (!buf || r || !before) {
		free(buf);
		return 1;
	}
	for (uint64_t pos = off; pos < off + len; pos += 64 * KiB) {
		if (striped_read(f, buf, 64 * KiB, pos) != (ssize_t)(64 * KiB) ||
		    pattern_check(buf, 64 * KiB, seed, pos) != -1) {
			fprintf(stderr, "buffered_writer: read at %" PRIu64 " failed\n", pos);
			free(buf);
			return 1;
		}
		now = rss_kib();
		if (now > peak)
			peak = now;
	}
	free(buf);
	printf("grew %" PRIu64 "\n", peak > before ? peak - before : 0);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct striped_buffer_config kill_cfg = {256 * MiB, 0, 60000};
	struct cluster c;
	struct striped_file *f;
	uint64_t seed, off, len;
	bool kill_mode, fenced;
	int r;

	if (argc != 6 || (strcmp(argv[3], "region") && strcmp(argv[3], "kill") &&
			  strcmp(argv[3], "read") && strncmp(argv[3], "fenced-", 7))) {
		fprintf(stderr, "usage: buffered_writer NAME SEED region|kill|read|fenced-flush|"
				"fenced-write|fenced-close OFFSET LENGTH\n");
		return 2;
	}
	seed = strtoull(argv[2], NULL, 10);
	fenced = !strncmp(argv[3], "fenced-", 7);
	kill_mode = !strcmp(argv[3], "kill") || fenced;
	off = strtoull(argv[4], NULL, 10);
	len = strtoull(argv[5], NULL, 10);
	cluster_connect(&c);
	r = striped_open(c.io, argv[1], STRIPED_BUFFERED, NULL, &f);
	if (!r && kill_mode)
		r = striped_file_set_buffer(f, &kill_cfg, sizeof(kill_cfg));
	if (r) {
		fprintf(stderr, "buffered_writer: cannot open %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	if (!strcmp(argv[3], "read")) {
		r = read_region(f, seed, off, len);
		striped_close(f);
		cluster_disconnect(&c);
		return r;
	}
	if (write_region(f, seed, off, len, kill_mode ? 64 * KiB : 100 * KiB + 7)) {
		fprintf(stderr, "buffered_writer: a write failed\n");
		return 1;
	}
	if (fenced)
		return after_pause(f, &c, argv[3] + 7, seed, off);
	if (kill_mode) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	r = striped_close2(f);
	cluster_disconnect(&c);
	if (r)
		fprintf(stderr, "buffered_writer: close: %s\n", strerror(-r));
	return r ? 1 : 0;
}
