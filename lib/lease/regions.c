// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Regions far out in a file: objects past the first REGION_WALK_OBJECTS are
 * registered on the head, a region of REGION_OBJECTS at a time, before any
 * byte goes to them, so remove and truncate find them by name. What one
 * handle knows registered is a cache, refilled from the head each time it
 * takes its lock (regions_reset()): a truncate by another client may have
 * dropped regions meanwhile, never added one this handle needs.
 */
#include <errno.h>
#include <stdlib.h>

#include "head.h"
#include "layout.h"
#include "meta.h"
#include "regions.h"

int regions_init(struct regions *rg, rados_ioctx_t io, const char *oid)
{
	int r = pthread_mutex_init(&rg->lock, NULL);

	if (r)
		return -r;
	rg->io = io;
	rg->oid = oid;
	rg->v = NULL;
	rg->n = 0;
	return 0;
}

void regions_destroy(struct regions *rg)
{
	free(rg->v);
	pthread_mutex_destroy(&rg->lock);
}

void regions_reset(struct regions *rg, uint64_t *v, size_t n)
{
	uint64_t *old;

	pthread_mutex_lock(&rg->lock);
	old = rg->v;
	rg->v = v;
	rg->n = n;
	pthread_mutex_unlock(&rg->lock);
	free(old);
}

static bool region_known_locked(const struct regions *rg, uint64_t r)
{
	size_t lo = 0, hi = rg->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rg->v[mid] == r)
			return true;
		if (rg->v[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Keep the cache sorted: merge the newly registered (sorted) regions in. */
static int regions_add_locked(struct regions *rg, const uint64_t *add, size_t n)
{
	uint64_t *all = malloc((rg->n + n) * sizeof(*all));
	size_t i = 0, j = 0, k = 0;

	if (!all)
		return -ENOMEM;
	while (i < rg->n || j < n)
		all[k++] = j == n || (i < rg->n && rg->v[i] < add[j]) ? rg->v[i++] : add[j++];
	free(rg->v);
	rg->v = all;
	rg->n = k;
	return 0;
}

/* The regions a write must register, gathered from its runs of objects (under rg->lock). */
struct wanted {
	const struct regions *rg;
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
		if (region_known_locked(w->rg, reg) || (w->n && w->want[w->n - 1] == reg))
			continue;
		if (w->n == sizeof(w->want) / sizeof(w->want[0]))
			return -EFBIG; /* one call over 64 regions (256k objects): split it */
		w->want[w->n++] = reg;
	}
	return 0;
}

/*
 * Only the objects the write touches count: a set of 4294967295 objects
 * holds one of them for a small write, not every region of the set.
 */
int regions_register(struct regions *rg, const struct striped_layout *l, uint64_t off, uint64_t len,
		     bool nowait)
{
	struct wanted w = {.rg = rg};
	uint64_t *want = w.want;
	size_t n;
	int r;

	pthread_mutex_lock(&rg->lock);
	r = layout_object_runs(l, off, len, want_run, &w);
	pthread_mutex_unlock(&rg->lock);
	if (r)
		return r;
	n = w.n;
	if (!n)
		return 0;
	if (nowait)
		return -EAGAIN;
	r = head_register_regions(rg->io, rg->oid, want, n);
	if (r)
		return r == -ENOENT ? -ESTALE : r;
	pthread_mutex_lock(&rg->lock);
	r = regions_add_locked(rg, want, n);
	pthread_mutex_unlock(&rg->lock);
	return r;
}
