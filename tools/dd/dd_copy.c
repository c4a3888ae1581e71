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
#include "dd_records.h"
#include "dd_ring.h"
#include "dd_signal.h"

/*
 * The copy: its parts, each owning its state, and what is left to the
 * pipeline itself: the order of blocks, the input's end, the output's.
 */
struct copy {
	const struct dd_args *a;
	struct dd_end *in, *out;
	struct dd_ring ring;	      /* the blocks and their requests in flight (dd_ring.c) */
	struct dd_records rec;	      /* dd's record rules and counts (dd_records.c) */
	struct dd_progress report;    /* what is printed while the copy runs (dd_progress.c) */
	uint64_t read_seq, write_seq; /* the next block to read, and to write */
	/* the input */
	bool in_eof;	/* no more reads */
	bool in_end;	/* a positional read came back short */
	bool map_input; /* blocks of a regular input file are mapped, not read */
	bool leased;	/* the input's read lease: no mapped block can be cut short */
	/* the output */
	bool out_done;	  /* no more writes */
	uint64_t out_pos; /* output offset of the next block handed on */
	bool sparse;	  /* conv=sparse, until the output turns out not to seek */
	bool last_hole;	  /* the last block was seeked over, not written */
	bool keep_hashes; /* verify= of a stream input: each block's hash (dd_hash.c) */
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

static void print_stats(struct copy *c)
{
	struct dd_counts n;

	dd_records_counts(&c->rec, &n, false);
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

/*
 * Fill s from the stream with dd's record rules (dd_records_fill), acting
 * on signals between its reads. Returns whether the input is over.
 */
static bool stream_block(struct copy *c, struct dd_slot *s)
{
	enum dd_fill f;

	if (dd_records_fill_begin(&c->rec, s))
		return false; /* the bad record a failed read left */
	while ((f = dd_records_fill(&c->rec, c->in->fd, s, &c->report)) == DD_FILL_SIGNAL) {
		service_signals(c);
		if (c->out_done)
			return true; /* SIGINT: what was read is dropped */
	}
	return f == DD_FILL_END;
}

static int read_stream(struct copy *c, struct dd_slot *s)
{
	s->seq = c->read_seq++;
	s->err = 0;
	if (stream_block(c, s))
		c->in_eof = true;
	dd_slot_full(s);
	return 1;
}

static void buffer_error(struct copy *c)
{
	char h[DD_HUMAN_LEN];

	/* GNU dd's words; striped-dd has iodepth= such buffers */
	dd_error_set(c->e, -ENOMEM, "memory exhausted by input buffer of size %zu bytes (%s)",
		     c->rec.size, dd_human(c->rec.size, h, true, 1, 1));
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

	if (__builtin_mul_overflow(c->read_seq, (uint64_t)c->rec.rsize, &pos) ||
	    __builtin_add_overflow(c->in->base, pos, &off)) {
		c->in_eof = true;
		return 0;
	}
	want = dd_records_read_size(&c->rec);
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
		dd_records_reading(&c->rec, want);
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
	dd_records_reading(&c->rec, want);
	return 1;
}

/* Start reads into free slots, in order; a stream gets one block per call. */
static int submit_reads(struct copy *c)
{
	int made = 0, r;

	while (!c->in_eof && !c->out_done && !c->e->code && !c->rec.hold_reads) {
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
		dd_records_read_failed(&c->rec, s);
		return;
	}
	s->len = s->got = (size_t)res;
	if (s->len < s->want) {
		s->eof = true;
		/* regular files and striped files are short only at the end */
		c->in_eof = c->in_end = true;
	}
	dd_records_read_done(&c->rec, s);
}

/* ---- writing ---------------------------------------------------------- */

/* A block written (not seeked over): the striped side's calls time it (striped_file_latency). */
static void write_accounted(struct copy *c, const struct dd_slot *s)
{
	dd_records_written(&c->rec, s->len);
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
	dd_records_written(&c->rec, s->len);
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
		return __builtin_add_overflow(c->out->base, c->rec.counts.bytes, end) ? -1 : 0;
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
		dd_records_written_part(&c->rec, (size_t)n);
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
	if (!c->rec.noerror) {
		dd_error_set(c->e, s->err, "error reading '%s': %s", c->in->label,
			     strerror(-s->err));
		dd_slot_free(s);
		return -1;
	}
	dd_progress_read_error(&c->report, c->in->label, s->err);
	print_stats(c);
	c->res->read_errors++;
	s->err = 0;
	if (dd_records_pass_over(&c->rec, s))
		return 1;
	if (dd_records_unread(&c->rec, s))
		c->in_eof = c->in_end; /* read again up to where the input ends, if known */
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
		if (r != 0)
			dd_records_handed_on(&c->rec, s->got);
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
		dd_progress_tick(&c->report, c->rec.counts.bytes);
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
	    c->rec.recmode || c->rec.sync || c->rec.noerror || c->rec.size < DD_MAP_MIN_BLOCK)
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
	dd_records_init(&c->rec, a, positional(in));
	if (dd_records_capacity(&c->rec, &cap) < 0)
		return -E2BIG;
	c->sparse = a->conv & DD_CONV_SPARSE;
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
	dd_records_counts(&c.rec, &res->counts, true);
	dd_progress_end_line(&c.report);
	copy_destroy(&c);
	return e->code;
}
