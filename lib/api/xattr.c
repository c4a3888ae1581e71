// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A file's extended attributes, kept on its head object as libradosstriper
 * keeps them (striper.* and the lock reserved and hidden): each call one
 * round trip on the head, as a call of the handle (file_head_call()).
 */
#include <errno.h>
#include <string.h>

#include "file.h"
#include "head.h"
#include "lease.h"
#include "rados_cxx.h"

static int check_xattr_name(const char *name)
{
	if (!name || !*name)
		return -EINVAL;
	if (strlen(name) > STRIPED_XATTR_NAME_MAX)
		return -ENAMETOOLONG;
	return head_xattr_reserved(name) ? -EPERM : 0;
}

struct xattr_call {
	const char *name;
	void *value;
	size_t len;
	struct striped_xattrs *all;
};

static ssize_t setxattr_fn(struct striped_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_setxattr(f->io, f->head_oid, x->name, x->value, x->len);
}

static ssize_t getxattr_fn(struct striped_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_getxattr(f->io, f->head_oid, x->name, x->value, x->len);
}

static ssize_t rmxattr_fn(struct striped_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_rmxattr(f->io, f->head_oid, x->name);
}

static ssize_t getxattrs_fn(struct striped_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_getxattrs(f->io, f->head_oid, &x->all);
}

int striped_setxattr(struct striped_file *f, const char *name, const void *value, size_t len)
{
	struct xattr_call x = {name, (void *)value, len, NULL};
	int r = check_xattr_name(name);

	if (!f || (!value && len))
		return -EINVAL;
	return r ? r : (int)file_head_call(f, setxattr_fn, &x, LEASE_CHANGES);
}

ssize_t striped_getxattr(struct striped_file *f, const char *name, void *value, size_t len)
{
	struct xattr_call x = {name, value, len, NULL};
	int r = check_xattr_name(name);
	ssize_t n;

	if (!f || (!value && len))
		return -EINVAL;
	if (r)
		return r;
	n = file_head_call(f, getxattr_fn, &x, 0);
	return n >= 0 && len && (size_t)n > len ? -ERANGE : n;
}

int striped_rmxattr(struct striped_file *f, const char *name)
{
	struct xattr_call x = {name, NULL, 0, NULL};
	int r = check_xattr_name(name);

	if (!f)
		return -EINVAL;
	return r ? r : (int)file_head_call(f, rmxattr_fn, &x, LEASE_CHANGES);
}

int striped_getxattrs(struct striped_file *f, struct striped_xattrs **it)
{
	struct xattr_call x = {NULL, NULL, 0, NULL};
	ssize_t r;

	if (!f || !it)
		return -EINVAL;
	r = file_head_call(f, getxattrs_fn, &x, 0);
	if (r && x.all)
		head_xattrs_free(x.all);
	if (!r)
		*it = x.all;
	return (int)r;
}

int striped_getxattrs_next(struct striped_xattrs *it, const char **name, const void **value,
			   size_t *len)
{
	if (!it || !name || !value || !len)
		return -EINVAL;
	if (it->next == it->n) {
		*name = NULL;
		*value = NULL;
		*len = 0;
		return 0;
	}
	*name = it->e[it->next].name;
	*value = it->e[it->next].value;
	*len = it->e[it->next].len;
	it->next++;
	return 0;
}

void striped_getxattrs_end(struct striped_xattrs *it)
{
	if (it)
		head_xattrs_free(it);
}
