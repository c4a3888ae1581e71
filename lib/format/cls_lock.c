// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Ceph's cls "lock" requests, encoded by hand so they can travel in a write
 * operation that carries LIBRADOS_OPERATION_FULL_TRY (rados_lock_exclusive()
 * takes no flags and would wait forever on a full cluster). The layout is
 * Ceph's ENCODE_START(1, 1) envelope: version, compat, payload length, then
 * strings as length-prefixed bytes and the duration as seconds, nanoseconds.
 */
#include <errno.h>
#include <string.h>

#include "cls_lock.h"

struct enc {
	char *buf;
	size_t len, cap;
};

static void enc_bytes(struct enc *e, const void *p, size_t n)
{
	if (e->len + n <= e->cap)
		memcpy(e->buf + e->len, p, n);
	e->len += n;
}

static void enc_u8(struct enc *e, uint8_t v)
{
	enc_bytes(e, &v, 1);
}

static void enc_u32(struct enc *e, uint32_t v)
{
	uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

	enc_bytes(e, le, 4);
}

static void enc_str(struct enc *e, const char *s)
{
	size_t n = strlen(s);

	enc_u32(e, (uint32_t)n);
	enc_bytes(e, s, n);
}

/* Opens the envelope; returns where its length goes. */
static size_t enc_start(struct enc *e)
{
	size_t at;

	enc_u8(e, 1);
	enc_u8(e, 1);
	at = e->len;
	enc_u32(e, 0);
	return at;
}

static void enc_finish(struct enc *e, size_t at)
{
	uint32_t n = (uint32_t)(e->len - at - 4);

	if (at + 4 <= e->cap) {
		size_t end = e->len;

		e->len = at;
		enc_u32(e, n);
		e->len = end;
	}
}

/* The fields cls_lock_lock_op and cls_lock_assert_op begin with, in order. */
static void enc_lock_id(struct enc *e, const struct lock_req *req)
{
	enc_str(e, req->name);
	enc_u8(e, (uint8_t)req->type);
	enc_str(e, req->cookie);
	enc_str(e, req->tag);
}

ssize_t cls_lock_encode_lock(char *buf, size_t cap, const struct lock_req *req)
{
	struct enc e = {buf, 0, cap};
	size_t at = enc_start(&e);

	enc_lock_id(&e, req);
	enc_str(&e, req->description);
	enc_u32(&e, req->seconds);
	enc_u32(&e, 0);
	enc_u8(&e, req->flags);
	enc_finish(&e, at);
	return e.len <= cap ? (ssize_t)e.len : -ERANGE;
}

ssize_t cls_lock_encode_unlock(char *buf, size_t cap, const char *name, const char *cookie)
{
	struct enc e = {buf, 0, cap};
	size_t at = enc_start(&e);

	enc_str(&e, name);
	enc_str(&e, cookie);
	enc_finish(&e, at);
	return e.len <= cap ? (ssize_t)e.len : -ERANGE;
}

/* cls_lock_assert_op: name, type, cookie, tag. */
ssize_t cls_lock_encode_assert(char *buf, size_t cap, const struct lock_req *req)
{
	struct enc e = {buf, 0, cap};
	size_t at = enc_start(&e);

	enc_lock_id(&e, req);
	enc_finish(&e, at);
	return e.len <= cap ? (ssize_t)e.len : -ERANGE;
}

/* cls_lock_get_info_op: the lock's name. */
ssize_t cls_lock_encode_get_info(char *buf, size_t cap, const char *name)
{
	struct enc e = {buf, 0, cap};
	size_t at = enc_start(&e);

	enc_str(&e, name);
	enc_finish(&e, at);
	return e.len <= cap ? (ssize_t)e.len : -ERANGE;
}
