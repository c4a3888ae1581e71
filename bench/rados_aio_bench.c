// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ceiling: raw librados aio with `depth` object requests in flight. Call
 * i goes to object NAME.%016llx number off / object_size at off %
 * object_size, the objects libstriped's default layout would use, so the
 * OSDs see the same objects and sizes; only the striping layer is missing.
 * With --zero-copy, writes go through librados' C++ API with the slot's
 * buffer as a static bufferlist (rados_zc.cc): the ceiling without the one
 * copy the C API makes of every byte. --op append appends bs bytes to one
 * object (NAME.0000000000000000), total / bs times (rados_aio_append, or
 * with --sync rados_append); --sync makes every op one synchronous call.
 * --with-size (sync appends): each call also stores its end as an xattr of
 * a second object, NAME.size, with a compare-and-set as libstriped's size
 * update, both operations sent at once and waited for: the floor of any
 * writer that makes two operations per call.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct raw_slot {
	struct bench *b;
	uint32_t slot;
	rados_completion_t rc;
};

struct raw {
	struct raw_slot *slots;
	atomic_uint_fast64_t in_flight;
	atomic_uint_fast64_t max_in_flight;
};

static void note_in_flight(struct raw *raw)
{
	uint_fast64_t now = atomic_fetch_add(&raw->in_flight, 1) + 1;
	uint_fast64_t max = atomic_load(&raw->max_in_flight);

	while (now > max && !atomic_compare_exchange_weak(&raw->max_in_flight, &max, now))
		;
}

static void raw_done(rados_completion_t rc, void *arg)
{
	struct raw_slot *s = arg;
	struct raw *raw = s->b->priv;
	int r = rados_aio_get_return_value(rc);

	atomic_fetch_sub(&raw->in_flight, 1);
	bench_slot_done(s->b, s->slot, r < 0 ? r : 0);
}

/* The object of a call at off: an append's is always object 0. */
static void raw_oid(const struct bench *b, uint64_t off, char *oid, size_t len)
{
	bench_object_name(b->o.name, b->o.op == BENCH_APPEND ? 0 : off / b->o.object_size, oid,
			  len);
}

static int raw_submit(struct bench *b, uint32_t slot, uint64_t off, uint64_t len)
{
	struct raw *raw = b->priv;
	struct raw_slot *s = &raw->slots[slot];
	char oid[256];
	int r;

	raw_oid(b, off, oid, sizeof(oid));
	r = rados_aio_create_completion2(s, raw_done, &s->rc);
	if (r < 0)
		return r;
	note_in_flight(raw);
	if (b->o.op == BENCH_APPEND)
		r = rados_aio_append(b->io, oid, s->rc, b->bufs[slot], len);
	else if ((b->o.op == BENCH_WRITE || b->o.op == BENCH_RANDWRITE) && b->o.zero_copy)
		r = rados_zc_aio_write(b->io, oid, s->rc, b->bufs[slot], len, off % b->o.object_size);
	else if (b->o.op == BENCH_WRITE || b->o.op == BENCH_RANDWRITE)
		r = rados_aio_write(b->io, oid, s->rc, b->bufs[slot], len, off % b->o.object_size);
	else
		r = rados_aio_read(b->io, oid, s->rc, b->bufs[slot], len, off % b->o.object_size);
	if (r < 0) {
		atomic_fetch_sub(&raw->in_flight, 1);
		rados_aio_release(s->rc);
	}
	return r;
}

static void size_oid(const struct bench *b, char *oid, size_t len)
{
	snprintf(oid, len, "%s.size", b->o.name);
}

/*
 * An append and a size update, sent together, both waited for. The value is
 * zero-padded so that the C API's string compare orders it as a number.
 */
static int append_with_size(struct bench *b, const char *oid, const char *buf, uint64_t len,
			    uint64_t end)
{
	rados_completion_t data = NULL, size = NULL;
	rados_write_op_t op = rados_create_write_op();
	char head[256], val[32];
	int r, rs;

	if (!op)
		return -ENOMEM;
	size_oid(b, head, sizeof(head));
	snprintf(val, sizeof(val), "%020" PRIu64, end);
	rados_write_op_cmpxattr(op, "size", LIBRADOS_CMPXATTR_OP_GT, val, strlen(val));
	rados_write_op_setxattr(op, "size", val, strlen(val));
	r = rados_aio_create_completion2(NULL, NULL, &data);
	if (!r)
		r = rados_aio_create_completion2(NULL, NULL, &size);
	if (!r)
		r = rados_aio_append(b->io, oid, data, buf, len);
	if (!r) {
		rs = rados_aio_write_op_operate(op, b->io, size, head, NULL, 0);
		rados_aio_wait_for_complete(data);
		r = rados_aio_get_return_value(data);
		if (!rs) {
			rados_aio_wait_for_complete(size);
			rs = rados_aio_get_return_value(size);
		}
		if (!r && rs < 0 && rs != -ECANCELED)
			r = rs;
	}
	if (data)
		rados_aio_release(data);
	if (size)
		rados_aio_release(size);
	rados_release_write_op(op);
	return r;
}

