/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The buffered mode (STRIPED_BUFFERED): a handle's window, its flusher and readahead. */
#ifndef STRIPED_BUFFERED_H
#define STRIPED_BUFFERED_H

#include "mode.h"

struct buffered;

extern const struct file_mode buffered_mode;

/*
 * f's window and flusher (in *out: f's mode state, with buffered_mode).
 * close_file closes f from the flusher when a close from a callback was
 * deferred to it.
 */
int buffered_open(struct striped_file *f, void (*close_file)(struct striped_file *f),
		  struct buffered **out);
int buffered_aio_read(struct striped_file *f, struct striped_completion *c, struct io_mem *m,
		      uint64_t len, uint64_t off, int flags);

#endif /* STRIPED_BUFFERED_H */
