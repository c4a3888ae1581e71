/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cls_lock.c: Ceph's cls "lock" requests, encoded by hand (pure); its
 * get_info reply is decoded by lock_info.c.
 */
#ifndef STRIPED_CLS_LOCK_H
#define STRIPED_CLS_LOCK_H

#include <sys/types.h>

#include "striped_i.h"

/* An encoded lock request: our names, cookies and descriptions are short. */
#define LOCK_REQ_MAX 256

/* cls_lock's types and flags (Ceph's cls_lock_types.h). */
enum { LOCK_EXCLUSIVE = 1, LOCK_SHARED = 2 };
#define LOCK_FLAG_MAY_RENEW 0x1
#define LOCK_FLAG_MUST_RENEW 0x2

struct lock_req {
	const char *name;
	int type;
	const char *cookie;
	const char *tag;
	const char *description;
	uint32_t seconds;
	uint8_t flags;
};

/* Each the request's length, or -ERANGE when cap is too small. */
ssize_t cls_lock_encode_lock(char *buf, size_t cap, const struct lock_req *req);
ssize_t cls_lock_encode_unlock(char *buf, size_t cap, const char *name, const char *cookie);
/* cls_lock_assert_op: is the lock req describes still held? */
ssize_t cls_lock_encode_assert(char *buf, size_t cap, const struct lock_req *req);
/* cls_lock's get_info request for the lock name (its reply: lock_info.c). */
ssize_t cls_lock_encode_get_info(char *buf, size_t cap, const char *name);

#endif /* STRIPED_CLS_LOCK_H */
