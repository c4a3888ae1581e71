// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The head object: every RADOS call that reads or changes a file's metadata
 * or its lock is here, so the fault tests can replace this file's functions
 * and the rest of the library stays free of metadata round trips.
 *
 * Every lock operation carries assert_exists and a check that the head is a
 * striped file: locking a missing object would create it (an empty head
 * that poisons the name), and locking a foreign object would write a lock
 * xattr onto it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "clock.h"
#include "decimal.h"
#include "head.h"
#include "meta.h"
#include "rados_cxx.h"
#include "xattrs.h"

/* The head is a striped file: its stripe unit xattr exists and is not empty. */
static void assert_striped(rados_write_op_t op)
{
	rados_write_op_assert_exists(op);
	rados_write_op_cmpxattr(op, XATTR_STRIPE_UNIT, LIBRADOS_CMPXATTR_OP_NE, "", 0);
}

/* -ECANCELED from the cmpxattr above: the object exists but is no striped file. */
static int not_striped_is_enodata(int r)
{
	return r == -ECANCELED ? -ENODATA : r;
}

static void add_lock_exec(rados_write_op_t op, const struct lock_req *req, char *in, size_t cap,
			  int *prval)
{
	ssize_t n = cls_lock_encode_lock(in, cap, req);

	/* The request is at most a few hundred bytes: cap is sized for it. */
	rados_write_op_exec(op, "lock", "lock", in, n < 0 ? 0 : (size_t)n, prval);
}

static int run_write_op(rados_write_op_t op, rados_ioctx_t io, const char *oid)
{
	int r = rados_write_op_operate(op, io, oid, NULL, STRIPED_WRITE_FLAGS);

	rados_release_write_op(op);
	return r;
}

uint64_t head_new_id(void)
{
	uint64_t id = 0;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = clock_now_ns() ^ ((uint64_t)getpid() << 40);
	return id ? id : 1;
}

/* The head created (exclusive) with m's metadata: the start of a new file's operation. */
static void add_create(rados_write_op_t op, const struct head_meta *m)
{
	const uint64_t v[] = {m->layout.stripe_unit, m->layout.stripe_count, m->layout.object_size,
			      m->size, m->id, m->reserved};
	const char *keys[] = {XATTR_STRIPE_UNIT, XATTR_STRIPE_COUNT, XATTR_OBJECT_SIZE,
			      XATTR_SIZE, XATTR_ID, XATTR_RESERVED};
	char d[DECIMAL_MAX];

	rados_write_op_create(op, LIBRADOS_CREATE_EXCLUSIVE, NULL);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		decimal_format(v[i], d);
		rados_write_op_setxattr(op, keys[i], d, strlen(d)); /* copied into the op */
	}
	if (m->held) {
		decimal_format(m->held, d);
		rados_write_op_setxattr(op, XATTR_HELD, d, strlen(d));
	}
}

int head_create_locked(rados_ioctx_t io, const char *oid, const struct head_meta *m,
		       const struct lock_req *req)
{
	rados_write_op_t op = rados_create_write_op();
	char in[LOCK_REQ_MAX];
	int prval = 0, r;

	if (!op)
		return -ENOMEM;
	add_create(op, m);
	add_lock_exec(op, req, in, sizeof(in), &prval);
	r = run_write_op(op, io, oid);
	return r < 0 ? r : prval;
}

int head_create_whole(rados_ioctx_t io, const char *oid, const struct head_meta *m,
		      const void *buf, const struct striped_xattr_value *x, size_t nx)
{
	rados_write_op_t op = rados_create_write_op();
	char lock[64];
	ssize_t n = lock_info_encode_free(lock, sizeof(lock), LOCK_SHARED, STRIPER_SHARED_TAG);

	if (!op)
		return -ENOMEM;
	add_create(op, m);
	if (m->size)
		rados_write_op_write_full(op, buf, (size_t)m->size);
	/* as a handle's lock and unlock leave it: a remove without the lock then checks it */
	rados_write_op_setxattr(op, XATTR_LOCK, lock, n < 0 ? 0 : (size_t)n);
	for (size_t i = 0; i < nx; i++)
		rados_write_op_setxattr(op, x[i].name, x[i].value, x[i].len);
	return run_write_op(op, io, oid);
}

