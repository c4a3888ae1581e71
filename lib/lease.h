/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lease.c: the lock a handle holds, its watch, identity and layout */
#ifndef STRIPED_LEASE_H
#define STRIPED_LEASE_H

#include "meta.h"
#include "size.h"

/* How long a handle with no call in flight keeps its lock before letting go unasked. */
#define LEASE_IDLE_SECONDS_DEFAULT 1

struct lease {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	rados_ioctx_t io;
	const char *oid; /* the head object's name */
	char cookie[COOKIE_MAX];
	uint64_t idle_ns;    /* let go after this long without a call */
	uint64_t epoch;	     /* bumped by every acquisition */
	bool held;	     /* taken and not let go of */
	bool lost;	     /* the watch broke while held: the lock may have been broken */
	bool acquiring;	     /* a submitter is taking it back */
	bool releasing;	     /* the idler is letting go of it */
	bool release_wanted; /* another client asked for it: let go once no call is in flight */
	bool reacquire_wanted; /* a NOWAIT call was refused: the idler takes it back */
	uint64_t handed_over_ns; /* when it was last let go of on request (0: not) */
	bool stale;	     /* the file was removed (or re-created): every call fails */
	bool unleased;	     /* opened by a client that may not write: no lock, reads only */
	rados_ioctx_t wio;   /* the watch's I/O context (head_watch_ioctx) */
	bool watching;	     /* watch_handle is a watch on the head */
	bool watch_broken;   /* its error callback ran: watch again before the next lock */
	uint64_t watch_handle;
	uint64_t active;     /* calls in flight: the lock is kept while > 0 */
	uint64_t timeouts;   /* round trips on the head (the lock, head calls) that timed out */
	uint64_t used_ns;    /* when the last call began or ended */
	uint64_t granted_ns; /* when the lock was last taken */
	uint64_t id;
	struct striped_layout layout;
	/* size.c */
	struct grow_queue size; /* striper.size */
	struct grow_queue mark; /* striper.reserved: no data lies past max(size, mark) */
	/* regions.c */
	uint64_t *regions;   /* regions known registered, sorted */
	size_t nregions;
	/* Called (from a watch callback: it must not wait) when another client asks for the lock. */
	void (*asked)(void *arg);
	void *asked_arg;
	struct lease *next;  /* the idler's list */
	unsigned refs;	     /* the file's: its user, its calls, a release in flight */
	void (*release)(struct lease *ls); /* frees the file once refs fall to 0 */
};

int lease_open(struct lease *ls, rados_ioctx_t io, const char *oid, int flags,
	       const struct striped_layout *create_layout, void (*release)(struct lease *));
void lease_release(struct lease *ls, bool wait);
void lease_stop(struct lease *ls);
/* Close; hurry: the cluster did not answer meanwhile, let go without waiting for it. */
void lease_close(struct lease *ls, bool hurry);
/* How many round trips on the head timed out (lock, size and mark updates, head calls). */
uint64_t lease_timeouts(struct lease *ls);
/*
 * One more round trip on the head timed out (a head call, the handle's own
 * truncate): calls waiting on the lease give up.
 */
void lease_timed_out(struct lease *ls);

void lease_get(struct lease *ls);
void lease_put(struct lease *ls);
void lease_set_idle(struct lease *ls, uint32_t seconds);
/*
 * lease_enter's flags: refuse rather than wait; the call changes the file;
 * enter while the lock is being asked for (a buffered handle's write-behind,
 * sent before it lets go).
 */
#define LEASE_NOWAIT 0x1
#define LEASE_CHANGES 0x2
#define LEASE_DRAIN 0x4
int lease_enter(struct lease *ls, unsigned flags, uint64_t *epoch);
uint64_t lease_granted_ns(struct lease *ls);
int lease_confirm(struct lease *ls);
void lease_exit(struct lease *ls);
bool lease_covered(struct lease *ls, uint64_t epoch);
int lease_reacquire(struct lease *ls);
bool lease_cookie_open(const char *cookie);

#endif /* STRIPED_LEASE_H */
