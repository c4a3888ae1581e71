// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where an index is (place.h). The cache is process-wide, keyed by the
 * cluster's fsid, the pool's id and the namespace: never by a handle's
 * address, which a later connection may reuse for another cluster.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "place.h"

#define FSID_MAX 64
#define NS_MAX 256
#define CACHE_SLOTS 64
#define RECORD_MAX 256

struct cached_record {
	char fsid[FSID_MAX];
	int64_t pool;
	char ns[NS_MAX];
	struct nsindex_record rec;
	uint64_t read_ns; /* 0: an empty slot */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cached_record cache[CACHE_SLOTS];

struct record_key {
	char fsid[FSID_MAX];
	int64_t pool;
	char ns[NS_MAX];
};

static int key_of(rados_ioctx_t io, struct record_key *k)
{
	int r;

	memset(k, 0, sizeof(*k));
	r = rados_cluster_fsid(rados_ioctx_get_cluster(io), k->fsid, sizeof(k->fsid) - 1);
	if (r < 0)
		return r;
	r = rados_ioctx_get_namespace(io, k->ns, sizeof(k->ns) - 1);
	if (r < 0)
		return r == -ERANGE ? -ENAMETOOLONG : r;
	k->pool = rados_ioctx_get_id(io);
	return 0;
}

static struct cached_record *slot_of(const struct record_key *k)
{
	for (size_t i = 0; i < CACHE_SLOTS; i++)
		if (cache[i].read_ns && cache[i].pool == k->pool && !strcmp(cache[i].fsid, k->fsid) &&
		    !strcmp(cache[i].ns, k->ns))
			return &cache[i];
	return NULL;
}

/* A cached record younger than the TTL: true and *rec. */
static bool cache_find(const struct record_key *k, struct nsindex_record *rec)
{
	struct cached_record *c;
	bool found = false;

	pthread_mutex_lock(&cache_lock);
	c = slot_of(k);
	if (c && clock_now_ns() - c->read_ns < INDEX_RECORD_TTL_S * 1000000000ull) {
		*rec = c->rec;
		found = true;
	}
	pthread_mutex_unlock(&cache_lock);
	return found;
}

static void cache_keep(const struct record_key *k, const struct nsindex_record *rec)
{
	struct cached_record *c, *oldest = &cache[0];

	pthread_mutex_lock(&cache_lock);
	c = slot_of(k);
	for (size_t i = 0; !c && i < CACHE_SLOTS; i++)
		if (cache[i].read_ns < oldest->read_ns)
			oldest = &cache[i];
	if (!c) {
		c = oldest;
		memcpy(c->fsid, k->fsid, sizeof(c->fsid));
		memcpy(c->ns, k->ns, sizeof(c->ns));
		c->pool = k->pool;
	}
	c->rec = *rec;
	c->read_ns = clock_now_ns();
	pthread_mutex_unlock(&cache_lock);
}

/* The record as stored: state NSINDEX_NONE when there is none. */
static int record_read(rados_ioctx_t io, struct nsindex_record *rec)
{
	char buf[RECORD_MAX];
	int r = rados_getxattr(io, NSINDEX_RECORD_OID, NSINDEX_RECORD_XATTR, buf, sizeof(buf));

	if (r == -ENOENT || r == -ENODATA) {
		memset(rec, 0, sizeof(*rec));
		return 0;
	}
	if (r < 0)
		return r;
	/* A record this version cannot read: say so rather than list wrongly. */
	return nsindex_record_parse(buf, (size_t)r, rec) ? -EUCLEAN : 0;
}

static int place_open(rados_ioctx_t io, const struct record_key *k,
		      const struct nsindex_record *rec, struct index_place *p)
{
	char pool[sizeof(rec->pool)];
	int r;

	memset(p, 0, sizeof(*p));
	p->rec = *rec;
	p->io = p->iio = io;
	p->data_pool = k->pool;
	p->scope = (uint64_t)nsindex_shard(k->fsid, strlen(k->fsid), UINT32_MAX) << 32 ^
		   (uint64_t)k->pool << 16 ^ nsindex_shard(k->ns, strlen(k->ns), UINT32_MAX);
	if (rec->state == NSINDEX_NONE)
		return 0;
	r = rados_ioctx_get_pool_name(io, pool, sizeof(pool));
	if (r >= 0 && !strcmp(pool, rec->pool))
		return 0;
	r = rados_ioctx_create(rados_ioctx_get_cluster(io), rec->pool, &p->iio);
	if (r < 0)
		return r;
	rados_ioctx_set_namespace(p->iio, k->ns[0] ? k->ns : NULL);
	p->own_iio = true;
	return 0;
}

static int place_get(rados_ioctx_t io, struct index_place *p, bool fresh)
{
	struct nsindex_record rec;
	struct record_key k;
	int r = key_of(io, &k);

	if (r)
		return r;
	if (fresh || !cache_find(&k, &rec)) {
		r = record_read(io, &rec);
		if (r)
			return r;
		cache_keep(&k, &rec);
	}
	return place_open(io, &k, &rec, p);
}

int index_place_open(rados_ioctx_t io, const struct nsindex_record *rec, struct index_place *p)
{
	struct record_key k;
	int r = key_of(io, &k);

	return r ? r : place_open(io, &k, rec, p);
}

int index_record_get_fresh(rados_ioctx_t io, struct nsindex_record *rec)
{
	struct record_key k;
	int r = key_of(io, &k);

	if (!r)
		r = record_read(io, rec);
	if (!r)
		cache_keep(&k, rec);
	return r;
}

int index_place_get(rados_ioctx_t io, struct index_place *p)
{
	return place_get(io, p, false);
}

int index_place_get_fresh(rados_ioctx_t io, struct index_place *p)
{
	return place_get(io, p, true);
}

void index_place_put(struct index_place *p)
{
	if (p->own_iio)
		rados_ioctx_destroy(p->iio);
	p->own_iio = false;
}

int index_record_store(rados_ioctx_t io, const struct nsindex_record *rec)
{
	char buf[RECORD_MAX];
	struct record_key k;
	int r = key_of(io, &k);

	if (r)
		return r;
	if (rec->state == NSINDEX_NONE) {
		r = rados_remove(io, NSINDEX_RECORD_OID);
		r = r == -ENOENT ? 0 : r;
	} else {
		rados_write_op_t op = rados_create_write_op();
		int n = nsindex_record_format(rec, buf, sizeof(buf));

		if (n < 0) {
			rados_release_write_op(op);
			return n;
		}
		rados_write_op_create(op, LIBRADOS_CREATE_IDEMPOTENT, NULL);
		rados_write_op_setxattr(op, NSINDEX_RECORD_XATTR, buf, (size_t)n);
		r = rados_write_op_operate2(op, io, NSINDEX_RECORD_OID, NULL, 0);
		rados_release_write_op(op);
	}
	if (!r)
		cache_keep(&k, rec);
	return r;
}
