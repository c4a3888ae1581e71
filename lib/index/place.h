/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * place.c: where a pool's (its namespace's) index is, if it has one. The
 * record (nsindex.h) lives in the data pool, an erasure-coded one too (an
 * xattr, which EC pools keep); the index objects in the pool it names, in
 * the data's namespace. Every writer and listing asks here first: the
 * record is read at most once per INDEX_RECORD_TTL_S per pool and namespace
 * in a process, so a client without an index pays one getxattr per period,
 * and a client learns of an index made or dropped within that period
 * (striped_index_create() waits it out before its walk).
 */
#ifndef STRIPED_INDEX_PLACE_H
#define STRIPED_INDEX_PLACE_H

#include "nsindex.h"

#define INDEX_RECORD_TTL_S STRIPED_INDEX_NOTICE_S

struct index_place {
	struct nsindex_record rec;
	int64_t data_pool;	/* the data pool's id: a part of every index object's name */
	rados_ioctx_t io;	/* the data's */
	rados_ioctx_t iio;	/* the index objects': io itself, or opened here */
	bool own_iio;
	uint64_t scope; /* the cluster's fsid, the pool and the namespace, hashed */
};

/*
 * The place of io's index, from the cache or a fresh read of the record:
 * 0 with p->rec.state NSINDEX_NONE when there is none (nothing to put),
 * else 0 and p to put with index_place_put(); librados errors of the read
 * or of opening the index pool (-ENOENT when it was removed).
 */
int index_place_get(rados_ioctx_t io, struct index_place *p);
/* The record alone, read now (the cache refreshed): no index pool opened. */
int index_record_get_fresh(rados_ioctx_t io, struct nsindex_record *rec);
/* index_place_get(), reading the record now (the cache refreshed). */
int index_place_get_fresh(rados_ioctx_t io, struct index_place *p);
/* The place rec says, whatever the stored record says now (a dropped index's). */
int index_place_open(rados_ioctx_t io, const struct nsindex_record *rec, struct index_place *p);
void index_place_put(struct index_place *p);

/* The record written (the cache too); rec->state NSINDEX_NONE removes it. */
int index_record_store(rados_ioctx_t io, const struct nsindex_record *rec);

#endif /* STRIPED_INDEX_PLACE_H */
