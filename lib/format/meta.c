// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The head object's metadata as libradosstriper writes it (each layout field
 * and the size as ASCII decimal, without a NUL), and libstriped's own beside
 * it (the id, the mark, the regions), decoded from the xattrs a read
 * returns in any order. What comes from a cluster is untrusted: a field
 * that is no number, or a head missing some, is refused (-EUCLEAN), never
 * guessed at. Pure: unit-tested and fuzzed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "layout.h"
#include "meta.h"

/* ---- the head's xattrs, decoded ---- */

static const char *const field_keys[META_FIELDS] = {
    XATTR_STRIPE_UNIT, XATTR_STRIPE_COUNT, XATTR_OBJECT_SIZE, XATTR_SIZE, XATTR_ID, XATTR_RESERVED,
    XATTR_HELD,
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
	    &m->held,
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
	m->reserved = l->stripe_unit;
}

void meta_head_as_read(struct head_meta *m, const struct striped_layout *l, uint64_t size,
		       uint64_t id, uint64_t reserved)
{
	meta_head_init(m);
	m->layout = *l;
	m->size = size;
	m->id = id;
	m->reserved = reserved;
	m->found = HEAD_META_REQUIRED | (id ? 1u << META_FIELD_ID : 0) |
		   (reserved ? 1u << META_FIELD_RESERVED : 0);
}

void meta_head_set_held(struct head_meta *m, uint64_t held)
{
	m->held = held;
	if (held)
		m->found |= 1u << META_FIELD_HELD;
	else
		m->found &= ~(1u << META_FIELD_HELD);
}

void meta_head_new_whole(struct head_meta *m, const struct striped_layout *l, uint64_t id,
			 uint64_t size)
{
	meta_head_new(m, l, id);
	m->size = size;
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
		if (decimal_parse(val, len, meta_field(m, i)))
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

