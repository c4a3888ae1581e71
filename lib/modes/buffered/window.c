// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The buffered mode's bookkeeping, pure (no librados, no threads): which
 * bytes of the file a handle holds in its window, block by block; the
 * writes they came from, cut into the contiguous runs write-behind sends;
 * and how far a reader is read ahead. buffer.c does the I/O and the
 * locking around it.
 *
 * Blocks are WIN_BLOCK bytes at multiples of WIN_BLOCK. Every stripe unit
 * is a multiple of 64 KiB, so a block never straddles two objects: a run
 * of blocks maps onto objects as a plain write of the same bytes would.
 * A block remembers the exact byte ranges the caller wrote into it (at
 * most WIN_RANGES of them), and only those are ever sent: a block is never
 * read from RADOS to fill it, so two buffered writers of disjoint ranges of
 * one file never send each other's bytes, stale or not.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

/* ---- a block's ranges ---- */

/*
 * Add [lo, hi) to the block's ranges, merging it with those it overlaps
 * or touches. -E2BIG when that would take more than WIN_RANGES ranges:
 * the block must be sent first.
 */
int win_block_add(struct win_block *b, uint32_t lo, uint32_t hi)
{
	struct win_range out[WIN_RANGES + 1];
	unsigned n = 0, i = 0;
	bool placed = false;

	for (; i < b->nranges; i++) {
		struct win_range r = b->r[i];

		if (r.hi < lo) { /* wholly before, not touching */
			out[n++] = r;
			continue;
		}
		if (r.lo > hi) { /* wholly after: the new range goes first */
			if (!placed) {
				out[n++] = (struct win_range){lo, hi};
				placed = true;
			}
			out[n++] = r;
			continue;
		}
		/* Overlaps or touches: grow the new range over it. */
		if (r.lo < lo)
			lo = r.lo;
		if (r.hi > hi)
			hi = r.hi;
	}
	if (!placed)
		out[n++] = (struct win_range){lo, hi};
	if (n > WIN_RANGES)
		return -E2BIG;
	memcpy(b->r, out, n * sizeof(out[0]));
	b->nranges = n;
	return 0;
}

/* Whether [lo, hi) could be added without sending the block first. */
bool win_block_fits(const struct win_block *b, uint32_t lo, uint32_t hi)
{
	struct win_block copy = *b;

	return win_block_add(&copy, lo, hi) == 0;
}

bool win_block_full(const struct win_block *b)
{
	return b->nranges == 1 && b->r[0].lo == 0 && b->r[0].hi == WIN_BLOCK;
}

/* Past the last byte the block holds, counted from the file's start. */
uint64_t win_block_end(const struct win_block *b)
{
	return b->index * WIN_BLOCK + (b->nranges ? b->r[b->nranges - 1].hi : 0);
}

/* ---- the index ---- */

static size_t bucket_of(const struct window *w, uint64_t index)
{
	return (size_t)((index * 0x9e3779b97f4a7c15ull) >> 32) & (w->nbuckets - 1);
}

int win_init(struct window *w, size_t max_blocks)
{
	size_t n = 16;

	memset(w, 0, sizeof(*w));
	while (n < max_blocks * 2 && n < ((size_t)1 << 24))
		n <<= 1;
	w->buckets = calloc(n, sizeof(*w->buckets));
	if (!w->buckets)
		return -ENOMEM;
	w->nbuckets = n;
	return 0;
}

void win_destroy(struct window *w)
{
	free(w->buckets);
	w->buckets = NULL;
}

struct win_block *win_find(const struct window *w, uint64_t index)
{
	struct win_block *b = w->buckets[bucket_of(w, index)];

	while (b && b->index != index)
		b = b->hnext;
	return b;
}

static void dirty_link(struct window *w, struct win_block *b)
{
	b->newer = NULL;
	b->older = w->newest;
	if (w->newest)
		w->newest->newer = b;
	else
		w->oldest = b;
	w->newest = b;
	w->dirty++;
}

static void dirty_unlink(struct window *w, struct win_block *b)
{
	if (b->older)
		b->older->newer = b->newer;
	else
		w->oldest = b->newer;
	if (b->newer)
		b->newer->older = b->older;
	else
		w->newest = b->older;
	b->older = b->newer = NULL;
	w->dirty--;
}

/* b (index, data set, no ranges yet) joins the window as dirty, dirtied at now. */
void win_insert(struct window *w, struct win_block *b, uint64_t now)
{
	size_t i = bucket_of(w, b->index);

	b->nranges = 0;
	b->state = WIN_DIRTY;
	b->dirtied_ns = now;
	b->hnext = w->buckets[i];
	w->buckets[i] = b;
	w->nblocks++;
	dirty_link(w, b);
}

