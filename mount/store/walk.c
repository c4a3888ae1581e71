// SPDX-License-Identifier: LGPL-2.1-or-later
/* The pool walk (walk.h): one pass over every object name of the pool, in parallel. */
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

/* The walk's function: keep the heads' names. */
static int keep_head(void *arg, const char *oid)
{
	struct names *out = arg;
	size_t len;
	char *s;

	if (!walk_is_head(oid, &len))
		return 0;
	s = strndup(oid, len);
	if (!s || names_append_taken(out, s)) {
		free(s);
		return -ENOMEM;
	}
	return 0;
}

int walk_pool(rados_ioctx_t io, struct names *out)
{
	int r = striped_objects_walk(io, 0, keep_head, out);

	if (r) {
		names_clear(out);
		return r;
	}
	names_sort(out);
	return 0;
}
