/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the public calls share among themselves: each public function is a
 * door that checks its arguments, and a public call made of others (an
 * asynchronous open, a write_full) calls these, never the doors.
 */
#ifndef STRIPED_API_H
#define STRIPED_API_H

#include "striped_i.h"

/* file.c: what striped_open() refuses before any round trip. */
int api_check_open(rados_ioctx_t io, const char *name, int flags,
		   const struct striped_layout *layout, struct striped_file **out);
/* striped_open(), striped_truncate() (f not NULL), after their checks. */
int api_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
	     struct striped_file **out);
int api_truncate(struct striped_file *f, uint64_t size);
/* xattr.c: what striped_setxattr() refuses of a name: -EINVAL, -ENAMETOOLONG, -EPERM. */
int api_check_xattr_name(const char *name);
/* remove.c: striped_remove(). */
int api_remove(rados_ioctx_t io, const char *name);
/* data.c: striped_append() (f not NULL). */
ssize_t api_append(struct striped_file *f, const void *buf, size_t len);
/* walk.c: striped_objects_walk() after its checks (parallel 0: the default). */
int api_objects_walk(rados_ioctx_t io, unsigned int parallel, striped_walk_fn fn, void *arg);

/* list.c: the names of the pool's striped files (its heads'), sorted, from a walk. */
int api_walk_files(rados_ioctx_t io, char ***names, size_t *n);
void api_names_free(char **names, size_t n);
/* s (malloc'd, NULL: -ENOMEM) appended to the vector *v of *n names, grown by doubling; freed on failure. */
int api_names_push(char ***v, size_t *n, size_t *cap, char *s);

#endif /* STRIPED_API_H */
