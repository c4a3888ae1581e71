// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd's block hashes for verify= of a stream input: an array that
 * doubles as it fills (a block each; 256 to begin with, so a short copy
 * reallocates never or rarely).
 */
#include <errno.h>
#include <stdlib.h>

#include "dd_hash.h"

uint64_t dd_hash(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Room for one more; the array is left as it was when there is none. */
static int grow(struct dd_hashes *h)
{
	uint64_t cap = h->cap ? h->cap * 2 : 256;
	struct dd_block_hash *v;

	if (h->n < h->cap)
		return 0;
	v = realloc(h->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->v = v;
	h->cap = cap;
	return 0;
}

int dd_hashes_add(struct dd_hashes *h, uint64_t pos, const void *buf, size_t len)
{
	struct dd_block_hash *b;

	if (grow(h) < 0)
		return -ENOMEM;
	b = &h->v[h->n++];
	b->pos = pos;
	b->len = len;
	b->hash = dd_hash(DD_HASH_INIT, buf, len);
	return 0;
}

void dd_hashes_free(struct dd_hashes *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
