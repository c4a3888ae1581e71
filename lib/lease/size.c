// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The file's size as one handle knows it, the high-water mark, and the
 * updates of both that growing writes and appends make.
 *
 * While the handle holds the shared lock no truncate or remove can run, so
 * the size and the mark can only grow: what the handle knows of each is a
 * lower bound. Taking the lock back re-reads both (lease.c), and the
 * handle's engine sets them anew (size_reset()). The lock here is a leaf:
 * nothing else is taken under it, and the waiters hear their result
 * outside it.
 *
 * Why a growing write needs no round trip before its data:
 * - No byte lies past max(size, mark): data past the known mark waits for
 *   the mark's raise (mark_grow*), which goes far ahead (mark_target),
 *   so remove and truncate, which clean up to the mark, find every object.
 * - The size update goes beside the data, and the call is acknowledged once
 *   both landed: a call that returned success had its full effect.
 * - Nobody reads past the size: bytes between the size and the mark are
 *   invisible until a size covers them, and come only from calls in flight
 *   or calls that failed since the last truncate (which cleans them).
 * - A crash never shows older bytes: truncate and remove clean up to the
 *   mark, so what lies past the size is from this life of the file. A
 *   later write past it shows those bytes where they were written, as the
 *   size-first order (libradosstriper's) would have shown them at once.
 * - A write refused for want of space leaves the size alone: see
 *   size_init() and size_grow_cancel().
 * - Several updates in flight may land in any order: each stores its value
 *   only if that raises the stored one (a compare-and-set), so the stored
 *   size never moves back and covers every call acknowledged.
 * libradosstriper knows nothing of the mark: its remove and truncate clean
 * up to the size, so only the bytes of failed or crashed calls past the
 * size can escape them, never those of a call that succeeded.
 */
#include <errno.h>

#include "head.h"
#include "mark_step.h"
#include "meta.h"
#include "rados_cxx.h"
#include "size.h"

int size_init(struct file_size *s, rados_ioctx_t io, const char *oid)
{
	int r = pthread_mutex_init(&s->lock, NULL);

	if (r)
		return -r;
	s->io = io;
	s->oid = oid;
	/*
	 * The size update goes without FULL_TRY, unlike everything else we
	 * write: on a full pool librados holds it back (and an OSD drops it if
	 * it was sent before the pool was marked full) while the data beside
	 * it is refused at once, so size_grow_cancel() can take it back before
	 * it lands. With FULL_TRY Ceph lets an xattr update through on a full
	 * pool, and a refused write would leave the file grown over zeros.
	 * The mark may land on a full pool: it only makes cleanups go further.
	 * The price: a growing write whose data the full pool lets through
	 * (it overwrites bytes already past the size, adding none) waits for
	 * space, or for the op timeout, as any librados write does by default.
	 */
	s->size = (struct grow_queue){.s = s, .xattr = XATTR_SIZE, .flags = 0};
	s->mark = (struct grow_queue){
		.s = s, .xattr = XATTR_RESERVED, .ahead = true, .flags = STRIPED_WRITE_FLAGS};
	for (int i = 0; i < GROW_UPDATES_IN_FLIGHT; i++) {
		s->size.updates[i].q = &s->size;
		s->mark.updates[i].q = &s->mark;
	}
	return 0;
}

void size_destroy(struct file_size *s)
{
	pthread_mutex_destroy(&s->lock);
}

void size_reset(struct file_size *s, uint64_t size, uint64_t mark)
{
	pthread_mutex_lock(&s->lock);
	s->size.known = size;
	s->mark.known = mark;
	pthread_mutex_unlock(&s->lock);
}

uint64_t size_known(struct file_size *s)
{
	uint64_t size;

	pthread_mutex_lock(&s->lock);
	size = s->size.known;
	pthread_mutex_unlock(&s->lock);
	return size;
}

static void learn_locked(struct grow_queue *q, uint64_t value)
{
	if (value > q->known)
		q->known = value;
}

/* A size seen after a successful grow: keep the larger of what we know. */
void size_learn(struct file_size *s, uint64_t size)
{
	pthread_mutex_lock(&s->lock);
	learn_locked(&s->size, size);
	pthread_mutex_unlock(&s->lock);
}

bool mark_covers(struct file_size *s, uint64_t end)
{
	bool covered;

	pthread_mutex_lock(&s->lock);
	covered = end <= s->mark.known || end <= s->size.known;
	pthread_mutex_unlock(&s->lock);
	return covered;
}

/* What an update for a waiter of `want` stores: the mark goes far ahead. */
static uint64_t update_target(const struct grow_queue *q, uint64_t want)
{
	return q->ahead ? mark_target(want) : want;
}

/*
 * Raise the mark ahead of end, waiting for it, before data past it is sent.
 * @return 1 when an update was sent, 0 when none was needed, or -errno
 */
int mark_grow(struct file_size *s, uint64_t end)
{
	rados_completion_t rc;
	uint64_t want = mark_target(end);
	int r;

	if (mark_covers(s, end))
		return 0;
	r = rados_aio_create_completion2(NULL, NULL, &rc);
	if (r)
		return r;
	r = size_cas_send(s->io, s->oid, rc, XATTR_RESERVED, want, STRIPED_WRITE_FLAGS);
	if (r == 0) {
		rados_aio_wait_for_complete(rc);
		r = rados_aio_get_return_value(rc);
	}
	rados_aio_release(rc);
	if (r >= 0 || r == -ECANCELED) {
		pthread_mutex_lock(&s->lock);
		learn_locked(&s->mark, want);
		pthread_mutex_unlock(&s->lock);
		r = 1;
	}
	return r;
}

/* ---- the updates growing writes wait for ---- */

/*
 * Every growing write needs the stored value at least at its end before it
 * reports success. It rides on an update in flight that stores that much;
 * otherwise it sends its own while fewer than GROW_UPDATES_IN_FLIGHT are on
 * the wire; otherwise it waits in q->next, and one update for the furthest
 * end there goes out when one lands. Updates in flight together may land
 * in any order: each is a compare-and-set that only raises the value.
 */

static void update_send(struct grow_update *u);

/* Under the lock: an update slot with nothing on the wire (no waiters), taken for waiters. */
static struct grow_update *update_take(struct grow_queue *q, uint64_t want,
				       struct size_waiter *waiters)
{
	for (int i = 0; i < GROW_UPDATES_IN_FLIGHT; i++) {
		struct grow_update *u = &q->updates[i];

		if (u->waiters)
			continue;
		u->gen++;
		u->target = update_target(q, want);
		u->waiters = waiters;
		u->rc = NULL;
		u->on_wire = false;
		u->cancel_r = 0;
		waiters->sent_update = true; /* the first one counts the operation */
		return u;
	}
	return NULL;
}

/* Each waiter of the list hears r; the list is theirs from here on. */
static void waiters_tell(struct size_waiter *list, int r)
{
	while (list) {
		struct size_waiter *w = list;

		list = w->next;
		w->stored(w, r);
	}
}

/*
 * The update u is over: its waiters hear the result, and the writes
 * gathered meanwhile get an update of their own (or none, if what landed
 * covers them). Not the size after that: the waiters' calls keep it alive.
 */
static void update_finish(struct grow_update *u, int r)
{
	struct grow_queue *q = u->q;
	struct file_size *s = q->s;
	struct size_waiter *done, *covered = NULL, *timed_out = NULL;
	struct grow_update *next = NULL;

	pthread_mutex_lock(&s->lock);
	/* Under the lock: grow_async() may add a waiter to u until here. */
	done = u->waiters;
	if (r >= 0)
		learn_locked(q, u->target);
	u->waiters = NULL;
	q->timeouts += r == -ETIMEDOUT;
	if (q->next.waiters && q->next.want <= q->known)
		covered = q->next.waiters;
	else if (q->next.waiters && r == -ETIMEDOUT)
		/* The head did not answer: those gathered fail so too, not wait as long again. */
		timed_out = q->next.waiters;
	else if (q->next.waiters)
		next = update_take(q, q->next.want, q->next.waiters);
	if (covered || next || timed_out)
		q->next = (struct size_group){0};
	pthread_mutex_unlock(&s->lock);
	if (next)
		update_send(next);
	waiters_tell(covered, 0);
	waiters_tell(timed_out, -ETIMEDOUT);
	waiters_tell(done, r < 0 ? r : 0);
}

/*
 * librados callback: -ECANCELED means the stored value already covered it,
 * unless we cancelled the update: then the refused data's error is the
 * result. An update that landed before the cancel reached librados stays.
 */
static void update_landed(rados_completion_t rc, void *arg)
{
	struct grow_update *u = arg;
	int r = rados_aio_get_return_value(rc), cancelled;

	pthread_mutex_lock(&u->q->s->lock);
	cancelled = u->cancel_r;
	u->rc = NULL;
	u->on_wire = false;
	pthread_mutex_unlock(&u->q->s->lock);
	rados_aio_release(rc);
	if (r == -ECANCELED)
		r = cancelled;
	update_finish(u, r);
}

static void update_send(struct grow_update *u)
{
	struct grow_queue *q = u->q;
	struct file_size *s = q->s;
	rados_completion_t rc;
	uint64_t gen, target;
	int r = rados_aio_create_completion2(u, update_landed, &rc);

	if (r) {
		update_finish(u, r);
		return;
	}
	pthread_mutex_lock(&s->lock);
	u->rc = rc;
	gen = u->gen;
	target = u->target;
	pthread_mutex_unlock(&s->lock);
	r = size_cas_send(s->io, s->oid, rc, q->xattr, target, q->flags);
	pthread_mutex_lock(&s->lock);
	if (r) {
		u->rc = NULL;
	} else if (u->gen == gen && u->rc == rc) {
		/* Still ours (its callback has not run): a cancel asked meanwhile goes now. */
		u->on_wire = true;
		if (u->cancel_r)
			rados_aio_cancel(s->io, rc);
	}
	pthread_mutex_unlock(&s->lock);
	if (r) {
		rados_aio_release(rc);
		update_finish(u, r);
	}
}

/* Take w out of group g if it is there, keeping g's want the furthest left. */
static bool group_unlink(struct size_group *g, struct size_waiter *w)
{
	struct size_waiter **p = &g->waiters;
	bool found = false;

	while (*p) {
		if (*p == w) {
			*p = w->next;
			found = true;
			break;
		}
		p = &(*p)->next;
	}
	if (found) {
		g->want = 0;
		for (struct size_waiter *o = g->waiters; o; o = o->next)
			if (o->want > g->want)
				g->want = o->want;
	}
	return found;
}

static bool waiters_have(const struct size_waiter *list, const struct size_waiter *w)
{
	for (const struct size_waiter *o = list; o; o = o->next)
		if (o == w)
			return true;
	return false;
}

/*
 * The update w rides on is cancelled (every call sharing it fails with
 * reason; their data was most likely refused too), or w leaves the group
 * still to go. Nothing to do once w heard its result. Never waits: called
 * from the librados callback of the refused operation.
 */
void size_grow_cancel(struct file_size *s, struct size_waiter *w, int reason)
{
	struct grow_queue *q = &s->size;
	bool dropped = false, found = false;

	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < GROW_UPDATES_IN_FLIGHT && !found; i++) {
		struct grow_update *u = &q->updates[i];

		if (!waiters_have(u->waiters, w))
			continue;
		found = true;
		if (!u->cancel_r) {
			u->cancel_r = reason;
			if (u->on_wire)
				rados_aio_cancel(s->io, u->rc);
		}
	}
	if (!found)
		dropped = group_unlink(&q->next, w);
	pthread_mutex_unlock(&s->lock);
	if (dropped)
		w->stored(w, reason);
}

