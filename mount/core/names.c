// SPDX-License-Identifier: LGPL-2.1-or-later
/* A sorted set of names, a directory a range of it (names.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

#define PREFIX_MAX 4096

void names_init(struct names *s)
{
	memset(s, 0, sizeof(*s));
}

void names_clear(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	names_init(s);
}

void names_move(struct names *s, struct names *from)
{
	names_clear(s);
	*s = *from;
	names_init(from);
}

int names_append_taken(struct names *s, char *name)
{
	if (s->n == s->cap) {
		size_t c = s->cap ? s->cap * 2 : 1024;
		char **p = realloc(s->v, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->v = p;
		s->cap = c;
	}
	s->v[s->n++] = name;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void names_sort(struct names *s)
{
	if (s->n) /* v is NULL when empty: no qsort of NULL */
		qsort(s->v, s->n, sizeof(*s->v), cmp_names);
}

/* The first index whose name is >= key. */
static size_t lower_bound(const struct names *s, const char *key)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->v[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int names_add_taken(struct names *s, char *name)
{
	size_t i = lower_bound(s, name);

	if (i < s->n && !strcmp(s->v[i], name)) {
		free(name);
		return 0;
	}
	if (names_append_taken(s, name)) /* room at the end, then move it in place */
		return -ENOMEM;
	memmove(&s->v[i + 1], &s->v[i], (s->n - 1 - i) * sizeof(char *));
	s->v[i] = name;
	return 0;
}

int names_add(struct names *s, const char *name)
{
	char *copy = strdup(name);

	if (!copy || names_add_taken(s, copy)) {
		free(copy);
		return -ENOMEM;
	}
	return 0;
}

void names_remove(struct names *s, const char *name)
{
	size_t i = lower_bound(s, name);

	if (i < s->n && !strcmp(s->v[i], name)) {
		free(s->v[i]);
		memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(char *));
		s->n--;
	}
}

