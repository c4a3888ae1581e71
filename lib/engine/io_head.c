// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Round trips on the head object made as calls of the handle: its stat,
 * the user's xattrs, an append's claim of its range. Each passes the
 * handle's gate and runs under its lease, as an engine call does, and
 * claims success only if the lease was held throughout: otherwise a remove
 * may have run meanwhile, and the call returns -ESTALE (so does one that
 * finds the head gone).
 */
#include <errno.h>

#include "calls.h"
#include "head.h"
#include "io_file.h"
#include "rados_cxx.h"

/* A round trip on the head, fn(f, arg), as a call of the handle. */
typedef ssize_t (*head_fn)(struct io_file *f, void *arg);

static ssize_t head_call(struct io_file *f, head_fn fn, void *arg, unsigned lease_flags)
{
	struct call_entry e;
	uint64_t epoch;
	ssize_t r = calls_enter(f, false, &e);

	if (r)
		return r;
	r = lease_enter(&f->lease, lease_flags, &epoch);
	if (!r) {
		r = fn(f, arg);
		if (r == -ENOENT || (r >= 0 && !lease_covered(&f->lease, epoch)))
			r = -ESTALE;
		if (r == -ETIMEDOUT)
			lease_timed_out(&f->lease); /* calls waiting on the head give up */
		lease_exit(&f->lease);
	}
	calls_leave(f, &e);
	return r;
}

/* ---- stat ---- */

static ssize_t fstat_fn(struct io_file *f, void *arg)
{
	struct striped_stat *st = arg;
	int r = head_stat_time(f->io, f->head_oid, &st->size, &st->mtime);

	if (r == -ENODATA)
		return -ESTALE; /* no size: the name holds something else now */
	if (!r)
		size_learn(&f->size, st->size);
	return r;
}

int io_fstat(struct io_file *f, struct striped_stat *st)
{
	return (int)head_call(f, fstat_fn, st, 0);
}

/* ---- the user's xattrs ---- */

struct xattr_call {
	const char *name;
	void *value;
	size_t len;
	struct striped_xattrs **all;
};

static ssize_t setxattr_fn(struct io_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_setxattr(f->io, f->head_oid, x->name, x->value, x->len);
}

static ssize_t getxattr_fn(struct io_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_getxattr(f->io, f->head_oid, x->name, x->value, x->len);
}

static ssize_t rmxattr_fn(struct io_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_rmxattr(f->io, f->head_oid, x->name);
}

static ssize_t getxattrs_fn(struct io_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_getxattrs(f->io, f->head_oid, x->all);
}

int io_setxattr(struct io_file *f, const char *name, const void *value, size_t len)
{
	struct xattr_call x = {name, (void *)value, len, NULL};

	return (int)head_call(f, setxattr_fn, &x, LEASE_CHANGES);
}

ssize_t io_getxattr(struct io_file *f, const char *name, void *value, size_t len)
{
	struct xattr_call x = {name, value, len, NULL};

	return head_call(f, getxattr_fn, &x, 0);
}

int io_rmxattr(struct io_file *f, const char *name)
{
	struct xattr_call x = {name, NULL, 0, NULL};

	return (int)head_call(f, rmxattr_fn, &x, LEASE_CHANGES);
}

/* *out is set on success only: what a call that failed read is freed here. */
int io_getxattrs(struct io_file *f, struct striped_xattrs **out)
{
	struct striped_xattrs *all = NULL;
	struct xattr_call x = {NULL, NULL, 0, &all};
	int r = (int)head_call(f, getxattrs_fn, &x, 0);

	if (r && all)
		xattrs_free(all);
	if (!r)
		*out = all;
	return r;
}

/* ---- an append's claim ---- */

struct append_claim {
	uint64_t off, len;
};

/*
 * A pool that takes only aligned appends may refuse the write at the end
 * the claim is about to take (the file ends inside a stripe, or an object
 * does not end where the size says: a discard, a growing truncate, another
 * client's short write): refused before the claim moves the size.
 */
static int append_takeable(void *arg, uint64_t off, uint64_t len)
{
	struct io_file *f = arg;

	return io_appends_would_take(f->appends, f->io, f->name, &f->layout, off, len);
}

/* Under the lease: the size the handle knows is the file's as of its lock. */
static ssize_t append_claim_fn(struct io_file *f, void *arg)
{
	struct append_claim *a = arg;

	return size_append_reserve(&f->size, a->len, &a->off, f->appends ? append_takeable : NULL,
				   f);
}

int io_append_claim(struct io_file *f, uint64_t len, uint64_t *off)
{
	struct append_claim a = {0, len};
	int r = (int)head_call(f, append_claim_fn, &a, LEASE_CHANGES);
	if (!r)
		*off = a.off;
	return r;
}
