// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fio-libstriped: queued I/O. Each read or write is one striped_aio_* call
 * (all of its object requests in flight at once); its completion callback
 * only records the result and hands the io_u to the job's thread, which
 * turns it into a fio event in getevents().
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "engine.h"

/* On a librados thread: record, count, signal, return; never block here. */
static void call_done(struct striped_completion *c, void *arg)
{
	struct sfio_iou *iou = arg;
	struct sfio_data *sd = iou->sd;

	pthread_mutex_lock(&sd->lock);
	iou->result = striped_completion_result(c);
	flist_add_tail(&iou->list, &sd->done);
	iou->file->calls--;
	sd->in_flight--;
	pthread_cond_broadcast(&sd->cond);
	pthread_mutex_unlock(&sd->lock);
}

/* Counted before the call starts: its callback may run before the call returns. */
static void count_call(struct sfio_iou *iou, int delta)
{
	struct sfio_data *sd = iou->sd;

	pthread_mutex_lock(&sd->lock);
	iou->file->calls += delta;
	sd->in_flight += delta;
	pthread_mutex_unlock(&sd->lock);
}

static int start_call(struct sfio_iou *iou, struct io_u *io_u)
{
	int r;

	r = striped_completion_create(call_done, iou, &iou->c);
	if (r < 0)
		return r;
	iou->file = FILE_ENG_DATA(io_u->file);
	count_call(iou, 1);
	switch (io_u->ddir) {
	case DDIR_WRITE:
		/* fio leaves an io_u's buffer alone until its event is reaped: no copy. */
		r = striped_aio_write2(iou->file->sf, iou->c, io_u->xfer_buf, io_u->xfer_buflen,
				       io_u->offset, STRIPED_IO_ZEROCOPY);
		break;
	case DDIR_READ:
		r = striped_aio_read(iou->file->sf, iou->c, io_u->xfer_buf, io_u->xfer_buflen,
				     io_u->offset);
		break;
	default: /* the syncs */
		r = striped_aio_flush(iou->file->sf, iou->c);
		break;
	}
	if (r < 0) { /* refused before anything was sent: no callback comes */
		count_call(iou, -1);
		striped_completion_release(iou->c);
		iou->c = NULL;
	}
	return r;
}

enum fio_q_status sfio_queue(struct thread_data *td, struct io_u *io_u)
{
	struct sfio_iou *iou = io_u->engine_data;
	int r;

	fio_ro_check(td, io_u);
	switch (io_u->ddir) {
	case DDIR_READ:
	case DDIR_WRITE:
		r = start_call(iou, io_u);
		if (!r)
			return FIO_Q_QUEUED;
		break;
	case DDIR_SYNC:
	case DDIR_DATASYNC:
	case DDIR_SYNC_FILE_RANGE:
		/*
		 * A write RADOS has acknowledged is on stable storage on every
		 * replica, so these mean "every call submitted on the file before
		 * has completed": striped_aio_flush(), queued like the others. (A
		 * failed write reports its error on its own io_u, not again here.)
		 */
		r = start_call(iou, io_u);
		if (!r)
			return FIO_Q_QUEUED;
		break;
	default:
		/* Trim: libstriped cannot punch holes yet (setup refuses trim jobs). */
		r = -EOPNOTSUPP;
		break;
	}
	/* fio logs the failed io_u and ends the job unless continue_on_error. */
	io_u->error = -r;
	return FIO_Q_COMPLETED;
}

/* Outside sd->lock: releasing a completion may take libstriped's own locks. */
static void finish_io_u(struct sfio_iou *iou)
{
	struct io_u *io_u = iou->io_u;

	if (iou->result < 0) {
		io_u->error = -iou->result;
	} else {
		io_u->error = 0;
		io_u->resid = io_u->xfer_buflen - (unsigned long long)iou->result;
	}
	striped_completion_release(iou->c);
	iou->c = NULL;
}

static struct timespec deadline_after(const struct timespec *t)
{
	struct timespec d;

	clock_gettime(CLOCK_REALTIME, &d); /* the clock pthread_cond_timedwait uses */
	d.tv_sec += t->tv_sec;
	d.tv_nsec += t->tv_nsec;
	if (d.tv_nsec >= 1000000000L) {
		d.tv_sec++;
		d.tv_nsec -= 1000000000L;
	}
	return d;
}

/* Move up to max completed io_us into sd->events[n..]; under sd->lock. */
static unsigned int take_done(struct sfio_data *sd, unsigned int n, unsigned int max)
{
	struct sfio_iou *iou;

	while (n < max && !flist_empty(&sd->done)) {
		iou = flist_first_entry(&sd->done, struct sfio_iou, list);
		flist_del_init(&iou->list);
		sd->events[n++] = iou->io_u;
	}
	return n;
}

int sfio_getevents(struct thread_data *td, unsigned int min, unsigned int max,
		   const struct timespec *t)
{
	struct sfio_data *sd = td->io_ops_data;
	struct timespec deadline;
	unsigned int n = 0, i;

	if (max > sd->events_max)
		max = sd->events_max;
	if (t)
		deadline = deadline_after(t);
	pthread_mutex_lock(&sd->lock);
	for (;;) {
		n = take_done(sd, n, max);
		if (n >= min)
			break;
		if (!t)
			pthread_cond_wait(&sd->cond, &sd->lock);
		else if (pthread_cond_timedwait(&sd->cond, &sd->lock, &deadline) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&sd->lock);
	for (i = 0; i < n; i++)
		finish_io_u(sd->events[i]->engine_data);
	return (int)n;
}

struct io_u *sfio_event(struct thread_data *td, int event)
{
	struct sfio_data *sd = td->io_ops_data;

	return sd->events[event];
}

int sfio_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct sfio_iou *iou = calloc(1, sizeof(*iou));

	if (!iou) {
		sfio_fail(td, ENOMEM, "calloc");
		return 1;
	}
	INIT_FLIST_HEAD(&iou->list);
	iou->io_u = io_u;
	iou->sd = td->io_ops_data;
	io_u->engine_data = iou;
	return 0;
}

void sfio_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	struct sfio_iou *iou = io_u->engine_data;

	(void)td;
	if (!iou)
		return;
	/* Every call has completed: close_file() waited for the file's calls. */
	striped_completion_release(iou->c);
	free(iou);
	io_u->engine_data = NULL;
}
