// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A draft's bytes and attributes (draft.h), within its limit and the
 * daemon's budget for all drafts.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "draft.h"

/* What all drafts of the daemon hold at most: more go to RADOS first. */
#define DRAFT_BUDGET (64ull << 20)
static _Atomic uint64_t held_bytes;

struct draft {
	char *buf;
	size_t len, cap, limit;
	struct mattr attrs;
	struct striped_head taken;
	bool is_taken;
};

struct draft *draft_new(const struct mattr *attrs, size_t limit)
{
	struct draft *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->attrs = *attrs;
	p->limit = limit;
	return p;
}

void draft_free(struct draft *p)
{
	if (!p)
		return;
	atomic_fetch_sub(&held_bytes, p->cap);
	free(p->buf);
	free(p);
}

void draft_set_taken(struct draft *p, const struct striped_head *h)
{
	p->taken = *h;
	p->is_taken = true;
}

const struct striped_head *draft_taken(const struct draft *p)
{
	return p->is_taken ? &p->taken : NULL;
}

/* Room for end bytes, zeros past len: false when past the limit or the budget. */
static bool reserve(struct draft *p, uint64_t end)
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
	if (atomic_fetch_add(&held_bytes, cap - p->cap) + (cap - p->cap) > DRAFT_BUDGET) {
		atomic_fetch_sub(&held_bytes, cap - p->cap);
		return false;
	}
	b = realloc(p->buf, cap);
	if (!b) {
		atomic_fetch_sub(&held_bytes, cap - p->cap);
		return false;
	}
	memset(b + p->cap, 0, cap - p->cap);
	p->buf = b;
	p->cap = cap;
	return true;
}

bool draft_write(struct draft *p, const void *buf, size_t len, uint64_t off)
{
	if (off > p->limit || len > p->limit - off || !reserve(p, off + len))
		return false;
	memcpy(p->buf + off, buf, len);
	if (off + len > p->len)
		p->len = (size_t)(off + len);
	return true;
}

bool draft_truncate(struct draft *p, uint64_t size)
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

void draft_set_attrs(struct draft *p, const struct mattr *c)
{
	struct mattr *a = &p->attrs;

	if (c->has_mode) {
		a->mode = c->mode;
		a->has_mode = true;
	}
	if (c->has_uid) {
		a->uid = c->uid;
		a->has_uid = true;
	}
	if (c->has_gid) {
		a->gid = c->gid;
		a->has_gid = true;
	}
	if (c->has_atime) {
		a->atime = c->atime;
		a->has_atime = true;
	}
	if (c->has_ctime) {
		a->ctime = c->ctime;
		a->has_ctime = true;
	}
}

static bool later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec : a->tv_nsec > b->tv_nsec;
}

void draft_attrs(const struct draft *p, const struct timespec *mtime, struct mattr *a)
{
	*a = p->attrs;
	a->has_mode = a->has_uid = a->has_gid = true;
	a->size = p->len;
	a->mtime = *mtime;
	if (!p->attrs.has_atime)
		a->atime = *mtime;
	if (!p->attrs.has_ctime || later(mtime, &p->attrs.ctime))
		a->ctime = *mtime;
}

const struct mattr *draft_create_attrs(const struct draft *p)
{
	return &p->attrs;
}

const char *draft_bytes(const struct draft *p, size_t *len)
{
	*len = p->len;
	return p->buf;
}
