// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The write-back of new files (writeback.h). Kept files are queued in the
 * order of their closes, so the oldest is always first; each stays on its
 * node (its open file, its draft) as while it was open, so that stat,
 * chmod, reopen and unlink find it as they find an open draft.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "writeback.h"

/* The most files kept at once: beyond it the oldest goes now (a draft is at most 64 KiB). */
#define KEPT_MAX 1024

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

struct kept {
	struct node *n;
	uint64_t due_ns;
	struct kept *next;
};

struct writeback {
	struct mount *m;
	struct striped_holder *holder;
	uint64_t age_ns;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct kept *first, **last;
	size_t count;
	bool stop;
	int (*close_kept)(struct mount *m, struct node *n);
	void (*write_asked)(struct mount *m, const char *name);
};

/* Written back when its time came: syslog says a failure. */
static void written_failed(struct mount *m, struct node *n, int r)
{
	char *path = node_path(&m->nodes, n);

	syslog(LOG_ERR, "striped-mount: %s: not written back: %s", path ? path : "(a file)",
	       strerror(-r));
	free(path);
}

/* A reader asks for name (on libstriped's holder thread). */
static void asked(void *arg, const char *name)
{
	struct writeback *wb = arg;

	wb->write_asked(wb->m, name);
}

/* The next kept file whose time came (or any, when too many are kept, or stopping). */
static struct kept *next_due(struct writeback *wb)
{
	while (!wb->stop) {
		uint64_t now = mono_ns();
		struct timespec until;

		if (wb->first && (wb->first->due_ns <= now || wb->count > KEPT_MAX)) {
			struct kept *k = wb->first;

			wb->first = k->next;
			if (!wb->first)
				wb->last = &wb->first;
			wb->count--;
			return k;
		}
		if (!wb->first) {
			pthread_cond_wait(&wb->cond, &wb->lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += (time_t)((wb->first->due_ns - now) / 1000000000u);
		until.tv_nsec += (long)((wb->first->due_ns - now) % 1000000000u);
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&wb->cond, &wb->lock, &until);
	}
	return NULL;
}

static void *write_back(void *arg)
{
	struct writeback *wb = arg;
	struct kept *k;

	pthread_mutex_lock(&wb->lock);
	while ((k = next_due(wb))) {
		int r;

		pthread_mutex_unlock(&wb->lock);
		r = wb->close_kept(wb->m, k->n);
		if (r)
			written_failed(wb->m, k->n, r);
		node_put(&wb->m->nodes, k->n);
		free(k);
		pthread_mutex_lock(&wb->lock);
	}
	pthread_mutex_unlock(&wb->lock);
	return NULL;
}

int writeback_start(struct mount *m, int (*close_kept)(struct mount *m, struct node *n),
		    void (*write_asked)(struct mount *m, const char *name), struct writeback **out)
{
	pthread_condattr_t attr;
	struct writeback *wb;
	int r;

	*out = NULL;
	if (!m->o.writeback_time)
		return 0;
	wb = calloc(1, sizeof(*wb));
	if (!wb)
		return -ENOMEM;
	wb->m = m;
	wb->close_kept = close_kept;
	wb->write_asked = write_asked;
	wb->age_ns = (uint64_t)m->o.writeback_time * 1000000000u;
	wb->last = &wb->first;
	pthread_mutex_init(&wb->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC); /* next_due() waits on it */
	pthread_cond_init(&wb->cond, &attr);
	pthread_condattr_destroy(&attr);
	r = striped_holder_open(m->io, asked, wb, &wb->holder);
	if (!r && (r = -pthread_create(&wb->thread, NULL, write_back, wb)))
		striped_holder_close(wb->holder);
	if (r) {
		pthread_cond_destroy(&wb->cond);
		pthread_mutex_destroy(&wb->lock);
		free(wb);
		return r;
	}
	*out = wb;
	return 0;
}

struct striped_holder *writeback_holder(struct mount *m)
{
	return m->wb ? m->wb->holder : NULL;
}

bool writeback_keep(struct mount *m, struct node *n)
{
	struct writeback *wb = m->wb;
	struct kept *k;

	if (!wb || !(k = calloc(1, sizeof(*k))))
		return false;
	node_hold(&m->nodes, n);
	k->n = n;
	k->due_ns = mono_ns() + wb->age_ns;
	pthread_mutex_lock(&wb->lock);
	*wb->last = k;
	wb->last = &k->next;
	wb->count++;
	if (wb->count == 1 || wb->count > KEPT_MAX)
		pthread_cond_signal(&wb->cond);
	pthread_mutex_unlock(&wb->lock);
	return true;
}

void writeback_stop(struct writeback *wb)
{
	if (!wb)
		return;
	pthread_mutex_lock(&wb->lock);
	wb->stop = true;
	pthread_cond_signal(&wb->cond);
	pthread_mutex_unlock(&wb->lock);
	pthread_join(wb->thread, NULL);
}

void writeback_end(struct writeback *wb)
{
	if (!wb)
		return;
	striped_holder_close(wb->holder);
	while (wb->first) { /* their files were closed with every other at the unmount */
		struct kept *k = wb->first;

		wb->first = k->next;
		free(k);
	}
	pthread_cond_destroy(&wb->cond);
	pthread_mutex_destroy(&wb->lock);
	free(wb);
}
