// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd: opening both sides of a copy. Local files decide between
 * libaio (regular files, block devices) and plain read/write (everything
 * that cannot be read at offsets); striped sides go through libstriped.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dd_io.h"
#include "dd_report.h"
#include "dd_signal.h"
#include "tool_connect.h"

void dd_error_set(struct dd_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e->code)
		return; /* keep the first error */
	e->code = code ? code : -EIO;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

/* ---- cluster ---------------------------------------------------------- */

const char *dd_change_strerror(const struct dd_end *end, int r)
{
	static __thread char why[256];
	uint64_t width = 0;
	int appends_only = 0;

	if (r == -EPERM)
		return "Operation not permitted (writing a striped file takes its lock, a class "
		       "method: the key needs osd 'allow rwx' on its pool and namespace, or "
		       "class access)";
	if (r == -EOPNOTSUPP && end->io &&
	    !rados_ioctx_pool_requires_alignment2(end->io, &appends_only) && appends_only &&
	    !rados_ioctx_pool_required_alignment2(end->io, &width)) {
		snprintf(why, sizeof(why),
			 "Operation not supported (an erasure-coded pool without overwrites takes "
			 "a file only written front to back in pieces of a multiple of %" PRIu64
			 " bytes: give bs= a multiple of %" PRIu64 ", or use a pool with "
			 "allow_ec_overwrites)",
			 width, width);
		return why;
	}
	return strerror(-r);
}

int dd_cluster_connect(struct dd_cluster *cl, const struct dd_args *a, struct dd_error *e)
{
	char why[PATH_MAX + 128]; /* the conf file named, and why */
	int r;

	if (cl->connected)
		return 0;
	r = tool_connect(&a->conn, &cl->rados, why, sizeof(why));
	if (r < 0) {
		dd_error_set(e, r, "%s", why);
		return r;
	}
	cl->connected = true;
	return 0;
}

void dd_cluster_shutdown(struct dd_cluster *cl)
{
	if (cl->connected)
		rados_shutdown(cl->rados);
	cl->connected = false;
}

/* ---- striped sides ---------------------------------------------------- */

static int striped_side_open(struct dd_end *end, struct dd_cluster *cl, const struct dd_args *a,
			     const struct dd_target *t, int flags, bool output, struct dd_error *e)
{
	int r;

	end->kind = DD_END_STRIPED;
	end->label = t->path;
	r = dd_cluster_connect(cl, a, e);
	if (r < 0)
		return r;
	r = rados_ioctx_create(cl->rados, t->pool, &end->io);
	if (r < 0) {
		end->io = NULL;
		if (r == -ENOENT)
			dd_error_set(e, r, "%s: pool '%s' not found", t->path, t->pool);
		else
			dd_error_set(e, r, "%s: cannot open pool '%s': %s", t->path, t->pool,
				     strerror(-r));
		return r;
	}
	/* Every object of the file, its head and its lock live in the namespace. */
	rados_ioctx_set_namespace(end->io, a->nspace);
	r = striped_open(end->io, t->name, flags, a->layout_given ? &a->layout : NULL, &end->sf);
	if (r < 0) {
		end->sf = NULL;
		dd_error_set(e, r, "%s: %s", t->path,
			     output ? dd_change_strerror(end, r) : strerror(-r));
	}
	return r;
}

static int striped_output_truncate(struct dd_end *end, const struct dd_args *a, struct dd_error *e)
{
	uint64_t size;
	int r;

	if (a->conv & DD_CONV_NOTRUNC)
		return 0;
	r = striped_stat(end->sf, &size, NULL);
	if (!r && size != a->seek)
		r = striped_truncate(end->sf, a->seek);
	if (r < 0)
		dd_error_set(e, r, "%s: failed to truncate to %" PRIu64 " bytes: %s", end->label,
			     a->seek, dd_change_strerror(end, r));
	return r;
}

/* ---- local sides ------------------------------------------------------ */

