// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reads through the window, and readahead: a read of RADOS is overlaid
 * with the window's blocks (pinned while it runs); a reader whose reads
 * follow each other gets the next bytes read ahead into segments, memory
 * of the handle's that the next segments reuse, copied from there into the
 * reader's. A segment serves only under the lock it was read under.
 */
#include <errno.h>
#include <stdlib.h>

#include "buffered_i.h"

/* ---- reads through the window ---- */

/* A read of RADOS whose result the window's blocks are laid over. */
struct overlay {
	struct buffered *b;
	struct striped_completion *user; /* the caller's, for an aio read */
	struct io_mem mem;		 /* the caller's memory */
	uint64_t base;			 /* where this read lands in it */
	uint64_t off, len;
	uint64_t window_end; /* the file's end as the window had it when the read began */
	size_t npins;
	struct win_block **pins;
	struct iovec *iov;
	int iovcnt;
	ssize_t result;
};

static void overlay_free(struct overlay *o)
{
	io_mem_free(&o->mem);
	free(o->pins);
	free(o->iov);
	free(o);
}

/* Under the lock: the blocks in [off, off + len) stay (and keep their bytes) until unpinned. */
static int overlay_pin(struct overlay *o)
{
	struct buffered *b = o->b;
	size_t cap = 0;

	o->window_end = b->w.end;
	if (!window_overlaps(b, o->off, o->len))
		return 0;
	for (uint64_t i = o->off / WIN_BLOCK; i <= (o->off + o->len - 1) / WIN_BLOCK; i++) {
		struct win_block *blk = win_find(&b->w, i);

		if (!blk)
			continue;
		if (o->npins == cap) {
			size_t more = cap ? 2 * cap : 16;
			struct win_block **p = realloc(o->pins, more * sizeof(*p));

			if (!p)
				return -ENOMEM;
			o->pins = p;
			cap = more;
		}
		blk->refs++;
		o->pins[o->npins++] = blk;
	}
	return 0;
}

static void overlay_unpin(struct overlay *o)
{
	for (size_t i = 0; i < o->npins; i++)
		block_unref(o->b, o->pins[i]);
	o->npins = 0;
}

/*
 * Under the lock: RADOS gave got bytes; the window may hold more (data not
 * sent yet, past the stored size): the gap reads as zeros, then every
 * pinned block's bytes go over what RADOS returned.
 */
static uint64_t overlay_apply(struct overlay *o, uint64_t got)
{
	uint64_t end = o->off + got;

	if (o->window_end > end) {
		uint64_t upto = o->window_end < o->off + o->len ? o->window_end : o->off + o->len;

		io_mem_zero(&o->mem, o->base + got, upto - end);
		end = upto;
	}
	for (size_t i = 0; i < o->npins; i++) {
		const struct win_block *blk = o->pins[i];

		for (unsigned k = 0; k < blk->nranges; k++) {
			uint64_t lo = blk->index * WIN_BLOCK + blk->r[k].lo;
			uint64_t hi = blk->index * WIN_BLOCK + blk->r[k].hi;

			if (lo < o->off)
				lo = o->off;
			if (hi > end)
				hi = end;
			if (lo < hi)
				io_mem_copy(&o->mem, o->base + (lo - o->off),
					    blk->data + (lo - blk->index * WIN_BLOCK), hi - lo,
					    true);
		}
	}
	return end - o->off;
}

/* The internal read's callback (a librados thread): lay the window over it. */
static void overlay_landed(struct striped_completion *c, void *arg)
{
	struct overlay *o = arg;
	struct buffered *b = o->b;
	ssize_t r = completion_result(c);

	pthread_mutex_lock(&b->lock);
	if (r >= 0) {
		r = (ssize_t)overlay_apply(o, (uint64_t)r);
		b->heard_ns = clock_now_ns();
	}
	overlay_unpin(o);
	pthread_mutex_unlock(&b->lock);
	o->result = r;
	if (o->user) {
		completion_release(c);
		completion_submit_end(o->user, r < 0 ? (int)r : 0);
	}
}

static struct overlay *overlay_new(struct buffered *b, const struct io_mem *m, uint64_t base,
				   uint64_t len, uint64_t off)
{
	struct overlay *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->b = b;
	o->base = base;
	o->len = len;
	o->off = off;
	/* The caller's view, not a copy of its array: the overlay lives no longer than the call. */
	io_mem_view(&o->mem, m);
	o->iov = io_mem_slice(m, base, len, &o->iovcnt);
	if (!o->iov) {
		free(o);
		return NULL;
	}
	return o;
}

