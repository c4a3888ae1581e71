// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * GNU dd's record rules, as coreutils 9.1's dd.c applies them: what a
 * stream's read(2) makes of a record, count=, conv=sync's padding,
 * conv=noerror's bad records and the records in and out. dd-local.sh holds
 * every rule against GNU dd itself, message for message.
 */
#include <errno.h>
#include <string.h>

#include "dd_io.h"
#include "dd_records.h"
#include "dd_signal.h"

/*
 * GNU dd warns once, when a read returns data after a short one, if bs= was
 * given without iflag=fullblock and records matter (skip=, count=, direct).
 */
static bool wants_partial_warning(const struct dd_args *a)
{
	uint64_t records = a->max_records;

	if (a->iflags & DD_FLAG_COUNT_BYTES)
		records = a->count == DD_UNLIMITED ? DD_UNLIMITED : a->count / a->ibs;
	return !a->twobufs && !(a->iflags & DD_FLAG_FULLBLOCK) &&
	       (a->skip / a->ibs || (records > 0 && records != DD_UNLIMITED) ||
		((a->iflags | a->oflags) & DD_FLAG_DIRECT));
}

void dd_records_init(struct dd_records *rec, const struct dd_args *a, bool positional)
{
	memset(rec, 0, sizeof(*rec));
	rec->a = a;
	rec->positional = positional;
	rec->size = a->obs; /* with bs= ibs == obs; otherwise blocks gather obs bytes */
	rec->sync = a->conv & DD_CONV_SYNC;
	rec->noerror = a->conv & DD_CONV_NOERROR;
	rec->recmode = a->twobufs && (rec->sync || rec->noerror);
	rec->rsize = rec->recmode ? (size_t)a->ibs : rec->size;
	rec->in_left = a->count;
	rec->records_left = a->max_records;
	rec->warn_partial = wants_partial_warning(a);
}

int dd_records_capacity(const struct dd_records *rec, size_t *cap)
{
	*cap = rec->size;
	if (rec->recmode && __builtin_add_overflow(rec->size, (size_t)rec->a->ibs, cap))
		return -E2BIG;
	return 0;
}

/*
 * A positional input counts its records in from the bytes handed on. In
 * recmode dd's output buffer holds what is not a whole obs block until the
 * end: before it only the whole blocks are out.
 */
void dd_records_counts(const struct dd_records *rec, struct dd_counts *n, bool final)
{
	uint64_t ibs = rec->a->ibs, obs = rec->a->obs;

	*n = rec->counts;
	if (rec->positional) {
		n->in_full = rec->in_bytes / ibs;
		n->in_partial = (rec->in_bytes % ibs != 0) + rec->in_extra;
	}
	if (rec->recmode) {
		n->out_full = n->bytes / obs;
		n->out_partial = final && n->bytes % obs;
		if (!final)
			n->bytes = n->out_full * obs;
	}
}

/* ---- a stream ---------------------------------------------------------- */

/* A record of a stream ends: count it; conv=sync pads a short one to ibs. */
static void count_record(struct dd_records *rec, struct dd_slot *s)
{
	if (rec->rec_got == rec->a->ibs) {
		rec->counts.in_full++;
		rec->partread = 0;
	} else if (rec->rec_got) {
		rec->counts.in_partial++;
		rec->partread = rec->rec_got;
		if (rec->sync) {
			/* zeroed before the read, as dd's buffer is */
			s->len += (size_t)(rec->a->ibs - rec->rec_got);
		}
	}
	rec->rec_got = 0;
	rec->rec_left = 0;
}

/* Start the next input record, or report the end of the input. */
static bool record_begin(struct dd_records *rec)
{
	if (!rec->records_left || !rec->in_left)
		return false;
	if (rec->records_left != DD_UNLIMITED)
		rec->records_left--;
	rec->rec_left = rec->in_left < rec->a->ibs ? rec->in_left : rec->a->ibs;
	rec->rec_got = 0;
	return true;
}

static void note_read(struct dd_records *rec, ssize_t r, size_t asked, struct dd_progress *report)
{
	if (r > 0 && rec->warn_partial && rec->prev_nread > 0 && (size_t)rec->prev_nread < asked) {
		dd_progress_warn_partial(report, rec->prev_nread);
		rec->warn_partial = false;
	}
	rec->prev_nread = r;
}

/*
 * A stream read failed: the block s stands for the bad record. conv=sync
 * makes it ibs bytes (zeros, and what iflag=fullblock read of it) unless
 * the record before was short (dd: partread); otherwise it is empty and not
 * counted, as dd reads the record again. Its turn comes in the copy's order.
 */
