/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rados_cxx.cc: what only librados' C++ API can build */
#ifndef STRIPED_RADOS_CXX_H
#define STRIPED_RADOS_CXX_H

#include "striped_i.h"

/*
 * Send "xattr = want if want > xattr (as numbers)" on oid (the size or the
 * mark), completing c with 0, or -ECANCELED when the stored value is
 * already >= want. The C API compares xattrs only as strings, which orders
 * "9" after "10".
 */
int size_cas_send(rados_ioctx_t io, const char *oid, rados_completion_t c, const char *xattr,
		  uint64_t want, int flags);
/* "if striper.size == old (as numbers), set it to size", synchronously; -ECANCELED if not. */
int size_cas_eq(rados_ioctx_t io, const char *oid, uint64_t old, uint64_t size, int flags);
/*
 * "if the exclusive lock is ours and striper.size == old, set it to size",
 * and the mark (striper.reserved) to size, synchronously.
 */
int size_set_fenced(rados_ioctx_t io, const char *oid, const char *assert_in, size_t assert_len,
		    uint64_t old, uint64_t size, int flags);

/*
 * Take a lock (lock_in: an encoded cls_lock request) on the head only if it
 * still says what m was read as: the same layout and id, a size and a mark
 * no lower. -ECANCELED otherwise (and when the head is no striped file any
 * more), with nothing written.
 */
struct head_meta;
int lock_if_unchanged(rados_ioctx_t io, const char *oid, const char *lock_in, size_t lock_len,
		      const struct head_meta *m, int flags);

/*
 * Remove the head only if it still says what m was read as (layout, id,
 * size and mark equal) and the lock's xattr still holds lock_val: else
 * -ECANCELED, with nothing removed.
 */
int remove_if_unchanged(rados_ioctx_t io, const char *oid, const struct head_meta *m,
			const void *lock_val, size_t lock_len, int flags);

/*
 * Replace the head's bytes with len of buf (its size then len) and set the
 * xattrs x, only if it still says what m was read as (layout, id, size and
 * mark equal) and the lock's xattr still holds lock_val: else -ECANCELED,
 * with nothing changed.
 */
struct striped_xattr_value;
int replace_if_unchanged(rados_ioctx_t io, const char *oid, const struct head_meta *m,
			 const void *lock_val, size_t lock_len, const void *buf, size_t len,
			 const struct striped_xattr_value *x, size_t nx, int flags);

/*
 * Take the holder's mark (XATTR_HELD) off the head if it still is held's:
 * -ECANCELED when it is not (written back, or taken off by another reader).
 */
int unhold_if(rados_ioctx_t io, const char *oid, uint64_t held);

/* The value's whole length (even above len); at most len bytes go to buf. */
ssize_t head_getxattr(rados_ioctx_t io, const char *oid, const char *name, void *buf, size_t len);
/* The stored size and the head object's mtime, in one read. */
int head_stat_time(rados_ioctx_t io, const char *oid, uint64_t *size, struct timespec *mtime);
/* Called for each xattr of an object; a non-zero return stops the walk with it. */
typedef int (*head_xattr_fn)(void *arg, const char *key, const char *val, size_t len);
/* What a read of the head takes besides its mtime and xattrs, in the same operation. */
struct head_read_extra {
	void *buf;		  /* up to len of the object's bytes from off, */
	size_t len;		  /* (0: none) */
	uint64_t off;
	size_t nread;		  /* how many came (the object may end before) */
	const char *lock_in;	  /* cls_lock's get_info request */
	size_t lock_len;
	char *lock_reply;	  /* its reply: free() it */
	size_t lock_reply_len;
};
/* The object's mtime, and every xattr of it to fn, and x (if not NULL), in one read. */
int head_stat_xattrs(rados_ioctx_t io, const char *oid, struct timespec *mtime,
		     head_xattr_fn fn, void *arg, struct head_read_extra *x);

/* A client watching an object: its global id (client.ID) and its address. */
struct watcher {
	int64_t id;
	char addr[256]; /* as obj_watch_t has it */
};
/* The watchers of oid in *out (free() it); how many, or -errno. */
ssize_t head_watchers(rados_ioctx_t io, const char *oid, struct watcher **out);

/* One object's write operation: add its pieces in object order, send it once. */
struct obj_write;
/* op_flags: librados op flags given to each write (the call's fadvise hints). */
struct obj_write *obj_write_new(int op_flags);
void obj_write_free(struct obj_write *w);
/* zero_copy: the operation references buf, which must stay unchanged until it completes. */
int obj_write_add(struct obj_write *w, const char *buf, size_t len, uint64_t obj_off,
		  bool zero_copy);
/* A single run covering the whole object goes as write_full. */
int obj_write_send(struct obj_write *w, rados_ioctx_t io, const char *oid, rados_completion_t c,
		   uint64_t object_size, int flags);

#endif /* STRIPED_RADOS_CXX_H */
