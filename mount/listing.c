// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pool's names, sorted: a directory D is the range of names that begin
 * with "D/", found by binary search, so listing a directory, telling
 * whether it exists and whether it is empty cost no round trip once the
 * pool was walked. A walk runs without the lock (one at a time): the names
 * answer meanwhile, and what the mount adds and removes during it is kept
 * in a journal and replayed on the walk's result, so nothing the mount
 * changes is lost.
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
	pthread_mutex_init(&l->walk_lock, NULL);
	pthread_cond_init(&l->wake, NULL);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void journal_clear(struct listing *l)
{
	for (size_t i = 0; i < l->nj; i++)
		free(l->journal[i].name);
	l->nj = 0;
}

void listing_destroy(struct listing *l)
{
	listing_stop(l);
	free_names(l->names, l->n);
	journal_clear(l);
	free(l->journal);
	free_names(l->kept, l->nk);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->walk_lock);
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
	if (n) /* names is NULL for an empty pool: no qsort of NULL */
		qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	*nout = n;
	*capout = cap;
	return 0;
}

/* The first index whose name is >= s in names[0..n). */
static size_t lower_bound_in(char *const *names, size_t n, const char *s)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(names[mid], s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t lower_bound(const struct listing *l, const char *s)
{
	return lower_bound_in(l->names, l->n, s);
}

/* s into the sorted names (taken: freed when already there). */
static int insert_name(char ***names, size_t *n, size_t *cap, char *s)
{
	size_t i = lower_bound_in(*names, *n, s);

	if (i < *n && !strcmp((*names)[i], s)) {
		free(s);
		return 0;
	}
	if (push(names, n, cap, s)) /* room at the end, then move it in place */
		return -ENOMEM;
	memmove(&(*names)[i + 1], &(*names)[i], (*n - 1 - i) * sizeof(char *));
	(*names)[i] = s;
	return 0;
}

static void remove_name(char **names, size_t *n, const char *name)
{
	size_t i = lower_bound_in(names, *n, name);

	if (i < *n && !strcmp(names[i], name)) {
		free(names[i]);
		memmove(&names[i], &names[i + 1], (*n - i - 1) * sizeof(char *));
		(*n)--;
	}
}

/* A change made while a walk runs, for its result; l->lock held. */
static int journal_add(struct listing *l, const char *name, bool add)
{
	char *s;

	if (!l->walking)
		return 0;
	if (l->nj == l->capj) {
		size_t c = l->capj ? l->capj * 2 : 64;
		struct listing_change *p = realloc(l->journal, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->journal = p;
		l->capj = c;
	}
	s = strdup(name);
	if (!s)
		return -ENOMEM;
	l->journal[l->nj].name = s;
	l->journal[l->nj++].add = add;
	return 0;
}

/* The journal replayed on a walk's names; l->lock held. */
static int replay(struct listing *l, char ***names, size_t *n, size_t *cap)
{
	for (size_t i = 0; i < l->nj; i++) {
		char *s;

		if (!l->journal[i].add) {
			remove_name(*names, n, l->journal[i].name);
			continue;
		}
		s = strdup(l->journal[i].name);
		if (!s || insert_name(names, n, cap, s)) {
			free(s);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The kept names put back into a walk's names; l->lock held. */
static int add_kept(struct listing *l, char ***names, size_t *n, size_t *cap)
{
	for (size_t i = 0; i < l->nk; i++) {
		char *s = strdup(l->kept[i]);

		if (!s || insert_name(names, n, cap, s)) {
			free(s);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Walk, then take the result with this mount's changes since the walk began. */
static int walk_and_take(struct listing *l, rados_ioctx_t io)
{
	double began = listing_now();
	char **names = NULL;
	size_t n = 0, cap = 0;
	int r;

	pthread_mutex_lock(&l->lock);
	l->walking = true;
	pthread_mutex_unlock(&l->lock);
	r = walk(io, &names, &n, &cap);
	pthread_mutex_lock(&l->lock);
	if (!r)
		r = replay(l, &names, &n, &cap);
	if (!r)
		r = add_kept(l, &names, &n, &cap);
	if (!r) {
		free_names(l->names, l->n);
		l->names = names;
		l->n = n;
		l->cap = cap;
		l->walked = began;
	} else {
		free_names(names, n);
	}
	journal_clear(l);
	l->walking = false;
	pthread_mutex_unlock(&l->lock);
	return r;
}

static bool fresh(struct listing *l, double max_age)
{
	bool yes;

	pthread_mutex_lock(&l->lock);
	yes = l->walked && listing_now() - l->walked <= max_age;
	pthread_mutex_unlock(&l->lock);
	return yes;
}

int listing_refresh(struct listing *l, rados_ioctx_t io, double max_age)
{
	int r = 0;

	pthread_mutex_lock(&l->walk_lock);
	if (!fresh(l, max_age))
		r = walk_and_take(l, io);
	pthread_mutex_unlock(&l->walk_lock);
	return r;
}

static void *walker_main(void *arg)
{
	struct listing *l = arg;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		while (!l->wanted && !l->stop)
			pthread_cond_wait(&l->wake, &l->lock);
		if (l->stop)
			break;
		l->wanted = false;
		pthread_mutex_unlock(&l->lock);
		listing_refresh(l, l->io, l->max_age); /* failed: the next ask tries again */
		pthread_mutex_lock(&l->lock);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

int listing_refresh_async(struct listing *l, rados_ioctx_t io, double max_age)
{
	int r = 0;

	pthread_mutex_lock(&l->lock);
	if (!l->walked) {
		pthread_mutex_unlock(&l->lock);
		return listing_refresh(l, io, max_age);
	}
	if (listing_now() - l->walked > max_age && !l->stop) {
		l->io = io;
		l->max_age = max_age;
		l->wanted = true;
		if (!l->walker_started)
			r = -pthread_create(&l->walker, NULL, walker_main, l);
		l->walker_started |= !r;
		pthread_cond_signal(&l->wake);
	}
	pthread_mutex_unlock(&l->lock);
	return r;
}

void listing_stop(struct listing *l)
{
	bool started;

	pthread_mutex_lock(&l->lock);
	l->stop = true;
	started = l->walker_started;
	l->walker_started = false;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	if (started)
		pthread_join(l->walker, NULL);
}

int listing_add(struct listing *l, const char *name)
{
	char *s = strdup(name);
	int r;

	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&l->lock);
	r = insert_name(&l->names, &l->n, &l->cap, s);
	if (r)
		free(s);
	else
		r = journal_add(l, name, true);
	pthread_mutex_unlock(&l->lock);
	return r;
}

int listing_keep(struct listing *l, const char *name)
{
	char *s = strdup(name);
	int r = s ? 0 : -ENOMEM;

	pthread_mutex_lock(&l->lock);
	if (!r && (r = insert_name(&l->kept, &l->nk, &l->capk, s)))
		free(s);
	pthread_mutex_unlock(&l->lock);
	return r ? r : listing_add(l, name);
}

void listing_unkeep(struct listing *l, const char *name)
{
	pthread_mutex_lock(&l->lock);
	remove_name(l->kept, &l->nk, name);
	pthread_mutex_unlock(&l->lock);
}

void listing_remove(struct listing *l, const char *name)
{
	pthread_mutex_lock(&l->lock);
	remove_name(l->kept, &l->nk, name);
	remove_name(l->names, &l->n, name);
	journal_add(l, name, false); /* no memory: the next walk sets it right */
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
	if (n) /* d is NULL for an empty directory */
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
