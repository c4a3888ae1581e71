// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd verify=yes. Reads go through plain pread/striped_read: the
 * check runs after the copy, so simplicity wins over overlap here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dd_verify.h"

#define VERIFY_CHUNK (4ULL << 20)

static int read_exact(struct dd_end *end, void *buf, size_t len, uint64_t off, size_t *got,
		      struct dd_error *e)
{
	ssize_t n = dd_end_pread(end, buf, len, off);

	if (n < 0) {
		dd_error_set(e, (int)n, "verify: error reading '%s': %s", end->label,
			     strerror((int)-n));
		return (int)n;
	}
	*got = (size_t)n;
	return 0;
}

static size_t first_diff(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i, n = alen < blen ? alen : blen;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return i;
	return n;
}

static int compare_rereading(struct dd_end *in, struct dd_end *out, uint64_t total, char *ib,
			     char *ob, uint64_t *diff, struct dd_error *e)
{
	uint64_t off = 0;
	size_t want, ig = 0, og = 0, d;
	int r;

	while (off < total) {
		want = total - off < VERIFY_CHUNK ? (size_t)(total - off) : VERIFY_CHUNK;
		r = read_exact(in, ib, want, in->base + off, &ig, e);
		if (!r)
			r = read_exact(out, ob, want, out->base + off, &og, e);
		if (r)
			return r;
		d = first_diff(ib, ig, ob, og);
		if (d < want) {
			*diff = out->base + off + d;
			return 1;
		}
		off += want;
	}
	return 0;
}

static int compare_hashes(struct dd_end *out, const struct dd_result *res, char *ob, uint64_t *diff,
			  struct dd_error *e)
{
	uint64_t i;
	size_t og = 0;
	int r;

	for (i = 0; i < res->hashes.n; i++) {
		const struct dd_block_hash *h = &res->hashes.v[i];

		r = read_exact(out, ob, h->len, out->base + h->pos, &og, e);
		if (r)
			return r;
		if (og != h->len || dd_hash(DD_HASH_INIT, ob, og) != h->hash) {
			*diff = out->base + h->pos;
			return 1;
		}
	}
	return 0;
}

static uint64_t largest_block(const struct dd_result *res)
{
	uint64_t i, max = 0;

	for (i = 0; i < res->hashes.n; i++)
		if (res->hashes.v[i].len > max)
			max = res->hashes.v[i].len;
	return max;
}

int dd_verify(struct dd_end *in, struct dd_end *out, const struct dd_result *res, uint64_t *diff,
	      struct dd_error *e)
{
	bool reread = dd_end_rereadable(in);
	size_t len = reread ? VERIFY_CHUNK : (size_t)largest_block(res);
	char *ib = NULL, *ob = NULL;
	int r = -ENOMEM;

	if (!dd_end_rereadable(out)) {
		dd_error_set(e, -EINVAL, "verify: '%s' cannot be read back", out->label);
		return -EINVAL;
	}
	if ((in->direct && dd_end_clear_direct(in, e) < 0) ||
	    (out->direct && dd_end_clear_direct(out, e) < 0))
		return e->code;
	ib = malloc(len ? len : 1);
	ob = malloc(len ? len : 1);
	if (!ib || !ob)
		dd_error_set(e, r, "verify: %s", strerror(ENOMEM));
	else if (reread)
		r = compare_rereading(in, out, res->counts.bytes, ib, ob, diff, e);
	else
		r = compare_hashes(out, res, ob, diff, e);
	free(ib);
	free(ob);
	return r;
}
