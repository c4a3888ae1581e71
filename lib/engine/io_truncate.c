// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Truncate and remove: exclusive sections (excl.c). Under the file's
 * exclusive lock the objects are cleaned first, by name (io_clean.c), and
 * the size (or the head, for a remove) changes last, fenced by the lock,
 * so a section whose lock was lost changes nothing more. A crash in between
 * leaves a size whose missing bytes read as zeros. A head that is damaged,
 * no striped file, or another file now is refused before the lock is asked
 * for: nothing is written, no holder is asked to let go (or fenced). A file
 * whose bytes all lie in its head, with no holder, is removed without the
 * lock: the head goes in one operation that checks nothing changed since
 * its metadata was read, the lock's xattr with it (head_remove_unheld()).
 */
#include <errno.h>
#include <stdlib.h>

#include "excl.h"
#include "head.h"
#include "io_file.h"
#include "meta.h"
#include "name.h"

/*
 * Growing clears bytes an older writer may have left past the old end (one
 * that sent data before the size, as libstriped before 0.2 did), but only in
 * the old end's object set: the cost stays at most stripe_count operations
 * however far the file grows.
 */
static uint64_t grow_clean_end(const struct striped_layout *l, uint64_t old, uint64_t size)
{
	uint64_t period = l->stripe_count * l->object_size;
	uint64_t set_end = old / period * period;

	if (set_end > UINT64_MAX - period)
		return size;
	set_end += period;
	return size < set_end ? size : set_end;
}

/*
 * Under the exclusive lock: objects first, size last, fenced by the lock.
 * Bytes past the old size up to the mark come only from writes that did not
 * succeed (or crashed) since the last truncate: they are cleaned with the
 * rest, whether the file shrinks or grows over them, and the mark comes
 * down to the new size with it (excl_set_size).
 */
static int truncate_locked(struct excl *x, struct io_file *f, uint64_t size)
{
	const struct striped_layout *l = &f->layout;
	struct head_meta m;
	uint64_t old, keep, upto;
	int r = head_read_meta(x->io, x->oid, &m);

	if (r)
		return r;
	/* Removed and created again since the handle took its lock: not this handle's file. */
	if (!lease_same_file(&f->lease, &m)) {
		head_meta_free(&m);
		return -ESTALE;
	}
	old = m.size;
	keep = size < old ? size : old;
	upto = size > old ? grow_clean_end(l, old, size) : old;
	if (head_meta_end(&m) > upto)
		upto = head_meta_end(&m);
	if (upto > keep)
		r = io_clean_objects(x->io, f->name, l, keep, upto, &m, NULL, 0, excl_keep, x,
				     false);
	if (!r)
		r = excl_set_size(x, old, size);
	head_meta_free(&m);
	return r;
}

/* Before the exclusive lock is asked for (checked again under it): see above. */
static int head_precheck(rados_ioctx_t io, const char *oid, const struct lease *ls)
{
	struct head_meta m;
	int r = head_read_meta(io, oid, &m);

	if (r)
		return r;
	if (ls && !lease_same_file(ls, &m))
		r = -ESTALE;
	head_meta_free(&m);
	return r;
}

int io_truncate(struct io_file *f, uint64_t size, uint64_t timeouts_seen)
{
	struct excl x;
	int r;

	/* Our shared lock would keep our own exclusive lock out. */
	lease_release(&f->lease, false);
	/*
	 * What it waited for (the calls in flight, the idler letting go) timed
	 * out, the cluster does not answer: so does the truncate, at once,
	 * rather than wait the op timeout again.
	 */
	if (io_file_timeouts(f) != timeouts_seen) {
		r = -ETIMEDOUT;
		goto out;
	}
	r = head_precheck(f->io, f->head_oid, &f->lease);
	if (!r)
		r = excl_begin(&x, f->io, f->head_oid);
	if (r == -ENOENT || r == -ENODATA)
		r = -ESTALE;
	if (!r) {
		r = truncate_locked(&x, f, size);
		excl_end(&x, r);
	}
	/*
	 * Back to the shared lock; it re-reads the size. After a timeout that
	 * would be one more: the next call takes it back, or says why not.
	 */
	if (r != -ETIMEDOUT)
		lease_reacquire(&f->lease);
out:
	/* Calls waiting at the gate give up too: they have waited the op timeout. */
	if (r == -ETIMEDOUT)
		lease_timed_out(&f->lease);
	return r;
}

int io_remove(rados_ioctx_t io, const char *name)
{
	struct head_meta m;
	struct excl x;
	char *oid;
	int r;

	r = name_oid(io, name, &oid);
	if (r)
		return r;
	/* A small file no one holds: its head goes in one checked step (it read it too). */
	r = head_remove_unheld(io, oid);
	if (r != -EAGAIN)
		goto out;
	r = excl_begin(&x, io, oid);
	if (r)
		goto out;
	r = head_read_meta(io, oid, &m);
	if (!r) {
		r = io_clean_objects(io, name, &m.layout, 0, head_meta_end(&m), &m, NULL, 0,
				     excl_keep, &x, true);
		head_meta_free(&m);
	}
	if (!r)
		r = excl_remove_head(&x); /* the lock goes with it */
	if (r)
		excl_end(&x, r);
out:
	free(oid);
	return r;
}
