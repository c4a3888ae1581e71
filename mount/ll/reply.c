// SPDX-License-Identifier: LGPL-2.1-or-later
/* What the kernel is told of a node (reply.h). */
#include <errno.h>
#include <string.h>

#include "attr.h"
#include "reply.h"

#define BLKSIZE (4u << 20)

struct caller reply_caller(fuse_req_t req)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct caller c = {ctx->uid, ctx->gid};

	return c;
}

/* A file's links: 1, 0 once unlinked while open here (it lives until its last close). */
static nlink_t file_links(struct node *n)
{
	bool unlinked;

	node_lock(n);
	unlinked = node_file_unlinked(&n->file);
	node_unlock(n);
	return unlinked ? 0 : 1;
}

void reply_stat(struct mount *m, struct node *n, const struct mattr *a, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	if (n->is_dir) {
		st->st_mode = S_IFDIR | (a->has_mode ? a->mode & 07777 : m->o.dir_mode);
		st->st_nlink = a->nlink ? a->nlink : 2;
	} else {
		mode_t type = a->has_mode && S_ISLNK(a->mode) ? S_IFLNK : S_IFREG;

		st->st_mode = type | (a->has_mode ? a->mode & 07777 : m->o.file_mode);
		st->st_nlink = file_links(n);
		st->st_size = (off_t)a->size;
		st->st_blocks = (blkcnt_t)((a->size + 511) / 512);
		attr_seen(n, a);
	}
	attr_seen_mode(n, st->st_mode);
	st->st_uid = a->has_uid ? a->uid : m->o.uid;
	st->st_gid = a->has_gid ? a->gid : m->o.gid;
	st->st_blksize = BLKSIZE;
	st->st_mtim = a->mtime.tv_sec ? a->mtime : m->started;
	st->st_ctim = a->ctime.tv_sec ? a->ctime : st->st_mtim;
	st->st_atim = a->has_atime ? a->atime : st->st_mtim;
}

void reply_entry_fill(struct mount *m, struct node *n, const struct mattr *a,
		      struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = n->ino;
	e->attr_timeout = m->o.cache_time;
	e->entry_timeout = m->o.cache_time;
	reply_stat(m, n, a, &e->attr);
}

void reply_node(fuse_req_t req, struct mount *m, const char *path, bool is_dir,
		const struct mattr *a)
{
	struct node *n = node_make(&m->nodes, path, is_dir, mattr_ino(a));
	struct fuse_entry_param e;
	struct mattr merged = *a;

	if (!n) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	attr_merge_local(m, n, &merged); /* an open file's size is this mount's, not the head's */
	reply_entry_fill(m, n, &merged, &e);
	node_kernel_ref(&m->nodes, n);
	if (fuse_reply_entry(req, &e) == -ENOENT) /* interrupted: the kernel has no such entry */
		node_forget(&m->nodes, n->ino, 1);
	node_put(&m->nodes, n);
}

void reply_negative(fuse_req_t req, struct mount *m)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	e.entry_timeout = m->o.cache_time;
	fuse_reply_entry(req, &e);
}

void reply_attr(fuse_req_t req, struct mount *m, struct node *n, const struct mattr *a, int r)
{
	struct stat st;

	if (r) {
		fuse_reply_err(req, mount_errno(r));
		return;
	}
	reply_stat(m, n, a, &st);
	fuse_reply_attr(req, &st, m->o.cache_time);
}
