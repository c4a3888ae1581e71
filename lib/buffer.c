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
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "striped_i.h"

#define MS 1000000ull

#define WINDOW_DEFAULT (64ull << 20)
#define WINDOW_MIN (1ull << 20)
#define DIRTY_AGE_MS_DEFAULT 200u
#define DIRTY_AGE_MS_MAX 60000u
/* One write-behind call carries at most this many pieces (16 MiB of whole blocks). */
#define RUN_PIECES_MAX 256
/* Units that write-behind sends whole: one stripe, within these bounds. */
#define UNIT_MIN (1ull << 20)
#define UNIT_MAX (16ull << 20)
/* Readahead goes in segments of one stripe, within these bounds. */
#define SEGMENT_MIN (1ull << 20)
#define SEGMENT_MAX (8ull << 20)
/* Complete units queued for the flusher; past this it sends everything dirty. */
#define READY_MAX 64
/* A handle that heard nothing from the cluster for this long checks its lock first. */
#define SILENCE_NS (1000 * MS)

/*
 * The heap is trimmed once segments of a quarter of the window were freed
 * (1 to 16 MiB): freed bytes not yet handed back, with what is read ahead
 * (at most half the window), stay within the window.
 */
#define TRIM_PAGES_MIN ((1ull << 20) / WIN_BLOCK)
#define TRIM_PAGES_MAX ((16ull << 20) / WIN_BLOCK)

/* A piece of a segment as librados received it: bytes [buf_off, buf_off + got). */
struct kept {
	uint64_t buf_off, got;
	struct obj_read *r;
	size_t piece;
	bool owner; /* frees r (its first piece) */
};

/*
 * A run of the file read ahead, its bytes kept in the bufferlists librados
 * received them in (copied once, into the reader's buffer); what no piece
 * holds below got reads as zeros (holes, missing objects).
 */
struct segment {
	struct buffer *b;
	uint64_t off, len;
	uint64_t got;	/* bytes read; short only at the end of the file */
	uint64_t epoch; /* the lock it was read under */
	int error;
	bool done;
	bool dropped;	/* out of the list: freed once unreferenced */
	unsigned refs;	/* the list's, the read in flight's, each waiting reader's */
	uint64_t pages; /* what it counts against the window */
	struct kept *kept;
	size_t nkept, cap;
	struct read_sink *sink; /* the engine's handle on it */
	struct segment *next;	/* the list, by offset */
};

/* What the engine sees of a segment. */
struct read_sink {
	struct segment *seg;
};

/* A write-behind call in flight: the blocks it carries. */
struct wb {
	struct buffer *b;
	uint64_t off, len;
	size_t n;
	struct win_block **blocks; /* n entries, each once */
	struct iovec *iov;
	struct wb *next; /* built, not yet sent */
};

/* An aio flush whose barrier the flusher places after sending everything. */
struct flush_req {
	struct striped_completion *c;
	struct flush_req *next;
};

struct buffer {
	struct striped_file *f;
	pthread_mutex_t lock;
	pthread_cond_t room; /* writers and readers: a block landed, a segment came in */
	pthread_cond_t work; /* the flusher (CLOCK_MONOTONIC) */
	struct window w;

	uint64_t max_pages; /* the window, in blocks */
	uint64_t ra_max;
	uint64_t dirty_age_ns;
	uint64_t unit_blocks;
	uint64_t segment_bytes;

	uint64_t pages; /* in use, by blocks */
	/* Held by segments (in librados' buffers), in pages: they count against the window. */
	uint64_t segment_pages;
	char *free_pages; /* a list threaded through the pages themselves */
	uint64_t nfree;

	uint64_t ready[READY_MAX]; /* complete units (first block), for the flusher */
	unsigned nready;
	bool send_all;	   /* pressure, flush, close: everything dirty goes */
	bool asked;	   /* another client wants the lock */
	unsigned sending;  /* write-behind calls in flight */
	int error;	   /* the first failed write-behind, until a flush reports it */
	uint64_t heard_ns; /* when a write-behind or read last came back from the cluster */
	bool pinned;	   /* holds a lease entry while data waits in the window */
	struct flush_req *flushes;
	bool stop;
	bool close_deferred; /* closed from a callback: the flusher closes the file */
	pthread_t flusher;
	bool flusher_running;

	struct ra_policy ra;
	struct segment *segs;
	unsigned segs_reading;
	uint64_t freed_pages; /* of segments, since the heap was last trimmed */
	uint64_t trim_pages;  /* trimmed once freed_pages reaches it */
};

