// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Listing the striped files of a pool. RADOS keeps no index of them, so
 * the listing walks the pool's objects once when it opens (walk.c, in
 * parallel) and keeps the heads (object 0 of a file, "NAME.0000000000000000"),
 * sorted by name. A head is a file when it carries a stored size: those
 * getxattrs run ahead of the caller, SIZES_IN_FLIGHT at once, so a listing
 * of many files costs a few round trips, not one per file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "decimal.h"
#include "head.h"
#include "layout.h"

#define SIZES_IN_FLIGHT 64

struct listed_head {
	char *oid;	     /* the head's object name; its first name_len bytes are the file's */
	size_t name_len;
	rados_completion_t rc; /* the size's getxattr while in flight */
	char size[DECIMAL_MAX];
};

struct striped_list {
	rados_ioctx_t io;
	struct listed_head *heads;
	size_t n, cap;
	size_t next;  /* the next head to hand out */
	size_t asked; /* heads[next..asked) have their getxattr in flight */
};

/* The walk's function: keep the heads. */
static int keep_head(void *arg, const char *oid)
{
	struct striped_list *l = arg;
	uint64_t objectno;
	ssize_t len = layout_object_split(oid, &objectno);

	if (len < 0 || objectno)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct listed_head *more = realloc(l->heads, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		l->heads = more;
		l->cap = cap;
	}
	l->heads[l->n] = (struct listed_head){.oid = strdup(oid), .name_len = (size_t)len};
	return l->heads[l->n].oid ? (l->n++, 0) : -ENOMEM;
}

static int by_name(const void *a, const void *b)
{
	const struct listed_head *x = a, *y = b;
	size_t common = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->oid, y->oid, common);

	return c ? c : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

/* Wait for the sizes still in flight (never leak a completion), then free. */
static void free_listing(struct striped_list *l)
{
	for (size_t i = l->next; i < l->asked; i++) {
		rados_aio_wait_for_complete(l->heads[i].rc);
		rados_aio_release(l->heads[i].rc);
	}
	for (size_t i = 0; i < l->n; i++)
		free(l->heads[i].oid);
	free(l->heads);
	free(l);
}

int striped_list_open(rados_ioctx_t io, struct striped_list **it)
{
	struct striped_list *l;
	int r;

	if (!io || !it)
		return -EINVAL;
	*it = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->io = io;
	r = api_objects_walk(io, 0, keep_head, l);
	if (r) {
		free_listing(l);
		return r;
	}
	if (l->n > 1)
		qsort(l->heads, l->n, sizeof(l->heads[0]), by_name);
	*it = l;
	return 0;
}

/* Keep SIZES_IN_FLIGHT getxattrs going ahead of the caller. */
static int ask_ahead(struct striped_list *l)
{
	while (l->asked < l->n && l->asked < l->next + SIZES_IN_FLIGHT) {
		struct listed_head *h = &l->heads[l->asked];
		int r = rados_aio_create_completion2(NULL, NULL, &h->rc);

		if (r < 0)
			return r;
		r = head_get_size_aio(l->io, h->oid, h->rc, h->size, sizeof(h->size));
		if (r < 0) {
			rados_aio_release(h->rc);
			h->rc = NULL;
			return r;
		}
		l->asked++;
	}
	return 0;
}

/* The size a head's getxattr brought: -ENODATA, -ENOENT or -EUCLEAN when it is no file. */
static int size_of(struct listed_head *h, uint64_t *size)
{
	int r;

	rados_aio_wait_for_complete(h->rc);
	r = rados_aio_get_return_value(h->rc);
	rados_aio_release(h->rc);
	h->rc = NULL;
	return head_size_of_reply(h->size, sizeof(h->size), r, size);
}

int striped_list_next(struct striped_list *it, const char **name, uint64_t *size)
{
	int r;

	if (!it || !name || !size)
		return -EINVAL;
	while (it->next < it->n) {
		struct listed_head *h;

		r = ask_ahead(it);
		if (r)
			return r;
		h = &it->heads[it->next++];
		r = size_of(h, size);
		if (r == 0) {
			h->oid[h->name_len] = '\0';
			*name = h->oid;
			return 0;
		}
		/* Not a striped file (no size, or not a number), or removed since the walk. */
		if (r != -ENODATA && r != -ENOENT && r != -EUCLEAN)
			return r;
	}
	*name = NULL;
	*size = 0;
	return 0;
}

void striped_list_close(struct striped_list *it)
{
	if (it)
		free_listing(it);
}
