// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Open files: one libstriped handle per node, shared by every open of it
 * on this mount (so one open reads what another wrote at once), opened
 * buffered (write-behind, readahead) for cached opens and direct for
 * O_DIRECT ones (a later open of the other kind shares what is there).
 * A read-only open of a small file takes no handle while none is open:
 * it reads the head, the bytes of a file of 64 KiB or less with it, and
 * its reads are answered from those for cache_time, then each reads the
 * head (striped_head_pread()), see head_open.
 * Each READ and WRITE is one striped_aio_* call answered from its
 * completion callback, which only replies, records and frees: the worker
 * thread that took the request is free at once, and the kernel's pieces of
 * one O_DIRECT call are all in flight together.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "mount.h"
#include "pending.h"

struct ofile {
	/*
	 * NULL while there is none: a new file kept in the daemon (p), or
	 * one its flush made; opened when a call needs it (ofile_handle()).
	 */
	struct striped_file *f;
	bool buffered;
	struct pending *p; /* a new file not made on RADOS yet (pending.c) */
	/* p's handle made the file, and then failed before its create's attributes were stored */
	bool attrs_due;
	struct node *n;
	struct ofile *prev, *next; /* every open file, for the unmount */
};

/*
 * A read-only open of a file whose bytes all lie in its head object (no
 * larger than its stripe unit), with no handle open on this mount: no
 * lock, no watch. The open reads the head (that the file is there, its
 * size and id; its bytes, see below), each read reads the bytes with the
 * size beside them, one operation each, none of them a write: a handle
 * costs three round trips to open (metadata, lock, watch) and two to close
 * (unwatch, unlock), four of them writes to the head. Its reads go through the node's handle once
 * one is open (an open for writing came: what it writes is read at once),
 * and through one it opens when the head alone cannot answer (the file
 * grew past it, or a truncate or remove holds the lock exclusive). The
 * open counts in the node's opens, so the handle stays until the last
 * close of either kind. Its fh is tagged (FH_HEAD) to tell it from a
 * node's.
 */
struct head_open {
	struct node *n;
	uint64_t id; /* the file's, at the open: another id is another file */
	/*
	 * The file's bytes as the open read them, beside its attributes (in
	 * the same round trip): the reads of the next cache_time are answered
	 * from them, as the attributes are, unless this mount changed the file
	 * since (the node's count of changes). A small file's open, read and
	 * read at the end: one round trip, where there were three.
	 */
	bool kept;
	char *data;
	uint64_t size;
	double at;
	uint64_t changes;
};
#define FH_HEAD 1u

static struct head_open *fh_head(const struct fuse_file_info *fi)
{
	return fi->fh & FH_HEAD ? (struct head_open *)(uintptr_t)(fi->fh & ~(uint64_t)FH_HEAD)
				: NULL;
}

static struct node *fh_node(const struct fuse_file_info *fi)
{
	struct head_open *ho = fh_head(fi);

	return ho ? ho->n : (struct node *)(uintptr_t)fi->fh;
}

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ofile open_list = {.prev = &open_list, .next = &open_list};

static void list_add(struct ofile *of)
{
	pthread_mutex_lock(&open_lock);
	of->next = open_list.next;
	of->prev = &open_list;
	open_list.next->prev = of;
	open_list.next = of;
	pthread_mutex_unlock(&open_lock);
}

static void list_del(struct ofile *of)
{
	pthread_mutex_lock(&open_lock);
	of->prev->next = of->next;
	of->next->prev = of->prev;
	pthread_mutex_unlock(&open_lock);
}

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

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};

	return ts;
}

/*
 * What this mount changed in n's data, at what time: stored as its mtime at
 * the last close. From write completions too: no lock taken.
 */
static void note_change(struct node *n)
{
	atomic_store(&n->mtime_ns, now_ns());
	atomic_store(&n->written, true);
	atomic_fetch_add(&n->changes, 1);
}

static int store_new_file_attrs(struct mount *m, const char *path, const struct mattr *a);

