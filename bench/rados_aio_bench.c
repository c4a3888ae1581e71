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
 */
#include <errno.h>
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

/* --sync: one call, returned when it is done */
static int raw_sync_call(struct bench *b, uint32_t slot, uint64_t off, uint64_t len)
{
	char oid[256];
	int r;

	raw_oid(b, off, oid, sizeof(oid));
	b->res.obj_ops++;
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

	for (i = first; i < n; i++) {
		int r;

		bench_object_name(b->o.name, i, oid, sizeof(oid));
		r = rados_remove(b->io, oid);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	return 0;
}

static int raw_init(struct bench *b, struct raw *raw)
{
	uint32_t i;

	if (b->o.op == BENCH_CREATE)
		return -EINVAL; /* objects have no create here */
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