static void stream_bad_record(struct dd_records *rec, struct dd_slot *s, bool zeroed)
{
	uint64_t ibs = rec->a->ibs;

	s->err = rec->in_err;
	rec->in_err = 0;
	rec->hold_reads = true;
	if (rec->sync && rec->noerror && !rec->partread) {
		/* zeroed: s->buf holds the record as the failed read left it */
		if (!zeroed)
			memset(s->buf, 0, (size_t)ibs);
		else if (rec->rec_left + rec->rec_got < ibs)
			memset(s->buf + rec->rec_left + rec->rec_got, 0,
			       (size_t)(ibs - rec->rec_left - rec->rec_got));
		s->len = (size_t)ibs;
		if (rec->in_left != DD_UNLIMITED)
			rec->in_left -= rec->rec_left < rec->in_left ? rec->rec_left : rec->in_left;
		rec->partread = 0;
	} else if (rec->records_left != DD_UNLIMITED) {
		rec->records_left++;
	}
	rec->rec_left = 0;
	rec->rec_got = 0;
}

bool dd_records_fill_begin(struct dd_records *rec, struct dd_slot *s)
{
	s->len = 0;
	if (!rec->in_err)
		return false;
	stream_bad_record(rec, s, false);
	return true;
}

/* The bytes the next read(2) asks for: the record's rest, as much as the block holds. */
static size_t next_read(const struct dd_records *rec, const struct dd_slot *s)
{
	size_t n = rec->size - s->len < rec->rec_left ? rec->size - s->len : rec->rec_left;

	if (rec->recmode)
		n = (size_t)rec->rec_left; /* a record is never cut (cap has room) */
	return n;
}

/* r bytes of the record came (r > 0 asked n); returns whether the block is done. */
static bool took(struct dd_records *rec, struct dd_slot *s, size_t r, size_t n, bool fullblock)
{
	if (rec->in_left != DD_UNLIMITED)
		rec->in_left -= (uint64_t)r;
	s->len += r;
	rec->rec_got += (uint64_t)r;
	rec->rec_left -= (uint64_t)r;
	if (!rec->rec_left || (r < n && !fullblock))
		count_record(rec, s);
	return !rec->a->twobufs && !rec->rec_left;
}

enum dd_fill dd_records_fill(struct dd_records *rec, int fd, struct dd_slot *s,
			     struct dd_progress *report)
{
	bool fullblock = rec->a->iflags & DD_FLAG_FULLBLOCK;
	size_t n;
	ssize_t r;

	while (s->len < rec->size) {
		/*
		 * A signal that cut a fullblock read short is seen here, before
		 * the next read(2) waits for more input, as dd does.
		 */
		if (dd_signal_pending())
			return DD_FILL_SIGNAL;
		if (!rec->rec_left && !record_begin(rec))
			return DD_FILL_END;
		n = next_read(rec, s);
		if (rec->sync && !rec->rec_got)
			memset(s->buf + s->len, 0, n);
		r = fullblock ? dd_read_full(fd, s->buf + s->len, n)
			      : dd_read_once(fd, s->buf + s->len, n);
		/* EINTR is no read: the partial-read warning must not forget the last one */
		if (r < 0 && errno == EINTR)
			return DD_FILL_SIGNAL;
		note_read(rec, r, n, report);
		if (r < 0) {
			/* what this block holds goes out first; the error gets a block */
			rec->in_err = -errno;
			if (rec->rec_got && !fullblock)
				count_record(rec, s); /* dd read it as a short record */
			if (!s->len)
				stream_bad_record(rec, s, rec->sync);
			return DD_FILL_BLOCK;
		}
		if (!r) {
			count_record(rec, s);
			return DD_FILL_END;
		}
		if (took(rec, s, (size_t)r, n, fullblock))
			break;
	}
	return DD_FILL_BLOCK;
}

/* ---- an input read at offsets ------------------------------------------ */

size_t dd_records_read_size(const struct dd_records *rec)
{
	return rec->in_left < rec->rsize ? (size_t)rec->in_left : rec->rsize;
}

void dd_records_reading(struct dd_records *rec, size_t want)
{
	if (rec->in_left != DD_UNLIMITED)
		rec->in_left -= want;
}

void dd_records_read_failed(struct dd_records *rec, struct dd_slot *s)
{
	if (rec->noerror && rec->sync) {
		memset(s->buf, 0, (size_t)rec->a->ibs);
		s->len = (size_t)rec->a->ibs;
	}
}

void dd_records_read_done(const struct dd_records *rec, struct dd_slot *s)
{
	if (rec->sync && s->got && s->got < rec->a->ibs) {
		memset(s->buf + s->got, 0, (size_t)rec->a->ibs - s->got);
		s->len = (size_t)rec->a->ibs;
	}
}

/* ---- at a block's turn ------------------------------------------------- */

bool dd_records_pass_over(struct dd_records *rec, struct dd_slot *s)
{
	rec->hold_reads = false;
	if (!s->len)
		return false;
	if (rec->positional)
		rec->in_extra++;
	else
		rec->counts.in_partial++;
	return true;
}

bool dd_records_unread(struct dd_records *rec, const struct dd_slot *s)
{
	if (!rec->positional || rec->in_left == DD_UNLIMITED)
		return false;
	rec->in_left += s->want;
	return true;
}

void dd_records_written_part(struct dd_records *rec, size_t n)
{
	rec->counts.bytes += (uint64_t)n;
	rec->counts.out_partial += n > 0;
}