void ops_file_set_mtime(struct node *n, const struct timespec *ts)
{
	atomic_store(&n->mtime_ns, (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec);
}

/*
 * The largest file a read-only open reads through a direct handle: one or
 * two READs of the kernel's 1 MiB read it whole, each one round trip that
 * reads the size beside the data, where a buffered handle first reads the
 * size, then a stripe ahead, past the end of a small file (4 KiB files:
 * 7 operations against 1).
 */
#define SMALL_READ (1u << 20)

/*
 * A handle of path: a create asks for a new file first (STRIPED_EXCL), and
 * says in *created whether it made one, so that O_TRUNC costs nothing on a
 * file just made (a truncate takes the file's lock exclusive: 8 operations
 * on the head); a file that exists is then opened as it is.
 */
static int handle_open(struct mount *m, const char *path, bool create, bool excl, bool direct,
		       struct striped_file **f, bool *created)
{
	int mode = direct ? 0 : STRIPED_BUFFERED, r;

	*created = false;
	if (create) {
		r = striped_open(m->io, path, mode | STRIPED_CREATE | STRIPED_EXCL, &m->o.layout, f);
		*created = !r;
		if (r != -EEXIST || excl)
			return r;
	}
	r = striped_open(m->io, path, mode, NULL, f);
	if (r == -ENOENT && create) /* removed meanwhile */
		r = striped_open(m->io, path, mode | STRIPED_CREATE, &m->o.layout, f);
	return r;
}

/* handle_open(), a buffered handle given the mount's window. */
static int handle_open_set(struct mount *m, const char *path, bool create, bool excl,
			   bool buffered, struct striped_file **f, bool *created)
{
	struct striped_buffer_config cfg = STRIPED_BUFFER_CONFIG_INIT;
	int r = handle_open(m, path, create, excl, !buffered, f, created);

	if (!r && buffered) {
		cfg.window = m->o.window;
		cfg.readahead_max = m->o.window / 2;
		r = striped_file_set_buffer(*f, &cfg, sizeof(cfg));
	}
	if (r) {
		striped_close(*f);
		*f = NULL;
	}
	return r;
}

/* n's open file, with handle f or pending p; n->lock held. */
static struct ofile *ofile_new(struct node *n, struct striped_file *f, bool buffered,
			       struct pending *p)
{
	struct ofile *of = calloc(1, sizeof(*of));

	if (!of)
		return NULL;
	of->f = f;
	of->buffered = buffered;
	of->p = p;
	of->n = n;
	list_add(of);
	n->of = of;
	atomic_store(&n->written, false);
	return of;
}

/* Open n's handle (there is none); n->lock held. The caller counts the open. */
static int ofile_open(struct mount *m, struct node *n, const char *path, bool create, bool excl,
		      bool direct, bool *created)
{
	struct striped_file *f = NULL;
	int r = handle_open_set(m, path, create, excl, !direct, &f, created);

	if (!r && !ofile_new(n, f, !direct, NULL)) {
		striped_close(f);
		r = -ENOMEM;
	}
	return r;
}

/* n's pending file is on RADOS now (path), or will never be: what kept it goes. */
static void pending_done(struct mount *m, struct node *n, const char *path)
{
	pending_free(n->of->p);
	n->of->p = NULL;
	atomic_store(&n->kept, false);
	if (path)
		listing_unkeep(&m->listing, path);
}

/* What a stat of n says while it keeps a new file (n->lock held): false when it does not. */
static bool kept_attrs_locked(struct node *n, struct mattr *a)
{
	struct timespec mtime = ts_of(atomic_load(&n->mtime_ns));

	if (!n->of || !n->of->p)
		return false;
	pending_attrs(n->of->p, &mtime, a);
	return true;
}

/*
 * A pending file made on RADOS through a handle, as an open would have made
 * it, its kept bytes written through it (n->lock held): for what the kept
 * bytes cannot answer, and when another client made a file of its name
 * meanwhile (pending_make() said -EEXIST). Unlinked or renamed over here
 * meanwhile: -ESTALE, as a handle's calls then.
 */
static int pending_settle(struct mount *m, struct node *n)
{
	struct ofile *of = n->of;
	struct striped_file *f = NULL;
	char *path = NULL;
	bool created;
	int r = n->detached ? -ESTALE : (path = node_path(&m->nodes, n)) ? 0 : -ENOMEM;

	if (!r)
		r = handle_open_set(m, path, true, false, of->buffered, &f, &created);
	of->attrs_due |= !r && created; /* a try after a failure finds the file there */
	if (!r && of->attrs_due && !(r = store_new_file_attrs(m, path, pending_create_attrs(of->p))))
		of->attrs_due = false;
	if (!r)
		r = pending_replay(of->p, f, created);
	if (r) {
		striped_close(f);
		free(path);
		return r;
	}
	of->f = f;
	pending_done(m, n, path);
	free(path);
	return 0;
}

/*
 * A pending file made on RADOS whole, in one operation (n->lock held): at
 * its first flush, or for a call that needs it there. Its mtime goes with
 * it: nothing is left to store at the close. Unlinked or renamed over here
 * meanwhile: nothing made (the bytes went with the name), as the release
 * then drops them.
 */
static int pending_flush(struct mount *m, struct node *n)
{
	struct ofile *of = n->of;
	struct timespec mtime = ts_of(atomic_load(&n->mtime_ns));
	char *path;
	int r;

	if (!of || !of->p || n->detached)
		return 0;
	path = node_path(&m->nodes, n);
	r = path ? pending_make(of->p, m->io, path, &m->o.layout, &mtime) : -ENOMEM;
	if (r == -EEXIST)
		r = pending_settle(m, n);
	else if (!r) {
		pending_done(m, n, path);
		atomic_store(&n->written, false);
	}
	free(path);
	return r;
}

/* n's handle, opened now when there is none (n->lock held). */
static int ofile_handle_locked(struct mount *m, struct node *n)
{
	struct ofile *of = n->of;
	char *path;
	bool created;
	int r;

	if (of->f)
		return 0;
	if (of->p)
		return pending_settle(m, n);
	path = node_path(&m->nodes, n); /* a file its flush made: open it as it is */
	r = path ? handle_open_set(m, path, false, false, of->buffered, &of->f, &created) : -ENOMEM;
	free(path);
	return r;
}

/* n's handle for a read or write: *f and *buffered; the open's file stays meanwhile. */
static int ofile_handle(struct mount *m, struct node *n, struct striped_file **f, bool *buffered)
{
	int r;

	pthread_mutex_lock(&n->lock);
	r = ofile_handle_locked(m, n);
	*f = n->of->f;
	*buffered = n->of->buffered;
	pthread_mutex_unlock(&n->lock);
	return r;
}

/* Open (or share) n's handle; n->lock held. */
static int ofile_get(struct mount *m, struct node *n, const char *path, bool create, bool excl,
		     bool direct, bool *created)
{
	int r = 0;

	*created = false;
	if (n->of && create && excl)
		return -EEXIST;
	if (!n->of)
		r = ofile_open(m, n, path, create, excl, direct, created);
	if (!r)
		n->opens++;
	return r;
}

static void head_open_free(struct head_open *ho)
{
	if (ho)
		free(ho->data);
	free(ho);
}

/*
 * The largest file whose bytes a read-only open keeps: a head_open holds
 * them while it is open, so many open at once cost at most this each.
 */
#define KEEP_MAX (64u << 10)

/* A head_open's reading of the bytes, made while its attributes are read. */
struct open_bytes {
	struct mount *m;
	const char *path;
	char *buf;
	size_t len;
	struct striped_head h;
	ssize_t r;
};

static void read_open_bytes(void *arg)
{
	struct open_bytes *b = arg;

	b->r = -EFBIG;
	if (b->len)
		b->r = striped_head_pread(b->m->io, b->path, &b->h, sizeof(b->h), b->buf, b->len, 0);
}

/* Keep what b read, when it is the file's bytes whole (the size as the attributes say). */
static void keep_open_bytes(struct head_open *ho, struct open_bytes *b, struct mattr *a,
			    double at, uint64_t changes)
{
	if (b->r < 0 || (uint64_t)b->r != b->h.size || b->h.id != a->id)
		return; /* grown since the lookup, or locked exclusive: each read reads */
	a->size = b->h.size; /* the GETATTR after the open says what the reads give */
	ho->kept = true;
	ho->data = b->buf;
	b->buf = NULL;
	ho->size = b->h.size;
	ho->at = at;
	ho->changes = changes;
}

/*
 * A head_open for a read-only open of n, when it can be one: 1 (*out set),
 * 0 when the open needs the handle (a file past its head, or an error the
 * handle's open reports as ever). The head's reading is kept for the
 * GETATTR the kernel sends next (it forgot the attributes at the open):
 * ops_file_open_attrs().
 */
static int head_open(struct mount *m, struct node *n, const char *path, int oflags,
		     struct head_open **out)
{
	uint64_t seen = atomic_load(&n->seen_size), changes;
	struct open_bytes b = {.m = m, .path = path};
	struct head_open *ho;
	struct mattr a;
	double at;
	int r = 0;

	if ((oflags & O_ACCMODE) != O_RDONLY || (oflags & O_TRUNC) || seen > SMALL_READ)
		return 0;
	/* the size the lookup gave, or a page; a larger file's reads each read the head */
	b.len = seen > KEEP_MAX ? 0 : seen > 4096 ? (size_t)seen : 4096;
	ho = calloc(1, sizeof(*ho));
	b.buf = b.len ? malloc(b.len) : NULL;
	if (!ho || (b.len && !b.buf)) {
		free(b.buf);
		free(ho);
		return -ENOMEM;
	}
	pthread_mutex_lock(&n->lock);
	changes = atomic_load(&n->changes); /* before the read: a change during it makes it stale */
	at = listing_now();
	if (!n->of && !mattr_read_beside(m->io, path, &a, read_open_bytes, &b) &&
	    a.size <= a.stripe_unit) {
		n->opens++;
		keep_open_bytes(ho, &b, &a, at, changes);
		node_keep_attrs_locked(n, &a, at, changes);
		node_saw_head(n, &a);
		ho->n = n;
		ho->id = a.id;
		*out = ho;
		ho = NULL;
		r = 1;
	}
	pthread_mutex_unlock(&n->lock);
	free(b.buf);
	head_open_free(ho);
	return r;
}

bool ops_file_open_attrs(struct mount *m, struct node *n, struct mattr *a)
{
	bool fresh;

	pthread_mutex_lock(&n->lock);
	fresh = node_kept_attrs_locked(n, listing_now(), m->o.cache_time, a);
	n->open_attrs_at = 0; /* for the one GETATTR after the open */
	pthread_mutex_unlock(&n->lock);
	return fresh;
}

/* Open n for a FUSE open or create; *created: a create made the file. */
static int open_node(struct mount *m, struct node *n, const char *path, bool create, int oflags,
		     bool *created)
{
	bool writing = (oflags & O_ACCMODE) != O_RDONLY;
	/* cache=kernel: the page cache buffers; the handle sends each request as it comes */
	bool direct = (oflags & O_DIRECT) || m->o.kernel_cache ||
		      (!writing && !create && atomic_load(&n->seen_size) <= SMALL_READ);
	int r;

	pthread_mutex_lock(&n->lock);
	r = ofile_get(m, n, path, create, oflags & O_EXCL, direct, created);
	/*
	 * A file made here keeps the create's time as its mtime (stored at the
	 * last close with the writes' own, in the close's round trip), also
	 * when nothing is written: else it would show its head's RADOS mtime,
	 * which every later open moves (libstriped's lock is a write to it).
	 */
	if (!r && *created)
		note_change(n);
	if (!r && !*created && (oflags & O_TRUNC) && writing) {
		r = n->of->p && pending_truncate(n->of->p, 0) ? 0 : ofile_handle_locked(m, n);
		if (!r && n->of->f)
			r = striped_truncate(n->of->f, 0);
		if (!r)
			note_change(n);
	}
	pthread_mutex_unlock(&n->lock);
	return r;
}

/* Cached opens bypass the page cache: libstriped's window is the cache. */
static void set_open_flags(struct mount *m, struct fuse_file_info *fi)
{
	fi->direct_io = !(fi->flags & O_DIRECT) && !m->o.kernel_cache;
	fi->keep_cache = 0;
}

static void file_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct node *n = node_get(&m->nodes, ino);
	char *path = n ? node_path(&m->nodes, n) : NULL;
	struct head_open *ho = NULL;
	bool created;
	int r;

	if (!n || !path) {
		free(path);
		fuse_reply_err(req, n ? ENOMEM : ENOENT);
		return;
	}
	r = head_open(m, n, path, fi->flags, &ho);
	if (!r)
		r = open_node(m, n, path, false, fi->flags, &created);
	free(path);
	if (r < 0) {
		fuse_reply_err(req, mount_errno(r));
		return;
	}
	/* close-to-open: the size the kernel keeps is forgotten; the next stat reads it anew */
	fuse_lowlevel_notify_inval_inode(m->se, ino, -1, 0);
	fi->fh = ho ? (uint64_t)(uintptr_t)ho | FH_HEAD : (uint64_t)(uintptr_t)n;
	set_open_flags(m, fi);
	if (fuse_reply_open(req, fi) == -ENOENT) { /* interrupted: the kernel has no such open */
		file_release_node(m, n);
		head_open_free(ho);
	}
}

