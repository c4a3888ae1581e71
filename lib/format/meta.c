// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The head object's metadata as libradosstriper writes it: each layout field
 * and the size as ASCII decimal, without a NUL. Pure: parsing and formatting.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "completion.h"
#include "layout.h"
#include "meta.h"

int meta_parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	/* Tolerate a trailing NUL some writers add; nothing else. */
	if (len && s[len - 1] == '\0')
		len--;
	if (len == 0)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int meta_format_u64(uint64_t v, char buf[DECIMAL_MAX])
{
	return snprintf(buf, DECIMAL_MAX, "%llu", (unsigned long long)v);
}

/* ---- the head's xattrs, decoded ---- */

static const char *const field_keys[META_FIELDS] = {
    XATTR_STRIPE_UNIT, XATTR_STRIPE_COUNT, XATTR_OBJECT_SIZE, XATTR_SIZE, XATTR_ID, XATTR_RESERVED,
};

const char *meta_field_key(int field)
{
	return field_keys[field];
}

uint64_t *meta_field(struct head_meta *m, int field)
{
	uint64_t *const fields[META_FIELDS] = {
	    &m->layout.stripe_unit,
	    &m->layout.stripe_count,
	    &m->layout.object_size,
	    &m->size,
	    &m->id,
	    &m->reserved,
	};

	return fields[field];
}

void meta_region_key(uint64_t region, char key[META_REGION_KEY_MAX])
{
	snprintf(key, META_REGION_KEY_MAX, XATTR_REGION_PREFIX "%016llx",
		 (unsigned long long)region);
}

void meta_head_init(struct head_meta *m)
{
	memset(m, 0, sizeof(*m));
}

void meta_head_new(struct head_meta *m, const struct striped_layout *l, uint64_t id)
{
	meta_head_init(m);
	m->layout = *l;
	m->id = id;
}

void head_meta_free(struct head_meta *m)
{
	free(m->regions);
	m->regions = NULL;
	m->nregions = 0;
}

uint64_t *head_meta_take_regions(struct head_meta *m, size_t *n)
{
	uint64_t *regions = m->regions;

	*n = m->nregions;
	m->regions = NULL;
	m->nregions = 0;
	return regions;
}

