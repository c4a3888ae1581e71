/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * io_appends.c: a handle's writes on a pool that takes only aligned appends
 * (erasure coded without overwrites): where its objects end, and the lock
 * that sends checked calls in the order they were checked.
 */
#ifndef STRIPED_IO_APPENDS_H
#define STRIPED_IO_APPENDS_H

#include "appends.h"

struct io_appends {
	pthread_mutex_t lock;
	uint64_t align;		/* the pool's stripe width */
	uint64_t epoch;		/* the lease the ends were learned under */
	u64_atomic unknown_gen; /* bumped when the ends may have moved (a failed call) */
	uint64_t gen_seen;
	struct append_map ends;
};

int io_appends_init(struct io_appends *a, uint64_t align);
void io_appends_destroy(struct io_appends *a);
/* The ends may have moved behind the handle's back: learn them again (any thread). */
void io_appends_unknown(struct io_appends *a);
/*
 * Whether the pool would take a write of [off, off + len) of file name now
 * (0, or -EOPNOTSUPP), learning where its objects end if the handle does not
 * know; nothing is counted as written. For a call whose range is decided
 * by a round trip first (an append's claim), so that a refusal comes before
 * it: the write itself is checked again.
 */
int io_appends_would_take(struct io_appends *a, rados_ioctx_t io, const char *name,
			  const struct striped_layout *l, uint64_t off, uint64_t len);
/* Whether io's pool takes only aligned appends (from the client's OSD map). */
bool io_pool_appends_only(rados_ioctx_t io);
/* The sizes of n objects of file name (0: not there), stats all in flight, waited for. */
int io_object_sizes(rados_ioctx_t io, const char *name, const uint64_t *objectnos, size_t n,
		    uint64_t *sizes);

#endif /* STRIPED_IO_APPENDS_H */