/* The internal read: what RADOS holds of the range, into the caller's memory. */
static int overlay_send(struct overlay *o, struct striped_completion *c, int flags)
{
	struct io_mem m;
	struct io_req req = {
	    .op = IO_READ, .mem = &m, .len = o->len, .off = o->off, .flags = flags};
	int r = io_mem_iov(&m, o->iov, o->iovcnt);

	if (r)
		return r;
	/*
	 * For an aio read (user set) the caller's call entered the handle
	 * already: the internal read goes under that entry (calls_start_within()).
	 */
	if (o->user)
		r = calls_start_within(o->b->f->io, c, &req);
	else
		r = calls_start(o->b->f->io, c, &req);
	io_mem_free(&m);
	return r;
}

/* Pin, then start the internal read; c is its completion (callback overlay_landed). */
static int overlay_start(struct overlay *o, struct striped_completion *c, int flags)
{
	struct buffered *b = o->b;
	int r;

	pthread_mutex_lock(&b->lock);
	r = overlay_pin(o);
	if (r)
		overlay_unpin(o);
	pthread_mutex_unlock(&b->lock);
	if (!r)
		r = overlay_send(o, c, flags);
	if (r) {
		pthread_mutex_lock(&b->lock);
		overlay_unpin(o);
		pthread_mutex_unlock(&b->lock);
	}
	return r;
}

/* Read [off, off + len) into m at base, through the window, waiting for it. */
static ssize_t overlay_read_sync(struct buffered *b, const struct io_mem *m, uint64_t base,
				 uint64_t len, uint64_t off)
{
	struct striped_completion *c;
	struct overlay *o = overlay_new(b, m, base, len, off);
	ssize_t r;

	if (!o)
		return -ENOMEM;
	r = completion_create(overlay_landed, o, &c);
	if (!r) {
		r = overlay_start(o, c, 0);
		if (!r) {
			completion_wait(c);
			r = o->result;
		}
		completion_release(c);
	}
	io_mem_forget(&o->mem); /* the caller's array is not ours to free */
	overlay_free(o);
	return r;
}

/* ---- readahead ---- */

/* Its read is over: the segment serves (or not), readers waiting for it go on. */
static void segment_finish(struct buffered *b, struct segment *s, ssize_t r)
{
	pthread_mutex_lock(&b->lock);
	s->done = true;
	s->error = r < 0 ? (int)r : 0;
	s->got = r < 0 ? 0 : (uint64_t)r;
	if (r >= 0)
		b->heard_ns = clock_now_ns();
	b->reading_blocks -= s->blocks;
	segment_unref(b, s); /* the read's */
	pthread_cond_broadcast(&b->room);
	pthread_mutex_unlock(&b->lock);
}

static void segment_landed(struct striped_completion *c, void *arg)
{
	struct segment *s = arg;

	segment_finish(s->b, s, completion_result(c));
	completion_release(c);
}

/* Under the lock: a segment for [off, off + len), in the list, counted against the window. */
static struct segment *segment_new(struct buffered *b, uint64_t off, uint64_t len, uint64_t epoch)
{
	struct segment *s = calloc(1, sizeof(*s)), **p;

	if (!s)
		return NULL;
	s->blocks = (len + WIN_BLOCK - 1) / WIN_BLOCK;
	s->data = segment_data_get(b, s->blocks);
	if (!s->data) {
		free(s);
		return NULL;
	}
	s->b = b;
	s->off = off;
	s->len = len;
	s->epoch = epoch;
	s->refs = 2; /* the list's and the read's */
	b->segment_blocks += s->blocks;
	for (p = &b->segs; *p && (*p)->off < off; p = &(*p)->next)
		;
	s->next = *p;
	*p = s;
	b->reading_blocks += s->blocks;
	return s;
}

/* Segments planned under the lock, started outside it. */
#define STARTS_MAX 64

/*
 * Under the lock: segments to read ahead from `from` up to `to`, while the
 * readahead bound and the window allow; none over the window's own blocks,
 * none past the end of the file as the handle knows it, and no more bytes
 * being read than the file's throttle lets out at once (max_bytes): those
 * would only be refused. Returns how many went to starts.
 */
