// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Directory listings: the entries of a directory taken from the pool walk
 * at opendir (at most cache_time old), and for READDIRPLUS every entry's
 * attributes read at the first call, all in flight together: `ls -l` of
 * 10,000 files is one walk and 10,000 head reads 256 at a time, not 10,000
 * round trips one after another. Entries whose head is no striped file are
 * left out; a damaged head is listed without attributes (its stat: EIO).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mount.h"

struct dir_handle {
	char *path;
	struct dentry *d;
	long n;
	struct mattr *attrs; /* READDIRPLUS: read at its first call */
	int *rv;
};

static void dir_handle_free(struct dir_handle *h)
{
	dentries_free(h->d, h->n);
	free(h->attrs);
	free(h->rv);
	free(h->path);
	free(h);
}

static void dir_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	struct dir_handle *h = calloc(1, sizeof(*h));
	int r = -ENOMEM;

	if (!n) {
		r = -ENOENT;
		goto fail;
	}
	if (!h || !(h->path = node_path(&m->nodes, n)))
		goto fail;
	r = listing_refresh(&m->listing, m->io, m->o.cache_time);
	if (r)
		goto fail;
	h->n = listing_children(&m->listing, h->path, &h->d);
	if (h->n < 0) {
		r = (int)h->n;
		h->n = 0;
		goto fail;
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	fuse_reply_open(req, fi);
	return;
fail:
	if (h)
		dir_handle_free(h);
	fuse_reply_err(req, -r);
}

static void dir_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	dir_handle_free((struct dir_handle *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

/* The full name of entry i: "DIR/NAME", with a slash after for a directory's marker. */
static char *entry_name(const struct dir_handle *h, long i, bool marker)
{
	size_t dl = strlen(h->path), nl = strlen(h->d[i].name);
	char *s = malloc(dl + nl + 3), *p = s;

	if (!s)
		return NULL;
	memcpy(p, h->path, dl);
	p += dl;
	if (dl)
		*p++ = '/';
	memcpy(p, h->d[i].name, nl);
	p += nl;
	if (marker)
		*p++ = '/';
	*p = 0;
	return s;
}

/* Every entry's head (a directory's: its marker) read, all in flight together. */
static int read_attrs(struct mount *m, struct dir_handle *h)
{
	char **names = calloc((size_t)h->n + 1, sizeof(*names));
	int r = -ENOMEM;

	h->attrs = calloc((size_t)h->n + 1, sizeof(*h->attrs));
	h->rv = calloc((size_t)h->n + 1, sizeof(*h->rv));
	if (!names || !h->attrs || !h->rv)
		goto out;
	for (long i = 0; i < h->n; i++)
		if (!(names[i] = entry_name(h, i, h->d[i].is_dir)))
			goto out;
	r = mattr_read_many(m->io, (const char *const *)names, (size_t)h->n, h->attrs, h->rv);
	for (long i = 0; !r && i < h->n; i++)
		if (h->d[i].is_dir && h->rv[i]) { /* no marker: the defaults */
			memset(&h->attrs[i], 0, sizeof(h->attrs[i]));
			h->rv[i] = 0;
		} else if (h->rv[i] == -ENOENT && ops_file_kept_path(m, names[i], &h->attrs[i])) {
			h->rv[i] = 0; /* a new file not made on RADOS yet */
		}
out:
	for (long i = 0; names && i < h->n; i++)
		free(names[i]);
	free(names);
	return r;
}

/* Add entry i to buf; returns the bytes it took, 0 when it did not fit. */
static size_t add_plus(fuse_req_t req, struct mount *m, struct dir_handle *h, long i, char *buf,
		       size_t room, off_t next)
{
	struct fuse_entry_param e;
	struct node *n = NULL;
	char *path;
	size_t len;

	memset(&e, 0, sizeof(e));
	if (h->rv[i]) { /* damaged: a name without attributes, its lookup says EIO */
		e.attr.st_mode = S_IFREG;
		e.attr.st_ino = 0xffffffff; /* readdir(3) skips entries whose number is 0 */
		len = fuse_add_direntry_plus(req, buf, room, h->d[i].name, &e, next);
		return len <= room ? len : 0;
	}
	path = entry_name(h, i, false);
	if (path)
		n = node_lookup(&m->nodes, path, h->d[i].is_dir, 0);
	free(path);
	if (!n)
		return 0;
	mount_merge_local(m, n, &h->attrs[i]);
	mount_entry(m, n, &h->attrs[i], &e);
	len = fuse_add_direntry_plus(req, buf, room, h->d[i].name, &e, next);
	if (len > room)
		return 0;
	pthread_mutex_lock(&m->nodes.lock); /* the kernel now holds a lookup of it */
	n->nlookup++;
	pthread_mutex_unlock(&m->nodes.lock);
	return len;
}

/* Offsets: 1 and 2 are "." and "..", entry i is at i + 3. */
static void dir_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			    struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct dir_handle *h = (struct dir_handle *)(uintptr_t)fi->fh;
	char *buf = malloc(size);
	size_t used = 0;
	int r;

	(void)ino;
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (!h->attrs && (r = read_attrs(m, h))) {
		free(buf);
		fuse_reply_err(req, -r);
		return;
	}
	for (; off < 2; off++) {
		struct fuse_entry_param e = {.attr.st_mode = S_IFDIR};
		size_t len = fuse_add_direntry_plus(req, buf + used, size - used, off ? ".." : ".",
						    &e, off + 1);

		if (len > size - used)
			goto reply;
		used += len;
	}
	for (long i = off - 2; i < h->n; i++) {
		size_t len;

		if (h->rv[i] == -ENOENT || h->rv[i] == -ENODATA)
			continue; /* gone, or no striped file */
		len = add_plus(req, m, h, i, buf + used, size - used, (off_t)i + 3);
		if (!len)
			break;
		used += len;
	}
reply:
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void dir_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	struct dir_handle *h = (struct dir_handle *)(uintptr_t)fi->fh;
	char *buf = malloc(size);
	size_t used = 0;

	(void)ino;
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (long i = off; i < h->n + 2; i++) {
		struct stat st = {.st_ino = 0xffffffff} /* unknown: the kernel asks at lookup */;
		const char *name = i == 0 ? "." : i == 1 ? ".." : h->d[i - 2].name;
		size_t len;

		st.st_mode = i < 2 || h->d[i - 2].is_dir ? S_IFDIR : S_IFREG;
		len = fuse_add_direntry(req, buf + used, size - used, name, &st, (off_t)i + 1);
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

void ops_readdir_init(struct fuse_lowlevel_ops *ops)
{
	ops->opendir = dir_opendir;
	ops->readdir = dir_readdir;
	ops->readdirplus = dir_readdirplus;
	ops->releasedir = dir_releasedir;
}
