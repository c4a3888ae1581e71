// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The workers that striped_aio_open/truncate/remove/append run on (meta_aio.c):
 * threads of the library, kept idle for the next piece of work for
 * WORKER_IDLE_NS after the last, instead of a detached thread started and
 * let go of per call. A piece of work is never queued behind another: one
 * worker may wait minutes (a handover, a cluster that does not answer), so
 * when no worker is idle one is started for it, as many at once as calls are.
 *
 * Every worker is joined, none is left running library code: one that went
 * idle long enough marks itself done and is joined by the next
 * workers_run() (without waiting: pthread_tryjoin_np), and when the library
 * is unloaded (or the process exits) the idle ones are woken, told to go and
 * joined. A worker still busy then runs a call the caller never waited for:
 * it is detached, not waited for (exit must not wait on a cluster), and
 * frees itself once its call returns.
 *
 * Nothing here waits but idle workers and the unload; workers_run() is safe
 * in a librados callback (a leaf lock, a thread started, never a wait).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "workers.h"

/* How long a worker with nothing to do stays for the next piece of work. */
#define WORKER_IDLE_NS (10 * NS_PER_SEC)

struct worker {
	pthread_t th;
	struct worker *next;
	bool busy;     /* running a piece of work */
	bool done;     /* left for good: to be joined */
	bool detached; /* busy at unload: frees itself when it leaves */
};

static pthread_mutex_t workers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t workers_cond; /* CLOCK_MONOTONIC: set up once (workers_setup) */
static struct work *queue, **queue_tail = &queue;
static unsigned queued;		/* pieces of work no worker took yet */
static unsigned idle;		/* workers waiting for one */
static struct worker *workers;	/* started and not joined yet */
static bool stopping;		/* the library is being unloaded */

static void cond_init(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&workers_cond, &attr);
	pthread_condattr_destroy(&attr);
}

/* Under the lock: the next piece of work, or NULL once idle long enough, or unloading. */
static struct work *next_work(void)
{
	struct timespec until;
	uint64_t end = clock_now_ns() + WORKER_IDLE_NS;
	struct work *w;

	until.tv_sec = (time_t)(end / NS_PER_SEC);
	until.tv_nsec = (long)(end % NS_PER_SEC);
	if (stopping) /* work queued at unload is dropped: exit must not wait on a cluster */
		return NULL;
	while (!queue) {
		int r;

		idle++;
		r = pthread_cond_timedwait(&workers_cond, &workers_lock, &until);
		idle--;
		if (stopping || (r == ETIMEDOUT && !queue))
			return NULL;
	}
	w = queue;
	queue = w->next;
	if (!queue)
		queue_tail = &queue;
	queued--;
	return w;
}

static void *worker_main(void *arg)
{
	struct worker *me = arg;
	bool free_me;
	struct work *w;

	pthread_mutex_lock(&workers_lock);
	while ((w = next_work())) {
		me->busy = true;
		pthread_mutex_unlock(&workers_lock);
		w->run(w); /* w may be gone once run returns */
		pthread_mutex_lock(&workers_lock);
		me->busy = false;
	}
	free_me = me->detached;
	me->done = true;
	pthread_mutex_unlock(&workers_lock);
	if (free_me)
		free(me);
	return NULL;
}

/* Under the lock: join the workers that left (never waiting for one still leaving). */
static void reap(void)
{
	struct worker **p = &workers;

	while (*p) {
		struct worker *wk = *p;

		if (wk->done && pthread_tryjoin_np(wk->th, NULL) == 0) {
			*p = wk->next;
			free(wk);
		} else {
			p = &wk->next;
		}
	}
}

/* Under the lock: one more worker. 0, or -errno. */
static int worker_start(void)
{
	struct worker *wk = calloc(1, sizeof(*wk));
	int r;

	if (!wk)
		return -ENOMEM;
	r = pthread_create(&wk->th, NULL, worker_main, wk);
	if (r) {
		free(wk);
		return -r;
	}
	wk->next = workers;
	workers = wk;
	return 0;
}

/*
 * In the child of a fork(): no worker was copied, the lock and the
 * condition may have been copied in use, and the work queued is the
 * parent's. Start afresh.
 */
static void workers_forked(void)
{
	struct worker *wk;

	pthread_mutex_init(&workers_lock, NULL);
	cond_init();
	while ((wk = workers)) {
		workers = wk->next;
		free(wk);
	}
	queue = NULL;
	queue_tail = &queue;
	queued = 0;
	idle = 0;
}

static void workers_setup(void)
{
	cond_init();
	pthread_atfork(NULL, NULL, workers_forked);
}

/* Under the lock: take w back off the queue (it is there). */
static void unqueue(struct work *w)
{
	struct work **p = &queue;

	while (*p != w)
		p = &(*p)->next;
	*p = w->next;
	if (queue_tail == &w->next)
		queue_tail = p;
	queued--;
}

int workers_run(struct work *w, void (*run)(struct work *w))
{
	static pthread_once_t set_up = PTHREAD_ONCE_INIT;
	int r = 0;

	pthread_once(&set_up, workers_setup);
	pthread_mutex_lock(&workers_lock);
	reap();
	w->run = run;
	w->next = NULL;
	*queue_tail = w;
	queue_tail = &w->next;
	queued++;
	/* More idle workers than work waiting: one of them takes it. */
	if (idle >= queued)
		pthread_cond_signal(&workers_cond);
	else
		r = worker_start();
	if (r)
		unqueue(w);
	pthread_mutex_unlock(&workers_lock);
	return r;
}

/* The library is unloaded, or the process exits: no idle worker outlives it. */
__attribute__((destructor)) static void workers_unload(void)
{
	struct worker *wk, *next, *join = NULL;

	pthread_mutex_lock(&workers_lock);
	if (!workers) { /* none started (nor set up), or all joined */
		pthread_mutex_unlock(&workers_lock);
		return;
	}
	stopping = true;
	pthread_cond_broadcast(&workers_cond);
	for (wk = workers; wk; wk = next) {
		next = wk->next;
		if (wk->busy) {
			wk->detached = true; /* it frees itself: not ours to touch any more */
			pthread_detach(wk->th);
		} else {
			wk->next = join;
			join = wk;
		}
	}
	workers = NULL;
	pthread_mutex_unlock(&workers_lock);
	while ((wk = join)) {
		join = wk->next;
		pthread_join(wk->th, NULL);
		free(wk);
	}
}
