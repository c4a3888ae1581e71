// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstriped through its public API: `depth` striped_aio_write/read calls of
 * bs bytes in flight. --throttle-ops 1 limits the file to one RADOS
 * operation in flight: the serial path (what the CephFS kernel client does
 * with O_DIRECT). Per-call statistics (striped_completion_stats) are summed
 * into the report: RADOS operations issued and the most in flight at once.
 * --sync makes one synchronous call at a time instead: striped_write,
 * striped_read, striped_append (--op append: bs bytes at the end of the
 * file, total / bs times). --existing opens a file another process made
 * (--op create: an empty file), e.g. N processes writing regions of one
 * file (--offset) from the same moment on (--start-at). --buffered opens
 * the file with STRIPED_BUFFERED (a --window of SIZE); a write run then
 * ends with striped_flush(), timed with it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <striped.h>

#include "bench.h"

struct sb_slot {
	struct bench *b;
	uint32_t slot;
	struct striped_completion *c;
};

struct sb {
	struct striped_file *f;
	struct sb_slot *slots;
};

static void sb_done(struct striped_completion *c, void *arg)
{
	struct sb_slot *s = arg;
	ssize_t r = striped_completion_result(c);

	bench_slot_done(s->b, s->slot, r < 0 ? (int)r : 0);
}

static bool sb_writing(const struct bench *b)
{
	return b->o.op == BENCH_WRITE || b->o.op == BENCH_RANDWRITE || b->o.op == BENCH_APPEND;
}

static int sb_submit(struct bench *b, uint32_t slot, uint64_t off, uint64_t len)
{
	struct sb *sb = b->priv;
	struct sb_slot *s = &sb->slots[slot];
	int r = striped_completion_create(sb_done, s, &s->c);

	if (r)
		return r;
	if (b->o.op == BENCH_APPEND)
		r = striped_aio_append(sb->f, s->c, b->bufs[slot], len);
	else if (b->o.op == BENCH_WRITE || b->o.op == BENCH_RANDWRITE)
		r = striped_aio_write2(sb->f, s->c, b->bufs[slot], len, off,
				       b->o.zero_copy ? STRIPED_IO_ZEROCOPY : 0);
	else
		r = striped_aio_read(sb->f, s->c, b->bufs[slot], len, off);
	if (r)
		striped_completion_release(s->c);
	return r;
}

/* --sync: one call, returned when it is done */
static int sb_sync_call(struct bench *b, uint32_t slot, uint64_t off, uint64_t len)
{
	struct sb *sb = b->priv;
	ssize_t r;

	if (b->o.op == BENCH_APPEND)
		r = striped_append(sb->f, b->bufs[slot], len);
	else if (sb_writing(b))
		r = striped_write(sb->f, b->bufs[slot], len, off);
	else
		r = striped_read(sb->f, b->bufs[slot], len, off);
	if (r < 0)
		return (int)r;
	return (uint64_t)r == len ? 0 : -EIO;
}

static void sb_reap(struct bench *b, uint32_t slot)
{
	struct sb *sb = b->priv;
	struct striped_io_stats st;

	if (striped_completion_stats(sb->slots[slot].c, &st, sizeof(st)) == 0) {
		b->res.obj_ops += st.ops;
		b->res.throttle_waits += st.throttle_waits;
		if (st.max_in_flight > b->res.max_in_flight)
			b->res.max_in_flight = st.max_in_flight;
	}
	striped_completion_release(sb->slots[slot].c);
}

static int sb_open(struct bench *b, struct sb *sb)
{
	struct striped_layout l = {b->o.stripe_unit, b->o.stripe_count, b->o.object_size};
	bool create = (sb_writing(b) && !b->o.existing) || b->o.op == BENCH_CREATE;
	uint32_t i;
	int r;

	r = striped_open(b->io, b->o.name,
			 (create ? STRIPED_CREATE : 0) | (b->o.buffered ? STRIPED_BUFFERED : 0), &l,
			 &sb->f);
	if (r)
		return r;
	if (b->o.buffered && b->o.window) {
		struct striped_buffer_config cfg = {b->o.window, b->o.window / 2, 200};

		r = striped_file_set_buffer(sb->f, &cfg, sizeof(cfg));
		if (r)
			return r;
	}
	if (b->o.throttle_ops) {
		r = striped_file_set_throttle(sb->f, b->o.throttle_ops, UINT64_MAX);
		if (r)
			return r;
	}
	sb->slots = calloc(b->o.depth, sizeof(*sb->slots));
	if (!sb->slots)
		return -ENOMEM;
	for (i = 0; i < b->o.depth; i++) {
		sb->slots[i].b = b;
		sb->slots[i].slot = i;
	}
	b->priv = sb;
	return 0;
}

/* A buffered writer's run ends when everything it wrote landed. */
static int sb_finish(struct bench *b)
{
	struct sb *sb = b->priv;

	return b->o.buffered && sb_writing(b) ? striped_flush(sb->f) : 0;
}

/*
 * The file-wide peak of RADOS operations in flight (calls overlap); with
 * --sync, where no completion tells, the operations and throttle waits too;
 * and the library's own latency percentiles of the calls (an append's claim
 * on the head is not in them: it comes before the write they time).
 */
static void sb_file_stats(struct bench *b, struct sb *sb)
{
	struct striped_io_stats st;
	struct striped_latency lat;
	const struct striped_percentiles *p = sb_writing(b) ? &lat.write : &lat.read;

	if (striped_file_latency(sb->f, &lat, sizeof(lat)) == 0 && p->calls) {
		b->res.lib_lat = true;
		b->res.lib_p50_ns = p->p50_ns;
		b->res.lib_p99_ns = p->p99_ns;
		b->res.lib_p999_ns = p->p999_ns;
	}

	if (striped_file_stats(sb->f, &st, sizeof(st)) == 0) {
		b->res.file_max_in_flight = st.max_in_flight;
		if (b->o.sync) {
			b->res.obj_ops = st.ops;
			b->res.max_in_flight = st.max_in_flight;
			b->res.throttle_waits = st.throttle_waits;
		}
	}
}

int main(int argc, char **argv)
{
	static const struct bench_engine engine = {
	    .submit = sb_submit, .reap = sb_reap, .sync_call = sb_sync_call, .finish = sb_finish};
	struct bench b = {0};
	struct sb sb = {0};
	int r;

	r = bench_parse(&b.o, argc, argv, "libstriped");
	if (r)
		return r < 0 ? 2 : 0;
	r = bench_setup(&b);
	if (r < 0) {
		r = bench_fail("connect", r);
		goto out;
	}
	if (b.o.op == BENCH_REMOVE) {
		r = striped_remove(b.io, b.o.name);
		r = r < 0 && r != -ENOENT ? bench_fail("striped_remove", r) : 0;
		goto out;
	}
	r = sb_open(&b, &sb);
	if (r < 0) {
		r = bench_fail("striped_open", r);
		goto out;
	}
	if (b.o.op == BENCH_CREATE)
		goto out;
	r = bench_run(&b, &engine);
	if (r < 0) {
		r = bench_fail("I/O", r);
		goto out;
	}
	sb_file_stats(&b, &sb);
	bench_report(&b);
out:
	striped_close(sb.f);
	free(sb.slots);
	bench_teardown(&b);
	return r;
}
