// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names: lookup, attributes, directories (listed from the pool walk, their
 * entries' attributes read all in flight together for READDIRPLUS), mkdir
 * and rmdir of markers ("DIR/"), unlink. A name the kernel asks for and the
 * pool does not have is answered negative for cache_time, so a create-heavy
 * program does not walk the pool for every new name.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mount.h"

#define BLKSIZE (4u << 20)

static struct timespec mount_time;

void mount_stat(struct mount *m, struct node *n, const struct mattr *a, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	if (n->is_dir) {
		st->st_mode = S_IFDIR | (a->has_mode ? a->mode & 07777 : m->o.dir_mode);
		st->st_nlink = 2;
	} else {
		mode_t type = a->has_mode && S_ISLNK(a->mode) ? S_IFLNK : S_IFREG;

		st->st_mode = type | (a->has_mode ? a->mode & 07777 : m->o.file_mode);
		st->st_nlink = 1;
		st->st_size = (off_t)a->size;
		st->st_blocks = (blkcnt_t)((a->size + 511) / 512);
		atomic_store(&n->seen_size, a->size); /* what an open after it will read */
		node_saw_head(n, a);
	}
	st->st_uid = a->has_uid ? a->uid : m->o.uid;
	st->st_gid = a->has_gid ? a->gid : m->o.gid;
	st->st_blksize = BLKSIZE;
	st->st_mtim = a->mtime.tv_sec ? a->mtime : mount_time;
	st->st_atim = st->st_mtim;
	st->st_ctim = a->ctime.tv_sec ? a->ctime : st->st_mtim;
}

void mount_entry(struct mount *m, struct node *n, const struct mattr *a, struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = n->ino;
	e->attr_timeout = m->o.cache_time;
	e->entry_timeout = m->o.cache_time;
	mount_stat(m, n, a, &e->attr);
}

/* "path/": a directory's marker. */
static char *marker_of(const char *path)
{
	size_t len = strlen(path);
	char *s = malloc(len + 2);

	if (s) {
		memcpy(s, path, len);
		s[len] = '/';
		s[len + 1] = 0;
	}
	return s;
}

/* A directory's attributes: its marker's, or none (the defaults). */
static void dir_attrs(struct mount *m, const char *path, struct mattr *a)
{
	char *marker = marker_of(path); /* the root's is "/" */

	if (!marker || mattr_read(m->io, marker, a))
		memset(a, 0, sizeof(*a));
	free(marker);
}

void mount_merge_local(struct mount *m, struct node *n, struct mattr *a)
{
	struct timespec mtime;
	uint64_t size;

	if (!n->is_dir && ops_file_local(m, n, &size, &mtime)) {
		a->size = size;
		a->mtime = a->ctime = mtime;
	}
}

/*
 * A directory's attributes as last read here, when younger than cache_time
 * and not changed here since: the kernel forgets them at every create and
 * unlink in it, and asks again at the next name looked up below it, so a
 * program making or removing files one after another paid a round trip to
 * the marker for each (what another client changes shows within cache_time,
 * as in the kernel's own cache of them).
 */
static void dir_getattr_of(struct mount *m, struct node *n, const char *path, struct mattr *a)
{
	/* the count before the read: a change made during it makes that reading stale */
	uint64_t changes = atomic_load(&n->changes);
	double at = listing_now();
	bool kept;

	pthread_mutex_lock(&n->lock);
	kept = node_kept_attrs_locked(n, at, m->o.cache_time, a);
	pthread_mutex_unlock(&n->lock);
	if (kept)
		return;
	dir_attrs(m, path, a);
	pthread_mutex_lock(&n->lock);
	node_keep_attrs_locked(n, a, at, changes);
	pthread_mutex_unlock(&n->lock);
}

int mount_getattr(struct mount *m, struct node *n, struct mattr *a)
{
	char *path = node_path(&m->nodes, n);
	int r = 0;

	if (!path)
		return -ENOMEM;
	if (n->is_dir) {
		dir_getattr_of(m, n, path, a);
		goto out;
	}
	if (ops_file_kept_attrs(n, a)) /* a new file not made on RADOS yet */
		goto out;
	r = mattr_read(m->io, path, a);
	if (!r)
		mount_merge_local(m, n, a);
out:
	free(path);
	return r;
}

