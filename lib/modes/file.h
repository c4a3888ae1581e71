/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An open handle (struct striped_file), and the modes its data calls go
 * through: direct.c (straight to the engine) or buffered/ (through the
 * handle's window). Each public call dispatches once on f->mode.
 */
#ifndef STRIPED_FILE_H
#define STRIPED_FILE_H

#include "calls.h"

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
	/* Before the handle's own truncate or append: all of it lands; the first error. */
	int (*drain)(struct striped_file *f);
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

/* direct.c */
extern const struct file_mode direct_mode;

struct striped_file {
	rados_ioctx_t io;
	char *name;
	char *head_oid;
	struct striped_layout layout;
	uint64_t stripe_width;	    /* an erasure-coded pool's (0: replicated) */
	struct io_appends *appends; /* a pool that takes only aligned appends; else NULL */
	uint64_t objecter_ops_limit, objecter_bytes_limit;

	struct lease lease;
	struct file_size size; /* the size and the mark: what the lease's grants say */
	struct regions regions;
	struct striped_throttle throttle;
	struct file_calls calls;
	struct io_account account;

	_Atomic unsigned refs; /* its user's, each call's, the idler's while it works on the lease */
	const struct file_mode *mode;
	struct buffered *buffered; /* STRIPED_BUFFERED: the window and its flusher */
};

/* file.c: what open refuses before any round trip (meta_aio.c checks first). */
int file_check_open(rados_ioctx_t io, const char *name, int flags,
		    const struct striped_layout *layout, struct striped_file **out);

/* A round trip on the head, fn(f, arg), as a call of the handle (file.c). */
typedef ssize_t (*file_head_fn)(struct striped_file *f, void *arg);
/*
 * Inside the gate and under the lease; -ESTALE when the head is gone or
 * the lease was not held throughout (a remove may have run). lease_flags:
 * LEASE_CHANGES for a change.
 */
ssize_t file_head_call(struct striped_file *f, file_head_fn fn, void *arg, unsigned lease_flags);

#endif /* STRIPED_FILE_H */
