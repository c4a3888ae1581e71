/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A draft: a new file this mount created and has not made on RADOS yet.
 * A create with O_TRUNC (what the file holds is then this open's writes
 * alone), without O_EXCL or O_DIRECT, takes no round trip: its writes stay
 * in the daemon while they fit (within its first stripe unit, at most
 * 64 KiB, the daemon's budget for all drafts not spent), and its first
 * flush (close(2), fsync) makes it whole: bytes, size, mode and times in
 * one operation (striped_head_create(): fs/drafts.c). A small file's
 * create, write and close then cost the lookup and that operation, where
 * a handle took create, watch, write, unwatch and unlock. Here: the bytes
 * and attributes a draft holds. Pure.
 */
#ifndef MOUNT_DRAFT_H
#define MOUNT_DRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mattr.h"

struct draft;

/*
 * A new file's (a create with O_TRUNC): attrs is what its create stores
 * with it (has_*: what differs from the mount's defaults; its stripe
 * unit), limit the most bytes it holds (its first stripe unit at most).
 * NULL: -ENOMEM.
 */
struct draft *draft_new(const struct mattr *attrs, size_t limit);
void draft_free(struct draft *p);

/*
 * Its name taken on RADOS, empty, as h says (an O_EXCL create: other
 * clients' creates of the name fail from then on): its make fills it as h
 * says (striped_head_replace()). NULL while it is not.
 */
void draft_set_taken(struct draft *p, const struct striped_head *h);
const struct striped_head *draft_taken(const struct draft *p);

/* Take a write: false when it does not fit (past the limit, or the daemon's budget). */
bool draft_write(struct draft *p, const void *buf, size_t len, uint64_t off);

/* Cut or extend to size (zeros): false when it does not fit. */
bool draft_truncate(struct draft *p, uint64_t size);

/*
 * A chmod, chown or utimens of it (c's has_mode, has_uid, has_gid,
 * has_atime, has_ctime), kept to go with its make; its mtime is its open
 * file's.
 */
void draft_set_attrs(struct draft *p, const struct mattr *c);

/*
 * What a stat of it says: the create's attributes, as changed since, the
 * size written, mtime; ctime the later of mtime and its last change.
 */
void draft_attrs(const struct draft *p, const struct timespec *mtime, struct mattr *a);

/* The attributes the create stores (has_*), for a file made through a handle. */
const struct mattr *draft_create_attrs(const struct draft *p);

/* Its bytes (*len of them): valid until the next change. */
const char *draft_bytes(const struct draft *p, size_t *len);

#endif /* MOUNT_DRAFT_H */
