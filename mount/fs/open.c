// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Opening and closing files (open.h): the node's handle opened at its
 * first open, shared, and closed at its last close with its mtime stored
 * in the close's round trip.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "clock.h"
#include "drafts.h"
#include "handle.h"
#include "heads.h"
#include "ofile.h"
#include "open.h"
#include "unlinked.h"
#include "writeback.h"

/* Open n's handle (there is none); n->lock held. The caller counts the open. */
static int ofile_open(struct mount *m, struct node *n, const char *path, bool create, bool excl,
		      bool direct, bool *created)
{
	struct striped_file *f = NULL;
	int r = handle_open(m, path, create, excl, !direct, &f, created);

	if (!r && !ofile_new(n, f, !direct, NULL)) {
		striped_close(f);
		r = -ENOMEM;
	}
	return r;
}

void open_count_locked(struct mount *m, struct node *n)
{
	ofile_opened(n);
	node_hold(&m->nodes, n);
}

/* Open (or share) n's handle, the open counted; n->lock held. */
static int ofile_get(struct mount *m, struct node *n, const char *path, bool create, bool excl,
		     bool direct, bool *created)
{
	int r = 0;

	*created = false;
	if (n->file.of && create && excl)
		return -EEXIST;
	if (!n->file.of)
		r = ofile_open(m, n, path, create, excl, direct, created);
	if (!r)
		open_count_locked(m, n);
	return r;
}

int open_handle_locked(struct mount *m, struct node *n)
{
	struct ofile *of = n->file.of;
	struct striped_file *f = NULL;
	char *path;
	bool created;
	int r;

	if (!of)
		return -EBADF;
	if (of->f)
		return 0;
	if (of->draft)
		return drafts_settle_locked(m, n);
	path = node_path(&m->nodes, n); /* a file its flush made: open it as it is */
	r = path ? handle_open(m, path, false, false, of->buffered, &f, &created) : -ENOMEM;
	if (!r)
		ofile_set_handle(of, f);
	free(path);
	return r;
}

int open_handle(struct mount *m, struct node *n, struct striped_file **f, bool *buffered)
{
	int r;

	node_lock(n);
	r = open_handle_locked(m, n);
	*f = n->file.of ? n->file.of->f : NULL;
	*buffered = n->file.of && n->file.of->buffered;
	node_unlock(n);
	return r;
}

/* A truncate of open n to size (n->lock held): its draft's, else through its handle. */
static int truncate_locked(struct mount *m, struct node *n, uint64_t size)
{
	int r = drafts_truncate_locked(n, size) ? 0 : open_handle_locked(m, n);

	if (!r && n->file.of->f)
		r = striped_truncate(n->file.of->f, size);
	if (!r)
		ofile_note_change(n);
	return r;
}

int open_node(struct mount *m, struct node *n, const char *path, bool create, int oflags,
	      bool *created)
{
	bool writing = (oflags & O_ACCMODE) != O_RDONLY;
	uint64_t seen;
	bool small = !writing && !create && node_attr_size(&n->attr, &seen) && seen <= OPEN_SMALL_READ;
	/* cache=kernel: the page cache buffers; the handle sends each request as it comes */
	bool direct = (oflags & O_DIRECT) || m->o.kernel_cache || small;
	int r;

	node_lock(n);
	r = ofile_get(m, n, path, create, oflags & O_EXCL, direct, created);
	/*
	 * A file made here keeps the create's time as its mtime (stored at the
	 * last close with the writes' own, in the close's round trip), also
	 * when nothing is written: else it would show its head's RADOS mtime,
	 * which every later open moves (libstriped's lock is a write to it).
	 * Its inode number goes with it.
	 */
	if (!r && *created) {
		ofile_note_change(n);
		ofile_set_ino_due(n, true);
	}
	if (!r && !*created && (oflags & O_TRUNC) && writing && (r = truncate_locked(m, n, 0))) {
		node_unlock(n);
		open_put(m, n); /* the open the kernel will not get */
		return r;
	}
	node_unlock(n);
	return r;
}

