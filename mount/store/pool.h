/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pool as statfs(2) shows it: the cluster's size and free space, its objects as files. */
#ifndef MOUNT_POOL_H
#define MOUNT_POOL_H

#include <sys/statvfs.h>

#include <rados/librados.h>

/* 0 with *sv filled (4 KiB blocks; names of 255 bytes at most), or a librados error. */
int pool_statfs(rados_t cluster, rados_ioctx_t io, struct statvfs *sv);

#endif /* MOUNT_POOL_H */
