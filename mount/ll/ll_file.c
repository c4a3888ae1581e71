// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * FUSE's file requests: open, create, read, write, flush, fsync, release.
 * Reads, writes and flushes are answered from fs/io.c's completions.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "attr.h"
#include "drafts.h"
#include "headopen.h"
#include "io.h"
#include "ll.h"
#include "newfile.h"
#include "open.h"
#include "reply.h"
#include "unlinked.h"

/* Cached opens bypass the page cache: libstriped's window is the cache. */
static void set_open_flags(struct mount *m, struct fuse_file_info *fi)
{
	fi->direct_io = !(fi->flags & O_DIRECT) && !m->o.kernel_cache;
	fi->keep_cache = 0;
}

/* An open of n: a head_open when it can be one, else n's open file. */
static int open_either(struct mount *m, struct node *n, int flags, uint64_t *fh)
{
	char *path = node_path(&m->nodes, n);
	struct head_open *ho = NULL;
	bool created;
	int r = path ? headopen_try(m, n, path, flags, &ho) : -ENOMEM;

	if (!r) {
		attr_forget_reading(n);
		r = open_node(m, n, path, false, flags, &created);
	}
	free(path);
	if (r < 0)
		return r;
	*fh = ho ? headopen_fh(ho) : headopen_fh_of_node(n);
	return 0;
}

static void file_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	uint64_t fh;
	int r = n ? open_either(m, n, fi->flags, &fh) : -ENOENT;

	if (r) {
		fuse_reply_err(req, mount_errno(r));
		node_put(&m->nodes, n);
		return;
	}
	/* close-to-open: the size the kernel keeps is forgotten; the next stat reads it anew */
	fuse_lowlevel_notify_inval_inode(m->se, ino, -1, 0);
	fi->fh = fh;
	set_open_flags(m, fi);
	if (fuse_reply_open(req, fi) == -ENOENT) { /* interrupted: the kernel has no such open */
		headopen_free(headopen_of(fh));
		open_put(m, n);
	}
	node_put(&m->nodes, n);
}

/* A create: a draft when it can be one, else through a handle (the cluster asked now). */
static int create_file(struct mount *m, fuse_req_t req, struct node *n, const char *path,
		       mode_t mode, int flags, struct mattr *a)
{
	struct caller c = reply_caller(req);
	struct mattr made;
	bool created;
	int r;

	newfile_attrs(m, &c, S_IFREG | (mode & 07777), &made);
	r = drafts_open(m, n, path, &made, flags, a);
	if (r != 1)
		return r;
	r = open_node(m, n, path, true, flags, &created);
	if (!r && (r = attr_created(m, n, path, &made, created, a)))
		open_put(m, n);
	return r;
}

static void file_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
			struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct fuse_entry_param e;
	struct node *n = NULL;
	struct mattr a = {0};
	char *path = NULL;
	int r = mount_child_path(m, parent, name, &path);

	if (!r) /* a file unlinked here while open, under this name: gone now */
		r = unlinked_claim(m, path);
	if (!r && !(n = node_make(&m->nodes, path, false, newfile_ino())))
		r = -ENOMEM;
	if (!r)
		r = create_file(m, req, n, path, mode, fi->flags, &a);
	free(path);
	if (r) {
		fuse_reply_err(req, mount_errno(r));
		node_put(&m->nodes, n);
		return;
	}
	reply_entry_fill(m, n, &a, &e);
	fi->fh = headopen_fh_of_node(n);
	set_open_flags(m, fi);
	node_kernel_ref(&m->nodes, n);
	if (fuse_reply_create(req, &e, fi) == -ENOENT) {
		open_put(m, n);
		node_forget(&m->nodes, n->ino, 1);
	}
	node_put(&m->nodes, n);
}

static void read_reply(void *arg, ssize_t r, const char *data)
{
	if (r < 0)
		fuse_reply_err(arg, mount_errno((int)r));
	else
		fuse_reply_buf(arg, data, (size_t)r);
}

static void write_reply(void *arg, ssize_t r, const char *data)
{
	(void)data;
	if (r < 0)
		fuse_reply_err(arg, mount_errno((int)r));
	else
		fuse_reply_write(arg, (size_t)r);
}

static void err_reply(void *arg, ssize_t r, const char *data)
{
	(void)data;
	fuse_reply_err(arg, mount_errno((int)r));
}

static void file_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	int r = io_read(mount_of(req), fi->fh, size, (uint64_t)off, read_reply, req);

	(void)ino;
	if (r)
		fuse_reply_err(req, mount_errno(r));
}

static void file_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	int r = io_write(mount_of(req), fi->fh, buf, size, (uint64_t)off, fi->flags, write_reply,
			 req);

	(void)ino;
	if (r)
		fuse_reply_err(req, mount_errno(r));
}

/*
 * close(2) and fsync(2) (sync): every byte written through this file
 * landed, or its error; a new file write-back keeps lands at fsync only.
 */
static void flush_file(fuse_req_t req, struct fuse_file_info *fi, bool sync)
{
	int r = io_flush(mount_of(req), fi->fh, sync, err_reply, req);

	if (r)
		fuse_reply_err(req, mount_errno(r));
}

static void file_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	flush_file(req, fi, false);
}

static void file_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	(void)ino;
	(void)datasync;
	flush_file(req, fi, true);
}

static void file_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = headopen_node(fi->fh);

	(void)ino;
	headopen_free(headopen_of(fi->fh));
	fuse_reply_err(req, mount_errno(open_put(mount_of(req), n)));
}

void ll_file_init(struct fuse_lowlevel_ops *ops)
{
	ops->open = file_open;
	ops->create = file_create;
	ops->read = file_read;
	ops->write = file_write;
	ops->flush = file_flush;
	ops->fsync = file_fsync;
	ops->release = file_release;
}
