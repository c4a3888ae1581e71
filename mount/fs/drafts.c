// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Drafts as open files (drafts.h). A small file's create, write and close
 * cost its lookup and one operation that makes it whole; what the draft
 * cannot answer makes it first, through a handle, as any create does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "drafts.h"
#include "handle.h"
#include "newfile.h"
#include "ofile.h"
#include "writeback.h"
#include "clock.h"

/* The most bytes a draft holds before it is made. */
#define DRAFT_MAX (64u << 10)
/* How many drafts below a directory are made per round of drafts_make_below(). */
#define MAKE_BATCH 64

/*
 * An O_EXCL create's name taken on RADOS (n->lock held), empty, with its
 * attributes and the create's time: the one round trip of its open, which
 * answers whether the name is free as the cluster sees it.
 */
static int take_name(struct mount *m, struct node *n, const char *path, struct draft *d)
{
	struct timespec at = clock_wall();
	struct striped_head h;
	int r = newfile_take(m, path, draft_create_attrs(d), &at, n->ino, &h);

	if (!r)
		draft_set_taken(d, &h);
	return r;
}

int drafts_open(struct mount *m, struct node *n, const char *path, const struct mattr *attrs,
		int flags, struct mattr *a)
{
	uint64_t unit = m->o.layout.stripe_unit;
	bool excl = flags & O_EXCL;
	struct draft *d = NULL;
	int r = 0;

	if (!(flags & (O_TRUNC | O_EXCL)) || (flags & O_DIRECT) || m->o.kernel_cache)
		return 1;
	*a = *attrs;
	a->stripe_unit = unit;
	node_lock(n);
	if (n->file.of)
		r = excl ? -EEXIST : 1; /* open here: it exists */
	else if (!(d = draft_new(a, unit < DRAFT_MAX ? unit : DRAFT_MAX)))
		r = -ENOMEM;
	else if (excl)
		r = take_name(m, n, path, d);
	if (!r && !ofile_new(n, NULL, true, d))
		r = -ENOMEM; /* a name taken stays, empty, as a create that failed to write */
	if (!r) {
		ofile_opened(n); /* the open holds its node, until open_put() */
		node_hold(&m->nodes, n);
		ofile_mark_draft(n, true);
		ofile_note_change(n); /* its mtime: the create's, stored when it is made */
		drafts_attrs_locked(n, a);
	} else {
		draft_free(d);
	}
	node_unlock(n);
	if (r)
		return r;
	listing_add_draft(&m->listing, path);
	return 0;
}

bool drafts_attrs_locked(struct node *n, struct mattr *a)
{
	struct timespec mtime = ofile_mtime(n);

	if (!n->file.of || !n->file.of->draft)
		return false;
	draft_attrs(n->file.of->draft, &mtime, a);
	a->ino = n->ino;
	a->has_ino = true;
	return true;
}

bool drafts_attrs(struct node *n, struct mattr *a)
{
	bool yes;

	node_lock(n);
	yes = drafts_attrs_locked(n, a);
	node_unlock(n);
	return yes;
}

bool drafts_attrs_at(struct mount *m, const char *path, struct mattr *a)
{
	struct node *n = node_at(&m->nodes, path);
	bool yes = n && ofile_is_draft(n) && drafts_attrs(n, a);

	node_put(&m->nodes, n);
	return yes;
}

bool drafts_set_attrs(struct node *n, const struct mattr *a, struct mattr *after)
{
	bool taken;

	node_lock(n);
	taken = n->file.of && n->file.of->draft;
	if (taken) {
		draft_set_attrs(n->file.of->draft, a);
		if (a->has_mtime)
			ofile_set_mtime(n, &a->mtime);
		drafts_attrs_locked(n, after);
	}
	node_unlock(n);
	return taken;
}

bool drafts_write(struct node *n, const char *buf, size_t size, uint64_t off, int flags)
{
	bool taken;

	node_lock(n);
	/* an O_DIRECT write is on RADOS when it returns */
	taken = n->file.of && n->file.of->draft && !(flags & O_DIRECT) &&
		draft_write(n->file.of->draft, buf, size, off);
	if (taken)
		ofile_note_change(n);
	node_unlock(n);
	return taken;
}

bool drafts_read(struct mount *m, struct node *n, char *buf, size_t size, uint64_t off,
		 ssize_t *r)
{
	const char *bytes;
	size_t len;
	bool yes;

	(void)m;
	node_lock(n);
	yes = n->file.of && n->file.of->draft;
	if (yes) {
		bytes = draft_bytes(n->file.of->draft, &len);
		*r = off >= len ? 0 : (ssize_t)(len - off < size ? len - off : size);
		if (*r)
			memcpy(buf, bytes + off, (size_t)*r);
	}
	node_unlock(n);
	return yes;
}