/* ---- settings ---- */

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A stripe, in whole blocks, within [lo, hi]. */
static uint64_t stripe_bytes(const struct striped_layout *l, uint64_t lo, uint64_t hi)
{
	uint64_t stripe = l->stripe_unit * l->stripe_count;

	return clamp(stripe, lo, hi) / WIN_BLOCK * WIN_BLOCK;
}

static void apply_config(struct buffer *b, const struct striped_buffer_config *cfg)
{
	b->max_pages = cfg->window / WIN_BLOCK;
	b->trim_pages = clamp(b->max_pages / 4, TRIM_PAGES_MIN, TRIM_PAGES_MAX);
	b->ra_max = cfg->readahead_max / WIN_BLOCK * WIN_BLOCK;
	b->dirty_age_ns = (uint64_t)cfg->dirty_age_ms * MS;
	b->ra.max = b->ra_max;
	b->ra.min = b->segment_bytes < b->ra_max ? b->segment_bytes : b->ra_max;
}

/* The config as the caller gave it (cfg_size bytes of it), the defaults for the rest. */
int buffer_check_config(const struct striped_buffer_config *in, size_t cfg_size,
			struct striped_buffer_config *out)
{
	struct striped_buffer_config cfg = STRIPED_BUFFER_CONFIG_INIT;

	if (!in || cfg_size < sizeof(cfg.window))
		return -EINVAL;
	memcpy(&cfg, in, cfg_size < sizeof(cfg) ? cfg_size : sizeof(cfg));
	if (cfg_size < offsetof(struct striped_buffer_config, dirty_age_ms) + sizeof(uint32_t))
		cfg.dirty_age_ms = DIRTY_AGE_MS_DEFAULT;
	if (cfg_size < offsetof(struct striped_buffer_config, readahead_max) + sizeof(uint64_t))
		cfg.readahead_max = cfg.window / 2;
	if (cfg.window < WINDOW_MIN || cfg.window > ((uint64_t)1 << 40) ||
	    cfg.readahead_max > cfg.window || cfg.dirty_age_ms > DIRTY_AGE_MS_MAX)
		return -EINVAL;
	*out = cfg;
	return 0;
}

/* ---- pages ---- */

static char *page_get(struct buffer *b)
{
	char *p = b->free_pages;

	if (p) {
		b->free_pages = *(char **)(void *)p;
		b->nfree--;
	} else if (!(p = malloc(WIN_BLOCK))) {
		/* Not page-aligned on purpose: glibc would waste a page on each. */
		return NULL;
	}
	b->pages++;
	return p;
}

/* Pages in use, kept for reuse, and held by librados for us: never more than the window. */
static uint64_t footprint(const struct buffer *b)
{
	return b->pages + b->nfree + b->segment_pages;
}

/* Whether n more pages fit: taken from those kept for reuse first, then new ones. */
static bool pages_fit(const struct buffer *b, uint64_t n)
{
	uint64_t fresh = n > b->nfree ? n - b->nfree : 0;

	return footprint(b) + fresh <= b->max_pages;
}

/*
 * Kept for reuse: a few only, so the reuse list never takes the room
 * segments need; the rest go back to malloc, which keeps them for the next
 * allocation anyway.
 */
#define FREE_KEEP 64

static void page_put(struct buffer *b, char *p)
{
	b->pages--;
	if (b->nfree < FREE_KEEP && footprint(b) < b->max_pages) {
		*(char **)(void *)p = b->free_pages;
		b->free_pages = p;
		b->nfree++;
	} else {
		free(p);
	}
}

static void pages_trim(struct buffer *b)
{
	while (b->free_pages && footprint(b) > b->max_pages) {
		char *p = b->free_pages;

		b->free_pages = *(char **)(void *)p;
		b->nfree--;
		free(p);
	}
}

/* ---- blocks ---- */

static void block_unref(struct buffer *b, struct win_block *blk)
{
	if (--blk->refs)
		return;
	page_put(b, blk->data);
	free(blk);
}

static struct win_block *block_new(struct buffer *b, uint64_t index)
{
	struct win_block *blk = calloc(1, sizeof(*blk));

	if (!blk)
		return NULL;
	blk->data = page_get(b);
	if (!blk->data) {
		free(blk);
		return NULL;
	}
	blk->index = index;
	blk->refs = 1; /* the index's */
	win_insert(&b->w, blk, striped_now_ns());
	return blk;
}

