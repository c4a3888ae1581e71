/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lease.c: the lock a handle holds, its watch, identity and layout */
#ifndef STRIPED_LEASE_H
#define STRIPED_LEASE_H

#include "cls_lock.h"
#include "cookie.h"
#include "meta.h"

/*
 * The lease's owner (the handle): what the lease tells it, and the
 * reference the lease's idler holds on it while it works on the lease (the
 * owner frees the lease with itself).
 */
struct lease_owner {
	/*
	 * The lock was taken (at open, or back): the head as read under it, for
	 * the owner to take what it keeps (the size and mark, the regions).
	 * Called under the lease's lock: it must not wait, nor call the lease.
	 */
	void (*granted)(void *arg, struct head_meta *m);
	void (*hold)(void *arg);
	void (*drop)(void *arg); /* may free the owner, and the lease with it */
	void *arg;
};

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
	struct lease_owner owner;
	/* Called (from a watch callback: it must not wait) when another client asks for the lock. */
	void (*asked)(void *arg);
	void *asked_arg;
	struct lease *next;  /* the idler's list */
};

int lease_open(struct lease *ls, rados_ioctx_t io, const char *oid, int flags,
	       const struct striped_layout *create_layout, const struct lease_owner *owner);
/* asked(arg) is called (from a watch callback: it must not wait) when another client asks. */
void lease_on_asked(struct lease *ls, void (*asked)(void *arg), void *arg);
void lease_release(struct lease *ls, bool wait);
void lease_stop(struct lease *ls);
/* Close; hurry: the cluster did not answer meanwhile, let go without waiting for it. */
void lease_close(struct lease *ls, bool hurry);
/* The owner's last reference is gone: a lock still held is let go of, not waited for. */
void lease_destroy(struct lease *ls);
/* How many round trips on the head timed out (the lock, head calls). */
uint64_t lease_timeouts(struct lease *ls);
/*
 * One more round trip on the head timed out (a head call, the handle's own
 * truncate): calls waiting on the lease give up.
 */
void lease_timed_out(struct lease *ls);
void lease_set_idle(struct lease *ls, uint32_t seconds);
/*
 * lease_enter's flags: refuse rather than wait; the call changes the file;
 * the call is part of handing the lock over (what must land before it
 * goes): it enters while another client asks for the lock, as long as the
 * lock is still held.
 */
#define LEASE_NOWAIT 0x1
#define LEASE_CHANGES 0x2
#define LEASE_HANDOVER 0x4
int lease_enter(struct lease *ls, unsigned flags, uint64_t *epoch);
uint64_t lease_granted_ns(struct lease *ls);
int lease_confirm(struct lease *ls);
void lease_exit(struct lease *ls);
bool lease_covered(struct lease *ls, uint64_t epoch);
int lease_reacquire(struct lease *ls);
bool lease_cookie_open(const char *cookie);
/* The layout of the file the lock is on (as its head said when the lease was opened). */
const struct striped_layout *lease_layout(const struct lease *ls);
/* Whether head m is still the file the lock is on: the same id and layout. */
bool lease_same_file(const struct lease *ls, const struct head_meta *m);

#endif /* STRIPED_LEASE_H */
