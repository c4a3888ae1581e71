// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd's pipeline, over a ring of iodepth blocks (dd_ring.c). A
 * block is read (at its offset through the ring, or read(2) in order from a
 * stream), then written (at its offset through the ring, or write(2) in
 * order to a stream), so block k + 1 is read while block k is written.
 * Writes are started in block order; completions may arrive in any order.
 * This file decides what each block holds and when it goes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dd_copy.h"
#include "dd_map.h"
#include "dd_progress.h"
#include "dd_ring.h"
#include "dd_signal.h"

struct copy {
	const struct dd_args *a;
	struct dd_end *in, *out;
	struct dd_ring ring; /* the blocks and their requests in flight */
	size_t size;	     /* block size: bs, or obs when ibs and obs differ */
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
	uint64_t read_seq, write_seq; /* the next block to read, and to write */
	bool in_eof;   /* no more reads */
	bool in_end;   /* a positional read came back short */
	bool out_done; /* no more writes */
	uint64_t in_left, records_left;
	uint64_t rec_left, rec_got; /* the input record being read (stream) */
	uint64_t in_bytes;	    /* bytes accepted from a positional input */
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

static void note_hash(struct copy *c, const struct dd_slot *s)
{
	if (dd_hashes_add(&c->res->hashes, s->pos, s->buf, s->len) < 0)
		dd_error_set(c->e, -ENOMEM, "verify: %s", strerror(ENOMEM));
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
static void count_record(struct copy *c, struct dd_slot *s)
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
static int stream_bad_record(struct copy *c, struct dd_slot *s, bool zeroed)
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
static int stream_fill(struct copy *c, struct dd_slot *s)
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

static int read_stream(struct copy *c, struct dd_slot *s)
{
	s->seq = c->read_seq++;
	s->err = 0;
	if (stream_fill(c, s) < 0)
		return -1;
	dd_slot_full(s);
	return 1;
}

static void buffer_error(struct copy *c)
{
	char h[DD_HUMAN_LEN];

	/* GNU dd's words; striped-dd has iodepth= such buffers */
	dd_error_set(c->e, -ENOMEM, "memory exhausted by input buffer of size %zu bytes (%s)",
		     c->size, dd_human(c->size, h, true, 1, 1));
}

/*
 * Map the block of a regular input file instead of reading it: as much of
 * [off, off + want) as the file holds now, which is what pread() would
 * return (short at the file's end). Its pages are in the page cache and
 * the zero-copy write sends them from there.
 */
static int map_positional(struct copy *c, struct dd_slot *s, uint64_t off, size_t want)
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
	dd_slot_full(s);
	return 0;
}

static int read_positional(struct copy *c, struct dd_slot *s)
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
	r = c->in->kind == DD_END_AIO ? direct_tail(c, c->in, c->ring.reads, off, want) : 0;
	if (r)
		return r < 0 ? -1 : 0;
	dd_slot_unmap(s);
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
	if (dd_slot_buffer(&c->ring, s) < 0) {
		buffer_error(c);
		return -1;
	}
	r = dd_ring_submit(&c->ring, c->in, s, false, off, want);
	if (r < 0) {
		dd_error_set(c->e, r, "error reading '%s': %s", c->in->label, strerror(-r));
		return -1;
	}
	c->read_seq++;
	if (c->in_left != DD_UNLIMITED)
		c->in_left -= want;
	return 1;
}

