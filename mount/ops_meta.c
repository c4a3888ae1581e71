// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Everything else: setattr (size through libstriped's truncate; mode,
 * owner and times on the head as the mount's xattrs), statfs, the user.
 * xattrs (libstriped's, on the head), symlinks kept as s3fs keeps them (a
 * file whose bytes are the target, its mode saying S_IFLNK), and what RADOS
 * cannot do (hard links, devices) refused with EPERM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "mount.h"

#define LINK_MAX_BYTES 4096

/* The name of n's holder: a directory's marker, or the file itself. */
static char *holder_name(struct mount *m, struct node *n)
{
	char *path = node_path(&m->nodes, n), *s;
	size_t len;

	if (!path || !n->is_dir)
		return path;
	len = strlen(path);
	s = realloc(path, len + 2);
	if (!s) {
		free(path);
		return NULL;
	}
	s[len] = '/';
	s[len + 1] = 0;
	return s;
}

/*
 * The striped file that holds n's attributes (*out: its name): the file,
 * made on RADOS first when it is a new one kept in the daemon, or a
 * directory's marker.
 */
static int attr_holder(struct mount *m, struct node *n, char **out)
{
	int r = n->is_dir ? 0 : ops_file_make(m, n);

	*out = r ? NULL : holder_name(m, n);
	return r ? r : *out ? 0 : -ENOMEM;
}

/* A directory's marker, made when it has none yet (a directory of files alone). */
static int ensure_marker(struct mount *m, const char *marker)
{
	struct striped_file *f = NULL;
	int r = striped_open(m->io, marker, STRIPED_CREATE, &m->o.layout, &f);

	striped_close(f);
	if (!r)
		listing_add(&m->listing, marker);
	return r;
}

static void now(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

/* chmod, chown, utimens: the values given, stored in one write. */
static int set_meta(struct mount *m, struct node *n, const struct stat *st, int to_set)
{
	struct mattr cur, a = {0};
	char *holder;
	int r = attr_holder(m, n, &holder);

	if (!r && n->is_dir)
		r = ensure_marker(m, holder);
	if (!r && (r = mattr_read(m->io, holder, &cur)))
		goto out;
	if (to_set & FUSE_SET_ATTR_MODE) {
		mode_t type = n->is_dir				  ? S_IFDIR
			      : cur.has_mode && S_ISLNK(cur.mode) ? S_IFLNK
								  : S_IFREG;
		a.mode = type | (st->st_mode & 07777);
		a.has_mode = true;
	}
	a.uid = (uint32_t)st->st_uid;
	a.has_uid = to_set & FUSE_SET_ATTR_UID;
	a.gid = (uint32_t)st->st_gid;
	a.has_gid = to_set & FUSE_SET_ATTR_GID;
	if (to_set & FUSE_SET_ATTR_MTIME_NOW)
		now(&a.mtime);
	else
		a.mtime = st->st_mtim;
	a.has_mtime = to_set & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW);
	now(&a.ctime);
	a.has_ctime = true;
	if (a.has_mtime) /* an open file stores its mtime at its last close: this one */
		ops_file_set_mtime(n, &a.mtime);
	r = mattr_write(m->io, holder, &a);
out:
	free(holder);
	return r;
}

static void meta_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			 struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	struct mattr a;
	struct stat st;
	char *path = n ? node_path(&m->nodes, n) : NULL;
	int r = !n ? -ENOENT : !path ? -ENOMEM : 0;

	(void)fi;
	if (n)
		atomic_fetch_add(&n->changes, 1);
	if (!r && (to_set & FUSE_SET_ATTR_SIZE))
		r = n->is_dir ? -EISDIR : ops_file_truncate(m, n, path, (uint64_t)attr->st_size);
	if (!r && (to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID |
			     FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW)))
		r = set_meta(m, n, attr, to_set);
	if (!r)
		r = mount_getattr(m, n, &a);
	free(path);
	if (r) {
		fuse_reply_err(req, mount_errno(r));
		return;
	}
	mount_stat(m, n, &a, &st);
	fuse_reply_attr(req, &st, m->o.cache_time);
}

