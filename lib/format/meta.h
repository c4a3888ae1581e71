/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* meta.c: head-object xattrs, names and lock requests (pure) */
#ifndef STRIPED_META_H
#define STRIPED_META_H

#include "striped_i.h"

#define XATTR_STRIPE_UNIT "striper.layout.stripe_unit"
#define XATTR_STRIPE_COUNT "striper.layout.stripe_count"
#define XATTR_OBJECT_SIZE "striper.layout.object_size"
#define XATTR_SIZE "striper.size"
/* libstriped's own: a random number given at creation, so a re-created file is told apart. */
#define XATTR_ID "striper.id"
/*
 * libstriped's own: "striper.region.%016llx" is set (value "1") before any
 * byte goes to an object of that region, for objects past the first
 * REGION_WALK_OBJECTS. Remove and truncate walk the first objects by name,
 * then only the registered regions: a file of 2^40 mostly missing objects is
 * cleaned without walking them all and without listing the pool.
 */
#define XATTR_REGION_PREFIX "striper.region."
/*
 * libstriped's own: the high-water mark. No byte of the file's objects lies
 * past max(striper.size, striper.reserved): a growing write raises the mark
 * (in large steps, see meta_mark_target) before it sends data past it, and
 * sends the size update beside its data. Remove and truncate clean up to
 * the mark. Missing (files of libradosstriper or of libstriped < 0.5): 0.
 */
#define XATTR_RESERVED "striper.reserved"
#define REGION_OBJECTS 4096ull
#define REGION_WALK_OBJECTS 65536ull
#define STRIPER_LOCK_NAME "striper.lock"
/* libradosstriper's tags: its shared lockers use "Tag", its exclusive ones "". */
#define STRIPER_SHARED_TAG "Tag"
#define STRIPER_EXCLUSIVE_TAG ""

/* Longest decimal uint64 plus NUL. */
#define DECIMAL_MAX 21
/* An encoded lock request: our names, cookies and descriptions are short. */
#define LOCK_REQ_MAX 256
#define COOKIE_MAX 64

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

/* ---- the head's xattrs, decoded: what a head object says the file is ---- */

struct head_meta {
	struct striped_layout layout;
	uint64_t size;
	uint64_t id; /* 0 when the file has none (libradosstriper made it) */
	uint64_t reserved; /* the high-water mark, 0 when the file has none */
	unsigned found; /* bit per field (META_FIELD_*) */
	uint64_t *regions;   /* registered regions (see REGION_OBJECTS), sorted */
	size_t nregions;
};

/* The libraries' numeric fields, in the order of struct head_meta's found bits. */
enum {
	META_FIELD_STRIPE_UNIT,
	META_FIELD_STRIPE_COUNT,
	META_FIELD_OBJECT_SIZE,
	META_FIELD_SIZE,
	META_FIELD_ID,
	META_FIELD_RESERVED,
	META_FIELDS
};
/* stripe unit, stripe count, object size, size; the id and the mark are optional. */
#define HEAD_META_REQUIRED 0xfu
/* "striper.region." and 16 hex digits, and a NUL */
#define META_REGION_KEY_MAX (sizeof(XATTR_REGION_PREFIX) + 16)

/* Where the file's objects may hold bytes up to: what remove and truncate clean. */
static inline uint64_t head_meta_end(const struct head_meta *m)
{
	return m->reserved > m->size ? m->reserved : m->size;
}

/* The xattr name of field (META_FIELD_*). */
const char *meta_field_key(int field);
/* The field's value in m. */
uint64_t *meta_field(struct head_meta *m, int field);
/* The xattr that registers a region: "striper.region.%016llx". */
void meta_region_key(uint64_t region, char key[META_REGION_KEY_MAX]);
/*
 * Decoding a head: meta_head_init(), then every xattr the object has to
 * meta_head_take() (in any order, as the cluster returns them), then
 * meta_head_finish(). Pure: the fuzzer drives them with made-up sets.
 */
void meta_head_init(struct head_meta *m);
/* What a head just created says: layout l, the id, size 0, no mark, no region. */
void meta_head_new(struct head_meta *m, const struct striped_layout *l, uint64_t id);
/*
 * One xattr: a field of the libraries (its value an ASCII decimal, a
 * trailing NUL tolerated), a registered region, or anything else (ignored).
 * Returns 0; -EUCLEAN when a field is no decimal number in range; -ENOMEM.
 */
int meta_head_take(struct head_meta *m, const char *key, const char *val, size_t len);
/*
 * After the last xattr; r is what reading them returned (a negative errno
 * passes through). Returns 0 when m describes a striped file (the regions
 * sorted); -ENODATA when the object carries none of the libraries' fields
 * (no striped file); -EUCLEAN when it carries some but not all, or no
 * valid layout. Frees what m holds unless it returns 0.
 */
int meta_head_finish(struct head_meta *m, int r);
void head_meta_free(struct head_meta *m);
/* The regions of m, taken out of it (free() them): m keeps none. */
uint64_t *head_meta_take_regions(struct head_meta *m, size_t *n);
/* Whether two heads are the same file instance: the same id and layout. */
bool meta_same_file(const struct head_meta *a, const struct striped_layout *layout, uint64_t id);

int meta_parse_u64(const char *s, size_t len, uint64_t *out);
int meta_format_u64(uint64_t v, char buf[DECIMAL_MAX]);
ssize_t meta_encode_lock(char *buf, size_t cap, const struct lock_req *req);
ssize_t meta_encode_unlock(char *buf, size_t cap, const char *name, const char *cookie);
ssize_t meta_encode_assert_locked(char *buf, size_t cap, const struct lock_req *req);
/* cls_lock's get_info request for the lock name (its reply: lock_info.c). */
ssize_t meta_encode_get_info(char *buf, size_t cap, const char *name);
void meta_new_cookie(char buf[COOKIE_MAX]);
/* Whether a lock cookie is libstriped's (its holders watch the head and answer). */
bool meta_cookie_is_ours(const char *cookie);
/* Whose a holder of the lock is (STRIPED_LOCKER_*), from its cookie and the lock's tag. */
int meta_locker_owner(const char *cookie, const char *tag, bool exclusive);
/* Whether answered ('\\0'-separated cookies, len bytes) holds cookie. */
bool meta_cookie_answered(const char *answered, size_t len, const char *cookie);
/*
 * Whether two client addresses, as librados prints them (a lone
 * "127.0.0.1:0/3490100637" or a vector "[v2:...,v1:...]"), have an entity
 * address in common (IP, port and nonce; v1, v2 or any alike): one
 * blocklist entry would fence both.
 */
bool meta_addr_shared(const char *a, const char *b);
/*
 * Where to raise the high-water mark for a write ending at end: ahead by
 * as much again as the file holds, at least MARK_STEP_MIN and at most
 * MARK_STEP_MAX, so a file growing from nothing raises it once per doubling
 * and then once per MARK_STEP_MAX, never once per call.
 */
#define MARK_STEP_MIN (4ull << 20)
#define MARK_STEP_MAX (256ull << 20)
uint64_t meta_mark_target(uint64_t end);

#endif /* STRIPED_META_H */
