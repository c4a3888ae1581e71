// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The buffered mode of a handle (STRIPED_BUFFERED): write-behind, readahead,
 * and one size update per batch instead of one per call.
 *
 * Writes are copied into the handle's window and the call returns. The
 * window's blocks (window.c) go out as large asynchronous writes through
 * the engine, from a thread of the handle's (the flusher): a unit (one
 * stripe: every object of a set gets its share) as soon as the caller has
 * written it whole, anything else once it is dirty_age old, and everything
 * at a flush, at close, when the window fills up, and when another client
 * asks for the lock. Each of those writes is one call of the engine, so it
 * stores the size beside its data once for the whole batch, and the
 * engine's guarantees hold for it (no byte past the mark, a size that never
 * exposes bytes of an earlier life). A block being sent is never changed: a
 * write into it waits until it landed.
 *
 * A failed write-behind is remembered, and every later call of the handle
 * fails with its error until striped_flush() (or close) reports it: an
 * acknowledged write's loss is never silent.
 *
 * While the window holds data not yet sent, the handle keeps one entry in
 * its lease, so the lock is not let go of when idle; when another client
 * asks for it, everything is sent at once (with LEASE_DRAIN: the lock is
 * still held) and the lock goes once those writes landed. Nothing of the
 * window outlives the lock: a truncate or remove by another client always
 * finds the window empty.
 *
 * Reads see the window: whatever RADOS returns is overlaid with the blocks
 * that were in the window when the read started (they are pinned meanwhile,
 * so a block that lands during the read still shows). A reader whose reads
 * follow each other gets the next bytes read ahead, asynchronously, into
 * segments, a distance that doubles with each sequential read up to
 * readahead_max (ra_observe). A segment is never read over blocks of the
 * window and is dropped when the handle writes into it, so it is never
 * older than the window; it serves only while the lock it was read under
 * is held (its epoch), so bytes from before another client's truncate are
 * never returned.
 *
 * Lock order: buffer, then nothing of ours; lease calls happen outside it.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "buffered_i.h"

/* ---- open and close ---- */

static void buffer_free(struct buffered *b);

int buffered_open(struct striped_file *f, void (*close_file)(struct striped_file *f),
		  struct buffered **out)
{
	const struct striped_layout *l = io_file_layout(f->io);
	struct striped_buffer_config cfg = STRIPED_BUFFER_CONFIG_INIT;
	pthread_condattr_t attr;
	struct buffered *b = calloc(1, sizeof(*b));
	int r;

	if (!b)
		return -ENOMEM;
	b->f = f;
	b->close_file = close_file;
	b->heard_ns = clock_now_ns();
	b->unit_blocks = stripe_bytes(l, UNIT_MIN, UNIT_MAX) / WIN_BLOCK;
	b->segment_bytes = stripe_bytes(l, SEGMENT_MIN, SEGMENT_MAX);
	ra_init(&b->ra, 0, 0);
	apply_config(b, &cfg);
	r = win_init(&b->w, b->max_blocks);
	if (r) {
		free(b);
		return r;
	}
	r = gate_init(&b->copies);
	if (r) {
		win_destroy(&b->w);
		free(b);
		return r;
	}
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->room, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&b->work, &attr);
	pthread_condattr_destroy(&attr);
	r = -pthread_create(&b->flusher, NULL, flusher_main, b);
	if (r) {
		buffer_free(b);
		return r;
	}
	b->flusher_running = true;
	*out = b;
	/* Only now: the watch callback may find it from here on. */
	io_file_on_asked(f->io, buffer_asked, b);
	return 0;
}

/*
 * Close: everything sent and landed, the flusher stopped, the lease entry
 * given back. Returns the first write-behind error not reported yet. On the
 * flusher itself (a close from a callback) there is nothing to join.
 */
static int buffer_close(struct buffered *b)
{
	bool on_flusher = pthread_equal(pthread_self(), b->flusher);
	bool unpin;
	int r;

	pthread_mutex_lock(&b->lock);
	drain_locked(b);
	b->stop = true;
	kick(b);
	pthread_mutex_unlock(&b->lock);
	if (!on_flusher && b->flusher_running)
		pthread_join(b->flusher, NULL);
	b->flusher_running = false;
	pthread_mutex_lock(&b->lock);
	unpin = b->pinned;
	b->pinned = false;
	r = take_error_locked(b);
	pthread_mutex_unlock(&b->lock);
	if (unpin)
		io_file_exit(b->f->io);
	return r;
}

