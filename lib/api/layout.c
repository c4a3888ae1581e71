// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The public layout maths: doors into pure/layout.c, which lib/ calls by its
 * own names (a public function is never called inside lib/: the layers test).
 */
#include <errno.h>

#include "layout.h"

int striped_layout_validate(const struct striped_layout *l)
{
	return layout_validate(l);
}

ssize_t striped_layout_map(const struct striped_layout *l, uint64_t off, uint64_t len,
			   struct striped_extent *ext, size_t max)
{
	return layout_map(l, off, len, ext, max);
}

int striped_layout_unmap(const struct striped_layout *l, uint64_t objectno, uint64_t obj_off,
			 uint64_t *off)
{
	return layout_unmap(l, objectno, obj_off, off);
}

int striped_layout_object_count(const struct striped_layout *l, uint64_t file_size,
				uint64_t *count)
{
	return layout_object_count(l, file_size, count);
}

int striped_layout_object_size(const struct striped_layout *l, uint64_t objectno,
			       uint64_t file_size, uint64_t *size)
{
	return layout_object_size(l, objectno, file_size, size);
}

int striped_object_name(const char *name, uint64_t objectno, char *buf, size_t len)
{
	return layout_object_name(name, objectno, buf, len);
}

ssize_t striped_object_name_split(const char *oid, uint64_t *objectno)
{
	ssize_t n;

	if (!oid || !objectno)
		return -EINVAL;
	n = layout_object_split(oid, objectno);
	return n < 0 ? -EINVAL : n;
}
