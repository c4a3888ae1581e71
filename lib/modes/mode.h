/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The handle (struct striped_file, file.c) and the modes its data calls go
 * through: direct.c (straight to the engine) or buffered/ (through the
 * handle's window). Private to modes/: the public calls see the handle
 * through file.h only.
 */
#ifndef STRIPED_MODE_H
#define STRIPED_MODE_H

#include "calls.h"
#include "io.h"
#include "iov.h"

/*
 * What a mode does with each call. m is the caller's memory, len bytes,
 * io_mem_free()d by the caller after the call returned: a mode that keeps
 * it past that (an asynchronous call) moves it out.
 */
struct file_mode {
	ssize_t (*write)(struct striped_file *f, struct io_mem *m, uint64_t len, uint64_t off);
	ssize_t (*read)(struct striped_file *f, struct io_mem *m, uint64_t len, uint64_t off);
	/* c is untouched when the call did not start. */
	int (*aio_write)(struct striped_file *f, struct striped_completion *c, struct io_mem *m,
			 uint64_t len, uint64_t off, int flags);
	int (*aio_read)(struct striped_file *f, struct striped_completion *c, struct io_mem *m,
			uint64_t len, uint64_t off, int flags);
	int (*aio_flush)(struct striped_file *f, struct striped_completion *c);
	/* Before a discard of [off, off + len): what the mode holds there lands first. */
	int (*settle)(struct striped_file *f, uint64_t off, uint64_t len, bool nowait);
	/* Before the handle's own append: all of it lands; the first error. */
	int (*drain)(struct striped_file *f);
	/*
	 * Before the handle's own truncate: nothing more goes into what the mode
	 * holds until resume(), and all of it lands; the first error (then
	 * nothing is held).
	 */
	int (*hold)(struct striped_file *f);
	void (*resume)(struct striped_file *f);
	/* The size the handle sees, given the stored one. */
	uint64_t (*size)(struct striped_file *f, uint64_t stored);
	/* striped_file_set_buffer(), its config checked or not (cfg_size bytes of it). */
	int (*configure)(struct striped_file *f, const struct striped_buffer_config *cfg,
			 size_t cfg_size);
	/* A close from a completion callback: true when the mode finishes it later itself. */
	bool (*close_later)(struct striped_file *f);
	/* A close: what the mode holds landed; returns the first error not reported yet. */
	int (*close)(struct striped_file *f);
	/* The handle goes: no call of it is left. */
	void (*free)(struct striped_file *f);
};

struct striped_file {
	struct io_file *io;    /* the engine's part: lease, size, throttle, calls... */
	_Atomic unsigned refs; /* its user's, each call's, the idler's while it works on the lease */
	const struct file_mode *mode;
	struct buffered *buffered; /* STRIPED_BUFFERED: the window and its flusher */
};

#endif /* STRIPED_MODE_H */
