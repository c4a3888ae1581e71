// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Listing the striped files of a pool. RADOS keeps no index of them, so
 * this walks the pool's objects and keeps the heads (object 0 of a file,
 * "NAME.0000000000000000") that carry a stored size: the cost is one pass
 * over every object of the pool, plus one getxattr per file found.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "head.h"
#include "layout.h"

struct striped_list {
	rados_ioctx_t io;
	rados_list_ctx_t ctx;
	char *name; /* the last name handed out */
};

int striped_list_open(rados_ioctx_t io, struct striped_list **it)
{
	struct striped_list *l;
	int r;

	if (!io || !it)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->io = io;
	r = rados_nobjects_list_open(io, &l->ctx);
	if (r < 0) {
		free(l);
		return r;
	}
	*it = l;
	return 0;
}

/* The file's name if oid is a head object's name (NAME.0000000000000000), else NULL. */
static char *file_of_head(const char *oid)
{
	uint64_t objectno;
	ssize_t n = layout_object_split(oid, &objectno);

	return n < 0 || objectno ? NULL : strndup(oid, (size_t)n);
}

int striped_list_next(struct striped_list *it, const char **name, uint64_t *size)
{
	const char *oid;
	int r;

	if (!it || !name || !size)
		return -EINVAL;
	free(it->name);
	it->name = NULL;
	for (;;) {
		r = rados_nobjects_list_next(it->ctx, &oid, NULL, NULL);
		if (r == -ENOENT) { /* the end */
			*name = NULL;
			*size = 0;
			return 0;
		}
		if (r < 0)
			return r;
		it->name = file_of_head(oid);
		if (!it->name)
			continue;
		r = head_get_size(it->io, oid, size);
		if (r == 0) {
			*name = it->name;
			return 0;
		}
		free(it->name);
		it->name = NULL;
		/* Not a striped file (no size, or not a number), or removed since the walk. */
		if (r != -ENODATA && r != -ENOENT && r != -EUCLEAN)
			return r;
	}
}

void striped_list_close(struct striped_list *it)
{
	if (!it)
		return;
	rados_nobjects_list_close(it->ctx);
	free(it->name);
	free(it);
}