/* Bytes were added to b: the window's end follows them. */
void win_note_write(struct window *w, const struct win_block *b)
{
	uint64_t end = win_block_end(b);

	if (end > w->end)
		w->end = end;
}

/* b's ranges go out now: it stays in the index (reads still see it), off the dirty list. */
void win_mark_sending(struct window *w, struct win_block *b)
{
	if (b->state == WIN_DIRTY)
		dirty_unlink(w, b);
	b->state = WIN_SENDING;
}

/* b leaves the index (it landed, or its write failed). The end resets once nothing is left. */
void win_remove(struct window *w, struct win_block *b)
{
	struct win_block **p = &w->buckets[bucket_of(w, b->index)];

	while (*p && *p != b)
		p = &(*p)->hnext;
	if (*p)
		*p = b->hnext;
	b->hnext = NULL;
	if (b->state == WIN_DIRTY)
		dirty_unlink(w, b);
	b->state = WIN_LANDED;
	if (--w->nblocks == 0)
		w->end = 0;
}

/*
 * Whether the unit of nblocks blocks from first is all in the window, every
 * block dirty and full: write-behind sends it at once. Checked from the
 * unit's end, where a sequential writer has not been yet.
 */
bool win_unit_complete(const struct window *w, uint64_t first, uint64_t nblocks)
{
	for (uint64_t i = nblocks; i-- > 0;) {
		const struct win_block *b = win_find(w, first + i);

		if (!b || b->state != WIN_DIRTY || !win_block_full(b))
			return false;
	}
	return true;
}

/* ---- runs ---- */

static int block_cmp(const void *a, const void *b)
{
	const struct win_block *x = *(struct win_block *const *)a;
	const struct win_block *y = *(struct win_block *const *)b;

	return x->index < y->index ? -1 : x->index > y->index;
}

void win_sort(struct win_block **blocks, size_t n)
{
	qsort(blocks, n, sizeof(*blocks), block_cmp);
}

/*
 * The first run of blocks[0..n) (sorted by index): the pieces of bytes that
 * follow each other in the file without a gap, at most max_pieces of them.
 * Fills pieces (room for max_pieces) and returns how many; *used says how
 * many blocks they came from. A block with several ranges ends a run after
 * its first (the others start runs of their own).
 */
size_t win_next_run(struct win_block *const *blocks, size_t n, size_t first_range,
		    struct win_piece *pieces, size_t max_pieces, size_t *used, size_t *next_range)
{
	size_t np = 0, i = 0, r = first_range;

	*used = 0;
	*next_range = 0;
	while (i < n && np < max_pieces) {
		const struct win_block *b = blocks[i];
		const struct win_range *rg = &b->r[r];

		if (np) {
			const struct win_piece *last = &pieces[np - 1];

			if (last->hi != WIN_BLOCK || rg->lo != 0 || b->index != last->b->index + 1)
				break;
		}
		pieces[np++] = (struct win_piece){(struct win_block *)b, rg->lo, rg->hi};
		if (r + 1 < b->nranges) {
			/* The block's next range is past a gap: it starts the next run. */
			*used = i;
			*next_range = r + 1;
			return np;
		}
		i++;
		r = 0;
	}
	*used = i;
	return np;
}

uint64_t win_run_offset(const struct win_piece *p)
{
	return p->b->index * WIN_BLOCK + p->lo;
}

uint64_t win_run_length(const struct win_piece *p, size_t n)
{
	uint64_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += p[i].hi - p[i].lo;
	return len;
}

/* ---- readahead ---- */

void ra_init(struct ra_policy *p, uint64_t min, uint64_t max)
{
	memset(p, 0, sizeof(*p));
	ra_set_bounds(p, min, max);
}

void ra_set_bounds(struct ra_policy *p, uint64_t min, uint64_t max)
{
	p->min = min < max ? min : max;
	p->max = max;
}

/*
 * A read of [off, off + len) was asked for: how many bytes past its end
 * should be read ahead. A read where the last one ended (or the first read,
 * at offset 0) is sequential: the distance starts at min (or twice the
 * read, if larger) and doubles with each sequential read, up to max. Any
 * other read is random: nothing ahead, and the distance starts over.
 */
uint64_t ra_observe(struct ra_policy *p, uint64_t off, uint64_t len)
{
	bool sequential = p->seen ? off == p->next : off == 0;
	uint64_t start = len > p->max / 2 ? p->max : 2 * len;

	p->seen = true;
	p->next = off + len;
	if (!sequential || !p->max || !len) {
		p->ahead = 0;
		return 0;
	}
	if (start < p->min)
		start = p->min;
	if (!p->ahead)
		p->ahead = start;
	else if (p->ahead < p->max)
		p->ahead = p->ahead > p->max / 2 ? p->max : 2 * p->ahead;
	return p->ahead;
}