static void meta_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct mount *m = mount_of(req);
	struct rados_cluster_stat_t cs;
	struct rados_pool_stat_t ps;
	struct statvfs sv;
	int r = rados_cluster_stat(m->cluster, &cs);

	(void)ino;
	if (!r)
		r = rados_ioctx_pool_stat(m->io, &ps);
	if (r) {
		fuse_reply_err(req, -r);
		return;
	}
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = sv.f_frsize = 4096;
	sv.f_blocks = cs.kb / 4;
	sv.f_bfree = sv.f_bavail = cs.kb_avail / 4;
	sv.f_files = ps.num_objects + cs.kb_avail / 4;
	sv.f_ffree = sv.f_favail = cs.kb_avail / 4;
	sv.f_namemax = 255;
	fuse_reply_statfs(req, &sv);
}

/* The value of user xattr name on holder: its length, copied into buf when it fits. */
static ssize_t find_xattr(struct mount *m, const char *holder, const char *name, char *buf,
			  size_t size)
{
	struct striped_xattrs *it = NULL;
	const char *k;
	const void *v;
	size_t len;
	ssize_t r = striped_head_getxattrs(m->io, holder, &it);

	if (r == -ENOENT || r == -ENODATA)
		r = -ENODATA; /* a directory without a marker has none */
	while (!r && !(r = striped_getxattrs_next(it, &k, &v, &len)) && k) {
		if (strcmp(k, name))
			continue;
		r = (ssize_t)len;
		if (size && len > size)
			r = -ERANGE;
		else if (size && len)
			memcpy(buf, v, len);
		break;
	}
	if (!r && !k)
		r = -ENODATA;
	striped_getxattrs_end(it);
	return r;
}

/* ENODATA is an answer here ("no such attribute"), not a head that is no striped file. */
static int xattr_errno(ssize_t r)
{
	return r == -ENODATA ? ENODATA : mount_errno((int)r);
}

static bool user_xattr(const char *name)
{
	return !strncmp(name, "user.", 5);
}

static void meta_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	char *holder = NULL, *buf = NULL;
	ssize_t r = -ENODATA; /* other namespaces (security., system.): never any */

	if (!n)
		r = -ENOENT;
	else if (user_xattr(name))
		r = attr_holder(m, n, &holder);
	if (holder && size && !(buf = malloc(size)))
		r = -ENOMEM;
	else if (holder)
		r = find_xattr(m, holder, name, buf, size);
	if (r < 0)
		fuse_reply_err(req, xattr_errno(r));
	else if (!size)
		fuse_reply_xattr(req, (size_t)r);
	else
		fuse_reply_buf(req, buf, (size_t)r);
	free(buf);
	free(holder);
}

static void meta_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	struct striped_xattrs *it = NULL;
	char *holder = NULL, *buf = NULL;
	size_t used = 0, len;
	const char *k;
	const void *v;
	int r = !n ? -ENOENT : attr_holder(m, n, &holder);

	if (!r)
		r = striped_head_getxattrs(m->io, holder, &it);

	if (r == -ENOENT && n && n->is_dir)
		r = 0; /* no marker: no xattrs */
	while (!r && it && !(r = striped_getxattrs_next(it, &k, &v, &len)) && k) {
		size_t kl = strlen(k) + 1;
		char *p;

		if (!user_xattr(k))
			continue;
		if (size && used + kl > size) {
			r = -ERANGE;
			break;
		}
		if (!(p = realloc(buf, used + kl))) {
			r = -ENOMEM;
			break;
		}
		buf = p;
		memcpy(buf + used, k, kl);
		used += kl;
	}
	if (r)
		fuse_reply_err(req, xattr_errno(r));
	else if (!size)
		fuse_reply_xattr(req, used);
	else
		fuse_reply_buf(req, buf, used);
	striped_getxattrs_end(it);
	free(buf);
	free(holder);
}

/* Open holder for a moment and set or remove one xattr (value NULL: remove). */
static int change_xattr(struct mount *m, struct node *n, const char *holder, const char *name,
			const char *value, size_t size)
{
	struct striped_file *f = NULL;
	int r = n->is_dir ? ensure_marker(m, holder) : 0;

	if (!r)
		r = striped_open(m->io, holder, 0, NULL, &f);
	if (!r)
		r = value ? striped_setxattr(f, name, value, size) : striped_rmxattr(f, name);
	striped_close(f);
	return r;
}

static void meta_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			  size_t size, int flags)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	char *holder = NULL;
	ssize_t had;
	int r = !n ? -ENOENT : !user_xattr(name) ? -ENOTSUP : 0;

	if (!r)
		r = attr_holder(m, n, &holder);
	if (!r && (flags & (XATTR_CREATE | XATTR_REPLACE))) {
		had = find_xattr(m, holder, name, NULL, 0);
		if (had < 0 && had != -ENODATA)
			r = (int)had;
		else if ((flags & XATTR_CREATE) && had >= 0)
			r = -EEXIST;
		else if ((flags & XATTR_REPLACE) && had < 0)
			r = -ENODATA;
	}
	if (!r)
		r = change_xattr(m, n, holder, name, value ? value : "", size);
	fuse_reply_err(req, xattr_errno(r));
	free(holder);
}

