/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's inodes: a number for each path the kernel looked up, kept
 * while the kernel holds a lookup of it (FUSE's nlookup) or the file is
 * open here. A node is found by number and by path; rename moves the path
 * (of a directory's nodes below it too), unlink detaches it, so that a new
 * file of the same name is a new node. The open file's state (its
 * libstriped handle, shared by every open of the node) is the file
 * operations' (ops_file.c), under the node's own lock.
 */
#ifndef MOUNT_NODE_H
#define MOUNT_NODE_H

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "attrs.h"

struct ofile;

struct node {
	fuse_ino_t ino;
	char *path; /* "" for the root; under nodes.lock */
	uint64_t nlookup;
	bool is_dir;
	bool detached; /* unlinked or renamed over: no longer found by path */
	struct node *next_ino, *next_path;

	pthread_mutex_t lock; /* of and opens */
	struct ofile *of;     /* the open handle, NULL while closed */
	int opens;
	/* set by write completions too, which must not wait for the lock */
	atomic_bool written;	 /* data changed since the last close: store mtime */
	_Atomic int64_t mtime_ns; /* while open and written: of the last change */
	_Atomic uint64_t seen_size; /* the size last given to the kernel (UINT64_MAX: none) */
	/* every change made here to its name, data or attributes: older reads of them are stale */
	_Atomic uint64_t changes;
	/* a new file kept in the daemon, not made on RADOS yet (ops_file.c, pending.c) */
	atomic_bool kept;
	/*
	 * Its head as last read (a stat, lookup or listing; with seen_size):
	 * an unlink removes it as read, in one operation that checks it still
	 * is (node_seen_head()). Fields of two readings mixed only fail that check.
	 */
	_Atomic uint64_t seen_su, seen_sc, seen_os, seen_id, seen_reserved;
	/*
	 * Under lock: a file's read-only open's reading of its head, for the
	 * GETATTR after it (ops_file.c); a directory's attributes last read
	 * (ops_dir.c).
	 */
	struct mattr open_attrs;
	double open_attrs_at; /* when read (listing_now()); 0: none */
	uint64_t open_attrs_changes;
};

struct nodes {
	pthread_mutex_t lock;
	struct node **by_ino, **by_path;
	size_t nbuckets;
	fuse_ino_t next_ino;
	struct node *root;
};

int nodes_init(struct nodes *t);
void nodes_destroy(struct nodes *t);

/* The node of ino, or NULL. The kernel's lookup of it keeps it. */
struct node *node_get(struct nodes *t, fuse_ino_t ino);

/* The node of path (made when new), its lookups raised by count. NULL: -ENOMEM. */
struct node *node_lookup(struct nodes *t, const char *path, bool is_dir, uint64_t count);

/* The node of path if there is one (no lookup counted). */
struct node *node_find(struct nodes *t, const char *path);

/* The node of path if it keeps a new file (kept), one lookup counted: node_forget() it. */
struct node *node_find_kept(struct nodes *t, const char *path);
/* The node of path if there is one, one lookup counted: node_forget() it. */
struct node *node_find_ref(struct nodes *t, const char *path);

/* Keep a's reading of n's head (a file's; a reading without a layout is none). */
void node_saw_head(struct node *n, const struct mattr *a);
/* The head as last read, for striped_head_remove(): false when none was. */
bool node_seen_head(struct node *n, struct striped_head *h);
/* Up to max nodes below directory dir that keep a new file, each as node_find_kept(). */
size_t node_kept_below(struct nodes *t, const char *dir, struct node **out, size_t max);

/* The kernel forgets count lookups of ino. */
void node_forget(struct nodes *t, fuse_ino_t ino, uint64_t count);

/* A copy of n's path (free it), or NULL for -ENOMEM. */
char *node_path(struct nodes *t, const struct node *n);

/* Path from is now to (a directory's nodes below it with it); any node at to is detached. */
int node_rename(struct nodes *t, const char *from, const char *to);

/* The node at path (if any) no longer has a name. */
void node_detach(struct nodes *t, const char *path);

/*
 * Under n->lock: keep a reading of n's attributes (a), made at time at
 * (listing_now()) when n's count of changes was changes.
 */
void node_keep_attrs_locked(struct node *n, const struct mattr *a, double at, uint64_t changes);
/*
 * Under n->lock: the kept reading into *a, when one is kept, younger than
 * max_age at now and nothing changed n here since; false if not.
 */
bool node_kept_attrs_locked(const struct node *n, double now, double max_age, struct mattr *a);

/* Whether n may be freed (no lookup, not open); called with t->lock held. */
void node_release_if_unused(struct nodes *t, struct node *n);

#endif /* MOUNT_NODE_H */
