// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a read's object operations bring back. A piece an object did not
 * hold (a hole, a missing object) reads as zeros: at once below what the
 * handle knew the file held, past that only up to the read's result, once
 * the stored size is in.
 */
#include <errno.h>
#include <stdlib.h>

#include "io_call.h"
#include "iov.h"

/* A read stops at the end of file as the head said it was. */
uint64_t read_result(const struct call *call)
{
	uint64_t size = call->size_seen;

	if (!call->size_known)
		return call->result_len;
	if (call->off >= size)
		return 0;
	return size - call->off < call->result_len ? size - call->off : call->result_len;
}

/* Zero [buf_off, buf_off + len) of a read's buffer: now below zero_upto, at the end past it. */
static void read_zero(struct call *call, uint64_t buf_off, uint64_t len)
{
	uint64_t upto = call->zero_upto > call->off ? call->zero_upto - call->off : 0;
	uint64_t now = buf_off >= upto ? 0 : upto - buf_off < len ? upto - buf_off : len;
	struct read_hole *h;

	if (now)
		io_mem_zero(&call->mem, buf_off, now);
	if (now == len)
		return;
	h = malloc(sizeof(*h));
	if (!h) {
		/* Slow but right: zero it all now. */
		io_mem_zero(&call->mem, buf_off + now, len - now);
		return;
	}
	h->buf_off = buf_off + now;
	h->len = len - now;
	/* Callbacks of one call may run on several threads. */
	h->next = __atomic_load_n(&call->holes, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&call->holes, &h->next, h, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
}

/*
 * The holes of a read past the size this handle knew are zeroed only up to
 * the result, once the stored size is in: a large read past the end of a
 * small file touches none of the buffer it does not return.
 */
void read_fill_deferred(struct call *call, uint64_t result)
{
	struct read_hole *h = call->holes, *next;

	for (; h; h = next) {
		next = h->next;
		if (h->buf_off < result)
			io_mem_zero(&call->mem, h->buf_off,
				    result - h->buf_off < h->len ? result - h->buf_off : h->len);
		free(h);
	}
	call->holes = NULL;
}

/* A read's pieces past what the object held read as zeros. */
int read_fill_zeros(struct obj_op *op, int r)
{
	size_t i;

	for (i = 0; i < op->npieces; i++) {
		struct op_piece *p = &op->pieces[i];
		size_t got = r == -ENOENT ? 0 : p->bytes_read;

		if (r != -ENOENT && p->prval < 0)
			return p->prval;
		if (got > p->len)
			got = p->len;
		if (got < p->len)
			read_zero(op->call, p->buf_off + got, p->len - got);
	}
	return 0;
}