/* Close n's handle f, its mtime stored when written here (n->lock held). */
static int close_handle(struct mount *m, struct node *n, struct striped_file *f)
{
	struct mattr_write *w = NULL;
	struct mattr a = {0};
	char *path;
	int r, wr = 0;

	if (atomic_load(&n->written)) {
		/* sent before the close, whose unlock then goes with it: one round trip */
		a.mtime = a.ctime = ts_of(atomic_load(&n->mtime_ns));
		a.has_mtime = a.has_ctime = true;
		path = node_path(&m->nodes, n);
		wr = path ? mattr_write_start(m->io, path, &a, &w) : -ENOMEM;
		free(path);
	}
	r = striped_close2(f);
	if (w)
		wr = mattr_write_wait(w);
	if (!r && wr != -ENOENT) /* -ENOENT: removed meanwhile, nothing to keep it on */
		r = wr;
	return r;
}

/*
 * The last close of a file here: its window sent, its lock let go of, its
 * mtime stored, all under the node's lock, so that an open arriving
 * meanwhile finds the stored size whole (the kernel sends RELEASE after
 * close(2) returned, and the next open may come before it).
 */
static int ofile_put(struct mount *m, struct node *n)
{
	struct ofile *of;
	int r = 0;

	pthread_mutex_lock(&n->lock);
	if (--n->opens > 0 || !n->of) /* no handle: only head_opens were open */
		goto out;
	of = n->of;
	if (of->p) /* made by the FLUSH of close(2) before; a release that came without one */
		r = pending_flush(m, n);
	if (of->p) { /* unlinked here meanwhile, or its make failed: its bytes go */
		/* unlinked: its name may be another new file's now, kept in the listing */
		char *path = n->detached ? NULL : node_path(&m->nodes, n);

		pending_done(m, n, path);
		free(path);
	}
	n->of = NULL;
	list_del(of);
	if (of->f)
		r = close_handle(m, n, of->f);
	free(of);
	atomic_store(&n->written, false);
out:
	pthread_mutex_unlock(&n->lock);
	pthread_mutex_lock(&m->nodes.lock);
	node_release_if_unused(&m->nodes, n);
	pthread_mutex_unlock(&m->nodes.lock);
	return r;
}

