/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libstriped handles as the mount opens them: buffered (write-behind,
 * readahead, in the mount's window) for cached opens, direct for O_DIRECT
 * ones, small files and cache=kernel.
 */
#ifndef MOUNT_HANDLE_H
#define MOUNT_HANDLE_H

#include <stdbool.h>

#include "mount.h"

/*
 * A handle of path: a create asks for a new file first (STRIPED_EXCL), and
 * says in *created whether it made one, so that O_TRUNC costs nothing on a
 * file just made (a truncate takes the file's lock exclusive: 8 operations
 * on the head); a file that exists is then opened as it is (excl: -EEXIST).
 * A buffered handle gets the mount's window.
 */
int handle_open(struct mount *m, const char *path, bool create, bool excl, bool buffered,
		struct striped_file **f, bool *created);

#endif /* MOUNT_HANDLE_H */
