// SPDX-License-Identifier: LGPL-2.1-or-later
/* FUSE's directory requests: opendir, readdir, readdirplus, releasedir. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "dirlist.h"
#include "ll.h"
#include "reply.h"

/* readdir(3) skips entries whose number is 0: an unknown number is this one. */
#define INO_UNKNOWN 0xffffffff

static struct dirlist *dirlist_of(struct fuse_file_info *fi)
{
	return (struct dirlist *)(uintptr_t)fi->fh;
}

static void dir_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	struct dirlist *h = NULL;
	int r = n ? dirlist_open(m, n, &h) : -ENOENT;

	node_put(&m->nodes, n);
	if (r) {
		fuse_reply_err(req, -r);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	if (fuse_reply_open(req, fi) == -ENOENT)
		dirlist_free(h);
}

static void dir_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	dirlist_free(dirlist_of(fi));
	fuse_reply_err(req, 0);
}

/* An entry whose head is damaged: a name without attributes, its lookup says EIO. */
static size_t add_damaged(fuse_req_t req, const char *name, char *buf, size_t room, off_t next)
{
	struct fuse_entry_param e;
	size_t len;

	memset(&e, 0, sizeof(e));
	e.attr.st_mode = S_IFREG;
	e.attr.st_ino = INO_UNKNOWN;
	len = fuse_add_direntry_plus(req, buf, room, name, &e, next);
	return len <= room ? len : 0;
}

/* Add entry i with attributes a to buf; returns the bytes it took, 0 when it did not fit. */
static size_t add_plus(fuse_req_t req, struct mount *m, struct dirlist *h, long i,
		       struct mattr *a, char *buf, size_t room, off_t next)
{
	struct fuse_entry_param e;
	char *path = dirlist_path(h, i);
	struct node *n = path ? node_make(&m->nodes, path, dirlist_is_dir(h, i), mattr_ino(a)) : NULL;
	size_t len = 0;

	free(path);
	if (!n)
		return 0;
	attr_merge_local(m, n, a);
	reply_entry_fill(m, n, a, &e);
	len = fuse_add_direntry_plus(req, buf, room, dirlist_name(h, i), &e, next);
	if (len <= room)
		node_kernel_ref(&m->nodes, n); /* the kernel now holds a lookup of it */
	node_put(&m->nodes, n);
	return len <= room ? len : 0;
}

/* "." and "..", from off on; false when they did not fit. */
static bool add_dots(fuse_req_t req, char *buf, size_t size, size_t *used, off_t *off)
{
	for (; *off < 2; (*off)++) {
		struct fuse_entry_param e = {.attr.st_mode = S_IFDIR};
		size_t len = fuse_add_direntry_plus(req, buf + *used, size - *used,
						    *off ? ".." : ".", &e, *off + 1);

		if (len > size - *used)
			return false;
		*used += len;
	}
	return true;
}

/* Offsets: 1 and 2 are "." and "..", entry i is at i + 3. */
static void dir_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			    struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct dirlist *h = dirlist_of(fi);
	char *buf = malloc(size);
	size_t used = 0;
	int r = buf ? dirlist_read_attrs(m, h) : -ENOMEM;

	(void)ino;
	if (r) {
		free(buf);
		fuse_reply_err(req, -r);
		return;
	}
	if (!add_dots(req, buf, size, &used, &off))
		goto reply;
	for (long i = off - 2; i < dirlist_count(h); i++) {
		struct mattr a;
		size_t len;

		r = dirlist_attr(h, i, &a);
		if (r == -ENOENT || r == -ENODATA)
			continue; /* gone, or no striped file */
		if (r)
			len = add_damaged(req, dirlist_name(h, i), buf + used, size - used, (off_t)i + 3);
		else
			len = add_plus(req, m, h, i, &a, buf + used, size - used, (off_t)i + 3);
		if (!len)
			break;
		used += len;
	}
reply:
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void dir_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	struct dirlist *h = dirlist_of(fi);
	char *buf = malloc(size);
	size_t used = 0;

	(void)ino;
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (long i = off; i < dirlist_count(h) + 2; i++) {
		struct stat st = {.st_ino = INO_UNKNOWN}; /* the kernel asks at lookup */
		const char *name = i == 0 ? "." : i == 1 ? ".." : dirlist_name(h, i - 2);
		size_t len;

		st.st_mode = i < 2 || dirlist_is_dir(h, i - 2) ? S_IFDIR : S_IFREG;
		len = fuse_add_direntry(req, buf + used, size - used, name, &st, (off_t)i + 1);
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

void ll_dir_init(struct fuse_lowlevel_ops *ops)
{
	ops->opendir = dir_opendir;
	ops->readdir = dir_readdir;
	ops->readdirplus = dir_readdirplus;
	ops->releasedir = dir_releasedir;
}
