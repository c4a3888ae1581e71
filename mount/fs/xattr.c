// SPDX-License-Identifier: LGPL-2.1-or-later
/* Extended attributes (xattr.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "attr.h"
#include "xattr.h"

int xattr_errno(ssize_t r)
{
	return r == -ENODATA ? ENODATA : mount_errno((int)r);
}

static bool user_xattr(const char *name)
{
	return !strncmp(name, "user.", 5);
}

/* The value of user xattr name on holder: its length, copied into buf when it fits. */
static ssize_t find_xattr(struct mount *m, const char *holder, const char *name, char *buf,
			  size_t size)
{
	struct striped_xattrs *it = NULL;
	const char *k = NULL;
	const void *v;
	size_t len;
	ssize_t r = striped_head_getxattrs(m->io, holder, &it);

	if (r == -ENOENT || r == -ENODATA)
		r = -ENODATA; /* a directory without a marker has none */
	while (!r && !(r = striped_getxattrs_next(it, &k, &v, &len)) && k) {
		if (strcmp(k, name))
			continue;
		r = (ssize_t)len;
		if (size && len > size)
			r = -ERANGE;
		else if (size && len)
			memcpy(buf, v, len);
		break;
	}
	if (!r && !k)
		r = -ENODATA;
	striped_getxattrs_end(it);
	return r;
}

ssize_t xattr_get(struct mount *m, struct node *n, const char *name, char *buf, size_t size)
{
	char *holder = NULL;
	ssize_t r;

	if (!user_xattr(name))
		return -ENODATA; /* other namespaces (security., system.): never any */
	r = attr_holder(m, n, &holder);
	if (!r)
		r = find_xattr(m, holder, name, buf, size);
	free(holder);
	return r;
}

/* Append name (NUL included) to *buf: 0, -ERANGE past size (when size), -ENOMEM. */
static int append_name(char **buf, size_t *used, size_t size, const char *name)
{
	size_t kl = strlen(name) + 1;
	char *p;

	if (size && *used + kl > size)
		return -ERANGE;
	if (!(p = realloc(*buf, *used + kl)))
		return -ENOMEM;
	*buf = p;
	memcpy(p + *used, name, kl);
	*used += kl;
	return 0;
}

ssize_t xattr_list(struct mount *m, struct node *n, size_t size, char **buf)
{
	struct striped_xattrs *it = NULL;
	char *holder = NULL;
	size_t used = 0, len;
	const char *k;
	const void *v;
	int r = attr_holder(m, n, &holder);

	*buf = NULL;
	if (!r)
		r = striped_head_getxattrs(m->io, holder, &it);
	if (r == -ENOENT && n->is_dir)
		r = 0; /* no marker: no xattrs */
	while (!r && it && !(r = striped_getxattrs_next(it, &k, &v, &len)) && k)
		if (user_xattr(k))
			r = append_name(buf, &used, size, k);
	striped_getxattrs_end(it);
	free(holder);
	if (r) {
		free(*buf);
		*buf = NULL;
		return r;
	}
	return (ssize_t)used;
}

/* Open holder for a moment and set or remove one xattr (value NULL: remove). */
static int change_xattr(struct mount *m, struct node *n, const char *holder, const char *name,
			const char *value, size_t size)
{
	struct striped_file *f = NULL;
	int r = n->is_dir ? attr_ensure_marker(m, holder) : 0;

	if (!r)
		r = striped_open(m->io, holder, 0, NULL, &f);
	if (!r)
		r = value ? striped_setxattr(f, name, value, size) : striped_rmxattr(f, name);
	striped_close(f);
	return r;
}

/* XATTR_CREATE and XATTR_REPLACE checked against what holder has. */
static int check_flags(struct mount *m, const char *holder, const char *name, int flags)
{
	ssize_t had;

	if (!(flags & (XATTR_CREATE | XATTR_REPLACE)))
		return 0;
	had = find_xattr(m, holder, name, NULL, 0);
	if (had < 0 && had != -ENODATA)
		return (int)had;
	if ((flags & XATTR_CREATE) && had >= 0)
		return -EEXIST;
	if ((flags & XATTR_REPLACE) && had < 0)
		return -ENODATA;
	return 0;
}

int xattr_set(struct mount *m, struct node *n, const char *name, const char *value, size_t size,
	      int flags)
{
	char *holder = NULL;
	int r = user_xattr(name) ? attr_holder(m, n, &holder) : -ENOTSUP;

	if (!r)
		r = check_flags(m, holder, name, flags);
	if (!r)
		r = change_xattr(m, n, holder, name, value ? value : "", size);
	free(holder);
	return r;
}

int xattr_remove(struct mount *m, struct node *n, const char *name)
{
	char *holder = NULL;
	ssize_t had;
	int r = user_xattr(name) ? attr_holder(m, n, &holder) : -ENODATA;

	if (!r && (had = find_xattr(m, holder, name, NULL, 0)) < 0)
		r = (int)had;
	if (!r)
		r = change_xattr(m, n, holder, name, NULL, 0);
	free(holder);
	return r;
}
