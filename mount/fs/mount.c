// SPDX-License-Identifier: LGPL-2.1-or-later
/* What every part of fs/ shares (mount.h): errors, paths, markers. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mount.h"
#include "pool.h"

int mount_errno(int r)
{
	if (r >= 0)
		return 0;
	switch (-r) {
	case EUCLEAN:	/* a damaged head */
	case ESHUTDOWN: /* fenced (EBLOCKLISTED) */
	case EDEADLK:
		return EIO;
	case ENODATA: /* a head that is no striped file: not ours */
		return ENOENT;
	case ENOTUNIQ:
		return EBUSY;
	default:
		return -r;
	}
}

/* dir + "/" + name (no slash after the root's ""), or NULL. */
static char *join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *s = malloc(dl + nl + 2);

	if (s) {
		memcpy(s, dir, dl);
		if (dl)
			s[dl++] = '/';
		memcpy(s + dl, name, nl + 1);
	}
	return s;
}

int mount_child_path(struct mount *m, fuse_ino_t parent, const char *name, char **out)
{
	struct node *p;
	char *dir;
	size_t nl = strlen(name);

	*out = NULL;
	if (nl > NAME_MAX)
		return -ENAMETOOLONG; /* FUSE lets up to 1024 through; statfs says 255 */
	p = node_get(&m->nodes, parent);
	if (!p)
		return -ENOENT;
	dir = node_path(&m->nodes, p);
	node_put(&m->nodes, p);
	if (!dir)
		return -ENOMEM;
	if (strlen(dir) + 1 + nl > m->name_max) {
		free(dir);
		return -ENAMETOOLONG;
	}
	*out = join(dir, name);
	free(dir);
	return *out ? 0 : -ENOMEM;
}

char *mount_marker_of(const char *path)
{
	size_t len = strlen(path);
	char *s = malloc(len + 2);

	if (s) {
		memcpy(s, path, len);
		s[len] = '/';
		s[len + 1] = 0;
	}
	return s;
}

int mount_statfs(struct mount *m, struct statvfs *sv)
{
	return pool_statfs(m->cluster, m->io, sv);
}
