// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A file's extended attributes, kept on its head object as libradosstriper
 * keeps them (striper.* and the lock reserved and hidden: xattrs.c): each
 * call checked here, then one round trip on the head as a call of the
 * handle (modes/file.c, engine/io_head.c).
 */
#include <errno.h>
#include <string.h>

#include "api.h"
#include "file.h"
#include "xattrs.h"

int api_check_xattr_name(const char *name)
{
	if (!name || !*name)
		return -EINVAL;
	if (strlen(name) > STRIPED_XATTR_NAME_MAX)
		return -ENAMETOOLONG;
	return xattr_reserved(name) ? -EPERM : 0;
}

int striped_setxattr(struct striped_file *f, const char *name, const void *value, size_t len)
{
	int r = api_check_xattr_name(name);

	if (!f || (!value && len))
		return -EINVAL;
	return r ? r : file_setxattr(f, name, value, len);
}

ssize_t striped_getxattr(struct striped_file *f, const char *name, void *value, size_t len)
{
	int r = api_check_xattr_name(name);
	ssize_t n;

	if (!f || (!value && len))
		return -EINVAL;
	if (r)
		return r;
	n = file_getxattr(f, name, value, len);
	return n >= 0 && len && (size_t)n > len ? -ERANGE : n;
}

int striped_rmxattr(struct striped_file *f, const char *name)
{
	int r = api_check_xattr_name(name);

	if (!f)
		return -EINVAL;
	return r ? r : file_rmxattr(f, name);
}

int striped_getxattrs(struct striped_file *f, struct striped_xattrs **it)
{
	if (!f || !it)
		return -EINVAL;
	return file_getxattrs(f, it);
}

int striped_getxattrs_next(struct striped_xattrs *it, const char **name, const void **value,
			   size_t *len)
{
	if (!it || !name || !value || !len)
		return -EINVAL;
	if (!xattrs_next(it, name, value, len)) {
		*name = NULL;
		*value = NULL;
		*len = 0;
	}
	return 0;
}

void striped_getxattrs_end(struct striped_xattrs *it)
{
	if (it)
		xattrs_free(it);
}