int head_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req)
{
	rados_write_op_t op = rados_create_write_op();
	char in[LOCK_REQ_MAX];
	int prval = 0, r;

	if (!op)
		return -ENOMEM;
	assert_striped(op);
	add_lock_exec(op, req, in, sizeof(in), &prval);
	r = not_striped_is_enodata(run_write_op(op, io, oid));
	return r < 0 ? r : prval;
}

/*
 * The lock of a head just read as m, taken only if the head still says so
 * (lock_if_unchanged): a head read and found damaged is never locked, so a
 * call that refuses it writes nothing. -ECANCELED when it changed meanwhile.
 */
int head_lock_as_read(rados_ioctx_t io, const char *oid, const struct lock_req *req,
		      const struct head_meta *m)
{
	char in[LOCK_REQ_MAX];
	ssize_t n = cls_lock_encode_lock(in, sizeof(in), req);

	if (n < 0)
		return (int)n;
	return lock_if_unchanged(io, oid, in, (size_t)n, m, STRIPED_WRITE_FLAGS);
}

static rados_write_op_t unlock_op(const char *cookie, char *in, size_t cap)
{
	rados_write_op_t op = rados_create_write_op();
	ssize_t n = cls_lock_encode_unlock(in, cap, STRIPER_LOCK_NAME, cookie);

	if (op && n >= 0) {
		rados_write_op_assert_exists(op);
		rados_write_op_exec(op, "lock", "unlock", in, (size_t)n, NULL);
	}
	return op;
}

int head_unlock(rados_ioctx_t io, const char *oid, const char *cookie)
{
	char in[LOCK_REQ_MAX];
	rados_write_op_t op = unlock_op(cookie, in, sizeof(in));

	return op ? run_write_op(op, io, oid) : -ENOMEM;
}

/* For a file let go of from a callback thread: nobody waits for the reply. */
void head_unlock_nowait(rados_ioctx_t io, const char *oid, const char *cookie)
{
	char in[LOCK_REQ_MAX];
	rados_write_op_t op = unlock_op(cookie, in, sizeof(in));
	rados_completion_t rc;

	if (!op)
		return;
	if (rados_aio_create_completion2(NULL, NULL, &rc) == 0) {
		rados_aio_write_op_operate(op, io, rc, oid, NULL, STRIPED_WRITE_FLAGS);
		rados_aio_release(rc);
	}
	rados_release_write_op(op);
}

/* Every xattr of oid, read in one round trip, to fn until it returns an error. */
static int each_xattr(rados_ioctx_t io, const char *oid, head_xattr_fn fn, void *arg)
{
	rados_xattrs_iter_t it;
	int r = rados_getxattrs(io, oid, &it);

	if (r < 0)
		return r;
	for (;;) {
		const char *key, *val;
		size_t len;

		r = rados_getxattrs_next(it, &key, &val, &len);
		if (r < 0 || !key)
			break;
		r = fn(arg, key, val, len);
		if (r)
			break;
	}
	rados_getxattrs_end(it);
	return r;
}

static int take_meta_xattr(void *arg, const char *key, const char *val, size_t len)
{
	return meta_head_take(arg, key, val, len);
}

int head_read_meta(rados_ioctx_t io, const char *oid, struct head_meta *m)
{
	meta_head_init(m);
	return meta_head_finish(m, each_xattr(io, oid, take_meta_xattr, m));
}

/* The lock's xattr value, kept while the metadata is read; longer ones are not kept. */
#define LOCK_VALUE_MAX 512

struct meta_and_lock {
	struct head_meta *m;
	char lock[LOCK_VALUE_MAX];
	size_t lock_len; /* 0: none, or too long to keep */
};

static int take_meta_and_lock(void *arg, const char *key, const char *val, size_t len)
{
	struct meta_and_lock *x = arg;

	if (strcmp(key, XATTR_LOCK))
		return meta_head_take(x->m, key, val, len);
	if (len <= sizeof(x->lock)) {
		memcpy(x->lock, val, len);
		x->lock_len = len;
	}
	return 0;
}

