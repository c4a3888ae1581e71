// SPDX-License-Identifier: LGPL-2.1-or-later
/* The data path (io.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "attr.h"
#include "clock.h"
#include "drafts.h"
#include "headopen.h"
#include "io.h"
#include "ofile.h"
#include "open.h"

/* One READ, WRITE or FLUSH in flight: what its completion needs. */
struct io_ctx {
	io_done_fn *done;
	void *arg;
	struct node *n;
	struct striped_file *f;
	char *buf; /* a read's */
	size_t len;
	bool flush_after; /* an O_DIRECT write on a buffered handle: on RADOS before it ends */
};

static struct io_ctx *ctx_new(io_done_fn *done, void *arg, size_t buf_len)
{
	struct io_ctx *x = calloc(1, sizeof(*x));

	if (x && buf_len && !(x->buf = malloc(buf_len))) {
		free(x);
		return NULL;
	}
	if (x) {
		x->done = done;
		x->arg = arg;
	}
	return x;
}

/* x's call ends with r; x goes. */
static void finish(struct io_ctx *x, ssize_t r)
{
	x->done(x->arg, r, x->buf);
	free(x->buf);
	free(x);
}

static void read_done(struct striped_completion *c, void *arg)
{
	finish(arg, striped_completion_result(c));
	striped_completion_release(c);
}

/* x's read through n's handle: synchronous when buffered (readahead), else aio. */
static int read_through_handle(struct mount *m, struct io_ctx *x, size_t size, uint64_t off)
{
	struct striped_completion *c = NULL;
	struct striped_file *f;
	bool buffered;
	int r = open_handle(m, x->n, &f, &buffered);

	if (r)
		return r;
	if (buffered) {
		/*
		 * libstriped reads ahead for synchronous reads of a buffered
		 * handle only (an aio read goes to RADOS, the window laid over
		 * it); a cached open's reads come one at a time anyway.
		 */
		finish(x, striped_read(f, x->buf, size, off));
		return 0;
	}
	r = striped_completion_create(read_done, x, &c);
	if (!r)
		r = striped_aio_read(f, c, x->buf, size, off);
	if (r)
		striped_completion_release(c);
	return r;
}

int io_read(struct mount *m, uint64_t fh, size_t size, uint64_t off, io_done_fn *done, void *arg)
{
	struct head_open *ho = headopen_of(fh);
	struct io_ctx *x = ctx_new(done, arg, size ? size : 1);
	ssize_t got;
	int r;

	if (!x)
		return -ENOMEM;
	x->n = headopen_node(fh);
	if ((ho && headopen_read(m, ho, x->buf, size, off, &got)) ||
	    drafts_read(m, x->n, x->buf, size, off, &got)) {
		finish(x, got);
		return 0;
	}
	r = read_through_handle(m, x, size, off);
	if (r) {
		free(x->buf);
		free(x);
	}
	return r;
}

static void flushed_write_done(struct striped_completion *c, void *arg)
{
	struct io_ctx *x = arg;
	ssize_t r = striped_completion_result(c);

	striped_completion_release(c);
	finish(x, r < 0 ? r : (ssize_t)x->len);
}

static void write_done(struct striped_completion *c, void *arg)
{
	struct io_ctx *x = arg;
	struct striped_completion *fc = NULL;
	ssize_t r = striped_completion_result(c);

	striped_completion_release(c);
	if (r >= 0)
		ofile_note_change(x->n);
	if (r >= 0 && x->flush_after) {
		x->len = (size_t)r;
		if (!striped_completion_create(flushed_write_done, x, &fc) &&
		    !striped_aio_flush(x->f, fc))
			return;
		striped_completion_release(fc);
		r = -EIO;
	}
	finish(x, r);
}

int io_write(struct mount *m, uint64_t fh, const char *buf, size_t size, uint64_t off, int flags,
	     io_done_fn *done, void *arg)
{
	struct node *n = headopen_node(fh);
	struct striped_completion *c = NULL;
	struct io_ctx *x;
	bool buffered;
	int r = flags & IO_KILL_SUIDGID ? attr_kill_suid(m, n) : 0;

	if (r)
		return r;
	if (drafts_write(n, buf, size, off, flags)) {
		done(arg, (ssize_t)size, NULL);
		return 0;
	}
	x = ctx_new(done, arg, 0);
	if (!x)
		return -ENOMEM;
	x->n = n;
	r = open_handle(m, n, &x->f, &buffered);
	x->flush_after = (flags & O_DIRECT) && buffered;
	if (!r)
		r = striped_completion_create(write_done, x, &c);
	/* copies buf (libfuse reuses it once this returns), then sends it */
	if (!r)
		r = striped_aio_write(x->f, c, buf, size, off);
	if (r) {
		striped_completion_release(c);
		free(x);
	}
	return r;
}

static void flush_done(struct striped_completion *c, void *arg)
{
	finish(arg, striped_completion_result(c));
	striped_completion_release(c);
}

int io_flush(struct mount *m, uint64_t fh, bool sync, io_done_fn *done, void *arg)
{
	struct node *n = headopen_node(fh);
	struct striped_completion *c = NULL;
	struct striped_file *f = NULL;
	bool is_made = false;
	struct mattr made;
	struct io_ctx *x;
	int r = 0;

	node_lock(n);
	/* a draft: made whole now, or through a handle; at a close, unless it is kept */
	if (n->file.of && n->file.of->draft && (sync || !drafts_kept_locked(m, n)))
		r = drafts_flush_made_locked(m, n, &made, &is_made);
	if (!r && is_made) { /* what it is now: the stat a program makes after its close */
		attr_cache_locked(n, &made, clock_age_now(), node_changes(n));
		attr_seen(n, &made);
	}
	if (!r && n->file.of) /* the handle another client's file of its name took: its window */
		f = n->file.of->f;
	node_unlock(n);
	if (r || !f) { /* a head_open, or a file its flush made whole: nothing of it waits here */
		done(arg, r, NULL);
		return 0;
	}
	x = ctx_new(done, arg, 0);
	r = x ? striped_completion_create(flush_done, x, &c) : -ENOMEM;
	if (!r)
		r = striped_aio_flush(f, c);
	if (r) {
		striped_completion_release(c);
		free(x);
	}
	return r;
}
