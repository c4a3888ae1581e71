// SPDX-License-Identifier: LGPL-2.1-or-later
/* The pool walk (walk.h): one pass over every object name of the pool. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int walk_pool(rados_ioctx_t io, struct names *out)
{
	rados_list_ctx_t ctx;
	const char *oid;
	size_t len;
	int r = rados_nobjects_list_open(io, &ctx);

	if (r < 0)
		return r;
	while ((r = rados_nobjects_list_next(ctx, &oid, NULL, NULL)) == 0) {
		char *s;

		if (!walk_is_head(oid, &len))
			continue;
		s = strndup(oid, len);
		if (!s || names_append_taken(out, s)) {
			free(s);
			r = -ENOMEM;
			break;
		}
	}
	rados_nobjects_list_close(ctx);
	if (r != -ENOENT) {
		names_clear(out);
		return r;
	}
	names_sort(out);
	return 0;
}
