// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pool's names, kept sorted (core/names.h). A walk runs without the
 * lock (one at a time): the names answer meanwhile, and what the mount
 * adds and removes during it is kept in a journal and replayed on the
 * walk's result, so nothing the mount changes is lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <striped.h>

#include "clock.h"
#include "listing.h"
#include "walk.h"

void listing_init(struct listing *l)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->lock, NULL);
	pthread_mutex_init(&l->walk_lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	names_init(&l->names);
	names_init(&l->drafts);
	names_init(&l->hidden);
	names_init(&l->fresh_dirs);
	names_init(&l->listed_dirs);
	names_init(&l->wanted_dirs);
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
	names_clear(&l->names);
	journal_clear(l);
	free(l->journal);
	names_clear(&l->drafts);
	names_clear(&l->hidden);
	names_clear(&l->fresh_dirs);
	names_clear(&l->listed_dirs);
	names_clear(&l->wanted_dirs);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->walk_lock);
	pthread_mutex_destroy(&l->lock);
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

/* The journal, the drafts and the hidden names put on a walk's names; l->lock held. */
static int replay(struct listing *l, struct names *walked)
{
	int r = 0;

	for (size_t i = 0; !r && i < l->nj; i++) {
		if (l->journal[i].add)
			r = names_add(walked, l->journal[i].name);
		else
			names_remove(walked, l->journal[i].name);
	}
	for (size_t i = 0; !r && i < l->drafts.n; i++)
		r = names_add(walked, l->drafts.v[i]);
	for (size_t i = 0; !r && i < l->hidden.n; i++)
		names_remove(walked, l->hidden.v[i]);
	return r;
}

/* Walk, then take the result with this mount's changes since the walk began. */
static int walk_and_take(struct listing *l, rados_ioctx_t io)
{
	double began = clock_age_now();
	struct names walked;
	int r;

	names_init(&walked);
	pthread_mutex_lock(&l->lock);
	l->walking = true;
	pthread_mutex_unlock(&l->lock);
	r = walk_pool(io, &walked);
	pthread_mutex_lock(&l->lock);
	if (!r)
		r = replay(l, &walked);
	if (!r) {
		names_move(&l->names, &walked);
		l->walked = began;
	}
	names_clear(&walked);
	journal_clear(l);
	l->walking = false;
	pthread_mutex_unlock(&l->lock);
	return r;
}