/* Close n's handle f, its mtime (and inode number) stored when due (n->lock held). */
static int close_handle(struct mount *m, struct node *n, struct striped_file *f)
{
	struct heads_write *w = NULL;
	struct mattr a = {0};
	char *path;
	int r, wr = 0;

	if (ofile_written(n)) {
		a.mtime = ofile_mtime(n);
		a.ctime = ofile_ctime(n); /* a chmod after a utimens to the past is later */
		a.has_mtime = a.has_ctime = true;
	}
	if (ofile_ino_due(n)) {
		a.ino = n->ino;
		a.has_ino = true;
		ofile_set_ino_due(n, false);
	}
	/*
	 * Unlinked here: it goes now, and a file made under its name since
	 * must not get its mtime or inode number.
	 */
	if ((a.has_mtime || a.has_ino) && !node_file_unlinked(&n->file)) {
		/* sent before the close, whose unlock then goes with it: one round trip */
		path = node_path(&m->nodes, n);
		wr = path ? heads_write_start(m->io, path, &a, &w) : -ENOMEM;
		free(path);
	}
	r = striped_close2(f);
	if (w)
		wr = heads_write_wait(w);
	if (!r && wr != -ENOENT) /* -ENOENT: removed meanwhile, nothing to keep it on */
		r = wr;
	return r;
}

/* The last close of n's open file (n->lock held): its draft made, its handle closed. */
static int last_close_locked(struct mount *m, struct node *n)
{
	struct ofile *of = n->file.of;
	struct striped_file *f;
	int r = 0;

	if (of->draft) /* made by the FLUSH of close(2) before; a release that came without one */
		r = drafts_flush_locked(m, n);
	if (of->draft) /* unlinked here meanwhile, or its make failed: its bytes go */
		drafts_drop_locked(m, n);
	f = of->f;
	ofile_free(n);
	if (f)
		r = close_handle(m, n, f);
	ofile_clear_written(n);
	return r;
}

/*
 * n's last close here (n->lock held): its open file closed, unless keep
 * and write-back keeps it; *path when it was unlinked meanwhile (to go now).
 */
static int close_or_keep_locked(struct mount *m, struct node *n, bool keep, char **path,
				uint64_t *id)
{
	int r = 0;

	if (n->file.of && !(keep && drafts_kept_locked(m, n) && writeback_keep(m, n)))
		r = last_close_locked(m, n);
	if (ofile_take_unlinked(n, id))
		*path = node_path(&m->nodes, n);
	return r;
}

/*
 * A release (one open counted off, the last may keep a new file) or a
 * kept file's time (closed for good unless opened again meanwhile).
 */
static int close_last(struct mount *m, struct node *n, bool release)
{
	char *path = NULL;
	uint64_t id = 0;
	int r = 0;

	node_lock(n);
	/* released: no open file left (only head_opens were open); kept: not opened again */
	if (release ? ofile_closed(n) == 0 : n->file.opens == 0)
		r = close_or_keep_locked(m, n, release, &path, &id);
	node_unlock(n);
	if (path)
		unlinked_closed(m, path, id);
	free(path);
	return r;
}

int open_put_kept(struct mount *m, struct node *n)
{
	return close_last(m, n, false);
}

int open_put(struct mount *m, struct node *n)
{
	int r = close_last(m, n, true);

	node_put(&m->nodes, n);
	return r;
}

int open_attach(struct mount *m, struct node *n)
{
	char *path = node_path(&m->nodes, n);
	bool created;
	int r = path ? 0 : -ENOMEM;

	node_lock(n);
	if (!r && !n->file.of)
		r = ofile_open(m, n, path, false, false, true, &created);
	node_unlock(n);
	free(path);
	return r;
}

bool open_has_file(struct node *n)
{
	bool has;

	node_lock(n);
	has = n->file.of != NULL;
	node_unlock(n);
	return has;
}