/* Start reads into free slots, in order; a stream gets one block per call. */
static int submit_reads(struct copy *c)
{
	int made = 0, r;

	while (!c->in_eof && !c->out_done && !c->e->code && !c->hold_reads) {
		struct dd_slot *s = dd_ring_slot(&c->ring, c->read_seq);

		if (s->state != DD_SLOT_FREE)
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

static void read_done(struct copy *c, struct dd_slot *s, long res)
{
	if (c->out_done) {
		dd_slot_free(s);
		return;
	}
	dd_slot_full(s);
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

static void count_written(struct copy *c, const struct dd_slot *s)
{
	if (s->len == c->a->obs)
		c->res->counts.out_full++;
	else
		c->res->counts.out_partial++;
	c->res->counts.bytes += s->len;
}

/* A block written (not seeked over): the striped side's calls time it (striped_file_latency). */
static void write_accounted(struct copy *c, const struct dd_slot *s)
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
static bool write_hole(struct copy *c, struct dd_slot *s)
{
	if (!c->sparse || !all_zero(s->buf, s->len))
		return false;
	if (!positional(c->out) && lseek(c->out->fd, (off_t)s->len, SEEK_CUR) < 0) {
		c->sparse = false;
		return false;
	}
	count_written(c, s);
	dd_slot_free(s);
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
static void input_lost(struct copy *c, const struct dd_slot *s)
{
	uint64_t at = c->out->base + s->pos;

	dd_error_set(c->e, -EIO,
		     "error reading '%s': the file shrank or could not be read while it was "
		     "copied; output bytes %" PRIu64 "-%" PRIu64 " may hold zeros",
		     c->in->label, at, at + s->len - 1);
}

static void write_done(struct copy *c, struct dd_slot *s, long res)
{
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
	dd_slot_free(s);
}

static int write_stream(struct copy *c, struct dd_slot *s)
{
	ssize_t n = dd_write_full(c->out->fd, s->buf, s->len);

	if (n < 0) {
		dd_error_set(c->e, -errno, "error writing '%s': %s", c->out->label,
			     strerror(errno));
		dd_slot_free(s);
		return -1;
	}
	if ((size_t)n < s->len) {
		/* SIGINT during a blocked write: count what went out, stop */
		c->res->counts.bytes += (uint64_t)n;
		c->res->counts.out_partial += n > 0;
		dd_slot_free(s);
		service_signals(c);
		return 1;
	}
	write_accounted(c, s);
	dd_slot_free(s);
	return 1;
}

static int write_positional(struct copy *c, struct dd_slot *s)
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
	    c->ring.writes)
		return 0;
	r = c->out->kind == DD_END_AIO ? direct_tail(c, c->out, c->ring.writes, off, s->len) : 0;
	if (r)
		return r < 0 ? -1 : 0;
	r = dd_ring_submit(&c->ring, c->out, s, true, off, s->len);
	if (r < 0) {
		dd_error_set(c->e, r, "error writing '%s': %s", c->out->label, out_strerror(c, r));
		return -1;
	}
	return 1;
}

/* Blocks past the end of the input are dropped once the end is known. */
static void drop_full_slots(struct copy *c)
{
	unsigned int i;

	for (i = 0; i < c->ring.nslots; i++)
		if (c->ring.slots[i].state == DD_SLOT_FULL)
			dd_slot_free(&c->ring.slots[i]);
}

/*
 * A block whose read failed, at its turn (every block before it written):
 * without conv=noerror the copy stops with dd's message. With it, dd's
 * message and statistics, and the copy goes on: the block is dropped, or
 * (conv=sync) goes out as ibs zeros, a partial record in. A positional
 * input needs no seek past the bad record: blocks are read at their
 * offsets. Returns 1 to write the block, 0 when it is done, -1 to wait.
 */
static int read_error_turn(struct copy *c, struct dd_slot *s)
{
	if (c->ring.writes)
		return -1; /* dd's statistics count the blocks before as written */
	if (!c->noerror) {
		dd_error_set(c->e, s->err, "error reading '%s': %s", c->in->label,
			     strerror(-s->err));
		dd_slot_free(s);
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
	dd_slot_free(s);
	c->write_seq++;
	return 0;
}

/* Start writes of read blocks, in block order. */
static int submit_writes(struct copy *c)
{
	int made = 0, r;

	while (!c->out_done && !c->e->code) {
		struct dd_slot *s = dd_ring_slot(&c->ring, c->write_seq);
		bool last, hole;

		if (s->state != DD_SLOT_FULL || s->seq != c->write_seq)
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

/* ---- the loop --------------------------------------------------------- */

/* The ring's callback: a block's read or write finished. */
static void slot_done(void *arg, struct dd_slot *s, long res)
{
	struct copy *c = arg;

	if (s->state == DD_SLOT_READING)
		read_done(c, s, res);
	else
		write_done(c, s, res);
}

static bool finished(const struct copy *c)
{
	if (c->ring.reads || c->ring.writes)
		return false;
	if (c->e->code || c->out_done)
		return true;
	return c->in_eof && dd_ring_empty(&c->ring);
}

/*
 * Another process waits to write or truncate the input: map no more blocks,
 * and give the lease back once no mapped block is left to write, so none
 * loses a page under its write. What is read from then on is the file as
 * the other process leaves it, as with dd.
 */
static void service_lease(struct copy *c)
{
	if (!c->leased || !dd_map_lease_wanted())
		return;
	c->map_input = false;
	if (dd_ring_holds_mapped(&c->ring))
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
		made += dd_ring_harvest(&c->ring, slot_done, c);
		/* as dd: no progress line once the copy is over, the summary follows */
		if (finished(c))
			break;
		dd_progress_tick(&c->report, c->res->counts.bytes, dd_now_ns());
		if (!made) {
			if (!c->ring.reads && !c->ring.writes) {
				dd_error_set(c->e, -EIO, "internal error: the copy stalled");
				break;
			}
			dd_ring_wait(&c->ring, dd_progress_wait_ms(&c->report));
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
	return dd_map_setup(c->ring.nslots) == 0;
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
	size_t cap; /* a slot's buffer: a block, and room for one more record (recmode) */
	int r;

	c->a = a;
	c->in = in;
	c->out = out;
	c->size = a->obs; /* with bs= ibs == obs; otherwise blocks gather obs bytes */
	c->sync = a->conv & DD_CONV_SYNC;
	c->noerror = a->conv & DD_CONV_NOERROR;
	c->recmode = a->twobufs && (c->sync || c->noerror);
	c->rsize = c->recmode ? (size_t)a->ibs : c->size;
	cap = c->size;
	if (c->recmode && __builtin_add_overflow(c->size, (size_t)a->ibs, &cap))
		return -E2BIG;
	c->in_left = a->count;
	c->records_left = a->max_records;
	c->sparse = a->conv & DD_CONV_SPARSE;
	c->warn_partial = wants_partial_warning(a);
	r = dd_ring_init(&c->ring, slots_needed(a, in, out), cap,
			 in->kind == DD_END_AIO || out->kind == DD_END_AIO);
	if (r < 0)
		return r;
	c->map_input = input_mappable(c);
	if (c->map_input) {
		/* Not leased (open for writing elsewhere, not ours): read, as it may change. */
		c->leased = dd_map_lease(c->in->fd, c->ring.efd) == 0;
		c->map_input = c->leased;
	}
	/* a mapped input needs no block buffers */
	return dd_ring_prepare(&c->ring, !c->map_input);
}

static void copy_destroy(struct copy *c)
{
	dd_ring_destroy(&c->ring); /* the mapped blocks unmapped before the lease goes */
	if (c->leased)
		dd_map_lease_end(c->in->fd);
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
