// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The engine on a pool that takes only aligned appends (appends.c says
 * what such a pool takes). A write is checked whole against where its
 * objects end before any of its bytes is sent, and refused with
 * -EOPNOTSUPP (the pool's own error, as libradosstriper gets it) when any
 * object would refuse its part. An object's end is learned from the
 * cluster once (a stat, with the objects a writer going front to back
 * reaches next learned in the same round trip), then moved by the
 * handle's own writes.
 *
 * Checked calls are sent in the order they were checked: the handle's lock
 * of its ends is held from a call's check until its last operation is on
 * the wire, and librados keeps one client's operations on one object in
 * the order they were sent, so each lands where the one before it ended.
 * A call that fails, or a lease taken back (others may have changed the
 * file meanwhile), makes every end unknown again; librados callbacks only
 * count the failure (an atomic), never take the lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "appends.h"
#include "io_call.h"
#include "lease.h"
#include "meta.h"
#include "size.h"

/*
 * Objects past a call's last whose ends are learned in the same round
 * trip: a writer going front to back then stats once every this many
 * objects (256 MiB of 4 MiB objects).
 */
#define LEARN_AHEAD_OBJECTS 64

int io_appends_init(struct io_appends *a, uint64_t align)
{
	int r = pthread_mutex_init(&a->lock, NULL);

	if (r)
		return -r;
	a->align = align;
	a->epoch = 0;
	atomic_init(&a->unknown_gen, 0);
	a->gen_seen = 0;
	appends_map_init(&a->ends);
	return 0;
}

void io_appends_destroy(struct io_appends *a)
{
	appends_map_destroy(&a->ends);
	pthread_mutex_destroy(&a->lock);
}

void io_appends_unknown(struct io_appends *a)
{
	atomic_fetch_add(&a->unknown_gen, 1);
}

bool io_pool_appends_only(rados_ioctx_t io)
{
	int appends_only = 0;

	return rados_ioctx_pool_requires_alignment2(io, &appends_only) == 0 && appends_only;
}

/* One object's stat, in flight with the others of a round trip. */
struct obj_stat {
	rados_completion_t rc;
	time_t mtime;
};

/* Stats sent (n of them) are waited for; the first error other than -ENOENT is kept in *r. */
static void stats_wait(struct obj_stat *st, size_t n, uint64_t *sizes, int *r)
{
	for (size_t i = 0; i < n; i++) {
		int e;

		rados_aio_wait_for_complete(st[i].rc);
		e = rados_aio_get_return_value(st[i].rc);
		rados_aio_release(st[i].rc);
		if (e == -ENOENT)
			sizes[i] = 0;
		else if (e < 0 && !*r)
			*r = e;
	}
}

int io_object_sizes(rados_ioctx_t io, const char *name, const uint64_t *objectnos, size_t n,
		    uint64_t *sizes)
{
	struct obj_stat *st = calloc(n ? n : 1, sizeof(*st));
	size_t oid_len = strlen(name) + OBJECT_SUFFIX_LEN + 1;
	char *oid = malloc(oid_len);
	size_t sent = 0;
	int r = st && oid ? 0 : -ENOMEM;

	for (; sent < n && !r; sent++) {
		int len = striped_object_name(name, objectnos[sent], oid, oid_len);

		r = len < 0 || (size_t)len >= oid_len ? -ENAMETOOLONG : 0;
		if (!r)
			r = rados_aio_create_completion2(NULL, NULL, &st[sent].rc);
		if (r)
			break;
		r = rados_aio_stat(io, oid, st[sent].rc, &sizes[sent], &st[sent].mtime);
		if (r) {
			rados_aio_release(st[sent].rc);
			break;
		}
	}
	if (st)
		stats_wait(st, sent, sizes, &r);
	free(st);
	free(oid);
	return r;
}

/* The objects to learn: the call's unknown ones, and the next ones a writer reaches. */
static size_t ends_to_learn(const struct append_map *m, const struct obj_range *r, size_t n,
			    uint64_t *out)
{
	uint64_t end, last = r[n - 1].objectno;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!appends_known(m, r[i].objectno, &end))
			out[k++] = r[i].objectno;
	for (uint64_t o = last + 1; o <= last + LEARN_AHEAD_OBJECTS && o > last; o++)
		if (!appends_known(m, o, &end))
			out[k++] = o;
	return k;
}

/* Learn the ends the check of r[0..n) needs (in the submitter: it waits for them). */
static int learn_ends(rados_ioctx_t io, const char *name, struct io_appends *a,
		      const struct obj_range *r, size_t n)
{
	uint64_t *objectnos = malloc((n + LEARN_AHEAD_OBJECTS) * sizeof(*objectnos));
	uint64_t *sizes = malloc((n + LEARN_AHEAD_OBJECTS) * sizeof(*sizes));
	size_t k;
	int e = objectnos && sizes ? 0 : -ENOMEM;

	if (!e) {
		k = ends_to_learn(&a->ends, r, n, objectnos);
		e = io_object_sizes(io, name, objectnos, k, sizes);
		for (size_t i = 0; i < k && !e; i++)
			e = appends_learn(&a->ends, objectnos[i], sizes[i]);
	}
	if (e)
		appends_forget(&a->ends);
	free(objectnos);
	free(sizes);
	return e;
}

