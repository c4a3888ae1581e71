// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fio-libstriped: the job's options and the hook table fio finds by the
 * symbol name "ioengine" when a job says
 * ioengine=external:/path/to/fio-libstriped.so. The hooks call into job.c
 * (the job's state), file.c and io.c; nothing calls back into this file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "optgroup.h"

#define SFIO_OPTION(_name, _type, _field, _def, _help)                                             \
	{                                                                                          \
		.name = _name, .lname = _name, .type = _type,                                      \
		.off1 = offsetof(struct sfio_options, _field), .def = _def, .help = _help,         \
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_RBD,                              \
	}

/* Named as fio's rados and rbd engines name theirs where they overlap. */
static struct fio_option options[] = {
    SFIO_OPTION("clustername", FIO_OPT_STR_STORE, clustername, NULL,
		"Cluster name for ceph (default ceph)"),
    SFIO_OPTION("pool", FIO_OPT_STR_STORE, pool, NULL,
		"Ceph pool holding the striped files (required)"),
    SFIO_OPTION("clientname", FIO_OPT_STR_STORE, clientname, NULL,
		"Ceph client name, with or without 'client.' (default admin)"),
    SFIO_OPTION("conf", FIO_OPT_STR_STORE, conf, NULL,
		"Ceph configuration file (default $CEPH_CONF, then librados' search path)"),
    SFIO_OPTION("namespace", FIO_OPT_STR_STORE, nspace, NULL,
		"RADOS namespace of the striped files in the pool (default: the default one)"),
    /* The layout applies to files the job creates; a file keeps its own. */
    SFIO_OPTION("stripe_unit", FIO_OPT_STR_VAL, stripe_unit, "4m",
		"Stripe unit of new files (a multiple of 64k)"),
    SFIO_OPTION("stripe_count", FIO_OPT_STR_VAL, stripe_count, "1",
		"Objects a stripe is dealt over, for new files"),
    SFIO_OPTION("object_size", FIO_OPT_STR_VAL, object_size, "4m",
		"Object size of new files (a multiple of stripe_unit)"),
    SFIO_OPTION("op_timeout", FIO_OPT_INT, op_timeout, "0",
		"Fail RADOS operations after this many seconds (0: wait forever)"),
    {
	.name = NULL,
    },
};

/*
 * Runs in fio's main process, before it forks the jobs (create_serialize):
 * librados' threads do not survive fork(), so the job runs as a thread, as
 * fio's rados and rbd engines force too. Tells fio each file's size.
 */
static int sfio_setup(struct thread_data *td)
{
	td->o.use_thread = 1;
	if (!sfio_job_get(td))
		return 1;
	if (sfio_size_files(td)) {
		/* fio reaps a job whose setup failed without calling cleanup(). */
		sfio_job_free(td);
		return 1;
	}
	return 0;
}

static int sfio_init(struct thread_data *td)
{
	struct sfio_data *sd = sfio_job_get(td);

	if (!sd)
		return 1;
	if (!sd->events) {
		sd->events_max = td->o.iodepth;
		sd->events = calloc(sd->events_max, sizeof(*sd->events));
		if (!sd->events) {
			sfio_fail(td, ENOMEM, "calloc");
			return 1;
		}
	}
	return 0;
}

/* Files are closed before this (fio closes them, then frees io_us, then calls it). */
static void sfio_cleanup(struct thread_data *td)
{
	sfio_job_free(td);
}

/*
 * FIO_DISKLESSIO: fio must not open, stat, lay out or unlink the file name
 * on the local file system; every one of those goes through the hooks here.
 * No invalidate hook: libstriped keeps no cache to drop, and fio skips
 * invalidation for a diskless engine without one.
 */
__attribute__((visibility("default"))) struct ioengine_ops ioengine = {
    .name = SFIO_NAME,
    .version = FIO_IOOPS_VERSION,
    .flags = FIO_DISKLESSIO,
    .setup = sfio_setup,
    .init = sfio_init,
    .queue = sfio_queue,
    .getevents = sfio_getevents,
    .event = sfio_event,
    .cleanup = sfio_cleanup,
    .open_file = sfio_open_file,
    .close_file = sfio_close_file,
    .unlink_file = sfio_unlink_file,
    .io_u_init = sfio_io_u_init,
    .io_u_free = sfio_io_u_free,
    .options = options,
    .option_struct_size = sizeof(struct sfio_options),
};
