/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * striped-mount: striped files as a file system, on libfuse3's low-level
 * API and libstriped's public API (mount/SEMANTICS.md says what it does).
 * What every part of fs/ shares: the mount (its connection, its options,
 * its node table and its names). fs/ is the file system's services on
 * striped files; the FUSE handlers (ll/) call them and reply.
 */
#ifndef MOUNT_H
#define MOUNT_H

#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <striped.h>

#include "listing.h"
#include "mattr.h"
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
	/* seconds new files stay in the daemon past their close (0: sync_close) */
	unsigned int writeback_time;
};

struct mount {
	struct mount_opts o;
	rados_t cluster;
	rados_ioctx_t io;
	struct fuse_session *se;
	struct nodes nodes;
	struct listing listing;
	size_t name_max;	 /* longest striped file name the pool takes */
	struct timespec started; /* the time files without any show */
	struct writeback *wb;	 /* new files kept past their close (fs/writeback.h), or NULL */
};

/* Who asks: the owner a new file gets. */
struct caller {
	uint32_t uid, gid;
};

/* libstriped's errors as a file system gives them: what the kernel can say. */
int mount_errno(int r);

/* The full path of name in directory parent, checked against the pool's name limit. */
int mount_child_path(struct mount *m, fuse_ino_t parent, const char *name, char **out);

/* statfs(2) of the mount: the pool's (store/pool.h). */
int mount_statfs(struct mount *m, struct statvfs *sv);

/* "path/": a directory's marker (the root's is "/"), or NULL for -ENOMEM. */
char *mount_marker_of(const char *path);

#endif /* MOUNT_H */