/* iflag=/oflag= as open(2) flags; GNU dd adds O_RSYNC to a synchronized input. */
static int open_flags(unsigned int f, bool input)
{
	int sync = input && (f & (DD_FLAG_DSYNC | DD_FLAG_SYNC)) ? O_RSYNC : 0;

	return (f & DD_FLAG_DIRECT ? O_DIRECT : 0) | (f & DD_FLAG_DSYNC ? O_DSYNC : 0) |
	       (f & DD_FLAG_SYNC ? O_SYNC : 0) | (f & DD_FLAG_NOATIME ? O_NOATIME : 0) |
	       (f & DD_FLAG_NOFOLLOW ? O_NOFOLLOW : 0) | (f & DD_FLAG_NONBLOCK ? O_NONBLOCK : 0) |
	       (f & DD_FLAG_NOCTTY ? O_NOCTTY : 0) | (f & DD_FLAG_APPEND ? O_APPEND : 0) | sync;
}

static bool is_std(const struct dd_target *t)
{
	return !t->path || !strcmp(t->path, "-");
}

/*
 * Standard input and output are already open: add the flags with
 * F_SETFL, as GNU dd does (Linux changes only O_APPEND, O_DIRECT,
 * O_NOATIME and O_NONBLOCK there; O_DIRECT on a pipe is its packet mode).
 */
static int set_fd_flags(struct dd_end *end, int add, struct dd_error *e)
{
	int fl;

	add &= ~(O_NOCTTY | O_NOFOLLOW);
	if (!add)
		return 0;
	fl = fcntl(end->fd, F_GETFL);
	if (fl < 0 || ((fl | add) != fl && fcntl(end->fd, F_SETFL, fl | add) < 0)) {
		dd_error_set(e, -errno, "setting flags for '%s': %s", end->label, strerror(errno));
		return -1;
	}
	return 0;
}

int dd_end_clear_direct(struct dd_end *end, struct dd_error *e)
{
	int fl = fcntl(end->fd, F_GETFL);

	if (fl < 0 || fcntl(end->fd, F_SETFL, fl & ~O_DIRECT) < 0) {
		dd_error_set(e, -errno, "%s: failed to turn off O_DIRECT: %s", end->label,
			     strerror(errno));
		return -1;
	}
	end->direct = false;
	return 0;
}

/* Pick the I/O path from the file type; apply direct I/O where it can work. */
static int local_setup(struct dd_end *end, unsigned int flags, bool append, struct dd_error *e)
{
	struct stat st;
	off_t cur = 0;

	if (fstat(end->fd, &st) < 0) {
		dd_error_set(e, -errno, "%s: cannot fstat: %s", end->label, strerror(errno));
		return -1;
	}
	end->kind =
	    (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) && !append ? DD_END_AIO : DD_END_STREAM;
	if (end->kind == DD_END_AIO && end->std) {
		cur = lseek(end->fd, 0, SEEK_CUR);
		end->base = cur < 0 ? 0 : (uint64_t)cur;
	}
	/* O_DIRECT is set (at open or by set_fd_flags); unaligned tails clear it. */
	end->direct = (flags & DD_FLAG_DIRECT) && end->kind == DD_END_AIO;
	return 0;
}

/* A file name as GNU dd's quotef() shows it: quoted when the shell would need it. */
static void print_quotef(const char *name)
{
	const char *p;

	for (p = name; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_./,:@%+=-",
			    *p))
			break;
	fprintf(stderr, *p ? "'%s'" : "%s", name);
}

/* GNU dd's notice when skip= went past the end of the input. */
static void warn_cannot_skip(const struct dd_end *end, const struct dd_args *a)
{
	if (a->status == DD_STATUS_NONE)
		return;
	fputs("striped-dd: ", stderr);
	print_quotef(end->label);
	fputs(": cannot skip to specified offset\n", stderr);
}

