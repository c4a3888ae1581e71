/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening and closing files: one libstriped handle per node, shared by
 * every open of it on this mount (so one open reads what another wrote at
 * once), opened buffered (write-behind, readahead) for cached opens and
 * direct for O_DIRECT ones (a later open of the other kind shares what is
 * there). Each open holds a reference of its node (node_hold()) until its
 * release (open_put()).
 */
#ifndef MOUNT_OPEN_H
#define MOUNT_OPEN_H

#include <stdbool.h>
#include <stdint.h>

#include "mount.h"

/*
 * The largest file a read-only open reads through a direct handle: one or
 * two READs of the kernel's 1 MiB read it whole, each one round trip that
 * reads the size beside the data, where a buffered handle first reads the
 * size, then a stripe ahead, past the end of a small file (4 KiB files:
 * 7 operations against 1).
 */
#define OPEN_SMALL_READ (1u << 20)

/*
 * Open n for a FUSE open or create (path its name; create: O_CREAT asks
 * for a new file, *created says whether it made one). The open is counted
 * and holds a reference of n.
 */
int open_node(struct mount *m, struct node *n, const char *path, bool create, int oflags,
	      bool *created);

/*
 * One open of n closed (a release, or an open the kernel never got). The
 * last one sends its window, lets go of its lock and stores its mtime, all
 * under the node's lock, so that an open arriving meanwhile finds the
 * stored size whole (the kernel sends RELEASE after close(2) returned, and
 * the next open may come before it). Drops the open's reference of n.
 */
int open_put(struct mount *m, struct node *n);

/*
 * The last close of n that write-back kept (fs/writeback.h): its file
 * closed now (its draft made on RADOS), unless it was opened again.
 */
int open_put_kept(struct mount *m, struct node *n);

/* An open counted for a head_open (fs/headopen.c) (n->lock held); open_put() ends it. */
void open_count_locked(struct mount *m, struct node *n);

/* n's handle for a read or write, opened when there is none: *f and *buffered. */
int open_handle(struct mount *m, struct node *n, struct striped_file **f, bool *buffered);
/* The same, n->lock held (a draft is made first, through the handle). */
int open_handle_locked(struct mount *m, struct node *n);

/* A direct handle for n's opens when there is none (a head_open whose file outgrew its head). */
int open_attach(struct mount *m, struct node *n);

/* Whether n has a handle or a draft now (a head_open's reads then go through it). */
bool open_has_file(struct node *n);

/*
 * A file open and written here: the size its handle knows (its window's
 * writes not stored yet included, another client's truncate learnt), one
 * round trip, the handle pinned meanwhile; a draft: what it holds.
 */
bool open_local(struct mount *m, struct node *n, uint64_t *size, struct timespec *mtime);

/* Truncate through n's open handle (or its draft), or by name when it is closed. */
int open_truncate(struct mount *m, struct node *n, const char *path, uint64_t size);

bool open_is_open(struct node *n);

/*
 * An unlink of n's name: when n is open here, it stays (its draft in the
 * daemon, its file on RADOS) until its last close here. 1 when kept so, 0
 * when it is not open here (remove it as ever), or an error.
 */
int open_unlink(struct mount *m, struct node *n, const char *path);

/* Every open file flushed and closed (at unmount); each that failed said. How many failed. */
int open_close_all(struct mount *m);

#endif /* MOUNT_OPEN_H */
