// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * librbd, the block peer of the buffered case: an image written (or read)
 * in synchronous calls of bs bytes, one at a time (rbd_write, rbd_read).
 * --buffered turns librbd's cache on (rbd_cache=true, and no writethrough
 * until the first flush: write-back from the first call), and a write run
 * ends with rbd_flush(), timed with it; without it rbd_cache=false. --op
 * create makes an image of --total bytes, --op remove removes it. The image
 * is NAME in the pool; the options and the JSON line are the other
 * programs'; --depth and the layout options mean nothing here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rbd/librbd.h>

#include "bench.h"

struct rb {
	rbd_image_t image;
	bool open;
};

static bool rb_writing(const struct bench *b)
{
	return b->o.op == BENCH_WRITE || b->o.op == BENCH_RANDWRITE;
}

static int rb_call(struct bench *b, uint32_t slot, uint64_t off, uint64_t len)
{
	struct rb *rb = b->priv;
	ssize_t r;

	if (rb_writing(b))
		r = rbd_write(rb->image, off, len, b->bufs[slot]);
	else
		r = rbd_read(rb->image, off, len, b->bufs[slot]);
	if (r < 0)
		return (int)r;
	return (uint64_t)r == len ? 0 : -EIO;
}

/* A write run is over when librbd's cache has written everything back. */
static int rb_finish(struct bench *b)
{
	struct rb *rb = b->priv;

	return rb_writing(b) ? rbd_flush(rb->image) : 0;
}

/* The cache settings, before the image is opened (librbd reads them then). */
static int rb_configure(struct bench *b)
{
	const char *cache = b->o.buffered ? "true" : "false";
	int r = rados_conf_set(b->cluster, "rbd_cache", cache);

	if (!r && b->o.buffered)
		r = rados_conf_set(b->cluster, "rbd_cache_writethrough_until_flush", "false");
	if (!r && b->o.buffered && b->o.window) {
		char size[32];

		snprintf(size, sizeof(size), "%llu", (unsigned long long)b->o.window);
		r = rados_conf_set(b->cluster, "rbd_cache_size", size);
	}
	return r;
}

int main(int argc, char **argv)
{
	static const struct bench_engine engine = {.sync_call = rb_call, .finish = rb_finish};
	struct bench b = {0};
	struct rb rb = {0};
	int r;

	r = bench_parse(&b.o, argc, argv, "librbd");
	if (r)
		return r < 0 ? 2 : 0;
	b.o.sync = true; /* rbd_write/rbd_read: one call at a time */
	b.o.depth = 1;
	r = bench_setup(&b);
	if (r < 0) {
		r = bench_fail("connect", r);
		goto out;
	}
	if (b.o.op == BENCH_REMOVE || b.o.op == BENCH_CREATE) {
		int order = 22; /* 4 MiB objects, as the striped files' */

		r = b.o.op == BENCH_REMOVE ? rbd_remove(b.io, b.o.name)
					   : rbd_create(b.io, b.o.name, b.o.total, &order);
		r = r < 0 && r != -ENOENT ? bench_fail("rbd create/remove", r) : 0;
		goto out;
	}
	r = rb_configure(&b);
	if (!r)
		r = rbd_open(b.io, b.o.name, &rb.image, NULL);
	if (r < 0) {
		r = bench_fail("rbd_open", r);
		goto out;
	}
	rb.open = true;
	b.priv = &rb;
	r = bench_run(&b, &engine);
	if (r < 0) {
		r = bench_fail("I/O", r);
		goto out;
	}
	bench_report(&b);
out:
	if (rb.open)
		rbd_close(rb.image);
	bench_teardown(&b);
	return r;
}
