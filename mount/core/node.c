// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The node table: two hash tables (number, path) under one lock. A node is
 * freed once the kernel forgot every lookup of it and the daemon holds no
 * reference, so a reply never names a number the table no longer knows,
 * and no thread uses a node another frees.
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
	node_changed(n);
}

static void hash_path_in(struct nodes *t, struct node *n)
{
	struct node **slot = path_slot(t, n->path);

	n->next_path = *slot;
	*slot = n;
	n->detached = false;
}

static struct node *get_locked(struct nodes *t, fuse_ino_t ino)
{
	for (struct node *n = *ino_slot(t, ino); n; n = n->next_ino)
		if (n->ino == ino)
			return n;
	return NULL;
}

/* The number a new node gets: ino when given and free, else the next free one. */
static fuse_ino_t free_ino(struct nodes *t, uint64_t ino)
{
	if (ino > FUSE_ROOT_ID && !get_locked(t, ino))
		return ino;
	while (get_locked(t, t->next_ino))
		t->next_ino++;
	return t->next_ino++;
}

static struct node *node_new(struct nodes *t, const char *path, bool is_dir, uint64_t ino)
{
	struct node *n = calloc(1, sizeof(*n));
	struct node **slot;

	if (!n || !(n->path = strdup(path))) {
		free(n);
		return NULL;
	}
	n->ino = free_ino(t, ino);
	n->is_dir = is_dir;
	pthread_mutex_init(&n->lock, NULL);
	slot = ino_slot(t, n->ino);
	n->next_ino = *slot;
	*slot = n;
	hash_path_in(t, n);
	return n;
}

static void node_free(struct node *n)
{
	pthread_mutex_destroy(&n->lock);
	free(n->path);
	free(n);
}

int nodes_init(struct nodes *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->nbuckets = NBUCKETS;
	t->by_ino = calloc(t->nbuckets, sizeof(*t->by_ino));
	t->by_path = calloc(t->nbuckets, sizeof(*t->by_path));
	t->next_ino = FUSE_ROOT_ID;
	if (!t->by_ino || !t->by_path || !(t->root = node_new(t, "", true, 0))) {
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
			node_free(n);
		}
	free(t->by_ino);
	free(t->by_path);
	pthread_mutex_destroy(&t->lock);
	memset(t, 0, sizeof(*t));
}

/* Free n when no one holds it (t->lock held). */
static void release_if_unused(struct nodes *t, struct node *n)
{
	struct node **p;

	if (n->nlookup || n->refs || n == t->root)
		return;
	unhash_path(t, n);
	for (p = ino_slot(t, n->ino); *p; p = &(*p)->next_ino)
		if (*p == n) {
			*p = n->next_ino;
			break;
		}
	node_free(n);
}

struct node *node_get(struct nodes *t, fuse_ino_t ino)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = get_locked(t, ino);
	if (n)
		n->refs++;
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

struct node *node_at(struct nodes *t, const char *path)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = find_locked(t, path);
	if (n)
		n->refs++;
	pthread_mutex_unlock(&t->lock);
	return n;
}

struct node *node_make(struct nodes *t, const char *path, bool is_dir, uint64_t ino)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = find_locked(t, path);
	if (n && n != t->root && !n->refs && (n->is_dir != is_dir || (ino && n->ino != ino))) {
		/* another file (or a directory) of that name now: a new inode; one held stays */
		unhash_path(t, n);
		release_if_unused(t, n);
		n = NULL;
	}
	if (!n)
		n = node_new(t, path, is_dir, ino);
	if (n)
		n->refs++;
	pthread_mutex_unlock(&t->lock);
	return n;
}

void node_hold(struct nodes *t, struct node *n)
{
	pthread_mutex_lock(&t->lock);
	n->refs++;
	pthread_mutex_unlock(&t->lock);
}

void node_put(struct nodes *t, struct node *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&t->lock);
	n->refs--;
	release_if_unused(t, n);
	pthread_mutex_unlock(&t->lock);
}

void node_kernel_ref(struct nodes *t, struct node *n)
{
	pthread_mutex_lock(&t->lock);
	n->nlookup++;
	pthread_mutex_unlock(&t->lock);
}

void node_forget(struct nodes *t, fuse_ino_t ino, uint64_t count)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = get_locked(t, ino);
	if (n && n != t->root) {
		n->nlookup = count > n->nlookup ? 0 : n->nlookup - count;
		release_if_unused(t, n);
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

bool node_detached(struct nodes *t, const struct node *n)
{
	bool d;

	pthread_mutex_lock(&t->lock);
	d = n->detached;
	pthread_mutex_unlock(&t->lock);
	return d;
}

void node_detach(struct nodes *t, const char *path)
{
	struct node *n;

	pthread_mutex_lock(&t->lock);
	n = find_locked(t, path);
	if (n && n != t->root)
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

/* Whether path is below dir (dl bytes), or dir itself when self. */
static bool below(const char *path, const char *dir, size_t dl, bool self)
{
	return !strncmp(path, dir, dl) && (path[dl] == '/' || (self && !path[dl]));
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
			if (!n->detached && n != t->root && below(n->path, from, fl, true))
				r = move_one(t, n, fl, to);
	pthread_mutex_unlock(&t->lock);
	return r;
}

size_t node_below(struct nodes *t, const char *dir, bool (*want)(const struct node *n),
		  struct node **out, size_t max)
{
	size_t dl = strlen(dir), k = 0;
	struct node *n;

	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; k < max && i < t->nbuckets; i++)
		for (n = t->by_ino[i]; k < max && n; n = n->next_ino)
			if (!n->detached && n != t->root && below(n->path, dir, dl, false) &&
			    want(n)) {
				n->refs++;
				out[k++] = n;
			}
	pthread_mutex_unlock(&t->lock);
	return k;
}

void node_lock(struct node *n)
{
	pthread_mutex_lock(&n->lock);
}

void node_unlock(struct node *n)
{
	pthread_mutex_unlock(&n->lock);
}

void node_changed(struct node *n)
{
	atomic_fetch_add(&n->changes, 1);
}

uint64_t node_changes(const struct node *n)
{
	return atomic_load(&n->changes);
}
