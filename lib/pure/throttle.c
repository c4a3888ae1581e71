// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bounds the object operations and bytes in flight. Only submitting threads
 * wait here, first come first served (a ticket each, so a large call is not
 * starved by a stream of small ones); librados callbacks only give back
 * (throttle_put), which never waits for anything but the short lock.
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

void throttle_get_many(struct striped_throttle *t, uint64_t ops, uint64_t bytes)
{
	uint64_t ticket;

	pthread_mutex_lock(&t->lock);
	ticket = t->next_ticket++;
	while (ticket != t->serving || !throttle_fits(t, ops, bytes))
		pthread_cond_wait(&t->cond, &t->lock);
	t->serving++;
	t->ops += ops;
	t->bytes += bytes;
	/* The next ticket may fit as well. */
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

void throttle_get(struct striped_throttle *t, uint64_t bytes)
{
	throttle_get_many(t, 1, bytes);
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
