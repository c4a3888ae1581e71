/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A sorted set of striped file names (byte order): a directory D is the
 * range of names that begin with "D/", found by binary search, so that
 * listing a directory, and telling whether it exists and whether it is
 * empty, cost no round trip once the names are known. Pure; not locked
 * (its user holds its own lock).
 */
#ifndef MOUNT_NAMES_H
#define MOUNT_NAMES_H

#include <stdbool.h>
#include <stddef.h>

struct names {
	char **v; /* sorted by strcmp; each malloc'ed */
	size_t n, cap;
};

/* An entry of a directory. */
struct dentry {
	char *name; /* the component */
	bool is_dir;
};

/* Empty; names_clear() frees what it holds. */
void names_init(struct names *s);
void names_clear(struct names *s);
/* s takes what from holds (from is left empty). */
void names_move(struct names *s, struct names *from);

/* Add a copy of name (none when there): 0 or -ENOMEM. */
int names_add(struct names *s, const char *name);
/* Add name itself (freed when there): 0 or -ENOMEM (then not freed). */
int names_add_taken(struct names *s, char *name);
/* Append name itself, unsorted (names_sort() after the last): 0 or -ENOMEM. */
int names_append_taken(struct names *s, char *name);
void names_sort(struct names *s);
void names_remove(struct names *s, const char *name);
bool names_contains(const struct names *s, const char *name);

/* Whether dir (no trailing slash; "" the root) has a name below it. */
bool names_is_dir(const struct names *s, const char *dir);
/* Whether any name below dir other than its marker "dir/" exists. */
bool names_has_children(const struct names *s, const char *dir);

/*
 * The entries of dir: each component once, a directory when names go on
 * below it. Names with an empty component below dir are skipped.
 * @return how many (*out malloc'ed, free with dentries_free), or -ENOMEM,
 *         -ENAMETOOLONG
 */
long names_children(const struct names *s, const char *dir, struct dentry **out);
void dentries_free(struct dentry *d, long n);

/* How many directories dir holds (names go on below them). */
long names_subdirs(const struct names *s, const char *dir);

/*
 * What a listing of dir found, in place of what s held of it: one_level, its
 * files and its directories' own names ("dir/sub/", as markers are named),
 * and what s held below a directory got no longer has; else every name
 * below it. dir's own name "dir/" is its parent's to keep.
 * got (any order) is emptied: s takes its names. 0; -ENOMEM; -ENAMETOOLONG.
 */
int names_replace(struct names *s, const char *dir, bool one_level, struct names *got);
/* Every name that begins with prefix, copied (free each and *out). */
long names_with_prefix(const struct names *s, const char *prefix, char ***out);

#endif /* MOUNT_NAMES_H */
