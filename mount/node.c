// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The node table: two hash tables (number, path) under one lock. A node is
 * freed once the kernel forgot every lookup of it and no open remains, so
 * a reply never names a number the table no longer knows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"

#define NBUCKETS (1u << 16)

static size_t hash_path(const char *s)
{
	size_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static struct node **ino_slot(struct nodes *t, fuse_ino_t ino)
{
	return &t->by_ino[ino % t->nbuckets];
}

static struct node **path_slot(struct nodes *t, const char *path)
{
	return &t->by_path[hash_path(path) % t->nbuckets];
}

static void unhash_path(struct nodes *t, struct node *n)
{
	struct node **p;

	if (n->detached)
		return;
	for (p = path_slot(t, n->path); *p; p = &(*p)->next_path)
		if (*p == n) {
			*p = n->next_path;
			break;
		}
	n->detached = true;
	atomic_fetch_add(&n->changes, 1);
}

static void hash_path_in(struct nodes *t, struct node *n)
{
	struct node **slot = path_slot(t, n->path);

	n->next_path = *slot;
	*slot = n;
	n->detached = false;
}

static struct node *node_new(struct nodes *t, const char *path, bool is_dir)
{
	struct node *n = calloc(1, sizeof(*n));
	struct node **slot;

	if (!n || !(n->path = strdup(path))) {
		free(n);
		return NULL;
	}
	n->ino = t->next_ino++;
	n->is_dir = is_dir;
	atomic_store(&n->seen_size, UINT64_MAX);
	pthread_mutex_init(&n->lock, NULL);
	slot = ino_slot(t, n->ino);
	n->next_ino = *slot;
	*slot = n;
	hash_path_in(t, n);
	return n;
}

int nodes_init(struct nodes *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->nbuckets = NBUCKETS;
	t->by_ino = calloc(t->nbuckets, sizeof(*t->by_ino));
	t->by_path = calloc(t->nbuckets, sizeof(*t->by_path));
	t->next_ino = FUSE_ROOT_ID;
	if (!t->by_ino || !t->by_path || !(t->root = node_new(t, "", true))) {
		nodes_destroy(t);
		return -ENOMEM;
	}
	t->root->nlookup = 1; /* never forgotten */
	return 0;
}

void nodes_destroy(struct nodes *t)
{
	for (size_t i = 0; t->by_ino && i < t->nbuckets; i++)
		for (struct node *n = t->by_ino[i], *next; n; n = next) {
			next = n->next_ino;
			pthread_mutex_destroy(&n->lock);
			free(n->path);
			free(n);
		}
	free(t->by_ino);
	free(t->by_path);
	pthread_mutex_destroy(&t->lock);
}

static struct node *get_locked(struct nodes *t, fuse_ino_t ino)
{
	for (struct node *n = *ino_slot(t, ino); n; n = n->next_ino)
		if (n->ino == ino)
			return n;
	return NULL;
}

struct node *node_get(struct nodes *t, fuse_ino_t ino)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = get_locked(t, ino);
	pthread_mutex_unlock(&t->lock);
	return n;
}

static struct node *find_locked(struct nodes *t, const char *path)
{
	for (struct node *n = *path_slot(t, path); n; n = n->next_path)
		if (!strcmp(n->path, path))
			return n;
	return NULL;
}

struct node *node_find(struct nodes *t, const char *path)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = find_locked(t, path);
	pthread_mutex_unlock(&t->lock);
	return n;
}

static struct node *find_ref(struct nodes *t, const char *path, bool kept_only)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = find_locked(t, path);
	if (n && (!kept_only || atomic_load(&n->kept)))
		n->nlookup++; /* so that it stays while the caller looks */
	else
		n = NULL;
	pthread_mutex_unlock(&t->lock);
	return n;
}

struct node *node_find_kept(struct nodes *t, const char *path)
{
	return find_ref(t, path, true);
}

struct node *node_find_ref(struct nodes *t, const char *path)
{
	return find_ref(t, path, false);
}

void node_saw_head(struct node *n, const struct mattr *a)
{
	if (!a->layout.stripe_unit)
		return;
	atomic_store(&n->seen_su, a->layout.stripe_unit);
	atomic_store(&n->seen_sc, a->layout.stripe_count);
	atomic_store(&n->seen_os, a->layout.object_size);
	atomic_store(&n->seen_id, a->id);
	atomic_store(&n->seen_reserved, a->reserved);
}

