/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * striped-dd: GNU dd's record rules. dd reads records (each read(2) of up
 * to ibs bytes, full or partial) and writes blocks (obs bytes, or fewer at
 * the end), and counts both; count= counts records (or bytes), conv=sync
 * pads a short or bad record to ibs with zeros, conv=noerror passes a bad
 * one over. GNU dd gets much of this from having one buffer and one read at
 * a time; a copy with iodepth blocks in flight must do it on purpose. This
 * part holds those rules, what the input still allows and the counts; the
 * copy (dd_copy.c) asks it how much to read and tells it what came back
 * and what went out. It reads a stream itself: there each read(2) is a
 * record.
 */
#ifndef DD_RECORDS_H
#define DD_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dd_args.h"
#include "dd_progress.h"
#include "dd_report.h"
#include "dd_ring.h"

struct dd_records {
	const struct dd_args *a;
	bool positional; /* the input is read at offsets; else a stream, a record a read(2) */
	size_t size;	 /* block size: bs, or obs when ibs and obs differ */
	size_t rsize;	 /* positional reads: size, or ibs (recmode) */
	bool sync, noerror;
	/*
	 * conv=sync or noerror with ibs != obs: blocks are read a record at a
	 * time, as dd does, and written as they come; the output records are
	 * counted from the bytes, as dd's output buffer would have cut them.
	 */
	bool recmode;
	/* What count= still allows (DD_UNLIMITED: no end). */
	uint64_t in_left, records_left;
	/* A stream's record being read, and the one before. */
	uint64_t rec_left, rec_got;
	uint64_t partread; /* length of the last input record if partial (dd) */
	int in_err;	   /* a stream read failed: the next block is the bad record */
	bool hold_reads;   /* a bad stream record waits for its turn */
	bool warn_partial; /* GNU dd's "partial read" warning, once */
	ssize_t prev_nread;
	/* The counts: records and bytes out, records of a stream in. */
	struct dd_counts counts;
	uint64_t in_bytes; /* bytes handed on from a positional input (its records in) */
	uint64_t in_extra; /* bad records padded by conv=sync (positional input) */
};

/** The rules the operands ask for; positional: the input is read at offsets. */
void dd_records_init(struct dd_records *rec, const struct dd_args *a, bool positional);

/**
 * How large a slot's buffer must be: a block, and room for one more
 * record in recmode (a record is never cut).
 * @return 0; -E2BIG when that overflows
 */
int dd_records_capacity(const struct dd_records *rec, size_t *cap);

/**
 * dd's counts now (final false: SIGUSR1's statistics, in recmode only the
 * whole obs blocks dd's output buffer would have written) or at the end.
 */
void dd_records_counts(const struct dd_records *rec, struct dd_counts *n, bool final);

/* ---- a stream ---- */

/* What dd_records_fill() did with a block. */
enum dd_fill {
	DD_FILL_BLOCK,	/* the block is ready; more input may follow */
	DD_FILL_END,	/* the block is ready (maybe empty); the input is over */
	DD_FILL_SIGNAL, /* a signal waits: act on it, then call again to go on */
};

/**
 * Begin a block of a stream in s: empty, or, after a failed read, the bad
 * record (its turn comes at s's, in dd_records_pass_over()).
 * @return whether s is done already (the bad record)
 */
bool dd_records_fill_begin(struct dd_records *rec, struct dd_slot *s);

/**
 * Fill s from the stream fd with dd's record rules: each read(2) of up to
 * ibs bytes is one record (full or partial); with bs= a block is one
 * record, otherwise records are gathered into obs-sized blocks. A read
 * error ends the block (what it holds goes out first; the error gets a
 * block of its own). GNU dd's partial-read warning goes to report.
 */
enum dd_fill dd_records_fill(struct dd_records *rec, int fd, struct dd_slot *s,
			     struct dd_progress *report);

/* ---- an input read at offsets ---- */

/** How many bytes the next positional read asks for (0: count= is reached). */
size_t dd_records_read_size(const struct dd_records *rec);

/** A positional read of want bytes started (or a block mapped): count= allows that much less. */
void dd_records_reading(struct dd_records *rec, size_t want);

/** A positional read failed: conv=noerror,sync makes its block ibs zeros. */
void dd_records_read_failed(struct dd_records *rec, struct dd_slot *s);

/** A positional read came back (s->got bytes): conv=sync pads a short record to ibs. */
void dd_records_read_done(const struct dd_records *rec, struct dd_slot *s);

/* ---- at a block's turn ---- */

/**
 * conv=noerror: the bad record s stands for, passed over at its turn;
 * reading goes on. A block conv=sync filled goes out, a partial record in.
 * @return whether s goes out
 */
bool dd_records_pass_over(struct dd_records *rec, struct dd_slot *s);

/**
 * An empty bad block dropped: dd did not count it, so count= reads one
 * record more.
 * @return whether a positional input was given its bytes back (where it
 *         ends, if a read found that, stops it again)
 */
bool dd_records_unread(struct dd_records *rec, const struct dd_slot *s);

/*
 * A block read from got bytes of the input was handed to the output
 * (written, seeked over, or its write failed): a positional input's records
 * in are counted from those bytes, as dd reads one and writes one. (This
 * and the next are inline: every block passes them.)
 */
static inline void dd_records_handed_on(struct dd_records *rec, size_t got)
{
	if (rec->positional)
		rec->in_bytes += got;
}

/* A block of len bytes was written (or seeked over): an output record. */
static inline void dd_records_written(struct dd_records *rec, size_t len)
{
	if (len == rec->a->obs)
		rec->counts.out_full++;
	else
		rec->counts.out_partial++;
	rec->counts.bytes += len;
}

/** Only n bytes of a block went to a stream before SIGINT: a partial record if any. */
void dd_records_written_part(struct dd_records *rec, size_t n);

#endif /* DD_RECORDS_H */
