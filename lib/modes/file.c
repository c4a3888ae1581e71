// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The handle (struct striped_file): its engine part (the io_file: lease,
 * size and mark, regions, throttle, calls), its mode, and its references.
 * Each call of the public API is one call here, dispatched once on the
 * mode: direct.c sends everything to the engine, buffered/ goes through the
 * handle's window. The handle owns its references (its user's, each call's
 * until it ended, the lease's idler's while it works): the last one frees
 * it, on whichever thread lets go, a librados callback's too (nothing
 * there waits). Calls the mode does not change (stat, xattrs, truncate,
 * append) go to the engine here, around what the mode holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buffered/buffered.h"
#include "calls.h"
#include "completion.h"
#include "direct.h"
#include "file.h"
#include "io.h"
#include "mode.h"

/* ---- references ---- */

static void file_free(struct striped_file *f)
{
	f->mode->free(f);
	io_file_free(f->io);
	free(f);
}

static void file_hold(void *arg)
{
	struct striped_file *f = arg;

	atomic_fetch_add(&f->refs, 1);
}

static void file_drop(void *arg)
{
	struct striped_file *f = arg;

	if (atomic_fetch_sub(&f->refs, 1) == 1)
		file_free(f);
}

/* ---- open and close ---- */

/* A close deferred from a callback, finished by the buffered mode's own thread. */
static void file_close_deferred(struct striped_file *f)
{
	(void)file_close(f);
}

int file_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
	      struct striped_file **out)
{
	struct striped_file *f = calloc(1, sizeof(*f));
	int r;

	if (!f)
		return -ENOMEM;
	atomic_init(&f->refs, 1); /* the user's */
	f->mode = &direct_mode;
	r = io_file_open(io, name, flags, layout, &(struct io_owner){file_hold, file_drop, f},
			 &f->io);
	if (r) {
		free(f);
		return r;
	}
	if (flags & STRIPED_BUFFERED) {
		r = buffered_open(f, file_close_deferred, &f->buffered);
		if (r) {
			file_close(f);
			return r;
		}
		f->mode = &buffered_mode;
	}
	*out = f;
	return 0;
}

int file_close(struct striped_file *f)
{
	uint64_t seen = io_file_timeouts(f->io);
	int r;

	/* What the mode holds cannot be waited for here: its own thread sends it and closes. */
	if (completion_in_callback() && f->mode->close_later(f))
		return 0;
	r = f->mode->close(f);
	if (completion_in_callback()) {
		/*
		 * The callback's own call is still in flight, so waiting would
		 * never end: the file goes when its last call has ended.
		 */
		io_file_stop(f->io);
		file_drop(f);
		return 0;
	}
	io_file_close(f->io, seen); /* others may truncate or remove once close returns */
	file_drop(f);
	return r;
}

/* ---- settings and statistics ---- */

int file_set_buffer(struct striped_file *f, const struct striped_buffer_config *cfg,
		    size_t cfg_size)
{
	return f->mode->configure(f, cfg, cfg_size);
}

void file_set_throttle(struct striped_file *f, uint32_t max_ops, uint64_t max_bytes)
{
	io_file_set_throttle(f->io, max_ops, max_bytes);
}

void file_set_lease(struct striped_file *f, uint32_t seconds)
{
	io_file_set_idle(f->io, seconds);
}

void file_stats(struct striped_file *f, struct striped_io_stats *st)
{
	io_file_stats(f->io, st);
}

void file_latency(struct striped_file *f, struct striped_latency *lat)
{
	io_file_latency(f->io, lat);
}

/* ---- data calls: the mode's ---- */

ssize_t file_write(struct striped_file *f, struct io_mem *m, uint64_t len, uint64_t off)
{
	return f->mode->write(f, m, len, off);
}

ssize_t file_read(struct striped_file *f, struct io_mem *m, uint64_t len, uint64_t off)
{
	return f->mode->read(f, m, len, off);
}

