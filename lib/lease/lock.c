// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A lease's lock taken, watched, let go of and taken back (lease.c keeps
 * the handle's side: open, close, and the calls that enter and exit it).
 * The process's open leases are on one list, the idler's: one thread for
 * the process that lets go of idle locks, and takes back those a NOWAIT
 * call was refused for. The watch's callbacks, hearing that another client
 * wants a lock, find their lease on the same list, so a lease taken off it
 * is never touched by a callback again and close can free it without
 * waiting for callbacks still queued in librados.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "head.h"
#include "holder.h"
#include "lease.h"
#include "lease_i.h"

/* How often the idler looks for handles to let go of. */
#define IDLER_TICK_MS 100
/*
 * After letting go on request, wait this long before taking the lock back,
 * so the client that asked gets its turn instead of racing our next call.
 */
#define HANDOVER_GRACE_NS (300 * NS_PER_MS)

/* Taking the lock back waits this long at most for an exclusive holder: 10 s. */
#define REACQUIRE_POLL_US 10000
#define REACQUIRE_TRIES 1000

static const char *const lease_description = "libstriped";

static void lease_let_go(struct lease *ls);

void lease_shared_req(const struct lease *ls, struct lock_req *req, uint8_t flags)
{
	/* seconds 0: no expiry; the lock is let go of, or broken after fencing. */
	*req = (struct lock_req){STRIPER_LOCK_NAME, LOCK_SHARED, ls->cookie, STRIPER_SHARED_TAG,
				 lease_description, 0,		 flags};
}

static pthread_mutex_t idler_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idler_cond = PTHREAD_COND_INITIALIZER;
static struct lease *idler_list;
static bool idler_running;

/* Let go now: asked to, or idle long enough. Never with a call in flight. */
static bool wants_release(const struct lease *ls, uint64_t now)
{
	if (!ls->held || ls->active || ls->acquiring || ls->releasing)
		return false;
	return ls->release_wanted || now - ls->used_ns >= ls->idle_ns;
}

/* A call refused with -EAGAIN (STRIPED_IO_NOWAIT) wants the lock back: take it for it. */
static bool wants_reacquire(const struct lease *ls)
{
	return ls->reacquire_wanted && !ls->held && !ls->acquiring && !ls->releasing &&
	       !ls->stale && !lease_grace_left_locked(ls);
}

/* ---- the idler ---- */

enum idler_job { IDLER_NONE, IDLER_RELEASE, IDLER_REACQUIRE };

/* Under idler_lock: the first lease with work due, marked and referenced. */
static struct lease *next_due(uint64_t now, enum idler_job *job)
{
	for (struct lease *ls = idler_list; ls; ls = ls->next) {
		pthread_mutex_lock(&ls->lock);
		*job = wants_release(ls, now) ? IDLER_RELEASE
		       : wants_reacquire(ls)  ? IDLER_REACQUIRE
					      : IDLER_NONE;
		if (*job == IDLER_RELEASE)
			ls->releasing = true;
		else if (*job == IDLER_REACQUIRE)
			ls->acquiring = true;
		if (*job != IDLER_NONE)
			ls->owner.hold(ls->owner.arg); /* dropped once the job is done */
		pthread_mutex_unlock(&ls->lock);
		if (*job != IDLER_NONE)
			return ls;
	}
	return NULL;
}

/* The idler takes the lock back for a refused NOWAIT call: the next try finds it held. */
static void lease_take_back(struct lease *ls)
{
	lease_reacquire(ls);
	pthread_mutex_lock(&ls->lock);
	ls->acquiring = false;
	ls->reacquire_wanted = false;
	pthread_cond_broadcast(&ls->cond);
	pthread_mutex_unlock(&ls->lock);
}

