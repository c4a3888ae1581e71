// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fio-libstriped: the job's shared state and its one owner. A job's
 * struct sfio_data (its options checked, its cluster connection, the layout
 * of the files it creates, the completions in flight) is made, connected and
 * freed here only; file.c and io.c use it and report through sfio_fail(),
 * and engine.c's hooks call them all: the calls run one way, never back
 * into engine.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* fio's error path: the job stops with err, and the log says what failed. */
void sfio_fail(struct thread_data *td, int err, const char *what)
{
	log_err(SFIO_NAME ": %s: %s\n", what, strerror(err));
	td_verror(td, err, what);
}

/* "client.NAME" unless the name already carries a type, as rados.c does. */
static int client_id(const struct sfio_options *o, char *buf, size_t len)
{
	const char *name = o->clientname ? o->clientname : "admin";
	int n;

	if (strchr(name, '.'))
		n = snprintf(buf, len, "%s", name);
	else
		n = snprintf(buf, len, "client.%s", name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int configure_cluster(struct thread_data *td, struct sfio_data *sd)
{
	struct sfio_options *o = td->eo;
	const char *conf = o->conf ? o->conf : getenv("CEPH_CONF");
	char id[256];
	int r;

	r = client_id(o, id, sizeof(id));
	if (r < 0) {
		sfio_fail(td, -r, "clientname");
		return r;
	}
	r = rados_create2(&sd->cluster, o->clustername ? o->clustername : "ceph", id, 0);
	if (r < 0) {
		sfio_fail(td, -r, "rados_create2");
		return r;
	}
	/* NULL lets librados search its default places. */
	r = rados_conf_read_file(sd->cluster, conf);
	if (r < 0) {
		log_err(SFIO_NAME ": cannot read ceph configuration %s\n",
			conf ? conf : "(librados' default search path)");
		sfio_fail(td, -r, "rados_conf_read_file");
		return r;
	}
	r = striped_cluster_set_op_timeout(sd->cluster, o->op_timeout);
	if (r < 0)
		sfio_fail(td, -r, "op_timeout");
	return r;
}

static int connect_cluster(struct thread_data *td, struct sfio_data *sd)
{
	struct sfio_options *o = td->eo;
	int r;

	r = configure_cluster(td, sd);
	if (r < 0)
		goto err_shutdown;
	r = striped_cluster_connect(sd->cluster);
	if (r < 0) {
		sfio_fail(td, -r, "striped_cluster_connect");
		goto err_shutdown;
	}
	r = rados_ioctx_create(sd->cluster, o->pool, &sd->io);
	if (r < 0) {
		log_err(SFIO_NAME ": cannot open pool %s\n", o->pool);
		sfio_fail(td, -r, "rados_ioctx_create");
		goto err_shutdown;
	}
	/* Every object of the job's files, their heads and locks: NULL is the default one. */
	rados_ioctx_set_namespace(sd->io, o->nspace);
	return 0;

err_shutdown:
	if (sd->cluster) /* NULL when rados_create2() failed; rados_shutdown() needs a handle */
		rados_shutdown(sd->cluster);
	sd->cluster = NULL;
	return r;
}

static const char bad_layout[] =
    SFIO_NAME ": invalid layout stripe_unit=%llu stripe_count=%llu object_size=%llu: "
	      "stripe_unit must be a multiple of 64 KiB, object_size a multiple of "
	      "stripe_unit, each below 4 GiB\n";

/* Refuse what this engine cannot do before anything is created or connected. */
static int check_job(struct thread_data *td, struct striped_layout *layout)
{
	struct sfio_options *o = td->eo;

	if (!o->pool) {
		log_err(SFIO_NAME ": pool= is required\n");
		td_verror(td, EINVAL, "pool");
		return -EINVAL;
	}
	if (td_trim(td)) {
		log_err(SFIO_NAME ": trim is not supported: libstriped cannot punch holes yet\n");
		td_verror(td, EOPNOTSUPP, "trim");
		return -EOPNOTSUPP;
	}
	layout->stripe_unit = o->stripe_unit;
	layout->stripe_count = o->stripe_count;
	layout->object_size = o->object_size;
	if (striped_layout_validate(layout) < 0) {
		log_err(bad_layout, o->stripe_unit, o->stripe_count, o->object_size);
		td_verror(td, EINVAL, "layout");
		return -EINVAL;
	}
	return 0;
}

static void free_data(struct sfio_data *sd)
{
	if (sd->io) { /* set only once connected */
		rados_ioctx_destroy(sd->io);
		rados_shutdown(sd->cluster);
	}
	pthread_cond_destroy(&sd->cond);
	pthread_mutex_destroy(&sd->lock);
	free(sd->events);
	free(sd);
}

/*
 * The job's data, connected. setup() and init() both need it and fio calls
 * them in either order (setup first with create_serialize, the default), so
 * whichever comes first creates it.
 */
struct sfio_data *sfio_job_get(struct thread_data *td)
{
	struct sfio_data *sd = td->io_ops_data;

	if (sd)
		return sd;
	sd = calloc(1, sizeof(*sd));
	if (!sd) {
		sfio_fail(td, ENOMEM, "calloc");
		return NULL;
	}
	pthread_mutex_init(&sd->lock, NULL);
	pthread_cond_init(&sd->cond, NULL);
	INIT_FLIST_HEAD(&sd->done);
	if (check_job(td, &sd->layout) < 0 || connect_cluster(td, sd) < 0) {
		free_data(sd);
		return NULL;
	}
	td->io_ops_data = sd;
	return sd;
}

/* Frees the job's data once no callback can touch it; NULL-safe. */
void sfio_job_free(struct thread_data *td)
{
	struct sfio_data *sd = td->io_ops_data;

	if (!sd)
		return;
	/* A callback still to run would touch sd. */
	pthread_mutex_lock(&sd->lock);
	while (sd->in_flight)
		pthread_cond_wait(&sd->cond, &sd->lock);
	pthread_mutex_unlock(&sd->lock);
	free_data(sd);
	td->io_ops_data = NULL;
}
