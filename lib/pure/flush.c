// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Flush barriers over a file's calls (pure: the caller holds its lock).
 * Calls are counted by generation. A flush closes the current generation
 * and is due once that one and every older one have no call left; calls
 * started after it belong to the next generation and do not hold it up.
 * Only flushes open generations, so the list is as long as the flushes
 * still waiting, plus one.
 */
#include <errno.h>
#include <stdlib.h>

#include "flush.h"

struct flush_gen {
	uint64_t gen;
	uint64_t calls;
	struct flush_waiter *waiters; /* due when this generation is the oldest and empty */
	struct flush_gen *next;	      /* the next newer one */
};

struct flush_waiter *flush_waiter_new(struct striped_completion *c)
{
	struct flush_waiter *w = malloc(sizeof(*w));

	if (w) {
		w->c = c;
		w->next = NULL;
	}
	return w;
}

struct striped_completion *flush_waiter_pop(struct flush_waiter **list)
{
	struct flush_waiter *w = *list;
	struct striped_completion *c;

	if (!w)
		return NULL;
	c = w->c;
	*list = w->next;
	free(w);
	return c;
}

static struct flush_gen *gen_new(uint64_t gen)
{
	struct flush_gen *g = calloc(1, sizeof(*g));

	if (g)
		g->gen = gen;
	return g;
}

int flush_gens_init(struct flush_gens *fg)
{
	fg->oldest = fg->now = gen_new(0);
	return fg->now ? 0 : -ENOMEM;
}

void flush_gens_destroy(struct flush_gens *fg)
{
	struct flush_gen *g = fg->oldest, *next;

	for (; g; g = next) {
		next = g->next;
		free(g);
	}
	fg->oldest = fg->now = NULL;
}

uint64_t flush_gens_enter(struct flush_gens *fg)
{
	fg->now->calls++;
	return fg->now->gen;
}

/* Chain b's waiters after a's; returns the whole list. */
static struct flush_waiter *waiters_join(struct flush_waiter *a, struct flush_waiter *b)
{
	struct flush_waiter **tail = &a;

	while (*tail)
		tail = &(*tail)->next;
	*tail = b;
	return a;
}

struct flush_waiter *flush_gens_leave(struct flush_gens *fg, uint64_t gen)
{
	struct flush_waiter *due = NULL;
	struct flush_gen *g;

	for (g = fg->oldest; g && g->gen != gen; g = g->next)
		;
	if (g && g->calls)
		g->calls--;
	while (fg->oldest != fg->now && fg->oldest->calls == 0) {
		g = fg->oldest;
		due = waiters_join(due, g->waiters);
		fg->oldest = g->next;
		free(g);
	}
	return due;
}

int flush_gens_barrier(struct flush_gens *fg, struct flush_waiter *w, bool *due)
{
	struct flush_gen *g, *next;
	uint64_t calls = 0;

	for (g = fg->oldest; g; g = g->next)
		calls += g->calls;
	*due = calls == 0;
	if (*due)
		return 0;
	next = gen_new(fg->now->gen + 1);
	if (!next)
		return -ENOMEM;
	w->next = NULL;
	fg->now->waiters = waiters_join(fg->now->waiters, w);
	fg->now->next = next;
	fg->now = next;
	return 0;
}
