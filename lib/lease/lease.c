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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "head.h"
#include "lease.h"
#include "meta.h"


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

static void shared_req(const struct lease *ls, struct lock_req *req, uint8_t flags)
{
	/* seconds 0: no expiry; the lock is let go of, or broken after fencing. */
	*req = (struct lock_req){STRIPER_LOCK_NAME, LOCK_SHARED, ls->cookie, STRIPER_SHARED_TAG,
				 lease_description, 0, flags};
}

/* ---- the idler: one thread for the process, letting go of idle locks ---- */

/*
 * The idler's list is also the table the watch callbacks look a lease up
 * in: a lease off the list is never touched by a callback, so close can
 * free it without waiting for callbacks still queued in librados.
 */
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

static uint64_t grace_left_locked(const struct lease *ls);

/* A call refused with -EAGAIN (STRIPED_IO_NOWAIT) wants the lock back: take it for it. */
static bool wants_reacquire(const struct lease *ls)
{
	return ls->reacquire_wanted && !ls->held && !ls->acquiring && !ls->releasing &&
	       !ls->stale && !grace_left_locked(ls);
}

static void lease_let_go(struct lease *ls);

enum idler_job { IDLER_NONE, IDLER_RELEASE, IDLER_REACQUIRE };

/* Under idler_lock: the first lease with work due, marked and referenced. */
static struct lease *next_due(uint64_t now, enum idler_job *job)
{
	for (struct lease *ls = idler_list; ls; ls = ls->next) {
		pthread_mutex_lock(&ls->lock);
		*job = wants_release(ls, now)	? IDLER_RELEASE
		       : wants_reacquire(ls) ? IDLER_REACQUIRE
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
static int idler_ensure(void)
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

static void idler_add(struct lease *ls)
{
	pthread_mutex_lock(&idler_lock);
	ls->next = idler_list;
	idler_list = ls;
	pthread_mutex_unlock(&idler_lock);
}

static void idler_remove(struct lease *ls)
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

static void idler_wake(void)
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

/* ---- the watch: hearing that another client wants the lock ---- */

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
static int lease_watch(struct lease *ls)
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
	/* Until the watch is set, a notify goes unanswered: handover asks twice before it fences. */
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

/* Tells file instances apart: a file removed and created again gets another. Never 0. */
static uint64_t random_id(void)
{
	uint64_t id = 0;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = clock_now_ns() ^ ((uint64_t)getpid() << 40);
	return id ? id : 1;
}

/* Take the shared lock on an existing file, then read what it is. */
static int lock_and_read(struct lease *ls, uint8_t flags, struct head_meta *m)
{
	struct lock_req req;
	int r;

	shared_req(ls, &req, flags);
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
	int r = head_read_meta(ls->io, ls->oid, m);

	if (r)
		return r;
	if (same_file && !meta_same_file(m, &ls->layout, ls->id)) {
		head_meta_free(m);
		return -ESTALE;
	}
	shared_req(ls, &req, flags);
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

/* Under the lock: the owner takes what it keeps of m. */
static void lease_granted(struct lease *ls, struct head_meta *m)
{
	ls->layout = m->layout;
	ls->id = m->id;
	ls->owner.granted(ls->owner.arg, m);
	ls->held = true;
	ls->lost = false;
	ls->epoch++;
	ls->used_ns = ls->granted_ns = clock_now_ns();
}

/* Create the file, or lock an existing one; m is filled on success. */
static int open_locked(struct lease *ls, int flags, const struct striped_layout *create_layout,
		       struct head_meta *m)
{
	bool create_refused;
	int r = -ENOENT;

	if (flags & STRIPED_CREATE) {
		struct lock_req req;

		meta_head_new(m, create_layout, random_id());
		shared_req(ls, &req, 0);
		/* One round trip: the head, its metadata and our lock together. */
		r = head_create_locked(ls->io, ls->oid, create_layout, m->id, &req);
		if (r == -EEXIST && (flags & STRIPED_EXCL))
			return r;
	}
	create_refused = r == -EPERM;
	if (r == -ENOENT || r == -EEXIST || (create_refused && !(flags & STRIPED_EXCL))) {
		r = lock_watched(ls, lock_for_open, m);
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
	lease_granted(ls, &m);
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
		lease_granted(ls, &m);
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

/* Whether a call may start on the lock as it is. */
static bool usable_locked(const struct lease *ls)
{
	return ls->held && !ls->lost && !ls->release_wanted && !ls->releasing;
}

/* After handing the lock over, give the client that asked its turn first. */
static uint64_t grace_left_locked(const struct lease *ls)
{
	uint64_t since;

	if (!ls->handed_over_ns)
		return 0;
	since = clock_now_ns() - ls->handed_over_ns;
	return since < HANDOVER_GRACE_NS ? HANDOVER_GRACE_NS - since : 0;
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
		grace = grace_left_locked(ls);
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
	shared_req(ls, &req, 0);
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
