/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The names of the pool's striped files, from a walk of its object names
 * (RADOS keeps no index: a head is an object named NAME.0000000000000000),
 * kept sorted so that a directory is a range of them. A walk is at most
 * max_age old when asked for; the mount's own creates and removes change
 * the kept names at once, so this mount sees them without a walk. No object
 * is read here: whether a head is a striped file is the attributes' concern.
 */
#ifndef MOUNT_LISTING_H
#define MOUNT_LISTING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <rados/librados.h>

struct listing {
	pthread_mutex_t lock;
	char **names; /* sorted by strcmp; each malloc'ed */
	size_t n, cap;
	double walked; /* when the last walk began (CLOCK_MONOTONIC seconds); 0: never */
};

/* An entry of a directory. */
struct dentry {
	char *name; /* the component */
	bool is_dir;
};

void listing_init(struct listing *l);
void listing_destroy(struct listing *l);

/* Walk the pool again when the names are older than max_age seconds. */
int listing_refresh(struct listing *l, rados_ioctx_t io, double max_age);

/* A name made or removed by this mount (a file, or a marker "DIR/"). */
int listing_add(struct listing *l, const char *name);
void listing_remove(struct listing *l, const char *name);

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
