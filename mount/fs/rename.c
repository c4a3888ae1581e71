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

#include "drafts.h"
#include "heads.h"
#include "open.h"
#include "rename.h"
#include "tree.h"
#include "unlinked.h"

#define COPY_CHUNK (64u << 20)
/* The most xattrs a one-operation copy carries: more are copied through handles. */
#define HEAD_XATTRS_MAX 64

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

/* The inode number the new name carries: the node's at from, else the file's own. */
static uint64_t ino_at(struct mount *m, const char *from, const struct mattr *a)
{
	struct node *n = node_at(&m->nodes, from);
	uint64_t ino = n ? n->ino : mattr_ino(a);

	node_put(&m->nodes, n);
	return ino;
}

/*
 * The largest file copied in one read and one create (head_copy()): all of
 * it in its head, no more than a copy holds in memory at once.
 */
#define HEAD_COPY_MAX (16u << 20)

/* A small file's bytes and xattrs as one create makes them (head_copy()). */
struct head_image {
	char *bytes;
	struct striped_head h;
	ssize_t len;
	struct striped_xattr_value x[HEAD_XATTRS_MAX];
	char *names[HEAD_XATTRS_MAX];
	void *values[HEAD_XATTRS_MAX];
	size_t n;
};

static void head_image_free(struct head_image *img)
{
	for (size_t i = 0; i < img->n; i++) {
		free(img->names[i]);
		free(img->values[i]);
	}
	free(img->bytes);
}

/* Whether an xattr the copy stores itself: its times and inode number (what a has). */
static bool stored_anew(const char *name)
{
	return !strcmp(name, MATTR_MTIME) || !strcmp(name, MATTR_CTIME) || !strcmp(name, MATTR_INO);
}

/* One xattr of the copy, copied (the iterator reuses its memory). */
static int image_add(struct head_image *img, const char *k, const void *v, size_t len)
{
	size_t i = img->n;

	if (i == HEAD_XATTRS_MAX)
		return -ECANCELED;
	img->names[i] = strdup(k);
	img->values[i] = malloc(len ? len : 1);
	img->n++;
	if (!img->names[i] || !img->values[i])
		return -ENOMEM;
	memcpy(img->values[i], v, len);
	img->x[i] = (struct striped_xattr_value){img->names[i], img->values[i], len};
	return 0;
}

/* from's xattrs (the user's and the mount's, but what the copy stores anew) into img. */
static int image_xattrs(struct striped_xattrs *it, struct head_image *img)
{
	const char *k;
	const void *v;
	size_t len;
	int r;

	while (!(r = striped_getxattrs_next(it, &k, &v, &len)) && k)
		if (!stored_anew(k) && (r = image_add(img, k, v, len)))
			break;
	return r;
}

/* The times and inode number a copy shows (a: from's reading) into img. */
static int image_times(struct head_image *img, const struct mattr *a, uint64_t ino,
		       struct mattr_xattrs *x)
{
	struct mattr t = {.mtime = a->mtime, .ctime = a->ctime, .ino = ino};
	size_t n;
	int r = 0;

	t.has_mtime = t.has_ctime = true;
	t.has_ino = ino != 0;
	n = mattr_xattrs(&t, x);
	for (size_t i = 0; !r && i < n; i++)
		r = image_add(img, x->x[i].name, x->x[i].value, x->x[i].len);
	return r;
}

/*
 * A file that lives in its head alone copied in one read
 * (striped_head_pread2(): bytes, metadata, xattrs) and one create
 * (striped_head_create(): the same together), then removed as it was read: -ECANCELED when it is not such a file now (copy_file() then
 * copies through handles).
 */
