// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A call's range planned as object operations, once: one object set at a
 * time, its extents mapped (layout.c), sorted by object, cut where they
 * cross a multiple of the call's piece in their object, and gathered into
 * one operation per object, or per piece of it. The plan counts what its
 * operations take of the throttle, so a call that reserves its shares up
 * front plans whole and reserves from the totals, and the operations are
 * built from the very plan the reservation counted: the two can never
 * disagree. A discard keeps no extents: its operation on an object is a
 * range of it, removed or zeroed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io_call.h"
#include "layout.h"

void plan_init(struct plan *p, const struct striped_layout *l, uint64_t off, uint64_t len,
	       uint64_t piece, bool data)
{
	memset(p, 0, sizeof(*p));
	p->l = l;
	p->off = off;
	p->len = len;
	p->piece = piece;
	p->data = data;
}

void plan_free(struct plan *p)
{
	free(p->ext);
	free(p->ops);
	p->ext = NULL;
	p->ops = NULL;
	p->n = p->cap = p->nops = p->ops_cap = 0;
}

bool plan_whole(const struct plan *p)
{
	return p->done >= p->len;
}

void plan_built(struct plan *p)
{
	p->n = 0;
	p->nops = 0;
}

/* Room for `total` extents in all. */
static int ext_room(struct plan *p, size_t total)
{
	struct striped_extent *bigger;

	if (total <= p->cap)
		return 0;
	bigger = realloc(p->ext, total * sizeof(*bigger));
	if (!bigger)
		return -ENOMEM;
	p->ext = bigger;
	p->cap = total;
	return 0;
}

static int add_op(struct plan *p, const struct plan_op *op)
{
	if (p->nops == p->ops_cap) {
		size_t more = p->ops_cap ? 2 * p->ops_cap : 16;
		struct plan_op *bigger = realloc(p->ops, more * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		p->ops = bigger;
		p->ops_cap = more;
	}
	p->ops[p->nops++] = *op;
	p->total_ops++;
	p->total_bytes += op->bytes;
	return 0;
}

static int extent_cmp(const void *a, const void *b)
{
	const struct striped_extent *x = a, *y = b;

	if (x->objectno != y->objectno)
		return x->objectno < y->objectno ? -1 : 1;
	if (x->buffer_offset != y->buffer_offset)
		return x->buffer_offset < y->buffer_offset ? -1 : 1;
	return 0;
}

/* How many extents e becomes once cut at multiples of piece of its object. */
static size_t extent_cuts(const struct striped_extent *e, uint64_t piece)
{
	return (size_t)((e->offset + e->length - 1) / piece - e->offset / piece + 1);
}

/*
 * Cut the n extents from ext[at] where they cross a multiple of the piece
 * in their object, in place (from the back: each lands at or after where it
 * was). Returns the new count, or -ENOMEM.
 */
static ssize_t cut_extents(struct plan *p, size_t at, size_t n)
{
	uint64_t piece = p->piece;
	size_t m = 0, i, put;

	for (i = 0; i < n; i++)
		m += extent_cuts(&p->ext[at + i], piece);
	if (m == n)
		return (ssize_t)n; /* nothing crosses a cut */
	if (ext_room(p, at + m))
		return -ENOMEM;
	put = m;
	for (i = n; i-- > 0;) {
		struct striped_extent e = p->ext[at + i];
		size_t k = extent_cuts(&e, piece);

		put -= k;
		for (size_t c = 0; c < k; c++) {
			struct striped_extent *cut = &p->ext[at + put + c];
			uint64_t end = (e.offset / piece + 1) * piece;
			uint64_t len = c + 1 < k ? end - e.offset : e.length;

			*cut = e;
			cut->length = len;
			e.offset += len;
			e.buffer_offset += len;
			e.length -= len;
		}
	}
	return (ssize_t)m;
}

/* Which piece of its object an extent lies in (it crosses none: cut_extents()); 0 uncut. */
static uint64_t op_slice(const struct striped_extent *e, uint64_t piece)
{
	return piece ? e->offset / piece : 0;
}

/* Gather the n sorted extents from ext[at] into operations: per object, and per piece of it. */
static int gather_ops(struct plan *p, size_t at, size_t n)
{
	const struct striped_extent *ext = p->ext;
	size_t i = at, end = at + n;

	while (i < end) {
		struct plan_op op = {.objectno = ext[i].objectno, .from = ext[i].offset, .first = i};
		size_t j = i;
		int r;

		while (j < end && ext[j].objectno == ext[i].objectno &&
		       op_slice(&ext[j], p->piece) == op_slice(&ext[i], p->piece))
			op.bytes += ext[j++].length;
		op.n = j - i;
		op.to = ext[j - 1].offset + ext[j - 1].length;
		if (!p->data)
			op.bytes = 0; /* a discard carries no data */
		r = add_op(p, &op);
		if (r)
			return r;
		i = j;
	}
	return 0;
}

int plan_next_set(struct plan *p)
{
	const struct striped_layout *l = p->l;
	uint64_t period = l->stripe_count * l->object_size;
	uint64_t pos = p->off + p->done;
	uint64_t wlen = period - pos % period;
	size_t at = p->n;
	ssize_t n;
	int r;

	if (wlen > p->len - p->done)
		wlen = p->len - p->done;
	n = layout_map(l, pos, wlen, NULL, 0);
	if (n < 0)
		return (int)n;
	if (ext_room(p, at + (size_t)n))
		return -ENOMEM;
	layout_map(l, pos, wlen, p->ext + at, (size_t)n);
	for (size_t i = 0; i < (size_t)n; i++)
		p->ext[at + i].buffer_offset += p->done;
	if (n > 1)
		qsort(p->ext + at, (size_t)n, sizeof(*p->ext), extent_cmp);
	if (p->piece)
		n = cut_extents(p, at, (size_t)n);
	if (n < 0)
		return (int)n;
	r = gather_ops(p, at, (size_t)n);
	if (r)
		return r;
	/* A discard's operations are ranges of their objects: its extents are not kept. */
	p->n = p->data ? at + (size_t)n : at;
	p->done += wlen;
	return 0;
}

int plan_all(struct plan *p)
{
	int r = 0;

	while (!r && !plan_whole(p))
		r = plan_next_set(p);
	return r;
}
