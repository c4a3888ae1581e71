/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * window.c: the buffered mode's bookkeeping, pure (unit-tested alone): the
 * window's blocks and the byte ranges written into them, the runs a
 * write-behind sends, and how far a reader is read ahead.
 */
#ifndef STRIPED_WINDOW_H
#define STRIPED_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 64 KiB: every stripe unit is a multiple, so a block lies in one object. */
#define WIN_BLOCK_SHIFT 16
#define WIN_BLOCK (1u << WIN_BLOCK_SHIFT)
/* A block remembers this many separate ranges written into it; one more waits for a send. */
#define WIN_RANGES 4

enum win_state {
	WIN_DIRTY,   /* written, not sent yet */
	WIN_SENDING, /* its write is in flight: unchanged until it lands */
	WIN_LANDED,  /* out of the index; freed once nothing pins it */
};

struct win_range {
	uint32_t lo, hi;
};

struct win_block {
	uint64_t index; /* the block's file offset / WIN_BLOCK */
	char *data;	/* WIN_BLOCK bytes; only the ranges hold the caller's */
	struct win_range r[WIN_RANGES];
	unsigned nranges;
	enum win_state state;
	unsigned refs; /* the index's and each reader's pin */
	unsigned
	    sends; /* writes in flight carrying its bytes: it leaves the index after the last */
	uint64_t dirtied_ns; /* when it was first written after its last send */
	struct win_block *hnext;
	struct win_block *older, *newer; /* the dirty list, oldest first */
};

struct window {
	struct win_block **buckets;
	size_t nbuckets;
	size_t nblocks;			   /* in the index: dirty or being sent */
	size_t dirty;			   /* on the dirty list */
	struct win_block *oldest, *newest; /* dirty, in the order first written */
	uint64_t end; /* past the last byte indexed blocks hold; 0 when none is */
};

/* A piece of a run: the bytes [lo, hi) of block b. */
struct win_piece {
	struct win_block *b;
	uint32_t lo, hi;
};

int win_block_add(struct win_block *b, uint32_t lo, uint32_t hi);
bool win_block_fits(const struct win_block *b, uint32_t lo, uint32_t hi);
bool win_block_full(const struct win_block *b);
uint64_t win_block_end(const struct win_block *b);
int win_init(struct window *w, size_t max_blocks);
void win_destroy(struct window *w);
struct win_block *win_find(const struct window *w, uint64_t index);
void win_insert(struct window *w, struct win_block *b, uint64_t now);
void win_note_write(struct window *w, const struct win_block *b);
void win_mark_sending(struct window *w, struct win_block *b);
void win_remove(struct window *w, struct win_block *b);
bool win_unit_complete(const struct window *w, uint64_t first, uint64_t nblocks);
void win_sort(struct win_block **blocks, size_t n);
size_t win_next_run(struct win_block *const *blocks, size_t n, size_t first_range,
		    struct win_piece *pieces, size_t max_pieces, size_t *used, size_t *next_range);
uint64_t win_run_offset(const struct win_piece *p);
uint64_t win_run_length(const struct win_piece *p, size_t n);

/* How far a reader is read ahead. */
struct ra_policy {
	uint64_t next;	   /* where a sequential reader reads next */
	uint64_t ahead;	   /* bytes kept read ahead of it; 0: not sequential */
	uint64_t min, max; /* the first distance, and the bound it doubles up to */
	bool seen;	   /* a read came before */
};

void ra_init(struct ra_policy *p, uint64_t min, uint64_t max);
/* New bounds (a window configured anew), the reader's state kept. */
void ra_set_bounds(struct ra_policy *p, uint64_t min, uint64_t max);
uint64_t ra_observe(struct ra_policy *p, uint64_t off, uint64_t len);

#endif /* STRIPED_WINDOW_H */
