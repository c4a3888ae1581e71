// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names (tree.h). A name the kernel asks for and the pool does not have is
 * answered negative for cache_time (ll/), so a create-heavy program does
 * not read the pool for every new name twice.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "clock.h"
#include "drafts.h"
#include "heads.h"
#include "newfile.h"
#include "open.h"
#include "tree.h"
#include "unlinked.h"

/*
 * A marker makes path a directory, as do names below it in the pool's walk
 * (a directory of files alone; also over a file of its name). The walk is
 * taken as it is; only a name with neither head nor marker, which it alone
 * can tell, gets one older than cache_time refreshed in the background
 * meanwhile (a walk is a round trip to each placement group, one after
 * another, and it lists every object: a program looking up 10,000 files
 * had one running all the time).
 */
/* What path is from its head's and its marker's readings (rv[0], rv[1]: tree_lookup()'s). */
static int lookup_decide(struct mount *m, const char *path, struct mattr a[2], const int rv[2])
{
	if (rv[0] && rv[1])
		listing_refresh_parent(&m->listing, m->io, path, m->o.cache_time, false);
	/* the marker's own name in the walk says nothing: its read said it */
	if (rv[1] == 0 || rv[1] == -EUCLEAN || listing_dir_exists(&m->listing, path)) {
		if (rv[1]) /* no marker, or a damaged one: the defaults */
			memset(&a[1], 0, sizeof(a[1]));
		return 1;
	}
	if (rv[0] == 0)
		return 0;
	return rv[0] == -ENODATA ? -ENOENT : rv[0];
}

/* What path is without RADOS: 0 a draft's, -ENOENT unlinked here while open; 1: read it. */
static int lookup_local(struct mount *m, const char *path, struct mattr a[2])
{
	if (drafts_attrs_at(m, path, &a[0])) /* a draft: not on RADOS yet */
		return 0;
	if (unlinked_is(m, path))
		return -ENOENT;
	return 1;
}

int tree_lookup2(struct mount *m, const char *p0, struct mattr a0[2], int *r0, const char *p1,
		 struct mattr a1[2], int *r1)
{
	const char *paths[2] = {p0, p1}, *names[4];
	struct mattr *as[2] = {a0, a1}, got[4];
	int *rs[2] = {r0, r1}, rv[4], r = 0;
	char *markers[2] = {NULL, NULL};
	size_t k = 0, at[2];

	for (int i = 0; i < 2; i++) {
		*rs[i] = lookup_local(m, paths[i], as[i]);
		if (*rs[i] != 1)
			continue;
		if (!(markers[i] = mount_marker_of(paths[i])))
			r = -ENOMEM;
		at[i] = k;
		names[k++] = paths[i];
		names[k++] = markers[i];
	}
	if (!r && k)
		r = heads_read_many(m->io, names, k, got, rv);
	for (int i = 0; !r && i < 2; i++) {
		if (*rs[i] != 1)
			continue;
		as[i][0] = got[at[i]];
		as[i][1] = got[at[i] + 1];
		*rs[i] = lookup_decide(m, paths[i], as[i], rv + at[i]);
	}
	free(markers[0]);
	free(markers[1]);
	return r;
}

int tree_lookup(struct mount *m, const char *path, struct mattr a[2])
{
	const char *names[2] = {path, NULL};
	char *marker;
	int rv[2], r = lookup_local(m, path, a);

	if (r != 1)
		return r;
	names[1] = marker = mount_marker_of(path);
	r = marker ? heads_read_many(m->io, names, 2, a, rv) : -ENOMEM;
	free(marker);
	return r ? r : lookup_decide(m, path, a, rv);
}

int tree_name_free(struct mount *m, const char *path)
{
	struct mattr a[2];
	int r = tree_lookup(m, path, a);

	if (r >= 0 || r == -EUCLEAN)
		return -EEXIST;
	return r == -ENOENT ? unlinked_claim(m, path) : r;
}

/* A made file's or marker's attributes as a stat says them, with its inode number. */
static void shown(struct mattr *a, size_t len, const struct timespec *at, uint64_t ino)
{
	newfile_shown(a, len, at);
	a->ino = ino;
	a->has_ino = true;
}

int tree_mkdir(struct mount *m, const struct caller *c, const char *path, mode_t mode,
	       struct mattr *a)
{
	struct timespec at = clock_wall();
	uint64_t ino = newfile_ino();
	char *marker = NULL;
	int r = tree_name_free(m, path);

