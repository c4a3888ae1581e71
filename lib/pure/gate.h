/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gate.c: a gate that those who enter pass while it is open; closing it
 * waits until everyone inside has left, and keeps newcomers waiting (or
 * refused, with nowait) until it opens again. A handle's calls pass one
 * (its own truncate closes it: engine/calls.c), a buffered handle's copies
 * into its window another (modes/buffered/).
 */
#ifndef STRIPED_GATE_H
#define STRIPED_GATE_H

#include "striped_i.h"

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t inside; /* entered, not left yet */
	bool closed;
};

int gate_init(struct gate *g);
void gate_destroy(struct gate *g);
/*
 * Wait while it is closed (with nowait: -EAGAIN instead), then count as
 * inside; *waited (if not NULL) says whether it had to wait.
 */
int gate_enter(struct gate *g, bool nowait, bool *waited);
void gate_leave(struct gate *g);
/* Close it (after whoever closed it before opened it), and wait until nobody is inside. */
void gate_close(struct gate *g);
void gate_open(struct gate *g);
/* Wait until nobody is inside, leaving the gate as it is. */
void gate_wait_empty(struct gate *g);

#endif /* STRIPED_GATE_H */
