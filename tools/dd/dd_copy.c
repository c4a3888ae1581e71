// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd's pipeline: a ring of iodepth blocks. A block is read (libaio
 * or striped_aio_read at its offset, or read(2) in order from a stream),
 * then written at its offset (libaio or striped_aio_write, or write(2) in
 * order to a stream), so block k + 1 is read while block k is written.
 * Writes are started in block order; completions may arrive in any order.
 * libaio and libstriped both signal one eventfd; the main thread sleeps on
 * it and never blocks inside a librados callback.
 */
#include <errno.h>
#include <inttypes.h>
#include <libaio.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dd_copy.h"
#include "dd_map.h"
#include "dd_progress.h"
#include "dd_signal.h"

enum slot_state { SLOT_FREE, SLOT_READING, SLOT_FULL, SLOT_WRITING };

struct slot {
	char *buf;	   /* the block: own, or a mapped input block */
	char *own;	   /* the slot's buffer, allocated when first needed */
	struct dd_map map; /* buf lies in it while dd_map_held() */
	size_t len;	   /* bytes held */
	size_t want;	   /* bytes asked of a positional read */
	size_t got;	   /* bytes read (len less conv=sync's padding) */
	bool eof;	   /* a positional read came back short: the input ends here */
	int err;	   /* the read failed (negative errno): handled at its turn */
	uint64_t seq;
	uint64_t pos; /* offset of buf[0] from the copy's first byte */
	enum slot_state state;
	struct iocb *iocbs; /* libaio: one per DD_IO_MAX bytes of the block */
	unsigned int parts_left;
	long parts_res; /* bytes done by the parts so far, or their first error */
	struct striped_completion *c;
	atomic_int signaled; /* set by the striped callback */
	int *efd;
};

struct copy {
	const struct dd_args *a;
	struct dd_end *in, *out;
	struct slot *slots;
	unsigned int nslots;
	size_t size;  /* block size: bs, or obs when ibs and obs differ */
	size_t cap;   /* slot capacity: size, and room for one more record (recmode) */
	size_t rsize; /* positional reads: size, or ibs (recmode) */
	/*
	 * conv=sync or noerror with ibs != obs: blocks are read a record at a
	 * time, as dd does, and written as they come; the output records are
	 * counted from the bytes, as dd's output buffer would have cut them.
	 */
	bool recmode;
	bool map_input; /* blocks of a regular input file are mapped, not read */
	bool leased;	/* the input's read lease: no mapped block can be cut short */
	bool noerror, sync;
	bool hold_reads;   /* a bad stream record waits for its turn */
	int in_err;	   /* a stream read failed: the next block is the bad record */
	uint64_t partread; /* length of the last input record if partial (dd) */
	uint64_t out_pos;  /* output offset of the next block handed on */
	uint64_t in_extra; /* bad records padded by conv=sync (positional input) */
	io_context_t aio;
	int efd;
	uint64_t read_seq, write_seq;
	bool in_eof;   /* no more reads */
	bool in_end;   /* a positional read came back short */
	bool out_done; /* no more writes */
	uint64_t in_left, records_left;
	uint64_t rec_left, rec_got; /* the input record being read (stream) */
	uint64_t in_bytes;	    /* bytes accepted from a positional input */
	unsigned int in_flight_in, in_flight_out;
	bool warn_partial; /* GNU dd's "partial read" warning, once */
	ssize_t prev_nread;
	bool sparse;	/* conv=sparse, until the output turns out not to seek */
	bool last_hole; /* the last block was seeked over, not written */
	bool keep_hashes;
	struct dd_progress report; /* what is printed while the copy runs */
	struct dd_result *res;
	struct dd_error *e;
};

void dd_result_free(struct dd_result *res)
{
	dd_hashes_free(&res->hashes);
}

static bool positional(const struct dd_end *end)
{
	return end->kind != DD_END_STREAM;
}

static void note_hash(struct copy *c, const struct slot *s)
{
	if (dd_hashes_add(&c->res->hashes, s->pos, s->buf, s->len) < 0)
		dd_error_set(c->e, -ENOMEM, "verify: %s", strerror(ENOMEM));
}

/*
 * Runs on a librados thread just before the completion reads as complete:
 * flag the slot (so the main thread knows striped_completion_wait() will not
 * block for long) and wake the main thread.
 */
static void on_striped_complete(struct striped_completion *sc, void *arg)
{
	struct slot *s = arg;
	uint64_t one = 1;

	(void)sc;
	atomic_store(&s->signaled, 1);
	if (write(*s->efd, &one, sizeof(one)) < 0) {
		/* the main thread also polls the completions: nothing is lost */
	}
}

static void slot_unmap(struct slot *s)
{
	if (!dd_map_held(&s->map))
		return;
	dd_map_release(&s->map);
	s->buf = s->own;
}