int mount_child_path(struct mount *m, fuse_ino_t parent, const char *name, char **out)
{
	struct node *p = node_get(&m->nodes, parent);
	char *dir, *s;
	size_t dl, nl = strlen(name);

	*out = NULL;
	if (nl > NAME_MAX)
		return -ENAMETOOLONG; /* FUSE lets up to 1024 through; statfs says 255 */
	if (!p)
		return -ENOENT;
	dir = node_path(&m->nodes, p);
	if (!dir)
		return -ENOMEM;
	dl = strlen(dir);
	if (dl + 1 + nl > m->name_max) {
		free(dir);
		return -ENAMETOOLONG;
	}
	s = malloc(dl + nl + 2);
	if (s) {
		memcpy(s, dir, dl);
		if (dl)
			s[dl++] = '/';
		memcpy(s + dl, name, nl + 1);
	}
	free(dir);
	*out = s;
	return s ? 0 : -ENOMEM;
}

/* Reply with the node of path (a directory or a file with attributes a). */
void mount_reply_node(fuse_req_t req, struct mount *m, const char *path, bool is_dir,
		      const struct mattr *a)
{
	struct fuse_entry_param e;
	struct node *n = node_lookup(&m->nodes, path, is_dir, 1);
	struct mattr merged = *a;

	if (!n) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	mount_merge_local(m, n, &merged); /* an open file's size is this mount's, not the head's */
	mount_entry(m, n, &merged, &e);
	if (fuse_reply_entry(req, &e) == -ENOENT)
		node_forget(&m->nodes, n->ino, 1);
}

/*
 * What path is, in one round trip: its head and its marker's ("path/") read
 * together. A marker makes it a directory, as do names below it in the
 * pool's walk (a directory of files alone; also over a file of its name).
 * The walk is taken as it is; only a name with neither head nor marker,
 * which it alone can tell, gets one older than cache_time refreshed in the
 * background meanwhile (a walk is a round trip to each placement group, one
 * after another, and it lists every object: a program looking up 10,000
 * files had one running all the time). a[0] gets a file's attributes, a[1]
 * a directory's.
 * @return 1 a directory, 0 a file, -ENOENT neither, or an error of the head
 */
static int lookup_kind(struct mount *m, const char *path, struct mattr a[2])
{
	char *marker;
	const char *names[2] = {path, NULL};
	int rv[2], r;

	if (ops_file_kept_path(m, path, &a[0])) /* a new file not made on RADOS yet */
		return 0;
	names[1] = marker = marker_of(path);
	r = marker ? mattr_read_many(m->io, names, 2, a, rv) : -ENOMEM;

	free(marker);
	if (r)
		return r;
	if (rv[0] && rv[1])
		listing_refresh_async(&m->listing, m->io, m->o.cache_time);
	/* the marker's own name in the walk says nothing: its read said it */
	if (rv[1] == 0 || rv[1] == -EUCLEAN || listing_has_children(&m->listing, path)) {
		if (rv[1]) /* no marker, or a damaged one: the defaults */
			memset(&a[1], 0, sizeof(a[1]));
		return 1;
	}
	if (rv[0] == 0)
		return 0;
	return rv[0] == -ENODATA ? -ENOENT : rv[0];
}

static void dir_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mount *m = mount_of(req);
	struct fuse_entry_param e;
	struct mattr a[2];
	char *path;
	int r = mount_child_path(m, parent, name, &path);

	if (r) {
		fuse_reply_err(req, -r);
		return;
	}
	r = lookup_kind(m, path, a);
	if (r >= 0) {
		mount_reply_node(req, m, path, r == 1, &a[r]);
	} else if (r != -ENOENT) {
		fuse_reply_err(req, mount_errno(r));
	} else {
		memset(&e, 0, sizeof(e)); /* negative, for cache_time */
		e.entry_timeout = m->o.cache_time;
		fuse_reply_entry(req, &e);
	}
	free(path);
}

static void dir_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	node_forget(&mount_of(req)->nodes, ino, nlookup);
	fuse_reply_none(req);
}

static void dir_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		node_forget(&mount_of(req)->nodes, forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void dir_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	struct stat st;
	struct mattr a;
	int r;

	(void)fi;
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	/* the kernel asks right after an open: what the open read is not older than that */
	r = !n->is_dir && ops_file_open_attrs(m, n, &a) ? 0 : mount_getattr(m, n, &a);
	if (r) {
		fuse_reply_err(req, mount_errno(r));
		return;
	}
	mount_stat(m, n, &a, &st);
	fuse_reply_attr(req, &st, m->o.cache_time);
}