/* Only the head object can hold its bytes, and no one holds its lock. */
static bool head_alone_unheld(const struct meta_and_lock *x)
{
	const struct head_meta *m = x->m;
	struct locker holder;
	bool exclusive;

	return m->nregions == 0 && head_meta_end(m) <= m->layout.stripe_unit && x->lock_len &&
	       lock_info_decode(x->lock, x->lock_len, &holder, 1, &exclusive, NULL) == 0;
}

int head_remove_unheld(rados_ioctx_t io, const char *oid)
{
	struct head_meta m;
	struct meta_and_lock x = {.m = &m};
	int r;

	meta_head_init(&m);
	r = meta_head_finish(&m, each_xattr(io, oid, take_meta_and_lock, &x));
	if (r)
		return r;
	if (head_alone_unheld(&x))
		r = remove_if_unchanged(io, oid, &m, x.lock, x.lock_len, STRIPED_WRITE_FLAGS);
	else
		r = -EAGAIN;
	head_meta_free(&m);
	return r == -ECANCELED ? -EAGAIN : r;
}

int head_remove_as_read(rados_ioctx_t io, const char *oid, const struct head_meta *m)
{
	char lock[64];
	ssize_t n = lock_info_encode_free(lock, sizeof(lock), LOCK_SHARED, STRIPER_SHARED_TAG);

	if (n < 0 || head_meta_end(m) > m->layout.stripe_unit)
		return -EINVAL;
	return remove_if_unchanged(io, oid, m, lock, (size_t)n, STRIPED_WRITE_FLAGS);
}

int head_replace_as_read(rados_ioctx_t io, const char *oid, const struct head_meta *m,
			 const void *buf, size_t len, const struct striped_xattr_value *x, size_t nx)
{
	char lock[64];
	ssize_t n = lock_info_encode_free(lock, sizeof(lock), LOCK_SHARED, STRIPER_SHARED_TAG);

	if (n < 0 || head_meta_end(m) > m->layout.stripe_unit || len > m->layout.stripe_unit)
		return -EINVAL;
	return replace_if_unchanged(io, oid, m, lock, (size_t)n, buf, len, x, nx,
				    STRIPED_WRITE_FLAGS);
}

/*
 * The stored size, read now: -ENOENT or -ENODATA when the head is gone or
 * holds none, -EUCLEAN when it is no decimal number (or too long to be one).
 */
int head_size_of_reply(const char *buf, size_t cap, int r, uint64_t *size)
{
	if (r == -ERANGE)
		return -EUCLEAN; /* longer than any number */
	if (r < 0)
		return r;
	if ((size_t)r > cap || decimal_parse(buf, (size_t)r, size))
		return -EUCLEAN;
	return 0;
}

int head_get_size(rados_ioctx_t io, const char *oid, uint64_t *size)
{
	char buf[DECIMAL_MAX];
	ssize_t n = head_getxattr(io, oid, XATTR_SIZE, buf, sizeof(buf));

	return n < 0 ? (int)n : head_size_of_reply(buf, sizeof(buf), (int)n, size);
}

int head_get_size_aio(rados_ioctx_t io, const char *oid, rados_completion_t rc, char *buf,
		      size_t len)
{
	return rados_aio_getxattr(io, oid, rc, XATTR_SIZE, buf, len);
}

/* The exclusive lock is still ours: the last step of truncate and remove is fenced by it. */
static void add_assert_locked(rados_write_op_t op, const struct lock_req *req, char *in,
			      size_t cap)
{
	ssize_t n = cls_lock_encode_assert(in, cap, req);

	rados_write_op_exec(op, "lock", "assert_locked", in, n < 0 ? 0 : (size_t)n, NULL);
}

/* Whether the lock req describes is still ours: one read round trip. */
int head_check_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req)
{
	char in[LOCK_REQ_MAX], out[8];
	ssize_t n = cls_lock_encode_assert(in, sizeof(in), req);
	rados_read_op_t op;
	size_t used = 0;
	int r, rval = 0;

	if (n < 0)
		return (int)n;
	op = rados_create_read_op();
	if (!op)
		return -ENOMEM;
	rados_read_op_exec_user_buf(op, "lock", "assert_locked", in, (size_t)n, out, sizeof(out),
				    &used, &rval);
	r = rados_read_op_operate(op, io, oid, 0);
	rados_release_read_op(op);
	return r ? r : rval;
}

