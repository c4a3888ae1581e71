// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Writes on a pool that takes only aligned appends. An erasure-coded pool
 * without allow_ec_overwrites takes a write on an object only where the
 * object ends (0 for an object that is not there), and only at a multiple
 * of the pool's stripe width; the write may end anywhere. Everything else
 * (an overwrite, a write into a hole or past the end, a truncate, a zero)
 * it refuses with -EOPNOTSUPP, object by object. A file's write lands on
 * many objects: refused on one and taken on another, it would leave bytes
 * that no retry can write over. So a handle knows where each object it
 * writes ends (learned from the cluster, then moved by its own writes) and
 * checks a whole call before it sends any byte of it.
 *
 * A contiguous file range covers one contiguous range of each object it
 * touches (an object's bytes come in file order), so a call asks one
 * range of each object. Pure: no librados here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "appends.h"

/* ---- the ranges a file range asks of its objects ---- */

static int range_cmp(const void *a, const void *b)
{
	const struct obj_range *x = a, *y = b;

	if (x->objectno != y->objectno)
		return x->objectno < y->objectno ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* Sorted ranges, one per extent: merge each object's into one (they are contiguous). */
static size_t merge_ranges(struct obj_range *r, size_t n)
{
	size_t out = 0;

	qsort(r, n, sizeof(*r), range_cmp);
	for (size_t i = 0; i < n; i++) {
		if (out && r[out - 1].objectno == r[i].objectno) {
			if (r[i].to > r[out - 1].to)
				r[out - 1].to = r[i].to;
			continue;
		}
		r[out++] = r[i];
	}
	return out;
}

ssize_t appends_ranges(const struct striped_layout *l, uint64_t off, uint64_t len,
		       struct obj_range **out)
{
	ssize_t n = layout_map(l, off, len, NULL, 0);
	struct striped_extent *ext;
	struct obj_range *r;

	*out = NULL;
	if (n <= 0)
		return n;
	ext = malloc((size_t)n * sizeof(*ext));
	r = malloc((size_t)n * sizeof(*r));
	if (!ext || !r) {
		free(ext);
		free(r);
		return -ENOMEM;
	}
	layout_map(l, off, len, ext, (size_t)n);
	for (ssize_t i = 0; i < n; i++)
		r[i] = (struct obj_range){ext[i].objectno, ext[i].offset,
					  ext[i].offset + ext[i].length};
	free(ext);
	*out = r;
	return (ssize_t)merge_ranges(r, (size_t)n);
}

/* ---- where objects end ---- */

void appends_map_init(struct append_map *m)
{
	memset(m, 0, sizeof(*m));
}

void appends_map_destroy(struct append_map *m)
{
	free(m->v);
	appends_map_init(m);
}

void appends_forget(struct append_map *m)
{
	m->n = 0;
}

/* The first entry at or past objectno. */
static size_t map_find(const struct append_map *m, uint64_t objectno)
{
	size_t lo = 0, hi = m->n;

	/* Writers go front to back: the new object is most often the last. */
	if (m->n && m->v[m->n - 1].objectno < objectno)
		return m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].objectno < objectno)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool appends_known(const struct append_map *m, uint64_t objectno, uint64_t *end)
{
	size_t i = map_find(m, objectno);

	if (i == m->n || m->v[i].objectno != objectno)
		return false;
	*end = m->v[i].end;
	return true;
}

int appends_learn(struct append_map *m, uint64_t objectno, uint64_t end)
{
	size_t i = map_find(m, objectno);

	if (i < m->n && m->v[i].objectno == objectno) {
		m->v[i].end = end;
		return 0;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct obj_end *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(*m->v));
	m->v[i] = (struct obj_end){objectno, end};
	m->n++;
	return 0;
}

int appends_check(const struct append_map *m, uint64_t align, const struct obj_range *r, size_t n)
{
	int r_unknown = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t end;

		if (!appends_known(m, r[i].objectno, &end)) {
			r_unknown = -ENOENT;
			continue;
		}
		if (r[i].from != end || (align && r[i].from % align))
			return -EOPNOTSUPP;
	}
	return r_unknown;
}

int appends_advance(struct append_map *m, const struct obj_range *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int e = appends_learn(m, r[i].objectno, r[i].to);

		if (e)
			return e;
	}
	return 0;
}

/* ---- alignment of layouts and operations ---- */

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

#define LAYOUT_UNIT (64ull << 10) /* a stripe unit's granule (layout_validate) */

uint64_t appends_aligned_unit(uint64_t want, uint64_t sw)
{
	uint64_t unit;

	if (!sw)
		return want;
	if (sw > UINT32_MAX)
		return 0;
	unit = LAYOUT_UNIT / gcd_u64(LAYOUT_UNIT, sw) * sw; /* lcm: below 2^48 */
	if (unit > UINT32_MAX)
		return 0;
	return want > unit ? want / unit * unit : unit;
}

uint64_t appends_aligned_piece(uint64_t piece, uint64_t sw)
{
	if (!sw)
		return piece;
	return piece > sw ? piece / sw * sw : sw;
}

void appends_default_layout(uint64_t sw, struct striped_layout *l)
{
	struct striped_layout def = STRIPED_LAYOUT_DEFAULT_INIT;
	uint64_t unit = appends_aligned_unit(def.stripe_unit, sw);

	*l = def;
	if (unit && unit <= def.stripe_unit) {
		l->stripe_unit = unit;
		l->object_size = unit;
	}
}