/* "striper.region.%016llx": remember the region (any hex number strtoull reads, as written). */
static int take_region(struct head_meta *m, const char *key)
{
	size_t plen = strlen(XATTR_REGION_PREFIX);
	uint64_t *more;
	char *end;
	unsigned long long r;

	if (strncmp(key, XATTR_REGION_PREFIX, plen))
		return 0;
	r = strtoull(key + plen, &end, 16);
	if (*end || end == key + plen)
		return 0;
	more = realloc(m->regions, (m->nregions + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	m->regions = more;
	m->regions[m->nregions++] = r;
	return 0;
}

int meta_head_take(struct head_meta *m, const char *key, const char *val, size_t len)
{
	for (int i = 0; i < META_FIELDS; i++) {
		if (strcmp(key, field_keys[i]))
			continue;
		if (meta_parse_u64(val, len, meta_field(m, i)))
			return -EUCLEAN;
		m->found |= 1u << i;
		return 0;
	}
	return take_region(m, key);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int meta_head_finish(struct head_meta *m, int r)
{
	if (r >= 0) {
		if (m->nregions > 1)
			qsort(m->regions, m->nregions, sizeof(m->regions[0]), u64_cmp);
		if ((m->found & HEAD_META_REQUIRED) != HEAD_META_REQUIRED)
			r = m->found ? -EUCLEAN : -ENODATA;
		else if (layout_validate(&m->layout))
			r = -EUCLEAN;
		else
			r = 0;
	}
	if (r)
		head_meta_free(m);
	return r;
}

bool meta_same_file(const struct head_meta *a, const struct striped_layout *layout, uint64_t id)
{
	return a->id == id && a->layout.stripe_unit == layout->stripe_unit &&
	       a->layout.stripe_count == layout->stripe_count &&
	       a->layout.object_size == layout->object_size;
}

/*
 * Ceph's cls "lock" requests, encoded by hand so they can travel in a write
 * operation that carries LIBRADOS_OPERATION_FULL_TRY (rados_lock_exclusive()
 * takes no flags and would wait forever on a full cluster). The layout is
 * Ceph's ENCODE_START(1, 1) envelope: version, compat, payload length, then
 * strings as length-prefixed bytes and the duration as seconds, nanoseconds.
 */
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

ssize_t meta_encode_lock(char *buf, size_t cap, const struct lock_req *req)
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

ssize_t meta_encode_unlock(char *buf, size_t cap, const char *name, const char *cookie)
{
	struct enc e = {buf, 0, cap};
	size_t at = enc_start(&e);

	enc_str(&e, name);
	enc_str(&e, cookie);
	enc_finish(&e, at);
	return e.len <= cap ? (ssize_t)e.len : -ERANGE;
}

/* cls_lock_assert_op: name, type, cookie, tag. */
ssize_t meta_encode_assert_locked(char *buf, size_t cap, const struct lock_req *req)
{
	struct enc e = {buf, 0, cap};
	size_t at = enc_start(&e);

	enc_lock_id(&e, req);
	enc_finish(&e, at);
	return e.len <= cap ? (ssize_t)e.len : -ERANGE;
}

/* cls_lock_get_info_op: the lock's name. */
ssize_t meta_encode_get_info(char *buf, size_t cap, const char *name)
{
	struct enc e = {buf, 0, cap};
	size_t at = enc_start(&e);

	enc_str(&e, name);
	enc_finish(&e, at);
	return e.len <= cap ? (ssize_t)e.len : -ERANGE;
}

/* Every libstriped lock cookie starts so; libradosstriper's are UUIDs. */
#define COOKIE_PREFIX "striped-"

/* A lock cookie no other handle of any process uses. */
void meta_new_cookie(char buf[COOKIE_MAX])
{
	static atomic_uint seq;

	snprintf(buf, COOKIE_MAX, COOKIE_PREFIX "%ld-%u-%llx", (long)getpid(),
		 atomic_fetch_add(&seq, 1), (unsigned long long)striped_now_ns());
}

bool meta_cookie_is_ours(const char *cookie)
{
	return !strncmp(cookie, COOKIE_PREFIX, strlen(COOKIE_PREFIX));
}

/* libradosstriper's cookies: a UUID as Ceph prints it, 8-4-4-4-12 hex digits. */
static bool is_uuid(const char *s)
{
	static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

	for (size_t i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] == '-' ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	return s[sizeof(shape) - 1] == '\0';
}

int meta_locker_owner(const char *cookie, const char *tag, bool exclusive)
{
	if (meta_cookie_is_ours(cookie))
		return STRIPED_LOCKER_LIBSTRIPED;
	/* Its shared lockers use "Tag", its exclusive ones (truncate, remove) "". */
	if (is_uuid(cookie) && !strcmp(tag, exclusive ? STRIPER_EXCLUSIVE_TAG : STRIPER_SHARED_TAG))
		return STRIPED_LOCKER_LIBRADOSSTRIPER;
	return STRIPED_LOCKER_OTHER;
}

bool meta_cookie_answered(const char *answered, size_t len, const char *cookie)
{
	size_t want = strlen(cookie);

	for (size_t at = 0; at < len;) {
		const char *one = answered + at;
		size_t n = strnlen(one, len - at);

		if (n == want && !memcmp(one, cookie, n))
			return true;
		at += n + 1;
	}
	return false;
}

/* ---- client addresses, as librados prints them ---- */

/* An address vector "[v2:A,v1:B]" (a lone IPv6 address also begins with '['). */
static bool addr_is_vector(const char *s)
{
	return !strncmp(s, "[v1:", 4) || !strncmp(s, "[v2:", 4) || !strncmp(s, "[any:", 5) ||
	       !strcmp(s, "[]");
}

static const char *addr_skip_type(const char *s)
{
	static const char *const types[] = {"v1:", "v2:", "any:"};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strncmp(s, types[i], strlen(types[i])))
			return s + strlen(types[i]);
	return s;
}

struct addr_iter {
	const char *at;
	bool vector;
};

static void addr_iter_init(struct addr_iter *it, const char *s)
{
	it->vector = addr_is_vector(s);
	it->at = s + it->vector;
}

/* The next address of the vector (or the lone one): "IP:PORT/NONCE", its type left out. */
static bool addr_iter_next(struct addr_iter *it, const char **addr, size_t *len)
{
	const char *p, *end;

	if (!*it->at || *it->at == ']')
		return false;
	p = addr_skip_type(it->at);
	end = p;
	if (*end == '[') { /* IPv6: "[::1]:0/5" */
		end = strchr(end, ']');
		end = end ? end + 1 : p + strlen(p);
	}
	end += it->vector ? strcspn(end, ",]") : strlen(end);
	*addr = p;
	*len = (size_t)(end - p);
	it->at = *end == ',' ? end + 1 : end;
	return *len > 0;
}

bool meta_addr_shared(const char *a, const char *b)
{
	struct addr_iter ia, ib;
	const char *x, *y;
	size_t nx, ny;

	for (addr_iter_init(&ia, a); addr_iter_next(&ia, &x, &nx);)
		for (addr_iter_init(&ib, b); addr_iter_next(&ib, &y, &ny);)
			if (nx == ny && !memcmp(x, y, nx))
				return true;
	return false;
}

uint64_t meta_mark_target(uint64_t end)
{
	uint64_t step = end < MARK_STEP_MIN ? MARK_STEP_MIN : end > MARK_STEP_MAX ? MARK_STEP_MAX : end;

	return end > UINT64_MAX - step ? UINT64_MAX : end + step;
}
