// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aio_flush: keep many writes in flight with callbacks, then one flush that
 * completes when all of them have. The callbacks only count (they run on
 * librados' threads and must not block); the main thread waits once, on
 * the flush. The file is then checked with striped_fstat() and removed.
 *
 *   aio_flush POOL NAME      (the cluster from $CEPH_CONF)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <striped.h>

#define BLOCKS 32
#define BLOCK (1u << 20)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int done, failed;

static void write_done(struct striped_completion *c, void *arg)
{
	ssize_t r = striped_completion_result(c);

	(void)arg;
	pthread_mutex_lock(&lock);
	done++;
	failed += r != BLOCK;
	pthread_mutex_unlock(&lock);
	striped_completion_release(c); /* nobody waits on it */
}

int main(int argc, char **argv)
{
	char *buf = malloc((size_t)BLOCKS * BLOCK);
	struct striped_completion *c;
	struct striped_stat st;
	struct striped_file *f;
	rados_ioctx_t io;
	rados_t cl;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: aio_flush POOL NAME\n");
		return 2;
	}
	if ((r = rados_create(&cl, NULL)))
		return 1;
	/*
	 * librados' threads must be shut down on every path out, errors
	 * included. striped_cluster_connect(): an address of its own even in
	 * a process forked after librados was used.
	 */
	if ((r = rados_conf_read_file(cl, NULL)) || (r = striped_cluster_connect(cl)) ||
	    (r = rados_ioctx_create(cl, argv[1], &io))) {
		fprintf(stderr, "aio_flush: connect: %s\n", strerror(-r));
		rados_shutdown(cl);
		return 1;
	}
	if ((r = striped_open(io, argv[2], STRIPED_CREATE | STRIPED_EXCL, NULL, &f))) {
		fprintf(stderr, "aio_flush: %s: %s\n", argv[2], strerror(-r));
		rados_ioctx_destroy(io);
		rados_shutdown(cl);
		return 1;
	}
	memset(buf, 'x', (size_t)BLOCKS * BLOCK);
	for (int i = 0; i < BLOCKS && !r; i++) {
		r = striped_completion_create(write_done, NULL, &c);
		/* Zero copy: buf stays untouched until the flush says all is done. */
		if (!r)
			r = striped_aio_write2(f, c, buf + (size_t)i * BLOCK, BLOCK,
					       (uint64_t)i * BLOCK, STRIPED_IO_ZEROCOPY);
	}
	if (!r)
		r = striped_completion_create(NULL, NULL, &c);
	if (!r && !(r = striped_aio_flush(f, c))) {
		striped_completion_wait(c);
		r = (int)striped_completion_result(c);
		striped_completion_release(c);
	}
	if (!r)
		r = striped_fstat(f, &st, sizeof(st));
	striped_close(f);
	pthread_mutex_lock(&lock);
	if (!r && (done != BLOCKS || failed || st.size != (uint64_t)BLOCKS * BLOCK)) {
		fprintf(stderr, "aio_flush: %d of %d writes done at the flush, %d failed, size %llu\n",
			done, BLOCKS, failed, (unsigned long long)st.size);
		r = -1;
	}
	pthread_mutex_unlock(&lock);
	if (!r)
		r = striped_remove(io, argv[2]);
	if (!r)
		printf("aio_flush: %d writes of 1 MiB, flushed; size %llu, mtime %lld\n", BLOCKS,
		       (unsigned long long)st.size, (long long)st.mtime.tv_sec);
	rados_ioctx_destroy(io);
	rados_shutdown(cl);
	free(buf);
	return r ? 1 : 0;
}
