// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An operator's repair of a file by name (its orphans removed): no handle
 * is open, so no mode stands between the call and the engine's exclusive
 * section (engine/io_repair.c), which it reaches directly (lib/layers.conf).
 */
#include <errno.h>

#include "io.h"

int striped_repair(rados_ioctx_t io, const char *name, const uint64_t *objectnos, size_t n)
{
	if (!objectnos && n)
		return -EINVAL;
	return io_repair(io, name, objectnos, n);
}
