/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A striped file's attributes as the mount shows them, read from its head
 * object in one round trip (its xattrs and the object's stat), many heads
 * at once for a listing. The size is libstriped's striper.size (the
 * on-RADOS format include/striped.h documents); mode, owner and times are
 * the mount's own xattrs beside it (mount.*), as s3fs keeps them in object
 * metadata. The public API reads a head by name one round trip at a time
 * and user xattrs in another (striped_head_read, striped_head_getxattrs);
 * a listing of 10,000 files needs them all in flight together, so the
 * reads here go through librados' aio read operations.
 */
#ifndef MOUNT_ATTRS_H
#define MOUNT_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <rados/librados.h>

#include "striped.h"

/* What the head says; has_* tell what the mount stored (else: its defaults). */
struct mattr {
	uint64_t size;
	mode_t mode; /* with its type bits (S_IFREG, S_IFLNK, S_IFDIR) */
	uint32_t uid, gid;
	struct timespec mtime, ctime;
	bool has_mode, has_uid, has_gid, has_mtime, has_ctime;
	uint64_t stripe_unit; /* the head holds the file's first stripe unit */
	uint64_t id;	      /* striper.id: another id is another file (0: libradosstriper's) */
	struct striped_layout layout; /* as read (zero: not a head's reading) */
	uint64_t reserved;	      /* striper.reserved, the mark (0: none) */
};

/* The names of the mount's xattrs on a head. */
#define MATTR_MODE "mount.mode"
#define MATTR_UID "mount.uid"
#define MATTR_GID "mount.gid"
#define MATTR_MTIME "mount.mtime"
#define MATTR_CTIME "mount.ctime"

/*
 * Decode a head's xattrs (names[i], values[i] of lens[i] bytes) and the
 * object's mtime into *a. Pure.
 * @return 0; -ENODATA when the object is no striped file (no striper.*);
 *         -EUCLEAN when its striper.* metadata is damaged
 */
int mattr_decode(size_t n, const char *const *names, const char *const *values, const size_t *lens,
		 time_t obj_mtime, struct mattr *a);

/* Parse a decimal without sign, exactly len bytes: 0 or -EINVAL. Pure. */
int mattr_parse_u64(const char *s, size_t len, uint64_t *out);

/*
 * Read the attributes of striped files names[0..n-1], every read in flight
 * together (at most 256 at a time); rv[i] is 0 or the errno of mattr_decode
 * or librados (-ENOENT: no head).
 * @return 0, or -ENOMEM (nothing read)
 */
int mattr_read_many(rados_ioctx_t io, const char *const *names, size_t n, struct mattr *out,
		    int *rv);

/* One file's attributes: 0, or a negative errno as mattr_read_many's rv. */
int mattr_read(rados_ioctx_t io, const char *name, struct mattr *a);

/* The mount's xattrs of what a has (has_*), as striped_head_create() takes them. */
#define MATTR_XATTRS 5
struct mattr_xattrs {
	struct striped_xattr_value x[MATTR_XATTRS];
	char values[MATTR_XATTRS][48];
};
/* Fill x; returns how many of x->x are set. Pure. */
size_t mattr_xattrs(const struct mattr *a, struct mattr_xattrs *x);

/*
 * mattr_read(), with also(arg) called while the read is in flight: what
 * also() reads from the cluster costs no round trip of its own.
 */
int mattr_read_beside(rados_ioctx_t io, const char *name, struct mattr *a,
		      void (*also)(void *arg), void *arg);

/*
 * Store the attributes a has (has_*) on the head of name, in one write that
 * creates nothing (a missing head: -ENOENT).
 */
int mattr_write(rados_ioctx_t io, const char *name, const struct mattr *a);

/*
 * The same write sent, to be waited for with mattr_write_wait (which frees
 * it), so that another round trip can go meanwhile.
 * @return 0 when sent; -ENAMETOOLONG, -ENOMEM, librados errors
 */
struct mattr_write;
int mattr_write_start(rados_ioctx_t io, const char *name, const struct mattr *a,
		      struct mattr_write **out);
/* @return 0, or the write's error (-ENOENT: no head) */
int mattr_write_wait(struct mattr_write *w);

#endif /* MOUNT_ATTRS_H */
