// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the kernel and the daemon say to each other that libfuse 3.14 (the
 * version Debian 12 ships) has no name for, carried by its custom I/O
 * (fuse_session_custom_io(): the daemon reads requests and writes replies
 * through these functions, on the fd fuse_session_mount() opened).
 *
 * - FUSE_DIRECT_IO_ALLOW_MMAP (kernel 6.6, flags2 bit 4 of FUSE_INIT):
 *   cached opens use FUSE direct I/O (libstriped's window is the cache), and
 *   without this flag the kernel refuses a shared mapping of such a file
 *   with ENODEV (numpy.memmap, np.load(mmap_mode='r')). With it, the kernel
 *   keeps a shared mapping's pages coherent with the file's direct reads
 *   and writes on this mount: a direct write drops the pages it covers, a
 *   direct read writes dirty pages back first. The reply to FUSE_INIT asks
 *   for it when the kernel offered it.
 * - FUSE_WRITE_KILL_SUIDGID (write_flags of FUSE_WRITE): the kernel sets it
 *   on a direct write by a process without CAP_FSETID and leaves clearing
 *   S_ISUID and S_ISGID to the file system; libfuse 3.14 drops write_flags
 *   (but FUSE_WRITE_CACHE). It is carried to the write handler in a bit of
 *   the request's open flags no open flag uses (fs/io.h's IO_KILL_SUIDGID).
 *
 * Each assumption is checked where it is used: a request or reply that is
 * not what it is assumed to be passes through untouched, so a kernel or a
 * libfuse that differs gets today's behaviour (ENODEV for shared mappings).
 */
#include <errno.h>
#include <linux/fuse.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io.h"
#include "kernel_io.h"

/* Kernel 6.6's name; Debian 12's linux/fuse.h (6.1) has none. */
#define ALLOW_MMAP_FLAGS2 (1u << (36 - 32))

/* The INIT request's unique when the kernel offered ALLOW_MMAP, else 0. */
static _Atomic uint64_t init_unique;
static atomic_bool allow_mmap_asked;

/* FUSE_INIT: remember whether the kernel offered FUSE_DIRECT_IO_ALLOW_MMAP. */
static void saw_init(const struct fuse_in_header *h, size_t len)
{
	const struct fuse_init_in *in = (const void *)(h + 1);

	if (len < sizeof(*h) + sizeof(*in) || in->major != 7 || !(in->flags & FUSE_INIT_EXT) ||
	    !(in->flags2 & ALLOW_MMAP_FLAGS2))
		return;
	atomic_store(&init_unique, h->unique);
}

/* FUSE_WRITE: its KILL_SUIDGID into the open flags libfuse passes on (fi->flags). */
static void saw_write(struct fuse_in_header *h, size_t len)
{
	struct fuse_write_in *in = (void *)(h + 1);

	if (len < sizeof(*h) + sizeof(*in) || h->total_extlen)
		return;
	if (in->write_flags & FUSE_WRITE_KILL_SUIDGID)
		in->flags |= IO_KILL_SUIDGID;
	else
		in->flags &= ~(uint32_t)IO_KILL_SUIDGID;
}

static ssize_t dev_read(int fd, void *buf, size_t len, void *userdata)
{
	ssize_t r = read(fd, buf, len);
	struct fuse_in_header *h = buf;

	(void)userdata;
	if (r < (ssize_t)sizeof(*h))
		return r;
	if (h->opcode == FUSE_INIT)
		saw_init(h, (size_t)r);
	else if (h->opcode == FUSE_WRITE)
		saw_write(h, (size_t)r);
	return r;
}

/*
 * The reply to FUSE_INIT, when the kernel offered ALLOW_MMAP: asked for,
 * in a copy of libfuse's fuse_init_out (iov[1]: libfuse sends the header
 * and the argument apart).
 */
static ssize_t write_init_reply(int fd, struct iovec *iov, int count)
{
	struct fuse_init_out out;
	struct iovec v[2];

	if (count != 2 || iov[1].iov_len != sizeof(out))
		return writev(fd, iov, count);
	memcpy(&out, iov[1].iov_base, sizeof(out));
	if (out.flags & FUSE_INIT_EXT) {
		out.flags2 |= ALLOW_MMAP_FLAGS2;
		atomic_store(&allow_mmap_asked, true);
	}
	v[0] = iov[0];
	v[1].iov_base = &out;
	v[1].iov_len = sizeof(out);
	return writev(fd, v, 2);
}

static ssize_t dev_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	const struct fuse_out_header *h = count > 0 ? iov[0].iov_base : NULL;
	uint64_t unique = atomic_load(&init_unique);

	(void)userdata;
	if (unique && h && iov[0].iov_len == sizeof(*h) && h->unique == unique && !h->error &&
	    atomic_compare_exchange_strong(&init_unique, &unique, 0))
		return write_init_reply(fd, iov, count);
	return writev(fd, iov, count);
}

int kernel_io_attach(struct fuse_session *se)
{
	static const struct fuse_custom_io io = {.read = dev_read, .writev = dev_writev};
	int fd = fuse_session_fd(se);

	return fd < 0 ? -EBADF : fuse_session_custom_io(se, &io, fd);
}

bool kernel_io_mmap_shared(void)
{
	return atomic_load(&allow_mmap_asked);
}