static int head_copy(struct mount *m, const char *from, const char *to, const struct mattr *a,
		     uint64_t ino, bool to_absent)
{
	struct head_image img = {.bytes = malloc(a->size ? a->size : 1)};
	struct striped_xattrs *it = NULL;
	struct mattr_xattrs x;
	int r = img.bytes ? 0 : -ENOMEM;

	if (!r) { /* its bytes, metadata and xattrs in one read */
		img.len = striped_head_pread2(m->io, from, &img.h, sizeof(img.h), img.bytes, a->size,
					      0, &it);
		r = img.len < 0 ? (int)img.len : 0;
	}
	if (r == -EBUSY || (!r && ((uint64_t)img.len != img.h.size || img.h.id != a->id)))
		r = -ECANCELED; /* locked exclusive, or not as read: through handles */
	if (!r)
		r = image_xattrs(it, &img);
	striped_getxattrs_end(it);
	if (!r)
		r = image_times(&img, a, ino, &x);
	if (!r && !to_absent && (r = striped_remove(m->io, to)) == -ENOENT) /* the one replaced */
		r = 0;
	if (!r)
		r = striped_head_create(m->io, to, &img.h.layout, img.bytes, (size_t)img.len, img.x,
					img.n);
	if (r == -EEXIST && to_absent && !(r = striped_remove(m->io, to))) /* made meanwhile */
		r = striped_head_create(m->io, to, &img.h.layout, img.bytes, (size_t)img.len, img.x,
					img.n);
	if (!r && (r = striped_head_remove(m->io, from, &img.h, sizeof(img.h))) == -ECANCELED)
		r = striped_remove(m->io, from); /* changed since it was read: by name */
	head_image_free(&img);
	return r;
}

/*
 * Copy from to to, then remove from: from_a from's reading when the
 * caller has it (else read here), to_absent when to was found missing.
 */
static int copy_file_as_read(struct mount *m, const char *from, const char *to,
			     const struct mattr *from_a, bool to_absent)
{
	struct striped_file *src = NULL, *dst = NULL;
	struct striped_stat st;
	struct mattr a;
	int r = 0;

	if (from_a)
		a = *from_a;
	else
		r = heads_read(m->io, from, &a);
	if (!r && a.size <= a.stripe_unit && a.size <= HEAD_COPY_MAX &&
	    (r = head_copy(m, from, to, &a, ino_at(m, from, &a), to_absent)) != -ECANCELED)
		goto out;
	if (!r || r == -ECANCELED)
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
	if (!r) { /* the time it shows, kept even when only the head had it; its inode */
		a.has_mode = a.has_uid = a.has_gid = a.has_atime = false;
		a.has_mtime = a.has_ctime = true;
		a.ino = ino_at(m, from, &a);
		a.has_ino = a.ino != 0;
		r = heads_write(m->io, to, &a);
	}
	if (!r)
		r = striped_remove(m->io, from);
out:
	if (!r || r == -ENOENT) {
		listing_add(&m->listing, to);
		listing_remove(&m->listing, from);
	}
	return r;
}

static int copy_file(struct mount *m, const char *from, const char *to)
{
	return copy_file_as_read(m, from, to, NULL, false);
}

static bool is_dir_name(const char *name)
{
	size_t len = strlen(name);

	return len && name[len - 1] == '/';
}

static int by_depth_deepest_first(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);

	return (x < y) - (x > y);
}

/*
 * The directories the names were in, deepest first, removed as markers:
 * with an index, a directory stays listed until its marker goes while it
 * is empty (gone or not, it was there); without one, nothing is there.
 */
static int prune_dirs(struct mount *m, char **names, long n)
{
	char **dirs;
	long nd = 0;
	int r;

	if (n <= 0)
		return 0;
	dirs = calloc((size_t)n + 1, sizeof(*dirs));
	r = dirs ? 0 : -ENOMEM;

	for (long i = 0; !r && i < n; i++) {
		char *slash = strrchr(names[i], '/');

		if (slash && !(dirs[nd] = strndup(names[i], (size_t)(slash - names[i]) + 1)))
			r = -ENOMEM;
		nd += dirs[nd] != NULL;
	}
	if (!r && nd)
		qsort(dirs, (size_t)nd, sizeof(*dirs), by_depth_deepest_first);
	for (long i = 0; !r && i < nd; i++) {
		if (i && !strcmp(dirs[i], dirs[i - 1]))
			continue;
		r = striped_remove(m->io, dirs[i]);
		r = r == -ENOENT ? 0 : r;
	}
	for (long i = 0; i < nd; i++)
		free(dirs[i]);
	free(dirs);
	return r;
}

/* Every name below from/ (markers too) copied below to/. */
static int rename_dir(struct mount *m, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to);
	char *prefix = malloc(fl + 2), **names = NULL;
	long n = 0;
	int r = prefix ? 0 : -ENOMEM;

	if (!r) /* drafts below it must be on RADOS to be copied */
		r = drafts_make_below(m, from);
	if (!r) /* every name below it, not one level */
		r = listing_refresh_tree(&m->listing, m->io, from, m->o.cache_time);
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
		if (r == -ENOENT && is_dir_name(names[i]))
			r = 0; /* a directory's name from an index listing, with no marker */
		free(dst);
	}
	if (!r)
		r = prune_dirs(m, names, n);
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
	r = heads_read(m->io, path, &a);
	if (!r)
		return 1;
	return r == -ENOENT || r == -ENODATA ? 0 : r;
}

