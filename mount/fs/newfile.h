/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a file or directory marker made through the mount stores: its mode
 * and owner where they differ from the mount's defaults (a file made with
 * the defaults stores none: they show), its times, and its inode number
 * (mount.ino, random, so that st_ino lasts as the file does).
 */
#ifndef MOUNT_NEWFILE_H
#define MOUNT_NEWFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "mount.h"

/* A new inode number: random, never 0 or the root's. */
uint64_t newfile_ino(void);

/*
 * The attributes a new file or marker of mode (type bits and permissions)
 * stores: has_* only for what differs from the mount's defaults; mode,
 * uid, gid set either way.
 */
void newfile_attrs(struct mount *m, const struct caller *c, mode_t mode, struct mattr *a);

/* A new file's attributes stored, when any differs from the defaults (else no round trip). */
int newfile_store_attrs(struct mount *m, const char *path, const struct mattr *a);

/*
 * Make a file or marker whole in one operation (striped_head_create()):
 * its len bytes, attrs a (newfile_attrs()), times at (mtime, and ctime unless a has one: a
 * file whose head holds none shows the head object's RADOS mtime, which
 * every open moves: the lock libstriped takes and lets go of is a write to
 * the head), its inode number ino. -EEXIST when the name is taken.
 */
int newfile_make_whole(struct mount *m, const char *path, const struct mattr *a,
		       const char *bytes, size_t len, const struct timespec *at, uint64_t ino,
		       struct striped_head *h);

/*
 * Take a new file's name on RADOS, empty (striped_head_create2()), with
 * what newfile_make_whole() stores; *h the head as made, for
 * newfile_fill(). -EEXIST when the name is taken.
 */
int newfile_take(struct mount *m, const char *path, const struct mattr *a,
		 const struct timespec *at, uint64_t ino, struct striped_head *h);

/*
 * Fill a file newfile_take() made, as h says, in one operation
 * (striped_head_replace()): its len bytes and what newfile_make_whole()
 * stores. -ECANCELED when it is not as h says (another client opened or
 * changed it), -ENOENT when it is gone.
 */
int newfile_fill(struct mount *m, const char *path, const struct striped_head *h,
		 const struct mattr *a, const char *bytes, size_t len, const struct timespec *at,
		 uint64_t ino);

/* What a made file's stat says: a with every field given, size len, times at. */
void newfile_shown(struct mattr *a, size_t len, const struct timespec *at);

#endif /* MOUNT_NEWFILE_H */
