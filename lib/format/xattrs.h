/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xattrs.c: a file's extended attributes, as libradosstriper keeps them (on
 * the head, named as given, the libraries' own hidden), and the list of
 * them a read makes (struct striped_xattrs, the public iterator's). Pure.
 */
#ifndef STRIPED_XATTRS_H
#define STRIPED_XATTRS_H

#include "meta.h"

#define XATTR_RESERVED_PREFIX "striper."
#define XATTR_LOCK "lock." STRIPER_LOCK_NAME

/* Whether name is the libraries' own (layout, size, identity, regions, the lock): hidden. */
bool xattr_reserved(const char *name);

/* A list of xattrs, read in one round trip, handed out in order. */
struct striped_xattrs *xattrs_new(void);
void xattrs_free(struct striped_xattrs *x);
/* x emptied, to be filled again. */
void xattrs_clear(struct striped_xattrs *x);
/* Add one (a copy of it): 0 or -ENOMEM. */
int xattrs_add(struct striped_xattrs *x, const char *name, const char *val, size_t len);
/* The next one (false past the last): name and value stay valid until xattrs_free(). */
bool xattrs_next(struct striped_xattrs *x, const char **name, const void **value, size_t *len);

#endif /* STRIPED_XATTRS_H */
