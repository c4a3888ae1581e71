// SPDX-License-Identifier: LGPL-2.1-or-later
/* FUSE's attribute requests: setattr, statfs and the extended attributes. */
#include <errno.h>
#include <stdlib.h>

#include "attr.h"
#include "ll.h"
#include "open.h"
#include "reply.h"
#include "xattr.h"

#define META_SET                                                                         \
	(FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID | FUSE_SET_ATTR_MTIME | \
	 FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW)

/* What setattr asks of n: its size (truncate), then its mode, owner and times; *a after. */
static int set_attrs(struct mount *m, struct node *n, struct stat *attr, int to_set,
		     struct mattr *a)
{
	char *path = node_path(&m->nodes, n);
	int r = path ? 0 : -ENOMEM;

	node_changed(n);
	if (!r && (to_set & FUSE_SET_ATTR_SIZE))
		r = n->is_dir ? -EISDIR : open_truncate(m, n, path, (uint64_t)attr->st_size);
	free(path);
	if (!r && (to_set & META_SET))
		return attr_set(m, n, attr, to_set, a);
	return r ? r : attr_get(m, n, a);
}

static void attr_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			 struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	struct mattr a;
	int r = n ? set_attrs(m, n, attr, to_set, &a) : -ENOENT;

	(void)fi;
	if (n)
		reply_attr(req, m, n, &a, r);
	else
		fuse_reply_err(req, ENOENT);
	node_put(&m->nodes, n);
}

static void attr_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct mount *m = mount_of(req);
	struct statvfs sv;
	int r = mount_statfs(m, &sv);

	(void)ino;
	if (r)
		fuse_reply_err(req, -r);
	else
		fuse_reply_statfs(req, &sv);
}

static void attr_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	char *buf = size ? malloc(size) : NULL;
	ssize_t r = !n ? -ENOENT : size && !buf ? -ENOMEM : xattr_get(m, n, name, buf, size);

	if (r < 0)
		fuse_reply_err(req, xattr_errno(r));
	else if (!size)
		fuse_reply_xattr(req, (size_t)r);
	else
		fuse_reply_buf(req, buf, (size_t)r);
	free(buf);
	node_put(&m->nodes, n);
}

static void attr_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	char *buf = NULL;
	ssize_t r = n ? xattr_list(m, n, size, &buf) : -ENOENT;

	if (r < 0)
		fuse_reply_err(req, xattr_errno(r));
	else if (!size)
		fuse_reply_xattr(req, (size_t)r);
	else
		fuse_reply_buf(req, buf, (size_t)r);
	free(buf);
	node_put(&m->nodes, n);
}

static void attr_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			  size_t size, int flags)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	int r = n ? xattr_set(m, n, name, value, size, flags) : -ENOENT;

	fuse_reply_err(req, xattr_errno(r));
	node_put(&m->nodes, n);
}

static void attr_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	int r = n ? xattr_remove(m, n, name) : -ENOENT;

	fuse_reply_err(req, xattr_errno(r));
	node_put(&m->nodes, n);
}

void ll_attr_init(struct fuse_lowlevel_ops *ops)
{
	ops->setattr = attr_setattr;
	ops->statfs = attr_statfs;
	ops->getxattr = attr_getxattr;
	ops->listxattr = attr_listxattr;
	ops->setxattr = attr_setxattr;
	ops->removexattr = attr_removexattr;
}
