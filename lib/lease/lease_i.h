/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What lease.c calls of lock.c, beside lease.h (struct lease is owned by both). */
#ifndef STRIPED_LEASE_I_H
#define STRIPED_LEASE_I_H

#include "lease.h"

/* Start the idler if it is not running (-errno if no thread can be started). */
int idler_ensure(void);
/* On the idler's list: the idler and the watch's callbacks find the lease from here on. */
void idler_add(struct lease *ls);
/* Off the list: nothing but its owner touches the lease any more. */
void idler_remove(struct lease *ls);
/* The idler looks at its list now, not at its next tick. */
void idler_wake(void);
/* Watch the head, unless the watch is there and sound; a broken watch is dropped first. */
int lease_watch(struct lease *ls);
/* The shared lock on an existing file, and the head read; then the watch. */
int lease_lock_open(struct lease *ls, struct head_meta *m);
/* The request for our shared lock (flags: cls_lock's). */
void lease_shared_req(const struct lease *ls, struct lock_req *req, uint8_t flags);
/* Under ls->lock: the lock is ours, as head m says; a new epoch. */
void lease_granted_locked(struct lease *ls, struct head_meta *m);
/* Under ls->lock: how long the client that asked for the lock still has it first. */
uint64_t lease_grace_left_locked(const struct lease *ls);

#endif /* STRIPED_LEASE_I_H */
