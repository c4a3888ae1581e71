/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's inodes: one node for each path the kernel looked up, found
 * by number and by path. node.c alone counts and frees them: every call
 * that finds or makes a node returns a counted reference (node_put() it),
 * the kernel's lookups are counted apart (FUSE's nlookup), and a node is
 * freed once neither holds it. rename moves a path (a directory's nodes
 * below it with it); unlink detaches it, so that a new file of the same
 * name is a new node.
 *
 * Inode numbers last as the file does, where the file says who it is: a
 * node is made with the number its head gives (mount.ino, else striper.id:
 * core/mattr.h), so a file keeps its st_ino across the kernel forgetting
 * it, a rename (which carries mount.ino) and a remount; files without one
 * (libradosstriper's, directories without a marker) get one from a
 * counter, for as long as the node lives. Pure: no round trip.
 */
#ifndef MOUNT_NODE_H
#define MOUNT_NODE_H

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "node_attr.h"
#include "node_file.h"

struct node {
	/* fixed while the node lives */
	fuse_ino_t ino;
	bool is_dir;
	/* under nodes.lock */
	char *path;    /* "" for the root; kept when detached (what its handle names) */
	bool detached; /* unlinked or replaced: no longer found by path */
	uint64_t nlookup; /* the kernel's lookups */
	uint64_t refs;	  /* the daemon's references */
	struct node *next_ino, *next_path;
	/* atomic: every change made here to its name, data or attributes (older readings are stale) */
	_Atomic uint64_t changes;
	/* the lock of the parts below (as their headers say) */
	pthread_mutex_t lock;
	struct node_file file; /* fs/open.c's */
	struct node_attr attr; /* fs/attr.c's */
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

/* The node of ino, a reference counted, or NULL. */
struct node *node_get(struct nodes *t, fuse_ino_t ino);

/* The node found at path now, a reference counted, or NULL. */
struct node *node_at(struct nodes *t, const char *path);

/*
 * The node of path, a reference counted: the one there, or a new one (with
 * inode number ino when ino is not 0 and free). One there of the other kind
 * (file, directory), or with another number than a non-zero ino (another
 * file of that name), is detached and a new one made, unless the daemon
 * holds it (an open of it, a request on it): then it stays as it is.
 * @return the node, or NULL for -ENOMEM
 */
struct node *node_make(struct nodes *t, const char *path, bool is_dir, uint64_t ino);

/* One more reference of n; node_put() drops one (NULL is ignored). */
void node_hold(struct nodes *t, struct node *n);
void node_put(struct nodes *t, struct node *n);

/* The kernel was given n (an entry reply): a lookup counted. */
void node_kernel_ref(struct nodes *t, struct node *n);
/* The kernel forgets count lookups of ino. */
void node_forget(struct nodes *t, fuse_ino_t ino, uint64_t count);

/* A copy of n's path (free it), or NULL for -ENOMEM. */
char *node_path(struct nodes *t, const struct node *n);
bool node_detached(struct nodes *t, const struct node *n);

/* Path from is now to (a directory's nodes below it with it); any node at to is detached. */
int node_rename(struct nodes *t, const char *from, const char *to);
/* The node at path (if any) no longer has a name. */
void node_detach(struct nodes *t, const char *path);

/*
 * Up to max nodes below directory dir (not detached) for which want() says
 * yes (called under the table's lock), each a reference counted.
 */
size_t node_below(struct nodes *t, const char *dir, bool (*want)(const struct node *n),
		  struct node **out, size_t max);

/*
 * n's own lock: its file and attribute parts are under it (taken before the
 * table's, never while holding it).
 */
void node_lock(struct node *n);
void node_unlock(struct node *n);

/* A change made here to n; the count of them. */
void node_changed(struct node *n);
uint64_t node_changes(const struct node *n);

#endif /* MOUNT_NODE_H */
