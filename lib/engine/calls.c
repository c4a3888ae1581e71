// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The calls of an open handle, whichever its mode, and their door into the
 * engine. Each call passes the handle's gate (its own truncate closes it),
 * counts in its flush generation, and holds a reference on the handle until
 * it ended: after its callback returned, for a call of the engine, so close
 * waits for the callbacks too. Both modes start their engine calls here.
 */
#include <errno.h>
#include <stdlib.h>

#include "calls.h"
#include "completion.h"
#include "flush.h"
#include "io_call.h"
#include "io_file.h"

int calls_init(struct file_calls *fc)
{
	int r = flush_gens_init(&fc->gens);

	if (r) {
		flush_gens_destroy(&fc->gens);
		return r;
	}
	r = gate_init(&fc->gate);
	if (r) {
		flush_gens_destroy(&fc->gens);
		return r;
	}
	pthread_mutex_init(&fc->lock, NULL);
	return 0;
}

void calls_destroy(struct file_calls *fc)
{
	flush_gens_destroy(&fc->gens);
	gate_destroy(&fc->gate);
	pthread_mutex_destroy(&fc->lock);
}

int calls_enter(struct io_file *f, bool nowait, struct call_entry *e)
{
	struct file_calls *fc = &f->calls;
	uint64_t seen = lease_timeouts(&f->lease);
	bool waited;
	int r = gate_enter(&fc->gate, nowait, &waited);

	if (r)
		return r;
	if (waited && lease_timeouts(&f->lease) != seen) {
		/* The truncate it waited for timed out: it has waited the op timeout already. */
		gate_leave(&fc->gate);
		return -ETIMEDOUT;
	}
	pthread_mutex_lock(&fc->lock);
	e->gen = flush_gens_enter(&fc->gens);
	pthread_mutex_unlock(&fc->lock);
	f->owner.hold(f->owner.arg);
	return 0;
}

/* Flushes that waited for calls now ended are done (outside the lock: callbacks run). */
static void flushes_done(struct flush_waiter *due)
{
	struct striped_completion *c;

	while ((c = flush_waiter_pop(&due)))
		completion_submit_end(c, 0);
}

void calls_leave(struct io_file *f, const struct call_entry *e)
{
	struct file_calls *fc = &f->calls;
	struct flush_waiter *due;

	pthread_mutex_lock(&fc->lock);
	due = flush_gens_leave(&fc->gens, e->gen);
	pthread_mutex_unlock(&fc->lock);
	gate_leave(&fc->gate);
	flushes_done(due);
	f->owner.drop(f->owner.arg); /* may free the handle: the last thing done with it */
}

/* Called by the engine after the call's callback has returned: only now may close go on. */
static void call_end(void *owner, uint64_t gen)
{
	calls_leave(owner, &(struct call_entry){gen});
}

int calls_start(struct io_file *f, struct striped_completion *c, struct io_req *req)
{
	struct call_entry e;
	int r = calls_enter(f, req->flags & STRIPED_IO_NOWAIT, &e);

	if (r)
		return r;
	r = io_start(&(struct io_target){f, call_end, f, e.gen}, c, req);
	if (r)
		calls_leave(f, &e);
	return r;
}

ssize_t calls_run(struct io_file *f, struct io_req *req)
{
	struct striped_completion *c;
	ssize_t r = completion_create(NULL, NULL, &c);

	if (r)
		return r;
	r = calls_start(f, c, req);
	if (r == 0) {
		completion_wait(c);
		r = completion_result(c);
	}
	completion_release(c);
	return r;
}

int calls_own(struct io_file *f, const struct call_entry *e, struct striped_completion *c,
	      call_finish_fn finish, void *arg)
{
	return completion_start(c, finish, arg, call_end, f, e->gen);
}

int calls_start_within(struct io_file *f, struct striped_completion *c, struct io_req *req)
{
	return io_start(&(struct io_target){f, NULL, NULL, 0}, c, req);
}

void calls_wait(struct io_file *f)
{
	gate_wait_empty(&f->calls.gate);
}

void calls_gate_close(struct io_file *f)
{
	gate_close(&f->calls.gate);
}

void calls_gate_open(struct io_file *f)
{
	gate_open(&f->calls.gate);
}

void calls_flush_barrier(struct io_file *f, struct striped_completion *c)
{
	struct file_calls *fc = &f->calls;
	struct flush_waiter *w = flush_waiter_new(c);
	bool due = false;
	int r = -ENOMEM;

	if (w) {
		pthread_mutex_lock(&fc->lock);
		r = flush_gens_barrier(&fc->gens, w, &due);
		pthread_mutex_unlock(&fc->lock);
	}
	if (r || due) {
		free(w);
		completion_submit_end(c, r);
	}
}