static void *idler_main(void *arg)
{
	enum idler_job job;

	(void)arg;
	pthread_mutex_lock(&idler_lock);
	for (;;) {
		struct timespec until;
		struct lease *ls;

		/* Round trips: never under idler_lock, which callbacks take. */
		while ((ls = next_due(clock_now_ns(), &job))) {
			pthread_mutex_unlock(&idler_lock);
			if (job == IDLER_RELEASE)
				lease_let_go(ls);
			else
				lease_take_back(ls);
			ls->owner.drop(ls->owner.arg); /* may free ls */
			pthread_mutex_lock(&idler_lock);
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += IDLER_TICK_MS * NS_PER_MS;
		if (until.tv_nsec >= (long)NS_PER_SEC) {
			until.tv_sec++;
			until.tv_nsec -= NS_PER_SEC;
		}
		pthread_cond_timedwait(&idler_cond, &idler_lock, &until);
	}
	return NULL;
}

/*
 * In the child of a fork(): the idler thread was not copied, its lock may
 * have been copied held, and the leases on its list are the parent's, on
 * connections that do not work here (librados does not survive a fork).
 * Start afresh: the child's first open starts an idler of its own. Seen: a
 * child forked after its parent had opened a file held its own handles'
 * locks for good, answering notifies but never letting go.
 */
static void idler_forked(void)
{
	pthread_mutex_init(&idler_lock, NULL);
	pthread_cond_init(&idler_cond, NULL);
	idler_list = NULL;
	idler_running = false;
}

static void idler_watch_forks(void)
{
	pthread_atfork(NULL, NULL, idler_forked);
}

/*
 * Start the idler if it is not running: before a handle takes its lock, so
 * a process that cannot start a thread fails the open (-EAGAIN) instead of
 * holding locks nobody lets go of; a later open tries again.
 */
int idler_ensure(void)
{
	static pthread_once_t forks_watched = PTHREAD_ONCE_INIT;
	pthread_attr_t attr;
	pthread_t th;
	int r = 0;

	pthread_once(&forks_watched, idler_watch_forks);
	pthread_mutex_lock(&idler_lock);
	if (!idler_running) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		r = -pthread_create(&th, &attr, idler_main, NULL);
		pthread_attr_destroy(&attr);
		idler_running = r == 0;
	}
	pthread_mutex_unlock(&idler_lock);
	return r;
}

void idler_add(struct lease *ls)
{
	pthread_mutex_lock(&idler_lock);
	ls->next = idler_list;
	idler_list = ls;
	pthread_mutex_unlock(&idler_lock);
}

void idler_remove(struct lease *ls)
{
	pthread_mutex_lock(&idler_lock);
	for (struct lease **p = &idler_list; *p; p = &(*p)->next)
		if (*p == ls) {
			*p = ls->next;
			break;
		}
	pthread_mutex_unlock(&idler_lock);
}

/*
 * Under idler_lock: the lease a watch callback is about, if still open and
 * still watching with that handle; returned with its lock held.
 */
static struct lease *idler_find_locked(void *arg, uint64_t handle)
{
	for (struct lease *ls = idler_list; ls; ls = ls->next) {
		if (ls != arg)
			continue;
		pthread_mutex_lock(&ls->lock);
		if (ls->watching && ls->watch_handle == handle)
			return ls;
		pthread_mutex_unlock(&ls->lock);
	}
	return NULL;
}

void idler_wake(void)
{
	pthread_mutex_lock(&idler_lock);
	pthread_cond_signal(&idler_cond);
	pthread_mutex_unlock(&idler_lock);
}

/*
 * Whether an open handle of this process holds, or may hold, a lock with
 * this cookie. One that none does is left over (a close whose unlock timed
 * out): handover breaks it without fencing its own client.
 */
bool lease_cookie_open(const char *cookie)
{
	bool open = false;

	pthread_mutex_lock(&idler_lock);
	for (struct lease *ls = idler_list; ls && !open; ls = ls->next)
		open = !strcmp(ls->cookie, cookie);
	pthread_mutex_unlock(&idler_lock);
	return open;
}

/*
 * librados callback: another client asks the holders to let go (handover.c).
 * Answer at once with our cookie, so it knows we are alive, and let go as
 * soon as no call is in flight (the idler does the round trip). A handle
 * taking the lock right now answers too, and lets go after its call.
 */