static size_t plan_readahead(struct buffered *b, uint64_t from, uint64_t to, uint64_t known,
			     uint64_t epoch, struct segment **starts)
{
	uint64_t limit = (known + b->segment_bytes - 1) / b->segment_bytes * b->segment_bytes;
	/* The throttle's lock is a leaf: taking it under b->lock is safe. */
	uint64_t max_bytes = io_file_max_bytes(b->f->io);
	size_t n_starts = 0;

	if (to > limit)
		to = limit;
	while (from < to && n_starts < STARTS_MAX) {
		/* Segments end on segment boundaries, so each is one operation per object. */
		uint64_t n = b->segment_bytes - from % b->segment_bytes;
		uint64_t blocks = (n + WIN_BLOCK - 1) / WIN_BLOCK;

		if (!segment_fits(b, blocks))
			break;
		if (b->reading_blocks && (b->reading_blocks + blocks) * WIN_BLOCK > max_bytes)
			break;
		if (!window_overlaps(b, from, n)) {
			struct segment *s = segment_new(b, from, n, epoch);

			if (!s)
				break;
			starts[n_starts++] = s;
		}
		from += n;
	}
	return n_starts;
}

/*
 * A segment the file's throttle had no room for (-EAGAIN: a readahead
 * bound above the throttle's bytes) goes out of the list unread instead of
 * failed: every reader call reaching a failed segment would read its
 * bytes itself, one round trip each. The next read plans it again.
 */
static void segment_unstarted(struct buffered *b, struct segment *s)
{
	pthread_mutex_lock(&b->lock);
	segments_drop_if(b, seg_overlaps, s->off, s->len);
	pthread_mutex_unlock(&b->lock);
	segment_finish(b, s, -EAGAIN);
}

static void start_segments(struct buffered *b, struct segment **starts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct segment *s = starts[i];
		struct striped_completion *c = NULL;
		struct io_mem m;
		/*
		 * Never waits: the reader holds the lease, so waiting for it to
		 * be handed over would never end.
		 */
		struct io_req req = {.op = IO_READ,
				     .mem = &m,
				     .len = s->len,
				     .off = s->off,
				     .flags = STRIPED_IO_NOWAIT};
		int r = completion_create(segment_landed, s, &c);

		io_mem_buf(&m, s->data, s->len);
		if (!r)
			r = calls_start(b->f->io, c, &req);
		io_mem_free(&m);
		if (r == -EAGAIN) {
			/* Those after it would find no room either. */
			completion_release(c);
			for (; i < n; i++)
				segment_unstarted(b, starts[i]);
			return;
		}
		if (r) {
			completion_release(c);
			segment_finish(b, s, r);
		}
	}
}

/* Under the lock: where reading ahead goes on, past the segments that already follow pos. */
static uint64_t readahead_from(const struct buffered *b, uint64_t pos)
{
	for (const struct segment *s = b->segs; s && s->off <= pos; s = s->next)
		if (pos < s->off + s->len)
			pos = s->off + s->len;
	return pos;
}

/* Under the lock: the segment of this lock that holds pos, if any. */
static struct segment *segment_at(const struct buffered *b, uint64_t pos, uint64_t epoch)
{
	for (struct segment *s = b->segs; s && s->off <= pos; s = s->next)
		if (pos < s->off + s->len && s->epoch == epoch)
			return s;
	return NULL;
}

/*
 * Under the lock: serve [off, off + len) from segments, as far as they go
 * without a gap, waiting for those still being read. Returns the bytes
 * served; the rest is read through the window.
 */
static uint64_t serve_from_segments(struct buffered *b, const struct io_mem *m, uint64_t off,
				    uint64_t len, uint64_t epoch)
{
	uint64_t served = 0;

	while (served < len) {
		uint64_t pos = off + served, n;
		struct segment *s = segment_at(b, pos, epoch);

		if (!s)
			break;
		s->refs++;
		while (!s->done)
			pthread_cond_wait(&b->room, &b->lock);
		if (s->dropped || s->error || pos >= s->off + s->got) {
			/* Gone meanwhile, failed, or short there (the end of the file then). */
			segment_unref(b, s);
			break;
		}
		n = s->off + s->got - pos;
		if (n > len - served)
			n = len - served;
		/*
		 * Outside the lock: the reference keeps the data, and the
		 * segments landing meanwhile are not held up by the copy.
		 */
		pthread_mutex_unlock(&b->lock);
		io_mem_copy(m, served, s->data + (pos - s->off), n, true);
		pthread_mutex_lock(&b->lock);
		segment_unref(b, s);
		served += n;
	}
	return served;
}