bool names_contains(const struct names *s, const char *name)
{
	size_t i = lower_bound(s, name);

	return i < s->n && !strcmp(s->v[i], name);
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

bool names_is_dir(const struct names *s, const char *dir)
{
	char p[PREFIX_MAX];
	size_t i;

	if (!*dir)
		return true;
	if (!dir_prefix(dir, p, sizeof(p)))
		return false;
	i = lower_bound(s, p);
	return i < s->n && !strncmp(s->v[i], p, strlen(p));
}

bool names_has_children(const struct names *s, const char *dir)
{
	char p[PREFIX_MAX];
	size_t plen;

	if (!dir_prefix(dir, p, sizeof(p)))
		return false;
	plen = strlen(p);
	for (size_t i = lower_bound(s, p); i < s->n && !strncmp(s->v[i], p, plen); i++)
		if (s->v[i][plen]) /* not the marker itself */
			return true;
	return false;
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

/* Sorted by component, each once: a name both file and directory is the directory. */
static long merge_twins(struct dentry *d, long n)
{
	long k = 0;

	if (n) /* d is NULL for an empty directory */
		qsort(d, (size_t)n, sizeof(*d), cmp_dentries);
	for (long i = 0; i < n; i++) {
		if (k && !strcmp(d[k - 1].name, d[i].name)) {
			d[k - 1].is_dir |= d[i].is_dir;
			free(d[i].name);
			continue;
		}
		d[k++] = d[i];
	}
	return k;
}

long names_children(const struct names *s, const char *dir, struct dentry **out)
{
	char p[PREFIX_MAX];
	struct dentry *d = NULL;
	long n = 0, cap = 0;
	size_t plen;
	int r = 0;

	if (!dir_prefix(dir, p, sizeof(p)))
		return -ENAMETOOLONG;
	plen = strlen(p);
	/*
	 * Sorted names group a component's files together except where a
	 * sibling sorts between "x" and "x/..." ("x-1" < "x/"): the same
	 * component can come twice. Merged after.
	 */
	for (size_t i = lower_bound(s, p); !r && i < s->n && !strncmp(s->v[i], p, plen); i++)
		r = add_child(&d, &n, &cap, s->v[i] + plen);
	if (r) {
		dentries_free(d, n);
		return r;
	}
	*out = d;
	return merge_twins(d, n);
}

long names_subdirs(const struct names *s, const char *dir)
{
	char p[PREFIX_MAX];
	const char *last = NULL;
	size_t plen, last_len = 0;
	long dirs = 0;

	if (!dir_prefix(dir, p, sizeof(p)))
		return -ENAMETOOLONG;
	plen = strlen(p);
	/* a directory's names are one run of the sorted names (all begin with "COMPONENT/") */
	for (size_t i = lower_bound(s, p); i < s->n && !strncmp(s->v[i], p, plen); i++) {
		const char *rest = s->v[i] + plen, *slash = strchr(rest, '/');
		size_t len = slash ? (size_t)(slash - rest) : 0;

		if (!len || (last && len == last_len && !memcmp(last, rest, len)))
			continue; /* a file, the marker itself, or the same directory again */
		last = rest;
		last_len = len;
		dirs++;
	}
	return dirs;
}

long names_with_prefix(const struct names *s, const char *prefix, char ***out)
{
	struct names v;
	size_t plen = strlen(prefix);

	names_init(&v);
	for (size_t i = lower_bound(s, prefix); i < s->n && !strncmp(s->v[i], prefix, plen); i++)
		if (names_add(&v, s->v[i])) {
			names_clear(&v);
			return -ENOMEM;
		}
	*out = v.v;
	return (long)v.n;
}

/*
 * Whether a refresh of the directory prefix p (plen bytes) that found got
 * replaces name, which begins with p: at any depth; or, one level, a file
 * of the directory, a directory's own name ("p/sub/", as markers are
 * named), and the names below a directory the listing no longer has. Never
 * p itself: the directory's own name is its parent's.
 */
static bool replaced(const char *name, size_t plen, bool one_level, const struct names *got)
{
	const char *rest = name + plen, *slash;
	char sub[PREFIX_MAX];
	size_t len;

	if (!*rest)
		return false;
	if (!one_level)
		return true;
	slash = strchr(rest, '/');
	if (!slash || !slash[1])
		return true;
	len = (size_t)(slash + 1 - name);
	if (len >= sizeof(sub))
		return false;
	memcpy(sub, name, len);
	sub[len] = 0;
	return !names_contains(got, sub);
}

/* got's names merged into s (both sorted, got emptied): O(n + m), not a move each. */
static int merge_in(struct names *s, struct names *got)
{
	size_t n = 0, i = 0, j = 0, cap = s->n + got->n + 1;
	char **v = malloc(cap * sizeof(*v));

	if (!v)
		return -ENOMEM;
	while (i < s->n || j < got->n) {
		int c = i == s->n ? 1 : j == got->n ? -1 : strcmp(s->v[i], got->v[j]);

		if (c <= 0)
			v[n++] = s->v[i++];
		if (c >= 0) {
			if (c == 0)
				free(got->v[j++]); /* there already */
			else
				v[n++] = got->v[j++];
		}
	}
	free(s->v);
	s->v = v;
	s->n = n;
	s->cap = cap;
	got->n = 0;
	names_clear(got);
	return 0;
}

int names_replace(struct names *s, const char *dir, bool one_level, struct names *got)
{
	char p[PREFIX_MAX];
	size_t plen, lo, hi, kept;

	if (!dir_prefix(dir, p, sizeof(p)))
		return -ENAMETOOLONG;
	plen = strlen(p);
	lo = hi = lower_bound(s, p);
	while (hi < s->n && !strncmp(s->v[hi], p, plen))
		hi++;
	kept = lo;
	names_sort(got);
	for (size_t i = lo; i < hi; i++) {
		if (replaced(s->v[i], plen, one_level, got))
			free(s->v[i]);
		else
			s->v[kept++] = s->v[i];
	}
	if (hi != kept) /* v may be NULL: nothing to move then */
		memmove(&s->v[kept], &s->v[hi], (s->n - hi) * sizeof(char *));
	s->n -= hi - kept;
	return merge_in(s, got);
}