int file_aio_write(struct striped_file *f, struct striped_completion *c, struct io_mem *m,
		   uint64_t len, uint64_t off, int flags)
{
	return f->mode->aio_write(f, c, m, len, off, flags);
}

int file_aio_read(struct striped_file *f, struct striped_completion *c, struct io_mem *m,
		  uint64_t len, uint64_t off, int flags)
{
	return f->mode->aio_read(f, c, m, len, off, flags);
}

int file_aio_flush(struct striped_file *f, struct striped_completion *c)
{
	return f->mode->aio_flush(f, c);
}

/* Discard [off, off + len) after what the mode holds there landed: one call of the engine. */
int file_discard(struct striped_file *f, struct striped_completion *c, uint64_t off, uint64_t len,
		 bool nowait)
{
	struct io_req req = {.op = IO_DISCARD, .len = len, .off = off};
	int r = f->mode->settle(f, off, len, nowait);

	if (r)
		return r;
	return c ? calls_start(f->io, c, &req) : (int)calls_run(f->io, &req);
}

/* ---- calls around the mode ---- */

ssize_t file_append(struct striped_file *f, const void *buf, size_t len)
{
	struct io_mem m;
	struct io_req req = {
	    .op = IO_WRITE, .mem = &m, .len = len, .flags = STRIPED_IO_ZEROCOPY};
	ssize_t n;
	int r;

	/* The claim reads the stored size: what the mode holds (the window's bytes) is in it. */
	r = f->mode->drain(f);
	if (!r)
		r = io_append_claim(f->io, len, &req.off);
	if (r)
		return r;
	/*
	 * Its range is claimed: written by the engine where it lies, past any
	 * window, from the caller's memory (ours until the call returns).
	 */
	io_mem_buf(&m, (char *)buf, len);
	n = calls_run(f->io, &req);
	io_mem_free(&m);
	return n;
}

/*
 * What the mode holds (the window's bytes) is older than the truncate: it
 * lands first, and nothing enters the window until the lock is ours again
 * (a write acknowledged meanwhile would land after the truncates of others
 * that begin once it returned). The handle's other calls wait at its gate.
 */
int file_truncate(struct striped_file *f, uint64_t size)
{
	uint64_t seen = io_file_timeouts(f->io);
	int r = f->mode->hold(f);

	if (r)
		return r;
	calls_gate_close(f->io);
	r = io_truncate(f->io, size, seen);
	calls_gate_open(f->io);
	f->mode->resume(f);
	return r;
}

bool file_appends_only(const struct striped_file *f)
{
	return io_file_appends_only(f->io);
}

int file_aio_stat(struct striped_file *f, struct striped_completion *c, uint64_t *size)
{
	struct io_req req = {.op = IO_STAT, .size = size};

	return calls_start(f->io, c, &req);
}

int file_stat(struct striped_file *f, uint64_t *size, struct striped_layout *layout)
{
	uint64_t stored;
	struct io_req req = {.op = IO_STAT, .size = &stored};
	ssize_t r = calls_run(f->io, &req);

	if (r)
		return (int)r;
	if (size)
		*size = f->mode->size(f, stored);
	if (layout)
		*layout = *io_file_layout(f->io);
	return 0;
}

int file_fstat(struct striped_file *f, struct striped_stat *st)
{
	int r = io_fstat(f->io, st);

	if (r)
		return r;
	st->size = f->mode->size(f, st->size);
	st->layout = *io_file_layout(f->io);
	return 0;
}

int file_setxattr(struct striped_file *f, const char *name, const void *value, size_t len)
{
	return io_setxattr(f->io, name, value, len);
}

ssize_t file_getxattr(struct striped_file *f, const char *name, void *value, size_t len)
{
	return io_getxattr(f->io, name, value, len);
}

int file_rmxattr(struct striped_file *f, const char *name)
{
	return io_rmxattr(f->io, name);
}

int file_getxattrs(struct striped_file *f, struct striped_xattrs **out)
{
	return io_getxattrs(f->io, out);
}
