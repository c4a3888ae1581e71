/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The FUSE handlers (libfuse3's low-level API): each parses its request,
 * calls fs/ and replies. Data calls are answered from libstriped's
 * completion callbacks; metadata calls run on libfuse's worker threads,
 * which may wait.
 */
#ifndef MOUNT_LL_H
#define MOUNT_LL_H

#include <fuse_lowlevel.h>

#include "mount.h"

/* Every handler of the mount into ops. */
void ll_init(struct fuse_lowlevel_ops *ops);

/* Each file's handlers: ll_file.c, ll_name.c, ll_attr.c, ll_dir.c. */
void ll_file_init(struct fuse_lowlevel_ops *ops);
void ll_name_init(struct fuse_lowlevel_ops *ops);
void ll_attr_init(struct fuse_lowlevel_ops *ops);
void ll_dir_init(struct fuse_lowlevel_ops *ops);

#endif /* MOUNT_LL_H */
