// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Heads read and written as the mount needs them (heads.h): the xattrs and
 * the object's stat in one read operation, many in flight together, and
 * the mount's xattrs in one write that creates nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <striped.h>

#include "heads.h"

#define HEAD_NAME_MAX 4096
#define READS_IN_FLIGHT 256
#define XATTRS_MAX 64

/* One head's read in flight: the op, its results, the iterator of its xattrs. */
struct head_read {
	rados_read_op_t op;
	rados_completion_t c;
	rados_xattrs_iter_t it;
	uint64_t obj_size;
	time_t obj_mtime;
	int xattrs_rv, stat_rv;
};

static int head_start(rados_ioctx_t io, const char *name, struct head_read *h)
{
	char oid[HEAD_NAME_MAX];
	int r, len = striped_object_name(name, 0, oid, sizeof(oid));

	memset(h, 0, sizeof(*h));
	if (len < 0 || (size_t)len >= sizeof(oid))
		return -ENAMETOOLONG;
	h->op = rados_create_read_op();
	if (!h->op)
		return -ENOMEM;
	rados_read_op_stat(h->op, &h->obj_size, &h->obj_mtime, &h->stat_rv);
	rados_read_op_getxattrs(h->op, &h->it, &h->xattrs_rv);
	r = rados_aio_create_completion2(NULL, NULL, &h->c);
	if (!r)
		r = rados_aio_read_op_operate(h->op, io, h->c, oid, 0);
	if (r < 0) {
		if (h->c)
			rados_aio_release(h->c);
		rados_release_read_op(h->op);
		h->op = NULL;
		h->c = NULL;
	}
	return r;
}

/*
 * The xattrs decode needs (striper.*, mount.*), copied: librados' iterator
 * reuses the memory of each name and value at the next step. A value
 * longer than VALUE_MAX cannot be a number: it keeps a length that fails.
 */
#define VALUE_MAX 47
struct copied {
	char names[XATTRS_MAX][STRIPED_XATTR_NAME_MAX + 1];
	char values[XATTRS_MAX][VALUE_MAX + 1];
	const char *np[XATTRS_MAX], *vp[XATTRS_MAX];
	size_t lens[XATTRS_MAX], n;
};

static void copy_xattr(struct copied *k, const char *name, const char *val, size_t len)
{
	size_t i = k->n;

	if (i == XATTRS_MAX || (strncmp(name, "striper.", 8) && strncmp(name, "mount.", 6)))
		return;
	snprintf(k->names[i], sizeof(k->names[i]), "%s", name);
	memcpy(k->values[i], val, len < VALUE_MAX ? len : VALUE_MAX);
	if (len && val[len - 1] == 0)
		len--; /* libradosstriper's values may end with a NUL */
	k->lens[i] = len <= VALUE_MAX ? len : VALUE_MAX + 1;
	k->np[i] = k->names[i];
	k->vp[i] = k->values[i];
	k->n++;
}

/* Wait for a started read, decode it and free what it holds. */
static int head_finish(struct head_read *h, struct mattr *a)
{
	struct copied *k = malloc(sizeof(*k));
	const char *name, *val;
	size_t len;
	int r;

	rados_aio_wait_for_complete(h->c);
	r = rados_aio_get_return_value(h->c);
	if (!r)
		r = h->stat_rv < 0 ? h->stat_rv : h->xattrs_rv;
	if (!k && !r)
		r = -ENOMEM;
	if (k)
		k->n = 0;
	while (!r && !rados_getxattrs_next(h->it, &name, &val, &len) && name)
		copy_xattr(k, name, val, len);
	if (!r)
		r = mattr_decode(k->n, k->np, k->vp, k->lens, h->obj_mtime, a);
	free(k);
	if (h->it)
		rados_getxattrs_end(h->it);
	rados_aio_release(h->c);
	rados_release_read_op(h->op);
	return r;
}

/*
 * A head another client holds unwritten (striper.held, its write-back):
 * libstriped's read asks the holder to write it back and waits, then this
 * reads it again. Our own are answered from the daemon before they are
 * read here.
 */
