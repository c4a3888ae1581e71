/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* throttle.c: bound operations and bytes in flight (pure) */
#ifndef STRIPED_THROTTLE_H
#define STRIPED_THROTTLE_H

#include "striped_i.h"

struct striped_throttle {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t max_ops, max_bytes;
	uint64_t ops, bytes;
	/* Waiters are served first come, first served: a ticket each. */
	uint64_t next_ticket, serving;
	/* Operations that timed out (throttle_timed_out()): waiters give up then. */
	uint64_t timeouts;
};

int throttle_init(struct striped_throttle *t, uint64_t max_ops, uint64_t max_bytes);
void throttle_destroy(struct striped_throttle *t);
void throttle_set(struct striped_throttle *t, uint64_t max_ops, uint64_t max_bytes);
/*
 * The bounds now (striped_file_set_throttle() moves them), read without the
 * lock: the engine asks on every call. max_ops 1 is the serial path.
 */
uint64_t throttle_max_bytes(struct striped_throttle *t);
uint64_t throttle_max_ops(struct striped_throttle *t);
bool throttle_try_get(struct striped_throttle *t, uint64_t bytes);
bool throttle_try_get_many(struct striped_throttle *t, uint64_t ops, uint64_t bytes);
/*
 * Wait for room: 0; -ETIMEDOUT when an operation in flight timed out while
 * the caller waited (the cluster did not answer within the op timeout: the
 * caller has waited that long already, and gives up rather than wait for
 * its own operations as long again).
 */
int throttle_get(struct striped_throttle *t, uint64_t bytes);
int throttle_get_many(struct striped_throttle *t, uint64_t ops, uint64_t bytes);
/* An operation ended with -ETIMEDOUT: before its share is given back. */
void throttle_timed_out(struct striped_throttle *t);
/* How many have, since the throttle began. */
uint64_t throttle_timeouts(struct striped_throttle *t);
bool throttle_within_limits(struct striped_throttle *t, uint64_t ops, uint64_t bytes);
void throttle_put(struct striped_throttle *t, uint64_t bytes);
void throttle_put_many(struct striped_throttle *t, uint64_t ops, uint64_t bytes);

#endif /* STRIPED_THROTTLE_H */
