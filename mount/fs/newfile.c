// SPDX-License-Identifier: LGPL-2.1-or-later
/* What a file made through the mount stores (newfile.h). */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "heads.h"
#include "newfile.h"
#include "writeback.h"

uint64_t newfile_ino(void)
{
	uint64_t ino = 0;

	while (ino <= FUSE_ROOT_ID)
		if (getrandom(&ino, sizeof(ino), 0) != sizeof(ino))
			ino = 0; /* EINTR before the pool is ready: try again */
	return ino;
}

void newfile_attrs(struct mount *m, const struct caller *c, mode_t mode, struct mattr *a)
{
	unsigned int defaults = S_ISDIR(mode) ? m->o.dir_mode : m->o.file_mode;

	memset(a, 0, sizeof(*a));
	a->mode = mode;
	a->uid = c->uid;
	a->gid = c->gid;
	a->has_mode = (mode & 07777) != defaults || (!S_ISREG(mode) && !S_ISDIR(mode));
	a->has_uid = c->uid != m->o.uid;
	a->has_gid = c->gid != m->o.gid;
}

int newfile_store_attrs(struct mount *m, const char *path, const struct mattr *a)
{
	if (!a->has_mode && !a->has_uid && !a->has_gid && !a->has_mtime && !a->has_atime &&
	    !a->has_ctime)
		return 0;
	return heads_write(m->io, path, a);
}

/* What a made file stores: a's, its times at (ctime unless a has one), its inode number. */
static void stored_of(const struct mattr *a, const struct timespec *at, uint64_t ino,
		      struct mattr *stored)
{
	*stored = *a;
	stored->mtime = *at;
	if (!a->has_ctime) /* a draft's chmod after its last write is later */
		stored->ctime = *at;
	stored->has_mtime = stored->has_ctime = true;
	stored->ino = ino;
	stored->has_ino = true;
}

int newfile_make_whole(struct mount *m, const char *path, const struct mattr *a,
		       const char *bytes, size_t len, const struct timespec *at, uint64_t ino,
		       struct striped_head *h)
{
	struct mattr_xattrs x;
	struct mattr stored;

	stored_of(a, at, ino, &stored);
	return striped_head_create2(m->io, path, &m->o.layout, bytes, len, x.x,
				    mattr_xattrs(&stored, &x), h, h ? sizeof(*h) : 0);
}

int newfile_take(struct mount *m, const char *path, const struct mattr *a,
		 const struct timespec *at, uint64_t ino, struct striped_head *h)
{
	struct mattr_xattrs x;
	struct mattr stored;

	stored_of(a, at, ino, &stored);
	if (writeback_holder(m)) /* held: written back after its close, or when asked */
		return striped_head_take(m->io, path, &m->o.layout, x.x, mattr_xattrs(&stored, &x),
					 writeback_holder(m), h, sizeof(*h));
	return striped_head_create2(m->io, path, &m->o.layout, NULL, 0, x.x,
				    mattr_xattrs(&stored, &x), h, sizeof(*h));
}

int newfile_fill(struct mount *m, const char *path, const struct striped_head *h,
		 const struct mattr *a, const char *bytes, size_t len, const struct timespec *at,
		 uint64_t ino)
{
	struct striped_head as_made = *h;
	struct mattr_xattrs x;
	struct mattr stored;

	stored_of(a, at, ino, &stored);
	return striped_head_replace(m->io, path, &as_made, sizeof(as_made), bytes, len, x.x,
				    mattr_xattrs(&stored, &x));
}

void newfile_shown(struct mattr *a, size_t len, const struct timespec *at)
{
	a->size = len;
	a->has_mode = a->has_uid = a->has_gid = true;
	a->mtime = a->ctime = a->atime = *at;
}
