// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The aggregate completion: one per call, counting the call's parts (object
 * operations and the size update), keeping the first error, and completing
 * exactly once when the last part has finished. Parts end on librados
 * callback threads, so nothing here waits while holding the lock except
 * completion_wait(), which only callers use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "completion.h"

/* How deep this thread is inside user callbacks: some calls must not wait there. */
static __thread unsigned callback_depth;

bool completion_in_callback(void)
{
	return callback_depth > 0;
}

int completion_create(striped_callback_t cb, void *arg, struct striped_completion **out)
{
	struct striped_completion *c;

	if (!out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (pthread_mutex_init(&c->lock, NULL)) {
		free(c);
		return -ENOMEM;
	}
	if (pthread_cond_init(&c->cond, NULL)) {
		pthread_mutex_destroy(&c->lock);
		free(c);
		return -ENOMEM;
	}
	c->refs = 1;
	c->cb = cb;
	c->cb_arg = arg;
	*out = c;
	return 0;
}

static void completion_put_locked(struct striped_completion *c)
{
	bool last = --c->refs == 0;

	pthread_mutex_unlock(&c->lock);
	if (last) {
		pthread_cond_destroy(&c->cond);
		pthread_mutex_destroy(&c->lock);
		free(c);
	}
}

void completion_release(struct striped_completion *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	completion_put_locked(c);
}

int completion_start(struct striped_completion *c, call_finish_fn finish, void *call,
		     call_release_fn release, void *owner, uint64_t owner_tag)
{
	pthread_mutex_lock(&c->lock);
	if (c->started) {
		pthread_mutex_unlock(&c->lock);
		return -EBUSY;
	}
	c->started = true;
	c->refs++;	/* held by the call until it completes */
	c->pending = 1; /* the submitter's own part, dropped by completion_submit_end() */
	c->finish = finish;
	c->call = call;
	c->release = release;
	c->owner = owner;
	c->owner_tag = owner_tag;
	c->stats.calls = 1;
	c->start_ns = clock_now_ns();
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* The last part has ended: compute the result, call back, then wake waiters. */
static void completion_complete(struct striped_completion *c)
{
	ssize_t result;

	c->stats.latency_ns = clock_now_ns() - c->start_ns;
	if (c->finish)
		result = c->finish(c, c->first_error);
	else
		result = c->first_error ? c->first_error : c->value;
	pthread_mutex_lock(&c->lock);
	c->result = result;
	c->result_ready = true; /* the callback may ask for it */
	if (result > 0)
		c->stats.bytes = (uint64_t)result;
	pthread_mutex_unlock(&c->lock);
	if (c->cb) {
		callback_depth++;
		c->cb(c, c->cb_arg);
		callback_depth--;
	}

	pthread_mutex_lock(&c->lock);
	c->done = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	if (c->release)
		c->release(c->owner, c->owner_tag);
	pthread_mutex_lock(&c->lock);
	completion_put_locked(c);
}

void completion_part_begin(struct striped_completion *c)
{
	pthread_mutex_lock(&c->lock);
	c->pending++;
	c->stats.ops++;
	if (++c->in_flight > c->stats.max_in_flight)
		c->stats.max_in_flight = c->in_flight;
	pthread_mutex_unlock(&c->lock);
}

/* An operation's reply is in: it no longer counts as in flight. */
void completion_part_landed(struct striped_completion *c)
{
	pthread_mutex_lock(&c->lock);
	c->in_flight--;
	pthread_mutex_unlock(&c->lock);
}

/* A part has ended (after completion_part_landed for operations that were sent). */
void completion_part_end(struct striped_completion *c, int result)
{
	bool last;

	pthread_mutex_lock(&c->lock);
	if (result < 0 && !c->first_error)
		c->first_error = result;
	last = --c->pending == 0;
	pthread_mutex_unlock(&c->lock);
	if (last)
		completion_complete(c);
}

int completion_first_error(struct striped_completion *c)
{
	int r;

	pthread_mutex_lock(&c->lock);
	r = c->first_error;
	pthread_mutex_unlock(&c->lock);
	return r;
}

void completion_submit_end(struct striped_completion *c, int error)
{
	completion_part_end(c, error);
}

/* A part that is no operation of its own (a wait for a shared one): counts nothing. */
void completion_wait_begin(struct striped_completion *c)
{
	pthread_mutex_lock(&c->lock);
	c->pending++;
	pthread_mutex_unlock(&c->lock);
}

/* An operation of the call that was sent and answered before the call started. */
void completion_count_op(struct striped_completion *c)
{
	pthread_mutex_lock(&c->lock);
	c->stats.ops++;
	pthread_mutex_unlock(&c->lock);
}

void completion_add_throttle_wait(struct striped_completion *c)
{
	pthread_mutex_lock(&c->lock);
	c->stats.throttle_waits++;
	pthread_mutex_unlock(&c->lock);
}

int completion_wait(struct striped_completion *c)
{
	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	if (!c->started) {
		pthread_mutex_unlock(&c->lock);
		return -EINVAL;
	}
	while (!c->done)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int completion_is_complete(struct striped_completion *c)
{
	int done;

	if (!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	done = c->done;
	pthread_mutex_unlock(&c->lock);
	return done;
}

ssize_t completion_result(struct striped_completion *c)
{
	ssize_t r;

	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	r = c->result_ready ? c->result : -EINPROGRESS;
	pthread_mutex_unlock(&c->lock);
	return r;
}

int completion_stats(struct striped_completion *c, struct striped_io_stats *st, size_t st_size)
{
	struct striped_io_stats copy;

	if (!c || !st)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	copy = c->stats;
	pthread_mutex_unlock(&c->lock);
	if (st_size > sizeof(copy))
		st_size = sizeof(copy);
	memcpy(st, &copy, st_size);
	return 0;
}

/* ---- completions a mode answers itself ---- */

bool completion_used(struct striped_completion *c)
{
	bool used;

	pthread_mutex_lock(&c->lock);
	used = c->started;
	pthread_mutex_unlock(&c->lock);
	return used;
}

void completion_abandon(struct striped_completion *c)
{
	pthread_mutex_lock(&c->lock);
	c->started = false;
	c->pending = 0;
	c->finish = NULL;
	c->call = NULL;
	c->value = 0;
	c->release = NULL;
	c->owner = NULL;
	c->stats = (struct striped_io_stats){0};
	c->refs--; /* the call's reference: the caller's is left */
	pthread_mutex_unlock(&c->lock);
}

int completion_complete_now(struct striped_completion *c, ssize_t result)
{
	int r = completion_start(c, NULL, NULL, NULL, NULL, 0);

	if (!r) {
		pthread_mutex_lock(&c->lock);
		c->value = result;
		pthread_mutex_unlock(&c->lock);
		completion_submit_end(c, 0);
	}
	return r;
}
