// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Regions far out in a file: objects past the first REGION_WALK_OBJECTS are
 * registered on the head, a region of REGION_OBJECTS at a time, before any
 * byte goes to them, so remove and truncate find them by name.
 */
#include <errno.h>
#include <stdlib.h>

#include "head.h"
#include "layout.h"
#include "lease.h"
#include "meta.h"
#include "regions.h"

static bool region_known_locked(const struct lease *ls, uint64_t r)
{
	size_t lo = 0, hi = ls->nregions;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ls->regions[mid] == r)
			return true;
		if (ls->regions[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Keep the cache sorted: merge the newly registered (sorted) regions in. */
static int regions_add_locked(struct lease *ls, const uint64_t *add, size_t n)
{
	uint64_t *all = malloc((ls->nregions + n) * sizeof(*all));
	size_t i = 0, j = 0, k = 0;

	if (!all)
		return -ENOMEM;
	while (i < ls->nregions || j < n)
		all[k++] = j == n || (i < ls->nregions && ls->regions[i] < add[j]) ? ls->regions[i++]
										   : add[j++];
	free(ls->regions);
	ls->regions = all;
	ls->nregions = k;
	return 0;
}

/* The regions a write must register, gathered from its runs of objects (under ls->lock). */
struct wanted {
	const struct lease *ls;
	uint64_t want[64];
	size_t n;
};

static int want_run(void *arg, uint64_t first, uint64_t last)
{
	struct wanted *w = arg;

	if (last < REGION_WALK_OBJECTS)
		return 0;
	if (first < REGION_WALK_OBJECTS)
		first = REGION_WALK_OBJECTS;
	for (uint64_t reg = first / REGION_OBJECTS; reg <= last / REGION_OBJECTS; reg++) {
		/* Runs come in increasing order: a region two runs share is the last one taken. */
		if (region_known_locked(w->ls, reg) || (w->n && w->want[w->n - 1] == reg))
			continue;
		if (w->n == sizeof(w->want) / sizeof(w->want[0]))
			return -EFBIG; /* one call over 64 regions (256k objects): split it */
		w->want[w->n++] = reg;
	}
	return 0;
}

/*
 * Before a write sends data to objects past the first REGION_WALK_OBJECTS:
 * register their regions on the head (one round trip, once per region per
 * handle), so remove and truncate find those objects by name. Only the
 * objects the write touches count: a set of 4294967295 objects holds one
 * of them for a small write, not every region of the set.
 */
int regions_register(struct lease *ls, const struct striped_layout *l, uint64_t off, uint64_t len,
		   bool nowait)
{
	struct wanted w = {.ls = ls};
	uint64_t *want = w.want;
	size_t n;
	int r;

	pthread_mutex_lock(&ls->lock);
	r = layout_object_runs(l, off, len, want_run, &w);
	pthread_mutex_unlock(&ls->lock);
	if (r)
		return r;
	n = w.n;
	if (!n)
		return 0;
	if (nowait)
		return -EAGAIN;
	r = head_register_regions(ls->io, ls->oid, want, n);
	if (r)
		return r == -ENOENT ? -ESTALE : r;
	pthread_mutex_lock(&ls->lock);
	r = regions_add_locked(ls, want, n);
	pthread_mutex_unlock(&ls->lock);
	return r;
}
