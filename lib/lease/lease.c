// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock an open handle holds on its file: taken, watched, let go of, and
 * taken back; and the file's identity and layout that come with it.
 *
 * Protocol (libradosstriper's lock, so the two libraries exclude each other):
 * readers and writers hold the cls lock "striper.lock" SHARED with tag "Tag";
 * truncate and remove hold it EXCLUSIVE. A handle's shared lock has no
 * expiry, as librbd's exclusive lock has none: a lock that lapsed on its own
 * could be taken over while a paused holder still has writes queued, and
 * those would land after the new owner's. Instead:
 * - the handle watches the head while it is open, and a client that wants
 *   the lock exclusive asks the holders by notify (handover.c); a holder
 *   answers at once with its cookie, and lets go of the lock as soon as it
 *   has no call in flight;
 * - a handle with no call in flight lets go of the lock by itself after a
 *   short idle time (`idle_ns`), so libradosstriper clients, which cannot
 *   ask, are held off for about that long at most;
 * - a holder that does not answer is blocklisted before its lock is broken
 *   (handover.c), so nothing it still sends lands afterwards.
 * The next call after a release takes the lock back (one round trip) and
 * checks the file is the same one; every acquisition is a new epoch, and a
 * call that began in an older epoch cannot report success.
 * This file is the handle's side: open, close, and the calls that enter
 * and exit the lease. The lock's round trips, the watch and the idler are
 * lock.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "head.h"
#include "lease.h"
#include "lease_i.h"
#include "meta.h"

/* ---- open, release ---- */

static int lease_init(struct lease *ls, rados_ioctx_t io, const char *oid)
{
	int r;

	memset(ls, 0, sizeof(*ls));
	if (pthread_mutex_init(&ls->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&ls->cond, NULL)) {
		pthread_mutex_destroy(&ls->lock);
		return -ENOMEM;
	}
	ls->io = io;
	ls->oid = oid;
	ls->idle_ns = (uint64_t)LEASE_IDLE_SECONDS_DEFAULT * NS_PER_SEC;
	cookie_new(ls->cookie);
	r = head_watch_ioctx(io, &ls->wio);
	if (r) {
		pthread_cond_destroy(&ls->cond);
		pthread_mutex_destroy(&ls->lock);
	}
	return r;
}

/*
 * A client whose caps do not let it write (so not lock) still reads: without
 * a lock, as libradosstriper's readers cannot at all. Its reads are not
 * excluded from a truncate by others; its writes fail with -EPERM anyway.
 */
static int open_unleased(struct lease *ls, struct head_meta *m)
{
	int r = head_read_meta(ls->io, ls->oid, m);

	if (r == 0)
		ls->unleased = true;
	return r;
}

/* Create the file, or lock an existing one; m is filled on success. */
static int open_locked(struct lease *ls, int flags, const struct striped_layout *create_layout,
		       struct head_meta *m)
{
	bool create_refused;
	int r = -ENOENT;

	if (flags & STRIPED_CREATE) {
		struct lock_req req;

		meta_head_new(m, create_layout, head_new_id());
		lease_shared_req(ls, &req, 0);
		/* One round trip: the head, its metadata and our lock together. */
		r = head_create_locked(ls->io, ls->oid, m, &req);
		if (r == -EEXIST && (flags & STRIPED_EXCL))
			return r;
	}
	create_refused = r == -EPERM;
	if (r == -ENOENT || r == -EEXIST || (create_refused && !(flags & STRIPED_EXCL))) {
		r = lease_lock_open(ls, m);
		if (r == -ESTALE)
			r = -ENOENT;
	}
	if (r == -EPERM && !(flags & STRIPED_EXCL))
		r = open_unleased(ls, m);
	/* Not allowed to create, and nothing there to read: say why. */
	if (r == -ENOENT && create_refused)
		r = -EPERM;
	if (r == 0 && !ls->unleased)
		r = lease_watch(ls); /* a file we created: no one else knew it yet */
	return r;
}

int lease_open(struct lease *ls, rados_ioctx_t io, const char *oid, int flags,
	       const struct striped_layout *create_layout, const struct lease_owner *owner)
{
	struct head_meta m = {0};
	int r = lease_init(ls, io, oid);

	if (r)
		return r;
	r = idler_ensure();
	/* On the list before the watch, so its callbacks find the lease. */
	if (!r) {
		ls->owner = *owner;
		idler_add(ls);
		r = open_locked(ls, flags, create_layout, &m);
	}
	if (r)
		goto err;
	/* Under the lock: the idler already sees this lease on its list. */
	pthread_mutex_lock(&ls->lock);
	lease_granted_locked(ls, &m);
	ls->held = !ls->unleased;
	pthread_mutex_unlock(&ls->lock);
	head_meta_free(&m);
	return 0;
err:
	idler_remove(ls);
	if (ls->watching)
		head_unwatch(ls->wio, ls->watch_handle);
	head_watch_ioctx_destroy(ls->wio);
	head_meta_free(&m);
	pthread_cond_destroy(&ls->cond);
	pthread_mutex_destroy(&ls->lock);
	return r;
}

/*
 * Let go of the lock: at close, waiting for the reply; before the handle's
 * own truncate, without (the exclusive lock request that follows goes to the
 * same object from the same client, so the OSD sees the unlock first).
 */
void lease_release(struct lease *ls, bool wait)
{
	bool held;

	pthread_mutex_lock(&ls->lock);
	while (ls->releasing)
		pthread_cond_wait(&ls->cond, &ls->lock);
	held = ls->held;
	ls->held = false;
	pthread_mutex_unlock(&ls->lock);
	if (held && wait)
		head_unlock(ls->io, ls->oid, ls->cookie);
	else if (held)
		head_unlock_nowait(ls->io, ls->oid, ls->cookie);
}

/*
 * Off the idler's list: no callback touches the lease any more, and the
 * idler lets go of nothing more. Returns the watch's context (taken from
 * ls) and whether a watch is registered on it.
 */
static rados_ioctx_t lease_detach(struct lease *ls, bool wait, bool *watching)
{
	rados_ioctx_t wio;

	idler_remove(ls);
	pthread_mutex_lock(&ls->lock);
	/* The idler's job holds a reference: from a callback, let it finish alone. */
	while (wait && (ls->releasing || ls->acquiring))
		pthread_cond_wait(&ls->cond, &ls->lock);
	*watching = ls->watching;
	ls->watching = false;
	wio = ls->wio;
	ls->wio = NULL;
	pthread_mutex_unlock(&ls->lock);
	return wio;
}

/*
 * A file closed from a callback: the watch goes with its I/O context
 * without waiting (librados destroys the context once the unwatch has
 * completed); the lock goes with the owner's last reference (lease_destroy).
 */
void lease_stop(struct lease *ls)
{
	bool watching;
	rados_ioctx_t wio = lease_detach(ls, false, &watching);

	if (watching)
		head_unwatch_and_destroy(wio, ls->watch_handle);
	else
		head_watch_ioctx_destroy(wio);
}

/*
 * Close: the watch and the lock go together, one round trip, both waited
 * for: others may truncate at once after, and the application may shut its
 * cluster handle down with nothing of ours in flight. When the cluster did
 * not answer meanwhile (hurry, or a lock round trip that timed out while
 * close waited for it), they are sent and not waited for: close would wait
 * the op timeout once more. The lock goes when the OSD takes the unlock;
 * until then another client fences us, and this one's own truncate and
 * remove break it (handover.c).
 */
void lease_close(struct lease *ls, bool hurry)
{
	uint64_t seen = lease_timeouts(ls);
	bool watching, held;
	rados_ioctx_t wio = lease_detach(ls, true, &watching);

	pthread_mutex_lock(&ls->lock);
	held = ls->held;
	ls->held = false;
	hurry = hurry || ls->timeouts != seen;
	pthread_mutex_unlock(&ls->lock);
	if (!hurry) {
		head_unwatch_unlock(wio, watching ? ls->watch_handle : 0, ls->io, ls->oid,
				    held ? ls->cookie : NULL);
		return;
	}
	if (held)
		head_unlock_nowait(ls->io, ls->oid, ls->cookie);
	if (watching)
		head_unwatch_and_destroy(wio, ls->watch_handle);
	else
		head_watch_ioctx_destroy(wio);
}

uint64_t lease_timeouts(struct lease *ls)
{
	uint64_t n;

	pthread_mutex_lock(&ls->lock);
	n = ls->timeouts;
	pthread_mutex_unlock(&ls->lock);
	return n;
}

void lease_timed_out(struct lease *ls)
{
	pthread_mutex_lock(&ls->lock);
	ls->timeouts++;
	pthread_cond_broadcast(&ls->cond);
	pthread_mutex_unlock(&ls->lock);
}

void lease_on_asked(struct lease *ls, void (*asked)(void *arg), void *arg)
{
	pthread_mutex_lock(&ls->lock);
	ls->asked_arg = arg;
	ls->asked = asked;
	pthread_mutex_unlock(&ls->lock);
}

/*
 * The owner's last reference is gone. This may run on a librados callback
 * thread (a file closed from a callback), where nothing may wait, so a lock
 * still held is let go of without waiting for the reply.
 */
void lease_destroy(struct lease *ls)
{
	if (ls->held)
		head_unlock_nowait(ls->io, ls->oid, ls->cookie);
	pthread_cond_destroy(&ls->cond);
	pthread_mutex_destroy(&ls->lock);
}

/* ---- calls ---- */

/* Whether a call may start on the lock as it is. */
static bool usable_locked(const struct lease *ls)
{
	return ls->held && !ls->lost && !ls->release_wanted && !ls->releasing;
}

/*
 * A call that is part of handing the lock over (what its holder must land
 * first, once another client asked for it) goes out under the lock still
 * held, as part of letting go.
 */
static bool handover_usable_locked(const struct lease *ls)
{
	return ls->held && !ls->lost && !ls->releasing;
}

/*
 * Before a call: hold the lock. Taking it back is a round trip in the calling
 * thread; with LEASE_NOWAIT the call is refused with -EAGAIN instead. While
 * another client has asked for it, new calls wait until it was let go of,
 * but for LEASE_HANDOVER ones (what must land before it goes). A
 * handle without a lock only reads: a change (LEASE_CHANGES) gets -EPERM, as
 * the OSD would refuse it a key without w; a key with w but no class access
 * (no lock either) would otherwise change the file unexcluded from others'
 * truncate and remove.
 */
int lease_enter(struct lease *ls, unsigned flags, uint64_t *epoch)
{
	bool nowait = flags & LEASE_NOWAIT, wake = false;
	uint64_t grace, seen;
	int r = 0;

	pthread_mutex_lock(&ls->lock);
	seen = ls->timeouts;
	if (ls->unleased && (flags & LEASE_CHANGES))
		r = -EPERM;
	while (!r && !ls->unleased && !usable_locked(ls) &&
	       !((flags & LEASE_HANDOVER) && handover_usable_locked(ls))) {
		if (ls->stale) {
			r = -ESTALE;
			break;
		}
		/*
		 * A round trip it waited for (another call taking the lock
		 * back, the idler letting go) timed out: so does this call,
		 * rather than wait the op timeout once more for its own.
		 */
		if (ls->timeouts != seen) {
			r = -ETIMEDOUT;
			break;
		}
		if (nowait) {
			/* The idler takes it back meanwhile, so a later try can succeed. */
			if (!ls->held && !ls->reacquire_wanted) {
				ls->reacquire_wanted = true;
				wake = true;
			}
			r = -EAGAIN;
			break;
		}
		if (ls->acquiring || ls->releasing || (ls->held && !ls->lost)) {
			/* Someone else takes it, or it goes once the calls in flight end. */
			pthread_cond_wait(&ls->cond, &ls->lock);
			continue;
		}
		grace = lease_grace_left_locked(ls);
		if (grace) {
			pthread_mutex_unlock(&ls->lock);
			usleep((useconds_t)(grace / 1000));
			pthread_mutex_lock(&ls->lock);
			continue;
		}
		ls->acquiring = true;
		pthread_mutex_unlock(&ls->lock);
		r = lease_reacquire(ls);
		pthread_mutex_lock(&ls->lock);
		ls->acquiring = false;
		pthread_cond_broadcast(&ls->cond);
		/* Ours now, even if asked for meanwhile: this call runs, then we let go. */
		break;
	}
	if (!r) {
		ls->active++;
		ls->used_ns = clock_now_ns();
		*epoch = ls->epoch;
	}
	pthread_mutex_unlock(&ls->lock);
	if (wake)
		idler_wake();
	return r;
}

void lease_exit(struct lease *ls)
{
	bool wake;

	pthread_mutex_lock(&ls->lock);
	ls->active--;
	ls->used_ns = clock_now_ns();
	wake = ls->active == 0 && ls->release_wanted;
	pthread_mutex_unlock(&ls->lock);
	/* Asked for while busy: hand it over now, not at the next tick. */
	if (wake)
		idler_wake();
}

/*
 * At a call's end: was the lock held all along since the call started? Not
 * if it was taken again since (a new epoch), or its watch broke meanwhile
 * (it may have been broken by another client): then a truncate or remove
 * may have run while the call's operations were in flight.
 */
bool lease_covered(struct lease *ls, uint64_t epoch)
{
	bool ok;

	pthread_mutex_lock(&ls->lock);
	ok = ls->unleased || (ls->held && !ls->lost && ls->epoch == epoch);
	pthread_mutex_unlock(&ls->lock);
	return ok;
}

uint64_t lease_granted_ns(struct lease *ls)
{
	uint64_t at;

	pthread_mutex_lock(&ls->lock);
	at = ls->granted_ns;
	pthread_mutex_unlock(&ls->lock);
	return at;
}

/*
 * One round trip: is the lock still ours, and this client not fenced? For
 * a buffered handle that heard nothing from the cluster for a while (its
 * process may have been paused and fenced meanwhile), before it takes a
 * write it could only lose. A lock that is no longer ours counts as lost.
 */
int lease_confirm(struct lease *ls)
{
	struct lock_req req;
	int r;

	if (ls->unleased)
		return 0;
	lease_shared_req(ls, &req, 0);
	r = head_check_lock(ls->io, ls->oid, &req);
	if (r == -EBUSY || r == -ENOENT || r == -ENODATA) {
		pthread_mutex_lock(&ls->lock);
		if (ls->held)
			ls->lost = true;
		pthread_mutex_unlock(&ls->lock);
		r = -ESTALE;
	}
	return r;
}

const struct striped_layout *lease_layout(const struct lease *ls)
{
	return &ls->layout;
}

bool lease_same_file(const struct lease *ls, const struct head_meta *m)
{
	return meta_same_file(m, &ls->layout, ls->id);
}

void lease_set_idle(struct lease *ls, uint32_t seconds)
{
	pthread_mutex_lock(&ls->lock);
	ls->idle_ns = (uint64_t)seconds * NS_PER_SEC;
	pthread_mutex_unlock(&ls->lock);
}
