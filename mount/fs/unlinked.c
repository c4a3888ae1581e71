// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Files unlinked here while open (unlinked.h). The names are the listing's
 * hidden set; the ids are kept here, by name, under their own lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heads.h"
#include "unlinked.h"

struct unlinked {
	char *path;
	uint64_t id;
	struct unlinked *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct unlinked *head;

/* The entry of path taken off the list (lock held), or NULL. */
static struct unlinked *take(const char *path)
{
	for (struct unlinked **p = &head; *p; p = &(*p)->next)
		if (!strcmp((*p)->path, path)) {
			struct unlinked *u = *p;

			*p = u->next;
			return u;
		}
	return NULL;
}

int unlinked_add(struct mount *m, const char *path, uint64_t id)
{
	struct unlinked *u = calloc(1, sizeof(*u)), *old;
	int r = u && (u->path = strdup(path)) ? 0 : -ENOMEM;

	if (r) {
		free(u);
		return r;
	}
	u->id = id;
	pthread_mutex_lock(&lock);
	old = take(path); /* claimed since, by a file that is gone now */
	u->next = head;
	head = u;
	pthread_mutex_unlock(&lock);
	if (old)
		free(old->path);
	free(old);
	return listing_hide(&m->listing, path);
}

bool unlinked_is(struct mount *m, const char *path)
{
	return listing_is_hidden(&m->listing, path);
}

/* The file at path removed when it is still the one unlinked (id); then shown again. */
static int remove_same(struct mount *m, const char *path, uint64_t id)
{
	struct mattr a;
	int r = heads_read(m->io, path, &a);

	if (!r && a.id == id)
		r = striped_remove(m->io, path);
	if (r == -ENOENT || r == -ENODATA || (!r && a.id != id))
		r = 0; /* gone, or another client's file now: not ours to remove */
	listing_unhide(&m->listing, path);
	return r;
}

int unlinked_claim(struct mount *m, const char *path)
{
	struct unlinked *u;
	int r;

	pthread_mutex_lock(&lock);
	u = take(path);
	pthread_mutex_unlock(&lock);
	if (!u)
		return 0;
	r = remove_same(m, path, u->id);
	free(u->path);
	free(u);
	return r;
}

void unlinked_closed(struct mount *m, const char *path, uint64_t id)
{
	struct unlinked *u;

	pthread_mutex_lock(&lock);
	u = take(path);
	if (u && u->id != id) { /* another unlinked file of that name: not this close's */
		u->next = head;
		head = u;
		u = NULL;
	}
	pthread_mutex_unlock(&lock);
	if (!u)
		return;
	remove_same(m, path, id); /* a failure leaves it on RADOS, as the daemon's death would */
	free(u->path);
	free(u);
}
