// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A file's extended attributes as libradosstriper keeps them: on the head
 * object, named as the user gave them, among the libraries' own (striper.*
 * and the lock's), which are hidden and refused. The list a read makes is
 * handed out in order by the public iterator (striped_getxattrs_next()),
 * each name and value one allocation, valid until the list goes. Pure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xattrs.h"

struct xattr_entry {
	char *name; /* one allocation with the value after it */
	const char *value;
	size_t len;
};

struct striped_xattrs {
	struct xattr_entry *e;
	size_t n, next;
};

bool xattr_reserved(const char *name)
{
	return !strncmp(name, XATTR_RESERVED_PREFIX, strlen(XATTR_RESERVED_PREFIX)) ||
	       !strcmp(name, XATTR_LOCK);
}

struct striped_xattrs *xattrs_new(void)
{
	return calloc(1, sizeof(struct striped_xattrs));
}

void xattrs_clear(struct striped_xattrs *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->e[i].name);
	free(x->e);
	x->e = NULL;
	x->n = x->next = 0;
}

void xattrs_free(struct striped_xattrs *x)
{
	xattrs_clear(x);
	free(x);
}

int xattrs_add(struct striped_xattrs *x, const char *name, const char *val, size_t len)
{
	struct xattr_entry *more = realloc(x->e, (x->n + 1) * sizeof(*more));
	size_t nlen = strlen(name) + 1;
	char *copy;

	if (!more)
		return -ENOMEM;
	x->e = more;
	/* One block: the name, then the value (which may hold any bytes). */
	copy = malloc(nlen + len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, name, nlen);
	if (len) /* an empty value may come as NULL */
		memcpy(copy + nlen, val, len);
	copy[nlen + len] = '\0';
	x->e[x->n++] = (struct xattr_entry){copy, copy + nlen, len};
	return 0;
}

bool xattrs_next(struct striped_xattrs *x, const char **name, const void **value, size_t *len)
{
	if (x->next == x->n)
		return false;
	*name = x->e[x->next].name;
	*value = x->e[x->next].value;
	*len = x->e[x->next].len;
	x->next++;
	return true;
}
