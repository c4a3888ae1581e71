/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* iov.c: the caller's memory, one buffer or an iovec array (pure) */
#ifndef STRIPED_IOV_H
#define STRIPED_IOV_H

#include "striped_i.h"

struct io_mem {
	const struct iovec *iov; /* the segments; &one for a plain buffer */
	int iovcnt;
	struct iovec one;
	uint64_t *ends; /* iovcnt > 1: where each segment ends, counted from the first */
};

void io_mem_buf(struct io_mem *m, char *buf, uint64_t len);
int io_mem_iov(struct io_mem *m, const struct iovec *iov, int iovcnt);
void io_mem_move(struct io_mem *dst, struct io_mem *src);
/*
 * dst sees src's memory without a copy of its array, for a user that lives
 * no longer than src; io_mem_forget() drops the view, freeing nothing of src's.
 */
void io_mem_view(struct io_mem *dst, const struct io_mem *src);
void io_mem_forget(struct io_mem *m);
void io_mem_free(struct io_mem *m);
/* The memory at offset off (< the total), and how many bytes follow it there. */
char *io_mem_at(const struct io_mem *m, uint64_t off, uint64_t *avail);
/* How many contiguous pieces [off, off + len) spans. */
size_t io_mem_pieces(const struct io_mem *m, uint64_t off, uint64_t len);
void io_mem_zero(const struct io_mem *m, uint64_t off, uint64_t len);
/* Copy len bytes between the caller's memory at off and buf: into it with to_mem, else out. */
void io_mem_copy(const struct io_mem *m, uint64_t off, char *buf, uint64_t len, bool to_mem);
struct iovec *io_mem_slice(const struct io_mem *m, uint64_t off, uint64_t len, int *cnt);

#endif /* STRIPED_IOV_H */
