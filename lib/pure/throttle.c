// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bounds the object operations and bytes in flight. Only submitting threads
 * wait here, first come first served (a ticket each, so a large call is not
 * starved by a stream of small ones); librados callbacks only give back
 * (throttle_put), which never waits for anything but the short lock. A
 * waiter gives up when an operation times out meanwhile: with the op
 * timeout set, no call waits on an unanswering cluster longer than it
 * (a call behind a full throttle would otherwise wait it twice).
 */
#include <errno.h>

#include "throttle.h"

int throttle_init(struct striped_throttle *t, uint64_t max_ops, uint64_t max_bytes)
{
	if (pthread_mutex_init(&t->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&t->cond, NULL)) {
		pthread_mutex_destroy(&t->lock);
		return -ENOMEM;
	}
	t->max_ops = max_ops;
	t->max_bytes = max_bytes;
	t->ops = 0;
	t->bytes = 0;
	t->next_ticket = 0;
	t->serving = 0;
	t->timeouts = 0;
	return 0;
}

void throttle_destroy(struct striped_throttle *t)
{
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
}

void throttle_set(struct striped_throttle *t, uint64_t max_ops, uint64_t max_bytes)
{
	pthread_mutex_lock(&t->lock);
	/* Stored atomically: throttle_max_ops() and _bytes() read them without the lock. */
	__atomic_store_n(&t->max_ops, max_ops, __ATOMIC_RELAXED);
	__atomic_store_n(&t->max_bytes, max_bytes, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

uint64_t throttle_max_bytes(struct striped_throttle *t)
{
	return __atomic_load_n(&t->max_bytes, __ATOMIC_RELAXED);
}

uint64_t throttle_max_ops(struct striped_throttle *t)
{
	return __atomic_load_n(&t->max_ops, __ATOMIC_RELAXED);
}

/* A request larger than the limits may still go when nothing else is out. */
static bool throttle_fits(const struct striped_throttle *t, uint64_t ops, uint64_t bytes)
{
	if (t->ops == 0)
		return true;
	return ops <= t->max_ops - (t->ops < t->max_ops ? t->ops : t->max_ops) &&
	       bytes <= t->max_bytes - (t->bytes < t->max_bytes ? t->bytes : t->max_bytes);
}

static bool nobody_waits(const struct striped_throttle *t)
{
	return t->serving == t->next_ticket;
}

bool throttle_try_get_many(struct striped_throttle *t, uint64_t ops, uint64_t bytes)
{
	bool ok;

	pthread_mutex_lock(&t->lock);
	/* Never overtake a waiter. */
	ok = nobody_waits(t) && throttle_fits(t, ops, bytes);
	if (ok) {
		t->ops += ops;
		t->bytes += bytes;
	}
	pthread_mutex_unlock(&t->lock);
	return ok;
}

bool throttle_try_get(struct striped_throttle *t, uint64_t bytes)
{
	return throttle_try_get_many(t, 1, bytes);
}

int throttle_get_many(struct striped_throttle *t, uint64_t ops, uint64_t bytes)
{
	uint64_t ticket, seen;
	int r = 0;

	pthread_mutex_lock(&t->lock);
	ticket = t->next_ticket++;
	seen = t->timeouts;
	for (;;) {
		/*
		 * One that gives up still waits for its turn, so the tickets
		 * behind it are served; those ahead took their count of
		 * timeouts earlier, so they give up too, at once.
		 */
		if (t->timeouts != seen)
			r = -ETIMEDOUT;
		if (ticket == t->serving && (r || throttle_fits(t, ops, bytes)))
			break;
		pthread_cond_wait(&t->cond, &t->lock);
	}
	t->serving++;
	if (!r) {
		t->ops += ops;
		t->bytes += bytes;
	}
	/* The next ticket may fit as well. */
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return r;
}

int throttle_get(struct striped_throttle *t, uint64_t bytes)
{
	return throttle_get_many(t, 1, bytes);
}

void throttle_timed_out(struct striped_throttle *t)
{
	pthread_mutex_lock(&t->lock);
	t->timeouts++;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

uint64_t throttle_timeouts(struct striped_throttle *t)
{
	uint64_t n;

	pthread_mutex_lock(&t->lock);
	n = t->timeouts;
	pthread_mutex_unlock(&t->lock);
	return n;
}

/* Whether ops and bytes fit the limits at all (an empty throttle aside). */
bool throttle_within_limits(struct striped_throttle *t, uint64_t ops, uint64_t bytes)
{
	bool ok;

	pthread_mutex_lock(&t->lock);
	ok = ops <= t->max_ops && bytes <= t->max_bytes;
	pthread_mutex_unlock(&t->lock);
	return ok;
}

void throttle_put_many(struct striped_throttle *t, uint64_t ops, uint64_t bytes)
{
	pthread_mutex_lock(&t->lock);
	t->ops -= ops;
	t->bytes -= bytes;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

void throttle_put(struct striped_throttle *t, uint64_t bytes)
{
	pthread_mutex_lock(&t->lock);
	t->ops--;
	t->bytes -= bytes;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}