/*
 * A mapped block stays mapped until its slot is read into again: unmapping
 * 64 MiB tears down 16384 page table entries, which would otherwise sit
 * between one block's completion and the next block's write.
 */
static void slot_free(struct slot *s)
{
	striped_completion_release(s->c);
	s->c = NULL;
	s->state = SLOT_FREE;
}

static bool unaligned(uint64_t off, size_t len)
{
	return off % DD_DIRECT_ALIGN || len % DD_DIRECT_ALIGN;
}

/*
 * O_DIRECT cannot take an unaligned tail: like GNU dd, turn it off, but
 * only once no request of that side is in flight. Returns 1 to defer.
 */
static int direct_tail(struct copy *c, struct dd_end *end, unsigned int in_flight, uint64_t off,
		       size_t len)
{
	if (!end->direct || !unaligned(off, len))
		return 0;
	if (in_flight)
		return 1;
	return dd_end_clear_direct(end, c->e) < 0 ? -1 : 0;
}

/* Linux reads or writes at most DD_IO_MAX bytes per request. */
static unsigned int io_parts(size_t len)
{
	return len ? (unsigned int)((len + DD_IO_MAX - 1) / DD_IO_MAX) : 1;
}

static int submit_striped(struct copy *c, struct dd_end *end, struct slot *s, bool is_write,
			  uint64_t off, size_t len)
{
	int r;

	s->efd = &c->efd;
	atomic_store(&s->signaled, 0);
	r = striped_completion_create(on_striped_complete, s, &s->c);
	if (r < 0)
		return r;
	/* A slot's buffer is left alone until its block completes: no copy. */
	r = is_write ? striped_aio_write2(end->sf, s->c, s->buf, len, off, STRIPED_IO_ZEROCOPY)
		     : striped_aio_read(end->sf, s->c, s->buf, len, off);
	if (r < 0) {
		striped_completion_release(s->c);
		s->c = NULL;
	}
	return r;
}

/*
 * One libaio request per DD_IO_MAX bytes. When a later part cannot be
 * submitted, the parts in flight finish and the block fails with the error.
 */
static int submit_aio(struct copy *c, struct dd_end *end, struct slot *s, bool is_write,
		      uint64_t off, size_t len)
{
	unsigned int i, n = io_parts(len);
	int r = 0;

	s->parts_left = 0;
	s->parts_res = 0;
	for (i = 0; i < n; i++) {
		struct iocb *cb = &s->iocbs[i];
		size_t at = (size_t)i * DD_IO_MAX;
		size_t part = len - at < DD_IO_MAX ? len - at : DD_IO_MAX;

		if (is_write)
			io_prep_pwrite(cb, end->fd, s->buf + at, part, (long long)(off + at));
		else
			io_prep_pread(cb, end->fd, s->buf + at, part, (long long)(off + at));
		io_set_eventfd(cb, c->efd);
		cb->data = s;
		r = io_submit(c->aio, 1, &cb);
		if (r != 1) {
			r = r < 0 ? r : -EAGAIN;
			break;
		}
		s->parts_left++;
		r = 0;
	}
	if (r < 0 && s->parts_left)
		s->parts_res = r;
	return s->parts_left ? 0 : r;
}

/* Start an asynchronous read or write of s on a positional side. */
static int submit_io(struct copy *c, struct dd_end *end, struct slot *s, bool is_write,
		     uint64_t off, size_t len)
{
	if (end->kind == DD_END_STRIPED)
		return submit_striped(c, end, s, is_write, off, len);
	return submit_aio(c, end, s, is_write, off, len);
}

/* ---- signals ---------------------------------------------------------- */

static void drop_full_slots(struct copy *c);

/*
 * dd's counts (a positional input counts records by bytes handed on). In
 * recmode dd's output buffer holds what is not a whole obs block until the
 * end: before it (final false) only the whole blocks are out.
 */
static void current_counts(const struct copy *c, struct dd_counts *n, bool final)
{
	*n = c->res->counts;
	if (positional(c->in)) {
		n->in_full = c->in_bytes / c->a->ibs;
		n->in_partial = (c->in_bytes % c->a->ibs != 0) + c->in_extra;
	}
	if (c->recmode) {
		n->out_full = n->bytes / c->a->obs;
		n->out_partial = final && n->bytes % c->a->obs;
		if (!final)
			n->bytes = n->out_full * c->a->obs;
	}
}

static void print_stats(struct copy *c)
{
	struct dd_counts n;

	current_counts(c, &n, false);
	dd_progress_stats(&c->report, &n);
}

/*
 * SIGUSR1: the statistics now, and go on. SIGINT: start nothing more; the
 * loop ends once every read and write in flight has completed, so every
 * block counted as written is acknowledged and the output has its size.
 */
