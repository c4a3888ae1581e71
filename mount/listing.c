// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pool's names, sorted: a directory D is the range of names that begin
 * with "D/", found by binary search, so listing a directory, telling
 * whether it exists and whether it is empty cost no round trip once the
 * pool was walked. The lock is held for a whole walk: a walk at most every
 * cache_time, and nothing the mount changes meanwhile is lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "listing.h"

#define HEAD_SUFFIX ".0000000000000000"
#define HEAD_SUFFIX_LEN 17

double listing_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void listing_init(struct listing *l)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->lock, NULL);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void listing_destroy(struct listing *l)
{
	free_names(l->names, l->n);
	pthread_mutex_destroy(&l->lock);
}

bool listing_is_head(const char *oid, size_t *name_len)
{
	size_t len = strlen(oid);

	if (len <= HEAD_SUFFIX_LEN || strcmp(oid + len - HEAD_SUFFIX_LEN, HEAD_SUFFIX))
		return false;
	*name_len = len - HEAD_SUFFIX_LEN;
	return true;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push(char ***names, size_t *n, size_t *cap, char *s)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		char **p = realloc(*names, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*names = p;
		*cap = c;
	}
	(*names)[(*n)++] = s;
	return 0;
}

/* Every head's name in the pool (namespace), sorted. */
static int walk(rados_ioctx_t io, char ***out, size_t *nout, size_t *capout)
{
	rados_list_ctx_t ctx;
	char **names = NULL;
	size_t n = 0, cap = 0, len;
	const char *oid;
	int r = rados_nobjects_list_open(io, &ctx);

	if (r < 0)
		return r;
	while ((r = rados_nobjects_list_next(ctx, &oid, NULL, NULL)) == 0) {
		char *s;

		if (!listing_is_head(oid, &len))
			continue;
		s = strndup(oid, len);
		if (!s || push(&names, &n, &cap, s)) {
			free(s);
			r = -ENOMEM;
			break;
		}
	}
	rados_nobjects_list_close(ctx);
	if (r != -ENOENT) {
		free_names(names, n);
		return r;
	}
	qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	*nout = n;
	*capout = cap;
	return 0;
}

int listing_refresh(struct listing *l, rados_ioctx_t io, double max_age)
{
	char **names;
	size_t n, cap;
	double now = listing_now();
	int r = 0;

	pthread_mutex_lock(&l->lock);
	if (l->walked && now - l->walked <= max_age)
		goto out;
	r = walk(io, &names, &n, &cap);
	if (r)
		goto out;
	free_names(l->names, l->n);
	l->names = names;
	l->n = n;
	l->cap = cap;
	l->walked = now;
out:
	pthread_mutex_unlock(&l->lock);
	return r;
}

/* The first index whose name is >= s. */
static size_t lower_bound(const struct listing *l, const char *s)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(l->names[mid], s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int listing_add(struct listing *l, const char *name)
{
	char *s = strdup(name);
	size_t i;
	int r = 0;

	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&l->lock);
	i = lower_bound(l, name);
	if (i < l->n && !strcmp(l->names[i], name)) {
		free(s);
		goto out;
	}
	r = push(&l->names, &l->n, &l->cap, s); /* room at the end, then move it in place */
	if (r) {
		free(s);
		goto out;
	}
	memmove(&l->names[i + 1], &l->names[i], (l->n - 1 - i) * sizeof(char *));
	l->names[i] = s;
out:
	pthread_mutex_unlock(&l->lock);
	return r;
}

void listing_remove(struct listing *l, const char *name)
{
	size_t i;

	pthread_mutex_lock(&l->lock);
	i = lower_bound(l, name);
	if (i < l->n && !strcmp(l->names[i], name)) {
		free(l->names[i]);
		memmove(&l->names[i], &l->names[i + 1], (l->n - i - 1) * sizeof(char *));
		l->n--;
	}
	pthread_mutex_unlock(&l->lock);
}

/* "dir/" into buf, or "" for the root; false when it does not fit. */
static bool dir_prefix(const char *dir, char *buf, size_t len)
{
	size_t n = strlen(dir);

	if (n + 2 > len)
		return false;
	memcpy(buf, dir, n);
	if (n)
		buf[n++] = '/';
	buf[n] = 0;
	return true;
}

#define PREFIX_MAX 4096

