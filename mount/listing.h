/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The names of the pool's striped files, from a walk of its object names
 * (RADOS keeps no index: a head is an object named NAME.0000000000000000),
 * kept sorted so that a directory is a range of them. A walk is at most
 * max_age old when asked for (listing_refresh), or a walk is started in the
 * background and the names answer as they are meanwhile
 * (listing_refresh_async: lookups, which a walk of 32 placement groups one
 * after another, 200 ms on a busy host, held up once a second). The
 * mount's own creates and removes change the kept names at once, also
 * while a walk runs (they are replayed on its result), so this mount sees
 * them without a walk. No object is read here: whether a head is a striped
 * file is the attributes' concern.
 */
#ifndef MOUNT_LISTING_H
#define MOUNT_LISTING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <rados/librados.h>

/* A name this mount made (add) or removed while a walk ran. */
struct listing_change {
	char *name;
	bool add;
};

struct listing {
	pthread_mutex_t lock; /* the names, the journal, the walker's state */
	char **names;	      /* sorted by strcmp; each malloc'ed */
	size_t n, cap;
	double walked; /* when the last walk began (CLOCK_MONOTONIC seconds); 0: never */
	pthread_mutex_t walk_lock; /* one walk at a time */
	bool walking;		   /* changes go to the journal too */
	struct listing_change *journal;
	size_t nj, capj;
	/* files this mount made that are not on RADOS yet: every walk's result gets them */
	char **kept;
	size_t nk, capk;
	/* the background walker: started at the first listing_refresh_async */
	pthread_t walker;
	pthread_cond_t wake;
	bool walker_started, wanted, stop;
	rados_ioctx_t io;
	double max_age;
};

/* An entry of a directory. */
struct dentry {
	char *name; /* the component */
	bool is_dir;
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

/* A name made or removed by this mount (a file, or a marker "DIR/"). */
int listing_add(struct listing *l, const char *name);
void listing_remove(struct listing *l, const char *name);
/*
 * A new file this mount keeps, not on RADOS yet (a walk cannot find it):
 * listing_add() that stays over every walk until listing_unkeep() (it is
 * on RADOS now) or listing_remove().
 */
int listing_keep(struct listing *l, const char *name);
void listing_unkeep(struct listing *l, const char *name);

/* Whether dir (no trailing slash; "" the root) has a name below it. */
bool listing_is_dir(struct listing *l, const char *dir);

/* Whether any name below dir other than its marker "dir/" exists. */
bool listing_has_children(struct listing *l, const char *dir);

/*
 * The entries of dir: each component once, a directory when names go on
 * below it. Names with an empty component below dir are skipped.
 * @return how many (*out malloc'ed, free with dentries_free), or -ENOMEM
 */
long listing_children(struct listing *l, const char *dir, struct dentry **out);
void dentries_free(struct dentry *d, long n);

/* Every name that begins with prefix (for a directory's rename), copied. */
long listing_with_prefix(struct listing *l, const char *prefix, char ***out);

/* Whether oid is a head object's name ("NAME.0000000000000000", NAME not empty). Pure. */
bool listing_is_head(const char *oid, size_t *name_len);

/* CLOCK_MONOTONIC in seconds. */
double listing_now(void);

#endif /* MOUNT_LISTING_H */
