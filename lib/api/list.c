// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Listing the striped files of a pool, by a prefix, one level or all, from
 * where a continuation left off. The names come from the namespace index
 * when the pool has one that is ready (list_index.c: the cost of the
 * directories listed), else from a walk of the pool's objects (walk.c, in
 * parallel), keeping the heads (object 0 of a file,
 * "NAME.0000000000000000"), sorted by name. A file's size is a getxattr
 * of its head, SIZES_IN_FLIGHT of them running ahead of the caller, so a
 * listing of many files costs a few round trips, not one per file; a head
 * without a stored size is no striped file, and an entry of the index
 * whose head is gone (its creator died between the two) is left out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "decimal.h"
#include "head.h"
#include "layout.h"
#include "list_index.h"
#include "name.h"

#define SIZES_IN_FLIGHT 64

struct pending {
	char *name;
	bool is_prefix;
	rados_completion_t rc; /* the size's getxattr while in flight */
	char size[DECIMAL_MAX];
};

struct striped_list {
	rados_ioctx_t io;
	struct list_query q;
	unsigned int flags;
	bool indexed;
	struct list_source src;
	bool src_done;
	struct pending ring[SIZES_IN_FLIGHT];
	size_t head, count; /* ring[head..head+count) wait for the caller */
	char *given;	    /* the name last handed out */
};

/* ---- the walk's names ---- */

struct walk_source {
	char **names; /* the heads' file names, sorted */
	size_t n, cap, next;
	const struct list_query *q;
	char *last_prefix;
};

