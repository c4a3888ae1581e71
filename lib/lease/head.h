/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* head.c: every RADOS call on the head object */
#ifndef STRIPED_HEAD_H
#define STRIPED_HEAD_H

#include "lock_info.h"
#include "meta.h"
#include "xattrs.h"

/* A new file's id (striper.id): a file removed and created again gets another. Never 0. */
uint64_t head_new_id(void);
/* Create the head as m says (meta_head_new()), our lock taken in the same operation. */
int head_create_locked(rados_ioctx_t io, const char *oid, const struct head_meta *m,
		       const struct lock_req *req);
/*
 * Create the head as m says, with its bytes (m->size of buf, all within
 * the first stripe unit), the lock's xattr as a lock no one holds leaves it,
 * and the xattrs x, in one operation: -EEXIST when the object exists.
 */
int head_create_whole(rados_ioctx_t io, const char *oid, const struct head_meta *m,
		      const void *buf, const struct striped_xattr_value *x, size_t nx);
int head_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req);
/* The lock, only if the head still holds what m was read as: -ECANCELED if not. */
int head_lock_as_read(rados_ioctx_t io, const char *oid, const struct lock_req *req,
		      const struct head_meta *m);
int head_unlock(rados_ioctx_t io, const char *oid, const char *cookie);
void head_unlock_nowait(rados_ioctx_t io, const char *oid, const char *cookie);
/*
 * Layout, size, id, mark and regions in one read (meta_head_finish()):
 * -ENOENT; -ENODATA for an object with no striper metadata; -EUCLEAN for
 * metadata that is incomplete, not a number or no valid layout.
 */
int head_read_meta(rados_ioctx_t io, const char *oid, struct head_meta *m);
/*
 * As head_read_meta(), and the mtime (may be NULL), in one read; with user,
 * the user's xattrs are added to it.
 */
int head_inspect(rados_ioctx_t io, const char *oid, struct head_meta *m, struct timespec *mtime,
		 struct striped_xattrs *user);
/*
 * As head_inspect() without the user's xattrs, and in the same read up to
 * len of the head object's bytes from off (*nread: the object may end
 * before) and whether its lock is held exclusive (a truncate, remove or
 * repair under way); with user, the user's xattrs are added to it.
 */
int head_read_bytes(rados_ioctx_t io, const char *oid, struct head_meta *m,
		    struct timespec *mtime, void *buf, size_t len, uint64_t off, size_t *nread,
		    bool *held_exclusive, struct striped_xattrs *user);
/*
 * Remove a file that lives in its head alone (no byte past the first stripe
 * unit, no region) and whose lock no one holds, in two round trips: its
 * metadata read, then the head removed in one operation that checks it is
 * still so (the metadata and the lock's xattr as read). The exclusive lock
 * would exclude no one: -EAGAIN when the file is not such a one, or changed
 * in between (nothing removed); else what reading the head returned.
 */
int head_remove_unheld(rados_ioctx_t io, const char *oid);
/*
 * Remove, in one operation, a file that lives in its head alone as m says
 * (-EINVAL when m says more), if its head still says what m does and its
 * lock is held by no one, as a shared holder's unlock left it: -ECANCELED
 * if not (nothing removed).
 */
int head_remove_as_read(rados_ioctx_t io, const char *oid, const struct head_meta *m);
/*
 * Replace, in one operation, the bytes of a file that lives in its head
 * alone as m says with len of buf (within the first stripe unit: else
 * -EINVAL), its size then len, and set the xattrs x, if its head still says
 * what m does and its lock is held by no one: -ECANCELED if not (nothing
 * changed).
 */
int head_replace_as_read(rados_ioctx_t io, const char *oid, const struct head_meta *m,
			 const void *buf, size_t len, const struct striped_xattr_value *x, size_t nx);
int head_get_size(rados_ioctx_t io, const char *oid, uint64_t *size);
/*
 * The size a getxattr of it brought into buf (cap bytes), r the call's
 * return: 0 and *size; -EUCLEAN when it is no number (or longer than any);
 * r itself for the other errors.
 */
int head_size_of_reply(const char *buf, size_t cap, int r, uint64_t *size);
int head_get_size_aio(rados_ioctx_t io, const char *oid, rados_completion_t rc, char *buf,
		      size_t len);
int head_set_size_fenced(rados_ioctx_t io, const char *oid, const struct lock_req *excl,
			 uint64_t old, uint64_t size);
int head_remove_fenced(rados_ioctx_t io, const char *oid, const struct lock_req *excl);
int head_check_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req);
/* An I/O context of io's pool and namespace for the watch: writes on a full pool go through. */
/*
 * An I/O context of io's pool and namespace of its own, whose writes on a
 * full pool go through: the watch's, and a headless repair's (repair.c).
 */
int head_watch_ioctx(rados_ioctx_t io, rados_ioctx_t *wio);
void head_watch_ioctx_destroy(rados_ioctx_t wio);
/* Watch the head: heard() on every notify, lost() when the watch breaks. */
int head_watch(rados_ioctx_t wio, const char *oid, rados_watchcb2_t heard, rados_watcherrcb_t lost,
	       void *arg, uint64_t *handle);
void head_unwatch(rados_ioctx_t wio, uint64_t handle);
/* Close: drop the watch and, with a cookie, the lock; both waited for; then destroy wio. */
void head_unwatch_unlock(rados_ioctx_t wio, uint64_t handle, rados_ioctx_t io, const char *oid,
			 const char *cookie);
/* Drop the watch and then destroy wio, without waiting (its completion does it). */
void head_unwatch_and_destroy(rados_ioctx_t wio, uint64_t handle);
/* Answer a notify (from a watch callback: sent, not waited for). */
void head_notify_ack(rados_ioctx_t io, const char *oid, uint64_t notify_id, uint64_t handle,
		     const char *payload);
/*
 * Ask every watcher to let go of the lock; fills answered with the cookies
 * they answered with ('\0'-separated, free()), the watchers that did not
 * answer in time are left out.
 */
int head_notify_release(rados_ioctx_t io, const char *oid, uint64_t timeout_ms, char **answered,
			size_t *len);

/*
 * The lock's holders (at most max), whether it is exclusive, and its tag
 * (tag may be NULL).
 */
ssize_t head_lockers(rados_ioctx_t io, const char *oid, struct locker *out, size_t max,
		     bool *exclusive, char *tag);
int head_break_lock(rados_ioctx_t io, const char *oid, const struct locker *l);
int head_register_regions(rados_ioctx_t io, const char *oid, const uint64_t *regions, size_t n);

/* The user's xattrs (xattrs.c): each one round trip on the head. */
int head_setxattr(rados_ioctx_t io, const char *oid, const char *name, const void *value,
		  size_t len);
int head_rmxattr(rados_ioctx_t io, const char *oid, const char *name);
int head_getxattrs(rados_ioctx_t io, const char *oid, struct striped_xattrs **out);

#endif /* STRIPED_HEAD_H */
