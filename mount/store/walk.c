// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pool's names (walk.h): from the namespace index when the pool has one
 * (the cost of its names), else from one pass over every object name of the
 * pool, in parallel (the cost of its objects): striped_list_open2() chooses,
 * and reads no head (names alone).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <striped.h>

#include "walk.h"

#define HEAD_SUFFIX ".0000000000000000"
#define HEAD_SUFFIX_LEN 17

bool walk_is_head(const char *oid, size_t *name_len)
{
	size_t len = strlen(oid);

	if (len <= HEAD_SUFFIX_LEN || strcmp(oid + len - HEAD_SUFFIX_LEN, HEAD_SUFFIX))
		return false;
	*name_len = len - HEAD_SUFFIX_LEN;
	return true;
}

/* The names a query lists, a prefix ("dir/sub/") taken as a directory's own name. */
static int list_names(rados_ioctx_t io, const struct striped_list_query *q, struct names *out)
{
	struct striped_list_entry e;
	struct striped_list *it;
	int r = striped_list_open2(io, q, sizeof(*q), &it);

	while (!r && !(r = striped_list_next2(it, &e, sizeof(e))) && e.name) {
		char *s = strdup(e.name);

		if (!s || names_append_taken(out, s)) {
			free(s);
			r = -ENOMEM;
		}
	}
	striped_list_close(it);
	if (r) {
		names_clear(out);
		return r;
	}
	names_sort(out);
	return 0;
}

int walk_pool(rados_ioctx_t io, struct names *out)
{
	struct striped_list_query q = {NULL, NULL, NULL, STRIPED_LIST_NAMES_ONLY};

	return list_names(io, &q, out);
}

int walk_dir(rados_ioctx_t io, const char *dir, bool one_level, struct names *out)
{
	struct striped_list_query q = {NULL, one_level ? "/" : NULL, NULL,
				       STRIPED_LIST_NAMES_ONLY};
	size_t len = strlen(dir);
	char *prefix = malloc(len + 2);
	int r;

	if (!prefix)
		return -ENOMEM;
	memcpy(prefix, dir, len);
	prefix[len] = '/';
	prefix[len + (len ? 1 : 0)] = '\0';
	q.prefix = prefix;
	r = list_names(io, &q, out);
	free(prefix);
	return r;
}

bool walk_pool_indexed(rados_ioctx_t io)
{
	struct striped_index_info info;

	return !striped_index_stat(io, 0, &info, sizeof(info)) && info.state == STRIPED_INDEX_READY;
}