static void service_signals(struct copy *c)
{
	while (dd_signal_take_info())
		print_stats(c);
	if (dd_signal_interrupted() && !c->out_done) {
		c->out_done = true;
		drop_full_slots(c);
	}
}

/* ---- reading ---------------------------------------------------------- */

/* A record of a stream ends: count it; conv=sync pads a short one to ibs. */
static void count_record(struct copy *c, struct slot *s)
{
	if (c->rec_got == c->a->ibs) {
		c->res->counts.in_full++;
		c->partread = 0;
	} else if (c->rec_got) {
		c->res->counts.in_partial++;
		c->partread = c->rec_got;
		if (c->sync) {
			/* zeroed before the read, as dd's buffer is */
			s->len += (size_t)(c->a->ibs - c->rec_got);
		}
	}
	c->rec_got = 0;
	c->rec_left = 0;
}

/* Start the next input record, or report the end of the input. */
static bool record_begin(struct copy *c)
{
	if (!c->records_left || !c->in_left)
		return false;
	if (c->records_left != DD_UNLIMITED)
		c->records_left--;
	c->rec_left = c->in_left < c->a->ibs ? c->in_left : c->a->ibs;
	c->rec_got = 0;
	return true;
}

/*
 * GNU dd warns once, when a read returns data after a short one, if bs= was
 * given without iflag=fullblock and records matter (skip=, count=, direct).
 */
static void note_read(struct copy *c, ssize_t r, size_t asked)
{
	if (r > 0 && c->warn_partial && c->prev_nread > 0 && (size_t)c->prev_nread < asked) {
		dd_progress_warn_partial(&c->report, c->prev_nread);
		c->warn_partial = false;
	}
	c->prev_nread = r;
}

static bool wants_partial_warning(const struct dd_args *a)
{
	uint64_t records = a->max_records;

	if (a->iflags & DD_FLAG_COUNT_BYTES)
		records = a->count == DD_UNLIMITED ? DD_UNLIMITED : a->count / a->ibs;
	return !a->twobufs && !(a->iflags & DD_FLAG_FULLBLOCK) &&
	       (a->skip / a->ibs || (records > 0 && records != DD_UNLIMITED) ||
		((a->iflags | a->oflags) & DD_FLAG_DIRECT));
}

/*
 * A stream read failed: the block s stands for the bad record. conv=sync
 * makes it ibs bytes (zeros, and what iflag=fullblock read of it) unless
 * the record before was short (dd: partread); otherwise it is empty and not
 * counted, as dd reads the record again. Its turn comes in submit_writes.
 */
static int stream_bad_record(struct copy *c, struct slot *s, bool zeroed)
{
	s->err = c->in_err;
	c->in_err = 0;
	c->hold_reads = true;
	if (c->sync && c->noerror && !c->partread) {
		/* zeroed: s->buf holds the record as the failed read left it */
		if (!zeroed)
			memset(s->buf, 0, (size_t)c->a->ibs);
		else if (c->rec_left + c->rec_got < c->a->ibs)
			memset(s->buf + c->rec_left + c->rec_got, 0,
			       (size_t)(c->a->ibs - c->rec_left - c->rec_got));
		s->len = (size_t)c->a->ibs;
		if (c->in_left != DD_UNLIMITED)
			c->in_left -= c->rec_left < c->in_left ? c->rec_left : c->in_left;
		c->partread = 0;
	} else if (c->records_left != DD_UNLIMITED) {
		c->records_left++;
	}
	c->rec_left = 0;
	c->rec_got = 0;
	return 0;
}

/*
 * Fill s from a stream with dd's record semantics: each read(2) of up to
 * ibs bytes is one record (full or partial); with bs= a block is one record,
 * otherwise records are gathered into obs-sized blocks.
 */
static int stream_fill(struct copy *c, struct slot *s)
{
	bool fullblock = c->a->iflags & DD_FLAG_FULLBLOCK;
	size_t n;
	ssize_t r;

	s->len = 0;
	if (c->in_err)
		return stream_bad_record(c, s, false);
	while (s->len < c->size) {
		/*
		 * A signal that cut a fullblock read short is seen here, before
		 * the next read(2) waits for more input, as dd does.
		 */
		if (dd_signal_pending()) {
			service_signals(c);
			if (c->out_done) {
				c->in_eof = true;
				break;
			}
		}
		if (!c->rec_left && !record_begin(c)) {
			c->in_eof = true;
			break;
		}
		n = c->size - s->len < c->rec_left ? c->size - s->len : c->rec_left;
		if (c->recmode)
			n = (size_t)c->rec_left; /* a record is never cut (cap has room) */
		if (c->sync && !c->rec_got)
			memset(s->buf + s->len, 0, n);
		r = fullblock ? dd_read_full(c->in->fd, s->buf + s->len, n)
			      : dd_read_once(c->in->fd, s->buf + s->len, n);
		if (r < 0 && errno == EINTR) {
			/* not a read: the partial-read warning must not forget the last one */
			service_signals(c);
			if (c->out_done) {
				c->in_eof = true; /* SIGINT: what was read is dropped */
				break;
			}
			continue;
		}
		note_read(c, r, n);
		if (r < 0) {
			/* what this block holds goes out first; the error gets a block */
			c->in_err = -errno;
			if (c->rec_got && !fullblock)
				count_record(c, s); /* dd read it as a short record */
			return s->len ? 0 : stream_bad_record(c, s, c->sync);
		}
		if (c->in_left != DD_UNLIMITED)
			c->in_left -= (uint64_t)r;
		s->len += (size_t)r;
		c->rec_got += (uint64_t)r;
		c->rec_left -= (uint64_t)r;
		if (!r) {
			count_record(c, s);
			c->in_eof = true;
			break;
		}
		if (!c->rec_left || ((size_t)r < n && !fullblock))
			count_record(c, s);
		if (!c->a->twobufs && !c->rec_left)
			break;
	}
	return 0;
}

