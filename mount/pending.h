/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A new file this mount created and has not made on RADOS yet: its bytes
 * kept in the daemon until the first flush (close(2), fsync), which makes
 * it whole in one operation (striped_head_create()). See pending.c.
 */
#ifndef MOUNT_PENDING_H
#define MOUNT_PENDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attrs.h"
#include "striped.h"

struct pending;

/*
 * A new file's (a create with O_TRUNC): attrs is what its create stores
 * with it (has_*: what differs from the mount's defaults; its stripe
 * unit), limit the most bytes it keeps (its first stripe unit at most).
 * NULL: -ENOMEM.
 */
struct pending *pending_new(const struct mattr *attrs, size_t limit);
void pending_free(struct pending *p);

/* Take a write: false when it does not fit (past the limit, or the daemon's budget). */
bool pending_write(struct pending *p, const void *buf, size_t len, uint64_t off);

/* Cut or extend to size (zeros): false when it does not fit. */
bool pending_truncate(struct pending *p, uint64_t size);

/* What a stat of it says: the create's attributes, the size written, mtime. */
void pending_attrs(const struct pending *p, const struct timespec *mtime, struct mattr *a);

/*
 * Make the file as p holds it, with mtime (and ctime), in one operation:
 * 0; -EEXIST when an object of that name is there (another client made the
 * file after this mount looked: nothing made, pending_replay() it through a
 * handle); librados errors.
 */
int pending_make(const struct pending *p, rados_ioctx_t io, const char *path,
		 const struct striped_layout *layout, const struct timespec *mtime);

/*
 * Write p's bytes through f, a handle of the file opened as the create
 * would have (created: it made the file); a file that was there is cut
 * first (the create's O_TRUNC). 0 or the error.
 */
int pending_replay(const struct pending *p, struct striped_file *f, bool created);

/* The attributes the create stores (has_*), for a file made through a handle. */
const struct mattr *pending_create_attrs(const struct pending *p);

#endif /* MOUNT_PENDING_H */
