// SPDX-License-Identifier: LGPL-2.1-or-later
/* One directory of the index read in key order (dirread.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dirread.h"

/* The OSDs' cap on a page of omap entries (osd_max_omap_entries_per_request). */
#define PAGE_KEYS 1024

struct shard_page {
	char *oid;
	char **keys;
	bool *dirs;
	size_t n, at;
	unsigned char more; /* the OSD has keys past this page */
	char *last;	    /* the page's last key: where the next page starts */
	bool done;
	/* in flight */
	rados_read_op_t op;
	rados_omap_iter_t iter, marker_iter;
	int prval, marker_prval;
	rados_completion_t rc;
};

struct index_dir {
	const struct index_place *p;
	char *key_prefix;
	uint32_t n;
	bool marker, marker_given;
	struct shard_page shards[];
};

static void page_clear(struct shard_page *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->keys[i]);
	s->n = s->at = 0;
}

/* An entry's value: a file's or a directory's. */
static int kind_of(const char *val, size_t len, bool *is_dir)
{
	if (len < 1 || (val[0] != NSINDEX_FILE[0] && val[0] != NSINDEX_DIR[0]))
		return -EUCLEAN;
	*is_dir = val[0] == NSINDEX_DIR[0];
	return 0;
}

/* The page the OSD sent, kept; the marker key apart (d->marker). */
static int page_take(struct shard_page *s)
{
	char *key, *val;
	size_t klen, vlen;
	int r;

	page_clear(s);
	while ((r = rados_omap_get_next2(s->iter, &key, &val, &klen, &vlen)) == 0 && key) {
		bool is_dir;
		char *k;

		if (!strcmp(key, NSINDEX_MARKER_KEY))
			continue;
		r = kind_of(val, vlen, &is_dir);
		k = r ? NULL : strndup(key, klen);
		if (!k) {
			r = r ? r : -ENOMEM;
			break;
		}
		s->keys[s->n] = k;
		s->dirs[s->n++] = is_dir;
	}
	rados_omap_get_end(s->iter);
	if (r)
		return r;
	free(s->last);
	s->last = s->n ? strdup(s->keys[s->n - 1]) : NULL;
	s->done = !s->more || !s->n;
	return s->n && !s->last ? -ENOMEM : 0;
}

static int page_send(struct index_dir *d, struct shard_page *s, const char *start_after,
		     bool with_marker)
{
	const char *mk = NSINDEX_MARKER_KEY;
	size_t mklen = 1;
	int r;

	s->op = rados_create_read_op();
	if (!s->op)
		return -ENOMEM;
	rados_read_op_omap_get_vals2(s->op, start_after ? start_after : "", d->key_prefix,
				     PAGE_KEYS, &s->iter, &s->more, &s->prval);
	if (with_marker)
		rados_read_op_omap_get_vals_by_keys2(s->op, &mk, 1, &mklen, &s->marker_iter,
						     &s->marker_prval);
	r = rados_aio_create_completion2(NULL, NULL, &s->rc);
	if (!r) {
		r = rados_aio_read_op_operate(s->op, d->p->iio, s->rc, s->oid, 0);
		if (r)
			rados_aio_release(s->rc);
	}
	if (r) {
		rados_release_read_op(s->op);
		s->op = NULL;
	}
	return r;
}

/* Whether the marker's lookup found it; its iterator ended. */
static bool marker_found(struct shard_page *s)
{
	char *key = NULL, *val;
	size_t klen, vlen;
	bool found = !s->marker_prval &&
		     !rados_omap_get_next2(s->marker_iter, &key, &val, &klen, &vlen) && key;

	rados_omap_get_end(s->marker_iter);
	return found;
}

static int page_wait(struct index_dir *d, struct shard_page *s, bool with_marker)
{
	int r;

	rados_aio_wait_for_complete(s->rc);
	r = rados_aio_get_return_value(s->rc);
	rados_aio_release(s->rc);
	if (!r && !s->prval) {
		r = page_take(s); /* ends s->iter */
	} else {
		r = r ? r : s->prval;
		rados_omap_get_end(s->iter); /* made with the op, whatever its result */
	}
	if (with_marker) {
		bool found = marker_found(s);

		d->marker = d->marker || (!r && found);
	}
	if (r == -ENOENT) { /* no key was ever set in this shard */
		s->done = true;
		r = 0;
	}
	rados_release_read_op(s->op);
	s->op = NULL;
	return r;
}