static int read_stream(struct copy *c, struct slot *s)
{
	s->seq = c->read_seq++;
	s->err = 0;
	if (stream_fill(c, s) < 0)
		return -1;
	s->state = SLOT_FULL;
	return 1;
}

static void buffer_error(struct copy *c)
{
	char h[DD_HUMAN_LEN];

	/* GNU dd's words; striped-dd has iodepth= such buffers */
	dd_error_set(c->e, -ENOMEM, "memory exhausted by input buffer of size %zu bytes (%s)",
		     c->size, dd_human(c->size, h, true, 1, 1));
}

/* A slot's own buffer, allocated on first use (mapped input needs none). */
static int slot_buffer(struct copy *c, struct slot *s)
{
	if (!s->own && posix_memalign((void **)&s->own, DD_ALIGN, c->cap)) {
		s->own = NULL;
		return -E2BIG;
	}
	s->buf = s->own;
	return 0;
}

/*
 * Map the block of a regular input file instead of reading it: as much of
 * [off, off + want) as the file holds now, which is what pread() would
 * return (short at the file's end). Its pages are in the page cache and
 * the zero-copy write sends them from there.
 */
static int map_positional(struct copy *c, struct slot *s, uint64_t off, size_t want)
{
	struct stat st;
	size_t got = 0;
	int r;

	if (fstat(c->in->fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size > off)
		got =
		    (uint64_t)st.st_size - off < want ? (size_t)((uint64_t)st.st_size - off) : want;
	if (got) {
		r = dd_map_block(c->in->fd, off, got, &s->map);
		if (r < 0)
			return r;
		s->buf = s->map.data;
	}
	s->len = s->got = got;
	if (got < want) {
		s->eof = true;
		c->in_eof = c->in_end = true;
	}
	s->state = SLOT_FULL;
	return 0;
}

static int read_positional(struct copy *c, struct slot *s)
{
	uint64_t pos, off;
	size_t want;
	int r;

	if (__builtin_mul_overflow(c->read_seq, (uint64_t)c->rsize, &pos) ||
	    __builtin_add_overflow(c->in->base, pos, &off)) {
		c->in_eof = true;
		return 0;
	}
	want = c->in_left < c->rsize ? (size_t)c->in_left : c->rsize;
	if (!want) {
		c->in_eof = true;
		return 0;
	}
	r = c->in->kind == DD_END_AIO ? direct_tail(c, c->in, c->in_flight_in, off, want) : 0;
	if (r)
		return r < 0 ? -1 : 0;
	slot_unmap(s);
	s->seq = c->read_seq;
	s->want = want;
	s->len = s->got = 0;
	s->eof = false;
	s->err = 0;
	if (c->map_input && map_positional(c, s, off, want) == 0) {
		c->read_seq++;
		if (c->in_left != DD_UNLIMITED)
			c->in_left -= want;
		return 1;
	}
	/* a file that cannot be mapped (or stat'ed) is read from here on */
	c->map_input = false;
	if (slot_buffer(c, s) < 0) {
		buffer_error(c);
		return -1;
	}
	r = submit_io(c, c->in, s, false, off, want);
	if (r < 0) {
		dd_error_set(c->e, r, "error reading '%s': %s", c->in->label, strerror(-r));
		return -1;
	}
	s->state = SLOT_READING;
	c->read_seq++;
	c->in_flight_in++;
	if (c->in_left != DD_UNLIMITED)
		c->in_left -= want;
	return 1;
}

/* Start reads into free slots, in order; a stream gets one block per call. */
static int submit_reads(struct copy *c)
{
	int made = 0, r;

	while (!c->in_eof && !c->out_done && !c->e->code && !c->hold_reads) {
		struct slot *s = &c->slots[c->read_seq % c->nslots];

		if (s->state != SLOT_FREE)
			break;
		r = positional(c->in) ? read_positional(c, s) : read_stream(c, s);
		if (r <= 0)
			break;
		made++;
		if (!positional(c->in))
			break;
	}
	return made;
}

static void read_done(struct copy *c, struct slot *s, long res)
{
	c->in_flight_in--;
	if (c->out_done) {
		slot_free(s);
		return;
	}
	striped_completion_release(s->c);
	s->c = NULL;
	s->state = SLOT_FULL;
	if (res < 0) {
		/* reported at its turn, in input order; conv=sync: a record of zeros */
		s->err = (int)res;
		if (c->noerror && c->sync) {
			memset(s->buf, 0, (size_t)c->a->ibs);
			s->len = (size_t)c->a->ibs;
		}
		return;
	}
	s->len = s->got = (size_t)res;
	if (s->len < s->want) {
		s->eof = true;
		/* regular files and striped files are short only at the end */
		c->in_eof = c->in_end = true;
	}
	if (c->sync && s->got && s->got < c->a->ibs) {
		memset(s->buf + s->got, 0, (size_t)c->a->ibs - s->got);
		s->len = (size_t)c->a->ibs;
	}
}

/* ---- writing ---------------------------------------------------------- */

static void count_written(struct copy *c, const struct slot *s)
{
	if (s->len == c->a->obs)
		c->res->counts.out_full++;
	else
		c->res->counts.out_partial++;
	c->res->counts.bytes += s->len;
}

/* A block written (not seeked over): the striped side's calls time it (striped_file_latency). */
static void write_accounted(struct copy *c, const struct slot *s)
{
	count_written(c, s);
	c->res->blocks++;
}

static bool all_zero(const char *p, size_t n)
{
	return !n || (!p[0] && !memcmp(p, p + 1, n - 1));
}

/*
 * conv=sparse: seek over an all-zero block instead of writing it, as GNU
 * dd does; it counts as written. An output that cannot seek (a pipe) gets
 * the zeros and conv=sparse is dropped. Returns whether it was a hole.
 */
static bool write_hole(struct copy *c, struct slot *s)
{
	if (!c->sparse || !all_zero(s->buf, s->len))
		return false;
	if (!positional(c->out) && lseek(c->out->fd, (off_t)s->len, SEEK_CUR) < 0) {
		c->sparse = false;
		return false;
	}
	count_written(c, s);
	slot_free(s);
	return true;
}

/* Why a change to the output failed: a striped output's -EPERM says what the key lacks. */
static const char *out_strerror(const struct copy *c, int r)
{
	return c->out->kind == DD_END_STRIPED ? dd_change_strerror(c->out, r) : strerror(-r);
}

/* The output's end: where its last block, written or seeked over, ends. */
static int output_end(struct copy *c, uint64_t *end)
{
	off_t cur;

	if (positional(c->out))
		return __builtin_add_overflow(c->out->base, c->res->counts.bytes, end) ? -1 : 0;
	cur = lseek(c->out->fd, 0, SEEK_CUR);
	*end = cur < 0 ? 0 : (uint64_t)cur;
	return cur < 0 ? -1 : 0;
}

/*
 * After a hole at the end, the output must still be as long as what was
 * copied: GNU dd ftruncate()s a regular file that is shorter; a striped file
 * is truncated (grown) only when it is shorter, too.
 */
static void extend_after_hole(struct copy *c)
{
	uint64_t end, size;
	struct stat st;
	int r = 0;

	if (!c->last_hole || output_end(c, &end) < 0)
		return;
	if (c->out->kind == DD_END_STRIPED) {
		r = striped_stat(c->out->sf, &size, NULL);
		if (!r && size < end)
			r = striped_truncate(c->out->sf, end);
	} else if (fstat(c->out->fd, &st) < 0) {
		r = -errno;
	} else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < end &&
		   ftruncate(c->out->fd, (off_t)end) < 0) {
		r = -errno;
	}
	if (r < 0)
		dd_error_set(c->e, r,
			     "failed to truncate to %" PRIu64 " bytes in output file '%s': %s", end,
			     c->out->label, out_strerror(c, r));
}