/* The bytes of block index that [off, off + len) covers. */
static void block_span(uint64_t index, uint64_t off, uint64_t len, uint32_t *lo, uint32_t *hi)
{
	uint64_t start = index * WIN_BLOCK, end = start + WIN_BLOCK;

	*lo = (uint32_t)(off > start ? off - start : 0);
	*hi = (uint32_t)((off + len < end ? off + len : end) - start);
}

/* Whether any block of the window lies in [off, off + len). */
static bool window_overlaps(const struct buffer *b, uint64_t off, uint64_t len)
{
	if (!b->w.nblocks || !len)
		return false;
	for (uint64_t i = off / WIN_BLOCK; i <= (off + len - 1) / WIN_BLOCK; i++)
		if (win_find(&b->w, i))
			return true;
	return false;
}

/* ---- segments ---- */

static void kick(struct buffer *b);

static void segment_unref(struct buffer *b, struct segment *s)
{
	if (--s->refs)
		return;
	for (size_t i = 0; i < s->nkept; i++)
		if (s->kept[i].owner)
			obj_read_free(s->kept[i].r);
	b->segment_pages -= s->pages;
	b->freed_pages += s->pages;
	if (b->freed_pages >= b->trim_pages)
		kick(b);
	free(s->kept);
	free(s->sink);
	free(s);
}

static void segment_drop(struct buffer *b, struct segment *s)
{
	struct segment **p = &b->segs;

	while (*p && *p != s)
		p = &(*p)->next;
	if (*p)
		*p = s->next;
	s->dropped = true;
	segment_unref(b, s);
}

/* Drop the segments that match: those a write overlaps, a stale lock's, consumed ones. */
static void segments_drop_if(struct buffer *b,
			     bool (*match)(const struct segment *, uint64_t, uint64_t), uint64_t a,
			     uint64_t c)
{
	struct segment *s = b->segs, *next;

	for (; s; s = next) {
		next = s->next;
		if (match(s, a, c))
			segment_drop(b, s);
	}
}

static bool seg_overlaps(const struct segment *s, uint64_t off, uint64_t len)
{
	return s->off < off + len && off < s->off + s->len;
}

static bool seg_other_epoch(const struct segment *s, uint64_t epoch, uint64_t unused)
{
	(void)unused;
	return s->epoch != epoch;
}

static bool seg_below(const struct segment *s, uint64_t pos, uint64_t unused)
{
	(void)unused;
	return s->off + s->len <= pos;
}

static bool seg_any(const struct segment *s, uint64_t a, uint64_t c)
{
	(void)s;
	(void)a;
	(void)c;
	return true;
}

/* Segments that came in are given up for a writer that needs their pages. */
static bool segments_reclaim(struct buffer *b)
{
	struct segment *s = b->segs, *next;
	bool any = false;

	for (; s; s = next) {
		next = s->next;
		if (s->done) {
			segment_drop(b, s);
			any = true;
		}
	}
	return any;
}

/* ---- write-behind ---- */

static void kick(struct buffer *b)
{
	pthread_cond_signal(&b->work);
}

/* Its write landed (or failed): its blocks leave the window. */
static void wb_finish(struct buffer *b, struct wb *wb, ssize_t r)
{
	pthread_mutex_lock(&b->lock);
	if (r < 0 && !b->error && STRIPED_THRASH_DEFECT != 1) /* 1: a write-behind error dropped */
		b->error = (int)r;
	if (r >= 0)
		b->heard_ns = striped_now_ns();
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
	wb_finish(((struct wb *)arg)->b, arg, striped_completion_result(c));
	striped_completion_release(c);
}

static int start_wb(const struct io_target *t, struct striped_completion *c, char *arg, size_t len,
		    uint64_t off, int flags)
{
	struct wb *wb = (struct wb *)(void *)arg;

	return io_start_writev(t, c, wb->iov, (int)wb->n, len, off, flags);
}

/* Outside the lock: the throttle may make the flusher wait. */
static void wb_send(struct buffer *b, struct wb *wb)
{
	struct striped_completion *c = NULL;
	int r = striped_completion_create(wb_landed, wb, &c);

	if (!r)
		r = file_start_call(b->f, start_wb, c, (char *)wb, (size_t)wb->len, wb->off,
				    STRIPED_IO_ZEROCOPY | IO_INTERNAL_DRAIN);
	if (r) {
		striped_completion_release(c);
		wb_finish(b, wb, r);
	}
}