/* Let w go once q stores at least w->want: at once, riding on an update, with its own, or later. */
static void grow_async(struct grow_queue *q, struct size_waiter *w)
{
	struct file_size *s = q->s;
	struct grow_update *u = NULL;

	w->sent_update = false;
	w->next = NULL;
	pthread_mutex_lock(&s->lock);
	if (w->want <= q->known) {
		pthread_mutex_unlock(&s->lock);
		w->stored(w, 0);
		return;
	}
	for (int i = 0; i < GROW_UPDATES_IN_FLIGHT; i++) {
		struct grow_update *o = &q->updates[i];

		if (o->waiters && !o->cancel_r && w->want <= o->target) {
			w->next = o->waiters;
			o->waiters = w;
			pthread_mutex_unlock(&s->lock);
			return;
		}
	}
	u = update_take(q, w->want, w);
	if (!u) {
		w->next = q->next.waiters;
		q->next.waiters = w;
		if (w->want > q->next.want)
			q->next.want = w->want;
	}
	pthread_mutex_unlock(&s->lock);
	if (u)
		update_send(u);
}

void size_grow_async(struct file_size *s, struct size_waiter *w, uint64_t want,
		     size_stored_fn stored)
{
	w->want = want;
	w->stored = stored;
	grow_async(&s->size, w);
}

