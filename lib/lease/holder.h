/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * holder.c: files made and not yet written (striped_head_take()). Their
 * head carries striper.held, the holder's client id; the holder watches
 * "striper.holder.<id>" and writes a file back when a reader asks.
 */
#ifndef STRIPED_HOLDER_H
#define STRIPED_HOLDER_H

#include <stdbool.h>
#include <stdint.h>

#include <rados/librados.h>

#include "meta.h"

struct striped_holder;

/* striped_holder_open() and striped_holder_close() (striped.h). */
int holder_open(rados_ioctx_t io, void (*asked)(void *arg, const char *name), void *arg,
		struct striped_holder **out);
void holder_close(struct striped_holder *h);
/* The id a head held by h carries. */
uint64_t holder_id(const struct striped_holder *h);

/*
 * A head (oid) found held by holder id: ask the holder to write it back
 * (its name the head's, less the object number) and wait for its answer;
 * after HOLDER_ASKS asks (asked_before) that were answered and left it
 * held all the same, stop asking. A holder that does not answer in
 * time (dead, cut off) has its mark taken off the head, compared first, so
 * that its own write-back, checked against the mark, can no longer land:
 * the file stays as it is on RADOS. 0 when the caller should read the
 * head again; librados errors.
 */
int holder_settle(rados_ioctx_t io, const char *oid, uint64_t id, int asked_before);

/* How many times a reader asks before it takes the mark off regardless. */
#define HOLDER_ASKS 3

/*
 * Whether a head held by held must be settled before it is read: a client
 * never asks itself (its own files it answers from what it holds; asking
 * would wait on its own answering thread).
 */
bool holder_ask_needed(rados_ioctx_t io, uint64_t held);

/* head_read_meta(), a held head settled first (m then says no holder, unless one came since). */
int holder_read_meta(rados_ioctx_t io, const char *oid, struct head_meta *m);

#endif /* STRIPED_HOLDER_H */
