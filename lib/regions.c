// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Regions far out in a file: objects past the first REGION_WALK_OBJECTS are
 * registered on the head, a region of REGION_OBJECTS at a time, before any
 * byte goes to them, so remove and truncate find them by name.
 */
#include <errno.h>
#include <stdlib.h>

#include "head.h"
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

/*
 * Before a write sends data to objects past the first REGION_WALK_OBJECTS:
 * register their regions on the head (one round trip, once per region per
 * handle), so remove and truncate find those objects by name.
 */
int regions_register(struct lease *ls, const struct striped_layout *l, uint64_t off, uint64_t len,
		   bool nowait)
{
	uint64_t period = l->stripe_count * l->object_size, first_obj, last_obj;
	uint64_t want[64];
	size_t n = 0;
	int r;

	if (!len)
		return 0;
	/* Every object of the object sets the write touches (a superset, cheap to compute). */
	first_obj = off / period * l->stripe_count;
	last_obj = (off + len - 1) / period * l->stripe_count + l->stripe_count - 1;
	if (last_obj < REGION_WALK_OBJECTS)
		return 0;
	if (first_obj < REGION_WALK_OBJECTS)
		first_obj = REGION_WALK_OBJECTS;
	pthread_mutex_lock(&ls->lock);
	for (uint64_t reg = first_obj / REGION_OBJECTS; reg <= last_obj / REGION_OBJECTS; reg++) {
		if (region_known_locked(ls, reg))
			continue;
		if (n == sizeof(want) / sizeof(want[0])) {
			pthread_mutex_unlock(&ls->lock);
			return -EFBIG; /* one call over 64 regions (256k objects): split it */
		}
		want[n++] = reg;
	}
	pthread_mutex_unlock(&ls->lock);
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
