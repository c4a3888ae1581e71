/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the kernel is told of a node: its stat (st_ino the node's, which
 * lasts as the file does: core/node.h), its entry (valid cache_time), and
 * the entry reply that gives the kernel a lookup of a node.
 */
#ifndef MOUNT_REPLY_H
#define MOUNT_REPLY_H

#include "mount.h"

/* The mount a request is for. */
static inline struct mount *mount_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* Who asks: a new file's owner. */
struct caller reply_caller(fuse_req_t req);

void reply_stat(struct mount *m, struct node *n, const struct mattr *a, struct stat *st);
void reply_entry_fill(struct mount *m, struct node *n, const struct mattr *a,
		      struct fuse_entry_param *e);

/* Reply to a lookup-like request with the node of path (a directory or a file with attributes a). */
void reply_node(fuse_req_t req, struct mount *m, const char *path, bool is_dir,
		const struct mattr *a);

/* Reply to a getattr-like request with n's attributes a, or r when it failed. */
void reply_attr(fuse_req_t req, struct mount *m, struct node *n, const struct mattr *a, int r);

/* A negative entry, valid cache_time: a create-heavy program does not ask twice. */
void reply_negative(fuse_req_t req, struct mount *m);

#endif /* MOUNT_REPLY_H */
