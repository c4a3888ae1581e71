// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * copy_sync: copy a local file into a striped file and back, synchronously,
 * with scatter-gather on both sides: readv(2) fills two buffers, one
 * striped_writev() sends them (every object write of the call at once),
 * striped_readv() reads the file back into two other buffers, and the copy
 * is compared with the original. The striped file is removed at the end.
 *
 *   copy_sync POOL LOCAL-FILE NAME      (the cluster from $CEPH_CONF)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <striped.h>

#define HALF (4u << 20) /* two buffers of 4 MiB: 8 MiB a call */

static int fail(const char *what, int err)
{
	fprintf(stderr, "copy_sync: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

/* Local file -> striped file, one readv and one writev per 8 MiB. */
static int copy_in(int fd, struct striped_file *f, char *a, char *b, uint64_t *total)
{
	struct iovec iov[2] = {{a, HALF}, {b, HALF}};

	*total = 0;
	for (;;) {
		ssize_t n = readv(fd, iov, 2), w;
		struct iovec out[2] = {{a, 0}, {b, 0}};

		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		/* A short read fills a first, then b. */
		out[0].iov_len = (size_t)n < HALF ? (size_t)n : HALF;
		out[1].iov_len = (size_t)n - out[0].iov_len;
		w = striped_writev(f, out, 2, *total);
		if (w < 0)
			return (int)w;
		*total += (uint64_t)n;
	}
}

/* Striped file -> two buffers, compared with the local file. */
static int check_back(int fd, struct striped_file *f, char *a, char *b, uint64_t total)
{
	char *want = malloc(2 * HALF);
	uint64_t off = 0;
	int r = want ? 0 : -ENOMEM;

	while (!r && off < total) {
		struct iovec iov[2] = {{a, HALF}, {b, HALF}};
		ssize_t n = striped_readv(f, iov, 2, off);

		if (n <= 0) {
			r = n < 0 ? (int)n : -EIO; /* the file ended early */
			break;
		}
		if (pread(fd, want, (size_t)n, (off_t)off) != n ||
		    memcmp(a, want, (size_t)n < HALF ? (size_t)n : HALF) ||
		    ((size_t)n > HALF && memcmp(b, want + HALF, (size_t)n - HALF)))
			r = -EILSEQ;
		off += (uint64_t)n;
	}
	free(want);
	return r;
}

int main(int argc, char **argv)
{
	char *a = malloc(HALF), *b = malloc(HALF);
	struct striped_layout l = {1 << 20, 4, 4 << 20};
	struct striped_file *f;
	rados_ioctx_t io;
	uint64_t total;
	rados_t cl;
	int fd, r;

	if (argc != 4) {
		fprintf(stderr, "usage: copy_sync POOL LOCAL-FILE NAME\n");
		return 2;
	}
	fd = open(argv[2], O_RDONLY);
	if (fd < 0)
		return fail(argv[2], errno);
	r = rados_create(&cl, NULL);
	if (r)
		return fail("rados", r);
	/*
	 * librados' threads must be shut down on every path out, errors
	 * included. striped_cluster_connect(): an address of its own even in
	 * a process forked after librados was used.
	 */
	if ((r = rados_conf_read_file(cl, NULL)) || (r = striped_cluster_connect(cl)) ||
	    (r = rados_ioctx_create(cl, argv[1], &io))) {
		rados_shutdown(cl);
		return fail("connect", r);
	}
	r = striped_open(io, argv[3], STRIPED_CREATE | STRIPED_EXCL, &l, &f);
	if (!r) {
		r = copy_in(fd, f, a, b, &total);
		if (!r)
			r = check_back(fd, f, a, b, total);
		striped_close(f);
		if (!r)
			r = striped_remove(io, argv[3]);
	}
	if (!r)
		printf("copy_sync: %llu bytes in and back, identical\n", (unsigned long long)total);
	rados_ioctx_destroy(io);
	rados_shutdown(cl);
	close(fd);
	free(a);
	free(b);
	return r ? fail("copy", r) : 0;
}