/* --sync: one call, returned when it is done */
static int raw_sync_call(struct bench *b, uint32_t slot, uint64_t off, uint64_t len)
{
	char oid[256];
	int r;

	raw_oid(b, off, oid, sizeof(oid));
	b->res.obj_ops++;
	if (b->o.op == BENCH_APPEND && b->o.with_size) {
		b->res.obj_ops++;
		return append_with_size(b, oid, b->bufs[slot], len, off + len);
	}
	if (b->o.op == BENCH_APPEND)
		return rados_append(b->io, oid, b->bufs[slot], len);
	if (b->o.op == BENCH_WRITE || b->o.op == BENCH_RANDWRITE)
		return rados_write(b->io, oid, b->bufs[slot], len, off % b->o.object_size);
	r = rados_read(b->io, oid, b->bufs[slot], len, off % b->o.object_size);
	return r < 0 ? r : (uint64_t)r == len ? 0 : -EIO;
}

static void raw_reap(struct bench *b, uint32_t slot)
{
	struct raw *raw = b->priv;

	rados_aio_release(raw->slots[slot].rc);
	b->res.obj_ops++;
}

/* The objects of [offset, offset + total), or the one an append writes. */
static int raw_remove(struct bench *b)
{
	uint64_t first = b->o.offset / b->o.object_size;
	uint64_t n = (b->o.offset + b->o.total + b->o.object_size - 1) / b->o.object_size, i;
	char oid[256];
	int r;

	for (i = first; i < n; i++) {
		bench_object_name(b->o.name, i, oid, sizeof(oid));
		r = rados_remove(b->io, oid);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	size_oid(b, oid, sizeof(oid));
	r = rados_remove(b->io, oid);
	return r < 0 && r != -ENOENT ? r : 0;
}

static int raw_init(struct bench *b, struct raw *raw)
{
	uint32_t i;

	if (b->o.op == BENCH_CREATE)
		return -EINVAL; /* objects have no create here */
	if (b->o.with_size) {
		/* made before the timed calls, as a striped file's head object */
		char head[256];
		int r;

		if (b->o.op != BENCH_APPEND || !b->o.sync)
			return -EINVAL;
		size_oid(b, head, sizeof(head));
		r = rados_write_full(b->io, head, "", 0);
		if (r < 0)
			return r;
	}
	if (b->o.op != BENCH_APPEND && (b->o.bs > b->o.object_size || b->o.object_size % b->o.bs ||
					b->o.offset % b->o.bs))
		return -EINVAL; /* one call, one object */
	raw->slots = calloc(b->o.depth, sizeof(*raw->slots));
	if (!raw->slots)
		return -ENOMEM;
	for (i = 0; i < b->o.depth; i++) {
		raw->slots[i].b = b;
		raw->slots[i].slot = i;
	}
	atomic_init(&raw->in_flight, 0);
	atomic_init(&raw->max_in_flight, 0);
	b->priv = raw;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct bench_engine engine = {
	    .submit = raw_submit, .reap = raw_reap, .sync_call = raw_sync_call};
	struct bench b = {0};
	struct raw raw = {0};
	int r;

	r = bench_parse(&b.o, argc, argv, "rados");
	if (r)
		return r < 0 ? 2 : 0;
	r = bench_setup(&b);
	if (r < 0) {
		r = bench_fail("connect", r);
		goto out;
	}
	if (b.o.op == BENCH_REMOVE) {
		r = raw_remove(&b);
		r = r < 0 ? bench_fail("remove", r) : 0;
		goto out;
	}
	r = raw_init(&b, &raw);
	if (r < 0) {
		r = bench_fail("setup (bs must divide the object size and the offset; no create)",
			       r);
		goto out;
	}
	r = bench_run(&b, &engine);
	if (r < 0) {
		r = bench_fail("I/O", r);
		goto out;
	}
	b.res.max_in_flight = 1;
	b.res.file_max_in_flight = b.o.sync ? 1 : atomic_load(&raw.max_in_flight);
	bench_report(&b);
out:
	free(raw.slots);
	bench_teardown(&b);
	return r;
}
