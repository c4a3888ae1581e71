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
	/*
	 * Being removed (by its last close, or a create of its name): it stays
	 * listed until the removal is done, so that a create of its name waits
	 * for it rather than find the name still taken on RADOS.
	 */
	bool removing;
	struct unlinked *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t removed = PTHREAD_COND_INITIALIZER;
static struct unlinked *head;

/* The entry of path (of file id, or any when id is 0), or NULL (lock held). */
static struct unlinked *find(const char *path, uint64_t id)
{
	for (struct unlinked *u = head; u; u = u->next)
		if (!strcmp(u->path, path) && (!id || u->id == id))
			return u;
	return NULL;
}

/* u taken off the list and freed, its waiters woken (lock held). */
static void drop(struct unlinked *u)
{
	for (struct unlinked **p = &head; *p; p = &(*p)->next)
		if (*p == u) {
			*p = u->next;
			break;
		}
	free(u->path);
	free(u);
	pthread_cond_broadcast(&removed);
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
	old = find(path, 0);
	if (old && !old->removing) /* claimed since, by a file that is gone now */
		drop(old);
	u->next = head;
	head = u;
	pthread_mutex_unlock(&lock);
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

/* u (lock held, not being removed) removed from RADOS, then from the list. */
static int remove_entry(struct mount *m, struct unlinked *u)
{
	int r;

	u->removing = true;
	pthread_mutex_unlock(&lock);
	r = remove_same(m, u->path, u->id);
	pthread_mutex_lock(&lock);
	drop(u);
	return r;
}

int unlinked_claim(struct mount *m, const char *path)
{
	struct unlinked *u;
	int r = 0;

	pthread_mutex_lock(&lock);
	while (!r && (u = find(path, 0))) {
		if (u->removing) /* its last close removes it now: wait for that */
			pthread_cond_wait(&removed, &lock);
		else
			r = remove_entry(m, u);
	}
	pthread_mutex_unlock(&lock);
	return r;
}

void unlinked_closed(struct mount *m, const char *path, uint64_t id)
{
	struct unlinked *u;

	pthread_mutex_lock(&lock);
	u = find(path, id);
	if (u && !u->removing) /* a failure leaves it on RADOS, as the daemon's death would */
		remove_entry(m, u);
	pthread_mutex_unlock(&lock);
}
