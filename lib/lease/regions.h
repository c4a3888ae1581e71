/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * regions.c: the regions far out in a file that are registered on its head,
 * as one open handle knows them: an object of its own, with its own lock.
 */
#ifndef STRIPED_REGIONS_H
#define STRIPED_REGIONS_H

#include "striped_i.h"

struct regions {
	pthread_mutex_t lock;
	rados_ioctx_t io;
	const char *oid; /* the head object's name */
	uint64_t *v;	 /* regions known registered, sorted */
	size_t n;
};

int regions_init(struct regions *rg, rados_ioctx_t io, const char *oid);
void regions_destroy(struct regions *rg);
/* The lock was taken (again): the regions as the head lists them now (sorted; v is taken). */
void regions_reset(struct regions *rg, uint64_t *v, size_t n);
/*
 * Before a write of [off, off + len) of a file of layout l: the regions of
 * the objects it touches past the first REGION_WALK_OBJECTS are registered
 * (one round trip, once per region per handle); with nowait, -EAGAIN
 * rather than that round trip.
 */
int regions_register(struct regions *rg, const struct striped_layout *l, uint64_t off, uint64_t len,
		     bool nowait);

#endif /* STRIPED_REGIONS_H */
