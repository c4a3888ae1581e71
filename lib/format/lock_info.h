/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lock_info.c: cls_lock's get_info reply, decoded; its holders named as librados names them (pure)
 */
#ifndef STRIPED_LOCK_INFO_H
#define STRIPED_LOCK_INFO_H

#include <sys/types.h>

#include "cls_lock.h"
#include "cookie.h"

/* A holder of the head's lock, as cls_lock lists it. */
struct locker {
	char client[64]; /* "client.4123" */
	char cookie[COOKIE_MAX + 64];
	char addr[128];
};
/* The most holders a listing keeps (more are not listed). */
#define LOCKERS_MAX 64
/* The lock's tag, as kept here: libradosstriper's and ours are short (longer ones are cut). */
#define LOCK_TAG_MAX 64

/*
 * The reply of cls_lock's get_info (cls_lock_get_info_reply, as an OSD
 * encodes it): its holders, the first max of them into out, each named as
 * librados' rados_list_lockers() names them ("client.4123", the cookie,
 * "v1:127.0.0.1:0/3490100637"; a string longer than its field is cut, one
 * with a NUL byte ends there); whether the lock is exclusive; its tag (tag
 * may be NULL). Returns how many holders went to out; -EBADMSG when the
 * reply is not such an encoding (as librados says of one it cannot decode).
 */
ssize_t lock_info_decode(const void *reply, size_t len, struct locker *out, size_t max,
			 bool *exclusive, char *tag);

/*
 * The lock's xattr as cls_lock leaves it once its last holder let go: no
 * holder, its type and tag kept (lock_info_t). A head made whole by name
 * carries it (head_create_whole()), so that it looks as a file a handle made
 * and closed does. Returns its length; -ERANGE when cap is too small.
 */
ssize_t lock_info_encode_free(char *buf, size_t cap, int type, const char *tag);

#endif /* STRIPED_LOCK_INFO_H */