int head_set_size_fenced(rados_ioctx_t io, const char *oid, const struct lock_req *excl,
			 uint64_t old, uint64_t size)
{
	char in[LOCK_REQ_MAX];
	ssize_t n = cls_lock_encode_assert(in, sizeof(in), excl);

	if (n < 0)
		return (int)n;
	return size_set_fenced(io, oid, in, (size_t)n, old, size, STRIPED_WRITE_FLAGS);
}

int head_remove_fenced(rados_ioctx_t io, const char *oid, const struct lock_req *excl)
{
	char in[LOCK_REQ_MAX];
	rados_write_op_t op = rados_create_write_op();

	if (!op)
		return -ENOMEM;
	add_assert_locked(op, excl, in, sizeof(in));
	rados_write_op_remove(op);
	return run_write_op(op, io, oid);
}

/* ---- the watch, and asking the holders to let go ---- */

/*
 * The watch's own I/O context: the pool and namespace of io, with the pool's
 * full flag ignored (FULL_TRY), as our lock requests do. A watch is a write
 * to the OSD: on a full pool it would otherwise wait for space, and a full
 * pool must stay readable, overwritable in place, and removable.
 */
int head_watch_ioctx(rados_ioctx_t io, rados_ioctx_t *wio)
{
	char ns[256];
	int r = rados_ioctx_get_namespace(io, ns, sizeof(ns));

	if (r < 0)
		return r;
	r = rados_ioctx_create2(rados_ioctx_get_cluster(io), rados_ioctx_get_id(io), wio);
	if (r)
		return r;
	rados_ioctx_set_namespace(*wio, ns);
	rados_set_pool_full_try(*wio);
	return 0;
}

void head_watch_ioctx_destroy(rados_ioctx_t wio)
{
	rados_ioctx_destroy(wio);
}

int head_watch(rados_ioctx_t wio, const char *oid, rados_watchcb2_t heard, rados_watcherrcb_t lost,
	       void *arg, uint64_t *handle)
{
	return rados_watch2(wio, oid, handle, heard, lost, arg);
}

void head_unwatch(rados_ioctx_t wio, uint64_t handle)
{
	rados_unwatch2(wio, handle);
}

/* Its watch is gone (the callbacks queued before are done): the context may go. */
static void unwatched_destroy(rados_completion_t rc, void *arg)
{
	rados_aio_release(rc);
	rados_ioctx_destroy(arg);
}

/* Only there so that librados runs it, in order, after the unwatch's own work. */
static void unwatched(rados_completion_t rc, void *arg)
{
	(void)rc;
	(void)arg;
}

/*
 * Close: the unwatch goes out, then the unlock is sent and waited for, then
 * the unwatch (answered by then: same object, same OSD). Nothing of ours is
 * left in flight when close returns: an application may shut its cluster
 * handle down next, and a reply arriving during rados_shutdown() crashes
 * librados (seen: a SEGV in a messenger thread, fio's jobs ending).
 */
void head_unwatch_unlock(rados_ioctx_t wio, uint64_t handle, rados_ioctx_t io, const char *oid,
			 const char *cookie)
{
	rados_completion_t rc = NULL;

	if (handle && rados_aio_create_completion2(NULL, unwatched, &rc) == 0 &&
	    rados_aio_unwatch(wio, handle, rc)) {
		rados_aio_release(rc);
		rc = NULL;
	}
	if (cookie)
		head_unlock(io, oid, cookie);
	if (rc) {
		/*
		 * Not rados_aio_wait_for_complete(): librados marks an aio
		 * unwatch complete before it cancels the watch, which it defers
		 * to its finisher, ahead of the completion's callback. A cluster
		 * shut down in between crashed there (valgrind in CI: SEGV in
		 * pthread_rwlock_wrlock at 0x128 on a librados thread, the
		 * Objecter gone). Waiting for the callback waits for both.
		 */
		rados_aio_wait_for_complete_and_cb(rc);
		rados_aio_release(rc);
	}
	/* An unwatch that could not be sent: librados drops the watch with the context. */
	rados_ioctx_destroy(wio);
}

