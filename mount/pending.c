// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A new small file kept in the daemon until its first flush. A create
 * with O_TRUNC (what the file holds is then this open's writes alone),
 * without O_EXCL or O_DIRECT, takes no round trip: the file's writes are
 * kept here while they fit (within its first stripe unit, at most 64 KiB,
 * the daemon's budget not spent), and its first flush (close(2), fsync)
 * makes it whole: bytes, size, mode and times in one operation
 * (striped_head_create()). A small file's create, write and close then cost
 * the lookup and that operation, where a handle took create, watch, write,
 * unwatch and unlock. What the kept bytes cannot answer (a write past them,
 * a read, a truncate past them, another open's writes, an attribute
 * change) makes the file first, through a handle (ops_file.c).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pending.h"

/* What all pending files of the daemon keep at most: more go to RADOS first. */
#define PENDING_BUDGET (64ull << 20)
static _Atomic uint64_t kept_bytes;

struct pending {
	char *buf;
	size_t len, cap, limit;
	struct mattr attrs;
};

struct pending *pending_new(const struct mattr *attrs, size_t limit)
{
	struct pending *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->attrs = *attrs;
	p->limit = limit;
	return p;
}

void pending_free(struct pending *p)
{
	if (!p)
		return;
	atomic_fetch_sub(&kept_bytes, p->cap);
	free(p->buf);
	free(p);
}

/* Room for end bytes, zeros past len: false when past the limit or the budget. */
static bool reserve(struct pending *p, uint64_t end)
{
	size_t cap = p->cap ? p->cap : 4096;
	char *b;

	if (end > p->limit)
		return false;
	if (end <= p->cap)
		return true;
	while (cap < end)
		cap *= 2;
	if (cap > p->limit)
		cap = p->limit;
	if (atomic_fetch_add(&kept_bytes, cap - p->cap) + (cap - p->cap) > PENDING_BUDGET) {
		atomic_fetch_sub(&kept_bytes, cap - p->cap);
		return false;
	}
	b = realloc(p->buf, cap);
	if (!b) {
		atomic_fetch_sub(&kept_bytes, cap - p->cap);
		return false;
	}
	memset(b + p->cap, 0, cap - p->cap);
	p->buf = b;
	p->cap = cap;
	return true;
}

bool pending_write(struct pending *p, const void *buf, size_t len, uint64_t off)
{
	if (off > p->limit || len > p->limit - off || !reserve(p, off + len))
		return false;
	memcpy(p->buf + off, buf, len);
	if (off + len > p->len)
		p->len = (size_t)(off + len);
	return true;
}

bool pending_truncate(struct pending *p, uint64_t size)
{
	if (size < p->len) {
		memset(p->buf + size, 0, p->len - size); /* a later growth reads zeros there */
		p->len = (size_t)size;
		return true;
	}
	if (!reserve(p, size))
		return false;
	p->len = (size_t)size;
	return true;
}

void pending_attrs(const struct pending *p, const struct timespec *mtime, struct mattr *a)
{
	*a = p->attrs;
	a->has_mode = a->has_uid = a->has_gid = true;
	a->size = p->len;
	a->mtime = a->ctime = *mtime;
}

int pending_make(const struct pending *p, rados_ioctx_t io, const char *path,
		 const struct striped_layout *layout, const struct timespec *mtime)
{
	struct mattr a = p->attrs;
	struct mattr_xattrs x;
	size_t n;

	a.mtime = a.ctime = *mtime;
	a.has_mtime = a.has_ctime = true;
	n = mattr_xattrs(&a, &x);
	return striped_head_create(io, path, layout, p->buf, p->len, x.x, n);
}

int pending_replay(const struct pending *p, struct striped_file *f, bool created)
{
	ssize_t w;
	int r = 0;

	if (!created) /* the create's O_TRUNC */
		r = striped_truncate(f, 0);
	if (r || !p->len)
		return r;
	w = striped_write(f, p->buf, p->len, 0);
	return w < 0 ? (int)w : 0;
}

const struct mattr *pending_create_attrs(const struct pending *p)
{
	return &p->attrs;
}