/* The names a rename asks about: both directories it is in, and what to holds. */
static int refresh_around(struct mount *m, const char *from, const char *to)
{
	double age = m->o.cache_time;
	int r = listing_refresh_parent(&m->listing, m->io, from, age, true);

	if (!r)
		r = listing_refresh_parent(&m->listing, m->io, to, age, true);
	if (!r)
		r = listing_refresh_dir(&m->listing, m->io, to, age);
	return r;
}

/* What a lookup's return r says: 1 a file, 2 a directory, 0 nothing; or a negative errno. */
static int kind_of_lookup(int r)
{
	return r == 0 ? 1 : r == 1 ? 2 : r == -ENOENT ? 0 : r;
}

/* The checks of a directory's rename, on names listed now (it must be empty, and not below). */
static int check_dir_rename(struct mount *m, const char *from, const char *to, unsigned int flags)
{
	size_t fl = strlen(from);
	int tk, r = refresh_around(m, from, to);

	if (r)
		return r;
	if (kind_of(m, from) != 2)
		return -ENOENT; /* gone meanwhile */
	tk = kind_of(m, to);
	if (tk < 0)
		return tk;
	if (tk && (flags & RENAME_NOREPLACE))
		return -EEXIST;
	if (tk == 1)
		return -ENOTDIR;
	if (!strncmp(to, from, fl) && to[fl] == '/')
		return -EINVAL; /* below itself */
	if (tk == 2 && listing_has_children(&m->listing, to))
		return -ENOTEMPTY;
	return 0;
}

/*
 * A rename's checks: *kind what from is (1 a file, 2 a directory); a
 * file's *from_a as read and whether to was found missing. A file's asks
 * no listing to be made now: one round trip for both names' heads and
 * markers, as the kernel's lookups read them.
 */
static int check_rename(struct mount *m, const char *from, const char *to, unsigned int flags,
			int *kind, struct mattr *from_a, bool *to_absent)
{
	struct node *n = node_at(&m->nodes, from);
	bool open = n && open_is_open(n);
	struct mattr fa[2], ta[2];
	int fr, tr, tk, r;

	node_put(&m->nodes, n);
	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL; /* RENAME_EXCHANGE, RENAME_WHITEOUT */
	if (open)
		return -EBUSY;
	r = tree_lookup2(m, from, fa, &fr, to, ta, &tr);
	if (r)
		return r;
	if ((*kind = kind_of_lookup(fr)) <= 0)
		return *kind ? *kind : -ENOENT;
	if (*kind == 2)
		return check_dir_rename(m, from, to, flags);
	*from_a = fa[0];
	tk = kind_of_lookup(tr);
	*to_absent = tk == 0;
	if (tk < 0)
		return tk;
	if (tk && (flags & RENAME_NOREPLACE))
		return -EEXIST;
	return tk == 2 ? -EISDIR : 0;
}

int rename_path(struct mount *m, const char *from, const char *to, unsigned int flags)
{
	struct node *held;
	struct mattr from_a;
	bool to_absent = false;
	int kind = 0,
	    r = strcmp(from, to) ? check_rename(m, from, to, flags, &kind, &from_a, &to_absent) : 0;

	if (!r && kind)
		r = unlinked_claim(m, to); /* a file unlinked here while open: gone now */
	if (r || !kind)
		return r;
	/* a draft at to is replaced: never made, not even during the copy */
	held = kind == 1 ? drafts_hold(m, to) : NULL;
	/* a file kept for write-back: renamed in the daemon, its new name taken */
	r = kind == 1 ? drafts_rename(m, from, to, to_absent) : 1;
	if (r == 1)
		r = kind == 1 ? copy_file_as_read(m, from, to, &from_a, to_absent)
			      : rename_dir(m, from, to);
	if (!r) /* under the draft's lock: its node leaves to, its flush makes nothing */
		r = node_rename(&m->nodes, from, to);
	drafts_release(m, held);
	return r;
}
