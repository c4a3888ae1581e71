// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd's ring of slots: requests started on a positional side
 * (libaio for a local file, cut at DD_IO_MAX as Linux moves no more in one
 * call; libstriped for a striped file, one call a block), and their
 * completions gathered on the copy's thread. libaio completions are
 * collected with io_getevents(); a striped completion's callback runs on a
 * librados thread and only flags its slot and writes the eventfd.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "dd_ring.h"

/* Linux reads or writes at most DD_IO_MAX bytes per request. */
static unsigned int io_parts(size_t len)
{
	return len ? (unsigned int)((len + DD_IO_MAX - 1) / DD_IO_MAX) : 1;
}

int dd_ring_init(struct dd_ring *r, unsigned int nslots, size_t cap, bool aio)
{
	int ret;

	r->nslots = nslots;
	r->cap = cap;
	r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->efd < 0)
		return -errno;
	if (aio) {
		ret = io_setup((int)(nslots * 2 * io_parts(cap)), &r->aio);
		if (ret < 0) {
			r->aio = NULL;
			return ret;
		}
	}
	r->slots = calloc(nslots, sizeof(*r->slots));
	return r->slots ? 0 : -ENOMEM;
}

int dd_ring_prepare(struct dd_ring *r, bool buffers)
{
	unsigned int i;

	for (i = 0; i < r->nslots; i++) {
		r->slots[i].req.iocbs = calloc(io_parts(r->cap), sizeof(struct iocb));
		if (!r->slots[i].req.iocbs)
			return -ENOMEM;
		if (buffers && dd_slot_buffer(r, &r->slots[i]) < 0)
			return -E2BIG; /* the block buffers; told apart by the caller */
	}
	return 0;
}

void dd_ring_destroy(struct dd_ring *r)
{
	unsigned int i;

	if (r->slots)
		for (i = 0; i < r->nslots; i++) {
			striped_completion_release(r->slots[i].req.c);
			dd_slot_unmap(&r->slots[i]);
			free(r->slots[i].req.iocbs);
			free(r->slots[i].own);
		}
	free(r->slots);
	r->slots = NULL;
	if (r->aio)
		io_destroy(r->aio);
	r->aio = NULL;
	/* the eventfd stays open: a late librados callback may still write to it */
}

bool dd_ring_empty(const struct dd_ring *r)
{
	unsigned int i;

	for (i = 0; i < r->nslots; i++)
		if (r->slots[i].state != DD_SLOT_FREE)
			return false;
	return true;
}

bool dd_ring_holds_mapped(const struct dd_ring *r)
{
	unsigned int i;

	for (i = 0; i < r->nslots; i++)
		if (r->slots[i].state != DD_SLOT_FREE && dd_map_held(&r->slots[i].map))
			return true;
	return false;
}

int dd_slot_buffer(struct dd_ring *r, struct dd_slot *s)
{
	if (!s->own && posix_memalign((void **)&s->own, DD_ALIGN, r->cap)) {
		s->own = NULL;
		return -E2BIG;
	}
	s->buf = s->own;
	return 0;
}

void dd_slot_unmap(struct dd_slot *s)
{
	if (!dd_map_held(&s->map))
		return;
	dd_map_release(&s->map);
	s->buf = s->own;
}

/*
 * Runs on a librados thread just before the completion reads as complete:
 * flag the slot (so the copy's thread knows striped_completion_wait() will
 * not block for long) and wake that thread.
 */
static void on_striped_complete(struct striped_completion *sc, void *arg)
{
	struct dd_slot *s = arg;
	uint64_t one = 1;

	(void)sc;
	atomic_store(&s->req.signaled, 1);
	if (write(s->req.efd, &one, sizeof(one)) < 0) {
		/* the copy's thread also polls the completions: nothing is lost */
	}
}

static int submit_striped(struct dd_ring *r, struct dd_end *end, struct dd_slot *s, bool is_write,
			  uint64_t off, size_t len)
{
	struct dd_request *q = &s->req;
	int ret;

	q->efd = r->efd;
	atomic_store(&q->signaled, 0);
	ret = striped_completion_create(on_striped_complete, s, &q->c);
	if (ret < 0)
		return ret;
	/* A slot's buffer is left alone until its block completes: no copy. */
	ret = is_write ? striped_aio_write2(end->sf, q->c, s->buf, len, off, STRIPED_IO_ZEROCOPY)
		       : striped_aio_read(end->sf, q->c, s->buf, len, off);
	if (ret < 0) {
		striped_completion_release(q->c);
		q->c = NULL;
	}
	return ret;
}