/*
 * A read of the handle: what was read ahead, then the rest through the
 * window; and, for a reader that reads on where it stopped, the next bytes
 * read ahead meanwhile.
 */
ssize_t buffer_read(struct buffered *b, const struct io_mem *m, uint64_t len, uint64_t off)
{
	struct segment *starts[STARTS_MAX];
	size_t n_starts = 0;
	uint64_t epoch, served = 0, ahead, known;
	ssize_t r;

	if (!len)
		return 0;
	/* Segments serve only under the lock they were read under. */
	r = io_file_enter(b->f->io, false, false, &epoch);
	if (r)
		return r;
	r = check_not_silent(b);
	if (r) {
		io_file_exit(b->f->io);
		return r;
	}
	known = io_file_size_known(b->f->io);
	pthread_mutex_lock(&b->lock);
	r = b->error;
	if (!r) {
		segments_drop_if(b, seg_other_epoch, epoch, 0);
		ahead = ra_observe(&b->ra, off, len);
		served = serve_from_segments(b, m, off, len, epoch);
		if (ahead && len <= b->ra_max) {
			/* A sequential reader is done with what lies behind it. */
			segments_drop_if(b, seg_below, off, 0);
			n_starts = plan_readahead(b, readahead_from(b, off + len),
						  off + len + ahead, known, epoch, starts);
		}
	}
	pthread_mutex_unlock(&b->lock);
	start_segments(b, starts, n_starts);
	/* Not held across the read: its own entry may wait for a handover. */
	io_file_exit(b->f->io);
	if (r || served == len)
		return r ? r : (ssize_t)served;
	r = overlay_read_sync(b, m, served, len - served, off + served);
	return r < 0 ? r : r + (ssize_t)served;
}

/* ---- aio reads ---- */

static ssize_t overlay_result(struct striped_completion *c, int first_error)
{
	struct overlay *o = c->call;
	ssize_t r = first_error ? first_error : o->result;

	overlay_free(o);
	return r;
}

/*
 * The caller's call c (a call of the handle, entry e) completes when its
 * internal read did, with the window laid over it. c is started first, so
 * the internal read's callback always finds it; a refusal before anything
 * was sent (-EAGAIN) gives c back untouched. The caller's memory m moves to
 * the read: it lives as long as the call.
 */
static int start_buffered_read(struct buffered *b, const struct call_entry *e,
			       struct striped_completion *c, struct io_mem *m, uint64_t len,
			       uint64_t off, int flags)
{
	struct striped_completion *ic;
	struct overlay *o = overlay_new(b, m, 0, len, off);
	int r;

	if (!o)
		return -ENOMEM;
	io_mem_move(&o->mem, m);
	o->user = c;
	/* The caller's call leaves once c completed. */
	r = calls_own(b->f->io, e, c, overlay_result, o);
	if (!r)
		r = completion_create(overlay_landed, o, &ic);
	if (r) {
		if (r != -EBUSY)
			completion_abandon(c);
		overlay_free(o);
		return r;
	}
	r = overlay_start(o, ic, flags & (STRIPED_IO_NOWAIT | IO_FADVISE_FLAGS));
	if (r) {
		completion_release(ic);
		completion_abandon(c);
		overlay_free(o);
	}
	return r;
}

int buffered_aio_read(struct striped_file *f, struct striped_completion *c, struct io_mem *m,
		      uint64_t len, uint64_t off, int flags)
{
	struct buffered *b = f->buffered;
	struct call_entry e;
	int r;

	pthread_mutex_lock(&b->lock);
	r = b->error;
	pthread_mutex_unlock(&b->lock);
	if (r)
		return r;
	if (!len)
		return completion_complete_now(c, 0);
	r = calls_enter(f->io, flags & STRIPED_IO_NOWAIT, &e);
	if (r)
		return r;
	r = start_buffered_read(b, &e, c, m, len, off, flags);
	if (r)
		calls_leave(f->io, &e);
	return r;
}
