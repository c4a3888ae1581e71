// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A striped file's name: what every call by name refuses before any round
 * trip, and the name of its head object (object 0, "NAME.%016llx"), which
 * the lease, handover, truncate, remove and the operators' calls all use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "layout.h"
#include "name.h"

int name_check(rados_ioctx_t io, const char *name)
{
	uint64_t max;

	if (!io || !name || !*name)
		return -EINVAL;
	max = conf_u64(io, "osd_max_object_name_len", 2048);
	if (strlen(name) + OBJECT_SUFFIX_LEN > max)
		return -ENAMETOOLONG;
	return 0;
}

char *name_head_oid(const char *name)
{
	size_t len = strlen(name) + OBJECT_SUFFIX_LEN + 1;
	char *oid = malloc(len);

	if (oid)
		layout_object_name(name, 0, oid, len);
	return oid;
}

int name_oid(rados_ioctx_t io, const char *name, char **oid)
{
	int r = name_check(io, name);

	if (r)
		return r;
	*oid = name_head_oid(name);
	return *oid ? 0 : -ENOMEM;
}