bool drafts_truncate_locked(struct node *n, uint64_t size)
{
	return n->file.of && n->file.of->draft && draft_truncate(n->file.of->draft, size);
}

/* n's draft is on RADOS now (path), or will never be: what held it goes. */
static void draft_done(struct mount *m, struct node *n, const char *path)
{
	draft_free(ofile_take_draft(n->file.of));
	ofile_mark_draft(n, false);
	if (path)
		listing_draft_made(&m->listing, path);
}

void drafts_drop_locked(struct mount *m, struct node *n)
{
	/* unlinked: its name may be another draft's now, kept in the listing */
	char *path = node_detached(&m->nodes, n) ? NULL : node_path(&m->nodes, n);

	draft_done(m, n, path);
	free(path);
}

/*
 * The draft's bytes written through f, a handle of the file opened as the
 * create would have; ours: made by this open (created, or its name taken).
 */
static int replay(const struct draft *d, struct striped_file *f, bool ours)
{
	size_t len;
	const char *bytes = draft_bytes(d, &len);
	ssize_t w;
	int r = 0;

	if (!ours) /* a file another client made: the create's O_TRUNC */
		r = striped_truncate(f, 0);
	if (r || !len)
		return r;
	w = striped_write(f, bytes, len, 0);
	return w < 0 ? (int)w : 0;
}

static int make_whole(struct mount *m, struct node *n, const char *path, struct mattr *made);

/*
 * A name taken held by this mount's write-back, filled with what the draft
 * holds before a handle opens it: the mark goes with it (else readers
 * would ask this mount again and again for a file it no longer holds).
 * True when filled: its bytes and attributes are there.
 */
static bool fill_held(struct mount *m, struct node *n, const char *path)
{
	const struct striped_head *taken = draft_taken(n->file.of->draft);
	struct mattr made;

	return taken && taken->holder && make_whole(m, n, path, &made) == 0;
}

int drafts_settle_locked(struct mount *m, struct node *n)
{
	struct ofile *of = n->file.of;
	struct striped_file *f = NULL;
	char *path = NULL;
	bool created, filled = false;
	int r = node_detached(&m->nodes, n) ? -ESTALE : (path = node_path(&m->nodes, n)) ? 0 : -ENOMEM;

	if (!r)
		filled = fill_held(m, n, path);
	if (!r)
		r = handle_open(m, path, !filled, false, of->buffered, &f, &created);
	if (!r && filled) { /* made whole as a flush makes it: its handle now */
		ofile_set_handle(of, f);
		draft_done(m, n, path);
		ofile_clear_written(n); /* its mtime went with it */
		free(path);
		return 0;
	}
	/* a try after a failure finds the file there; a taken name is there, empty */
	if (!r && (created || draft_taken(of->draft))) {
		created = true;
		ofile_set_attrs_due(of, true);
		ofile_set_ino_due(n, true); /* its mount.ino goes with the close's mtime */
	}
	if (!r && of->attrs_due &&
	    !(r = newfile_store_attrs(m, path, draft_create_attrs(of->draft))))
		ofile_set_attrs_due(of, false);
	if (!r)
		r = replay(of->draft, f, created);
	if (r) {
		striped_close(f);
		free(path);
		return r;
	}
	ofile_set_handle(of, f);
	draft_done(m, n, path);
	free(path);
	return 0;
}

/*
 * The draft made whole (or its taken name filled), as a stat of it says,
 * with its inode number; *made what a stat says then, its head as made.
 */
static int make_whole(struct mount *m, struct node *n, const char *path, struct mattr *made)
{
	const struct draft *d = n->file.of->draft;
	const struct striped_head *taken = draft_taken(d);
	struct timespec mtime = ofile_mtime(n);
	struct mattr stored = *draft_create_attrs(d);
	struct striped_head h = {0};
	size_t len;
	const char *bytes = draft_bytes(d, &len);
	int r;

	drafts_attrs_locked(n, made);
	stored.ctime = made->ctime; /* a chmod after the last write is later */
	stored.has_ctime = true;
	if (!taken) {
		r = newfile_make_whole(m, path, &stored, bytes, len, &mtime, n->ino, &h);
	} else {
		h = *taken;
		r = newfile_fill(m, path, taken, &stored, bytes, len, &mtime, n->ino);
		/* another client opened or changed it: through a handle; removed it: as a handle's calls */
		r = r == -ECANCELED ? -EEXIST : r == -ENOENT ? -ESTALE : r;
	}
	made->layout = h.layout;
	made->id = h.id;
	made->reserved = h.reserved;
	made->stripe_unit = h.layout.stripe_unit;
	return r;
}