bool open_local(struct mount *m, struct node *n, uint64_t *size, struct timespec *mtime)
{
	struct ofile *of;
	struct mattr a;
	bool written;
	int r;

	node_lock(n);
	if (drafts_attrs_locked(n, &a)) { /* a draft: what it holds */
		node_unlock(n);
		*size = a.size;
		*mtime = a.mtime;
		return true;
	}
	of = n->file.of;
	written = of && of->f && ofile_written(n);
	if (written) /* pinned: a release meanwhile leaves the handle open */
		open_count_locked(m, n);
	node_unlock(n);
	if (!written)
		return false;
	r = striped_stat(of->f, size, NULL);
	*mtime = ofile_mtime(n);
	open_put(m, n);
	return r == 0;
}

int open_truncate(struct mount *m, struct node *n, const char *path, uint64_t size)
{
	struct striped_file *f = NULL;
	struct mattr a = {.has_mtime = true, .has_ctime = true};
	bool open;
	int r = 0;

	node_lock(n);
	open = n->file.of != NULL;
	if (open)
		r = truncate_locked(m, n, size);
	node_unlock(n);
	if (open)
		return r;
	r = striped_open(m->io, path, 0, NULL, &f);
	if (!r)
		r = striped_truncate(f, size);
	striped_close(f);
	if (!r) {
		a.mtime = a.ctime = clock_wall();
		r = heads_write(m->io, path, &a);
	}
	return r;
}

bool open_is_open(struct node *n)
{
	bool open;

	node_lock(n);
	open = n->file.opens > 0;
	node_unlock(n);
	return open;
}

int open_unlink(struct mount *m, struct node *n, const char *path)
{
	struct mattr a;
	bool open;
	int r = 0;

	node_lock(n);
	/* a draft unlinked while open stays in the daemon, never made: the caller's as ever */
	open = n->file.opens > 0 && !drafts_held(n);
	if (open) /* its id: only that file goes at the last close */
		r = heads_read(m->io, path, &a);
	if (open && !r) {
		ofile_mark_unlinked(n, a.id);
		r = unlinked_add(m, path, a.id);
	}
	node_unlock(n);
	if (!open || r == -ENOENT || r == -ENODATA)
		return 0; /* not open here, or gone already: removed (or not found) as ever */
	return r ? r : 1;
}

/* What an unmount could not put on RADOS, said where the daemon's errors go. */
static void unmount_failed(struct mount *m, struct node *n, int r)
{
	char *path = node_path(&m->nodes, n);

	fprintf(stderr, "striped-mount: %s: not all written at unmount: %s\n",
		path ? path : "(a file)", strerror(-r));
	syslog(LOG_ERR, "striped-mount: %s: not all written at unmount: %s",
	       path ? path : "(a file)", strerror(-r));
	free(path);
}

/* One open file's end at unmount: its draft made, its handle closed. */
static int close_at_unmount(struct mount *m, struct ofile *of)
{
	int r = 0;

	if (of->draft) { /* made as its close would */
		node_lock(of->n);
		r = drafts_flush_locked(m, of->n);
		node_unlock(of->n);
	}
	if (of->f) {
		int c = striped_close2(of->f);

		r = r ? r : c;
	}
	return r;
}

int open_close_all(struct mount *m)
{
	struct ofile *of;
	int failed = 0;

	while ((of = ofile_next_to_close())) {
		int r = close_at_unmount(m, of);
		uint64_t id;
		char *path;

		if (r) {
			unmount_failed(m, of->n, r);
			failed++;
		}
		node_lock(of->n);
		path = ofile_take_unlinked(of->n, &id) ? node_path(&m->nodes, of->n) : NULL;
		node_unlock(of->n);
		if (path) /* its last close here is the unmount */
			unlinked_closed(m, path, id);
		free(path);
		/* the node keeps a pointer to it: the daemon exits next, it stays allocated */
	}
	return failed;
}
