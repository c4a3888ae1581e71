// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Holders of files not yet written (holder.h). A client that keeps new
 * files in memory past their close (the mount's write-back) makes each
 * one's head at once, empty, marked with its client id; readers that find
 * the mark notify the holder's object with the file's name, and the
 * holder writes the file back before it answers. Its answers run on a
 * thread of its own: a watch callback must not wait, and writing back is
 * a round trip.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "head.h"
#include "holder.h"
#include "meta.h"
#include "rados_cxx.h"

/* How long a reader waits for the holder: a live one answers in a round trip or two. */
#define HOLDER_TIMEOUT_MS 5000
/* What a holder answers once it has written the file back (or holds it no more). */
#define HOLDER_ANSWER "written"
#define HOLDER_OID_MAX 64
/* ".0000000000000000": what a head's object name adds to its file's */
#define HEAD_SUFFIX_LEN 17

struct ask {
	uint64_t notify_id, cookie;
	char *name;
	struct ask *next;
};

struct striped_holder {
	rados_ioctx_t io;
	char oid[HOLDER_OID_MAX];
	uint64_t id;
	uint64_t watch;
	void (*asked)(void *arg, const char *name);
	void *arg;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ask *first, **last; /* asks in the order they came */
	bool stop;
	bool watching;	   /* watch is a registered watch (unwatch it once) */
	bool watch_broken; /* asks may have been missed: watch again */
};

static void holder_oid(uint64_t id, char oid[HOLDER_OID_MAX])
{
	snprintf(oid, HOLDER_OID_MAX, "striper.holder.%llu", (unsigned long long)id);
}

uint64_t holder_id(const struct striped_holder *h)
{
	return h->id;
}

/* A watch callback: queued for the holder's thread (it must not wait here). */
static void heard(void *arg, uint64_t notify_id, uint64_t cookie, uint64_t notifier_id,
		  void *data, size_t len)
{
	struct striped_holder *h = arg;
	struct ask *a = calloc(1, sizeof(*a));

	(void)notifier_id;
	/* the head's name: the file's, then ".%016x" (object 0) */
	if (len > HEAD_SUFFIX_LEN)
		len -= HEAD_SUFFIX_LEN;
	if (a && (a->name = malloc(len + 1))) {
		memcpy(a->name, data, len);
		a->name[len] = '\0';
	}
	if (!a || !a->name) { /* answered unwritten: the reader asks again */
		if (a)
			free(a);
		rados_notify_ack(h->io, h->oid, notify_id, cookie, NULL, 0);
		return;
	}
	a->notify_id = notify_id;
	a->cookie = cookie;
	pthread_mutex_lock(&h->lock);
	*h->last = a;
	h->last = &a->next;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

static void watch_lost(void *arg, uint64_t cookie, int err)
{
	struct striped_holder *h = arg;

	(void)cookie;
	(void)err;
	pthread_mutex_lock(&h->lock);
	h->watch_broken = true;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

static int watch(struct striped_holder *h)
{
	int r = rados_watch3(h->io, h->oid, &h->watch, heard, watch_lost, 30, h);

	h->watching = r == 0;
	return r;
}

static void unwatch(struct striped_holder *h)
{
	if (h->watching)
		rados_unwatch2(h->io, h->watch);
	h->watching = false;
}

/* The holder's thread: each ask answered once the holder has written the file back. */
static void *answer_asks(void *arg)
{
	struct striped_holder *h = arg;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		struct ask *a = h->first;

		if (h->watch_broken && !h->stop) {
			h->watch_broken = false;
			pthread_mutex_unlock(&h->lock);
			unwatch(h);
			if (watch(h)) { /* try again shortly (a fenced client never can) */
				struct timespec pause = {1, 0};

				nanosleep(&pause, NULL);
				pthread_mutex_lock(&h->lock);
				h->watch_broken = true;
				continue;
			}
			pthread_mutex_lock(&h->lock);
			continue;
		}
		if (!a && h->stop)
			break;
		if (!a) {
			pthread_cond_wait(&h->cond, &h->lock);
			continue;
		}
		h->first = a->next;
		if (!h->first)
			h->last = &h->first;
		pthread_mutex_unlock(&h->lock);
		h->asked(h->arg, a->name);
		rados_notify_ack(h->io, h->oid, a->notify_id, a->cookie, HOLDER_ANSWER,
				 sizeof(HOLDER_ANSWER) - 1);
		free(a->name);
		free(a);
		pthread_mutex_lock(&h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int holder_open(rados_ioctx_t io, void (*asked)(void *arg, const char *name), void *arg,
		struct striped_holder **out)
{
	struct striped_holder *h = calloc(1, sizeof(*h));
	int r;

	if (!h)
		return -ENOMEM;
	h->io = io;
	h->id = rados_get_instance_id(rados_ioctx_get_cluster(io));
	h->asked = asked;
	h->arg = arg;
	h->last = &h->first;
	holder_oid(h->id, h->oid);
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	r = rados_write_full(io, h->oid, "", 0); /* a watch needs its object */
	if (!r)
		r = watch(h);
	if (!r && (r = -pthread_create(&h->thread, NULL, answer_asks, h)))
		unwatch(h);
	if (r) {
		if (r != -EPERM && r != -EACCES)
			rados_remove(io, h->oid);
		pthread_cond_destroy(&h->cond);
		pthread_mutex_destroy(&h->lock);
		free(h);
		return r;
	}
	*out = h;
	return 0;
}

void holder_close(struct striped_holder *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->thread, NULL); /* the thread watches again no more */
	unwatch(h);
	rados_watch_flush(rados_ioctx_get_cluster(h->io)); /* no callback runs after this */
	while (h->first) { /* heard after the thread ended: their readers time out */
		struct ask *a = h->first;

		h->first = a->next;
		free(a->name);
		free(a);
	}
	rados_remove(h->io, h->oid);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* Whether some watcher answered the notify as a holder that wrote the file back. */
static bool written_back(char *reply, size_t len)
{
	struct notify_ack_t *acks;
	struct notify_timeout_t *timeouts;
	size_t nacks, ntimeouts;
	bool answered = false;

	if (rados_decode_notify_response(reply, len, &acks, &nacks, &timeouts, &ntimeouts))
		return false;
	for (size_t i = 0; i < nacks; i++)
		answered |= acks[i].payload_len == sizeof(HOLDER_ANSWER) - 1 &&
			    !memcmp(acks[i].payload, HOLDER_ANSWER, sizeof(HOLDER_ANSWER) - 1);
	rados_free_notify_response(acks, nacks, timeouts);
	return answered;
}

/*
 * Holders that did not answer lately: their other files are not waited for
 * again (a killed holder's watch lingers 30 s, and each notify would wait
 * HOLDER_TIMEOUT_MS). A ring: the oldest forgotten first.
 */
#define SILENT_MAX 16
#define SILENT_NS (60ull * 1000000000ull)
static struct {
	uint64_t id, at_ns;
} silent[SILENT_MAX];
static unsigned silent_next;
static pthread_mutex_t silent_lock = PTHREAD_MUTEX_INITIALIZER;

static bool was_silent(uint64_t id)
{
	uint64_t now = clock_now_ns();
	bool yes = false;

	pthread_mutex_lock(&silent_lock);
	for (unsigned i = 0; i < SILENT_MAX && !yes; i++)
		yes = silent[i].id == id && now - silent[i].at_ns < SILENT_NS;
	pthread_mutex_unlock(&silent_lock);
	return yes;
}

static void note_silent(uint64_t id)
{
	pthread_mutex_lock(&silent_lock);
	silent[silent_next].id = id;
	silent[silent_next].at_ns = clock_now_ns();
	silent_next = (silent_next + 1) % SILENT_MAX;
	pthread_mutex_unlock(&silent_lock);
}

int holder_settle(rados_ioctx_t io, const char *oid, uint64_t id, int asked_before)
{
	char holder[HOLDER_OID_MAX], *reply = NULL;
	size_t len = 0;
	bool answered = false;
	int r = -ETIMEDOUT;

	holder_oid(id, holder);
	if (asked_before < HOLDER_ASKS && !was_silent(id))
		r = rados_notify2(io, holder, oid, strlen(oid), HOLDER_TIMEOUT_MS, &reply, &len);
	if ((r == 0 || r == -ETIMEDOUT) && reply)
		answered = written_back(reply, len);
	if (reply)
		rados_buffer_free(reply);
	if (answered)
		return 0;
	if (r == -ETIMEDOUT && asked_before < HOLDER_ASKS)
		note_silent(id);
	/* No holder answered (gone, or its object too): the file stays as RADOS has it. */
	r = unhold_if(io, oid, id);
	return r == -ECANCELED || r == -ENOENT ? 0 : r;
}

bool holder_ask_needed(rados_ioctx_t io, uint64_t held)
{
	return held && held != rados_get_instance_id(rados_ioctx_get_cluster(io));
}

int holder_read_meta(rados_ioctx_t io, const char *oid, struct head_meta *m)
{
	int r;

	for (int asked = 0;; asked++) {
		uint64_t held;

		r = head_read_meta(io, oid, m);
		if (r || !holder_ask_needed(io, m->held))
			return r;
		held = m->held;
		head_meta_free(m);
		r = holder_settle(io, oid, held, asked);
		if (r)
			return r;
	}
}
