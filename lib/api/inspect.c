// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A file seen from outside, for operators: its head's metadata (the mark
 * included), its extended attributes and its lock's holders, read by name
 * without opening the file. No lock is taken and nothing is watched, so
 * these work on a file whose lock a dead client left, and never hold up a
 * truncate or remove.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cookie.h"
#include "head.h"
#include "holder.h"
#include "meta.h"
#include "name.h"

/* The head's metadata (and with user, its xattrs), by the file's name. */
static int inspect_name(rados_ioctx_t io, const char *name, struct head_meta *m,
			struct timespec *mtime, struct striped_xattrs *user)
{
	char *oid;
	int r = name_oid(io, name, &oid);

	if (r)
		return r;
	for (int asked = 0;; asked++) {
		uint64_t held;

		r = head_inspect(io, oid, m, mtime, user);
		if (r || !holder_ask_needed(io, m->held))
			break;
		held = m->held; /* its maker holds it unwritten: written back first */
		head_meta_free(m);
		if (user)
			xattrs_clear(user);
		r = holder_settle(io, oid, held, asked);
		if (r)
			break;
	}
	free(oid);
	return r;
}

/* The public view of m (which goes), mtime already in *full. */
static void head_of_meta(struct striped_head *full, struct head_meta *m)
{
	full->size = m->size;
	full->layout = m->layout;
	full->reserved = m->reserved;
	full->id = m->id;
	head_meta_free(m);
}

int striped_head_read(rados_ioctx_t io, const char *name, struct striped_head *h, size_t h_size)
{
	struct striped_head full = {0};
	struct head_meta m;
	int r;

	if (!h || h_size < sizeof(h->size))
		return -EINVAL;
	r = inspect_name(io, name, &m, &full.mtime, NULL);
	if (r)
		return r;
	head_of_meta(&full, &m);
	memcpy(h, &full, h_size < sizeof(full) ? h_size : sizeof(full));
	return 0;
}

/*
 * Of the len bytes at off, those below the size that lie in the head (the
 * file's first stripe unit); the object may end before them: holes read
 * as zeros.
 */
static size_t head_bytes(const struct striped_head *h, char *buf, size_t len, uint64_t off,
			 size_t got)
{
	uint64_t end = h->size < h->layout.stripe_unit ? h->size : h->layout.stripe_unit;
	size_t n;

	if (off >= end)
		return 0;
	n = end - off < len ? (size_t)(end - off) : len;
	if (got < n)
		memset(buf + got, 0, n - got);
	return n;
}

/* striped_head_pread(), the user's xattrs added to user when not NULL. */
static ssize_t head_pread_with(rados_ioctx_t io, const char *name, struct striped_head *h,
			       size_t h_size, void *buf, size_t len, uint64_t off,
			       struct striped_xattrs *user)
{
	/* a stripe unit fits in 32 bits (layout_validate()): nothing of the head lies past */
	size_t ask = off >= UINT32_MAX ? 0 : len < UINT32_MAX - off ? len : UINT32_MAX - off;
	struct striped_head full = {0};
	struct head_meta m;
	size_t got = 0;
	bool busy;
	char *oid;
	int r;

	if (!h || h_size < sizeof(h->size) || (!buf && len) || len > SSIZE_MAX)
		return -EINVAL;
	r = name_oid(io, name, &oid);
	if (r)
		return r;
	for (int asked = 0;; asked++) {
		uint64_t held;

		r = head_read_bytes(io, oid, &m, &full.mtime, buf, ask, off, &got, &busy, user);
		if (r || !holder_ask_needed(io, m.held))
			break;
		held = m.held; /* its maker holds it unwritten: written back first */
		head_meta_free(&m);
		if (user)
			xattrs_clear(user);
		r = holder_settle(io, oid, held, asked);
		if (r)
			break;
	}
	free(oid);
	if (r)
		return r;
	head_of_meta(&full, &m);
	if (busy)
		return -EBUSY;
	memcpy(h, &full, h_size < sizeof(full) ? h_size : sizeof(full));
	return (ssize_t)head_bytes(&full, buf, len, off, got);
}

ssize_t striped_head_pread(rados_ioctx_t io, const char *name, struct striped_head *h,
			   size_t h_size, void *buf, size_t len, uint64_t off)
{
	return head_pread_with(io, name, h, h_size, buf, len, off, NULL);
}

ssize_t striped_head_pread2(rados_ioctx_t io, const char *name, struct striped_head *h,
			    size_t h_size, void *buf, size_t len, uint64_t off,
			    struct striped_xattrs **xattrs)
{
	struct striped_xattrs *x = NULL;
	ssize_t r;

	if (!xattrs)
		return head_pread_with(io, name, h, h_size, buf, len, off, NULL);
	x = xattrs_new();
	if (!x)
		return -ENOMEM;
	r = head_pread_with(io, name, h, h_size, buf, len, off, x);
	if (r < 0) {
		xattrs_free(x);
		return r;
	}
	*xattrs = x;
	return r;
}

int striped_head_getxattrs(rados_ioctx_t io, const char *name, struct striped_xattrs **it)
{
	struct striped_xattrs *x;
	struct head_meta m;
	int r;

	if (!it)
		return -EINVAL;
	x = xattrs_new();
	if (!x)
		return -ENOMEM;
	r = inspect_name(io, name, &m, NULL, x);
	if (r) {
		xattrs_free(x);
		return r;
	}
	head_meta_free(&m);
	*it = x;
	return 0;
}

struct striped_lockers {
	struct locker l[LOCKERS_MAX];
	size_t n, next;
	bool exclusive;
	char tag[LOCK_TAG_MAX];
};

int striped_lockers_open(rados_ioctx_t io, const char *name, struct striped_lockers **it)
{
	struct striped_lockers *ls;
	ssize_t n;
	char *oid;
	int r;

	if (!it)
		return -EINVAL;
	r = name_oid(io, name, &oid);
	if (r)
		return r;
	ls = calloc(1, sizeof(*ls));
	if (!ls) {
		free(oid);
		return -ENOMEM;
	}
	n = head_lockers(io, oid, ls->l, LOCKERS_MAX, &ls->exclusive, ls->tag);
	free(oid);
	if (n < 0) {
		free(ls);
		return (int)n;
	}
	ls->n = (size_t)n;
	*it = ls;
	return 0;
}

int striped_lockers_next(struct striped_lockers *it, struct striped_locker *l, size_t l_size)
{
	struct striped_locker one = {0};

	if (!it || !l || l_size < sizeof(l->client))
		return -EINVAL;
	if (it->next < it->n) {
		const struct locker *h = &it->l[it->next++];

		one = (struct striped_locker){
		    .client = h->client,
		    .cookie = h->cookie,
		    .address = h->addr,
		    .tag = it->tag,
		    .exclusive = it->exclusive,
		    .owner = cookie_owner(h->cookie, it->tag, it->exclusive),
		};
	}
	memcpy(l, &one, l_size < sizeof(one) ? l_size : sizeof(one));
	return 0;
}

void striped_lockers_close(struct striped_lockers *it)
{
	free(it);
}
