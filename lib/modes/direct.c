// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The direct mode (a handle opened without STRIPED_BUFFERED): every data
 * call is one call of the engine, all of its object operations in flight
 * at once; nothing is kept between calls.
 */
#include <errno.h>

#include "calls.h"
#include "completion.h"
#include "direct.h"
#include "io.h"
#include "iov.h"

/* The caller's memory is ours until the call returns, so no copy. */
static ssize_t direct_write(struct striped_file *f, struct io_mem *m, uint64_t len, uint64_t off)
{
	struct io_req req = {
	    .op = IO_WRITE, .mem = m, .len = len, .off = off, .flags = STRIPED_IO_ZEROCOPY};

	return calls_run(f->io, &req);
}

static ssize_t direct_read(struct striped_file *f, struct io_mem *m, uint64_t len, uint64_t off)
{
	struct io_req req = {.op = IO_READ, .mem = m, .len = len, .off = off};

	return calls_run(f->io, &req);
}

static int direct_aio_write(struct striped_file *f, struct striped_completion *c, struct io_mem *m,
			    uint64_t len, uint64_t off, int flags)
{
	struct io_req req = {.op = IO_WRITE, .mem = m, .len = len, .off = off, .flags = flags};

	return calls_start(f->io, c, &req);
}

static int direct_aio_read(struct striped_file *f, struct striped_completion *c, struct io_mem *m,
			   uint64_t len, uint64_t off, int flags)
{
	struct io_req req = {.op = IO_READ, .mem = m, .len = len, .off = off, .flags = flags};

	return calls_start(f->io, c, &req);
}

/* Done once every call begun before it has ended. */
static int direct_aio_flush(struct striped_file *f, struct striped_completion *c)
{
	int r = completion_start(c, NULL, NULL, NULL, NULL, 0);

	if (!r)
		calls_flush_barrier(f->io, c);
	return r;
}

/* Nothing is kept: nothing to send before a discard, a truncate or an append, or at close. */
static int direct_settle(struct striped_file *f, uint64_t off, uint64_t len, bool nowait)
{
	(void)f;
	(void)off;
	(void)len;
	(void)nowait;
	return 0;
}

static int direct_nothing_held(struct striped_file *f)
{
	(void)f;
	return 0;
}

static void direct_resume(struct striped_file *f)
{
	(void)f;
}

static uint64_t direct_size(struct striped_file *f, uint64_t stored)
{
	(void)f;
	return stored;
}

/* Only a buffered handle has a window to configure. */
static int direct_configure(struct striped_file *f, const struct striped_buffer_config *cfg,
			    size_t cfg_size)
{
	(void)f;
	(void)cfg;
	(void)cfg_size;
	return -EINVAL;
}

static bool direct_close_later(struct striped_file *f)
{
	(void)f;
	return false;
}

static void direct_free(struct striped_file *f)
{
	(void)f;
}

const struct file_mode direct_mode = {
    .write = direct_write,
    .read = direct_read,
    .aio_write = direct_aio_write,
    .aio_read = direct_aio_read,
    .aio_flush = direct_aio_flush,
    .settle = direct_settle,
    .drain = direct_nothing_held,
    .hold = direct_nothing_held,
    .resume = direct_resume,
    .size = direct_size,
    .configure = direct_configure,
    .close_later = direct_close_later,
    .close = direct_nothing_held,
    .free = direct_free,
};