/*
 * One libaio request per DD_IO_MAX bytes. When a later part cannot be
 * submitted, the parts in flight finish and the block fails with the error.
 */
static int submit_aio(struct dd_ring *r, struct dd_end *end, struct dd_slot *s, bool is_write,
		      uint64_t off, size_t len)
{
	struct dd_request *q = &s->req;
	unsigned int i, n = io_parts(len);
	int ret = 0;

	q->parts_left = 0;
	q->parts_res = 0;
	for (i = 0; i < n; i++) {
		struct iocb *cb = &q->iocbs[i];
		size_t at = (size_t)i * DD_IO_MAX;
		size_t part = len - at < DD_IO_MAX ? len - at : DD_IO_MAX;

		if (is_write)
			io_prep_pwrite(cb, end->fd, s->buf + at, part, (long long)(off + at));
		else
			io_prep_pread(cb, end->fd, s->buf + at, part, (long long)(off + at));
		io_set_eventfd(cb, r->efd);
		cb->data = s;
		ret = io_submit(r->aio, 1, &cb);
		if (ret != 1) {
			ret = ret < 0 ? ret : -EAGAIN;
			break;
		}
		q->parts_left++;
		ret = 0;
	}
	if (ret < 0 && q->parts_left)
		q->parts_res = ret;
	return q->parts_left ? 0 : ret;
}

int dd_ring_submit(struct dd_ring *r, struct dd_end *end, struct dd_slot *s, bool is_write,
		   uint64_t off, size_t len)
{
	int ret = end->kind == DD_END_STRIPED ? submit_striped(r, end, s, is_write, off, len)
					      : submit_aio(r, end, s, is_write, off, len);

	if (ret < 0)
		return ret;
	if (is_write) {
		s->state = DD_SLOT_WRITING;
		r->writes++;
	} else {
		s->state = DD_SLOT_READING;
		r->reads++;
	}
	return 0;
}

static void slot_done(struct dd_ring *r, struct dd_slot *s, long res, dd_ring_done_fn *done,
		      void *arg)
{
	if (s->state == DD_SLOT_READING)
		r->reads--;
	else
		r->writes--;
	done(arg, s, res);
}

/* A block is done when all its libaio parts are: bytes, or the first error. */
static void aio_part_done(struct dd_ring *r, struct dd_slot *s, long res, dd_ring_done_fn *done,
			  void *arg)
{
	struct dd_request *q = &s->req;

	if (res < 0 && q->parts_res >= 0)
		q->parts_res = res;
	else if (res >= 0 && q->parts_res >= 0)
		q->parts_res += res;
	if (--q->parts_left)
		return;
	slot_done(r, s, q->parts_res, done, arg);
}

static int harvest_aio(struct dd_ring *r, dd_ring_done_fn *done, void *arg)
{
	struct io_event ev[64];
	struct timespec zero = {0, 0};
	unsigned int i;
	int n, made = 0;

	for (;;) {
		n = io_getevents(r->aio, 0, 64, ev, &zero);
		if (n <= 0)
			break;
		for (i = 0; i < (unsigned int)n; i++)
			aio_part_done(r, ev[i].data, (long)ev[i].res, done, arg);
		made += n;
	}
	return made;
}

int dd_ring_harvest(struct dd_ring *r, dd_ring_done_fn *done, void *arg)
{
	int made = r->aio ? harvest_aio(r, done, arg) : 0;
	unsigned int i;
	long res;

	for (i = 0; i < r->nslots; i++) {
		struct dd_slot *s = &r->slots[i];

		if (!s->req.c || (s->state != DD_SLOT_READING && s->state != DD_SLOT_WRITING))
			continue;
		if (atomic_load(&s->req.signaled) || striped_completion_is_complete(s->req.c)) {
			striped_completion_wait(s->req.c); /* the callback has run: a short wait */
			res = (long)striped_completion_result(s->req.c);
			striped_completion_release(s->req.c);
			s->req.c = NULL;
			slot_done(r, s, res, done, arg);
			made++;
		}
	}
	return made;
}

void dd_ring_wait(struct dd_ring *r, int timeout_ms)
{
	struct pollfd pfd = {.fd = r->efd, .events = POLLIN};
	uint64_t val;

	/* Bounded so a lost wakeup costs at most a tenth of a second. */
	if (timeout_ms < 0 || timeout_ms > 100)
		timeout_ms = 100;
	if (poll(&pfd, 1, timeout_ms) > 0 && read(r->efd, &val, sizeof(val)) < 0) {
		/* counter already drained */
	}
}
