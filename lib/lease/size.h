/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * size.c: the size and the high-water mark a handle knows, and the updates
 * of both its growing writes send: an object of its own, with its own lock.
 */
#ifndef STRIPED_SIZE_H
#define STRIPED_SIZE_H

#include "striped_i.h"

struct file_size;

/*
 * A growing write waiting for a stored size of at least `want`: stored() is
 * called once, with 0 or -errno, from a librados callback or from
 * size_grow_async() itself. `sent_update` tells whether this waiter's call
 * sent the update (it counts the operation); the others shared it.
 */
struct size_waiter;
typedef void (*size_stored_fn)(struct size_waiter *w, int r);

struct size_waiter {
	uint64_t want;
	size_stored_fn stored;
	bool sent_update;
	struct size_waiter *next;
};

/* Writes waiting together for one update not sent yet. */
struct size_group {
	uint64_t want;
	struct size_waiter *waiters;
};

/*
 * Updates of one stored value in flight at once. The updates all go to the
 * head object, whose OSD applies them one after another: a second one on
 * the wire only queues there, and the writes it carries wait for both. With
 * one in flight, the writes made meanwhile gather and share the next one.
 * Sequential growing writes, paired runs of 4 and 1 on the sandbox (MiB/s):
 * 64 KiB x 8 (XrdCeph's pattern) 48-55 -> 103-113; 1 MiB x 16 308-723 ->
 * 537-736; 4 MiB x 4 418-592 -> 454-752; at +4 ms round trips they were
 * alike within the noise (the runs of 4 once had sent their own at once,
 * not behind another's round trip, 15% faster there on a quieter host).
 */
#define GROW_UPDATES_IN_FLIGHT 1

/* One update on the wire and the writes it lets go; free while it has none. */
struct grow_update {
	struct grow_queue *q;
	uint64_t gen;	   /* bumped at each use: tells this use from a later one */
	uint64_t target;   /* the value it stores */
	struct size_waiter *waiters;
	rados_completion_t rc; /* as librados has it, for size_grow_cancel() */
	bool on_wire;	   /* rc was submitted: cancelling it means something */
	int cancel_r;	   /* why it was cancelled, 0 if it was not */
};

/*
 * A stored value that only grows while the shared lock is held (the size,
 * or the high-water mark), what the handle knows of it, and its updates:
 * up to GROW_UPDATES_IN_FLIGHT on the wire, the waiters past them gathered
 * for the next.
 */
struct grow_queue {
	struct file_size *s;
	const char *xattr; /* XATTR_SIZE or XATTR_RESERVED */
	bool ahead;	   /* the mark: an update goes far past what its waiters need */
	int flags;	   /* librados flags of its updates */
	uint64_t known;	   /* a lower bound of the stored value while the lock is held */
	uint64_t timeouts; /* updates that timed out */
	struct grow_update updates[GROW_UPDATES_IN_FLIGHT];
	struct size_group next;
};

/* The size (striper.size) and the mark (striper.reserved) of one open file, on its head. */
struct file_size {
	pthread_mutex_t lock;
	rados_ioctx_t io;
	const char *oid; /* the head object's name */
	struct grow_queue size;
	struct grow_queue mark; /* no data lies past max(size, mark) */
};

int size_init(struct file_size *s, rados_ioctx_t io, const char *oid);
void size_destroy(struct file_size *s);
/* The lock was taken (again): the size and the mark as the head says them now. */
void size_reset(struct file_size *s, uint64_t size, uint64_t mark);
uint64_t size_known(struct file_size *s);
void size_learn(struct file_size *s, uint64_t size);
/* Before data past the mark is sent: the mark is raised ahead of end (mark_target). */
bool mark_covers(struct file_size *s, uint64_t end);
int mark_grow(struct file_size *s, uint64_t end);
/* Raise the mark ahead of want, or share a raise, never waiting: stored(w, 0 or -errno) then. */
void mark_grow_async(struct file_size *s, struct size_waiter *w, uint64_t want,
		     size_stored_fn stored);
/* Beside a growing write's data: the size is raised to want (or shares a raise); then stored(). */
void size_grow_async(struct file_size *s, struct size_waiter *w, uint64_t want,
		     size_stored_fn stored);
/* w's data was refused for want of space (reason): its size update must not land. */
void size_grow_cancel(struct file_size *s, struct size_waiter *w, int reason);
/* Whether an append of len at off may be claimed: 0, or why not (-errno). */
typedef int (*append_check_fn)(void *arg, uint64_t off, uint64_t len);
int size_append_reserve(struct file_size *s, uint64_t len, uint64_t *off, append_check_fn check,
			void *arg);
/* Size and mark updates that timed out (the handle counts them with the lease's own). */
uint64_t size_timeouts(struct file_size *s);

#endif /* STRIPED_SIZE_H */
