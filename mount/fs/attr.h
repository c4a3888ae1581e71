/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inode attributes: what a stat of a node says (its head or its marker
 * read, with this mount's own writes not stored yet: an open file's size
 * and mtime, a draft's everything), what the node keeps of its head as
 * last read (an unlink removes the file as read), the readings cached for
 * their next asker (a directory's for cache_time, a head_open's for the
 * GETATTR after it), and chmod, chown, utimens, stored on the head as the
 * mount's xattrs (core/mattr.h). Only this file writes a node's attr part.
 */
#ifndef MOUNT_ATTR_H
#define MOUNT_ATTR_H

#include <stdbool.h>
#include <sys/stat.h>

#include "mount.h"

/*
 * The attributes of node n as they are now: its head (or marker) read,
 * with this mount's own writes not yet stored; a directory's links counted
 * from the names this mount knows (2 and one for each directory in it).
 * @return 0, or a negative errno (-ENOENT when it is gone)
 */
int attr_get(struct mount *m, struct node *n, struct mattr *a);

/* An open file's size and mtime with this mount's writes not yet stored, into a. */
void attr_merge_local(struct mount *m, struct node *n, struct mattr *a);

/* What the kernel is given of n: its size and head (for its next open and unlink). */
void attr_seen(struct node *n, const struct mattr *a);
/* The mode the kernel is given of n (S_ISUID's clearing at a write looks at it). */
void attr_seen_mode(struct node *n, mode_t mode);
/* The head as last read, for striped_head_remove(): false when none was. */
bool attr_seen_head(struct node *n, struct striped_head *h);

/* Under n->lock: cache a reading of n's attributes, made at (clock_age_now()) at changes. */
void attr_cache_locked(struct node *n, const struct mattr *a, double at, uint64_t changes);

/*
 * The attributes a read-only open of n read from its head just before (or
 * the close that made it whole), if nothing changed n here since and they
 * are less than cache_time old; once.
 */
bool attr_open_reading(struct mount *m, struct node *n, struct mattr *a);
/*
 * That reading forgotten: an open through a handle reads nothing, and the
 * stat after it must come from RADOS (close-to-open), not from what this
 * mount's last close made.
 */
void attr_forget_reading(struct node *n);

/*
 * The attributes a create replies with: a file it made has what it was
 * made with (made, mtime the create's); one that was there (another client
 * made it after the kernel last looked) is read as it is.
 */
int attr_created(struct mount *m, struct node *n, const char *path, const struct mattr *made,
		 bool created, struct mattr *a);

/*
 * chmod, chown, utimens (FUSE_SET_ATTR_* in to_set, values in st), and
 * *after what attr_get() says then: a draft keeps them, to go with its make
 * (no round trip); else one write on n's holder (the file; a directory's
 * marker, made when it has none) with the read of *after sent behind it,
 * one round trip (RADOS applies one client's operations on an object in
 * the order sent, so the read sees the write).
 */
int attr_set(struct mount *m, struct node *n, const struct stat *st, int to_set,
	     struct mattr *after);

/*
 * A write by a process without CAP_FSETID: S_ISUID, and S_ISGID with
 * group execute, cleared when the mode last given to the kernel has them
 * (what a local file system does at such a write), before the write goes.
 */
int attr_kill_suid(struct mount *m, struct node *n);

/*
 * The striped file that holds n's attributes and xattrs (*out: its name):
 * the file, made on RADOS first when it is a draft, or a directory's marker.
 */
int attr_holder(struct mount *m, struct node *n, char **out);
/* A directory's marker, made when it has none yet (a directory of files alone). */
int attr_ensure_marker(struct mount *m, const char *marker);

#endif /* MOUNT_ATTR_H */
