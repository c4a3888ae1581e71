/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* flush.c: flush barriers over a file's calls (pure) */
#ifndef STRIPED_FLUSH_H
#define STRIPED_FLUSH_H

#include "striped_i.h"

struct flush_waiter {
	struct striped_completion *c; /* started; ended when the flush is due */
	struct flush_waiter *next;
};

/* A flush's place in a list: its completion, to end once the flush is due (free() it). */
struct flush_waiter *flush_waiter_new(struct striped_completion *c);
/* The first of a list of waiters now due, taken off it and freed: its completion (NULL: none). */
struct striped_completion *flush_waiter_pop(struct flush_waiter **list);

struct flush_gens {
	struct flush_gen *oldest, *now;
};

int flush_gens_init(struct flush_gens *fg);
void flush_gens_destroy(struct flush_gens *fg);
/* A call begins: returns its generation, to give back to flush_gens_leave(). */
uint64_t flush_gens_enter(struct flush_gens *fg);
/* A call of generation gen has ended: returns the waiters now due (a list). */
struct flush_waiter *flush_gens_leave(struct flush_gens *fg, uint64_t gen);
/*
 * A flush after every call begun so far: *due when none is left (w is then
 * not kept), else w is kept until flush_gens_leave() returns it.
 */
int flush_gens_barrier(struct flush_gens *fg, struct flush_waiter *w, bool *due);

#endif /* STRIPED_FLUSH_H */
