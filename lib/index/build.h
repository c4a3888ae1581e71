/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * build.c: the index as a whole: built from a walk's names, its objects
 * read and removed one by one (the caller finds them: a walk of the index
 * pool, index_object_dir() telling which are this index's).
 */
#ifndef STRIPED_INDEX_BUILD_H
#define STRIPED_INDEX_BUILD_H

#include "place.h"

/* Every name's entry and its directories', many objects written at once. */
int index_build(const struct index_place *p, char *const *names, size_t n);

/*
 * Whether oid is one of p's index objects: 1 and its directory
 * (oid + *dir_off, to the end), 0 when not.
 */
int index_object_dir(const struct index_place *p, const char *oid, size_t *dir_off);

/* What index_object_read() calls: a key of dir (NSINDEX_MARKER_KEY for its marker). */
typedef int (*index_key_fn)(void *arg, const char *dir, const char *key, bool is_dir);
/* Every key of one index object; *keys their count. */
int index_object_read(const struct index_place *p, const char *oid, index_key_fn fn, void *arg,
		      uint64_t *keys);
/* Index objects removed, many at once. */
int index_objects_remove(const struct index_place *p, char *const *oids, size_t n);

#endif /* STRIPED_INDEX_BUILD_H */
