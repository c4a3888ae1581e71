// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * FUSE's name requests: lookup, forget, getattr, mkdir, rmdir, unlink,
 * rename, symlink, readlink, mknod, link.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "ll.h"
#include "rename.h"
#include "reply.h"
#include "tree.h"

#define LINK_MAX_BYTES 4096

static void name_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mount *m = mount_of(req);
	struct mattr a[2];
	char *path;
	int r = mount_child_path(m, parent, name, &path);

	if (r) {
		fuse_reply_err(req, -r);
		return;
	}
	r = tree_lookup(m, path, a);
	if (r >= 0)
		reply_node(req, m, path, r == 1, &a[r]);
	else if (r != -ENOENT)
		fuse_reply_err(req, mount_errno(r));
	else
		reply_negative(req, m);
	free(path);
}

static void name_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	node_forget(&mount_of(req)->nodes, ino, nlookup);
	fuse_reply_none(req);
}

static void name_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		node_forget(&mount_of(req)->nodes, forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void name_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	struct mattr a;
	int r;

	(void)fi;
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	/* the kernel asks right after an open: what the open read is not older than that */
	r = !n->is_dir && attr_open_reading(m, n, &a) ? 0 : attr_get(m, n, &a);
	reply_attr(req, m, n, &a, r);
	node_put(&m->nodes, n);
}

static void name_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct mount *m = mount_of(req);
	struct caller c = reply_caller(req);
	struct mattr a;
	char *path;
	int r = mount_child_path(m, parent, name, &path);

	if (!r)
		r = tree_mkdir(m, &c, path, mode, &a);
	if (r)
		fuse_reply_err(req, mount_errno(r));
	else
		reply_node(req, m, path, true, &a);
	free(path);
}

static void name_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mount *m = mount_of(req);
	char *path;
	int r = mount_child_path(m, parent, name, &path);

	if (!r)
		r = tree_rmdir(m, path);
	fuse_reply_err(req, mount_errno(r));
	free(path);
}

static void name_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mount *m = mount_of(req);
	char *path;
	int r = mount_child_path(m, parent, name, &path);

	if (!r)
		r = tree_unlink(m, path);
	fuse_reply_err(req, mount_errno(r));
	free(path);
}

static void name_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
			const char *newname, unsigned int flags)
{
	struct mount *m = mount_of(req);
	char *from = NULL, *to = NULL;
	int r = mount_child_path(m, parent, name, &from);

	if (!r)
		r = mount_child_path(m, newparent, newname, &to);
	if (!r)
		r = rename_path(m, from, to, flags);
	fuse_reply_err(req, mount_errno(r));
	free(from);
	free(to);
}

/* A symlink or an empty file made whole at name in parent, and its entry replied. */
static void make_file(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      const char *bytes)
{
	struct mount *m = mount_of(req);
	struct caller c = reply_caller(req);
	struct mattr a;
	char *path;
	int r = mount_child_path(m, parent, name, &path);

	if (!r)
		r = tree_make_file(m, &c, path, mode, bytes, &a);
	if (r)
		fuse_reply_err(req, mount_errno(r));
	else
		reply_node(req, m, path, false, &a);
	free(path);
}

static void name_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	if (strlen(link) >= LINK_MAX_BYTES)
		fuse_reply_err(req, ENAMETOOLONG);
	else
		make_file(req, parent, name, S_IFLNK | 0777, link);
}

static void name_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	char *path = n ? node_path(&m->nodes, n) : NULL;
	char buf[LINK_MAX_BYTES];
	ssize_t r = !n ? -ENOENT : !path ? -ENOMEM : 0;

	node_put(&m->nodes, n);
	if (!r)
		r = tree_readlink(m, path, buf, sizeof(buf) - 1);
	free(path);
	if (r < 0) {
		fuse_reply_err(req, mount_errno((int)r));
		return;
	}
	buf[r] = 0;
	fuse_reply_readlink(req, buf);
}

static void name_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		       dev_t rdev)
{
	(void)rdev;
	if (!S_ISREG(mode))
		fuse_reply_err(req, EPERM); /* FIFOs, sockets, devices: RADOS has none */
	else
		make_file(req, parent, name, S_IFREG | (mode & 07777), NULL);
}

static void name_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	(void)ino;
	(void)newparent;
	(void)newname;
	fuse_reply_err(req, EPERM); /* an object has one name */
}

void ll_name_init(struct fuse_lowlevel_ops *ops)
{
	ops->lookup = name_lookup;
	ops->forget = name_forget;
	ops->forget_multi = name_forget_multi;
	ops->getattr = name_getattr;
	ops->mkdir = name_mkdir;
	ops->rmdir = name_rmdir;
	ops->unlink = name_unlink;
	ops->rename = name_rename;
	ops->symlink = name_symlink;
	ops->readlink = name_readlink;
	ops->mknod = name_mknod;
	ops->link = name_link;
}
