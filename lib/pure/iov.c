// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The caller's memory of a call, seen as one range of offsets: a plain
 * buffer, or the segments of an iovec array laid end to end. The engine
 * asks for the contiguous piece at an offset; pure, so it is unit-tested.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iov.h"

void io_mem_buf(struct io_mem *m, char *buf, uint64_t len)
{
	m->one.iov_base = buf;
	m->one.iov_len = len;
	m->iov = &m->one;
	m->iovcnt = 1;
	m->ends = NULL;
}

/* The array is copied: the caller may free it once the call has started. */
int io_mem_iov(struct io_mem *m, const struct iovec *iov, int iovcnt)
{
	struct iovec *copy;
	uint64_t end = 0;

	if (iovcnt == 1) {
		io_mem_buf(m, iov[0].iov_base, iov[0].iov_len);
		return 0;
	}
	copy = malloc((size_t)iovcnt * (sizeof(*copy) + sizeof(*m->ends)) + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, iov, (size_t)iovcnt * sizeof(*copy));
	m->ends = (uint64_t *)(void *)(copy + iovcnt);
	for (int i = 0; i < iovcnt; i++)
		m->ends[i] = end += iov[i].iov_len;
	m->iov = copy;
	m->iovcnt = iovcnt;
	return 0;
}

/* Hand m over to dst (a plain buffer's segment lives inside the struct). */
void io_mem_move(struct io_mem *dst, struct io_mem *src)
{
	*dst = *src;
	if (src->iov == &src->one)
		dst->iov = &dst->one;
	io_mem_buf(src, NULL, 0);
}

void io_mem_view(struct io_mem *dst, const struct io_mem *src)
{
	*dst = *src;
	if (src->iov == &src->one)
		dst->iov = &dst->one;
}

void io_mem_forget(struct io_mem *m)
{
	io_mem_buf(m, NULL, 0);
}

void io_mem_free(struct io_mem *m)
{
	if (m->iov != &m->one)
		free((void *)m->iov);
	io_mem_buf(m, NULL, 0);
}

/* The segment holding offset off: the first whose end lies past it. */
static int segment_of(const struct io_mem *m, uint64_t off)
{
	int lo = 0, hi = m->iovcnt - 1;

	if (!m->ends)
		return 0;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (m->ends[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

char *io_mem_at(const struct io_mem *m, uint64_t off, uint64_t *avail)
{
	int i = segment_of(m, off);
	uint64_t start = m->ends ? m->ends[i] - m->iov[i].iov_len : 0;

	*avail = m->iov[i].iov_len - (off - start);
	return (char *)m->iov[i].iov_base + (off - start);
}

size_t io_mem_pieces(const struct io_mem *m, uint64_t off, uint64_t len)
{
	size_t n = 0;

	while (len) {
		uint64_t avail;

		io_mem_at(m, off, &avail);
		if (avail > len)
			avail = len;
		off += avail;
		len -= avail;
		n++;
	}
	return n;
}

void io_mem_zero(const struct io_mem *m, uint64_t off, uint64_t len)
{
	while (len) {
		uint64_t avail;
		char *p = io_mem_at(m, off, &avail);

		if (avail > len)
			avail = len;
		memset(p, 0, avail);
		off += avail;
		len -= avail;
	}
}

void io_mem_copy(const struct io_mem *m, uint64_t off, char *buf, uint64_t len, bool to_mem)
{
	while (len) {
		uint64_t avail;
		char *p = io_mem_at(m, off, &avail);

		if (avail > len)
			avail = len;
		if (to_mem)
			memcpy(p, buf, avail);
		else
			memcpy(buf, p, avail);
		buf += avail;
		off += avail;
		len -= avail;
	}
}

/*
 * The segments of [off, off + len) of m (len > 0), as an iovec array
 * (malloc'ed, for the caller to free) of *cnt entries: the part of a
 * call's memory that another call reads into.
 */
struct iovec *io_mem_slice(const struct io_mem *m, uint64_t off, uint64_t len, int *cnt)
{
	struct iovec *v = malloc(io_mem_pieces(m, off, len) * sizeof(*v) + 1);

	if (!v)
		return NULL;
	*cnt = 0;
	while (len) {
		uint64_t avail;
		char *p = io_mem_at(m, off, &avail);

		if (avail > len)
			avail = len;
		v[(*cnt)++] = (struct iovec){p, avail};
		off += avail;
		len -= avail;
	}
	return v;
}