static void file_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct node *n = fh_node(fi);

	(void)ino;
	head_open_free(fh_head(fi));
	fuse_reply_err(req, mount_errno(ofile_put(m, n)));
}

void file_release_node(struct mount *m, struct node *n)
{
	ofile_put(m, n);
}

/* One READ or WRITE in flight: what its callback needs. */
struct io_ctx {
	fuse_req_t req;
	struct node *n;
	struct striped_file *f;
	char *buf; /* a read's */
	size_t len;
	uint64_t off;
	bool flush_after; /* an O_DIRECT write on a buffered handle: on RADOS before the reply */
};

/* The reply to a READ (x->buf) or a WRITE that ended with r; x goes. */
static void reply_io(struct io_ctx *x, ssize_t r, bool read)
{
	if (r < 0)
		fuse_reply_err(x->req, mount_errno((int)r));
	else if (read)
		fuse_reply_buf(x->req, x->buf, (size_t)r);
	else
		fuse_reply_write(x->req, (size_t)r);
	free(x->buf);
	free(x);
}

static void read_done(struct striped_completion *c, void *arg)
{
	reply_io(arg, striped_completion_result(c), true);
	striped_completion_release(c);
}

/* The node's handle as it is now (a head_open's reads take it once there is one). */
static struct ofile *ofile_now(struct node *n)
{
	struct ofile *of;

