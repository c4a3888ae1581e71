// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A handle's data calls: write, read (plain, vectored, asynchronous),
 * discard, flush, append, write_full. Each is checked here, at the API
 * boundary, then dispatched once on the handle's mode (direct.c, or
 * buffered/ through its window).
 */
#include <errno.h>
#include <limits.h>

#include "calls.h"
#include "completion.h"
#include "file.h"
#include "io.h"
#include "iov.h"
#include "lease.h"
#include "size.h"

#define IO_FLAGS_KNOWN (STRIPED_IO_NOWAIT | STRIPED_IO_ZEROCOPY | IO_FADVISE_FLAGS)

/* A call's range and flags: at most SSIZE_MAX bytes, not past 2^64 - 1. */
static int check_range(const struct striped_file *f, size_t len, uint64_t off, int flags)
{
	if (!f || len > SSIZE_MAX || (flags & ~IO_FLAGS_KNOWN))
		return -EINVAL;
	if ((uint64_t)len > UINT64_MAX - off)
		return -EOVERFLOW;
	return 0;
}

/* A call on the caller's buffer: its range, and the buffer unless it is empty. */
static int check_buf(const struct striped_file *f, const void *buf, size_t len, uint64_t off,
		     int flags)
{
	return !buf && len ? -EINVAL : check_range(f, len, off, flags);
}

/* The mode's synchronous write or read of m (len bytes at off); m goes after. */
static ssize_t mode_sync(struct striped_file *f, bool write, struct io_mem *m, uint64_t len,
			 uint64_t off)
{
	ssize_t r = write ? f->mode->write(f, m, len, off) : f->mode->read(f, m, len, off);

	io_mem_free(m);
	return r;
}

/* The mode's asynchronous write or read; m goes after (moved out if the call keeps it). */
static int mode_aio(struct striped_file *f, bool write, struct striped_completion *c,
		    struct io_mem *m, uint64_t len, uint64_t off, int flags)
{
	int r = write ? f->mode->aio_write(f, c, m, len, off, flags)
		      : f->mode->aio_read(f, c, m, len, off, flags);

	io_mem_free(m);
	return r;
}

/* ---- plain buffers ---- */

ssize_t striped_write(struct striped_file *f, const void *buf, size_t len, uint64_t off)
{
	struct io_mem m;
	int r = check_buf(f, buf, len, off, 0);

	if (r)
		return r;
	io_mem_buf(&m, (char *)buf, len);
	return mode_sync(f, true, &m, len, off);
}

ssize_t striped_read(struct striped_file *f, void *buf, size_t len, uint64_t off)
{
	struct io_mem m;
	int r = check_buf(f, buf, len, off, 0);

	if (r)
		return r;
	io_mem_buf(&m, buf, len);
	return mode_sync(f, false, &m, len, off);
}

int striped_aio_write2(struct striped_file *f, struct striped_completion *c, const void *buf,
		       size_t len, uint64_t off, int flags)
{
	struct io_mem m;
	int r = c ? check_buf(f, buf, len, off, flags) : -EINVAL;

	if (r)
		return r;
	io_mem_buf(&m, (char *)buf, len);
	return mode_aio(f, true, c, &m, len, off, flags);
}

int striped_aio_read2(struct striped_file *f, struct striped_completion *c, void *buf, size_t len,
		      uint64_t off, int flags)
{
	struct io_mem m;
	int r = c ? check_buf(f, buf, len, off, flags) : -EINVAL;

	if (r)
		return r;
	io_mem_buf(&m, buf, len);
	return mode_aio(f, false, c, &m, len, off, flags);
}

int striped_aio_write(struct striped_file *f, struct striped_completion *c, const void *buf,
		      size_t len, uint64_t off)
{
	return striped_aio_write2(f, c, buf, len, off, 0);
}

int striped_aio_read(struct striped_file *f, struct striped_completion *c, void *buf, size_t len,
		     uint64_t off)
{
	return striped_aio_read2(f, c, buf, len, off, 0);
}

/* ---- vectored calls ---- */

/* The segments' total, or -EINVAL (bad array, NULL segment, above SSIZE_MAX). */
static ssize_t iov_total(const struct iovec *iov, int iovcnt)
{
	size_t total = 0;

	if (iovcnt < 0 || iovcnt > IOV_MAX || (!iov && iovcnt))
		return -EINVAL;
	for (int i = 0; i < iovcnt; i++) {
		if ((!iov[i].iov_base && iov[i].iov_len) || iov[i].iov_len > SSIZE_MAX - total)
			return -EINVAL;
		total += iov[i].iov_len;
	}
	return (ssize_t)total;
}

/* Check a vectored call (*len: its total), and see its segments as one range of memory m. */
static int vec_mem(const struct striped_file *f, const struct iovec *iov, int iovcnt, uint64_t off,
		   struct io_mem *m, uint64_t *len)
{
	ssize_t total = iov_total(iov, iovcnt);
	int r = total < 0 ? (int)total : check_range(f, (size_t)total, off, 0);

	*len = total < 0 ? 0 : (uint64_t)total;
	return r ? r : io_mem_iov(m, iov, iovcnt);
}