/* From a completion callback: the flusher sends the window, then closes the file. */
static void buffer_close_deferred(struct buffered *b)
{
	pthread_mutex_lock(&b->lock);
	b->close_deferred = true;
	kick(b);
	pthread_mutex_unlock(&b->lock);
}

/* Once no call is left (file_free): everything the buffer still holds goes. */
static void buffer_free(struct buffered *b)
{
	if (!b)
		return;
	segments_drop_if(b, seg_any, 0, 0);
	spare_free(b);
	win_destroy(&b->w);
	gate_destroy(&b->copies);
	pthread_cond_destroy(&b->work);
	pthread_cond_destroy(&b->room);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

/* The size this handle sees: the stored one, or further if its window holds more. */
static uint64_t buffer_size_view(struct buffered *b, uint64_t stored)
{
	uint64_t end;

	pthread_mutex_lock(&b->lock);
	end = b->w.end;
	pthread_mutex_unlock(&b->lock);
	return end > stored ? end : stored;
}

/* ---- the mode ---- */

static ssize_t buffered_write(struct striped_file *f, struct io_mem *m, uint64_t len, uint64_t off)
{
	return buffer_write(f->buffered, m, len, off, 0);
}

static ssize_t buffered_read(struct striped_file *f, struct io_mem *m, uint64_t len, uint64_t off)
{
	return buffer_read(f->buffered, m, len, off);
}

/* Into the window, then c completes at once with what went there (c untouched when nothing did). */
static int buffered_aio_write(struct striped_file *f, struct striped_completion *c,
			      struct io_mem *m, uint64_t len, uint64_t off, int flags)
{
	ssize_t n;

	if (completion_used(c))
		return -EBUSY;
	n = buffer_write(f->buffered, m, len, off, flags);
	return n < 0 ? (int)n : completion_complete_now(c, n);
}

static int buffered_aio_flush(struct striped_file *f, struct striped_completion *c)
{
	return buffer_aio_flush(f->buffered, c);
}

static int buffered_settle(struct striped_file *f, uint64_t off, uint64_t len, bool nowait)
{
	return buffer_settle(f->buffered, off, len, nowait);
}

static int buffered_drain(struct striped_file *f)
{
	return buffer_drain(f->buffered);
}

/*
 * Before the handle's own truncate: writes into the window wait from before
 * it is sent until the lock is taken back, so none is acknowledged into the
 * window while the lock is let go of.
 */
static int buffered_hold(struct striped_file *f)
{
	struct buffered *b = f->buffered;
	int r;

	gate_close(&b->copies);
	r = buffer_drain(b);
	if (r)
		gate_open(&b->copies);
	return r;
}

static void buffered_resume(struct striped_file *f)
{
	gate_open(&f->buffered->copies);
}

static uint64_t buffered_size(struct striped_file *f, uint64_t stored)
{
	return buffer_size_view(f->buffered, stored);
}

static int buffered_configure(struct striped_file *f, const struct striped_buffer_config *cfg,
			      size_t cfg_size)
{
	struct striped_buffer_config checked;
	int r = buffer_check_config(cfg, cfg_size, &checked);

	return r ? r : buffer_configure(f->buffered, &checked);
}

/* From a completion callback: the flusher sends the window, then closes the file. */
static bool buffered_close_later(struct striped_file *f)
{
	buffer_close_deferred(f->buffered);
	return true;
}

static int buffered_close(struct striped_file *f)
{
	return buffer_close(f->buffered);
}

static void buffered_free(struct striped_file *f)
{
	buffer_free(f->buffered);
}

const struct file_mode buffered_mode = {
    .write = buffered_write,
    .read = buffered_read,
    .aio_write = buffered_aio_write,
    .aio_read = buffered_aio_read,
    .aio_flush = buffered_aio_flush,
    .settle = buffered_settle,
    .drain = buffered_drain,
    .hold = buffered_hold,
    .resume = buffered_resume,
    .size = buffered_size,
    .configure = buffered_configure,
    .close_later = buffered_close_later,
    .close = buffered_close,
    .free = buffered_free,
};
