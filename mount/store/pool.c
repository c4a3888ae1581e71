// SPDX-License-Identifier: LGPL-2.1-or-later
/* The pool as statfs(2) shows it (pool.h). */
#include <string.h>

#include "pool.h"

int pool_statfs(rados_t cluster, rados_ioctx_t io, struct statvfs *sv)
{
	struct rados_cluster_stat_t cs;
	struct rados_pool_stat_t ps;
	int r = rados_cluster_stat(cluster, &cs);

	if (!r)
		r = rados_ioctx_pool_stat(io, &ps);
	if (r)
		return r;
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = sv->f_frsize = 4096;
	sv->f_blocks = cs.kb / 4;
	sv->f_bfree = sv->f_bavail = cs.kb_avail / 4;
	sv->f_files = ps.num_objects + cs.kb_avail / 4;
	sv->f_ffree = sv->f_favail = cs.kb_avail / 4;
	sv->f_namemax = 255;
	return 0;
}
