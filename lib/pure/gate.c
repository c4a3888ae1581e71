// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A gate: while it is open anyone enters (and counts as inside until it
 * leaves); closing it waits until nobody is inside, and newcomers wait
 * until it opens again, or are refused with nowait. One closer at a time:
 * a second waits until the first opened it. Pure: a lock and a condition.
 */
#include <errno.h>

#include "gate.h"

int gate_init(struct gate *g)
{
	if (pthread_mutex_init(&g->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&g->cond, NULL)) {
		pthread_mutex_destroy(&g->lock);
		return -ENOMEM;
	}
	g->inside = 0;
	g->closed = false;
	return 0;
}

void gate_destroy(struct gate *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

int gate_enter(struct gate *g, bool nowait, bool *waited)
{
	bool slept = false;
	int r = 0;

	pthread_mutex_lock(&g->lock);
	while (g->closed && !nowait) {
		pthread_cond_wait(&g->cond, &g->lock);
		slept = true;
	}
	if (waited)
		*waited = slept;
	if (g->closed)
		r = -EAGAIN;
	else
		g->inside++;
	pthread_mutex_unlock(&g->lock);
	return r;
}

void gate_leave(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	if (--g->inside == 0)
		pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void wait_empty_locked(struct gate *g)
{
	while (g->inside)
		pthread_cond_wait(&g->cond, &g->lock);
}

void gate_close(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (g->closed)
		pthread_cond_wait(&g->cond, &g->lock);
	g->closed = true;
	wait_empty_locked(g);
	pthread_mutex_unlock(&g->lock);
}

void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->closed = false;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

void gate_wait_empty(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	wait_empty_locked(g);
	pthread_mutex_unlock(&g->lock);
}