	pthread_mutex_lock(&n->lock);
	of = n->of;
	pthread_mutex_unlock(&n->lock);
	return of;
}

/* A head_open's read from the head; *need_handle when the head alone cannot answer. */
static ssize_t head_read(struct mount *m, struct head_open *ho, char *buf, size_t size,
			 uint64_t off, bool *need_handle)
{
	char *path = node_path(&m->nodes, ho->n);
	struct striped_head h;
	ssize_t r;

	*need_handle = false;
	if (!path)
		return -ENOMEM;
	r = striped_head_pread(m->io, path, &h, sizeof(h), buf, size, off);
	free(path);
	if (r == -ENOENT || (r >= 0 && h.id != ho->id))
		return -ESTALE; /* removed, or made anew, since the open: as a handle's calls */
	*need_handle = r == -EBUSY || (r >= 0 && (size_t)r < size && off + (uint64_t)r < h.size);
	return r;
}

/* A handle for n's opens, opened for a head_open whose file outgrew its head. */
static int ofile_attach(struct mount *m, struct node *n)
{
	char *path = node_path(&m->nodes, n);
	bool created;
	int r = path ? 0 : -ENOMEM;

	pthread_mutex_lock(&n->lock);
	if (!r && !n->of)
		r = ofile_open(m, n, path, false, false, true, &created);
	pthread_mutex_unlock(&n->lock);
	free(path);
	return r;
}

/* A head_open's read answered from the bytes its open read: false when they are stale. */
static bool kept_read(struct mount *m, const struct head_open *ho, char *buf, size_t size,
		      uint64_t off, ssize_t *r)
{
	if (!ho->kept || listing_now() - ho->at >= m->o.cache_time ||
	    atomic_load(&ho->n->changes) != ho->changes)
		return false;
	*r = off >= ho->size ? 0 : (ssize_t)(ho->size - off < size ? ho->size - off : size);
	if (*r)
		memcpy(buf, ho->data + off, (size_t)*r);
	return true;
}

/*
 * A head_open's read: from the bytes its open read, from the head, or
 * through the handle (*of) once there is one.
 */
static ssize_t head_open_read(struct mount *m, struct head_open *ho, char *buf, size_t size,
			      uint64_t off, struct ofile **of)
{
	bool need_handle;
	ssize_t r;

	*of = ofile_now(ho->n);
	if (*of)
		return 0;
	if (kept_read(m, ho, buf, size, off, &r))
		return r;
	r = head_read(m, ho, buf, size, off, &need_handle);
	if (!need_handle)
		return r;
	r = ofile_attach(m, ho->n);
	*of = r ? NULL : ofile_now(ho->n);
	return r;
}

static void file_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct head_open *ho = fh_head(fi);
	struct striped_completion *c = NULL;
	struct io_ctx *x = calloc(1, sizeof(*x));
	struct striped_file *f;
	struct ofile *of;
	bool buffered;
	int r = -ENOMEM;

	(void)ino;
	if (!x || !(x->buf = malloc(size ? size : 1)))
		goto fail;
	x->req = req;
	if (ho) {
		ssize_t got = head_open_read(mount_of(req), ho, x->buf, size, (uint64_t)off, &of);

		if (!of) {
			reply_io(x, got, true);
			return;
		}
	}
	r = ofile_handle(mount_of(req), fh_node(fi), &f, &buffered);
	if (r)
		goto fail;
	if (buffered) {
		/*
		 * libstriped reads ahead for synchronous reads of a buffered
		 * handle only (an aio read goes to RADOS, the window laid over
		 * it); a cached open's reads come one at a time anyway.
		 */
		reply_io(x, striped_read(f, x->buf, size, (uint64_t)off), true);
		return;
	}
	r = striped_completion_create(read_done, x, &c);
	if (!r)
		r = striped_aio_read(f, c, x->buf, size, (uint64_t)off);
	if (!r)
		return;
