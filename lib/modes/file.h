/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The handle, as the public calls (api/) see it: each call of theirs is one
 * call here, dispatched once on the handle's mode (direct or buffered).
 * Arguments are checked before (api/); m is the caller's memory (len bytes),
 * io_mem_free()d by the caller after the call returned.
 */
#ifndef STRIPED_FILE_H
#define STRIPED_FILE_H

#include "iov.h"

struct striped_file;
struct striped_xattrs;

int file_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
	      struct striped_file **out);
/* What the mode holds landed, the calls ended, the lock let go of; the first error not reported. */
int file_close(struct striped_file *f);
int file_set_buffer(struct striped_file *f, const struct striped_buffer_config *cfg,
		    size_t cfg_size);
void file_set_throttle(struct striped_file *f, uint32_t max_ops, uint64_t max_bytes);
void file_set_lease(struct striped_file *f, uint32_t seconds);
void file_stats(struct striped_file *f, struct striped_io_stats *st);
void file_latency(struct striped_file *f, struct striped_latency *lat);

ssize_t file_write(struct striped_file *f, struct io_mem *m, uint64_t len, uint64_t off);
ssize_t file_read(struct striped_file *f, struct io_mem *m, uint64_t len, uint64_t off);
/* c is untouched when the call did not start. */
int file_aio_write(struct striped_file *f, struct striped_completion *c, struct io_mem *m,
		   uint64_t len, uint64_t off, int flags);
int file_aio_read(struct striped_file *f, struct striped_completion *c, struct io_mem *m,
		  uint64_t len, uint64_t off, int flags);
int file_aio_flush(struct striped_file *f, struct striped_completion *c);
/* After what the mode holds there landed; c NULL: waited for. */
int file_discard(struct striped_file *f, struct striped_completion *c, uint64_t off, uint64_t len,
		 bool nowait);
ssize_t file_append(struct striped_file *f, const void *buf, size_t len);
int file_truncate(struct striped_file *f, uint64_t size);
/* Whether the file's pool takes only aligned appends (cuts no object). */
bool file_appends_only(const struct striped_file *f);

int file_aio_stat(struct striped_file *f, struct striped_completion *c, uint64_t *size);
int file_stat(struct striped_file *f, uint64_t *size, struct striped_layout *layout);
/* The size the handle sees (its window's included), the head's mtime, the layout. */
int file_fstat(struct striped_file *f, struct striped_stat *st);

int file_setxattr(struct striped_file *f, const char *name, const void *value, size_t len);
ssize_t file_getxattr(struct striped_file *f, const char *name, void *value, size_t len);
int file_rmxattr(struct striped_file *f, const char *name);
int file_getxattrs(struct striped_file *f, struct striped_xattrs **out);

#endif /* STRIPED_FILE_H */
