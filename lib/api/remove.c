// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A file removed by name: no handle is open, so no mode stands between the
 * call and the engine's exclusive section (engine/io_truncate.c), which it
 * reaches directly (lib/layers.conf says so).
 */
#include <errno.h>
#include <string.h>

#include "api.h"
#include "entries.h"
#include "io.h"
#include "name.h"

/*
 * The index entry's removal goes out beside the remove and comes back if
 * the file stayed (index/entries.h). A directory's marker removed takes
 * the directory out of its parent's index when nothing is left in it; a
 * marker that was not there too (the mount's rmdir of a directory made
 * by its files' names alone).
 */
int api_remove(rados_ioctx_t io, const char *name)
{
	struct index_update *u;
	size_t len;
	int r = name_check(io, name), r2;

	if (!r)
		r = index_update_begin(io, name, false, &u);
	if (r)
		return r;
	r = io_remove(io, name);
	r2 = index_update_end(u, r);
	len = strlen(name);
	if (!r2 && (r == 0 || r == -ENOENT) && name[len - 1] == '/')
		r2 = index_prune_dir(io, name);
	return r ? r : r2;
}