/* skip= on a side read at offsets: past the end is noticed, not an error. */
static void check_skip(struct dd_end *end, const struct dd_args *a)
{
	uint64_t size;
	struct stat st;

	if (!a->skip)
		return;
	if (end->kind == DD_END_STRIPED) {
		if (!striped_stat(end->sf, &size, NULL) && size < a->skip)
			warn_cannot_skip(end, a);
	} else if (!fstat(end->fd, &st) && S_ISREG(st.st_mode) &&
		   (uint64_t)st.st_size < end->base) {
		warn_cannot_skip(end, a);
	}
}

/* Skip on input that cannot seek: read and throw away. */
static int stream_skip(struct dd_end *end, const struct dd_args *a, struct dd_error *e)
{
	static char junk[65536];
	struct dd_counts none = {0};
	uint64_t skip = a->skip;
	ssize_t n;

	if (!skip || lseek(end->fd, (off_t)skip, SEEK_CUR) >= 0)
		return 0;
	while (skip && !dd_signal_interrupted()) {
		n = dd_read_once(end->fd, junk, skip < sizeof(junk) ? skip : sizeof(junk));
		if (n < 0 && errno == EINTR) {
			/* SIGUSR1 while skipping: nothing copied yet */
			while (dd_signal_take_info())
				if (a->status != DD_STATUS_NONE && a->status != DD_STATUS_JSON)
					dd_print_stats(stderr, &none, 0,
						       a->status != DD_STATUS_NOXFER);
			continue;
		}
		if (n < 0) {
			dd_error_set(e, -errno, "error reading %s: %s", end->label,
				     strerror(errno));
			return -1;
		}
		if (!n)
			break;
		skip -= (uint64_t)n;
	}
	if (skip && !dd_signal_interrupted())
		warn_cannot_skip(end, a);
	return 0;
}

int dd_end_open_input(struct dd_end *end, struct dd_cluster *cl, const struct dd_args *a,
		      struct dd_error *e)
{
	const struct dd_target *t = &a->in;
	int r;

	end->fd = -1;
	if (t->striped) {
		r = striped_side_open(end, cl, a, t, 0, false, e);
		end->base = a->skip;
		if (!r)
			check_skip(end, a);
		return r;
	}
	end->std = is_std(t);
	end->label = end->std ? "standard input" : t->path;
	end->fd = end->std ? 0 : open(t->path, O_RDONLY | open_flags(a->iflags, true));
	if (end->fd < 0) {
		dd_error_set(e, -errno, "failed to open '%s': %s", t->path, strerror(errno));
		return -1;
	}
	end->own_fd = !end->std;
	if (end->std && set_fd_flags(end, open_flags(a->iflags, true), e) < 0)
		return -1;
	if (local_setup(end, a->iflags, false, e) < 0)
		return -1;
	if (end->kind == DD_END_STREAM)
		return stream_skip(end, a, e);
	end->base += a->skip;
	check_skip(end, a);
	return 0;
}

static int local_output_open(struct dd_end *end, const struct dd_args *a, struct dd_error *e)
{
	int opts =
	    (a->conv & DD_CONV_NOCREAT ? 0 : O_CREAT) | (a->conv & DD_CONV_EXCL ? O_EXCL : 0) |
	    (a->seek || (a->conv & DD_CONV_NOTRUNC) ? 0 : O_TRUNC) | open_flags(a->oflags, false);
	const char *path = a->out.path;
	struct stat st;

	/*
	 * As GNU dd: read access only when seek= names whole output blocks
	 * (dd may read its way there), and for verify=yes, which reads the
	 * output back; even then write-only if reading is not allowed. A read
	 * end of our own would keep a FIFO open after its reader has gone.
	 */
	end->fd = a->seek / a->obs || a->verify ? open(path, O_RDWR | opts, 0666) : -1;
	if (end->fd < 0)
		end->fd = open(path, O_WRONLY | opts, 0666);
	if (end->fd < 0) {
		dd_error_set(e, -errno, "failed to open '%s': %s", path, strerror(errno));
		return -1;
	}
	end->own_fd = true;
	if (!a->seek || (a->conv & DD_CONV_NOTRUNC))
		return 0;
	if (ftruncate(end->fd, (off_t)a->seek) < 0 && fstat(end->fd, &st) == 0 &&
	    S_ISREG(st.st_mode)) {
		dd_error_set(e, -errno,
			     "failed to truncate to %" PRIu64 " bytes in output file '%s': %s",
			     a->seek, path, strerror(errno));
		return -1;
	}
	return 0;
}

