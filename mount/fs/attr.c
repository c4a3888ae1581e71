// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Inode attributes (attr.h). mode, owner and times live on the head as the
 * mount's xattrs (mount.mode, mount.uid, mount.gid, mount.mtime,
 * mount.ctime, mount.atime), as s3fs keeps them in object metadata; a
 * directory's on its marker ("DIR/").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "clock.h"
#include "drafts.h"
#include "heads.h"
#include "newfile.h"
#include "ofile.h"
#include "open.h"

void attr_seen(struct node *n, const struct mattr *a)
{
	if (n->is_dir)
		return;
	atomic_store(&n->attr.size, a->size); /* what an open after it will read */
	atomic_store(&n->attr.size_known, true);
	if (!a->layout.stripe_unit)
		return; /* a reading without a layout is no head's */
	atomic_store(&n->attr.su, a->layout.stripe_unit);
	atomic_store(&n->attr.sc, a->layout.stripe_count);
	atomic_store(&n->attr.os, a->layout.object_size);
	atomic_store(&n->attr.id, a->id);
	atomic_store(&n->attr.reserved, a->reserved);
}

static void seen_mode(struct node *n, mode_t mode)
{
	atomic_store(&n->attr.mode, (uint32_t)mode);
}

bool attr_seen_head(struct node *n, struct striped_head *h)
{
	memset(h, 0, sizeof(*h));
	h->layout.stripe_unit = atomic_load(&n->attr.su);
	h->layout.stripe_count = atomic_load(&n->attr.sc);
	h->layout.object_size = atomic_load(&n->attr.os);
	h->id = atomic_load(&n->attr.id);
	h->reserved = atomic_load(&n->attr.reserved);
	h->size = atomic_load(&n->attr.size);
	return h->layout.stripe_unit != 0 && atomic_load(&n->attr.size_known);
}

void attr_cache_locked(struct node *n, const struct mattr *a, double at, uint64_t changes)
{
	n->attr.cached = *a;
	n->attr.cached_at = at;
	n->attr.cached_changes = changes;
}

/* The reading cached (n->lock held), when younger than max_age and nothing changed n here since. */
static bool cached_locked(const struct node *n, double now, double max_age, struct mattr *a)
{
	bool fresh = n->attr.cached_at && n->attr.cached_changes == node_changes(n) &&
		     now - n->attr.cached_at < max_age;

	if (fresh)
		*a = n->attr.cached;
	return fresh;
}

bool attr_open_reading(struct mount *m, struct node *n, struct mattr *a)
{
	bool fresh;

	node_lock(n);
	fresh = cached_locked(n, clock_age_now(), m->o.cache_time, a);
	n->attr.cached_at = 0; /* for the one GETATTR after the open */
	node_unlock(n);
	return fresh;
}

void attr_forget_reading(struct node *n)
{
	node_lock(n);
	n->attr.cached_at = 0;
	node_unlock(n);
}

/* A directory's attributes: its marker's, or none (the defaults). */
static void marker_attrs(struct mount *m, const char *path, struct mattr *a)
{
	char *marker = mount_marker_of(path); /* the root's is "/" */

	if (!marker || heads_read(m->io, marker, a))
		memset(a, 0, sizeof(*a));
	free(marker);
}

/*
 * A directory's attributes as last read here, when younger than cache_time
 * and not changed here since: the kernel forgets them at every create and
 * unlink in it, and asks again at the next name looked up below it, so a
 * program making or removing files one after another paid a round trip to
 * the marker for each (what another client changes shows within cache_time,
 * as in the kernel's own cache of them).
 */
static void dir_attrs(struct mount *m, struct node *n, const char *path, struct mattr *a)
{
	/* the count before the read: a change made during it makes that reading stale */
	uint64_t changes = node_changes(n);
	double at = clock_age_now();
	bool cached;

	node_lock(n);
	cached = cached_locked(n, at, m->o.cache_time, a);
	node_unlock(n);
	if (cached)
		return;
	marker_attrs(m, path, a);
	node_lock(n);
	attr_cache_locked(n, a, at, changes);
	node_unlock(n);
}

/* 2 and one for each directory in path, from the names as this mount knows them. */
static uint32_t dir_links(struct mount *m, const char *path)
{
	long dirs;

	listing_refresh_dir_async(&m->listing, m->io, path, m->o.cache_time);
	dirs = listing_subdirs(&m->listing, path);
	return dirs < 0 ? 2 : 2 + (uint32_t)dirs;
}

void attr_merge_local(struct mount *m, struct node *n, struct mattr *a)
{
	struct timespec mtime;
	uint64_t size;

	if (!n->is_dir && open_local(m, n, &size, &mtime)) {
		a->size = size;
		a->mtime = a->ctime = mtime;
	}
}

int attr_get(struct mount *m, struct node *n, struct mattr *a)
{
	char *path = node_path(&m->nodes, n);
	int r = 0;

	if (!path)
		return -ENOMEM;
	if (n->is_dir) {
		dir_attrs(m, n, path, a);
		a->nlink = dir_links(m, path);
	} else if (!drafts_attrs(n, a)) { /* a draft: what it holds */
		r = heads_read(m->io, path, a);
		if (!r)
			attr_merge_local(m, n, a);
	}
	free(path);
	return r;
}

