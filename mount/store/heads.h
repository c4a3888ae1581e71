/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Striped files' attributes (core/mattr.h) read from their heads, one round
 * trip each (the xattrs and the object's stat), many heads at once for a
 * listing, and the mount's xattrs written on a head. The public API reads a
 * head by name one round trip at a time and user xattrs in another
 * (striped_head_read, striped_head_getxattrs); a listing of 10,000 files
 * needs them all in flight together, so these go through librados' aio
 * read and write operations.
 */
#ifndef MOUNT_HEADS_H
#define MOUNT_HEADS_H

#include <rados/librados.h>

#include "mattr.h"

/*
 * Read the attributes of striped files names[0..n-1], every read in flight
 * together (at most 256 at a time); rv[i] is 0 or the errno of mattr_decode
 * or librados (-ENOENT: no head).
 * @return 0, or -ENOMEM (nothing read)
 */
int heads_read_many(rados_ioctx_t io, const char *const *names, size_t n, struct mattr *out,
		    int *rv);

/* One file's attributes: 0, or a negative errno as heads_read_many's rv. */
int heads_read(rados_ioctx_t io, const char *name, struct mattr *a);

/*
 * heads_read(), with also(arg) called while the read is in flight: what
 * also() reads from the cluster costs no round trip of its own.
 */
int heads_read_beside(rados_ioctx_t io, const char *name, struct mattr *a,
		      void (*also)(void *arg), void *arg);

/*
 * Store the attributes a has (has_*) on the head of name, in one write that
 * creates nothing (a missing head: -ENOENT).
 */
int heads_write(rados_ioctx_t io, const char *name, const struct mattr *a);

/*
 * The same write sent, to be waited for with heads_write_wait (which frees
 * it), so that another round trip can go meanwhile.
 * @return 0 when sent; -ENAMETOOLONG, -ENOMEM, librados errors
 */
struct heads_write;
int heads_write_start(rados_ioctx_t io, const char *name, const struct mattr *a,
		      struct heads_write **out);
/* @return 0, or the write's error (-ENOENT: no head) */
int heads_write_wait(struct heads_write *w);

#endif /* MOUNT_HEADS_H */
