// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for the mapping: any layout, offset and length. Valid
 * layouts must map to extents that tile the range, map back through
 * striped_layout_unmap(), and fit inside the objects' sizes at the range's
 * end; invalid ones must be refused, never crash. The objects a range
 * touches as layout_object_runs() gives them (lib/layout.c, what region
 * registration counts) must be exactly the extents' objects, in at most
 * three increasing runs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "striped.h"

#define MAX_EXT 64

static uint64_t take(const uint8_t **p, size_t *left, size_t bytes)
{
	uint64_t v = 0;

	for (size_t i = 0; i < bytes && *left; i++, (*p)++, (*left)--)
		v |= (uint64_t) * *p << (8 * i);
	return v;
}

static void check_extents(const struct striped_layout *l, uint64_t off, uint64_t len,
			  const struct striped_extent *ext, size_t n, int complete)
{
	uint64_t next = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t file_off, size;

		if (ext[i].buffer_offset != next || ext[i].length == 0)
			abort();
		if (ext[i].offset + ext[i].length > l->object_size)
			abort();
		if (striped_layout_unmap(l, ext[i].objectno, ext[i].offset, &file_off) ||
		    file_off != off + next)
			abort();
		if (striped_layout_object_size(l, ext[i].objectno, off + len, &size) ||
		    size < ext[i].offset + ext[i].length)
			abort();
		next += ext[i].length;
	}
	if (complete && next != len)
		abort();
}

struct runs {
	uint64_t first[4], last[4];
	int n;
};

static int take_run(void *arg, uint64_t first, uint64_t last)
{
	struct runs *r = arg;

	if (r->n == 4 || first > last || (r->n && first <= r->last[r->n - 1]))
		abort();
	r->first[r->n] = first;
	r->last[r->n++] = last;
	return 0;
}

/* The runs hold every extent's object, and (all extents known) no other. */
static void check_runs(const struct striped_layout *l, uint64_t off, uint64_t len,
		       const struct striped_extent *ext, size_t n, int complete)
{
	struct runs r = {.n = 0};
	uint64_t in_runs = 0, distinct = 0;

	if (layout_object_runs(l, off, len, take_run, &r) || r.n > 3 || (len == 0) != (r.n == 0))
		abort();
	for (int i = 0; i < r.n; i++)
		in_runs += r.last[i] - r.first[i] + 1;
	for (size_t i = 0; i < n; i++) {
		int k = 0;
		size_t j;

		while (k < r.n && !(ext[i].objectno >= r.first[k] && ext[i].objectno <= r.last[k]))
			k++;
		if (k == r.n)
			abort();
		for (j = 0; j < i && ext[j].objectno != ext[i].objectno; j++)
			;
		distinct += j == i;
	}
	if (complete && in_runs != distinct)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct striped_layout l;
	struct striped_extent ext[MAX_EXT];
	uint64_t off, len, count;
	ssize_t n;

	/* Mostly 64 KiB multiples, so most inputs are valid layouts. */
	l.stripe_unit = take(&data, &size, 1) << 16 | (take(&data, &size, 1) & 1);
	l.stripe_count = take(&data, &size, 2);
	if (l.stripe_count == 0xffff) /* the widest Ceph takes */
		l.stripe_count = UINT32_MAX;
	l.object_size = l.stripe_unit * (take(&data, &size, 1) & 31);
	off = take(&data, &size, 8);
	len = take(&data, &size, 4) << (take(&data, &size, 1) & 31);

	n = striped_layout_map(&l, off, len, ext, MAX_EXT);
	if (striped_layout_validate(&l)) {
		if (n != -EINVAL)
			abort();
		return 0;
	}
	if (len > UINT64_MAX - off) {
		if (n != -EOVERFLOW)
			abort();
		return 0;
	}
	if (n < 0 || (len == 0) != (n == 0))
		abort();
	check_extents(&l, off, len, ext, (size_t)n < MAX_EXT ? (size_t)n : MAX_EXT, n <= MAX_EXT);
	check_runs(&l, off, len, ext, (size_t)n < MAX_EXT ? (size_t)n : MAX_EXT, n <= MAX_EXT);
	if (striped_layout_object_count(&l, off + len, &count))
		abort();
	if (n > 0 && n <= MAX_EXT && ext[n - 1].objectno >= count)
		abort();
	return 0;
}
