// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libradosstriper through its C API, on the same work as striped_bench:
 * `depth` rados_striper_aio_write/read calls of bs bytes in flight, or with
 * --sync one rados_striper_write/read at a time. The layout is set with
 * rados_striper_set_object_layout_*, so both libraries write the same objects.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <radosstriper/libradosstriper.h>

#include "bench.h"

struct rs_slot {
	struct bench *b;
	uint32_t slot;
	rados_completion_t rc;
};

struct rs {
	rados_striper_t striper;
	struct rs_slot *slots;
};

static bool rs_writing(const struct bench *b)
{
	return b->o.op == BENCH_WRITE || b->o.op == BENCH_RANDWRITE;
}

static void rs_done(rados_completion_t rc, void *arg)
{
	struct rs_slot *s = arg;
	int r = rados_aio_get_return_value(rc);

	bench_slot_done(s->b, s->slot, r < 0 ? r : 0);
}

static int rs_submit(struct bench *b, uint32_t slot, uint64_t off, uint64_t len)
{
	struct rs *rs = b->priv;
	struct rs_slot *s = &rs->slots[slot];
	int r = rados_aio_create_completion2(s, rs_done, &s->rc);

	if (r < 0)
		return r;
	if (rs_writing(b))
		r = rados_striper_aio_write(rs->striper, b->o.name, s->rc, b->bufs[slot], len, off);
	else
		r = rados_striper_aio_read(rs->striper, b->o.name, s->rc, b->bufs[slot], len, off);
	if (r < 0)
		rados_aio_release(s->rc);
	return r;
}

static void rs_reap(struct bench *b, uint32_t slot)
{
	struct rs *rs = b->priv;

	rados_aio_release(rs->slots[slot].rc);
}

static int rs_sync_call(struct bench *b, uint32_t slot, uint64_t off, uint64_t len)
{
	struct rs *rs = b->priv;
	int r;

	if (rs_writing(b))
		r = rados_striper_write(rs->striper, b->o.name, b->bufs[slot], len, off);
	else
		r = rados_striper_read(rs->striper, b->o.name, b->bufs[slot], len, off);
	return r < 0 ? r : 0;
}

/*
 * libradosstriper unlocks the head object asynchronously after a write; a
 * process that exits before that lands leaves a shared lock behind, and
 * removal then fails with -EBUSY. Our own benchmark objects only: break them.
 */
static int rs_break_locks(struct bench *b)
{
	char oid[256], tag[256], clients[4096], cookies[4096], addrs[4096];
	size_t tlen = sizeof(tag), clen = sizeof(clients), klen = sizeof(cookies);
	size_t alen = sizeof(addrs);
	const char *client, *cookie;
	int exclusive;
	ssize_t n;

	bench_object_name(b->o.name, 0, oid, sizeof(oid));
	n = rados_list_lockers(b->io, oid, "striper.lock", &exclusive, tag, &tlen, clients, &clen,
			       cookies, &klen, addrs, &alen);
	if (n < 0)
		return (int)n;
	client = clients;
	cookie = cookies;
	for (; n > 0; n--) {
		int r = rados_break_lock(b->io, oid, "striper.lock", client, cookie);

		if (r < 0 && r != -ENOENT)
			return r;
		client += strlen(client) + 1;
		cookie += strlen(cookie) + 1;
	}
	return 0;
}

static int rs_remove(struct bench *b, struct rs *rs)
{
	int r = rados_striper_remove(rs->striper, b->o.name);

	if (r == -EBUSY) {
		r = rs_break_locks(b);
		if (!r)
			r = rados_striper_remove(rs->striper, b->o.name);
	}
	return r == -ENOENT ? 0 : r;
}

static int rs_init(struct bench *b, struct rs *rs)
{
	uint32_t i;
	int r;

	r = rados_striper_create(b->io, &rs->striper);
	if (r < 0)
		return r;
	r = rados_striper_set_object_layout_stripe_unit(rs->striper, (unsigned)b->o.stripe_unit);
	if (!r)
		r = rados_striper_set_object_layout_stripe_count(rs->striper,
								 (unsigned)b->o.stripe_count);
	if (!r)
		r = rados_striper_set_object_layout_object_size(rs->striper,
								(unsigned)b->o.object_size);
	if (r < 0)
		return r;
	if (b->o.op == BENCH_REMOVE)
		return 0;
	rs->slots = calloc(b->o.depth, sizeof(*rs->slots));
	if (!rs->slots)
		return -ENOMEM;
	for (i = 0; i < b->o.depth; i++) {
		rs->slots[i].b = b;
		rs->slots[i].slot = i;
	}
	b->priv = rs;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct bench_engine engine = {
	    .submit = rs_submit, .reap = rs_reap, .sync_call = rs_sync_call};
	struct bench b = {0};
	struct rs rs = {0};
	int r;

	r = bench_parse(&b.o, argc, argv, "libradosstriper");
	if (r)
		return r < 0 ? 2 : 0;
	if (b.o.op == BENCH_APPEND || b.o.op == BENCH_CREATE)
		return bench_fail("--op append and create are not done here", -EINVAL) ? 2 : 0;
	r = bench_setup(&b);
	if (r < 0) {
		r = bench_fail("connect", r);
		goto out;
	}
	r = rs_init(&b, &rs);
	if (r < 0) {
		r = bench_fail("rados_striper_create", r);
		goto out;
	}
	if (b.o.op == BENCH_REMOVE) {
		r = rs_remove(&b, &rs);
		r = r < 0 ? bench_fail("rados_striper_remove", r) : 0;
		goto out;
	}
	r = bench_run(&b, &engine);
	/* Let the asynchronous unlocks land before the process goes (not timed). */
	rados_striper_aio_flush(rs.striper);
	if (r < 0) {
		r = bench_fail("I/O", r);
		goto out;
	}
	bench_report(&b);
out:
	if (rs.striper)
		rados_striper_destroy(rs.striper);
	free(rs.slots);
	bench_teardown(&b);
	return r;
}