static void lease_heard(void *arg, uint64_t notify_id, uint64_t handle, uint64_t notifier,
			void *data, size_t len)
{
	struct lease *ls;
	char cookie[COOKIE_MAX] = "";

	(void)notifier;
	(void)data;
	(void)len;
	pthread_mutex_lock(&idler_lock);
	ls = idler_find_locked(arg, handle);
	if (ls) {
		bool asked = ls->held || ls->acquiring;
		void (*hook)(void *) = asked ? ls->asked : NULL;
		void *hook_arg = ls->asked_arg;

		if (asked)
			ls->release_wanted = true;
		/* Letting go right now still counts as alive: the asker just tries again. */
		if (ls->held || ls->acquiring || ls->releasing)
			strcpy(cookie, ls->cookie);
		pthread_mutex_unlock(&ls->lock);
		/* The owner lands what it holds (a window) before the lock goes. */
		if (hook)
			hook(hook_arg);
		pthread_cond_signal(&idler_cond);
		/* Sent, not waited for. */
		head_notify_ack(ls->wio, ls->oid, notify_id, handle, cookie);
	}
	pthread_mutex_unlock(&idler_lock);
}

/*
 * librados callback: the watch is gone (a reconnect, a timeout while this
 * process was stopped, or a blocklist). Notifies may have been missed and
 * the lock may have been broken: calls in flight cannot claim success, and
 * the next call watches and takes the lock again.
 */
static void lease_deaf(void *arg, uint64_t handle, int err)
{
	struct lease *ls;

	(void)err;
	pthread_mutex_lock(&idler_lock);
	ls = idler_find_locked(arg, handle);
	if (ls) {
		ls->watch_broken = true;
		ls->lost = ls->held;
		pthread_mutex_unlock(&ls->lock);
	}
	pthread_mutex_unlock(&idler_lock);
}

/* Watch the head, unless the watch is there and sound; a broken watch is dropped first. */
int lease_watch(struct lease *ls)
{
	uint64_t old = 0, handle;
	int r;

	pthread_mutex_lock(&ls->lock);
	if (ls->watching && !ls->watch_broken) {
		pthread_mutex_unlock(&ls->lock);
		return 0;
	}
	if (ls->watching)
		old = ls->watch_handle;
	ls->watching = false;
	pthread_mutex_unlock(&ls->lock);
	if (old)
		head_unwatch(ls->wio, old);
	/* Until the watch is set, a notify goes unanswered: handover asks twice before it fences.
	 */
	r = head_watch(ls->wio, ls->oid, lease_heard, lease_deaf, ls, &handle);
	if (r)
		return r == -ENOENT ? -ESTALE : r;
	pthread_mutex_lock(&ls->lock);
	ls->watch_handle = handle;
	ls->watching = true;
	ls->watch_broken = false;
	pthread_mutex_unlock(&ls->lock);
	return 0;
}

/*
 * Let go of a lock just taken, after the round trip that followed it failed
 * with r: not waited for when that timed out (the cluster does not answer,
 * and the call would wait the op timeout once more).
 */
static void let_go_after(struct lease *ls, int r)
{
	if (r == -ETIMEDOUT)
		head_unlock_nowait(ls->io, ls->oid, ls->cookie);
	else
		head_unlock(ls->io, ls->oid, ls->cookie);
}

/*
 * Take the lock (lock_and_read), then watch if the watch is not there: one
 * round trip more at open, none when an idle handle takes its lock back
 * (the watch stays). Not beside the lock request: on a paused cluster a
 * watch that registers waits past the op timeout, and the lock's failure
 * must come back within it. A notify that arrives in between goes
 * unanswered; handover asks twice before it fences.
 */
static int lock_watched(struct lease *ls, int (*lock)(struct lease *, struct head_meta *),
			struct head_meta *m)
{
	int r = lock(ls, m), w;

	if (r)
		return r;
	w = lease_watch(ls);
	if (w) {
		/* Held but deaf: a client that asks would fence us. Let go. */
		let_go_after(ls, w);
		head_meta_free(m);
	}
	return w;
}

/* Take the shared lock on an existing file, then read what it is. */
static int lock_and_read(struct lease *ls, uint8_t flags, struct head_meta *m)
{
	struct lock_req req;
	int r;

	lease_shared_req(ls, &req, flags);
	r = head_lock(ls->io, ls->oid, &req);
	if (r)
		return r;
	r = head_read_meta(ls->io, ls->oid, m);
	if (r)
		let_go_after(ls, r);
	return r;
}