/* What the handle knew is dropped when it may be wrong. */
static void ends_refresh(struct io_appends *a, uint64_t epoch)
{
	uint64_t gen = atomic_load(&a->unknown_gen);

	if (a->epoch != epoch || a->gen_seen != gen) {
		appends_forget(&a->ends);
		a->epoch = epoch;
		a->gen_seen = gen;
	}
}

/*
 * Check r[0..n). Ends not known are learned first; a refusal by ends known
 * from before is checked again on ends learned now (another client may
 * have written past them), so only the cluster's own state refuses. With
 * nowait either is -EAGAIN.
 */
static int check_ranges(rados_ioctx_t io, const char *name, struct io_appends *a,
			const struct obj_range *r, size_t n, bool nowait)
{
	int e = appends_check(&a->ends, a->align, r, n);

	if (e == -EOPNOTSUPP || e == -ENOENT) {
		if (e == -EOPNOTSUPP)
			appends_forget(&a->ends);
		e = nowait ? -EAGAIN : learn_ends(io, name, a, r, n);
		if (!e)
			e = appends_check(&a->ends, a->align, r, n);
	}
	return e;
}

/* Check r[0..n) and, taken, count them as written. */
static int check_and_advance(struct call *call, struct io_appends *a, const struct obj_range *r,
			     size_t n, bool nowait)
{
	int e;

	ends_refresh(a, call->epoch);
	e = check_ranges(call->io, call->name, a, r, n, nowait);
	if (!e)
		e = appends_advance(&a->ends, r, n);
	if (e == -ENOMEM)
		appends_forget(&a->ends);
	return e;
}

/* The lock of the ends, for a call that goes in its turn (-EAGAIN rather than wait). */
static int ends_lock(struct io_appends *a, bool nowait)
{
	if (nowait)
		return pthread_mutex_trylock(&a->lock) ? -EAGAIN : 0;
	pthread_mutex_lock(&a->lock);
	return 0;
}

/* A write: its ranges checked, and counted as written. */
static int claim_write(struct call *call, struct io_appends *a, bool nowait)
{
	struct obj_range *r;
	ssize_t n = appends_ranges(call->t->layout, call->off, call->len, &r);
	int e = n < 0 ? (int)n : 0;

	if (n > 0)
		e = check_and_advance(call, a, r, (size_t)n, nowait);
	free(r);
	return e;
}

/*
 * A discard: only whole objects can go (removed; never the head, which
 * holds the file's metadata); zeroing part of one is refused.
 */
static int claim_discard(struct call *call)
{
	const struct striped_layout *l = call->t->layout;
	struct obj_range *r;
	ssize_t n = appends_ranges(l, call->off, call->len, &r);
	int e = n < 0 ? (int)n : 0;

	for (ssize_t i = 0; i < n && !e; i++)
		if (r[i].objectno == 0 || r[i].from != 0 || r[i].to != l->object_size)
			e = -EOPNOTSUPP;
	free(r);
	return e;
}

int io_appends_claim(struct call *call, bool nowait)
{
	struct io_appends *a = call->t->appends;
	int e;

	if (!call->len)
		return 0; /* nothing written: nothing to check, nothing to order */
	e = ends_lock(a, nowait);
	if (e)
		return e;
	e = call->kind == CALL_DISCARD ? claim_discard(call) : claim_write(call, a, nowait);
	if (e) {
		pthread_mutex_unlock(&a->lock);
		return e;
	}
	call->appends_locked = true;
	return 0;
}

int io_appends_would_take(struct io_appends *a, rados_ioctx_t io, const char *name,
			  const struct striped_layout *l, uint64_t off, uint64_t len)
{
	struct obj_range *r;
	ssize_t n = appends_ranges(l, off, len, &r);
	int e = n < 0 ? (int)n : 0;

	if (n > 0) {
		uint64_t gen = atomic_load(&a->unknown_gen);

		pthread_mutex_lock(&a->lock);
		if (a->gen_seen != gen) {
			appends_forget(&a->ends);
			a->gen_seen = gen;
		}
		e = check_ranges(io, name, a, r, (size_t)n, false);
		pthread_mutex_unlock(&a->lock);
	}
	free(r);
	return e;
}

void io_appends_abandon(struct io_appends *a)
{
	io_appends_unknown(a);
	pthread_mutex_unlock(&a->lock);
}

void io_appends_sent(struct call *call, int r)
{
	struct io_appends *a = call->t->appends;

	if (!call->appends_locked)
		return;
	call->appends_locked = false;
	/*
	 * Not all of a write went out: the ends it counted are not where it
	 * said. A discard moves ends back: learned again, by stats that go
	 * after its removals.
	 */
	if (r || call->kind == CALL_DISCARD)
		io_appends_abandon(a);
	else
		pthread_mutex_unlock(&a->lock);
}