/* The walk's function: keep the heads' names. */
static int keep_head(void *arg, const char *oid)
{
	struct walk_source *w = arg;
	uint64_t objectno;
	ssize_t len = layout_object_split(oid, &objectno);

	if (len < 0 || objectno)
		return 0;
	return api_names_push(&w->names, &w->n, &w->cap, strndup(oid, (size_t)len));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk_next(void *src, char **name, bool *is_prefix)
{
	struct walk_source *w = src;
	size_t plen = strlen(w->q->prefix);

	*name = NULL;
	while (w->next < w->n) {
		char *s = w->names[w->next++], *slash;

		if (strncmp(s, w->q->prefix, plen))
			continue;
		slash = w->q->one_level ? strchr(s + plen, '/') : NULL;
		if (slash) /* one level: a deeper name shows as its directory, once */
			slash[1] = '\0';
		if (!list_query_wants(w->q, s) ||
		    (slash && w->last_prefix && !strcmp(s, w->last_prefix)))
			continue;
		*name = strdup(s);
		*is_prefix = slash != NULL;
		if (*name && slash)
			w->last_prefix = s;
		return *name ? 0 : -ENOMEM;
	}
	return 0;
}

int api_walk_files(rados_ioctx_t io, char ***names, size_t *n)
{
	struct walk_source w = {0};
	int r = api_objects_walk(io, 0, keep_head, &w);

	if (r) {
		api_names_free(w.names, w.n);
		return r;
	}
	if (w.n > 1)
		qsort(w.names, w.n, sizeof(w.names[0]), by_name);
	*names = w.names;
	*n = w.n;
	return 0;
}

int api_names_push(char ***v, size_t *n, size_t *cap, char *s)
{
	if (s && *n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		char **more = realloc(*v, c * sizeof(*more));

		if (!more) {
			free(s);
			return -ENOMEM;
		}
		*v = more;
		*cap = c;
	}
	if (!s)
		return -ENOMEM;
	(*v)[(*n)++] = s;
	return 0;
}

void api_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void walk_close(void *src)
{
	struct walk_source *w = src;

	api_names_free(w->names, w->n);
	free(w);
}

static int walk_open(rados_ioctx_t io, const struct list_query *q, struct list_source *out)
{
	struct walk_source *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->q = q;
	r = api_walk_files(io, &w->names, &w->n);
	if (r) {
		free(w);
		return r;
	}
	*out = (struct list_source){walk_next, walk_close, w};
	return 0;
}


/* ---- the listing: names from its source, sizes read ahead ---- */

static bool wants_sizes(const struct striped_list *l)
{
	return !(l->flags & STRIPED_LIST_NAMES_ONLY);
}

/* The size's getxattr of a file the ring just took. */
static int ask_size(struct striped_list *l, struct pending *e)
{
	char *oid;
	int r = name_oid(l->io, e->name, &oid);

	if (r)
		return r;
	r = rados_aio_create_completion2(NULL, NULL, &e->rc);
	if (!r) {
		r = head_get_size_aio(l->io, oid, e->rc, e->size, sizeof(e->size));
		if (r < 0) {
			rados_aio_release(e->rc);
			e->rc = NULL;
		}
	}
	free(oid);
	return r < 0 ? r : 0;
}

/* Keep the ring full: SIZES_IN_FLIGHT names taken ahead of the caller. */
static int fill(struct striped_list *l)
{
	while (!l->src_done && l->count < SIZES_IN_FLIGHT) {
		struct pending *e = &l->ring[(l->head + l->count) % SIZES_IN_FLIGHT];
		int r = l->src.next(l->src.src, &e->name, &e->is_prefix);

		if (r)
			return r;
		if (!e->name) {
			l->src_done = true;
			break;
		}
		e->rc = NULL;
		if (!e->is_prefix && wants_sizes(l)) {
			r = ask_size(l, e);
			if (r) {
				free(e->name);
				return r;
			}
		}
		l->count++;
	}
	return 0;
}

/* The size a head's getxattr brought: -ENODATA, -ENOENT or -EUCLEAN when it is no file. */
static int size_of(struct pending *e, uint64_t *size)
{
	int r;

	rados_aio_wait_for_complete(e->rc);
	r = rados_aio_get_return_value(e->rc);
	rados_aio_release(e->rc);
	e->rc = NULL;
	return head_size_of_reply(e->size, sizeof(e->size), r, size);
}

/* The front entry taken from the ring, its size's getxattr (if any) awaited first. */
static int take_front(struct striped_list *l, struct pending *out, uint64_t *size)
{
	struct pending *e = &l->ring[l->head];
	int r = e->rc ? size_of(e, size) : 0;

	*out = *e;
	l->head = (l->head + 1) % SIZES_IN_FLIGHT;
	l->count--;
	return r;
}

static int list_next(struct striped_list *l, struct striped_list_entry *e)
{
	int r;

	free(l->given);
	l->given = NULL;
	memset(e, 0, sizeof(*e));
	for (;;) {
		struct pending p;

		r = fill(l);
		if (r || !l->count)
			return r;
		r = take_front(l, &p, &e->size);
		if (r == 0) {
			e->name = l->given = p.name;
			e->is_prefix = p.is_prefix;
			return 0;
		}
		free(p.name);
		/* Not a striped file (no size, or not a number), or removed since. */
		if (r != -ENODATA && r != -ENOENT && r != -EUCLEAN)
			return r;
	}
}

static void free_listing(struct striped_list *l)
{
	while (l->count) { /* never leak a completion */
		struct pending p;
		uint64_t size;

		(void)take_front(l, &p, &size);
		free(p.name);
	}
	if (l->src.close)
		l->src.close(l->src.src);
	free(l->given);
	free(l->q.prefix);
	free(l->q.start_after);
	free(l);
}

static int open_source(struct striped_list *l)
{
	struct index_place p;
	int r = 0;

	if (!(l->flags & STRIPED_LIST_NO_INDEX)) {
		r = index_place_get(l->io, &p);
		if (r)
			return r;
		if (p.rec.state == NSINDEX_READY) {
			l->indexed = true;
			return list_index_open(&p, &l->q, &l->src);
		}
		index_place_put(&p);
	}
	return walk_open(l->io, &l->q, &l->src);
}

static int query_copy(struct list_query *q, const struct striped_list_query *in)
{
	q->prefix = strdup(in->prefix ? in->prefix : "");
	q->one_level = in->delimiter != NULL;
	q->start_after = in->start_after ? strdup(in->start_after) : NULL;
	return q->prefix && (!in->start_after || q->start_after) ? 0 : -ENOMEM;
}

static int list_open(rados_ioctx_t io, const struct striped_list_query *q, size_t q_size,
		     struct striped_list **it)
{
	struct striped_list_query in = {0};
	struct striped_list *l;
	int r;

	if (it)
		*it = NULL;
	if (!io || !q || !it || q_size < sizeof(in.prefix))
		return -EINVAL;
	memcpy(&in, q, q_size < sizeof(in) ? q_size : sizeof(in));
	if ((in.delimiter && strcmp(in.delimiter, "/")) ||
	    (in.flags & ~(STRIPED_LIST_NAMES_ONLY | STRIPED_LIST_NO_INDEX)))
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->io = io;
	l->flags = in.flags;
	r = query_copy(&l->q, &in);
	if (!r)
		r = open_source(l);
	if (r) {
		free_listing(l);
		return r;
	}
	*it = l;
	return 0;
}

int striped_list_open2(rados_ioctx_t io, const struct striped_list_query *q, size_t q_size,
		       struct striped_list **it)
{
	return list_open(io, q, q_size, it);
}

int striped_list_open(rados_ioctx_t io, struct striped_list **it)
{
	struct striped_list_query all = {0};

	return list_open(io, &all, sizeof(all), it);
}

int striped_list_next2(struct striped_list *it, struct striped_list_entry *e, size_t e_size)
{
	struct striped_list_entry full;
	int r;

	if (!it || !e || e_size < sizeof(e->name))
		return -EINVAL;
	r = list_next(it, &full);
	memcpy(e, &full, e_size < sizeof(full) ? e_size : sizeof(full));
	return r;
}

int striped_list_next(struct striped_list *it, const char **name, uint64_t *size)
{
	struct striped_list_entry e;
	int r;

	if (!it || !name || !size)
		return -EINVAL;
	do /* the names alone: a prefix comes only with a delimiter, which this one has not */
		r = list_next(it, &e);
	while (!r && e.name && e.is_prefix);
	*name = e.name;
	*size = e.size;
	return r;
}

int striped_list_is_indexed(const struct striped_list *it)
{
	return it ? it->indexed : -EINVAL;
}

void striped_list_close(struct striped_list *it)
{
	if (it)
		free_listing(it);
}