static bool fresh(struct listing *l, double max_age)
{
	bool yes;

	pthread_mutex_lock(&l->lock);
	yes = l->walked && clock_age_now() - l->walked <= max_age;
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

static int refresh_scoped(struct listing *l, rados_ioctx_t io, const char *dir, double max_age,
			  bool one_level);

/* The directories asked for meanwhile listed again, one after another; l->lock held. */
static void refresh_wanted_dirs(struct listing *l)
{
	rados_ioctx_t io = l->io;
	double max_age = l->max_age;
	struct names dirs;

	names_init(&dirs);
	names_move(&dirs, &l->wanted_dirs);
	pthread_mutex_unlock(&l->lock);
	for (size_t i = 0; i < dirs.n; i++) /* failed: the next ask tries again */
		refresh_scoped(l, io, dirs.v[i], max_age, true);
	names_clear(&dirs);
	pthread_mutex_lock(&l->lock);
}

static void *walker_main(void *arg)
{
	struct listing *l = arg;
	rados_ioctx_t io;
	double max_age;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		while (!l->wanted && !l->wanted_dirs.n && !l->stop)
			pthread_cond_wait(&l->wake, &l->lock);
		if (l->stop)
			break;
		if (l->wanted_dirs.n)
			refresh_wanted_dirs(l);
		if (!l->wanted)
			continue;
		l->wanted = false;
		io = l->io;
		max_age = l->max_age;
		pthread_mutex_unlock(&l->lock);
		listing_refresh(l, io, max_age); /* failed: the next ask tries again */
		pthread_mutex_lock(&l->lock);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* The background walker woken for what it was asked (l->lock held). */
static int wake_walker(struct listing *l, rados_ioctx_t io, double max_age)
{
	int r = 0;

	l->io = io;
	l->max_age = max_age;
	if (!l->walker_started)
		r = -pthread_create(&l->walker, NULL, walker_main, l);
	l->walker_started |= !r;
	pthread_cond_signal(&l->wake);
	return r;
}

int listing_refresh_async(struct listing *l, rados_ioctx_t io, double max_age)
{
	int r = 0;

	pthread_mutex_lock(&l->lock);
	if (!l->walked) {
		pthread_mutex_unlock(&l->lock);
		return listing_refresh(l, io, max_age);
	}
	if (clock_age_now() - l->walked > max_age && !l->stop) {
		l->wanted = true;
		r = wake_walker(l, io, max_age);
	}
	pthread_mutex_unlock(&l->lock);
	return r;
}

/* ---- a pool with a namespace index: a directory at a time ---- */

/*
 * Whether the pool has an index that is ready: asked at most every
 * STRIPED_INDEX_NOTICE_S, whatever cache_time (0 too), as long as the
 * library promises its clients to notice an index made or dropped.
 */
static bool pool_indexed(struct listing *l, rados_ioctx_t io)
{
	bool ask, yes;

	pthread_mutex_lock(&l->lock);
	ask = !l->index_asked || clock_age_now() - l->index_asked > STRIPED_INDEX_NOTICE_S;
	yes = l->indexed;
	pthread_mutex_unlock(&l->lock);
	if (ask) {
		yes = walk_pool_indexed(io);
		pthread_mutex_lock(&l->lock);
		l->indexed = yes;
		l->index_asked = clock_age_now();
		pthread_mutex_unlock(&l->lock);
	}
	return yes;
}

/* Whether dir was listed in this epoch; an epoch older than max_age forgets all. */
static bool dir_fresh(struct listing *l, const char *dir, double max_age)
{
	bool yes;

	pthread_mutex_lock(&l->lock);
	if (clock_age_now() - l->epoch > max_age) {
		names_clear(&l->fresh_dirs);
		l->epoch = clock_age_now();
	}
	yes = names_contains(&l->fresh_dirs, dir);
	pthread_mutex_unlock(&l->lock);
	return yes;
}

/* List dir, then take what it found in place of what the names held of it. */
static int list_dir_and_take(struct listing *l, rados_ioctx_t io, const char *dir, bool one_level)
{
	struct names got;
	int r;

	names_init(&got);
	pthread_mutex_lock(&l->lock);
	l->walking = true;
	pthread_mutex_unlock(&l->lock);
	r = walk_dir(io, dir, one_level, &got);
	pthread_mutex_lock(&l->lock);
	if (!r)
		r = names_replace(&l->names, dir, one_level, &got);
	if (!r)
		r = replay(l, &l->names);
	if (!r && one_level)
		r = names_add(&l->fresh_dirs, dir);
	if (!r && one_level && !names_contains(&l->listed_dirs, dir))
		r = names_add(&l->listed_dirs, dir);
	names_clear(&got);
	journal_clear(l);
	l->walking = false;
	pthread_mutex_unlock(&l->lock);
	return r;
}

static int refresh_scoped(struct listing *l, rados_ioctx_t io, const char *dir, double max_age,
			  bool one_level)
{
	int r = 0;

	if (!pool_indexed(l, io))
		return listing_refresh(l, io, max_age);
	pthread_mutex_lock(&l->walk_lock);
	if (!one_level || !dir_fresh(l, dir, max_age))
		r = list_dir_and_take(l, io, dir, one_level);
	pthread_mutex_unlock(&l->walk_lock);
	return r;
}

int listing_refresh_dir(struct listing *l, rados_ioctx_t io, const char *dir, double max_age)
{
	return refresh_scoped(l, io, dir, max_age, true);
}

int listing_refresh_tree(struct listing *l, rados_ioctx_t io, const char *dir, double max_age)
{
	return refresh_scoped(l, io, dir, max_age, false);
}

/*
 * A directory listed once and stale now listed again in the background
 * (its names answer as they are meanwhile, as the walk's do): 1 when so
 * asked, 0 when it must be listed now (never listed), or an errno.
 */
static int dir_in_background(struct listing *l, rados_ioctx_t io, const char *dir,
			     double max_age)
{
	int r = 0;

	pthread_mutex_lock(&l->lock);
	if (names_contains(&l->listed_dirs, dir) && !l->stop) {
		r = names_contains(&l->wanted_dirs, dir) ? 0 : names_add(&l->wanted_dirs, dir);
		if (!r)
			r = wake_walker(l, io, max_age);
		r = r ? r : 1;
	}
	pthread_mutex_unlock(&l->lock);
	return r;
}

int listing_refresh_dir_async(struct listing *l, rados_ioctx_t io, const char *dir,
			      double max_age)
{
	int r;

	if (!pool_indexed(l, io))
		return listing_refresh_async(l, io, max_age);
	if (dir_fresh(l, dir, max_age))
		return 0;
	r = dir_in_background(l, io, dir, max_age);
	return r == 1 ? 0 : r ? r : listing_refresh_dir(l, io, dir, max_age);
}

/* The directory path is in ("" for the root's names), malloc'd. */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strndup(path, slash ? (size_t)(slash - path) : 0);
}

int listing_refresh_parent(struct listing *l, rados_ioctx_t io, const char *path, double max_age,
			   bool wait)
{
	char *parent = parent_of(path);
	int r;

	if (!parent)
		return -ENOMEM;
	r = wait ? listing_refresh_dir(l, io, parent, max_age)
		 : listing_refresh_dir_async(l, io, parent, max_age);
	free(parent);
	return r;
}

bool listing_knows_dir(struct listing *l, const char *dir)
{
	bool yes;

	pthread_mutex_lock(&l->lock);
	yes = !l->indexed || names_contains(&l->fresh_dirs, dir);
	pthread_mutex_unlock(&l->lock);
	return yes;
}

bool listing_dir_exists(struct listing *l, const char *dir)
{
	bool yes;

	pthread_mutex_lock(&l->lock);
	/* an index lists a directory with no marker under the marker's name */
	yes = l->indexed ? names_is_dir(&l->names, dir) : names_has_children(&l->names, dir);
	pthread_mutex_unlock(&l->lock);
	return yes;
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
	int r;

	pthread_mutex_lock(&l->lock);
	r = names_add(&l->names, name);
	if (!r)
		r = journal_add(l, name, true);
	pthread_mutex_unlock(&l->lock);
	return r;
}

int listing_dir_made(struct listing *l, const char *dir)
{
	int r = 0;

	pthread_mutex_lock(&l->lock);
	if (l->indexed && !names_contains(&l->fresh_dirs, dir))
		r = names_add(&l->fresh_dirs, dir);
	if (!r && l->indexed && !names_contains(&l->listed_dirs, dir))
		r = names_add(&l->listed_dirs, dir);
	pthread_mutex_unlock(&l->lock);
	return r;
}

int listing_add_draft(struct listing *l, const char *name)
{
	int r;

	pthread_mutex_lock(&l->lock);
	r = names_add(&l->drafts, name);
	pthread_mutex_unlock(&l->lock);
	return r ? r : listing_add(l, name);
}

void listing_draft_made(struct listing *l, const char *name)
{
	pthread_mutex_lock(&l->lock);
	names_remove(&l->drafts, name);
	pthread_mutex_unlock(&l->lock);
}

void listing_remove(struct listing *l, const char *name)
{
	pthread_mutex_lock(&l->lock);
	names_remove(&l->drafts, name);
	names_remove(&l->names, name);
	journal_add(l, name, false); /* no memory: the next walk sets it right */
	pthread_mutex_unlock(&l->lock);
}

int listing_hide(struct listing *l, const char *name)
{
	int r;

	pthread_mutex_lock(&l->lock);
	r = names_add(&l->hidden, name);
	if (!r) {
		names_remove(&l->names, name);
		journal_add(l, name, false); /* no memory: the hidden set still hides it */
	}
	pthread_mutex_unlock(&l->lock);
	return r;
}

void listing_unhide(struct listing *l, const char *name)
{
	pthread_mutex_lock(&l->lock);
	names_remove(&l->hidden, name);
	pthread_mutex_unlock(&l->lock);
}

bool listing_is_hidden(struct listing *l, const char *name)
{
	bool yes;

	pthread_mutex_lock(&l->lock);
	yes = names_contains(&l->hidden, name);
	pthread_mutex_unlock(&l->lock);
	return yes;
}

bool listing_is_dir(struct listing *l, const char *dir)
{
	bool yes;

	pthread_mutex_lock(&l->lock);
	yes = names_is_dir(&l->names, dir);
	pthread_mutex_unlock(&l->lock);
	return yes;
}

bool listing_has_children(struct listing *l, const char *dir)
{
	bool yes;

	pthread_mutex_lock(&l->lock);
	yes = names_has_children(&l->names, dir);
	pthread_mutex_unlock(&l->lock);
	return yes;
}

long listing_children(struct listing *l, const char *dir, struct dentry **out)
{
	long n;

	pthread_mutex_lock(&l->lock);
	n = names_children(&l->names, dir, out);
	pthread_mutex_unlock(&l->lock);
	return n;
}

long listing_with_prefix(struct listing *l, const char *prefix, char ***out)
{
	long n;

	pthread_mutex_lock(&l->lock);
	n = names_with_prefix(&l->names, prefix, out);
	pthread_mutex_unlock(&l->lock);
	return n;
}

long listing_subdirs(struct listing *l, const char *dir)
{
	long n;

	pthread_mutex_lock(&l->lock);
	n = names_subdirs(&l->names, dir);
	pthread_mutex_unlock(&l->lock);
	return n;
}