/* Whether path names a file (a striped file's head) or a directory now. */
int mount_name_free(struct mount *m, const char *path)
{
	struct mattr a[2];
	int r = lookup_kind(m, path, a);

	return r >= 0 || r == -EUCLEAN ? -EEXIST : r == -ENOENT ? 0 : r;
}

/* Make the marker of directory path, with what differs from the defaults. */
static int make_marker(struct mount *m, fuse_req_t req, const char *path, mode_t mode,
		       struct mattr *a)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct striped_file *f = NULL;
	char *marker = marker_of(path);
	int r = marker ? 0 : -ENOMEM;

	if (!r && strlen(marker) > m->name_max)
		r = -ENAMETOOLONG;
	if (!r)
		r = striped_open(m->io, marker, STRIPED_CREATE | STRIPED_EXCL, &m->o.layout, &f);
	striped_close(f);
	memset(a, 0, sizeof(*a));
	a->mode = S_IFDIR | (mode & 07777);
	a->uid = ctx->uid;
	a->gid = ctx->gid;
	a->has_mode = (mode & 07777) != m->o.dir_mode;
	a->has_uid = ctx->uid != m->o.uid;
	a->has_gid = ctx->gid != m->o.gid;
	if (!r && (a->has_mode || a->has_uid || a->has_gid))
		r = mattr_write(m->io, marker, a);
	if (!r)
		listing_add(&m->listing, marker);
	a->has_mode = a->has_uid = a->has_gid = true;
	clock_gettime(CLOCK_REALTIME, &a->mtime);
	a->ctime = a->mtime;
	free(marker);
	return r;
}

static void dir_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct mount *m = mount_of(req);
	struct mattr a;
	char *path;
	int r = mount_child_path(m, parent, name, &path);

	if (!r)
		r = mount_name_free(m, path);
	if (!r)
		r = make_marker(m, req, path, mode, &a);
	if (r)
		fuse_reply_err(req, mount_errno(r));
	else
		mount_reply_node(req, m, path, true, &a);
	free(path);
}

static void dir_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mount *m = mount_of(req);
	char *path, *marker = NULL;
	int r = mount_child_path(m, parent, name, &path);

	if (!r)
		r = listing_refresh(&m->listing, m->io, m->o.cache_time);
	if (!r && !listing_is_dir(&m->listing, path))
		r = -ENOENT;
	if (!r && listing_has_children(&m->listing, path))
		r = -ENOTEMPTY;
	if (!r && !(marker = marker_of(path)))
		r = -ENOMEM;
	if (!r) {
		r = striped_remove(m->io, marker);
		if (r == -ENOENT)
			r = 0; /* a directory implied by files that are gone meanwhile */
		listing_remove(&m->listing, marker);
		node_detach(&m->nodes, path);
	}
	fuse_reply_err(req, mount_errno(r));
	free(marker);
	free(path);
}

/*
 * A small file removed as this mount last read it, in one operation
 * (striped_head_remove()): -ECANCELED when it is not as read, was not read,
 * is held, or does not live in its head alone (striped_remove() it then).
 */
static int remove_as_seen(struct mount *m, const char *path)
{
	struct node *n = node_find_ref(&m->nodes, path);
	struct striped_head h;
	bool seen = n && !n->is_dir && node_seen_head(n, &h);
	int r;

	if (n)
		node_forget(&m->nodes, n->ino, 1);
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

static void dir_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mount *m = mount_of(req);
	char *path;
	int r = mount_child_path(m, parent, name, &path);
	struct node *kept = r ? NULL : ops_file_hold_kept(m, path);

	if (!r)
		r = remove_file(m, path);
	if (r == -ENOENT && ops_file_held_kept(kept))
		r = 0; /* a new file not made on RADOS yet: never will be */
	if (!r || r == -ENOENT) {
		listing_remove(&m->listing, path);
		node_detach(&m->nodes, path); /* under the kept file's lock: its flush makes nothing */
	}
	ops_file_release_kept(m, kept);
	fuse_reply_err(req, mount_errno(r));
	free(path);
}

void ops_dir_init(struct fuse_lowlevel_ops *ops)
{
	clock_gettime(CLOCK_REALTIME, &mount_time);
	ops->lookup = dir_lookup;
	ops->forget = dir_forget;
	ops->forget_multi = dir_forget_multi;
	ops->getattr = dir_getattr;
	ops->mkdir = dir_mkdir;
	ops->rmdir = dir_rmdir;
	ops->unlink = dir_unlink;
	ops_readdir_init(ops);
}