/*
 * A page of a mapped input block vanished while it was written (the file
 * shrank, or the page could not be read): zeros went out in its place.
 * The block is not counted as copied and the copy stops, loudly.
 */
static void input_lost(struct copy *c, const struct slot *s)
{
	uint64_t at = c->out->base + s->pos;

	dd_error_set(c->e, -EIO,
		     "error reading '%s': the file shrank or could not be read while it was "
		     "copied; output bytes %" PRIu64 "-%" PRIu64 " may hold zeros",
		     c->in->label, at, at + s->len - 1);
}

static void write_done(struct copy *c, struct slot *s, long res)
{
	c->in_flight_out--;
	if (res < 0)
		dd_error_set(c->e, (int)res, "error writing '%s': %s", c->out->label,
			     out_strerror(c, (int)res));
	else if ((size_t)res != s->len)
		dd_error_set(c->e, -EIO, "error writing '%s': short write (%ld of %zu bytes)",
			     c->out->label, res, s->len);
	else if (dd_map_held(&s->map) && dd_map_lost(&s->map))
		input_lost(c, s);
	else
		write_accounted(c, s);
	slot_free(s);
}

static int write_stream(struct copy *c, struct slot *s)
{
	ssize_t n = dd_write_full(c->out->fd, s->buf, s->len);

	if (n < 0) {
		dd_error_set(c->e, -errno, "error writing '%s': %s", c->out->label,
			     strerror(errno));
		slot_free(s);
		return -1;
	}
	if ((size_t)n < s->len) {
		/* SIGINT during a blocked write: count what went out, stop */
		c->res->counts.bytes += (uint64_t)n;
		c->res->counts.out_partial += n > 0;
		slot_free(s);
		service_signals(c);
		return 1;
	}
	write_accounted(c, s);
	slot_free(s);
	return 1;
}

