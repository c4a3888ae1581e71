/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pool's names as this mount knows them: a pool walk (store/walk.h)
 * at most max_age old when asked for (listing_refresh), or a walk started
 * in the background while the names answer as they are
 * (listing_refresh_async: lookups, which a walk of 32 placement groups,
 * 200 ms on a busy host one after another, held up once a second); before
 * the first walk there are no names to answer with, so that one runs in
 * the caller, a lookup too. The
 * mount's own creates and removes change the names at once, also while a
 * walk runs (they are replayed on its result), so this mount sees them
 * without a walk; drafts (core/draft.h), which no walk can find, are put
 * back into every walk's result until they are made.
 */
#ifndef MOUNT_LISTING_H
#define MOUNT_LISTING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <rados/librados.h>

#include "names.h"

/* A name this mount made (add) or removed while a walk ran. */
struct listing_change {
	char *name;
	bool add;
};

struct listing {
	pthread_mutex_t lock;	 /* everything below but walk_lock */
	struct names names;	 /* the pool's, with this mount's changes */
	double walked;		 /* when the last walk began (clock_age_now()); 0: never */
	pthread_mutex_t walk_lock; /* one walk at a time */
	bool walking;		   /* changes go to the journal too */
	struct listing_change *journal;
	size_t nj, capj;
	struct names drafts; /* this mount's drafts: every walk's result gets them */
	struct names hidden; /* files unlinked here while open: no walk's result shows them */
	/* the background walker: started at the first listing_refresh_async */
	pthread_t walker;
	pthread_cond_t wake;
	bool walker_started, wanted, stop;
	rados_ioctx_t io;
	double max_age;
	/*
	 * A pool with a namespace index is listed a directory at a time: the
	 * directories listed since `epoch` (at most max_age ago) are fresh.
	 */
	bool indexed;
	double index_asked; /* when the pool was last asked whether it has one (every 5 s); 0: never */
	struct names fresh_dirs;
	double epoch;
	/* directories listed once: a stale one is listed again in the background */
	struct names listed_dirs;
	struct names wanted_dirs; /* the background walker's next directories */
};

void listing_init(struct listing *l);
/* The background walker ends (before the cluster connection goes). */
void listing_stop(struct listing *l);
void listing_destroy(struct listing *l);

/* Walk the pool again when the names are older than max_age seconds. */
int listing_refresh(struct listing *l, rados_ioctx_t io, double max_age);

/*
 * The same without waiting, once the pool was walked: names older than
 * max_age get a walk in the background; until it ends they answer as they
 * are. The first time, it walks as listing_refresh.
 */
int listing_refresh_async(struct listing *l, rados_ioctx_t io, double max_age);

/*
 * The names of one directory (dir: "" the root, no trailing '/') at most
 * max_age old: on a pool with a namespace index, one level of dir listed
 * (its files, its directories' own names "dir/sub/"), or (tree) every name
 * below it; without one, listing_refresh().
 */
int listing_refresh_dir(struct listing *l, rados_ioctx_t io, const char *dir, double max_age);
int listing_refresh_tree(struct listing *l, rados_ioctx_t io, const char *dir, double max_age);
/*
 * Without waiting, as listing_refresh_async(): on a pool with an index, a
 * directory listed before and older than max_age is listed again in the
 * background (the lookups of a program making files one after another
 * waited for a listing of their directory once per max_age); one never
 * listed is listed now. Without an index, listing_refresh_async().
 */
int listing_refresh_dir_async(struct listing *l, rados_ioctx_t io, const char *dir,
			      double max_age);

/* listing_refresh_dir() (wait) or _async() of the directory path is in. */
int listing_refresh_parent(struct listing *l, rados_ioctx_t io, const char *path, double max_age,
			   bool wait);
/* Whether dir's names below it are known: the pool has no index, or dir was listed. */
bool listing_knows_dir(struct listing *l, const char *dir);
/*
 * Whether a directory dir exists by the names alone, its marker's read
 * aside: names below it; with an index, also its own name as its parent's
 * listing gave it.
 */
bool listing_dir_exists(struct listing *l, const char *dir);

/* A name made or removed by this mount (a file, or a marker "DIR/"). */
int listing_add(struct listing *l, const char *name);
/*
 * A directory this mount made (its marker new): on a pool with an index,
 * known empty as if listed now, so that the lookups of the names made in
 * it next do not list it first (another client's files in it show once
 * it is older than max_age, as in any listing).
 */
int listing_dir_made(struct listing *l, const char *dir);
void listing_remove(struct listing *l, const char *name);
/*
 * A draft's name: listing_add() that stays over every walk until
 * listing_draft_made() (it is on RADOS now) or listing_remove().
 */
int listing_add_draft(struct listing *l, const char *name);
void listing_draft_made(struct listing *l, const char *name);

/* A name no listing shows until listing_unhide() (a file unlinked here while open). */
int listing_hide(struct listing *l, const char *name);
void listing_unhide(struct listing *l, const char *name);
bool listing_is_hidden(struct listing *l, const char *name);

/* The questions of core/names.h, on the names as they are now. */
bool listing_is_dir(struct listing *l, const char *dir);
bool listing_has_children(struct listing *l, const char *dir);
long listing_children(struct listing *l, const char *dir, struct dentry **out);
long listing_with_prefix(struct listing *l, const char *prefix, char ***out);
/* How many directories dir holds (names go on below them). */
long listing_subdirs(struct listing *l, const char *dir);

#endif /* MOUNT_LISTING_H */
