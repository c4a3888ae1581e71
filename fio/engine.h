/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fio-libstriped: an external ioengine that lets fio (3.33, as Debian ships
 * it) drive libstriped. What the engine's files share:
 *   engine.c  the options and the hook table fio loads: it calls the others;
 *   job.c     the job's state (struct sfio_data) and its one owner: checks the
 *             options, connects, frees; the error path, sfio_fail();
 *   file.c    fio files as striped files: size, open, close, unlink;
 *   io.c      queued reads and writes, completions turned into fio events,
 *             fsync and fdatasync as striped_aio_flush(), trim refused.
 *
 * fio's headers come from its source package (scripts/setup-deps --fio);
 * this engine uses only them, include/striped.h and librados' C API.
 */
#ifndef SFIO_ENGINE_H
#define SFIO_ENGINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rados/librados.h>
#include <striped.h>

#include "fio.h"

#define SFIO_NAME "fio-libstriped"

/* The job file's engine options (fio fills this at td->eo). */
struct sfio_options {
	void *pad; /* fio reads an option offset of 0 as "no offset" */
	char *clustername;
	char *pool;
	char *clientname;
	char *conf;
	char *nspace; /* the namespace= option */
	unsigned long long stripe_unit;
	unsigned long long stripe_count;
	unsigned long long object_size;
	unsigned int op_timeout;
};

/* One per fio job (thread_data): its own cluster handle, as rados.c and rbd.c keep. */
struct sfio_data {
	rados_t cluster;
	rados_ioctx_t io;
	struct striped_layout layout; /* for the files this job creates */

	/* Taken by libstriped's callbacks: guards everything below. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct flist_head done; /* sfio_iou whose call completed, not yet reaped */
	unsigned int in_flight; /* calls started whose callback has not run */

	/* getevents() fills, event() reads; only the job's thread touches them. */
	struct io_u **events;
	unsigned int events_max;
};

/* One per open fio file (FILE_ENG_DATA). */
struct sfio_file {
	struct striped_file *sf;
	unsigned int calls; /* in flight on this file, under sfio_data.lock */
};

/* One per io_u (io_u->engine_data). */
struct sfio_iou {
	struct flist_head list;
	struct io_u *io_u;
	struct sfio_data *sd;
	struct sfio_file *file;
	struct striped_completion *c;
	ssize_t result; /* the call's result, recorded by the callback */
};

/* job.c: calls nothing of the engine's other files */
void sfio_fail(struct thread_data *td, int err, const char *what);
struct sfio_data *sfio_job_get(struct thread_data *td);
void sfio_job_free(struct thread_data *td);

/* file.c: calls job.c only */
int sfio_size_files(struct thread_data *td);
int sfio_open_file(struct thread_data *td, struct fio_file *f);
int sfio_close_file(struct thread_data *td, struct fio_file *f);
int sfio_unlink_file(struct thread_data *td, struct fio_file *f);

/* io.c: calls job.c only */
enum fio_q_status sfio_queue(struct thread_data *td, struct io_u *io_u);
int sfio_getevents(struct thread_data *td, unsigned int min, unsigned int max,
		   const struct timespec *t);
struct io_u *sfio_event(struct thread_data *td, int event);
int sfio_io_u_init(struct thread_data *td, struct io_u *io_u);
void sfio_io_u_free(struct thread_data *td, struct io_u *io_u);

#endif /* SFIO_ENGINE_H */
