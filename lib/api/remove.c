// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A file removed by name: no handle is open, so no mode stands between the
 * call and the engine's exclusive section (engine/io_truncate.c), which it
 * reaches directly (lib/layers.conf says so).
 */
#include "api.h"
#include "io.h"

int api_remove(rados_ioctx_t io, const char *name)
{
	return io_remove(io, name);
}