/* Under the lock: one write for the pieces of a run; its blocks are being sent. */
static struct wb *wb_build(struct buffer *b, const struct win_piece *p, size_t n)
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
static void runs_build(struct buffer *b, struct win_block **v, size_t n, struct wb **out)
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
static size_t collect_dirty(struct buffer *b, struct win_block **v, bool all, uint64_t now)
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
static bool next_deadline(const struct buffer *b, struct timespec *ts)
{
	uint64_t at;

	if (!b->w.oldest)
		return false;
	at = b->w.oldest->dirtied_ns + b->dirty_age_ns;
	ts->tv_sec = (time_t)(at / 1000000000ull);
	ts->tv_nsec = (long)(at % 1000000000ull);
	return true;
}

static bool has_work(const struct buffer *b, uint64_t now)
{
	return b->stop || b->close_deferred || b->nready || b->flushes ||
	       (b->w.dirty &&
		(b->send_all || b->asked || now - b->w.oldest->dirtied_ns >= b->dirty_age_ns)) ||
	       (b->pinned && !b->w.dirty) || (b->asked && b->segs) ||
	       b->freed_pages >= b->trim_pages;
}

/*
 * What a reader consumed was held in librados' receive buffers, which glibc
 * keeps on its heaps once freed (its mmap threshold rises to their size):
 * a buffered reader's resident memory grew to 5 times its window (1 GiB of
 * 64 KiB reads: 311-327 MiB resident against 67-71 MiB when trimmed, at
 * 4% less throughput). Handing the free pages back keeps it near the
 * window. Once per trim_pages freed, from the flusher, never the caller.
 */
