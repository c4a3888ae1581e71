/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The names of a pool's striped files: from its namespace index when it has
 * one (striped index create), else from a walk of its object names, where a
 * head is an object named NAME.0000000000000000. No head is read: whether a
 * head is a striped file is the attributes' concern (heads.h).
 */
#ifndef MOUNT_WALK_H
#define MOUNT_WALK_H

#include <stdbool.h>
#include <stddef.h>

#include <rados/librados.h>

#include "names.h"

/*
 * Every striped file's name in io's pool (its namespace), sorted, into out
 * (empty before): from the pool's namespace index when it has one, else
 * from a walk of its object names.
 */
int walk_pool(rados_ioctx_t io, struct names *out);

/*
 * The names below dir ("" the root; no trailing '/'), into out (empty
 * before): one level (its files, and each directory as its own name
 * "dir/sub/"), or every name below it. From the index, or a walk.
 */
int walk_dir(rados_ioctx_t io, const char *dir, bool one_level, struct names *out);

/* Whether io's pool lists from a namespace index that is ready (one getxattr). */
bool walk_pool_indexed(rados_ioctx_t io);

/* Whether oid is a head object's name ("NAME.0000000000000000", NAME not empty). Pure. */
bool walk_is_head(const char *oid, size_t *name_len);

#endif /* MOUNT_WALK_H */
