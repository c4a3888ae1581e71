// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pool walk, in parallel. rados_nobjects_list_next() asks one
 * placement group after another, one request in flight, so a walk runs at
 * one OSD's pace while the others wait. Here the pool's hash space is cut
 * into more slices than there are threads (so a slow slice does not hold the
 * end), and each thread takes the next slice and lists it with
 * rados_object_list(), a page of names per request.
 *
 * The caller's function sees one name at a time: the threads hand it a whole
 * page under one lock, so it needs none of its own. A stop (its nonzero
 * return, or a librados error) is seen by every thread before its next page.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

/* Slices per thread: enough that the threads finish together. */
#define SLICES_PER_THREAD 4
/* The OSDs' own cap on a page (osd_max_pgls). */
#define PAGE_NAMES 1024

struct walk {
	rados_ioctx_t io;
	striped_walk_fn fn;
	void *arg;
	rados_object_list_cursor begin, end;
	size_t slices;

	pthread_mutex_t lock; /* guards all below, and the calls of fn */
	size_t next_slice;
	int result; /* the first stop: fn's return or a librados error */
};

/* A name of the page made a C string; *buf grows as names need. */
static const char *name_of(const rados_object_list_item *item, char **buf, size_t *cap)
{
	if (item->oid_length + 1 > *cap) {
		char *more = realloc(*buf, item->oid_length + 1);

		if (!more)
			return NULL;
		*buf = more;
		*cap = item->oid_length + 1;
	}
	memcpy(*buf, item->oid, item->oid_length);
	(*buf)[item->oid_length] = '\0';
	return *buf;
}

/* Hand one page to fn, under the walk's lock; false once the walk stops. */
static bool deliver(struct walk *w, const rados_object_list_item *page, int n, char **buf,
		    size_t *cap)
{
	bool going;

	pthread_mutex_lock(&w->lock);
	for (int i = 0; i < n && !w->result; i++) {
		const char *oid = name_of(&page[i], buf, cap);

		w->result = oid ? w->fn(w->arg, oid) : -ENOMEM;
	}
	going = !w->result;
	pthread_mutex_unlock(&w->lock);
	return going;
}

static void stop(struct walk *w, int r)
{
	pthread_mutex_lock(&w->lock);
	if (!w->result)
		w->result = r;
	pthread_mutex_unlock(&w->lock);
}

static bool take_slice(struct walk *w, size_t *slice)
{
	bool got;

	pthread_mutex_lock(&w->lock);
	got = !w->result && w->next_slice < w->slices;
	if (got)
		*slice = w->next_slice++;
	pthread_mutex_unlock(&w->lock);
	return got;
}

/*
 * Every name of one slice, page by page, until its end or the walk's stop.
 * librados fills cursors the caller allocated (any cursor will do), and a
 * page's next cursor may be its start, as Ceph's own tests use it.
 */
static void list_slice(struct walk *w, size_t slice, char **buf, size_t *cap)
{
	rados_object_list_item page[PAGE_NAMES];
	rados_object_list_cursor at = rados_object_list_begin(w->io);
	rados_object_list_cursor finish = rados_object_list_end(w->io);
	bool going = true;

	rados_object_list_slice(w->io, w->begin, w->end, slice, w->slices, &at, &finish);
	while (going && rados_object_list_cursor_cmp(w->io, at, finish) < 0) {
		int n = rados_object_list(w->io, at, finish, PAGE_NAMES, NULL, 0, page, &at);

		if (n < 0) {
			stop(w, n);
			break;
		}
		going = deliver(w, page, n, buf, cap);
		rados_object_list_free((size_t)n, page);
	}
	rados_object_list_cursor_free(w->io, at);
	rados_object_list_cursor_free(w->io, finish);
}

static void *walker(void *p)
{
	struct walk *w = p;
	char *buf = NULL;
	size_t cap = 0, slice;

	while (take_slice(w, &slice))
		list_slice(w, slice, &buf, &cap);
	free(buf);
	return NULL;
}

/* Start the threads and wait for them; the calling thread is one of them. */
static int run_walkers(struct walk *w, unsigned int parallel)
{
	pthread_t threads[STRIPED_WALK_PARALLEL_MAX];
	unsigned int started = 0;

	while (started + 1 < parallel && !pthread_create(&threads[started], NULL, walker, w))
		started++;
	if (parallel > 1 && !started)
		stop(w, -EAGAIN); /* not one helper: say so rather than crawl */
	walker(w);
	while (started)
		pthread_join(threads[--started], NULL);
	return w->result;
}

int striped_objects_walk(rados_ioctx_t io, unsigned int parallel, striped_walk_fn fn, void *arg)
{
	if (!io || !fn || parallel > STRIPED_WALK_PARALLEL_MAX)
		return -EINVAL;
	return api_objects_walk(io, parallel, fn, arg);
}

int api_objects_walk(rados_ioctx_t io, unsigned int parallel, striped_walk_fn fn, void *arg)
{
	struct walk w = {.io = io, .fn = fn, .arg = arg};
	int r;

	if (!parallel)
		parallel = STRIPED_WALK_PARALLEL;
	w.slices = (size_t)parallel * SLICES_PER_THREAD;
	w.begin = rados_object_list_begin(io);
	w.end = rados_object_list_end(io);
	pthread_mutex_init(&w.lock, NULL);
	r = run_walkers(&w, parallel);
	pthread_mutex_destroy(&w.lock);
	rados_object_list_cursor_free(io, w.begin);
	rados_object_list_cursor_free(io, w.end);
	return r;
}