	newfile_attrs(m, c, S_IFDIR | (mode & 07777), a);
	if (!r && !(marker = mount_marker_of(path)))
		r = -ENOMEM;
	if (!r && strlen(marker) > m->name_max)
		r = -ENAMETOOLONG;
	if (!r)
		r = newfile_make_whole(m, marker, a, NULL, 0, &at, ino, NULL);
	if (!r)
		listing_add(&m->listing, marker);
	if (!r)
		listing_dir_made(&m->listing, path);
	shown(a, 0, &at, ino);
	free(marker);
	return r;
}

int tree_rmdir(struct mount *m, const char *path)
{
	char *marker = NULL;
	int r = listing_refresh_parent(&m->listing, m->io, path, m->o.cache_time, true);

	if (!r) /* its own names, to tell whether it is empty */
		r = listing_refresh_dir(&m->listing, m->io, path, m->o.cache_time);
	if (!r && !listing_is_dir(&m->listing, path))
		r = -ENOENT;
	if (!r && listing_has_children(&m->listing, path))
		r = -ENOTEMPTY;
	if (!r && !(marker = mount_marker_of(path)))
		r = -ENOMEM;
	if (!r) {
		r = striped_remove(m->io, marker);
		if (r == -ENOENT)
			r = 0; /* a directory implied by files that are gone meanwhile */
		listing_remove(&m->listing, marker);
		node_detach(&m->nodes, path);
	}
	free(marker);
	return r;
}

/*
 * A small file removed as this mount last read it, in one operation
 * (striped_head_remove()): -ECANCELED when it is not as read, was not read,
 * is held, or does not live in its head alone (striped_remove() it then).
 */
static int remove_as_seen(struct mount *m, const char *path)
{
	struct node *n = node_at(&m->nodes, path);
	struct striped_head h;
	bool seen = n && !n->is_dir && attr_seen_head(n, &h);
	int r;

	node_put(&m->nodes, n);
	if (!seen)
		return -ECANCELED;
	r = striped_head_remove(m->io, path, &h, sizeof(h));
	return r == -EINVAL ? -ECANCELED : r; /* -EINVAL: not in its head alone */
}

/* The file path removed on RADOS: as last read here, else by name. */
static int remove_file(struct mount *m, const char *path)
{
	int r = remove_as_seen(m, path);

	return r == -ECANCELED ? striped_remove(m->io, path) : r;
}

/* 1 when path is a file open here, which stays until its last close (unlinked.h). */
static int unlink_open(struct mount *m, const char *path)
{
	struct node *n = node_at(&m->nodes, path);
	int r = n && !n->is_dir ? open_unlink(m, n, path) : 0;

	if (r == 1)
		node_detach(&m->nodes, path);
	node_put(&m->nodes, n);
	return r;
}

int tree_unlink(struct mount *m, const char *path)
{
	int r = unlink_open(m, path);
	struct node *held;

	if (r)
		return r < 0 ? r : 0;
	held = drafts_hold(m, path);
	r = remove_file(m, path);
	if (r == -ENOENT && drafts_held(held))
		r = 0; /* a draft: never made now */
	if (!r || r == -ENOENT) {
		listing_remove(&m->listing, path);
		node_detach(&m->nodes, path); /* under the draft's lock: its flush makes nothing */
	}
	drafts_release(m, held);
	return r;
}

int tree_make_file(struct mount *m, const struct caller *c, const char *path, mode_t mode,
		   const char *bytes, struct mattr *a)
{
	size_t len = bytes ? strlen(bytes) : 0;
	struct timespec made = clock_wall();
	uint64_t ino = newfile_ino();
	int r = tree_name_free(m, path);

	newfile_attrs(m, c, mode, a);
	/*
	 * Its time stored with its mode and bytes, in the one operation that
	 * makes it: nothing opens a symlink to store one at its close, and
	 * without one it would show its head's RADOS mtime (whole seconds),
	 * which every readlink moved (the lock libstriped takes is a write to
	 * the head). rsync -a then saw a symlink it made in the second its
	 * source was made as changed: it skips lutimes when the seconds agree,
	 * its next run compares again.
	 */
	if (!r)
		r = newfile_make_whole(m, path, a, bytes, len, &made, ino, NULL);
	if (!r)
		listing_add(&m->listing, path);
	shown(a, len, &made, ino);
	return r;
}

ssize_t tree_readlink(struct mount *m, const char *path, char *buf, size_t len)
{
	struct striped_file *f = NULL;
	struct striped_head h;
	/*
	 * One operation on the head, no lock taken (a stripe unit is at least
	 * 64 KiB: the target is all there); through a handle, which waits,
	 * while a truncate or remove holds the lock.
	 */
	ssize_t r = striped_head_pread(m->io, path, &h, sizeof(h), buf, len, 0);

	if (r != -EBUSY)
		return r;
	r = striped_open(m->io, path, 0, NULL, &f);
	if (!r)
		r = striped_read(f, buf, len, 0);
	striped_close(f);
	return r;
}