static int write_positional(struct copy *c, struct slot *s)
{
	uint64_t off;
	int r;

	if (__builtin_add_overflow(c->out->base, s->pos, &off)) {
		dd_error_set(c->e, -EOVERFLOW, "%s: cannot seek: %s", c->out->label,
			     strerror(EOVERFLOW));
		return -1;
	}
	/*
	 * oflag=direct, dsync or sync on a striped file: each block
	 * acknowledged, so durable on the OSDs, before the next is sent.
	 */
	if (c->out->kind == DD_END_STRIPED && (c->a->oflags & DD_STRIPED_ONE_BY_ONE) &&
	    c->in_flight_out)
		return 0;
	r = c->out->kind == DD_END_AIO ? direct_tail(c, c->out, c->in_flight_out, off, s->len) : 0;
	if (r)
		return r < 0 ? -1 : 0;
	r = submit_io(c, c->out, s, true, off, s->len);
	if (r < 0) {
		dd_error_set(c->e, r, "error writing '%s': %s", c->out->label, out_strerror(c, r));
		return -1;
	}
	s->state = SLOT_WRITING;
	c->in_flight_out++;
	return 1;
}

/* Blocks past the end of the input are dropped once the end is known. */
static void drop_full_slots(struct copy *c)
{
	unsigned int i;

	for (i = 0; i < c->nslots; i++)
		if (c->slots[i].state == SLOT_FULL)
			slot_free(&c->slots[i]);
}

/*
 * A block whose read failed, at its turn (every block before it written):
 * without conv=noerror the copy stops with dd's message. With it, dd's
 * message and statistics, and the copy goes on: the block is dropped, or
 * (conv=sync) goes out as ibs zeros, a partial record in. A positional
 * input needs no seek past the bad record: blocks are read at their
 * offsets. Returns 1 to write the block, 0 when it is done, -1 to wait.
 */
static int read_error_turn(struct copy *c, struct slot *s)
{
	if (c->in_flight_out)
		return -1; /* dd's statistics count the blocks before as written */
	if (!c->noerror) {
		dd_error_set(c->e, s->err, "error reading '%s': %s", c->in->label,
			     strerror(-s->err));
		slot_free(s);
		return -1;
	}
	dd_progress_read_error(&c->report, c->in->label, s->err);
	print_stats(c);
	c->res->read_errors++;
	c->hold_reads = false;
	s->err = 0;
	if (s->len) {
		if (positional(c->in))
			c->in_extra++;
		else
			c->res->counts.in_partial++;
		return 1;
	}
	/* dd does not count it: count= reads one record more */
	if (positional(c->in) && c->in_left != DD_UNLIMITED) {
		c->in_left += s->want;
		c->in_eof = c->in_end;
	}
	slot_free(s);
	c->write_seq++;
	return 0;
}

/* Start writes of read blocks, in block order. */
static int submit_writes(struct copy *c)
{
	int made = 0, r;

	while (!c->out_done && !c->e->code) {
		struct slot *s = &c->slots[c->write_seq % c->nslots];
		bool last, hole;

		if (s->state != SLOT_FULL || s->seq != c->write_seq)
			break;
		if (s->err) {
			r = read_error_turn(c, s);
			if (r < 0)
				break;
			made++;
			if (!r)
				continue;
		}
		if (!s->len) {
			c->out_done = true;
			drop_full_slots(c);
			break;
		}
		last = s->eof; /* set by positional reads only */
		s->pos = c->out_pos;
		hole = write_hole(c, s);
		if (hole)
			r = 1;
		else
			r = positional(c->out) ? write_positional(c, s) : write_stream(c, s);
		if (r > 0) {
			c->last_hole = hole;
			c->out_pos += s->len;
		}
		/* Records in: blocks handed to the output, as dd reads one, writes one. */
		if (r != 0 && positional(c->in))
			c->in_bytes += s->got;
		if (r <= 0)
			break;
		if (c->keep_hashes)
			note_hash(c, s); /* buf stays intact until the slot is reused */
		c->write_seq++;
		made++;
		if (last) {
			c->out_done = true;
			drop_full_slots(c);
		}
	}
	return made;
}