static void meta_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	char *holder = NULL;
	ssize_t had;
	int r = !n ? -ENOENT : !user_xattr(name) ? -ENODATA : 0;

	if (!r)
		r = attr_holder(m, n, &holder);
	if (!r && (had = find_xattr(m, holder, name, NULL, 0)) < 0)
		r = (int)had;
	if (!r)
		r = change_xattr(m, n, holder, name, NULL, 0);
	fuse_reply_err(req, xattr_errno(r));
	free(holder);
}

/* A new striped file at path holding bytes (a symlink's target, or nothing). */
static int make_file(struct mount *m, fuse_req_t req, const char *path, mode_t mode,
		     const char *bytes, struct mattr *a)
{
	size_t len = bytes ? strlen(bytes) : 0;
	struct timespec made;
	int r = mount_name_free(m, path);

	now(&made);
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
		r = ops_file_make_whole(m, req, path, mode, bytes, len, &made);
	if (!r)
		listing_add(&m->listing, path);
	memset(a, 0, sizeof(*a));
	a->size = len;
	a->mode = mode;
	a->uid = fuse_req_ctx(req)->uid;
	a->gid = fuse_req_ctx(req)->gid;
	a->has_mode = a->has_uid = a->has_gid = true;
	a->mtime = a->ctime = made;
	return r;
}

static void meta_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	struct mount *m = mount_of(req);
	struct mattr a;
	char *path;
	int r = strlen(link) >= LINK_MAX_BYTES ? -ENAMETOOLONG
					       : mount_child_path(m, parent, name, &path);

	if (r) {
		fuse_reply_err(req, -r);
		return;
	}
	r = make_file(m, req, path, S_IFLNK | 0777, link, &a);
	if (r)
		fuse_reply_err(req, mount_errno(r));
	else
		mount_reply_node(req, m, path, false, &a);
	free(path);
}

/*
 * A symlink's target, read from its head in one operation, no lock taken
 * (a stripe unit is at least 64 KiB: the target is all there); through a
 * handle, which waits, while a truncate or remove holds the lock.
 */
static ssize_t read_link(struct mount *m, const char *path, char *buf, size_t len)
{
	struct striped_file *f = NULL;
	struct striped_head h;
	ssize_t r = striped_head_pread(m->io, path, &h, sizeof(h), buf, len, 0);

	if (r != -EBUSY)
		return r;
	r = striped_open(m->io, path, 0, NULL, &f);
	if (!r)
		r = striped_read(f, buf, len, 0);
	striped_close(f);
	return r;
}

static void meta_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	char *path = n ? node_path(&m->nodes, n) : NULL;
	char buf[LINK_MAX_BYTES];
	ssize_t r = !n ? -ENOENT : !path ? -ENOMEM : 0;

	if (!r)
		r = read_link(m, path, buf, sizeof(buf) - 1);
	free(path);
	if (r < 0) {
		fuse_reply_err(req, mount_errno((int)r));
		return;
	}
	buf[r] = 0;
	fuse_reply_readlink(req, buf);
}

static void meta_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	struct mount *m = mount_of(req);
	struct mattr a;
	char *path = NULL;
	int r = S_ISREG(mode) ? mount_child_path(m, parent, name, &path) : -EPERM;

	(void)rdev;
	if (!r)
		r = make_file(m, req, path, S_IFREG | (mode & 07777), NULL, &a);
	if (r)
		fuse_reply_err(req, mount_errno(r));
	else
		mount_reply_node(req, m, path, false, &a);
	free(path);
}

static void meta_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	(void)ino;
	(void)newparent;
	(void)newname;
	fuse_reply_err(req, EPERM); /* an object has one name */
}

void ops_meta_init(struct fuse_lowlevel_ops *ops)
{
	ops->setattr = meta_setattr;
	ops->statfs = meta_statfs;
	ops->getxattr = meta_getxattr;
	ops->listxattr = meta_listxattr;
	ops->setxattr = meta_setxattr;
	ops->removexattr = meta_removexattr;
	ops->symlink = meta_symlink;
	ops->readlink = meta_readlink;
	ops->mknod = meta_mknod;
	ops->link = meta_link;
	ops->rename = mount_rename;
}
