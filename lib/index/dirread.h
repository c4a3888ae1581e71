/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dirread.c: one directory's entries read from its shards, in key order:
 * every shard's first page asked at once, the pages merged, a shard's next
 * page asked when the merge reaches its end. The directory's marker (the key
 * NSINDEX_MARKER_KEY) comes first, as its name (the directory's) sorts
 * before every name below it.
 */
#ifndef STRIPED_INDEX_DIRREAD_H
#define STRIPED_INDEX_DIRREAD_H

#include "place.h"

struct index_dir;

/*
 * Open directory dir[0..dir_len) of p's index (p must outlive it): keys
 * starting with key_prefix ("" for all), after start_after (NULL: from the
 * first). 0; -ENOMEM; librados errors (-ENOENT from shards counts as empty).
 */
int index_dir_open(const struct index_place *p, const char *dir, size_t dir_len,
		   const char *key_prefix, const char *start_after, struct index_dir **out);
/*
 * The next key (valid until the next call; NULL after the last) and whether
 * it names a directory ("b/"); the marker first, as NSINDEX_MARKER_KEY.
 * 0; librados errors; -EUCLEAN for an entry this version does not know.
 */
int index_dir_next(struct index_dir *d, const char **key, bool *is_dir);
void index_dir_close(struct index_dir *d);

/* Whether directory dir[0..dir_len) has no entry left (its marker aside). */
int index_dir_is_empty(const struct index_place *p, const char *dir, size_t dir_len, bool *empty);

#endif /* STRIPED_INDEX_DIRREAD_H */