fail:
	striped_completion_release(c);
	if (x)
		free(x->buf);
	free(x);
	fuse_reply_err(req, mount_errno(r));
}

static void flushed_write_done(struct striped_completion *c, void *arg)
{
	struct io_ctx *x = arg;
	ssize_t r = striped_completion_result(c);

	reply_io(x, r < 0 ? r : (ssize_t)x->len, false);
	striped_completion_release(c);
}

static void write_done(struct striped_completion *c, void *arg)
{
	struct io_ctx *x = arg;
	struct striped_completion *fc = NULL;
	ssize_t r = striped_completion_result(c);

	striped_completion_release(c);
	if (r >= 0)
		note_change(x->n);
	if (r >= 0 && x->flush_after) {
		x->len = (size_t)r;
		if (!striped_completion_create(flushed_write_done, x, &fc) &&
		    !striped_aio_flush(x->f, fc))
			return;
		striped_completion_release(fc);
		r = -EIO;
	}
	reply_io(x, r, false);
}

/* A write kept with a pending file's bytes: false when it must go to RADOS. */
static bool pending_take(struct node *n, const char *buf, size_t size, off_t off, int flags)
{
	bool taken;

	pthread_mutex_lock(&n->lock);
	/* an O_DIRECT write is on RADOS when it returns */
	taken = n->of->p && !(flags & O_DIRECT) && pending_write(n->of->p, buf, size, (uint64_t)off);
	if (taken)
		note_change(n);
	pthread_mutex_unlock(&n->lock);
	return taken;
}

static void file_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct node *n = fh_node(fi);
	struct striped_completion *c = NULL;
	struct io_ctx *x = NULL;
	bool buffered;
	int r = -ENOMEM;

	(void)ino;
	if (pending_take(n, buf, size, off, fi->flags)) {
		fuse_reply_write(req, size);
		return;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		goto fail;
	x->req = req;
	x->n = n;
	x->off = (uint64_t)off;
	r = ofile_handle(mount_of(req), n, &x->f, &buffered);
	if (r)
		goto fail;
	x->flush_after = (fi->flags & O_DIRECT) && buffered;
	r = striped_completion_create(write_done, x, &c);
	/* copies buf (libfuse reuses it once this returns), then sends it */
	if (!r)
		r = striped_aio_write(x->f, c, buf, size, (uint64_t)off);
	if (!r)
		return;
fail:
	striped_completion_release(c);
	free(x);
	fuse_reply_err(req, mount_errno(r));
}

static void flush_done(struct striped_completion *c, void *arg)
{
	fuse_req_t req = arg;
	ssize_t r = striped_completion_result(c);

	fuse_reply_err(req, mount_errno((int)r));
	striped_completion_release(c);
}

/* close(2) and fsync(2): every byte written through this file landed, or its error. */
static void flush_file(fuse_req_t req, struct fuse_file_info *fi)
{
	struct node *n = fh_node(fi);
	struct striped_completion *c = NULL;
	struct striped_file *f = NULL;
	int r = 0;

	pthread_mutex_lock(&n->lock);
	if (n->of && n->of->p) /* a new file kept here: made whole now, or through a handle */
		r = pending_flush(mount_of(req), n);
	if (!r && n->of) /* the handle another client's file of its name took: its window */
		f = n->of->f;
	pthread_mutex_unlock(&n->lock);
	if (r || !f) { /* a head_open, or a file its flush made whole: nothing of it waits here */
		fuse_reply_err(req, mount_errno(r));
		return;
	}
	r = striped_completion_create(flush_done, req, &c);
	if (!r)
		r = striped_aio_flush(f, c);
	if (r) {
		striped_completion_release(c);
		fuse_reply_err(req, mount_errno(r));
	}
}

static void file_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	flush_file(req, fi);
}

static void file_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	(void)ino;
	(void)datasync;
	flush_file(req, fi);
}

/* The attributes a new file stores: only what differs from the mount's defaults. */
static void new_file_attrs(struct mount *m, fuse_req_t req, mode_t mode, struct mattr *a)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	memset(a, 0, sizeof(*a));
	a->mode = mode;
	a->uid = ctx->uid;
	a->gid = ctx->gid;
	if ((mode & 07777) != m->o.file_mode || !S_ISREG(mode))
		a->has_mode = true;
	if (ctx->uid != m->o.uid)
		a->has_uid = true;
	if (ctx->gid != m->o.gid)
		a->has_gid = true;
}

