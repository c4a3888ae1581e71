// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rename: RADOS cannot rename an object, so a file is copied to its new
 * name (bytes in 64 MiB calls, each with every object request in flight;
 * its layout, xattrs and the mount's attributes), then the old name is
 * removed. The old file is only removed once the new one is whole and
 * closed, so a crash in between leaves both, never neither. A directory is
 * renamed one name below it at a time. Nothing here is atomic: what is and
 * is not is written in mount/SEMANTICS.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mount.h"

#define COPY_CHUNK (64u << 20)

static int copy_bytes(struct striped_file *src, struct striped_file *dst, uint64_t size)
{
	char *buf = malloc(size < COPY_CHUNK ? (size ? size : 1) : COPY_CHUNK);
	uint64_t off = 0;
	int r = buf ? 0 : -ENOMEM;

	while (!r && off < size) {
		size_t len = size - off < COPY_CHUNK ? (size_t)(size - off) : COPY_CHUNK;
		ssize_t n = striped_read(src, buf, len, off);

		if (n <= 0) {
			r = n < 0 ? (int)n : -EIO; /* shorter than its size: changed meanwhile */
			break;
		}
		n = striped_write(dst, buf, (size_t)n, off);
		if (n < 0)
			r = (int)n;
		else
			off += (uint64_t)n;
	}
	free(buf);
	return r;
}

/* Every xattr of src but the libraries' own: the user's and the mount's. */
static int copy_xattrs(struct mount *m, const char *from, struct striped_file *dst)
{
	struct striped_xattrs *it = NULL;
	const char *k;
	const void *v;
	size_t len;
	int r = striped_head_getxattrs(m->io, from, &it);

	while (!r && !(r = striped_getxattrs_next(it, &k, &v, &len)) && k)
		r = striped_setxattr(dst, k, v, len);
	striped_getxattrs_end(it);
	return r;
}

static int copy_file(struct mount *m, const char *from, const char *to)
{
	struct striped_file *src = NULL, *dst = NULL;
	struct striped_stat st;
	struct mattr a;
	int r = mattr_read(m->io, from, &a);

	if (!r)
		r = striped_open(m->io, from, 0, NULL, &src);
	if (!r)
		r = striped_fstat(src, &st, sizeof(st));
	if (!r) {
		r = striped_remove(m->io, to); /* the one replaced */
		if (r == -ENOENT)
			r = 0;
	}
	if (!r)
		r = striped_open(m->io, to, STRIPED_CREATE | STRIPED_EXCL, &st.layout, &dst);
	if (!r)
		r = copy_bytes(src, dst, st.size);
	if (!r)
		r = copy_xattrs(m, from, dst);
	if (dst) {
		int c = striped_close2(dst);

		r = r ? r : c;
	}
	striped_close(src);
	if (!r) { /* the time it shows, kept even when only the head had it */
		a.has_mode = a.has_uid = a.has_gid = false;
		a.has_mtime = a.has_ctime = true;
		r = mattr_write(m->io, to, &a);
	}
	if (!r)
		r = striped_remove(m->io, from);
	if (!r || r == -ENOENT) {
		listing_add(&m->listing, to);
		listing_remove(&m->listing, from);
	}
	return r;
}

/* Every name below from/ (markers too) copied below to/. */
static int rename_dir(struct mount *m, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to);
	char *prefix = malloc(fl + 2), **names = NULL;
	long n = 0;
	int r = prefix ? 0 : -ENOMEM;

	if (!r) /* what is still kept here must be there to be copied */
		r = ops_file_make_below(m, from);
	if (!r) {
		snprintf(prefix, fl + 2, "%s/", from);
		n = listing_with_prefix(&m->listing, prefix, &names);
		r = n < 0 ? (int)n : 0;
	}
	for (long i = 0; !r && i < n; i++) {
		size_t rest = strlen(names[i]) - fl;
		char *dst = malloc(tl + rest + 1);

		if (!dst) {
			r = -ENOMEM;
			break;
		}
		memcpy(dst, to, tl);
		memcpy(dst + tl, names[i] + fl, rest + 1);
		r = strlen(dst) > m->name_max ? -ENAMETOOLONG : copy_file(m, names[i], dst);
		free(dst);
	}
	for (long i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(prefix);
	return r;
}

/* What from and to are: 1 a file, 2 a directory, 0 nothing; or a negative errno. */
static int kind_of(struct mount *m, const char *path)
{
	struct mattr a;
	int r;

	if (listing_is_dir(&m->listing, path))
		return 2;
	r = mattr_read(m->io, path, &a);
	if (!r)
		return 1;
	return r == -ENOENT || r == -ENODATA ? 0 : r;
}

static int check_rename(struct mount *m, const char *from, const char *to, unsigned int flags,
			int *kind)
{
	size_t fl = strlen(from);
	struct node *n = node_find(&m->nodes, from);
	int tk, r = listing_refresh(&m->listing, m->io, m->o.cache_time);

	if (r)
		return r;
	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL; /* RENAME_EXCHANGE, RENAME_WHITEOUT */
	if (n && ops_file_is_open(n))
		return -EBUSY;
	if ((*kind = kind_of(m, from)) <= 0)
		return *kind ? *kind : -ENOENT;
	tk = kind_of(m, to);
	if (tk < 0)
		return tk;
	if (tk && (flags & RENAME_NOREPLACE))
		return -EEXIST;
	if (*kind == 1 && tk == 2)
		return -EISDIR;
	if (*kind == 2 && tk == 1)
		return -ENOTDIR;
	if (*kind == 2 && !strncmp(to, from, fl) && to[fl] == '/')
		return -EINVAL; /* below itself */
	if (*kind == 2 && tk == 2 && listing_has_children(&m->listing, to))
		return -ENOTEMPTY;
	return 0;
}

void mount_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		  const char *newname, unsigned int flags)
{
	struct mount *m = mount_of(req);
	char *from = NULL, *to = NULL;
	int kind = 0, r = mount_child_path(m, parent, name, &from);

	if (!r)
		r = mount_child_path(m, newparent, newname, &to);
	if (!r && strcmp(from, to))
		r = check_rename(m, from, to, flags, &kind);
	if (!r && kind) {
		/* a new file kept under to is replaced: never made, not even during the copy */
		struct node *kept = kind == 1 ? ops_file_hold_kept(m, to) : NULL;

		r = kind == 1 ? copy_file(m, from, to) : rename_dir(m, from, to);
		if (!r) /* under the kept file's lock: its node leaves to, its flush makes nothing */
			r = node_rename(&m->nodes, from, to);
		ops_file_release_kept(m, kept);
	}
	fuse_reply_err(req, mount_errno(r));
	free(from);
	free(to);
}