/* ---- completions ------------------------------------------------------ */

static void slot_done(struct copy *c, struct slot *s, long res)
{
	if (s->state == SLOT_READING)
		read_done(c, s, res);
	else
		write_done(c, s, res);
}

/* A block is done when all its libaio parts are: bytes, or the first error. */
static void aio_part_done(struct copy *c, struct slot *s, long res)
{
	if (res < 0 && s->parts_res >= 0)
		s->parts_res = res;
	else if (res >= 0 && s->parts_res >= 0)
		s->parts_res += res;
	if (--s->parts_left)
		return;
	slot_done(c, s, s->parts_res);
}

static int harvest(struct copy *c)
{
	struct io_event ev[64];
	struct timespec zero = {0, 0};
	unsigned int i;
	int n, made = 0;

	while (c->aio) {
		n = io_getevents(c->aio, 0, 64, ev, &zero);
		if (n <= 0)
			break;
		for (i = 0; i < (unsigned int)n; i++)
			aio_part_done(c, ev[i].data, (long)ev[i].res);
		made += n;
	}
	for (i = 0; i < c->nslots; i++) {
		struct slot *s = &c->slots[i];

		if (!s->c || (s->state != SLOT_READING && s->state != SLOT_WRITING))
			continue;
		if (atomic_load(&s->signaled) || striped_completion_is_complete(s->c)) {
			striped_completion_wait(s->c); /* the callback has run: a short wait */
			slot_done(c, s, (long)striped_completion_result(s->c));
			made++;
		}
	}
	return made;
}

static void wait_event(struct copy *c)
{
	struct pollfd pfd = {.fd = c->efd, .events = POLLIN};
	int timeout = dd_progress_wait_ms(&c->report);
	uint64_t val;

	/* Bounded so a lost wakeup costs at most a tenth of a second. */
	if (timeout < 0 || timeout > 100)
		timeout = 100;
	if (poll(&pfd, 1, timeout) > 0 && read(c->efd, &val, sizeof(val)) < 0) {
		/* counter already drained */
	}
}

static bool finished(const struct copy *c)
{
	unsigned int i;

	if (c->in_flight_in || c->in_flight_out)
		return false;
	if (c->e->code || c->out_done)
		return true;
	if (!c->in_eof)
		return false;
	for (i = 0; i < c->nslots; i++)
		if (c->slots[i].state != SLOT_FREE)
			return false;
	return true;
}

/*
 * Another process waits to write or truncate the input: map no more blocks,
 * and give the lease back once no mapped block is left to write, so none
 * loses a page under its write. What is read from then on is the file as
 * the other process leaves it, as with dd.
 */
static void service_lease(struct copy *c)
{
	unsigned int i;

	if (!c->leased || !dd_map_lease_wanted())
		return;
	c->map_input = false;
	for (i = 0; i < c->nslots; i++)
		if (c->slots[i].state != SLOT_FREE && dd_map_held(&c->slots[i].map))
			return;
	dd_map_lease_end(c->in->fd);
	c->leased = false;
}

static void run(struct copy *c)
{
	int made;

	for (;;) {
		service_signals(c);
		service_lease(c);
		made = submit_writes(c);
		made += submit_reads(c);
		made += submit_writes(c);
		made += harvest(c);
		/* as dd: no progress line once the copy is over, the summary follows */
		if (finished(c))
			break;
		dd_progress_tick(&c->report, c->res->counts.bytes, dd_now_ns());
		if (!made) {
			if (!c->in_flight_in && !c->in_flight_out) {
				dd_error_set(c->e, -EIO, "internal error: the copy stalled");
				break;
			}
			wait_event(c);
		}
	}
}

/* ---- setup ------------------------------------------------------------ */

/*
 * Map the input's blocks when they go, whole, from a regular file through
 * the page cache to a striped file's zero-copy writes, and are large
 * enough to pay for mmap and munmap. Not with conv=sync (it pads the
 * buffer) or conv=noerror (a mapped block that cannot be read stops the
 * copy), nor iflag=direct (the user chose to bypass the page cache).
 * Files without blocks (procfs, sysfs, empty) are read: their size may lie.
 * The caller also needs the file's read lease (dd_map.h).
 */