int attr_created(struct mount *m, struct node *n, const char *path, const struct mattr *made,
		 bool created, struct mattr *a)
{
	struct timespec mtime;
	int r;

	if (!created)
		return attr_get(m, n, a);
	*a = *made;
	r = newfile_store_attrs(m, path, a);
	if (r)
		return r;
	listing_add(&m->listing, path);
	/* its mtime (the create's, noted by open_node) is stored at its last close */
	mtime = ofile_mtime(n);
	newfile_shown(a, 0, &mtime);
	a->ino = n->ino;
	a->has_ino = true;
	return 0;
}

/* The name of n's holder: a directory's marker, or the file itself. */
static char *holder_name(struct mount *m, struct node *n)
{
	char *path = node_path(&m->nodes, n), *s;

	if (!path || !n->is_dir)
		return path;
	s = mount_marker_of(path);
	free(path);
	return s;
}

int attr_holder(struct mount *m, struct node *n, char **out)
{
	int r = n->is_dir ? 0 : drafts_make(m, n);

	*out = r ? NULL : holder_name(m, n);
	return r ? r : *out ? 0 : -ENOMEM;
}

int attr_ensure_marker(struct mount *m, const char *marker)
{
	struct striped_file *f = NULL;
	int r = striped_open(m->io, marker, STRIPED_CREATE, &m->o.layout, &f);

	striped_close(f);
	if (!r)
		listing_add(&m->listing, marker);
	return r;
}

/* A time utimens gives: now, or the value st has. */
static struct timespec time_given(int to_set, int now_bit, const struct timespec *given)
{
	return to_set & now_bit ? clock_wall() : *given;
}

/* What chmod, chown and utimens store (cur: the holder as it is, for the file's type). */
static void meta_of(const struct node *n, const struct mattr *cur, const struct stat *st,
		    int to_set, struct mattr *a)
{
	memset(a, 0, sizeof(*a));
	if (to_set & FUSE_SET_ATTR_MODE) {
		mode_t type = n->is_dir				   ? S_IFDIR
			      : cur->has_mode && S_ISLNK(cur->mode) ? S_IFLNK
								    : S_IFREG;
		a->mode = type | (st->st_mode & 07777);
		a->has_mode = true;
	}
	a->uid = (uint32_t)st->st_uid;
	a->has_uid = to_set & FUSE_SET_ATTR_UID;
	a->gid = (uint32_t)st->st_gid;
	a->has_gid = to_set & FUSE_SET_ATTR_GID;
	a->mtime = time_given(to_set, FUSE_SET_ATTR_MTIME_NOW, &st->st_mtim);
	a->has_mtime = to_set & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW);
	a->atime = time_given(to_set, FUSE_SET_ATTR_ATIME_NOW, &st->st_atim);
	a->has_atime = to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW);
	a->ctime = clock_wall();
	a->has_ctime = true;
}

/* The change a stored, and *after read behind it: one round trip. */
static int write_and_read(struct mount *m, struct node *n, const char *holder,
			  const struct mattr *a, struct mattr *after)
{
	struct heads_write *w;
	int r = heads_write_start(m->io, holder, a, &w), rr;

	if (r)
		return r;
	rr = attr_get(m, n, after);
	r = heads_write_wait(w);
	return r ? r : rr;
}

/* The file's type as the kernel was last told it (0: not yet), for a mode change. */
static mode_t known_type(const struct node *n)
{
	return n->is_dir ? S_IFDIR : (mode_t)atomic_load(&n->attr.mode) & S_IFMT;
}

int attr_set(struct mount *m, struct node *n, const struct stat *st, int to_set,
	     struct mattr *after)
{
	struct mattr cur = {.mode = known_type(n)}, a;
	char *holder;
	int r;

	cur.has_mode = cur.mode != 0;
	meta_of(n, &cur, st, to_set, &a);
	if (!n->is_dir && cur.has_mode && drafts_set_attrs(n, &a, after))
		return 0;
	r = attr_holder(m, n, &holder);
	if (!r && !cur.has_mode && !(r = heads_read(m->io, holder, &cur)))
		meta_of(n, &cur, st, to_set, &a);
	if (!r) {
		if (a.has_mtime) /* an open file stores its mtime at its last close: this one */
			ofile_set_mtime(n, &a.mtime);
		r = write_and_read(m, n, holder, &a, after);
		/* a directory of files alone has no marker yet: the first change makes it */
		if (r == -ENOENT && n->is_dir && !(r = attr_ensure_marker(m, holder)))
			r = write_and_read(m, n, holder, &a, after);
		if (!r && !n->is_dir) /* an open file's close stores a ctime no earlier */
			ofile_note_attr_change(n);
	}
	free(holder);
	return r;
}

int attr_kill_suid(struct mount *m, struct node *n)
{
	mode_t mode = (mode_t)atomic_load(&n->attr.mode);
	mode_t kill = (mode & S_ISUID) | ((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) ? S_ISGID : 0);
	struct mattr cur, a = {0};
	char *holder;
	int r;

	if (!kill)
		return 0;
	r = attr_holder(m, n, &holder);
	if (!r)
		r = heads_read(m->io, holder, &cur);
	if (!r && cur.has_mode && (cur.mode & kill)) {
		a.mode = cur.mode & ~kill;
		a.has_mode = true;
		a.ctime = clock_wall();
		a.has_ctime = true;
		r = heads_write(m->io, holder, &a);
	}
	if (!r) {
		seen_mode(n, mode & ~kill);
		node_changed(n);
		/* the kernel keeps the mode it was given: it asks again */
		fuse_lowlevel_notify_inval_inode(m->se, n->ino, -1, 0);
	}
	free(holder);
	return r;
}

void attr_seen_mode(struct node *n, mode_t mode)
{
	seen_mode(n, mode);
}
