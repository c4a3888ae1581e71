// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The file's size as one handle knows it, and the updates of the stored size
 * that growing writes and appends make.
 *
 * While the handle holds the shared lock no truncate or remove can run, so
 * the size can only grow: known_size is a lower bound, and a write that ends
 * below it needs no size update. Taking the lock back re-reads it (lease.c).
 */
#include <errno.h>

#include "striped_i.h"

uint64_t size_known(struct lease *ls)
{
	uint64_t size;

	pthread_mutex_lock(&ls->lock);
	size = ls->known_size;
	pthread_mutex_unlock(&ls->lock);
	return size;
}

static void learn_size_locked(struct lease *ls, uint64_t size)
{
	if (size > ls->known_size)
		ls->known_size = size;
}

/* A size seen after a successful grow: keep the larger of what we know. */
void size_learn(struct lease *ls, uint64_t size)
{
	pthread_mutex_lock(&ls->lock);
	learn_size_locked(ls, size);
	pthread_mutex_unlock(&ls->lock);
}

/*
 * Grow the stored size to at least `end` before any byte past the old size
 * is sent (libradosstriper's order): data then never exists past the size,
 * so a crash leaves at worst zeros inside the size, and nothing a later
 * extension could expose or a remove could miss.
 * @return 1 when an update was sent, 0 when none was needed, or -errno
 */
int size_grow(struct lease *ls, uint64_t end)
{
	rados_completion_t rc;
	int r;

	if (size_known(ls) >= end)
		return 0;
	r = rados_aio_create_completion2(NULL, NULL, &rc);
	if (r)
		return r;
	r = size_cas_send(ls->io, ls->oid, rc, end, STRIPED_WRITE_FLAGS);
	if (r == 0) {
		rados_aio_wait_for_complete(rc);
		r = rados_aio_get_return_value(rc);
	}
	rados_aio_release(rc);
	if (r >= 0 || r == -ECANCELED) {
		size_learn(ls, end);
		r = 1;
	}
	return r;
}

/* ---- size updates shared by growing writes ---- */

/*
 * While one size update is in flight, growing writes that need more than it
 * stores wait together in size_next, and one update for the furthest end among
 * them goes out when it lands. Sequential writes in flight together then
 * cost about one head operation between them instead of one each, and still
 * no byte goes out before a size covering it is stored.
 */

static void size_update_send(struct lease *ls, uint64_t want);

/*
 * The update of ls->size_now is over: the next group's update goes out, then
 * the waiters of this one hear the result. Not ls after that: the waiters'
 * calls are what keep it alive.
 */
static void size_update_finish(struct lease *ls, int r)
{
	struct size_group done, next = {0};

	pthread_mutex_lock(&ls->lock);
	done = ls->size_now;
	if (r >= 0)
		learn_size_locked(ls, done.want);
	if (ls->size_next.waiters) {
		next = ls->size_next;
		next.waiters->sent_update = true;
		ls->size_now = next;
		ls->size_next = (struct size_group){0};
	} else {
		ls->size_sending = false;
		ls->size_now = (struct size_group){0};
	}
	pthread_mutex_unlock(&ls->lock);
	if (next.waiters)
		size_update_send(ls, next.want);
	while (done.waiters) {
		struct size_waiter *w = done.waiters;

		done.waiters = w->next;
		w->stored(w, r < 0 ? r : 0);
	}
}

/* librados callback: -ECANCELED means the size already covered it. */
static void size_update_landed(rados_completion_t rc, void *arg)
{
	int r = rados_aio_get_return_value(rc);

	rados_aio_release(rc);
	size_update_finish(arg, r == -ECANCELED ? 0 : r);
}

static void size_update_send(struct lease *ls, uint64_t want)
{
	rados_completion_t rc;
	int r = rados_aio_create_completion2(ls, size_update_landed, &rc);

	if (!r) {
		r = size_cas_send(ls->io, ls->oid, rc, want, STRIPED_WRITE_FLAGS);
		if (r)
			rados_aio_release(rc);
	}
	if (r)
		size_update_finish(ls, r);
}

/*
 * Let w go once a size of at least w->want is stored: at once when the
 * handle knows one is, with the update in flight when that one covers it,
 * else with the next. Never waits.
 */
void size_grow_async(struct lease *ls, struct size_waiter *w)
{
	bool send = false;

	w->sent_update = false;
	w->next = NULL;
	pthread_mutex_lock(&ls->lock);
	if (w->want <= ls->known_size) {
		pthread_mutex_unlock(&ls->lock);
		w->stored(w, 0);
		return;
	}
	if (!ls->size_sending) {
		ls->size_sending = true;
		w->sent_update = true;
		ls->size_now = (struct size_group){w->want, w};
		send = true;
	} else if (w->want <= ls->size_now.want) {
		w->next = ls->size_now.waiters;
		ls->size_now.waiters = w;
	} else {
		w->next = ls->size_next.waiters;
		ls->size_next.waiters = w;
		if (w->want > ls->size_next.want)
			ls->size_next.want = w->want;
	}
	pthread_mutex_unlock(&ls->lock);
	if (send)
		size_update_send(ls, w->want);
}

/* The stored size, read now. */
static int stored_size(struct lease *ls, uint64_t *size)
{
	int r = head_get_size(ls->io, ls->oid, size);

	if (r == -ENOENT || r == -ENODATA)
		return -ESTALE;
	return r == -ERANGE ? -EINVAL : r;
}

/*
 * Claim [size, size + len) for an append: the size moves from what it is to
 * len more in one compare-and-set, so two appenders that both use this never
 * get the same range; the loser reads the new size and tries again. The
 * first guess is the size this handle knows, right when it appends alone.
 */
int size_append_reserve(struct lease *ls, uint64_t len, uint64_t *off)
{
	uint64_t size = size_known(ls);
	int r;

	for (;;) {
		if (len > UINT64_MAX - size)
			return -EFBIG;
		r = size_cas_eq(ls->io, ls->oid, size, size + len, STRIPED_WRITE_FLAGS);
		if (r != -ECANCELED)
			break;
		r = stored_size(ls, &size);
		if (r)
			return r;
	}
	if (r == -ENOENT)
		return -ESTALE;
	if (r)
		return r;
	size_learn(ls, size + len);
	*off = size;
	return 0;
}
