/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Drafts (core/draft.h) as open files: made when a create can be one,
 * made on RADOS whole at their first flush, or through a handle when what
 * they hold cannot answer a call (a write past them, a truncate
 * past them, another open's writes, an attribute change), or when another
 * client made a file of their name meanwhile. What a draft holds is under
 * its node's lock.
 */
#ifndef MOUNT_DRAFTS_H
#define MOUNT_DRAFTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mount.h"

/*
 * A create as a draft (no round trip): 0 with *a what a stat of it says;
 * 1 when it cannot be one (without O_TRUNC a file another client made
 * meanwhile keeps its bytes, which a stat and reads must show; O_EXCL asks
 * the cluster at once; an O_DIRECT write goes to RADOS as it comes;
 * cache=kernel; the node is open here already); -ENOMEM. The open is
 * counted.
 */
int drafts_open(struct mount *m, struct node *n, const char *path, const struct mattr *attrs,
		int flags, struct mattr *a);

/* What a stat of n says while it holds a draft (n->lock held): false when it does not. */
bool drafts_attrs_locked(struct node *n, struct mattr *a);
/* The same, taking n's lock; and by path (a lookup, a listing, a name's check). */
bool drafts_attrs(struct node *n, struct mattr *a);
bool drafts_attrs_at(struct mount *m, const char *path, struct mattr *a);

/*
 * A chmod, chown or utimens (a: attr.c's change) kept in n's draft, to go
 * with its make; *after what a stat says then. False without a draft.
 */
bool drafts_set_attrs(struct node *n, const struct mattr *a, struct mattr *after);

/* A write kept in n's draft: false when it must go to RADOS (flags: the open's). */
bool drafts_write(struct node *n, const char *buf, size_t size, uint64_t off, int flags);
/*
 * A read of n's draft, answered from what it holds: the file's every byte
 * (a file this mount made and holds, or whose create replaces what is on
 * RADOS; one unlinked or renamed over while open, never made). False
 * without a draft.
 */
bool drafts_read(struct mount *m, struct node *n, char *buf, size_t size, uint64_t off,
		 ssize_t *r);
/* A truncate kept in n's draft (n->lock held): false when it must go to RADOS. */
bool drafts_truncate_locked(struct node *n, uint64_t size);

/*
 * n's draft made on RADOS whole, in one operation (n->lock held): at its
 * first flush, or for a call that needs it there. Its mtime goes with it.
 * Unlinked or renamed over here meanwhile: nothing made (the bytes went
 * with the name). Another client's file of its name there: made through a
 * handle (drafts_settle_locked()). Nothing to do without a draft.
 */
int drafts_flush_locked(struct mount *m, struct node *n);
/* The same; *is_made when made in one operation, *made then what a stat says, its head's layout and id. */
int drafts_flush_made_locked(struct mount *m, struct node *n, struct mattr *made, bool *is_made);

/*
 * n's draft made on RADOS through a handle, as an open would have made it,
 * its bytes written through it (n->lock held); the handle is n's then.
 * Unlinked or renamed over meanwhile: -ESTALE, as a handle's calls then.
 */
int drafts_settle_locked(struct mount *m, struct node *n);

/* A draft's end without being made (n->lock held): unlinked, or its make failed. */
void drafts_drop_locked(struct mount *m, struct node *n);

/* n's draft made on RADOS now (for a call that needs it there); else nothing. */
int drafts_make(struct mount *m, struct node *n);
/* Every draft below directory dir made on RADOS now (before the directory's rename). */
int drafts_make_below(struct mount *m, const char *dir);

/*
 * Whether n's draft is one write-back keeps at its last close (n->lock
 * held): its name taken held by this mount; its close(2) then makes nothing.
 */
bool drafts_kept_locked(struct mount *m, struct node *n);
/* Another client asks for path (fs/writeback.h): its draft, open or kept, made on RADOS now. */
void drafts_write_asked(struct mount *m, const char *path);

/*
 * A rename of a new file write-back keeps (closed, not written back): the
 * name to taken held for it and from's head removed, two round trips, its
 * bytes staying in the daemon (a file already at to replaced, unless
 * to_absent). 1 when from is no such file (copy it as ever), 0, or an
 * error (the file stays at from).
 */
int drafts_rename(struct mount *m, const char *from, const char *to, bool to_absent);

/*
 * The draft at path held so that no flush makes it meanwhile (its node's
 * lock, and a reference), for a call that removes or replaces the name:
 * the file is then made and removed, or never made (node_detach() its
 * path before drafts_release()). NULL when there is none.
 */
struct node *drafts_hold(struct mount *m, const char *path);
/* Whether the held node still holds its draft (not made on RADOS). */
bool drafts_held(const struct node *n);
void drafts_release(struct mount *m, struct node *n);

#endif /* MOUNT_DRAFTS_H */
