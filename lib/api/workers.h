/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * workers.c: the threads that the calls which must not block their submitter
 * run on; idle ones are joined when the library is unloaded or the process exits.
 */
#ifndef STRIPED_WORKERS_H
#define STRIPED_WORKERS_H

/* A piece of work for a worker: run(w) on its thread, which may wait as long as it must. */
struct work {
	void (*run)(struct work *w);
	struct work *next;
};

/* run(w) on a worker: one that is idle, or one started for it. 0, or -errno (w does not run). */
int workers_run(struct work *w, void (*run)(struct work *w));

#endif /* STRIPED_WORKERS_H */
