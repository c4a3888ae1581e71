/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The data path: each READ and WRITE is one striped_aio_* call answered
 * from its completion callback, which only answers, records and frees: the
 * worker thread that took the request is free at once, and the kernel's
 * pieces of one O_DIRECT call are all in flight together. A buffered
 * handle's reads are synchronous (libstriped reads ahead for those only),
 * a head_open's go to the head, a draft's writes stay in the daemon.
 */
#ifndef MOUNT_IO_H
#define MOUNT_IO_H

#include <stdint.h>
#include <sys/types.h>

#include "mount.h"

/*
 * In a WRITE's open flags: the writer lacks CAP_FSETID, so S_ISUID and
 * S_ISGID go (the kernel's FUSE_WRITE_KILL_SUIDGID, carried there by
 * daemon/kernel_io.c: libfuse 3.14 drops the write's flags).
 */
#define IO_KILL_SUIDGID 0x40000000

/*
 * How a call ends: r (bytes, or a negative errno) and a read's data; once,
 * from any thread (a librados completion's too): it must not wait.
 */
typedef void io_done_fn(void *arg, ssize_t r, const char *data);

/*
 * A READ, a WRITE (flags: the open's), a FLUSH (close(2) and fsync (sync):
 * every byte written through the file landed, or its error; a new file
 * write-back keeps is made at fsync only) of file handle fh
 * (fs/headopen.h). 0 when done(arg) is called, or will be; a negative
 * errno when nothing was started (done is not called).
 */
int io_read(struct mount *m, uint64_t fh, size_t size, uint64_t off, io_done_fn *done, void *arg);
int io_write(struct mount *m, uint64_t fh, const char *buf, size_t size, uint64_t off, int flags,
	     io_done_fn *done, void *arg);
int io_flush(struct mount *m, uint64_t fh, bool sync, io_done_fn *done, void *arg);

#endif /* MOUNT_IO_H */