static bool input_mappable(const struct copy *c)
{
	struct stat st;

	if (c->in->kind != DD_END_AIO || c->in->direct || c->out->kind != DD_END_STRIPED ||
	    c->recmode || c->sync || c->noerror || c->size < DD_MAP_MIN_BLOCK)
		return false;
	if (fstat(c->in->fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_blocks == 0)
		return false;
	return dd_map_setup(c->nslots) == 0;
}

/*
 * How many blocks can be busy at once: iodepth, except when a stream (read
 * by this thread, one block at a time) feeds an output that takes one
 * block at a time (oflag=direct, dsync or sync on a striped file). Then a
 * block in flight and the next one read are all there is to overlap; more
 * slots would only read ahead into buffers filled for the first time.
 */
static unsigned int slots_needed(const struct dd_args *a, const struct dd_end *in,
				 const struct dd_end *out)
{
	bool one_by_one = out->kind == DD_END_STRIPED && (a->oflags & DD_STRIPED_ONE_BY_ONE);

	return one_by_one && in->kind == DD_END_STREAM && a->iodepth > 2 ? 2 : a->iodepth;
}

static int copy_init(struct copy *c, const struct dd_args *a, struct dd_end *in, struct dd_end *out)
{
	unsigned int i;
	int r;

	c->a = a;
	c->in = in;
	c->out = out;
	c->size = a->obs; /* with bs= ibs == obs; otherwise blocks gather obs bytes */
	c->sync = a->conv & DD_CONV_SYNC;
	c->noerror = a->conv & DD_CONV_NOERROR;
	c->recmode = a->twobufs && (c->sync || c->noerror);
	c->rsize = c->recmode ? (size_t)a->ibs : c->size;
	c->cap = c->size;
	if (c->recmode && __builtin_add_overflow(c->size, (size_t)a->ibs, &c->cap))
		return -E2BIG;
	c->nslots = slots_needed(a, in, out);
	c->in_left = a->count;
	c->records_left = a->max_records;
	c->sparse = a->conv & DD_CONV_SPARSE;
	c->warn_partial = wants_partial_warning(a);
	c->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->efd < 0)
		return -errno;
	if (in->kind == DD_END_AIO || out->kind == DD_END_AIO) {
		r = io_setup((int)(c->nslots * 2 * io_parts(c->cap)), &c->aio);
		if (r < 0) {
			c->aio = NULL;
			return r;
		}
	}
	c->slots = calloc(c->nslots, sizeof(*c->slots));
	if (!c->slots)
		return -ENOMEM;
	c->map_input = input_mappable(c);
	if (c->map_input) {
		/* Not leased (open for writing elsewhere, not ours): read, as it may change. */
		c->leased = dd_map_lease(c->in->fd, c->efd) == 0;
		c->map_input = c->leased;
	}
	for (i = 0; i < c->nslots; i++) {
		c->slots[i].iocbs = calloc(io_parts(c->cap), sizeof(struct iocb));
		if (!c->slots[i].iocbs)
			return -ENOMEM;
		/* allocated up front, so a bs= too large fails before anything is copied */
		if (!c->map_input && slot_buffer(c, &c->slots[i]) < 0)
			return -E2BIG; /* the block buffers; told apart by the caller */
	}
	return 0;
}

static void copy_destroy(struct copy *c)
{
	unsigned int i;

	if (c->slots)
		for (i = 0; i < c->nslots; i++) {
			striped_completion_release(c->slots[i].c);
			slot_unmap(&c->slots[i]);
			free(c->slots[i].iocbs);
			free(c->slots[i].own);
		}
	free(c->slots);
	if (c->leased)
		dd_map_lease_end(c->in->fd);
	if (c->aio)
		io_destroy(c->aio);
	/* the eventfd stays open: a late librados callback may still write to it */
}

int dd_copy(const struct dd_args *a, struct dd_end *in, struct dd_end *out, bool keep_hashes,
	    struct dd_result *res, struct dd_error *e)
{
	struct copy c;
	int r;

	memset(&c, 0, sizeof(c));
	memset(res, 0, sizeof(*res));
	c.res = res;
	c.e = e;
	c.keep_hashes = keep_hashes;
	dd_progress_start(&c.report, a->status);
	if (!a->count || !a->max_records) {
		/* count=0: nothing is read, no buffer is needed (dd) */
		res->elapsed_ns = dd_progress_elapsed(&c.report);
		res->started = true;
		return 0;
	}
	r = copy_init(&c, a, in, out);
	if (r == -E2BIG) {
		buffer_error(&c);
	} else if (r < 0) {
		dd_error_set(e, r, "cannot set up the copy: %s", strerror(-r));
	}
	if (r < 0) {
		copy_destroy(&c);
		return r;
	}
	res->started = true;
	run(&c);
	if (!e->code)
		extend_after_hole(&c);
	res->elapsed_ns = dd_progress_elapsed(&c.report);
	current_counts(&c, &res->counts, true);
	dd_progress_end_line(&c.report);
	copy_destroy(&c);
	return e->code;
}
