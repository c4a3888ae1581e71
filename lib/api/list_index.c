// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A listing read from the namespace index: the directory of the query's
 * prefix, its keys starting with the prefix's last part; one level (each
 * directory a prefix "dir/"), or every directory below entered in place, so
 * that the names come in byte order as the walk's do ("a/b-x" < "a/b/..." <
 * "a/b0": a directory's key ends in '/'). A continuation starts each
 * directory on its way down where the last name left it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dirread.h"
#include "list_index.h"

#define DEPTH_MAX 4096

bool list_query_wants(const struct list_query *q, const char *name)
{
	return !strncmp(name, q->prefix, strlen(q->prefix)) &&
	       (!q->start_after || strcmp(name, q->start_after) > 0);
}

struct frame {
	char *dir;
	size_t dir_len;
	struct index_dir *d;
};

struct index_source {
	struct index_place place;
	const struct list_query *q;
	struct frame stack[DEPTH_MAX];
	size_t depth;
};

static char *join(const char *dir, size_t dir_len, const char *key)
{
	size_t kl = strlen(key);
	char *s = malloc(dir_len + kl + 1);

	if (s) {
		memcpy(s, dir, dir_len);
		memcpy(s + dir_len, key, kl + 1);
	}
	return s;
}

/*
 * Where a directory's keys start for the continuation sa: its first part
 * below dir, exclusive; a part that is a directory ("b/" of "b/c") is asked
 * from "b", so "b/" itself comes and is entered (the keys between, as
 * "b-x", fall to list_query_wants()).
 */
static int start_key(const char *dir, size_t dir_len, const char *sa, char **out)
{
	const char *rest, *slash;

	*out = NULL;
	if (!sa || strncmp(sa, dir, dir_len) || !sa[dir_len])
		return 0;
	rest = sa + dir_len;
	slash = strchr(rest, '/');
	*out = strndup(rest, slash ? (size_t)(slash - rest) : strlen(rest));
	return *out ? 0 : -ENOMEM;
}

static int push(struct index_source *s, char *dir, const char *key_prefix)
{
	struct frame *f;
	char *sk = NULL;
	int r;

	if (s->depth == DEPTH_MAX) {
		free(dir);
		return -ELOOP;
	}
	f = &s->stack[s->depth];
	f->dir = dir;
	f->dir_len = strlen(dir);
	r = start_key(dir, f->dir_len, s->q->start_after, &sk);
	if (!r)
		r = index_dir_open(&s->place, dir, f->dir_len, key_prefix, sk, &f->d);
	free(sk);
	if (r) {
		free(dir);
		return r;
	}
	s->depth++;
	return 0;
}

static void pop(struct index_source *s)
{
	struct frame *f = &s->stack[--s->depth];

	index_dir_close(f->d);
	free(f->dir);
}

/* A directory entered: unless every name in it sorts before the continuation. */
static bool worth_entering(const struct list_query *q, const char *dir)
{
	size_t len = strlen(dir);

	return !q->start_after || strcmp(dir, q->start_after) > 0 ||
	       !strncmp(q->start_after, dir, len);
}

static int index_next(void *src, char **name, bool *is_prefix)
{
	struct index_source *s = src;

	*name = NULL;
	while (s->depth) {
		struct frame *f = &s->stack[s->depth - 1];
		const char *key;
		bool is_dir;
		char *full;
		int r = index_dir_next(f->d, &key, &is_dir);

		if (r)
			return r;
		if (!key) {
			pop(s);
			continue;
		}
		full = strcmp(key, NSINDEX_MARKER_KEY) ? join(f->dir, f->dir_len, key)
						       : strndup(f->dir, f->dir_len);
		if (!full)
			return -ENOMEM;
		if (is_dir && !s->q->one_level) {
			if (!worth_entering(s->q, full)) {
				free(full);
				continue;
			}
			r = push(s, full, "");
			if (r)
				return r;
			continue;
		}
		if (!list_query_wants(s->q, full)) {
			free(full);
			continue;
		}
		*name = full;
		*is_prefix = is_dir;
		return 0;
	}
	return 0;
}

static void index_close(void *src)
{
	struct index_source *s = src;

	while (s->depth)
		pop(s);
	index_place_put(&s->place);
	free(s);
}

int list_index_open(struct index_place *p, const struct list_query *q, struct list_source *out)
{
	struct index_source *s = calloc(1, sizeof(*s));
	const char *slash = strrchr(q->prefix, '/');
	size_t dir_len = slash ? (size_t)(slash - q->prefix) + 1 : 0;
	char *dir;
	int r;

	if (!s) {
		index_place_put(p);
		return -ENOMEM;
	}
	s->place = *p;
	s->q = q;
	dir = strndup(q->prefix, dir_len);
	r = dir ? push(s, dir, q->prefix + dir_len) : -ENOMEM;
	if (r) {
		index_close(s);
		return r;
	}
	*out = (struct list_source){index_next, index_close, s};
	return 0;
}