/* A vectored call, waited for (c NULL) or not. */
static ssize_t vec_call(struct striped_file *f, bool write, struct striped_completion *c,
			const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct io_mem m;
	uint64_t len;
	int r = vec_mem(f, iov, iovcnt, off, &m, &len);

	if (r)
		return r;
	return c ? mode_aio(f, write, c, &m, len, off, 0) : mode_sync(f, write, &m, len, off);
}

ssize_t striped_writev(struct striped_file *f, const struct iovec *iov, int iovcnt, uint64_t off)
{
	return vec_call(f, true, NULL, iov, iovcnt, off);
}

ssize_t striped_readv(struct striped_file *f, const struct iovec *iov, int iovcnt, uint64_t off)
{
	return vec_call(f, false, NULL, iov, iovcnt, off);
}

int striped_aio_writev(struct striped_file *f, struct striped_completion *c,
		       const struct iovec *iov, int iovcnt, uint64_t off)
{
	return c ? (int)vec_call(f, true, c, iov, iovcnt, off) : -EINVAL;
}

int striped_aio_readv(struct striped_file *f, struct striped_completion *c, const struct iovec *iov,
		      int iovcnt, uint64_t off)
{
	return c ? (int)vec_call(f, false, c, iov, iovcnt, off) : -EINVAL;
}

/* ---- discard ---- */

/* A discard's range, as a call's: any length, but not past 2^64 - 1. */
static int check_discard(struct striped_file *f, uint64_t off, uint64_t len)
{
	if (!f)
		return -EINVAL;
	if (len > UINT64_MAX - off)
		return -EOVERFLOW;
	if (len > SIZE_MAX)
		return -EINVAL;
	return 0;
}

/* Discard [off, off + len) after what the mode holds there landed: one call of the engine. */
static int discard_start(struct striped_file *f, struct striped_completion *c, uint64_t off,
			 uint64_t len, bool nowait)
{
	struct io_req req = {.op = IO_DISCARD, .len = len, .off = off};
	int r = f->mode->settle(f, off, len, nowait);

	if (r)
		return r;
	return c ? calls_start(&f->calls, c, &req) : (int)calls_run(&f->calls, &req);
}

int striped_aio_discard(struct striped_file *f, struct striped_completion *c, uint64_t off,
			uint64_t len)
{
	int r = check_discard(f, off, len);

	if (!r && !c)
		r = -EINVAL;
	/* Not waited for in a callback: what lands first would need the callback's return. */
	return r ? r : discard_start(f, c, off, len, completion_in_callback());
}

int striped_discard(struct striped_file *f, uint64_t off, uint64_t len)
{
	int r = check_discard(f, off, len);

	return r ? r : discard_start(f, NULL, off, len, false);
}

/* ---- flush ---- */

int striped_aio_flush(struct striped_file *f, struct striped_completion *c)
{
	if (!f || !c)
		return -EINVAL;
	return f->mode->aio_flush(f, c);
}

int striped_flush(struct striped_file *f)
{
	struct striped_completion *c;
	int r;

	if (!f)
		return -EINVAL;
	r = striped_completion_create(NULL, NULL, &c);
	if (r)
		return r;
	r = striped_aio_flush(f, c);
	if (!r) {
		striped_completion_wait(c);
		r = (int)striped_completion_result(c);
	}
	striped_completion_release(c);
	return r;
}

/* ---- append and write_full ---- */

struct append_claim {
	uint64_t off, len;
};

/*
 * A pool that takes only aligned appends may refuse the write at the end
 * the claim is about to take (the file ends inside a stripe, or an object
 * does not end where the size says: a discard, a growing truncate, another
 * client's short write): refused before the claim moves the size.
 */
static int append_takeable(void *arg, uint64_t off, uint64_t len)
{
	struct striped_file *f = arg;

	return io_appends_would_take(f->appends, f->io, f->name, &f->layout, off, len);
}

/* Under the lease: the size the handle knows is the file's as of its lock. */
static ssize_t append_reserve_fn(struct striped_file *f, void *arg)
{
	struct append_claim *a = arg;

	return size_append_reserve(&f->lease, a->len, &a->off,
				   f->appends ? append_takeable : NULL, f);
}

ssize_t striped_append(struct striped_file *f, const void *buf, size_t len)
{
	struct append_claim a = {0, len};
	struct io_mem m;
	int r = check_buf(f, buf, len, 0, 0);
	ssize_t n;

	if (r)
		return r;
	if (!len)
		return 0;
	/* The claim reads the stored size: what the mode holds (the window's bytes) is in it. */
	r = f->mode->drain(f);
	if (r)
		return r;
	n = file_head_call(f, append_reserve_fn, &a, LEASE_CHANGES);
	if (n)
		return n;
	/* Its range is claimed: past the window, the caller's memory written where it lies. */
	io_mem_buf(&m, (char *)buf, len);
	return direct_mode.write(f, &m, len, a.off);
}

int striped_write_full(struct striped_file *f, const void *buf, size_t len)
{
	int r = check_buf(f, buf, len, 0, 0);
	ssize_t n;

	if (r)
		return r;
	/*
	 * The size first: it fails early when others hold the file, and never
	 * shows it empty; but a pool that takes only aligned appends cuts no
	 * object, so there the file is emptied (the one cut it takes), then written.
	 */
	r = striped_truncate(f, f->appends ? 0 : len);
	if (r)
		return r;
	n = striped_write(f, buf, len, 0);
	return n < 0 ? (int)n : 0;
}
