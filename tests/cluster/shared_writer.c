// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A writer for test_shared's crash checks, run as its own process so it can
 * be killed (SIGKILL) at any point of any call: it writes the position
 * pattern of cluster_fixture.h into one striped file forever, with growing
 * writes, overwrites and writes that leave holes, until it is killed.
 *
 * usage: shared_writer NAME SEED LEASE_SECONDS
 * It prints "ready" once the file is open, so the parent kills it mid-I/O.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cluster_fixture.h"
#include "striped.h"

#define KiB 1024ull

int main(int argc, char **argv)
{
	struct striped_layout l = {64 * KiB, 4, 256 * KiB};
	struct cluster c;
	struct striped_file *f;
	uint64_t seed, end = 0;
	uint8_t *buf;
	size_t max = 3 << 20;

	if (argc != 4) {
		fprintf(stderr, "usage: shared_writer NAME SEED LEASE_SECONDS\n");
		return 2;
	}
	seed = strtoull(argv[2], NULL, 10);
	cluster_connect(&c);
	if (striped_open(c.io, argv[1], STRIPED_CREATE, &l, &f) ||
	    striped_file_set_lease(f, (unsigned)atoi(argv[3]))) {
		fprintf(stderr, "shared_writer: cannot open %s\n", argv[1]);
		return 1;
	}
	buf = malloc(max);
	srand((unsigned)seed);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		size_t len = 1 + (size_t)rand() % max;
		uint64_t off;

		switch (rand() % 3) {
		case 0: /* append */
			off = end;
			break;
		case 1: /* past the end, leaving a hole */
			off = end + (uint64_t)(rand() % (4 << 20));
			break;
		default: /* overwrite */
			off = end ? (uint64_t)rand() % end : 0;
			break;
		}
		pattern_fill(buf, len, seed, off);
		if (striped_write(f, buf, len, off) != (ssize_t)len) {
			/* The file was removed (or this client fenced): stop cleanly. */
			free(buf);
			striped_close(f);
			cluster_disconnect(&c);
			return 1;
		}
		if (off + len > end)
			end = off + len;
	}
}
