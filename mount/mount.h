/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * striped-mount: striped files as a file system, on libfuse3's low-level
 * API and libstriped's public API (mount/SEMANTICS.md says what it does).
 * What every part of the daemon shares: the mount (its connection, its
 * options, its node table and its pool walk). Data calls are answered
 * from libstriped's completion callbacks; metadata calls run on libfuse's
 * worker threads, which may wait.
 */
#ifndef MOUNT_H
#define MOUNT_H

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <striped.h>

#include "attrs.h"
#include "listing.h"
#include "node.h"

struct mount_opts {
	const char *source; /* rados://POOL[/NAMESPACE] */
	char *pool, *nspace;
	const char *conf, *id, *name, *keyring;
	unsigned int uid, gid;		  /* owner of files without mount.uid/gid */
	unsigned int file_mode, dir_mode; /* permission bits of files and dirs without mount.mode */
	int ro;
	struct striped_layout layout; /* of new files */
	uint64_t window;	      /* the buffered window of cached opens */
	double cache_time;	      /* the most a cached name or attribute is old, seconds */
	unsigned int op_timeout;      /* seconds; 0: librados' default (wait) */
	int kernel_cache; /* cache=kernel: cached opens through the page cache (writeback) */
};

struct mount {
	struct mount_opts o;
	rados_t cluster;
	rados_ioctx_t io;
	struct fuse_session *se;
	struct nodes nodes;
	struct listing listing;
	size_t name_max; /* longest striped file name the pool takes */
};

/* The mount the requests of req are for. */
static inline struct mount *mount_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* libstriped's errors as a file system gives them: what the kernel can say. */
int mount_errno(int r);

/* The file operations (ops_file.c), directories (ops_dir.c), the rest (ops_meta.c), rename.c. */
void ops_file_init(struct fuse_lowlevel_ops *ops);
void ops_dir_init(struct fuse_lowlevel_ops *ops);
void ops_meta_init(struct fuse_lowlevel_ops *ops);
void ops_readdir_init(struct fuse_lowlevel_ops *ops);
void mount_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		  const char *newname, unsigned int flags);

/* A directory entry or a file's attributes for the kernel, valid cache_time. */
void mount_entry(struct mount *m, struct node *n, const struct mattr *a,
		 struct fuse_entry_param *e);
void mount_stat(struct mount *m, struct node *n, const struct mattr *a, struct stat *st);

/*
 * The attributes of node n as they are now: its head (or marker) read,
 * with this mount's own writes not yet stored (an open file's size).
 * @return 0, or a negative errno (-ENOENT when it is gone)
 */
int mount_getattr(struct mount *m, struct node *n, struct mattr *a);

/* An open file's size and mtime with this mount's writes not yet stored, into a. */
void mount_merge_local(struct mount *m, struct node *n, struct mattr *a);

/* The full path of name in directory parent, checked against the pool's name limit. */
int mount_child_path(struct mount *m, fuse_ino_t parent, const char *name, char **out);

/* Reply to a lookup-like request with the node of path (a lookup counted). */
void mount_reply_node(fuse_req_t req, struct mount *m, const char *path, bool is_dir,
		      const struct mattr *a);
/* 0 when path is neither a file nor a directory now; -EEXIST when it is. */
int mount_name_free(struct mount *m, const char *path);

/* ops_file.c: the open files. */
void file_release_node(struct mount *m, struct node *n);
/*
 * Make a new file whole in one operation (striped_head_create()): its len
 * bytes, its mode and owner where they differ from the mount's defaults,
 * and mtime (ctime the same): a file whose head holds none shows the head
 * object's RADOS mtime, which every open moves (the lock libstriped takes
 * and lets go of is a write to the head). -EEXIST when the name is taken.
 */
int ops_file_make_whole(struct mount *m, fuse_req_t req, const char *path, mode_t mode,
			const char *bytes, size_t len, const struct timespec *mtime);
/* Whether n is open and written here; then its size and mtime with this mount's writes. */
bool ops_file_local(struct mount *m, struct node *n, uint64_t *size, struct timespec *mtime);
/* utimens of an open file: the mtime its last close stores. */
void ops_file_set_mtime(struct node *n, const struct timespec *ts);
bool ops_file_is_open(struct node *n);
/*
 * A new file kept in the daemon, not made on RADOS yet (a create's, until
 * its first flush: pending.c): true with *a what a stat of it says. By
 * node, or by path (for a lookup, a listing, a name's check).
 */
bool ops_file_kept_attrs(struct node *n, struct mattr *a);
bool ops_file_kept_path(struct mount *m, const char *path, struct mattr *a);
/*
 * A name's new file kept here held so that no flush makes it meanwhile
 * (its node's lock, and a lookup counted), for a call that removes or
 * replaces the name: the file is then made and removed, or never made
 * (node_detach() its path before the release). NULL when none is kept.
 */
struct node *ops_file_hold_kept(struct mount *m, const char *path);
/* Whether the held node still keeps its file (not made on RADOS). */
bool ops_file_held_kept(const struct node *n);
void ops_file_release_kept(struct mount *m, struct node *n);
/* A kept new file made on RADOS now (for a call that needs it there); else nothing. */
int ops_file_make(struct mount *m, struct node *n);
/* Every kept new file below directory dir made on RADOS now (before the directory's rename). */
int ops_file_make_below(struct mount *m, const char *dir);
/*
 * The attributes a read-only open of n read from its head just before, if
 * nothing changed n here since and they are less than cache_time old; once.
 */
bool ops_file_open_attrs(struct mount *m, struct node *n, struct mattr *a);
/* Truncate through n's open handle, or by name when it is closed. */
int ops_file_truncate(struct mount *m, struct node *n, const char *path, uint64_t size);
/* The open files: flush and close every one (at unmount); each that failed said. How many. */
int ops_file_close_all(struct mount *m);

#endif /* MOUNT_H */
