/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* name.c: a striped file's name, and its head object's name. */
#ifndef STRIPED_NAME_H
#define STRIPED_NAME_H

#include <rados/librados.h>

/* What every call by name refuses before any round trip: a NULL io, an empty or too long name. */
int name_check(rados_ioctx_t io, const char *name);
/* The head object's name of file name (free() it), or NULL without memory. */
char *name_head_oid(const char *name);
/* A call by name: name_check(), then *oid is its head object's name (free() it). */
int name_oid(rados_ioctx_t io, const char *name, char **oid);

#endif /* STRIPED_NAME_H */
