/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta.c: the on-RADOS format of a striped file's head, libradosstriper's
 * and libstriped's: the xattrs' names, what they say decoded (struct
 * head_meta), the lock's name and tags (pure).
 */
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
 * libstriped's own (since 0.9): the client id of a holder that made the
 * file (striped_head_take()) and has not written it back; readers ask it
 * first (lease/holder.c). Missing: no one holds it.
 */
#define XATTR_HELD "striper.held"
/*
 * libstriped's own: the high-water mark. No byte of the file's objects lies
 * past max(striper.size, striper.reserved): a growing write raises the mark
 * (in large steps, see mark_step.c) before it sends data past it, and
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

/* ---- the head's xattrs, decoded: what a head object says the file is ---- */

struct head_meta {
	struct striped_layout layout;
	uint64_t size;
	uint64_t id; /* 0 when the file has none (libradosstriper made it) */
	uint64_t reserved; /* the high-water mark, 0 when the file has none */
	uint64_t held;	   /* the holder's client id (XATTR_HELD), 0 when none holds it */
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
	META_FIELD_HELD,
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
/*
 * What a head just created says: layout l, the id, size 0, no region, and
 * the mark at the first stripe unit: those bytes live in the head object
 * itself, which every cleanup reaches anyway, so a new file's first writes
 * within it need no raise (a round trip before their data).
 */
void meta_head_new(struct head_meta *m, const struct striped_layout *l, uint64_t id);
/* What a head said, as struct striped_head carries it (an id or a mark of 0: none). */
void meta_head_as_read(struct head_meta *m, const struct striped_layout *l, uint64_t size,
		       uint64_t id, uint64_t reserved);
/* m held by the holder of client id held (0: by none), as compares and creates then say. */
void meta_head_set_held(struct head_meta *m, uint64_t held);
/* As meta_head_new(), for a file made whole: its size bytes all within the first stripe unit. */
void meta_head_new_whole(struct head_meta *m, const struct striped_layout *l, uint64_t id,
			 uint64_t size);
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

#endif /* STRIPED_META_H */
