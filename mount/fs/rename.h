/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rename: RADOS cannot rename an object, so a file is copied to its new
 * name, its inode number with it (mount.ino), then the old name removed; a
 * directory one name below it at a time. mount/SEMANTICS.md says what is
 * and is not atomic.
 */
#ifndef MOUNT_RENAME_H
#define MOUNT_RENAME_H

#include "mount.h"

/* rename(2) of path from to path to (flags: RENAME_NOREPLACE, else -EINVAL). */
int rename_path(struct mount *m, const char *from, const char *to, unsigned int flags);

#endif /* MOUNT_RENAME_H */
