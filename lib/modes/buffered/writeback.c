// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Writes into the window and write-behind: a write is copied into the
 * window's blocks and returns; the flusher (a thread of the handle's) cuts
 * the dirty blocks into runs and sends each as one call of the engine, a
 * unit as soon as it was written whole, the rest once dirty_age old, and
 * everything at a flush, at close, when the window fills and when another
 * client asks for the lock. A failed write-behind is kept until a flush
 * or close reports it.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "buffered_i.h"

/* A write-behind call in flight: the blocks it carries. */
struct wb {
	struct buffered *b;
	uint64_t off, len;
	size_t n;
	struct win_block **blocks; /* n entries, each once */
	struct iovec *iov;
	struct wb *next; /* built, not yet sent */
};

/* ---- write-behind ---- */

/* Its write landed (or failed): its blocks leave the window. */
static void wb_finish(struct buffered *b, struct wb *wb, ssize_t r)
{
	pthread_mutex_lock(&b->lock);
	if (r < 0 && !b->error)
		b->error = (int)r;
	if (r >= 0)
		b->heard_ns = clock_now_ns();
	for (size_t i = 0; i < wb->n; i++) {
		struct win_block *blk = wb->blocks[i];

		if (--blk->sends == 0) {
			win_remove(&b->w, blk);
			block_unref(b, blk);
		}
	}
	b->sending--;
	pthread_cond_broadcast(&b->room);
	kick(b);
	pthread_mutex_unlock(&b->lock);
	free(wb->blocks);
	free(wb->iov);
	free(wb);
}

/* Completion callback, on a librados thread: record and return. */
static void wb_landed(struct striped_completion *c, void *arg)
{
	wb_finish(((struct wb *)arg)->b, arg, completion_result(c));
	completion_release(c);
}

/*
 * Outside the lock: the throttle may make the flusher wait. The blocks
 * stay unchanged until it landed (zero copy), and it goes while the lock
 * is being handed over: it is what the handover waits for.
 */
static void wb_send(struct buffered *b, struct wb *wb)
{
	struct striped_completion *c = NULL;
	struct io_mem m;
	struct io_req req = {.op = IO_WRITE,
			     .mem = &m,
			     .len = wb->len,
			     .off = wb->off,
			     .flags = STRIPED_IO_ZEROCOPY,
			     .handover = true};
	int r = io_mem_iov(&m, wb->iov, (int)wb->n);

	if (!r) {
		r = completion_create(wb_landed, wb, &c);
		if (!r)
			r = calls_start(b->f->io, c, &req);
		io_mem_free(&m);
	}
	if (r) {
		completion_release(c);
		wb_finish(b, wb, r);
	}
}

/* Under the lock: one write for the pieces of a run; its blocks are being sent. */
static struct wb *wb_build(struct buffered *b, const struct win_piece *p, size_t n)
{
	struct wb *wb = calloc(1, sizeof(*wb));

	if (wb) {
		wb->blocks = malloc(n * sizeof(*wb->blocks));
		wb->iov = malloc(n * sizeof(*wb->iov));
	}
	if (!wb || !wb->blocks || !wb->iov) {
		if (wb) {
			free(wb->blocks);
			free(wb->iov);
		}
		free(wb);
		return NULL;
	}
	wb->b = b;
	wb->n = n;
	wb->off = win_run_offset(p);
	wb->len = win_run_length(p, n);
	for (size_t i = 0; i < n; i++) {
		wb->blocks[i] = p[i].b;
		wb->iov[i] = (struct iovec){p[i].b->data + p[i].lo, p[i].hi - p[i].lo};
		p[i].b->sends++;
		win_mark_sending(&b->w, p[i].b);
	}
	b->sending++;
	return wb;
}

/*
 * Under the lock: cut blocks (dirty, sorted) into runs and build a write
 * for each, chained in file order from *out. A run that cannot be built
 * (no memory) stays dirty and is tried again at the next pass.
 */
static void runs_build(struct buffered *b, struct win_block **v, size_t n, struct wb **out)
{
	struct win_piece pieces[RUN_PIECES_MAX];
	size_t at = 0, range = 0;

	while (*out)
		out = &(*out)->next;

	while (at < n) {
		size_t used, next_range;
		size_t np =
		    win_next_run(v + at, n - at, range, pieces, RUN_PIECES_MAX, &used, &next_range);
		struct wb *wb = wb_build(b, pieces, np);

		if (!wb)
			return;
		*out = wb;
		out = &wb->next;
		at += used;
		range = next_range;
	}
}