bool node_seen_head(struct node *n, struct striped_head *h)
{
	memset(h, 0, sizeof(*h));
	h->layout.stripe_unit = atomic_load(&n->seen_su);
	h->layout.stripe_count = atomic_load(&n->seen_sc);
	h->layout.object_size = atomic_load(&n->seen_os);
	h->id = atomic_load(&n->seen_id);
	h->reserved = atomic_load(&n->seen_reserved);
	h->size = atomic_load(&n->seen_size);
	return h->layout.stripe_unit != 0;
}

size_t node_kept_below(struct nodes *t, const char *dir, struct node **out, size_t max)
{
	size_t dl = strlen(dir), k = 0;
	struct node *n;

	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; k < max && i < t->nbuckets; i++)
		for (n = t->by_ino[i]; k < max && n; n = n->next_ino)
			if (atomic_load(&n->kept) && !n->detached && !strncmp(n->path, dir, dl) &&
			    n->path[dl] == '/') {
				n->nlookup++;
				out[k++] = n;
			}
	pthread_mutex_unlock(&t->lock);
	return k;
}

struct node *node_lookup(struct nodes *t, const char *path, bool is_dir, uint64_t count)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = find_locked(t, path);
	if (n && n->is_dir != is_dir && !n->opens) {
		/* a file became a directory (or back) elsewhere: a new inode */
		unhash_path(t, n);
		node_release_if_unused(t, n);
		n = NULL;
	}
	if (!n)
		n = node_new(t, path, is_dir);
	if (n)
		n->nlookup += count;
	pthread_mutex_unlock(&t->lock);
	return n;
}

void node_release_if_unused(struct nodes *t, struct node *n)
{
	struct node **p;

	if (n->nlookup || n->opens || n == t->root)
		return;
	unhash_path(t, n);
	for (p = ino_slot(t, n->ino); *p; p = &(*p)->next_ino)
		if (*p == n) {
			*p = n->next_ino;
			break;
		}
	pthread_mutex_destroy(&n->lock);
	free(n->path);
	free(n);
}

void node_forget(struct nodes *t, fuse_ino_t ino, uint64_t count)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = get_locked(t, ino);
	if (n && n != t->root) {
		n->nlookup = count > n->nlookup ? 0 : n->nlookup - count;
		node_release_if_unused(t, n);
	}
	pthread_mutex_unlock(&t->lock);
}

char *node_path(struct nodes *t, const struct node *n)
{
	char *s;

	pthread_mutex_lock(&t->lock);
	s = strdup(n->path);
	pthread_mutex_unlock(&t->lock);
	return s;
}

void node_detach(struct nodes *t, const char *path)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = find_locked(t, path);
	if (n)
		unhash_path(t, n);
	pthread_mutex_unlock(&t->lock);
}

/* Give n the path to + what followed from in its path. */
static int move_one(struct nodes *t, struct node *n, size_t from_len, const char *to)
{
	size_t tl = strlen(to), rest = strlen(n->path) - from_len;
	char *p = malloc(tl + rest + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p, to, tl);
	memcpy(p + tl, n->path + from_len, rest + 1);
	unhash_path(t, n);
	free(n->path);
	n->path = p;
	hash_path_in(t, n);
	return 0;
}

int node_rename(struct nodes *t, const char *from, const char *to)
{
	size_t fl = strlen(from);
	struct node *n;
	int r = 0;

	pthread_mutex_lock(&t->lock);
	n = find_locked(t, to);
	if (n)
		unhash_path(t, n);
	for (size_t i = 0; !r && i < t->nbuckets; i++)
		for (n = t->by_ino[i]; !r && n; n = n->next_ino)
			if (!n->detached && !strncmp(n->path, from, fl) &&
			    (n->path[fl] == 0 || n->path[fl] == '/'))
				r = move_one(t, n, fl, to);
	pthread_mutex_unlock(&t->lock);
	return r;
}

void node_keep_attrs_locked(struct node *n, const struct mattr *a, double at, uint64_t changes)
{
	n->open_attrs = *a;
	n->open_attrs_at = at;
	n->open_attrs_changes = changes;
}

bool node_kept_attrs_locked(const struct node *n, double now, double max_age, struct mattr *a)
{
	bool fresh = n->open_attrs_at && n->open_attrs_changes == atomic_load(&n->changes) &&
		     now - n->open_attrs_at < max_age;

	if (fresh)
		*a = n->open_attrs;
	return fresh;
}
