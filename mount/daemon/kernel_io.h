/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's FUSE flags libfuse 3.14 cannot name: shared mappings of
 * direct-I/O files, and a write's "clear S_ISUID/S_ISGID" (kernel_io.c).
 */
#ifndef MOUNT_KERNEL_IO_H
#define MOUNT_KERNEL_IO_H

#include <fuse_lowlevel.h>
#include <stdbool.h>

/*
 * Carry the session's requests and replies through kernel_io.c, on the fd
 * fuse_session_mount() opened (call it after the mount, before the loop).
 * @return 0, or a negative errno (the session is left as it was)
 */
int kernel_io_attach(struct fuse_session *se);

/* Whether the INIT reply asked for shared mappings of direct-I/O files. */
bool kernel_io_mmap_shared(void);

#endif /* MOUNT_KERNEL_IO_H */