void head_unwatch_and_destroy(rados_ioctx_t wio, uint64_t handle)
{
	rados_completion_t rc;

	if (rados_aio_create_completion2(wio, unwatched_destroy, &rc) == 0 &&
	    rados_aio_unwatch(wio, handle, rc) == 0)
		return;
	/* Not sent: librados drops the watch with the context. */
	rados_ioctx_destroy(wio);
}

void head_notify_ack(rados_ioctx_t io, const char *oid, uint64_t notify_id, uint64_t handle,
		     const char *payload)
{
	rados_notify_ack(io, oid, notify_id, handle, payload, (int)strlen(payload));
}

/* The answers' payloads, each followed by a NUL: the cookies of the holders that answered. */
static int collect_answers(char *reply, size_t reply_len, char **answered, size_t *len)
{
	struct notify_ack_t *acks;
	struct notify_timeout_t *timeouts;
	size_t nacks, ntimeouts, total = 0, at = 0;
	char *out;
	int r = rados_decode_notify_response(reply, reply_len, &acks, &nacks, &timeouts,
					     &ntimeouts);

	if (r)
		return r;
	for (size_t i = 0; i < nacks; i++)
		total += acks[i].payload_len + 1;
	out = malloc(total + 1);
	if (out) {
		for (size_t i = 0; i < nacks; i++) {
			/* An empty answer (a watcher holding nothing) may come as NULL. */
			if (acks[i].payload_len)
				memcpy(out + at, acks[i].payload, acks[i].payload_len);
			at += acks[i].payload_len;
			out[at++] = '\0';
		}
		*answered = out;
		*len = at;
	}
	rados_free_notify_response(acks, nacks, timeouts);
	return out ? 0 : -ENOMEM;
}

int head_notify_release(rados_ioctx_t io, const char *oid, uint64_t timeout_ms, char **answered,
			size_t *len)
{
	static const char ask[] = "release";
	char *reply = NULL;
	size_t reply_len = 0;
	int r = rados_notify2(io, oid, ask, sizeof(ask) - 1, timeout_ms, &reply, &reply_len);

	/* A watcher that did not answer in time is what the caller wants to know about. */
	if ((r == 0 || r == -ETIMEDOUT) && reply)
		r = collect_answers(reply, reply_len, answered, len);
	else if (r == 0 || r == -ETIMEDOUT)
		r = -EIO;
	if (reply)
		rados_buffer_free(reply);
	return r;
}

/*
 * cls_lock's get_info, sent and decoded here (lock_info.c): librados'
 * rados_list_lockers() holds the answer in fixed buffers, so a long tag or
 * many holders would fail it with -ERANGE.
 */
ssize_t head_lockers(rados_ioctx_t io, const char *oid, struct locker *out, size_t max,
		     bool *exclusive, char *tag)
{
	char in[LOCK_REQ_MAX], *reply = NULL;
	ssize_t n = cls_lock_encode_get_info(in, sizeof(in), STRIPER_LOCK_NAME);
	size_t reply_len = 0;
	rados_read_op_t op;
	int r, rval = 0;

	if (n < 0)
		return n;
	op = rados_create_read_op();
	if (!op)
		return -ENOMEM;
	rados_read_op_exec(op, "lock", "get_info", in, (size_t)n, &reply, &reply_len, &rval);
	r = rados_read_op_operate(op, io, oid, 0);
	rados_release_read_op(op);
	if (!r)
		r = rval;
	n = r ? r : lock_info_decode(reply, reply_len, out, max, exclusive, tag);
	if (reply)
		rados_buffer_free(reply);
	return n;
}

int head_break_lock(rados_ioctx_t io, const char *oid, const struct locker *l)
{
	int r = rados_break_lock(io, oid, STRIPER_LOCK_NAME, l->client, l->cookie);

	return r == -ENOENT ? 0 : r; /* gone already */
}

