/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names: what a path is (a file's head and a directory's marker read
 * together), directories made and removed (markers, "DIR/"), files
 * unlinked, symlinks and empty files made whole. A path is a striped file's
 * name; "/" in it makes directories, as object stores' prefixes do.
 */
#ifndef MOUNT_TREE_H
#define MOUNT_TREE_H

#include <sys/types.h>

#include "mount.h"

/*
 * What path is, in one round trip: its head and its marker's ("path/")
 * read together. a[0] gets a file's attributes, a[1] a directory's.
 * @return 1 a directory, 0 a file, -ENOENT neither, or an error of the head
 */
int tree_lookup(struct mount *m, const char *path, struct mattr a[2]);

/*
 * tree_lookup() of two paths in one round trip: *r0 and *r1 its returns
 * for each. @return 0, or -ENOMEM and the read's errors (nothing said)
 */
int tree_lookup2(struct mount *m, const char *p0, struct mattr a0[2], int *r0, const char *p1,
		 struct mattr a1[2], int *r1);

/* 0 when path is neither a file nor a directory now; -EEXIST when it is. */
int tree_name_free(struct mount *m, const char *path);

/* mkdir: the marker made, with c's owner and mode; *a what a stat of it says. */
int tree_mkdir(struct mount *m, const struct caller *c, const char *path, mode_t mode,
	       struct mattr *a);
/* rmdir: the marker removed; -ENOTEMPTY while a name is below it. */
int tree_rmdir(struct mount *m, const char *path);
/* unlink (a file open here stays until its last close here: fs/unlinked.h). */
int tree_unlink(struct mount *m, const char *path);

/*
 * A new file at path holding bytes (a symlink's target; NULL: an empty
 * file), of mode (its type bits too), made whole in one operation; *a what
 * a stat of it says.
 */
int tree_make_file(struct mount *m, const struct caller *c, const char *path, mode_t mode,
		   const char *bytes, struct mattr *a);

/* A symlink's target (len at most), read from its head. */
ssize_t tree_readlink(struct mount *m, const char *path, char *buf, size_t len);

#endif /* MOUNT_TREE_H */
