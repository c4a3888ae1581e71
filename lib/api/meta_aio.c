// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Open, truncate, remove and append without blocking the submitter. Each
 * takes round trips that depend on one another (lock, read the metadata,
 * clean objects, fence the last step; claim a range, then write it), so
 * each runs, as its synchronous form, on a worker (workers.c: an idle
 * thread, or one started for it, never queued behind another call), and
 * completes the caller's completion from there. The arguments are checked
 * in the submitter: bad input is refused at once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "completion.h"
#include "name.h"
#include "workers.h"

enum meta_kind { META_OPEN, META_TRUNCATE, META_REMOVE, META_APPEND };

struct meta_job {
	struct work work; /* first: the worker gives it back */
	enum meta_kind kind;
	struct striped_completion *c;
	rados_ioctx_t io;
	char *name;
	int flags;
	struct striped_layout layout;
	bool has_layout;
	struct striped_file **out;
	struct striped_file *f;
	uint64_t size;
	const void *buf; /* append: the caller's, valid until completion */
	ssize_t result;
};

/* The call's result: the job's own (an append's length), or the error; the job goes. */
static ssize_t meta_finish(struct striped_completion *c, int first_error)
{
	struct meta_job *j = c->call;
	ssize_t r = first_error ? first_error : j->result;

	free(j->name);
	free(j);
	return r;
}

static void meta_run(struct work *w)
{
	struct meta_job *j = (struct meta_job *)w;
	ssize_t r;

	switch (j->kind) {
	case META_OPEN:
		r = api_open(j->io, j->name, j->flags, j->has_layout ? &j->layout : NULL, j->out);
		break;
	case META_TRUNCATE:
		r = api_truncate(j->f, j->size);
		break;
	case META_APPEND:
		r = api_append(j->f, j->buf, j->size);
		break;
	default:
		r = api_remove(j->io, j->name);
		break;
	}
	j->result = r;
	completion_submit_end(j->c, r < 0 ? (int)r : 0); /* meta_finish frees j */
}

/* Start j on a worker; a worker that cannot start fails the call through c. */
static int meta_start(struct meta_job *j)
{
	int r = completion_start(j->c, meta_finish, j, NULL, NULL, 0);

	if (r) {
		free(j->name);
		free(j);
		return r;
	}
	r = workers_run(&j->work, meta_run);
	if (r)
		completion_submit_end(j->c, r); /* meta_finish frees j */
	return 0;
}

static struct meta_job *meta_job_new(enum meta_kind kind, struct striped_completion *c,
				     const char *name)
{
	struct meta_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->kind = kind;
	j->c = c;
	if (name && !(j->name = strdup(name))) {
		free(j);
		return NULL;
	}
	return j;
}

int striped_aio_open(rados_ioctx_t io, struct striped_completion *c, const char *name, int flags,
		     const struct striped_layout *layout, struct striped_file **out)
{
	int r = c ? api_check_open(io, name, flags, layout, out) : -EINVAL;
	struct meta_job *j;

	if (r)
		return r;
	j = meta_job_new(META_OPEN, c, name);
	if (!j)
		return -ENOMEM;
	j->io = io;
	j->flags = flags;
	j->out = out;
	if (layout) {
		j->layout = *layout;
		j->has_layout = true;
	}
	return meta_start(j);
}

int striped_aio_truncate(struct striped_file *f, struct striped_completion *c, uint64_t size)
{
	struct meta_job *j;

	if (!f || !c)
		return -EINVAL;
	j = meta_job_new(META_TRUNCATE, c, NULL);
	if (!j)
		return -ENOMEM;
	j->f = f;
	j->size = size;
	return meta_start(j);
}

int striped_aio_remove(rados_ioctx_t io, struct striped_completion *c, const char *name)
{
	int r = c ? name_check(io, name) : -EINVAL;
	struct meta_job *j;

	if (r)
		return r;
	j = meta_job_new(META_REMOVE, c, name);
	if (!j)
		return -ENOMEM;
	j->io = io;
	return meta_start(j);
}

int striped_aio_append(struct striped_file *f, struct striped_completion *c, const void *buf,
		       size_t len)
{
	struct meta_job *j;

	if (!f || !c || (!buf && len) || len > SSIZE_MAX)
		return -EINVAL;
	j = meta_job_new(META_APPEND, c, NULL);
	if (!j)
		return -ENOMEM;
	j->f = f;
	j->buf = buf;
	j->size = len;
	return meta_start(j);
}