/* A new file's attributes stored, when any differs from the defaults (else no round trip). */
static int store_new_file_attrs(struct mount *m, const char *path, const struct mattr *a)
{
	if (!a->has_mode && !a->has_uid && !a->has_gid && !a->has_mtime)
		return 0;
	return mattr_write(m->io, path, a);
}

int ops_file_make_whole(struct mount *m, fuse_req_t req, const char *path, mode_t mode,
			const char *bytes, size_t len, const struct timespec *mtime)
{
	struct mattr_xattrs x;
	struct mattr a;

	new_file_attrs(m, req, mode, &a);
	a.mtime = a.ctime = *mtime;
	a.has_mtime = a.has_ctime = true;
	return striped_head_create(m->io, path, &m->o.layout, bytes, len, x.x,
				   mattr_xattrs(&a, &x));
}

/*
 * The attributes a create replies with: a file it made has what it was
 * made with; one that was there (another client made it after the kernel
 * last looked) is read as it is.
 */
static int created_attrs(struct mount *m, fuse_req_t req, struct node *n, const char *path,
			 mode_t mode, bool created, struct mattr *a)
{
	int r;

	if (!created)
		return mount_getattr(m, n, a);
	/* its mtime (the create's, noted by open_node) is stored at its last close */
	new_file_attrs(m, req, S_IFREG | (mode & 07777), a);
	r = store_new_file_attrs(m, path, a);
	if (r)
		return r;
	listing_add(&m->listing, path);
	a->has_mode = a->has_uid = a->has_gid = true;
	a->mtime = a->ctime = ts_of(atomic_load(&n->mtime_ns));
	return 0;
}

/* The most bytes a new file keeps in the daemon before it is made (pending.c). */
#define PENDING_MAX (64u << 10)

/*
 * A create kept in the daemon (pending.c): 0 with *a the new file's
 * attributes; 1 when it cannot be (without O_TRUNC a file another client
 * made meanwhile keeps its bytes, which a stat and reads must show;
 * O_EXCL asks the cluster at once; an O_DIRECT write goes to RADOS as it
 * comes; cache=kernel; the node is open here already); -ENOMEM.
 */
static int open_pending(struct mount *m, fuse_req_t req, struct node *n, const char *path,
			mode_t mode, int flags, struct mattr *a)
{
	uint64_t unit = m->o.layout.stripe_unit;
	struct pending *p = NULL;
	int r = 0;

	if (!(flags & O_TRUNC) || (flags & (O_EXCL | O_DIRECT)) || m->o.kernel_cache)
		return 1;
	new_file_attrs(m, req, S_IFREG | (mode & 07777), a);
	a->stripe_unit = unit;
	pthread_mutex_lock(&n->lock);
	if (n->of)
		r = 1;
	else if (!(p = pending_new(a, unit < PENDING_MAX ? unit : PENDING_MAX)) ||
		 !ofile_new(n, NULL, true, p))
		r = -ENOMEM;
	if (!r) {
		n->opens++;
		atomic_store(&n->kept, true);
		note_change(n); /* its mtime: the create's, stored when it is made */
		kept_attrs_locked(n, a);
	} else if (r < 0) {
		pending_free(p);
	}
	pthread_mutex_unlock(&n->lock);
	if (r)
		return r;
	listing_keep(&m->listing, path);
	return 0;
}

static void file_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
			struct fuse_file_info *fi)
{
	struct mount *m = mount_of(req);
	struct fuse_entry_param e;
	struct mattr a = {0};
	struct node *n = NULL;
	char *path = NULL;
	bool created = false;
	int r = mount_child_path(m, parent, name, &path);

	if (r)
		goto out;
	n = node_lookup(&m->nodes, path, false, 0);
	r = n ? open_pending(m, req, n, path, mode, fi->flags, &a) : -ENOMEM;
	if (r == 1) { /* a handle: the cluster asked now */
		r = open_node(m, n, path, true, fi->flags, &created);
		if (!r && (r = created_attrs(m, req, n, path, mode, created, &a))) {
			file_release_node(m, n);
			goto out;
		}
	}
	if (r) {
		if (n) { /* no lookup counted, not open: it goes */
			pthread_mutex_lock(&m->nodes.lock);
			node_release_if_unused(&m->nodes, n);
			pthread_mutex_unlock(&m->nodes.lock);
		}
		goto out;
	}
	pthread_mutex_lock(&m->nodes.lock);
	n->nlookup++;
	pthread_mutex_unlock(&m->nodes.lock);
	mount_entry(m, n, &a, &e);
	fi->fh = (uint64_t)(uintptr_t)n;
	set_open_flags(m, fi);
	if (fuse_reply_create(req, &e, fi) == -ENOENT)
		file_release_node(m, n);
	free(path);
	return;
out:
	free(path);
	fuse_reply_err(req, mount_errno(r));
}

/*
 * A file open and written here: the size its handle knows (its window's
 * writes not stored yet included, another client's truncate learnt), one
 * round trip, the handle pinned meanwhile (a release then leaves it open).
 */