bool listing_is_dir(struct listing *l, const char *dir)
{
	char p[PREFIX_MAX];
	bool yes = false;
	size_t i;

	if (!*dir)
		return true;
	if (!dir_prefix(dir, p, sizeof(p)))
		return false;
	pthread_mutex_lock(&l->lock);
	i = lower_bound(l, p);
	yes = i < l->n && !strncmp(l->names[i], p, strlen(p));
	pthread_mutex_unlock(&l->lock);
	return yes;
}

bool listing_has_children(struct listing *l, const char *dir)
{
	char p[PREFIX_MAX];
	size_t i, plen;
	bool yes = false;

	if (!dir_prefix(dir, p, sizeof(p)))
		return false;
	plen = strlen(p);
	pthread_mutex_lock(&l->lock);
	for (i = lower_bound(l, p); i < l->n && !strncmp(l->names[i], p, plen); i++)
		if (l->names[i][plen]) { /* not the marker itself */
			yes = true;
			break;
		}
	pthread_mutex_unlock(&l->lock);
	return yes;
}

void dentries_free(struct dentry *d, long n)
{
	for (long i = 0; i < n; i++)
		free(d[i].name);
	free(d);
}

/* Add rest's first component (up to a slash) unless it is the last one added. */
static int add_child(struct dentry **d, long *n, long *cap, const char *rest)
{
	const char *slash = strchr(rest, '/');
	size_t len = slash ? (size_t)(slash - rest) : strlen(rest);

	if (!len)
		return 0; /* the marker itself, or an empty component: not shown */
	if (*n && strlen((*d)[*n - 1].name) == len && !memcmp((*d)[*n - 1].name, rest, len)) {
		(*d)[*n - 1].is_dir |= slash != NULL;
		return 0;
	}
	if (*n == *cap) {
		long c = *cap ? *cap * 2 : 64;
		struct dentry *p = realloc(*d, (size_t)c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*d = p;
		*cap = c;
	}
	(*d)[*n].name = strndup(rest, len);
	if (!(*d)[*n].name)
		return -ENOMEM;
	(*d)[(*n)++].is_dir = slash != NULL;
	return 0;
}

static int cmp_dentries(const void *a, const void *b)
{
	return strcmp(((const struct dentry *)a)->name, ((const struct dentry *)b)->name);
}

long listing_children(struct listing *l, const char *dir, struct dentry **out)
{
	char p[PREFIX_MAX];
	struct dentry *d = NULL;
	long n = 0, cap = 0;
	size_t plen;
	int r = 0;

	if (!dir_prefix(dir, p, sizeof(p)))
		return -ENAMETOOLONG;
	plen = strlen(p);
	pthread_mutex_lock(&l->lock);
	/*
	 * Sorted names group a component's files together except where a
	 * sibling sorts between "x" and "x/..." ("x-1" < "x/"): the same
	 * component can come twice. Merge those after.
	 */
	for (size_t i = lower_bound(l, p); !r && i < l->n && !strncmp(l->names[i], p, plen); i++)
		r = add_child(&d, &n, &cap, l->names[i] + plen);
	pthread_mutex_unlock(&l->lock);
	if (r) {
		dentries_free(d, n);
		return r;
	}
	/* a name both file and directory: sorted by component, the directory wins */
	qsort(d, (size_t)n, sizeof(*d), cmp_dentries);
	long k = 0;
	for (long i = 0; i < n; i++) {
		if (k && !strcmp(d[k - 1].name, d[i].name)) {
			d[k - 1].is_dir |= d[i].is_dir;
			free(d[i].name);
			continue;
		}
		d[k++] = d[i];
	}
	*out = d;
	return k;
}

long listing_with_prefix(struct listing *l, const char *prefix, char ***out)
{
	char **v = NULL;
	size_t n = 0, cap = 0, plen = strlen(prefix);
	long r = 0;

	pthread_mutex_lock(&l->lock);
	for (size_t i = lower_bound(l, prefix); i < l->n && !strncmp(l->names[i], prefix, plen);
	     i++) {
		char *s = strdup(l->names[i]);

		if (!s || push(&v, &n, &cap, s)) {
			free(s);
			r = -ENOMEM;
			break;
		}
	}
	pthread_mutex_unlock(&l->lock);
	if (r) {
		free_names(v, n);
		return r;
	}
	*out = v;
	return (long)n;
}
