// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The index as a whole (build.h). A build turns a walk's names into one
 * list of (object, key, kind), sorted so each object's keys are
 * neighbours, and writes each object's keys in operations of up to
 * BATCH_KEYS, OPS_IN_FLIGHT at once: a million names are about a thousand
 * operations, not a million.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

#define BATCH_KEYS 1024
#define OPS_IN_FLIGHT 32

struct build_entry {
	char *oid;
	const char *key; /* into a name, or a constant */
	size_t key_len;
	bool is_dir;
};

struct entries {
	struct build_entry *e;
	size_t n, cap;
};

static int entry_add(const struct index_place *p, struct entries *es, const char *dir,
		     size_t dir_len, const char *key, size_t key_len, bool is_dir)
{
	struct build_entry *e;

	if (es->n == es->cap) {
		size_t cap = es->cap ? es->cap * 2 : 1024;
		struct build_entry *more = realloc(es->e, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		es->e = more;
		es->cap = cap;
	}
	e = &es->e[es->n];
	e->oid = nsindex_object(p->data_pool, nsindex_shard(key, key_len, p->rec.shards), dir,
				dir_len);
	e->key = key;
	e->key_len = key_len;
	e->is_dir = is_dir;
	return e->oid ? (es->n++, 0) : -ENOMEM;
}

static int by_object_then_key(const void *a, const void *b)
{
	const struct build_entry *x = a, *y = b;
	int c = strcmp(x->oid, y->oid);
	size_t common = x->key_len < y->key_len ? x->key_len : y->key_len;

	if (c)
		return c;
	c = memcmp(x->key, y->key, common);
	return c ? c : (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

/*
 * A name's entry, and each directory above it once: names come sorted, so
 * a directory is new only where the name leaves the previous name's path.
 */
static int entries_of(const struct index_place *p, struct entries *es, const char *name,
		      const char *prev)
{
	size_t dir_len, parent_len;
	const char *key;
	int r;

	nsindex_split(name, &dir_len, &key);
	r = entry_add(p, es, name, dir_len, key, strlen(key), false);
	while (!r && dir_len) {
		if (prev && !strncmp(prev, name, dir_len))
			break; /* the previous name had this directory, and all above it */
		nsindex_parent(name, dir_len, &parent_len);
		r = entry_add(p, es, name, parent_len, name + parent_len, dir_len - parent_len, true);
		dir_len = parent_len;
	}
	return r;
}

struct batch {
	rados_completion_t rc;
	rados_write_op_t op;
	bool sent;
};

static int batch_wait(struct batch *b)
{
	int r;

	if (!b->sent)
		return 0;
	rados_aio_wait_for_complete(b->rc);
	r = rados_aio_get_return_value(b->rc);
	rados_aio_release(b->rc);
	rados_release_write_op(b->op);
	b->sent = false;
	return r;
}

/* Entries e[0..n), all of one object, in one operation. */
static int batch_send(const struct index_place *p, struct batch *b, const struct build_entry *e,
		      size_t n)
{
	const char *keys[BATCH_KEYS], *vals[BATCH_KEYS];
	size_t klens[BATCH_KEYS], vlens[BATCH_KEYS];
	int r;

	for (size_t i = 0; i < n; i++) {
		keys[i] = e[i].key;
		klens[i] = e[i].key_len;
		vals[i] = e[i].is_dir ? NSINDEX_DIR : NSINDEX_FILE;
		vlens[i] = 1;
	}
	b->op = rados_create_write_op();
	if (!b->op)
		return -ENOMEM;
	rados_write_op_omap_set2(b->op, keys, vals, klens, vlens, n);
	r = rados_aio_create_completion2(NULL, NULL, &b->rc);
	if (!r) {
		r = rados_aio_write_op_operate(b->op, p->iio, b->rc, e[0].oid, NULL, 0);
		if (r)
			rados_aio_release(b->rc);
	}
	if (r)
		rados_release_write_op(b->op);
	b->sent = !r;
	return r;
}

static int write_entries(const struct index_place *p, const struct entries *es)
{
	struct batch b[OPS_IN_FLIGHT] = {0};
	size_t at = 0, slot = 0;
	int r = 0, r2;

	while (!r && at < es->n) {
		size_t n = 1;

		while (at + n < es->n && n < BATCH_KEYS && !strcmp(es->e[at + n].oid, es->e[at].oid))
			n++;
		r = batch_wait(&b[slot]); /* the slot's last operation, before its next */
		if (!r)
			r = batch_send(p, &b[slot], &es->e[at], n);
		slot = (slot + 1) % OPS_IN_FLIGHT;
		at += n;
	}
	for (size_t i = 0; i < OPS_IN_FLIGHT; i++) {
		r2 = batch_wait(&b[i]);
		r = r ? r : r2;
	}
	return r;
}

int index_build(const struct index_place *p, char *const *names, size_t n)
{
	struct entries es = {0};
	size_t kept = 0;
	int r = 0;

	for (size_t i = 0; !r && i < n; i++)
		r = entries_of(p, &es, names[i], i ? names[i - 1] : NULL);
	if (!r) {
		if (es.n > 1) /* e is NULL when empty: no qsort of NULL */
			qsort(es.e, es.n, sizeof(es.e[0]), by_object_then_key);
		/* a directory met again after another's names: once is enough */
		for (size_t i = 0; i < es.n; i++) {
			if (kept && !by_object_then_key(&es.e[kept - 1], &es.e[i]))
				free(es.e[i].oid);
			else
				es.e[kept++] = es.e[i];
		}
		es.n = kept;
		r = write_entries(p, &es);
	}
	for (size_t i = 0; i < es.n; i++)
		free(es.e[i].oid);
	free(es.e);
	return r;
}

int index_object_dir(const struct index_place *p, const char *oid, size_t *dir_off)
{
	char head[64];
	int n = snprintf(head, sizeof(head), "striped.dir.%lld.", (long long)p->data_pool);
	const char *s = oid + n, *dot;

	if (strncmp(oid, head, (size_t)n))
		return 0;
	dot = strchr(s, '.');
	if (!dot || dot == s || strspn(s, "0123456789") != (size_t)(dot - s))
		return 0;
	*dir_off = (size_t)(dot + 1 - oid);
	return 1;
}

int index_object_read(const struct index_place *p, const char *oid, index_key_fn fn, void *arg,
		      uint64_t *keys)
{
	size_t dir_off;
	char *after = strdup("");
	unsigned char more = 1;
	int r = 0;

	*keys = 0;
	if (!index_object_dir(p, oid, &dir_off) || !after) {
		free(after);
		return after ? -EINVAL : -ENOMEM;
	}
	while (!r && more) {
		rados_read_op_t op = rados_create_read_op();
		rados_omap_iter_t it;
		char *key, *val;
		size_t klen, vlen;
		int prval = 0;

		rados_read_op_omap_get_vals2(op, after, "", BATCH_KEYS, &it, &more, &prval);
		r = rados_read_op_operate(op, p->iio, oid, 0);
		r = r ? r : prval;
		while (!r && !(r = rados_omap_get_next2(it, &key, &val, &klen, &vlen)) && key) {
			if (vlen < 1 || (val[0] != NSINDEX_FILE[0] && val[0] != NSINDEX_DIR[0]))
				r = -EUCLEAN;
			else if (fn)
				r = fn(arg, oid + dir_off, key, val[0] == NSINDEX_DIR[0]);
			(*keys)++;
			free(after);
			after = strndup(key, klen);
			if (!after)
				r = -ENOMEM;
		}
		rados_omap_get_end(it); /* made with the op, whatever its result */
		rados_release_read_op(op);
		more = r ? 0 : more;
	}
	free(after);
	return r == -ENOENT ? 0 : r;
}

int index_objects_remove(const struct index_place *p, char *const *oids, size_t n)
{
	struct batch b[OPS_IN_FLIGHT] = {0};
	int r = 0, r2;

	for (size_t i = 0; !r && i < n; i++) {
		struct batch *s = &b[i % OPS_IN_FLIGHT];

		r = batch_wait(s);
		if (r == -ENOENT)
			r = 0;
		if (r)
			break;
		s->op = rados_create_write_op();
		if (!s->op)
			return -ENOMEM;
		rados_write_op_remove(s->op);
		r = rados_aio_create_completion2(NULL, NULL, &s->rc);
		if (!r) {
			r = rados_aio_write_op_operate(s->op, p->iio, s->rc, oids[i], NULL, 0);
			if (r)
				rados_aio_release(s->rc);
		}
		if (r)
			rados_release_write_op(s->op);
		s->sent = !r;
	}
	for (size_t i = 0; i < OPS_IN_FLIGHT; i++) {
		r2 = batch_wait(&b[i]);
		r = r ? r : (r2 == -ENOENT ? 0 : r2);
	}
	return r;
}