static void settle_held(rados_ioctx_t io, const char *name, struct mattr *a, int *rv)
{
	uint64_t self = rados_get_instance_id(rados_ioctx_get_cluster(io));
	struct striped_head h;
	struct head_read again = {0};

	if (*rv || !a->held || a->held == self)
		return;
	*rv = striped_head_read(io, name, &h, sizeof(h));
	if (!*rv)
		*rv = head_start(io, name, &again);
	if (again.op)
		*rv = head_finish(&again, a);
}

int heads_read_many(rados_ioctx_t io, const char *const *names, size_t n, struct mattr *out,
		    int *rv)
{
	struct head_read *h = calloc(READS_IN_FLIGHT, sizeof(*h));
	size_t next = 0, done = 0;

	if (!h)
		return -ENOMEM;
	while (done < n) {
		/* keep up to READS_IN_FLIGHT going; finish them in order */
		while (next < n && next - done < READS_IN_FLIGHT) {
			struct head_read *s = &h[next % READS_IN_FLIGHT];

			rv[next] = head_start(io, names[next], s);
			next++;
		}
		struct head_read *f = &h[done % READS_IN_FLIGHT];
		if (f->op)
			rv[done] = head_finish(f, &out[done]);
		done++;
	}
	free(h);
	for (size_t i = 0; i < n; i++)
		settle_held(io, names[i], &out[i], &rv[i]);
	return 0;
}

int heads_read_beside(rados_ioctx_t io, const char *name, struct mattr *a,
		      void (*also)(void *arg), void *arg)
{
	struct head_read h;
	int r = head_start(io, name, &h);

	also(arg);
	if (h.op)
		r = head_finish(&h, a);
	settle_held(io, name, a, &r);
	return r;
}

int heads_read(rados_ioctx_t io, const char *name, struct mattr *a)
{
	int rv = 0, r = heads_read_many(io, &name, 1, a, &rv);

	return r ? r : rv;
}

/* The write op storing what a has (has_*), asserting the head exists. */
static rados_write_op_t write_op_of(const struct mattr *a)
{
	rados_write_op_t op = rados_create_write_op();
	struct mattr_xattrs x;
	size_t n = mattr_xattrs(a, &x);

	if (!op)
		return NULL;
	rados_write_op_assert_exists(op);
	for (size_t i = 0; i < n; i++) /* setxattr copies the value into the op */
		rados_write_op_setxattr(op, x.x[i].name, x.x[i].value, x.x[i].len);
	return op;
}

int heads_write(rados_ioctx_t io, const char *name, const struct mattr *a)
{
	struct heads_write *w;
	int r = heads_write_start(io, name, a, &w);

	return r ? r : heads_write_wait(w);
}

struct heads_write {
	rados_write_op_t op;
	rados_completion_t c;
};

int heads_write_start(rados_ioctx_t io, const char *name, const struct mattr *a,
		      struct heads_write **out)
{
	char oid[HEAD_NAME_MAX];
	struct heads_write *w;
	int r, len = striped_object_name(name, 0, oid, sizeof(oid));

	if (len < 0 || (size_t)len >= sizeof(oid))
		return -ENAMETOOLONG;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->op = write_op_of(a))) {
		free(w);
		return -ENOMEM;
	}
	r = rados_aio_create_completion2(NULL, NULL, &w->c);
	if (!r)
		r = rados_aio_write_op_operate(w->op, io, w->c, oid, NULL, 0);
	if (r) {
		if (w->c)
			rados_aio_release(w->c);
		rados_release_write_op(w->op);
		free(w);
		return r;
	}
	*out = w;
	return 0;
}

int heads_write_wait(struct heads_write *w)
{
	int r;

	rados_aio_wait_for_complete(w->c);
	r = rados_aio_get_return_value(w->c);
	rados_aio_release(w->c);
	rados_release_write_op(w->op);
	free(w);
	return r;
}