int dd_end_open_output(struct dd_end *end, struct dd_cluster *cl, const struct dd_args *a,
		       struct dd_error *e)
{
	const struct dd_target *t = &a->out;
	int flags, r;

	end->fd = -1;
	if (t->striped) {
		flags = a->conv & DD_CONV_NOCREAT ? 0 : STRIPED_CREATE;
		flags |= a->conv & DD_CONV_EXCL ? STRIPED_EXCL : 0;
		r = striped_side_open(end, cl, a, t, flags, true, e);
		end->base = a->seek;
		return r < 0 ? r : striped_output_truncate(end, a, e);
	}
	end->std = is_std(t);
	end->label = end->std ? "standard output" : t->path;
	if (end->std)
		end->fd = 1;
	else if (local_output_open(end, a, e) < 0)
		return -1;
	if (end->std && set_fd_flags(end, open_flags(a->oflags, false), e) < 0)
		return -1;
	if (local_setup(end, a->oflags, a->oflags & DD_FLAG_APPEND, e) < 0)
		return -1;
	if (end->kind == DD_END_AIO || !a->seek) {
		end->base += a->seek;
		return 0;
	}
	if (lseek(end->fd, (off_t)a->seek, SEEK_CUR) < 0) {
		dd_error_set(e, -errno, "%s: cannot seek: %s", end->label, strerror(errno));
		return -1;
	}
	return 0;
}

int dd_end_finish_output(struct dd_end *end, const struct dd_args *a, struct dd_error *e)
{
	int r = 0;

	if (end->kind == DD_END_STRIPED)
		return 0; /* every acknowledged object write is already durable */
	if (a->conv & DD_CONV_FDATASYNC)
		r = fdatasync(end->fd);
	if (!r && (a->conv & DD_CONV_FSYNC))
		r = fsync(end->fd);
	if (r < 0 && errno != EINVAL) {
		dd_error_set(e, -errno, "fsync failed for '%s': %s", end->label, strerror(errno));
		return -1;
	}
	return 0;
}

void dd_end_set_std_offset(struct dd_end *end, uint64_t bytes)
{
	if (end->std && end->kind == DD_END_AIO)
		(void)lseek(end->fd, (off_t)(end->base + bytes), SEEK_SET);
}

void dd_end_close(struct dd_end *end)
{
	striped_close(end->sf);
	end->sf = NULL;
	if (end->io)
		rados_ioctx_destroy(end->io);
	end->io = NULL;
	if (end->own_fd && end->fd >= 0)
		close(end->fd);
	end->fd = -1;
}

bool dd_end_rereadable(const struct dd_end *end)
{
	return end->kind != DD_END_STREAM;
}

ssize_t dd_end_pread(struct dd_end *end, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t n;

	if (end->kind == DD_END_STRIPED)
		return striped_read(end->sf, buf, len, off);
	while (done < len) {
		n = pread(end->fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t dd_read_once(int fd, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR && !dd_signal_pending());
	return n;
}

ssize_t dd_read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = dd_read_once(fd, (char *)buf + done, len - done);
		/* an error loses what came before it, as in dd's iread_fullblock() */
		if (n < 0 && errno != EINTR)
			return -1;
		if (n < 0)
			return done ? (ssize_t)done : -1;
		if (!n)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t dd_write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR && dd_signal_interrupted())
			break; /* short: the copy loop stops */
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		done += (size_t)n;
	}
	return (ssize_t)done;
}