static struct index_dir *dir_alloc(const struct index_place *p, const char *dir, size_t dir_len,
				   const char *key_prefix)
{
	uint32_t n = p->rec.shards;
	struct index_dir *d = calloc(1, sizeof(*d) + n * sizeof(d->shards[0]));

	if (!d)
		return NULL;
	d->p = p;
	d->n = n;
	d->key_prefix = strdup(key_prefix);
	for (uint32_t i = 0; d->key_prefix && i < n; i++) {
		struct shard_page *s = &d->shards[i];

		s->oid = nsindex_object(p->data_pool, i, dir, dir_len);
		s->keys = malloc(PAGE_KEYS * sizeof(*s->keys));
		s->dirs = malloc(PAGE_KEYS * sizeof(*s->dirs));
		if (!s->oid || !s->keys || !s->dirs) {
			d->n = i + 1;
			index_dir_close(d);
			return NULL;
		}
	}
	if (!d->key_prefix) {
		free(d);
		return NULL;
	}
	return d;
}

int index_dir_open(const struct index_place *p, const char *dir, size_t dir_len,
		   const char *key_prefix, const char *start_after, struct index_dir **out)
{
	struct index_dir *d = dir_alloc(p, dir, dir_len, key_prefix);
	uint32_t marker_shard = nsindex_shard(NSINDEX_MARKER_KEY, 1, p->rec.shards);
	bool want_marker = !start_after && !key_prefix[0];
	int r = 0, r2;
	uint32_t sent = 0;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	for (; !r && sent < d->n; sent++)
		r = page_send(d, &d->shards[sent], start_after,
			      want_marker && sent == marker_shard);
	if (r)
		sent--;
	for (uint32_t i = 0; i < sent; i++) {
		r2 = page_wait(d, &d->shards[i], want_marker && i == marker_shard);
		r = r ? r : r2;
	}
	if (r) {
		index_dir_close(d);
		return r;
	}
	*out = d;
	return 0;
}

/* The shard whose next key is the least; NULL when all are done. */
static struct shard_page *least(struct index_dir *d, int *err)
{
	struct shard_page *best = NULL;

	*err = 0;
	for (uint32_t i = 0; i < d->n; i++) {
		struct shard_page *s = &d->shards[i];

		if (s->at == s->n && !s->done) { /* the next page, where this one ended */
			*err = page_send(d, s, s->last, false);
			if (!*err)
				*err = page_wait(d, s, false);
			if (*err)
				return NULL;
		}
		if (s->at < s->n && (!best || strcmp(s->keys[s->at], best->keys[best->at]) < 0))
			best = s;
	}
	return best;
}

int index_dir_next(struct index_dir *d, const char **key, bool *is_dir)
{
	struct shard_page *s;
	int r;

	*key = NULL;
	if (d->marker && !d->marker_given) {
		d->marker_given = true;
		*key = NSINDEX_MARKER_KEY;
		*is_dir = false;
		return 0;
	}
	s = least(d, &r);
	if (s) {
		*key = s->keys[s->at];
		*is_dir = s->dirs[s->at++];
	}
	return r;
}

void index_dir_close(struct index_dir *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->n; i++) {
		struct shard_page *s = &d->shards[i];

		if (s->keys)
			page_clear(s);
		free(s->keys);
		free(s->dirs);
		free(s->oid);
		free(s->last);
	}
	free(d->key_prefix);
	free(d);
}

int index_dir_is_empty(const struct index_place *p, const char *dir, size_t dir_len, bool *empty)
{
	struct index_dir *d;
	const char *key;
	bool is_dir;
	int r = index_dir_open(p, dir, dir_len, "", NULL, &d);

	if (r)
		return r;
	do
		r = index_dir_next(d, &key, &is_dir);
	while (!r && key && !strcmp(key, NSINDEX_MARKER_KEY));
	*empty = !r && !key;
	index_dir_close(d);
	return r;
}
