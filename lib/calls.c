// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The calls of an open handle, whichever its mode. Each call enters (it
 * waits while the handle's own truncate runs), counts in its flush
 * generation, and holds a reference on the handle until it ended: after its
 * callback returned, for a call of the engine, so close waits for the
 * callbacks too. Both modes start their engine calls here.
 */
#include <errno.h>
#include <stdlib.h>

#include "calls.h"
#include "completion.h"
#include "flush.h"
#include "io.h"
#include "lease.h"

int calls_init(struct file_calls *fc, struct lease *ls)
{
	int r = flush_gens_init(&fc->gens);

	if (r) {
		flush_gens_destroy(&fc->gens);
		return r;
	}
	pthread_mutex_init(&fc->lock, NULL);
	pthread_cond_init(&fc->cond, NULL);
	fc->lease = ls;
	return 0;
}

void calls_destroy(struct file_calls *fc)
{
	flush_gens_destroy(&fc->gens);
	pthread_cond_destroy(&fc->cond);
	pthread_mutex_destroy(&fc->lock);
}

int calls_enter(struct file_calls *fc, bool nowait, struct io_target *t)
{
	uint64_t seen = lease_timeouts(fc->lease);
	bool waited = false;
	int r = 0;

	pthread_mutex_lock(&fc->lock);
	while (fc->gate_closed && !nowait) {
		pthread_cond_wait(&fc->cond, &fc->lock);
		waited = true;
	}
	if (fc->gate_closed) {
		r = -EAGAIN;
	} else if (waited && lease_timeouts(fc->lease) != seen) {
		/* The truncate it waited for timed out: it has waited the op timeout already. */
		r = -ETIMEDOUT;
	} else {
		fc->in_flight++;
		*t = fc->target; /* the engine keeps its own copy */
		t->tag = flush_gens_enter(&fc->gens);
	}
	pthread_mutex_unlock(&fc->lock);
	if (!r)
		lease_get(fc->lease);
	return r;
}

/* Flushes that waited for calls now ended are done (outside the lock: callbacks run). */
static void flushes_done(struct flush_waiter *w)
{
	struct flush_waiter *next;

	for (; w; w = next) {
		struct striped_completion *c = w->c;

		next = w->next;
		free(w);
		completion_submit_end(c, 0);
	}
}

void calls_leave(struct file_calls *fc, uint64_t gen)
{
	struct flush_waiter *due;

	pthread_mutex_lock(&fc->lock);
	due = flush_gens_leave(&fc->gens, gen);
	if (--fc->in_flight == 0)
		pthread_cond_broadcast(&fc->cond);
	pthread_mutex_unlock(&fc->lock);
	flushes_done(due);
	lease_put(fc->lease); /* may free the handle: the last thing done with it */
}

/* Called by the engine after the call's callback has returned: only now may close go on. */
static void call_end(void *calls, uint64_t gen)
{
	calls_leave(calls, gen);
}

void calls_set_target(struct file_calls *fc, const struct io_target *t)
{
	fc->target = *t;
	fc->target.release = call_end;
	fc->target.owner = fc;
}

static void wait_locked(struct file_calls *fc)
{
	while (fc->in_flight)
		pthread_cond_wait(&fc->cond, &fc->lock);
}

void calls_wait(struct file_calls *fc)
{
	pthread_mutex_lock(&fc->lock);
	wait_locked(fc);
	pthread_mutex_unlock(&fc->lock);
}

void calls_gate_close(struct file_calls *fc)
{
	pthread_mutex_lock(&fc->lock);
	while (fc->gate_closed)
		pthread_cond_wait(&fc->cond, &fc->lock);
	fc->gate_closed = true;
	wait_locked(fc);
	pthread_mutex_unlock(&fc->lock);
}

void calls_gate_open(struct file_calls *fc)
{
	pthread_mutex_lock(&fc->lock);
	fc->gate_closed = false;
	pthread_cond_broadcast(&fc->cond);
	pthread_mutex_unlock(&fc->lock);
}

int calls_copy_enter(struct file_calls *fc, bool nowait)
{
	int r = 0;

	pthread_mutex_lock(&fc->lock);
	while (fc->copies_held && !nowait)
		pthread_cond_wait(&fc->cond, &fc->lock);
	if (fc->copies_held)
		r = -EAGAIN;
	else
		fc->copying++;
	pthread_mutex_unlock(&fc->lock);
	return r;
}

void calls_copy_leave(struct file_calls *fc)
{
	pthread_mutex_lock(&fc->lock);
	if (--fc->copying == 0)
		pthread_cond_broadcast(&fc->cond);
	pthread_mutex_unlock(&fc->lock);
}

void calls_copies_hold(struct file_calls *fc)
{
	pthread_mutex_lock(&fc->lock);
	while (fc->copies_held)
		pthread_cond_wait(&fc->cond, &fc->lock);
	fc->copies_held = true;
	while (fc->copying)
		pthread_cond_wait(&fc->cond, &fc->lock);
	pthread_mutex_unlock(&fc->lock);
}

void calls_copies_resume(struct file_calls *fc)
{
	pthread_mutex_lock(&fc->lock);
	fc->copies_held = false;
	pthread_cond_broadcast(&fc->cond);
	pthread_mutex_unlock(&fc->lock);
}

void calls_flush_barrier(struct file_calls *fc, struct striped_completion *c)
{
	struct flush_waiter *w = malloc(sizeof(*w));
	bool due = false;
	int r = -ENOMEM;

	if (w) {
		w->c = c;
		pthread_mutex_lock(&fc->lock);
		r = flush_gens_barrier(&fc->gens, w, &due);
		pthread_mutex_unlock(&fc->lock);
	}
	if (r || due) {
		free(w);
		completion_submit_end(c, r);
	}
}

int calls_start(struct file_calls *fc, struct striped_completion *c, struct io_req *req)
{
	struct io_target t;
	int r = calls_enter(fc, req->flags & STRIPED_IO_NOWAIT, &t);

	if (r)
		return r;
	r = io_start(&t, c, req);
	if (r)
		calls_leave(fc, t.tag);
	return r;
}

ssize_t calls_run(struct file_calls *fc, struct io_req *req)
{
	struct striped_completion *c;
	ssize_t r = striped_completion_create(NULL, NULL, &c);

	if (r)
		return r;
	r = calls_start(fc, c, req);
	if (r == 0) {
		striped_completion_wait(c);
		r = striped_completion_result(c);
	}
	striped_completion_release(c);
	return r;
}
