/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a listing reads its names from (list.c): the pool's walk, or the
 * namespace index (list_index.c), each in name order, each applying the
 * query's prefix, delimiter and continuation.
 */
#ifndef STRIPED_LIST_INDEX_H
#define STRIPED_LIST_INDEX_H

#include "api.h"
#include "place.h"

struct list_query {
	char *prefix;	   /* "" for every name */
	bool one_level;	   /* the '/' delimiter */
	char *start_after; /* NULL: from the first */
};

struct list_source {
	/* The next name (malloc'd, the caller's) or NULL after the last; a prefix rolls names up. */
	int (*next)(void *src, char **name, bool *is_prefix);
	void (*close)(void *src);
	void *src;
};

/* Whether name passes q (its prefix, and past its continuation). Pure. */
bool list_query_wants(const struct list_query *q, const char *name);

/* The index's names for q; p is moved into the source, which puts it. */
int list_index_open(struct index_place *p, const struct list_query *q, struct list_source *out);

#endif /* STRIPED_LIST_INDEX_H */