/* Never waits; data past the mark is sent from w->stored(). */
void mark_grow_async(struct file_size *s, struct size_waiter *w, uint64_t want,
		     size_stored_fn stored)
{
	w->want = want;
	w->stored = stored;
	if (mark_covers(s, w->want)) {
		w->sent_update = false;
		w->stored(w, 0);
		return;
	}
	grow_async(&s->mark, w);
}

uint64_t size_timeouts(struct file_size *s)
{
	uint64_t n;

	pthread_mutex_lock(&s->lock);
	n = s->size.timeouts + s->mark.timeouts;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* The stored size, read now. */
static int stored_size(struct file_size *s, uint64_t *size)
{
	int r = head_get_size(s->io, s->oid, size);

	if (r == -ENOENT || r == -ENODATA)
		return -ESTALE;
	return r;
}

/*
 * Claim [size, size + len) for an append: the size moves from what it is to
 * len more in one compare-and-set, so two appenders that both use this never
 * get the same range; the loser reads the new size and tries again. The
 * first guess is the size this handle knows, right when it appends alone.
 * check (if not NULL) is asked about each offset before it is claimed: a
 * non-zero return refuses the append with nothing claimed, but only at the
 * stored size: the guess may be behind another client's append (the check
 * then sees objects ending past it), so a refused guess reads the size first.
 */
int size_append_reserve(struct file_size *s, uint64_t len, uint64_t *off, append_check_fn check,
			void *arg)
{
	uint64_t size = size_known(s);
	bool stored = false;
	int r;

	for (;;) {
		if (len > UINT64_MAX - size)
			return -EFBIG;
		r = check ? check(arg, size, len) : 0;
		if (r && stored)
			return r;
		if (!r) {
			r = size_cas_eq(s->io, s->oid, size, size + len, STRIPED_WRITE_FLAGS);
			if (r != -ECANCELED)
				break;
		}
		r = stored_size(s, &size);
		if (r)
			return r;
		stored = true;
	}
	if (r == -ENOENT)
		return -ESTALE;
	if (r)
		return r;
	size_learn(s, size + len);
	*off = size;
	return 0;
}
