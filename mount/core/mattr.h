/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A striped file's attributes as the mount shows them: the size is
 * libstriped's striper.size (the on-RADOS format include/striped.h
 * documents); mode, owner, times and the inode number are the mount's own
 * xattrs beside it on the head (mount.*), as s3fs keeps them in object
 * metadata. Decoding and encoding them is pure (store/heads.c reads and
 * writes them).
 */
#ifndef MOUNT_MATTR_H
#define MOUNT_MATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "striped.h"

/* What the head says; has_* tell what the mount stored (else: its defaults). */
struct mattr {
	uint64_t size;
	mode_t mode; /* with its type bits (S_IFREG, S_IFLNK, S_IFDIR) */
	uint32_t uid, gid;
	struct timespec mtime, ctime, atime;
	uint64_t ino; /* mount.ino: the inode number a rename carries (has_ino) */
	bool has_mode, has_uid, has_gid, has_mtime, has_ctime, has_atime, has_ino;
	uint64_t stripe_unit; /* the head holds the file's first stripe unit */
	uint64_t id;	      /* striper.id: another id is another file (0: libradosstriper's) */
	struct striped_layout layout; /* as read (zero: not a head's reading) */
	uint64_t reserved;	      /* striper.reserved, the mark (0: none) */
	uint64_t held;		      /* striper.held: a holder's client id, not written back (0: none) */
	uint32_t nlink;		      /* not stored: a directory's links as counted (0: unknown) */
};

/* The names of the mount's xattrs on a head. */
#define MATTR_MODE "mount.mode"
#define MATTR_UID "mount.uid"
#define MATTR_GID "mount.gid"
#define MATTR_MTIME "mount.mtime"
#define MATTR_CTIME "mount.ctime"
#define MATTR_ATIME "mount.atime"
#define MATTR_INO "mount.ino"

/*
 * Decode a head's xattrs (names[i], values[i] of lens[i] bytes) and the
 * object's mtime into *a.
 * @return 0; -ENODATA when the object is no striped file (no striper.*);
 *         -EUCLEAN when its striper.* metadata is damaged
 */
int mattr_decode(size_t n, const char *const *names, const char *const *values, const size_t *lens,
		 time_t obj_mtime, struct mattr *a);

/* Parse a decimal without sign, exactly len bytes: 0 or -EINVAL. */
int mattr_parse_u64(const char *s, size_t len, uint64_t *out);

/* The mount's xattrs of what a has (has_*), as striped_head_create() takes them. */
#define MATTR_XATTRS 7
struct mattr_xattrs {
	struct striped_xattr_value x[MATTR_XATTRS];
	char values[MATTR_XATTRS][48];
};
/* Fill x; returns how many of x->x are set. */
size_t mattr_xattrs(const struct mattr *a, struct mattr_xattrs *x);

/*
 * The inode number a reading gives its file: the one the mount stored
 * (mount.ino, which a rename carries to the new name), else its striper.id
 * (random, given at creation), else 0 (libradosstriper's files have none:
 * the node table gives one).
 */
uint64_t mattr_ino(const struct mattr *a);

#endif /* MOUNT_MATTR_H */