static void heap_trim(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/*
 * One pass, under the lock (let go of while sending): send what is due,
 * place the barriers of the flushes asked for, and give the lease entry
 * back once nothing waits in the window.
 */
static void flusher_pass(struct buffer *b)
{
	bool all = b->send_all || b->asked || b->flushes || b->close_deferred;
	struct win_block **v = NULL;
	struct flush_req *flushes;
	struct wb *sends = NULL;
	bool unpin = false, trim;
	size_t n = 0;

	if (b->w.dirty || b->nready) {
		v = malloc((b->w.dirty + (size_t)b->nready * b->unit_blocks + 1) * sizeof(*v));
		if (v)
			n = collect_dirty(b, v, all, striped_now_ns());
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
	trim = b->freed_pages >= b->trim_pages;
	if (trim)
		b->freed_pages = 0;
	pthread_mutex_unlock(&b->lock);
	if (trim)
		heap_trim();
	while (sends) {
		struct wb *next = sends->next;

		wb_send(b, sends);
		sends = next;
	}
	/* After the sends: each barrier covers them. */
	while (flushes) {
		struct flush_req *next = flushes->next;

		file_flush_barrier(b->f, flushes->c);
		free(flushes);
		flushes = next;
	}
	if (unpin)
		lease_exit(&b->f->lease);
	pthread_mutex_lock(&b->lock);
}

static void *flusher_main(void *arg)
{
	struct buffer *b = arg;
	struct timespec ts;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (!has_work(b, striped_now_ns())) {
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
			striped_close(b->f); /* frees b */
			return NULL;
		}
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* librados watch callback (lease.c): another client asks for the lock. */
static void buffer_asked(void *arg)
{
	struct buffer *b = arg;

	pthread_mutex_lock(&b->lock);
	b->asked = true;
	kick(b);
	pthread_mutex_unlock(&b->lock);
}

/* ---- open, configure, close ---- */

int buffer_open(struct striped_file *f)
{
	struct striped_buffer_config cfg = STRIPED_BUFFER_CONFIG_INIT;
	pthread_condattr_t attr;
	struct buffer *b = calloc(1, sizeof(*b));
	int r;

	if (!b)
		return -ENOMEM;
	b->f = f;
	b->heard_ns = striped_now_ns();
	b->unit_blocks = stripe_bytes(&f->layout, UNIT_MIN, UNIT_MAX) / WIN_BLOCK;
	b->segment_bytes = stripe_bytes(&f->layout, SEGMENT_MIN, SEGMENT_MAX);
	ra_init(&b->ra, 0, 0);
	apply_config(b, &cfg);
	r = win_init(&b->w, b->max_pages);
	if (r) {
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
	f->buf = b;
	/* Only now: the watch callback may find it from here on. */
	pthread_mutex_lock(&f->lease.lock);
	f->lease.asked_arg = b;
	f->lease.asked = buffer_asked;
	pthread_mutex_unlock(&f->lease.lock);
	return 0;
}

int buffer_configure(struct buffer *b, const struct striped_buffer_config *cfg)
{
	pthread_mutex_lock(&b->lock);
	apply_config(b, cfg);
	pages_trim(b);
	/* A smaller window may be over-full: writers wait while it drains. */
	if (b->pages > b->max_pages)
		b->send_all = true;
	kick(b);
	pthread_cond_broadcast(&b->room);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

/* Under the lock: send everything and wait until it all landed. */
static void drain_locked(struct buffer *b)
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
static int take_error_locked(struct buffer *b)
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
int buffer_drain(struct buffer *b)
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
int buffer_settle(struct buffer *b, uint64_t off, uint64_t len, bool nowait)
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

/*
 * Close: everything sent and landed, the flusher stopped, the lease entry
 * given back. Returns the first write-behind error not reported yet. On the
 * flusher itself (a close from a callback) there is nothing to join.
 */
int buffer_close(struct buffer *b)
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
		lease_exit(&b->f->lease);
	return r;
}

/* From a completion callback: the flusher sends the window, then closes the file. */
void buffer_close_deferred(struct buffer *b)
{
	pthread_mutex_lock(&b->lock);
	b->close_deferred = true;
	kick(b);
	pthread_mutex_unlock(&b->lock);
}

/* Once no call is left (file_free): everything the buffer still holds goes. */
void buffer_free(struct buffer *b)
{
	if (!b)
		return;
	segments_drop_if(b, seg_any, 0, 0);
	while (b->free_pages) {
		char *p = b->free_pages;

		b->free_pages = *(char **)(void *)p;
		free(p);
	}
	win_destroy(&b->w);
	pthread_cond_destroy(&b->work);
	pthread_cond_destroy(&b->room);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

/* ---- writes ---- */

/* Whether [off, off + len) can go into the window now; *missing: blocks to allocate. */
static bool write_fits(const struct buffer *b, uint64_t off, uint64_t len, uint64_t *missing)
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
	return pages_fit(b, *missing);
}

/* A unit the write completed goes to the flusher. */
static void queue_unit(struct buffer *b, uint64_t index)
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
static int window_copy(struct buffer *b, const struct io_mem *m, uint64_t moff, uint64_t len,
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
static int window_write_piece(struct buffer *b, const struct io_mem *m, uint64_t moff, uint64_t len,
			      uint64_t off, bool nowait)
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
static int check_not_silent(struct buffer *b)
{
	uint64_t now = striped_now_ns(), heard = lease_granted_ns(&b->f->lease);
	int r;

	pthread_mutex_lock(&b->lock);
	if (b->heard_ns > heard)
		heard = b->heard_ns;
	r = b->error;
	pthread_mutex_unlock(&b->lock);
	if (r || now - heard < SILENCE_NS)
		return r;
	r = lease_confirm(&b->f->lease);
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
static bool keep_entry(struct buffer *b)
{
	bool keep;

	pthread_mutex_lock(&b->lock);
	keep = !b->pinned && b->w.dirty;
	if (keep)
		b->pinned = true;
	pthread_mutex_unlock(&b->lock);
	return keep;
}

ssize_t buffer_write(struct buffer *b, const struct io_mem *m, uint64_t len, uint64_t off,
		     int flags)
{
	bool nowait = flags & STRIPED_IO_NOWAIT;
	uint64_t piece_max, done = 0, epoch;
	int r;

	if (!len)
		return 0;
	r = lease_enter(&b->f->lease, LEASE_CHANGES | (nowait ? LEASE_NOWAIT : 0), &epoch);
	if (r)
		return r;
	r = nowait ? 0 : check_not_silent(b);
	if (r) {
		lease_exit(&b->f->lease);
		return r;
	}
	pthread_mutex_lock(&b->lock);
	piece_max = b->max_pages / 2 * WIN_BLOCK;
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
		lease_exit(&b->f->lease);
	return r && !done ? r : (ssize_t)done;
}

/* ---- reads: through the window ---- */

/* A read of RADOS whose result the window's blocks are laid over. */
struct overlay {
	struct buffer *b;
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
	struct buffer *b = o->b;
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
	struct buffer *b = o->b;
	ssize_t r = striped_completion_result(c);

	pthread_mutex_lock(&b->lock);
	if (r >= 0) {
		r = (ssize_t)overlay_apply(o, (uint64_t)r);
		b->heard_ns = striped_now_ns();
	}
	overlay_unpin(o);
	pthread_mutex_unlock(&b->lock);
	o->result = r;
	if (o->user) {
		striped_completion_release(c);
		completion_submit_end(o->user, r < 0 ? (int)r : 0);
	}
}

static int start_overlay_read(const struct io_target *t, struct striped_completion *c, char *arg,
			      size_t len, uint64_t off, int flags)
{
	struct overlay *o = (struct overlay *)(void *)arg;

	return io_start_readv(t, c, o->iov, o->iovcnt, len, off, flags);
}

static struct overlay *overlay_new(struct buffer *b, const struct io_mem *m, uint64_t base,
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
	o->mem = *m;
	if (m->iov == &m->one)
		o->mem.iov = &o->mem.one;
	o->mem.ends = m->ends;
	o->iov = io_mem_slice(m, base, len, &o->iovcnt);
	if (!o->iov) {
		free(o);
		return NULL;
	}
	return o;
}

/* Pin, then start the internal read; c is its completion (callback overlay_landed). */
static int overlay_start(struct overlay *o, struct striped_completion *c, int flags)
{
	struct buffer *b = o->b;
	int r;

	pthread_mutex_lock(&b->lock);
	r = overlay_pin(o);
	if (r)
		overlay_unpin(o);
	pthread_mutex_unlock(&b->lock);
	if (!r)
		r = file_start_call(b->f, start_overlay_read, c, (char *)o, (size_t)o->len, o->off,
				    flags);
	if (r) {
		pthread_mutex_lock(&b->lock);
		overlay_unpin(o);
		pthread_mutex_unlock(&b->lock);
	}
	return r;
}

/* Read [off, off + len) into m at base, through the window, waiting for it. */
static ssize_t overlay_read_sync(struct buffer *b, const struct io_mem *m, uint64_t base,
				 uint64_t len, uint64_t off)
{
	struct striped_completion *c;
	struct overlay *o = overlay_new(b, m, base, len, off);
	ssize_t r;

	if (!o)
		return -ENOMEM;
	r = striped_completion_create(overlay_landed, o, &c);
	if (!r) {
		r = overlay_start(o, c, 0);
		if (!r) {
			striped_completion_wait(c);
			r = o->result;
		}
		striped_completion_release(c);
	}
	o->mem.iov = &o->mem.one; /* the caller's array is not ours to free */
	o->mem.ends = NULL;
	overlay_free(o);
	return r;
}

/* ---- readahead ---- */

static int kept_cmp(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	return x->buf_off < y->buf_off ? -1 : x->buf_off > y->buf_off;
}

/*
 * An object read of a segment completed (librados callback): its pieces
 * join the segment, which frees the read with itself.
 */
int read_sink_take(struct read_sink *sink, struct obj_read *r, const struct kept_piece *pieces,
		   size_t n)
{
	struct segment *s = sink->seg;
	struct buffer *b = s->b;
	int err = 0;

	pthread_mutex_lock(&b->lock);
	if (s->nkept + n > s->cap) {
		size_t cap = s->nkept + n + 8;
		struct kept *k = realloc(s->kept, cap * sizeof(*k));

		if (k) {
			s->kept = k;
			s->cap = cap;
		} else {
			err = -ENOMEM;
		}
	}
	for (size_t i = 0; !err && i < n; i++)
		s->kept[s->nkept++] = (struct kept){pieces[i].buf_off, pieces[i].got, r, i, i == 0};
	pthread_mutex_unlock(&b->lock);
	if (err || !n)
		obj_read_free(r);
	return err;
}

/* Its read is over: the segment serves (or not), readers waiting for it go on. */
static void segment_finish(struct buffer *b, struct segment *s, ssize_t r)
{
	pthread_mutex_lock(&b->lock);
	s->done = true;
	s->error = r < 0 ? (int)r : 0;
	s->got = r < 0 ? 0 : (uint64_t)r;
	if (r >= 0)
		b->heard_ns = striped_now_ns();
	qsort(s->kept, s->nkept, sizeof(*s->kept), kept_cmp);
	b->segs_reading--;
	segment_unref(b, s); /* the read's */
	pthread_cond_broadcast(&b->room);
	pthread_mutex_unlock(&b->lock);
}

static void segment_landed(struct striped_completion *c, void *arg)
{
	struct segment *s = arg;

	segment_finish(s->b, s, striped_completion_result(c));
	striped_completion_release(c);
}

static int start_segment_read(const struct io_target *t, struct striped_completion *c, char *arg,
			      size_t len, uint64_t off, int flags)
{
	struct segment *s = (struct segment *)(void *)arg;

	return io_start_read_kept(t, c, s->sink, len, off, flags);
}

/* Under the lock: a segment for [off, off + len), in the list, counted against the window. */
static struct segment *segment_new(struct buffer *b, uint64_t off, uint64_t len, uint64_t epoch)
{
	struct segment *s = calloc(1, sizeof(*s)), **p;

	if (!s || !(s->sink = malloc(sizeof(*s->sink)))) {
		free(s);
		return NULL;
	}
	s->sink->seg = s;
	s->b = b;
	s->off = off;
	s->len = len;
	s->epoch = epoch;
	s->refs = 2; /* the list's and the read's */
	s->pages = (len + WIN_BLOCK - 1) / WIN_BLOCK;
	b->segment_pages += s->pages;
	for (p = &b->segs; *p && (*p)->off < off; p = &(*p)->next)
		;
	s->next = *p;
	*p = s;
	b->segs_reading++;
	return s;
}

/* Segments planned under the lock, started outside it. */
#define STARTS_MAX 64

/*
 * Under the lock: segments to read ahead from `from` up to `to`, while the
 * readahead bound and the window allow; none over the window's own blocks,
 * none past the end of the file as the handle knows it. Returns how many
 * went to starts.
 */
static size_t plan_readahead(struct buffer *b, uint64_t from, uint64_t to, uint64_t known,
			     uint64_t epoch, struct segment **starts)
{
	uint64_t limit = (known + b->segment_bytes - 1) / b->segment_bytes * b->segment_bytes;
	size_t n_starts = 0;

	if (to > limit)
		to = limit;
	while (from < to && n_starts < STARTS_MAX) {
		/* Segments end on segment boundaries, so each is one operation per object. */
		uint64_t n = b->segment_bytes - from % b->segment_bytes;
		uint64_t pages = (n + WIN_BLOCK - 1) / WIN_BLOCK;

		if (b->segment_pages + pages > b->ra_max / WIN_BLOCK ||
		    footprint(b) + pages > b->max_pages)
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

static void start_segments(struct buffer *b, struct segment **starts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct segment *s = starts[i];
		struct striped_completion *c = NULL;
		int r = striped_completion_create(segment_landed, s, &c);

		if (!r)
			/*
			 * Never waits: the reader holds the lease, so waiting for
			 * it to be handed over would never end.
			 */
			r = file_start_call(b->f, start_segment_read, c, (char *)s, (size_t)s->len,
					    s->off, STRIPED_IO_NOWAIT);
		if (r) {
			striped_completion_release(c);
			segment_finish(b, s, r);
		}
	}
}

/* Under the lock: where reading ahead goes on, past the segments that already follow pos. */
static uint64_t readahead_from(const struct buffer *b, uint64_t pos)
{
	for (const struct segment *s = b->segs; s && s->off <= pos; s = s->next)
		if (pos < s->off + s->len)
			pos = s->off + s->len;
	return pos;
}

/* Under the lock: the segment of this lock that holds pos, if any. */
static struct segment *segment_at(const struct buffer *b, uint64_t pos, uint64_t epoch)
{
	for (struct segment *s = b->segs; s && s->off <= pos; s = s->next)
		if (pos < s->off + s->len && s->epoch == epoch)
			return s;
	return NULL;
}

/* Copy [pos, pos + n) of a segment that came in to m at moff: its pieces, zeros between. */
static void segment_copy(const struct segment *s, uint64_t pos, const struct io_mem *m,
			 uint64_t moff, uint64_t n)
{
	uint64_t at = pos - s->off, end = at + n;

	for (size_t i = 0; i < s->nkept && at < end; i++) {
		const struct kept *k = &s->kept[i];
		uint64_t lo = k->buf_off, hi = k->buf_off + k->got;

		if (hi <= at || lo >= end)
			continue;
		if (lo > at) { /* a hole before this piece */
			io_mem_zero(m, moff, lo - at);
			moff += lo - at;
			at = lo;
		}
		if (hi > end)
			hi = end;
		while (at < hi) {
			uint64_t avail;
			char *dst = io_mem_at(m, moff, &avail);

			if (avail > hi - at)
				avail = hi - at;
			obj_read_copy(k->r, k->piece, at - k->buf_off, dst, (size_t)avail);
			at += avail;
			moff += avail;
		}
	}
	if (at < end)
		io_mem_zero(m, moff, end - at);
}

/*
 * Under the lock: serve [off, off + len) from segments, as far as they go
 * without a gap, waiting for those still being read. Returns the bytes
 * served; the rest is read through the window.
 */
static uint64_t serve_from_segments(struct buffer *b, const struct io_mem *m, uint64_t off,
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
		segment_copy(s, pos, m, served, n);
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
ssize_t buffer_read(struct buffer *b, const struct io_mem *m, uint64_t len, uint64_t off)
{
	struct segment *starts[STARTS_MAX];
	size_t n_starts = 0;
	uint64_t epoch, served = 0, ahead, known;
	ssize_t r;

	if (!len)
		return 0;
	/* Segments serve only under the lock they were read under. */
	r = lease_enter(&b->f->lease, 0, &epoch);
	if (r)
		return r;
	r = check_not_silent(b);
	if (r) {
		lease_exit(&b->f->lease);
		return r;
	}
	known = size_known(&b->f->lease);
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
	lease_exit(&b->f->lease);
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
	c->call = NULL;
	return r;
}

struct aio_read_arg {
	struct buffer *b;
	const struct io_mem *m;
};

/*
 * The caller's call (c, a call of the file) completes when its internal
 * read did, with the window laid over it. c is started first, so the
 * internal read's callback always finds it; a refusal before anything was
 * sent (-EAGAIN) gives c back untouched.
 */
static int start_buffered_read(const struct io_target *t, struct striped_completion *c, char *arg,
			       size_t len, uint64_t off, int flags)
{
	const struct aio_read_arg *a = (const struct aio_read_arg *)(void *)arg;
	struct striped_completion *ic;
	struct overlay *o;
	int r;

	o = overlay_new(a->b, a->m, 0, len, off);
	if (!o)
		return -ENOMEM;
	/* The caller's iovec array may go once the call returns: keep a copy. */
	if (a->m->iov != &a->m->one && io_mem_iov(&o->mem, a->m->iov, a->m->iovcnt)) {
		o->mem.iov = &o->mem.one;
		overlay_free(o);
		return -ENOMEM;
	}
	o->user = c;
	r = completion_start(c, overlay_result, o, t->release, t->owner, t->tag);
	if (!r)
		r = striped_completion_create(overlay_landed, o, &ic);
	if (r) {
		if (r != -EBUSY)
			completion_abandon(c);
		overlay_free(o);
		return r;
	}
	r = overlay_start(o, ic, flags & (STRIPED_IO_NOWAIT | IO_FADVISE_FLAGS));
	if (r) {
		striped_completion_release(ic);
		completion_abandon(c);
		overlay_free(o);
	}
	return r;
}

int buffer_aio_read(struct buffer *b, struct striped_completion *c, const struct io_mem *m,
		    uint64_t len, uint64_t off, int flags)
{
	struct aio_read_arg a = {b, m};
	int r;

	pthread_mutex_lock(&b->lock);
	r = b->error;
	pthread_mutex_unlock(&b->lock);
	if (r)
		return r;
	if (!len)
		return completion_complete_now(c, 0);
	return file_start_call(b->f, start_buffered_read, c, (char *)&a, (size_t)len, off, flags);
}

/* ---- flush and size ---- */

/* The flush's result: the first write-behind error, now reported. */
static ssize_t flush_result(struct striped_completion *c, int first_error)
{
	struct buffer *b = c->call;
	int r;

	pthread_mutex_lock(&b->lock);
	r = take_error_locked(b);
	pthread_mutex_unlock(&b->lock);
	return first_error ? first_error : r;
}

/* Never waits: the flusher sends the window, then places c's barrier after it. */
int buffer_aio_flush(struct buffer *b, struct striped_completion *c)
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

/* The size this handle sees: the stored one, or further if its window holds more. */
uint64_t buffer_size_view(struct buffer *b, uint64_t stored)
{
	uint64_t end;

	pthread_mutex_lock(&b->lock);
	end = b->w.end;
	pthread_mutex_unlock(&b->lock);
	return end > stored ? end : stored;
}