/* Under the lock: the dirty blocks to send now, sorted. */
static size_t collect_dirty(struct buffered *b, struct win_block **v, bool all, uint64_t now)
{
	size_t n = 0;

	for (struct win_block *blk = b->w.oldest; blk; blk = blk->newer)
		if (all || now - blk->dirtied_ns >= b->dirty_age_ns)
			v[n++] = blk;
	for (unsigned u = 0; u < b->nready; u++)
		for (uint64_t i = 0; i < b->unit_blocks; i++) {
			struct win_block *blk = win_find(&b->w, b->ready[u] + i);

			/* Not if it is already in v: it was aged, or all go. */
			if (blk && blk->state == WIN_DIRTY && !all &&
			    now - blk->dirtied_ns < b->dirty_age_ns)
				v[n++] = blk;
		}
	b->nready = 0;
	win_sort(v, n);
	/* A unit queued twice would list its blocks twice. */
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* ---- the flusher ---- */

/* When the oldest dirty block comes of age, or never (none is dirty). */
static bool next_deadline(const struct buffered *b, struct timespec *ts)
{
	uint64_t at;

	if (!b->w.oldest)
		return false;
	at = b->w.oldest->dirtied_ns + b->dirty_age_ns;
	ts->tv_sec = (time_t)(at / 1000000000ull);
	ts->tv_nsec = (long)(at % 1000000000ull);
	return true;
}

static bool has_work(const struct buffered *b, uint64_t now)
{
	return b->stop || b->close_deferred || b->nready || b->flushes ||
	       (b->w.dirty &&
		(b->send_all || b->asked || now - b->w.oldest->dirtied_ns >= b->dirty_age_ns)) ||
	       (b->pinned && !b->w.dirty) || (b->asked && b->segs) ||
	       b->freed_blocks >= b->trim_blocks;
}

/*
 * One pass, under the lock (let go of while sending): send what is due,
 * place the barriers of the flushes asked for, and give the lease entry
 * back once nothing waits in the window.
 */
static void flusher_pass(struct buffered *b)
{
	bool all = b->send_all || b->asked || b->flushes || b->close_deferred;
	struct win_block **v = NULL;
	struct flush_req *flushes;
	struct wb *sends = NULL;
	bool unpin = false, trim;
	uint64_t slack = b->trim_blocks * WIN_BLOCK, held;
	size_t n = 0;

	if (b->w.dirty || b->nready) {
		v = malloc((b->w.dirty + (size_t)b->nready * b->unit_blocks + 1) * sizeof(*v));
		if (v)
			n = collect_dirty(b, v, all, clock_now_ns());
		if (v && n)
			runs_build(b, v, n, &sends);
		free(v);
	}
	if (!b->w.dirty)
		b->send_all = false;
	if (b->asked) {
		/* The lock goes to another client: nothing read ahead may outlive it. */
		segments_drop_if(b, seg_any, 0, 0);
		if (!b->w.dirty)
			b->asked = false;
	}
	flushes = b->flushes;
	b->flushes = NULL;
	if (b->pinned && !b->w.dirty) {
		b->pinned = false;
		unpin = true;
	}
	trim = b->freed_blocks >= b->trim_blocks;
	if (trim)
		b->freed_blocks = 0;
	held = segments_mapped(b);
	pthread_mutex_unlock(&b->lock);
	if (trim)
		heap_trim(b, slack, held);
	while (sends) {
		struct wb *next = sends->next;

		wb_send(b, sends);
		sends = next;
	}
	/* After the sends: each barrier covers them. */
	while (flushes) {
		struct flush_req *next = flushes->next;

		calls_flush_barrier(b->f->io, flushes->c);
		free(flushes);
		flushes = next;
	}
	if (unpin)
		io_file_exit(b->f->io);
	pthread_mutex_lock(&b->lock);
}

void *flusher_main(void *arg)
{
	struct buffered *b = arg;
	struct timespec ts;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (!has_work(b, clock_now_ns())) {
			if (next_deadline(b, &ts))
				pthread_cond_timedwait(&b->work, &b->lock, &ts);
			else
				pthread_cond_wait(&b->work, &b->lock);
		}
		if (b->stop) {
			/* Flushes asked for just before the close still get their barrier. */
			if (b->flushes)
				flusher_pass(b);
			break;
		}
		flusher_pass(b);
		if (b->close_deferred && !b->w.dirty) {
			/* Closed from a callback: close here, where waiting is allowed. */
			pthread_mutex_unlock(&b->lock);
			pthread_detach(pthread_self());
			b->close_file(b->f); /* frees b */
			return NULL;
		}
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* librados watch callback (lease.c): another client asks for the lock. */
void buffer_asked(void *arg)
{
	struct buffered *b = arg;

	pthread_mutex_lock(&b->lock);
	b->asked = true;
	kick(b);
	pthread_mutex_unlock(&b->lock);
}

/* ---- sending everything ---- */

/* Under the lock: send everything and wait until it all landed. */
void drain_locked(struct buffered *b)
{
	while (b->w.nblocks || b->sending) {
		if (b->w.dirty) {
			b->send_all = true;
			kick(b);
		}
		pthread_cond_wait(&b->room, &b->lock);
	}
}

/* The first write-behind error not reported yet, now reported. */
int take_error_locked(struct buffered *b)
{
	int r = b->error;

	b->error = 0;
	return r;
}

/*
 * Before the handle's own truncate, discard or append: the window is sent
 * and waited for, what was read ahead dropped. Returns (and reports) the
 * first write-behind error.
 */
int buffer_drain(struct buffered *b)
{
	int r;

	pthread_mutex_lock(&b->lock);
	drain_locked(b);
	segments_drop_if(b, seg_any, 0, 0);
	r = take_error_locked(b);
	pthread_mutex_unlock(&b->lock);
	return r;
}

/*
 * Before a discard of [off, off + len): the window's blocks there are sent
 * and waited for (they are older than the discard), what was read ahead
 * there dropped. With nowait, -EAGAIN instead of waiting.
 */
int buffer_settle(struct buffered *b, uint64_t off, uint64_t len, bool nowait)
{
	int r = 0;

	pthread_mutex_lock(&b->lock);
	while (window_overlaps(b, off, len)) {
		if (nowait) {
			r = -EAGAIN;
			break;
		}
		b->send_all = true;
		kick(b);
		pthread_cond_wait(&b->room, &b->lock);
	}
	segments_drop_if(b, seg_overlaps, off, len);
	pthread_mutex_unlock(&b->lock);
	return r;
}

/* ---- writes into the window ---- */

/* Whether [off, off + len) can go into the window now; *missing: blocks to allocate. */
static bool write_fits(const struct buffered *b, uint64_t off, uint64_t len, uint64_t *missing)
{
	*missing = 0;
	for (uint64_t i = off / WIN_BLOCK; i <= (off + len - 1) / WIN_BLOCK; i++) {
		const struct win_block *blk = win_find(&b->w, i);
		uint32_t lo, hi;

		if (!blk) {
			(*missing)++;
			continue;
		}
		block_span(i, off, len, &lo, &hi);
		/* Being sent, or too many separate ranges: it must land first. */
		if (blk->state != WIN_DIRTY || !win_block_fits(blk, lo, hi))
			return false;
	}
	return blocks_fit(b, *missing);
}

/* A unit the write completed goes to the flusher. */
static void queue_unit(struct buffered *b, uint64_t index)
{
	uint64_t first = index / b->unit_blocks * b->unit_blocks;

	if (!win_unit_complete(&b->w, first, b->unit_blocks))
		return;
	for (unsigned u = 0; u < b->nready; u++)
		if (b->ready[u] == first)
			return;
	if (b->nready < READY_MAX)
		b->ready[b->nready++] = first;
	else
		b->send_all = true;
	kick(b);
}

/* Under the lock, the room checked: copy [moff, moff + len) of m to the window at off. */
static int window_copy(struct buffered *b, const struct io_mem *m, uint64_t moff, uint64_t len,
		       uint64_t off)
{
	for (uint64_t i = off / WIN_BLOCK; i <= (off + len - 1) / WIN_BLOCK; i++) {
		struct win_block *blk = win_find(&b->w, i);
		uint32_t lo, hi;

		if (!blk)
			blk = block_new(b, i);
		if (!blk)
			return -ENOMEM;
		block_span(i, off, len, &lo, &hi);
		io_mem_copy(m, moff + (i * WIN_BLOCK + lo - off), blk->data + lo, hi - lo, false);
		win_block_add(blk, lo, hi);
		win_note_write(&b->w, blk);
		if (win_block_full(blk))
			queue_unit(b, i);
	}
	/* What was read ahead there is older than this now. */
	segments_drop_if(b, seg_overlaps, off, len);
	return 0;
}

/* One piece of a write, at most half the window: waits for room, or -EAGAIN. */
static int window_write_piece(struct buffered *b, const struct io_mem *m, uint64_t moff,
			      uint64_t len, uint64_t off, bool nowait)
{
	uint64_t missing;
	int r = 0;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		r = b->error;
		if (r || write_fits(b, off, len, &missing))
			break;
		if (segments_reclaim(b))
			continue;
		/* Full, or a block of it on the wire: what is dirty goes, then we wait. */
		b->send_all = true;
		kick(b);
		if (nowait) {
			r = -EAGAIN;
			break;
		}
		pthread_cond_wait(&b->room, &b->lock);
	}
	if (!r)
		r = window_copy(b, m, moff, len, off);
	pthread_mutex_unlock(&b->lock);
	return r;
}

/* Fenced, or the file gone: what the window holds can never land. */
static bool fatal(int r)
{
	return r == -ESHUTDOWN || r == -ESTALE;
}

/*
 * Under the lease, before a call the window answers without the cluster:
 * if nothing came back from the cluster for SILENCE_NS (the process may
 * have been paused, and fenced meanwhile), check the lock first, so a
 * fenced handle fails now rather than take bytes it can only lose.
 */
int check_not_silent(struct buffered *b)
{
	uint64_t now = clock_now_ns(), heard = io_file_granted_ns(b->f->io);
	int r;

	pthread_mutex_lock(&b->lock);
	if (b->heard_ns > heard)
		heard = b->heard_ns;
	r = b->error;
	pthread_mutex_unlock(&b->lock);
	if (r || now - heard < SILENCE_NS)
		return r;
	r = io_file_confirm(b->f->io);
	pthread_mutex_lock(&b->lock);
	if (!r)
		b->heard_ns = now;
	else if (fatal(r) && !b->error)
		b->error = r;
	pthread_mutex_unlock(&b->lock);
	return r;
}

/*
 * Under the lease: the handle keeps one entry while the window holds data
 * not sent yet (the flusher gives it back), so the lock is not let go of
 * with that data unsent.
 */
static bool keep_entry(struct buffered *b)
{
	bool keep;

	pthread_mutex_lock(&b->lock);
	keep = !b->pinned && b->w.dirty;
	if (keep)
		b->pinned = true;
	pthread_mutex_unlock(&b->lock);
	return keep;
}

ssize_t buffer_write(struct buffered *b, const struct io_mem *m, uint64_t len, uint64_t off,
		     int flags)
{
	bool nowait = flags & STRIPED_IO_NOWAIT;
	uint64_t piece_max, done = 0, epoch;
	int r;

	if (!len)
		return 0;
	r = gate_enter(&b->copies, nowait, NULL);
	if (r)
		return r;
	r = io_file_enter(b->f->io, true, nowait, &epoch);
	if (r) {
		gate_leave(&b->copies);
		return r;
	}
	r = nowait ? 0 : check_not_silent(b);
	if (r) {
		io_file_exit(b->f->io);
		gate_leave(&b->copies);
		return r;
	}
	pthread_mutex_lock(&b->lock);
	piece_max = b->max_blocks / 2 * WIN_BLOCK;
	pthread_mutex_unlock(&b->lock);
	while (done < len && !r) {
		uint64_t pos = off + done;
		uint64_t n = piece_max - pos % WIN_BLOCK;

		if (n > len - done)
			n = len - done;
		r = window_write_piece(b, m, done, n, pos, nowait);
		if (!r)
			done += n;
	}
	if (!keep_entry(b))
		io_file_exit(b->f->io);
	gate_leave(&b->copies);
	return r && !done ? r : (ssize_t)done;
}

/* ---- flush ---- */

/* The flush's result: the first write-behind error, now reported. */
static ssize_t flush_result(struct striped_completion *c, int first_error)
{
	struct buffered *b = c->call;
	int r;

	pthread_mutex_lock(&b->lock);
	r = take_error_locked(b);
	pthread_mutex_unlock(&b->lock);
	return first_error ? first_error : r;
}

/* Never waits: the flusher sends the window, then places c's barrier after it. */
int buffer_aio_flush(struct buffered *b, struct striped_completion *c)
{
	struct flush_req *req = malloc(sizeof(*req));
	int r;

	if (!req)
		return -ENOMEM;
	r = completion_start(c, flush_result, b, NULL, NULL, 0);
	if (r) {
		free(req);
		return r;
	}
	req->c = c;
	pthread_mutex_lock(&b->lock);
	req->next = b->flushes;
	b->flushes = req;
	kick(b);
	pthread_mutex_unlock(&b->lock);
	return 0;
}