int drafts_flush_made_locked(struct mount *m, struct node *n, struct mattr *made, bool *is_made)
{
	struct ofile *of = n->file.of;
	char *path;
	int r;

	*is_made = false;
	if (!of || !of->draft || node_detached(&m->nodes, n))
		return 0;
	path = node_path(&m->nodes, n);
	r = path ? make_whole(m, n, path, made) : -ENOMEM;
	if (r == -EEXIST) {
		r = drafts_settle_locked(m, n);
	} else if (!r) {
		draft_done(m, n, path);
		ofile_clear_written(n); /* its mtime went with it */
		*is_made = true;
	}
	free(path);
	return r;
}

int drafts_flush_locked(struct mount *m, struct node *n)
{
	struct mattr made;
	bool is_made;

	return drafts_flush_made_locked(m, n, &made, &is_made);
}

int drafts_make(struct mount *m, struct node *n)
{
	int r;

	node_lock(n);
	r = drafts_flush_locked(m, n);
	node_unlock(n);
	return r;
}

static bool holds_draft(const struct node *n)
{
	return ofile_is_draft(n);
}

int drafts_make_below(struct mount *m, const char *dir)
{
	struct node *held[MAKE_BATCH];
	size_t k;
	int r = 0;

	/* each made holds a draft no more: the next round finds the rest */
	while (!r && (k = node_below(&m->nodes, dir, holds_draft, held, MAKE_BATCH)) > 0)
		for (size_t i = 0; i < k; i++) {
			if (!r)
				r = drafts_make(m, held[i]);
			node_put(&m->nodes, held[i]);
		}
	return r;
}

bool drafts_kept_locked(struct mount *m, struct node *n)
{
	const struct striped_head *taken;

	if (!writeback_holder(m) || !n->file.of || !n->file.of->draft ||
	    node_file_unlinked(&n->file) || node_detached(&m->nodes, n))
		return false;
	taken = draft_taken(n->file.of->draft);
	return taken && taken->holder;
}

void drafts_write_asked(struct mount *m, const char *path)
{
	struct node *n = node_at(&m->nodes, path);
	int r = 0;

	if (!n)
		return;
	node_lock(n);
	if (n->file.of && n->file.of->draft && !node_detached(&m->nodes, n))
		r = drafts_flush_locked(m, n);
	node_unlock(n);
	node_put(&m->nodes, n);
	if (r)
		syslog(LOG_ERR, "striped-mount: %s: not written back when asked: %s", path,
		       strerror(-r));
}

/*
 * to taken held for n's draft (n->lock held), replacing what is there
 * unless to_absent said nothing was: then its name from is given back, as
 * the draft was taken. 0, or an error with nothing changed on RADOS but to.
 */
static int take_renamed(struct mount *m, struct node *n, const char *from, const char *to,
			bool to_absent)
{
	struct draft *d = n->file.of->draft;
	struct timespec at = ofile_mtime(n);
	struct striped_head h;
	int r = newfile_take(m, to, draft_create_attrs(d), &at, n->ino, &h);

	if (r == -EEXIST && !to_absent && !(r = striped_remove(m->io, to)))
		r = newfile_take(m, to, draft_create_attrs(d), &at, n->ino, &h);
	if (r)
		return r;
	r = striped_head_remove(m->io, from, draft_taken(d), sizeof(*draft_taken(d)));
	if (r == -ECANCELED) /* changed since it was taken (a reader took the mark off) */
		r = striped_remove(m->io, from);
	if (r == -ENOENT)
		r = 0;
	if (r) { /* the new name goes again: the file stays where it was */
		striped_head_remove(m->io, to, &h, sizeof(h));
		return r;
	}
	draft_set_taken(d, &h);
	return 0;
}

int drafts_rename(struct mount *m, const char *from, const char *to, bool to_absent)
{
	struct node *n = node_at(&m->nodes, from);
	int r = 1;

	if (!n)
		return 1;
	node_lock(n);
	if (n->file.opens == 0 && drafts_kept_locked(m, n))
		r = take_renamed(m, n, from, to, to_absent);
	node_unlock(n);
	node_put(&m->nodes, n);
	if (!r) {
		listing_draft_made(&m->listing, from);
		listing_remove(&m->listing, from);
		listing_add_draft(&m->listing, to);
	}
	return r;
}

struct node *drafts_hold(struct mount *m, const char *path)
{
	struct node *n = node_at(&m->nodes, path);

	if (n && !ofile_is_draft(n)) {
		node_put(&m->nodes, n);
		return NULL;
	}
	if (n)
		node_lock(n);
	return n;
}

bool drafts_held(const struct node *n)
{
	return n && n->file.of && n->file.of->draft;
}

void drafts_release(struct mount *m, struct node *n)
{
	if (n) {
		node_unlock(n);
		node_put(&m->nodes, n);
	}
}
