/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Extended attributes: names in the user. namespace only, kept on the
 * head (libstriped's xattrs; a directory's on its marker). Other
 * namespaces: none to get, none may be set. libstriped's own (striper.*,
 * the lock) and the mount's (mount.*) are never listed nor settable.
 */
#ifndef MOUNT_XATTR_H
#define MOUNT_XATTR_H

#include <sys/types.h>

#include "mount.h"

/* The errno a FUSE reply gives: ENODATA is an answer here ("no such attribute"). */
int xattr_errno(ssize_t r);

/* The value of name on n: its length, copied into buf when size (-ERANGE: too small). */
ssize_t xattr_get(struct mount *m, struct node *n, const char *name, char *buf, size_t size);
/* n's user. names, each NUL-ended, in *buf (free it): their length (size: -ERANGE past it). */
ssize_t xattr_list(struct mount *m, struct node *n, size_t size, char **buf);
/* Set (XATTR_CREATE, XATTR_REPLACE as setxattr(2)) or remove name on n. */
int xattr_set(struct mount *m, struct node *n, const char *name, const char *value, size_t size,
	      int flags);
int xattr_remove(struct mount *m, struct node *n, const char *name);

#endif /* MOUNT_XATTR_H */