/*
 * Read what the file is, then take the shared lock if the head still says
 * so: a head that is no striped file, is damaged (-EUCLEAN), or, with
 * same_file, is another file's or another layout's now (-ESTALE) is refused
 * with nothing written to it, not even the lock. Two round trips, as
 * locking first and reading under the lock; that is done only when the
 * head changed in between (growing writes of other holders).
 */
static int read_and_lock(struct lease *ls, uint8_t flags, bool same_file, struct head_meta *m)
{
	struct lock_req req;
	/* a file its maker holds unwritten is written back first */
	int r = holder_read_meta(ls->io, ls->oid, m);

	if (r)
		return r;
	if (same_file && !meta_same_file(m, &ls->layout, ls->id)) {
		head_meta_free(m);
		return -ESTALE;
	}
	lease_shared_req(ls, &req, flags);
	r = head_lock_as_read(ls->io, ls->oid, &req, m);
	if (r != -ECANCELED) {
		if (r)
			head_meta_free(m);
		return r;
	}
	head_meta_free(m);
	return lock_and_read(ls, flags, m);
}

static int lock_for_open(struct lease *ls, struct head_meta *m)
{
	return read_and_lock(ls, 0, false, m);
}

/*
 * A truncate or remove by another client: wait for it, trying often, so
 * that a client truncating again and again does not starve our calls.
 */
static int lock_again(struct lease *ls, struct head_meta *m)
{
	int r, tries = 0;

	while ((r = read_and_lock(ls, LOCK_FLAG_MAY_RENEW, true, m)) == -EBUSY &&
	       tries++ < REACQUIRE_TRIES)
		usleep(REACQUIRE_POLL_US);
	return r;
}

/* Under the lock: the owner takes what it keeps of m. */
void lease_granted_locked(struct lease *ls, struct head_meta *m)
{
	ls->layout = m->layout;
	ls->id = m->id;
	ls->owner.granted(ls->owner.arg, m);
	ls->held = true;
	ls->lost = false;
	ls->epoch++;
	ls->used_ns = ls->granted_ns = clock_now_ns();
}

/* The idler's release, its lease marked releasing: one round trip, then a new epoch is due. */
static void lease_let_go(struct lease *ls)
{
	int r = head_unlock(ls->io, ls->oid, ls->cookie);
	bool asked;

	pthread_mutex_lock(&ls->lock);
	/* Calls waiting for it give up: they waited the op timeout already. */
	ls->timeouts += r == -ETIMEDOUT;
	asked = ls->release_wanted;
	ls->held = false;
	ls->releasing = false;
	ls->release_wanted = false;
	ls->handed_over_ns = asked ? clock_now_ns() : 0;
	pthread_cond_broadcast(&ls->cond);
	pthread_mutex_unlock(&ls->lock);
}

/*
 * Take the lock back after it was let go of (or its watch broke) and check
 * the file is still the one this handle opened: -ESTALE if it was removed,
 * or removed and created again. The watch comes first, so a client asking
 * for the lock hears from us as soon as we hold it.
 */
int lease_reacquire(struct lease *ls)
{
	struct head_meta m;
	int r;

	r = lock_watched(ls, lock_again, &m);
	/* Checked before the lock was taken, and again: it may have changed in between. */
	if (r == 0 && !meta_same_file(&m, &ls->layout, ls->id)) {
		head_unlock(ls->io, ls->oid, ls->cookie);
		head_meta_free(&m);
		r = -ESTALE;
	}
	pthread_mutex_lock(&ls->lock);
	if (r == 0)
		lease_granted_locked(ls, &m);
	else
		ls->held = false;
	ls->timeouts += r == -ETIMEDOUT;
	/* Removed, or removed and created again: this handle is done for good. */
	if (r == -ENOENT || r == -ENODATA || r == -ESTALE) {
		ls->stale = true;
		r = -ESTALE;
	}
	pthread_mutex_unlock(&ls->lock);
	return r;
}

/* After handing the lock over, give the client that asked its turn first. */
uint64_t lease_grace_left_locked(const struct lease *ls)
{
	uint64_t since;

	if (!ls->handed_over_ns)
		return 0;
	since = clock_now_ns() - ls->handed_over_ns;
	return since < HANDOVER_GRACE_NS ? HANDOVER_GRACE_NS - since : 0;
}

int lease_lock_open(struct lease *ls, struct head_meta *m)
{
	return lock_watched(ls, lock_for_open, m);
}