bool ops_file_local(struct mount *m, struct node *n, uint64_t *size, struct timespec *mtime)
{
	struct ofile *of;
	struct mattr a;
	bool written;
	int r;

	pthread_mutex_lock(&n->lock);
	of = n->of;
	if (kept_attrs_locked(n, &a)) { /* a new file kept here: what it holds */
		pthread_mutex_unlock(&n->lock);
		*size = a.size;
		*mtime = a.mtime;
		return true;
	}
	written = of && of->f && atomic_load(&n->written);
	if (written)
		n->opens++;
	pthread_mutex_unlock(&n->lock);
	if (!written)
		return false;
	r = striped_stat(of->f, size, NULL);
	*mtime = ts_of(atomic_load(&n->mtime_ns));
	ofile_put(m, n);
	return r == 0;
}

int ops_file_truncate(struct mount *m, struct node *n, const char *path, uint64_t size)
{
	struct striped_file *f = NULL;
	bool open;
	int r = 0;

	pthread_mutex_lock(&n->lock);
	open = n->of != NULL;
	if (open) {
		r = n->of->p && pending_truncate(n->of->p, size) ? 0 : ofile_handle_locked(m, n);
		if (!r && n->of->f)
			r = striped_truncate(n->of->f, size);
		if (!r)
			note_change(n);
	}
	pthread_mutex_unlock(&n->lock);
	if (open)
		return r;
	r = striped_open(m->io, path, 0, NULL, &f);
	if (!r)
		r = striped_truncate(f, size);
	striped_close(f);
	if (!r) {
		struct mattr a = {.has_mtime = true, .has_ctime = true};

		a.mtime = a.ctime = ts_of(now_ns());
		r = mattr_write(m->io, path, &a);
	}
	return r;
}

bool ops_file_kept_attrs(struct node *n, struct mattr *a)
{
	bool kept;

	pthread_mutex_lock(&n->lock);
	kept = kept_attrs_locked(n, a);
	pthread_mutex_unlock(&n->lock);
	return kept;
}

bool ops_file_kept_path(struct mount *m, const char *path, struct mattr *a)
{
	struct node *n = node_find_kept(&m->nodes, path);
	bool kept = n && ops_file_kept_attrs(n, a);

	if (n)
		node_forget(&m->nodes, n->ino, 1);
	return kept;
}

struct node *ops_file_hold_kept(struct mount *m, const char *path)
{
	struct node *n = node_find_kept(&m->nodes, path);

	if (n)
		pthread_mutex_lock(&n->lock);
	return n;
}

bool ops_file_held_kept(const struct node *n)
{
	return n && n->of && n->of->p;
}

void ops_file_release_kept(struct mount *m, struct node *n)
{
	if (n) {
		pthread_mutex_unlock(&n->lock);
		node_forget(&m->nodes, n->ino, 1);
	}
}

int ops_file_make(struct mount *m, struct node *n)
{
	int r;

	pthread_mutex_lock(&n->lock);
	r = pending_flush(m, n);
	pthread_mutex_unlock(&n->lock);
	return r;
}

int ops_file_make_below(struct mount *m, const char *dir)
{
	struct node *kept[64];
	size_t k;
	int r = 0;

	/* each made is kept no more: the next round finds the rest */
	while (!r && (k = node_kept_below(&m->nodes, dir, kept, 64)) > 0)
		for (size_t i = 0; i < k; i++) {
			if (!r)
				r = ops_file_make(m, kept[i]);
			node_forget(&m->nodes, kept[i]->ino, 1);
		}
	return r;
}

bool ops_file_is_open(struct node *n)
{
	bool open;

	pthread_mutex_lock(&n->lock);
	open = n->opens > 0;
	pthread_mutex_unlock(&n->lock);
	return open;
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

int ops_file_close_all(struct mount *m)
{
	int failed = 0;

	for (;;) {
		struct ofile *of;
		int r = 0;

		pthread_mutex_lock(&open_lock);
		of = open_list.next == &open_list ? NULL : open_list.next;
		if (of) {
			of->prev->next = of->next;
			of->next->prev = of->prev;
		}
		pthread_mutex_unlock(&open_lock);
		if (!of)
			return failed;
		if (of->p) { /* a new file kept here: made as its close would */
			pthread_mutex_lock(&of->n->lock);
			r = pending_flush(m, of->n);
			pthread_mutex_unlock(&of->n->lock);
		}
		if (of->f) {
			int c = striped_close2(of->f);

			r = r ? r : c;
		}
		if (r) {
			unmount_failed(m, of->n, r);
			failed++;
		}
		/* the node keeps a pointer to it: the daemon exits next, it stays allocated */
	}
}

void ops_file_init(struct fuse_lowlevel_ops *ops)
{
	ops->open = file_open;
	ops->create = file_create;
	ops->read = file_read;
	ops->write = file_write;
	ops->flush = file_flush;
	ops->fsync = file_fsync;
	ops->release = file_release;
}
