// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Repair: removing a file's orphans, what its objects hold past its size,
 * for operators after a client died mid-write or a libradosstriper remove
 * (which cleans up to the size only) left objects past it. With a head it
 * is a truncate to the size the file has, under its exclusive lock
 * (excl.c, and io_clean.c's cleanup), plus the objects a listing found past the
 * mark: no live writer's data is cut and no byte within the size changes.
 * Without a head, the objects found by listing go, each only if it did not
 * change since the head was seen missing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "excl.h"
#include "head.h"
#include "io.h"
#include "layout.h"
#include "meta.h"
#include "name.h"

/* How often a file that comes back during a headless repair is started over. */
#define REPAIR_TRIES 3

/*
 * Up to where a truncate to the file's own size must clean: its mark, and
 * the end of the size's object set, whose objects may hold bytes past it.
 */
static uint64_t repair_end(const struct head_meta *m)
{
	uint64_t period = m->layout.stripe_count * m->layout.object_size;
	uint64_t set_end = m->size / period * period;
	uint64_t end = head_meta_end(m);

	set_end = set_end > UINT64_MAX - period ? UINT64_MAX : set_end + period;
	return set_end > end ? set_end : end;
}

/* Under the exclusive lock: the size read now, cleaned past, the mark brought down to it. */
static int repair_locked(struct excl *x, const char *name, const uint64_t *listed, size_t n)
{
	struct head_meta m;
	int r = head_inspect(x->io, x->oid, &m, NULL, NULL);

	if (r)
		return r;
	r = io_clean_objects(x->io, name, &m.layout, m.size, repair_end(&m), &m, listed, n,
			     excl_keep, x, false);
	if (!r)
		r = excl_set_size(x, m.size, m.size);
	head_meta_free(&m);
	return r;
}

/*
 * No head: each listed object's version first, then the head looked for
 * once more, then each object removed only at the version it had. A file
 * created meanwhile made its head before any data, so an object it wrote
 * to has another version and stays; -EAGAIN then, to repair it as a file.
 */
static int repair_headless(rados_ioctx_t io, const char *name, const char *head,
			   const uint64_t *listed, size_t n)
{
	size_t len = strlen(name) + OBJECT_SUFFIX_LEN + 1;
	uint64_t *version = calloc(n, sizeof(*version)), size;
	char *oid = malloc(len);
	rados_ioctx_t own = NULL;
	time_t mtime;
	int r = version && oid ? 0 : -ENOMEM;

	/* An I/O context of our own: rados_get_last_version() is then this call's. */
	if (!r)
		r = head_watch_ioctx(io, &own);
	for (size_t i = 0; !r && i < n; i++) {
		layout_object_name(name, listed[i], oid, len);
		r = rados_stat(own, oid, &size, &mtime);
		if (!r)
			version[i] = rados_get_last_version(own);
		else if (r == -ENOENT) /* gone already: version 0, never an object's */
			r = 0;
	}
	if (!r) {
		r = rados_stat(own, head, &size, &mtime);
		r = r == 0 ? -EAGAIN : r == -ENOENT ? 0 : r;
	}
	for (size_t i = 0; !r && i < n; i++) {
		rados_write_op_t op;

		if (!version[i])
			continue;
		op = rados_create_write_op();
		if (!op) {
			r = -ENOMEM;
			break;
		}
		layout_object_name(name, listed[i], oid, len);
		rados_write_op_assert_version(op, version[i]);
		rados_write_op_remove(op);
		r = rados_write_op_operate(op, own, oid, NULL, STRIPED_WRITE_FLAGS);
		rados_release_write_op(op);
		if (r == -ENOENT)
			r = 0;
		else if (r == -ERANGE || r == -EOVERFLOW) /* written since: not an orphan's */
			r = -EAGAIN;
	}
	if (own)
		head_watch_ioctx_destroy(own);
	free(oid);
	free(version);
	return r;
}

int io_repair(rados_ioctx_t io, const char *name, const uint64_t *objectnos, size_t n)
{
	struct excl x;
	char *oid;
	int r = name_oid(io, name, &oid);

	if (r)
		return r;
	for (int tries = 0; tries < REPAIR_TRIES; tries++) {
		struct head_meta m;

		/* A damaged head is refused before its lock is asked for: nothing written. */
		r = head_read_meta(io, oid, &m);
		if (!r) {
			head_meta_free(&m);
			r = excl_begin(&x, io, oid);
		}
		if (!r) {
			r = repair_locked(&x, name, objectnos, n);
			excl_end(&x, r);
			break;
		}
		if (r != -ENOENT || !n)
			break;
		r = repair_headless(io, name, oid, objectnos, n);
		if (r != -EAGAIN)
			break;
	}
	free(oid);
	return r;
}
