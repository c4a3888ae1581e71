/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * calls.c: the calls of an open handle, whichever its mode, and the door
 * they take into the engine: the gate its own truncate closes, the flush
 * generations, the reference each call holds on the handle until it ended,
 * and the engine call each one starts. With io.h, what the handle sees of
 * the engine.
 */
#ifndef STRIPED_CALLS_H
#define STRIPED_CALLS_H

#include "flush.h"
#include "gate.h"
#include "io.h"

struct file_calls {
	struct gate gate;     /* every call passes it; the handle's own truncate closes it */
	pthread_mutex_t lock; /* the flush generations */
	struct flush_gens gens;
};

int calls_init(struct file_calls *fc);
void calls_destroy(struct file_calls *fc);

/* A call of the handle: from calls_enter() until calls_leave(). */
struct call_entry {
	uint64_t gen; /* its flush generation */
};

/*
 * A call begins: it waits while the gate is closed (with nowait, -EAGAIN)
 * and holds a reference on the handle until calls_leave().
 */
int calls_enter(struct io_file *f, bool nowait, struct call_entry *e);
/* The call ended (may free the handle: the last thing done with it). */
void calls_leave(struct io_file *f, const struct call_entry *e);
/* One engine call as a call of the handle; c is untouched when it did not start. */
int calls_start(struct io_file *f, struct striped_completion *c, struct io_req *req);
/* The same, waited for in the calling thread: its result (bytes, or -errno). */
ssize_t calls_run(struct io_file *f, struct io_req *req);
/*
 * A call the mode completes itself, around engine calls of its own: c (not
 * started) is started with finish(c, first_error), c->call being arg, and
 * leaves e once its callback has returned. -EBUSY when c was used already.
 */
int calls_own(struct io_file *f, const struct call_entry *e, struct striped_completion *c,
	      call_finish_fn finish, void *arg);
/*
 * An engine call made inside a call of the handle that entered already
 * (and leaves by itself): no entry of its own, which could wait at a gate
 * the handle's own truncate closed meanwhile, while the truncate waits for
 * the first entry to leave.
 */
int calls_start_within(struct io_file *f, struct striped_completion *c, struct io_req *req);
/* Every call begun so far has ended. */
void calls_wait(struct io_file *f);
/* The handle's own truncate: no call runs until calls_gate_open(). */
void calls_gate_close(struct io_file *f);
void calls_gate_open(struct io_file *f);
/* c (started) completes once every call begun before it has ended. */
void calls_flush_barrier(struct io_file *f, struct striped_completion *c);

#endif /* STRIPED_CALLS_H */