int head_register_regions(rados_ioctx_t io, const char *oid, const uint64_t *regions, size_t n)
{
	rados_write_op_t op = rados_create_write_op();
	char key[META_REGION_KEY_MAX];

	if (!op)
		return -ENOMEM;
	/* Never make a head that is not there. */
	rados_write_op_assert_exists(op);
	for (size_t i = 0; i < n; i++) {
		meta_region_key(regions[i], key);
		rados_write_op_setxattr(op, key, "1", 1);
	}
	return run_write_op(op, io, oid);
}

/* ---- the user's extended attributes ---- */

/* An open file's head that is gone, or no striped file any more: removed meanwhile. */
static int gone_or_foreign_is_stale(int r)
{
	return r == -ENOENT || r == -ECANCELED ? -ESTALE : r;
}

int head_setxattr(rados_ioctx_t io, const char *oid, const char *name, const void *value,
		  size_t len)
{
	rados_write_op_t op = rados_create_write_op();

	if (!op)
		return -ENOMEM;
	assert_striped(op); /* never make a head, never write a foreign object */
	rados_write_op_setxattr(op, name, value, len);
	return gone_or_foreign_is_stale(run_write_op(op, io, oid));
}

int head_rmxattr(rados_ioctx_t io, const char *oid, const char *name)
{
	rados_write_op_t op = rados_create_write_op();

	if (!op)
		return -ENOMEM;
	assert_striped(op);
	rados_write_op_rmxattr(op, name);
	return gone_or_foreign_is_stale(run_write_op(op, io, oid));
}

/* The user's attributes only: the libraries' own stay hidden. */
static int take_user_xattr(void *arg, const char *key, const char *val, size_t len)
{
	return xattr_reserved(key) ? 0 : xattrs_add(arg, key, val, len);
}

int head_getxattrs(rados_ioctx_t io, const char *oid, struct striped_xattrs **out)
{
	struct striped_xattrs *x = xattrs_new();
	int r;

	if (!x)
		return -ENOMEM;
	r = each_xattr(io, oid, take_user_xattr, x);
	if (r < 0) {
		xattrs_free(x);
		return r;
	}
	*out = x;
	return 0;
}

/* ---- a file seen from outside: metadata, mtime and the user's xattrs at once ---- */

struct inspect {
	struct head_meta *m;
	struct striped_xattrs *user; /* NULL: not wanted */
};

static int take_inspected_xattr(void *arg, const char *key, const char *val, size_t len)
{
	struct inspect *in = arg;

	if (in->user && !xattr_reserved(key))
		return xattrs_add(in->user, key, val, len);
	return take_meta_xattr(in->m, key, val, len);
}

int head_inspect(rados_ioctx_t io, const char *oid, struct head_meta *m, struct timespec *mtime,
		 struct striped_xattrs *user)
{
	struct inspect in = {m, user};
	struct timespec unused;
	int r;

	meta_head_init(m);
	r = head_stat_xattrs(io, oid, mtime ? mtime : &unused, take_inspected_xattr, &in, NULL);
	return meta_head_finish(m, r);
}

int head_read_bytes(rados_ioctx_t io, const char *oid, struct head_meta *m,
		    struct timespec *mtime, void *buf, size_t len, uint64_t off, size_t *nread,
		    bool *held_exclusive, struct striped_xattrs *user)
{
	char in[LOCK_REQ_MAX];
	ssize_t n = cls_lock_encode_get_info(in, sizeof(in), STRIPER_LOCK_NAME);
	struct head_read_extra x = {.buf = buf, .len = len, .off = off, .lock_in = in};
	struct inspect insp = {m, user};
	struct locker holder;
	bool exclusive = false;
	int r;

	if (n < 0)
		return (int)n;
	x.lock_len = (size_t)n;
	meta_head_init(m);
	r = meta_head_finish(m, head_stat_xattrs(io, oid, mtime, take_inspected_xattr, &insp, &x));
	if (!r) {
		n = lock_info_decode(x.lock_reply, x.lock_reply_len, &holder, 1, &exclusive, NULL);
		*held_exclusive = exclusive && n > 0;
		*nread = x.nread;
		if (n < 0) {
			head_meta_free(m);
			r = (int)n;
		}
	}
	free(x.lock_reply);
	return r;
}
