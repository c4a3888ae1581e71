/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * calls.c: the calls of an open handle, whichever its mode: the gate its own
 * truncate closes, the flush generations, the reference each call holds on
 * the handle until it ended, and an engine call started as one of them.
 */
#ifndef STRIPED_CALLS_H
#define STRIPED_CALLS_H

#include "flush.h"
#include "io.h"

/* The handle's reference each call holds until it ended (its last use of the handle). */
struct calls_owner {
	void (*hold)(void *arg);
	void (*drop)(void *arg); /* may free the handle, and its calls with it */
	void *arg;
};

struct file_calls {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t in_flight;	 /* calls begun and not ended, so close can wait for them */
	struct flush_gens gens;	 /* the same calls, for flush barriers */
	bool gate_closed;	 /* the handle's own truncate runs: new calls wait */
	uint64_t copying;	 /* writes being copied into a buffered handle's window */
	bool copies_held;	 /* its own truncate is under way: new ones wait */
	struct calls_owner owner; /* each call holds a reference on the handle */
	struct io_target target; /* what the engine gets for the handle's calls */
};

int calls_init(struct file_calls *fc, const struct calls_owner *owner);
void calls_destroy(struct file_calls *fc);
/* What the engine gets for each call (its release and owner are the calls'). */
void calls_set_target(struct file_calls *fc, const struct io_target *t);
/*
 * A call begins: it waits while the gate is closed (with nowait, -EAGAIN),
 * and holds a reference until calls_leave(fc, t->tag). *t is the engine's
 * target for it, its flush generation in t->tag.
 */
int calls_enter(struct file_calls *fc, bool nowait, struct io_target *t);
/* A call of generation gen ended (may free the handle: the last thing done with it). */
void calls_leave(struct file_calls *fc, uint64_t gen);
/* Every call begun so far has ended. */
void calls_wait(struct file_calls *fc);
/* The handle's own truncate: no call runs until calls_gate_open(). */
void calls_gate_close(struct file_calls *fc);
void calls_gate_open(struct file_calls *fc);
/*
 * A buffered handle's writes are copied into its window, not calls of the
 * engine: they begin here instead (waiting while held; with nowait,
 * -EAGAIN) and end with calls_copy_leave(). The handle's own truncate holds
 * them from before it sends the window until it took the lock back, so no
 * write is acknowledged into the window while the lock is let go of.
 */
int calls_copy_enter(struct file_calls *fc, bool nowait);
void calls_copy_leave(struct file_calls *fc);
/* Hold new copies, and wait for those under way to be done. */
void calls_copies_hold(struct file_calls *fc);
void calls_copies_resume(struct file_calls *fc);
/* c (started) completes once every call begun before it has ended. */
void calls_flush_barrier(struct file_calls *fc, struct striped_completion *c);
/* One engine call as a call of the handle; c is untouched when it did not start. */
int calls_start(struct file_calls *fc, struct striped_completion *c, struct io_req *req);
/* The same, waited for in the calling thread: its result (bytes, or -errno). */
ssize_t calls_run(struct file_calls *fc, struct io_req *req);

#endif /* STRIPED_CALLS_H */
