/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Directory listings: the entries of a directory taken from the pool's
 * names at opendir (at most cache_time old), and for READDIRPLUS every
 * entry's attributes read at its first call, all in flight together: `ls
 * -l` of 10,000 files is one walk and 10,000 head reads 256 at a time, not
 * 10,000 round trips one after another. Entries whose head is no striped
 * file are left out; a damaged head is listed without attributes (its
 * stat: EIO).
 */
#ifndef MOUNT_DIRLIST_H
#define MOUNT_DIRLIST_H

#include <stdbool.h>

#include "mount.h"

struct dirlist;

/* The entries of directory n now. */
int dirlist_open(struct mount *m, struct node *n, struct dirlist **out);
void dirlist_free(struct dirlist *h);

long dirlist_count(const struct dirlist *h);
const char *dirlist_name(const struct dirlist *h, long i);
bool dirlist_is_dir(const struct dirlist *h, long i);
/* Entry i's full path (free it), or NULL. */
char *dirlist_path(const struct dirlist *h, long i);

/* Every entry's attributes read, at the first call (READDIRPLUS); then nothing. */
int dirlist_read_attrs(struct mount *m, struct dirlist *h);
/*
 * Entry i's attributes into *a (after dirlist_read_attrs()): 0, -ENOENT or
 * -ENODATA (gone, or no striped file: not listed), another errno (damaged:
 * listed without attributes).
 */
int dirlist_attr(const struct dirlist *h, long i, struct mattr *a);

#endif /* MOUNT_DIRLIST_H */
