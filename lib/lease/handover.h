/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* handover.c: asking holders to let go, fencing those that do not answer */
#ifndef STRIPED_HANDOVER_H
#define STRIPED_HANDOVER_H

#include "cls_lock.h"

/* Take the lock req describes, asking the holders to let go and fencing a silent one. */
int handover_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req);
/*
 * striped_cluster_set_lock_break(): whether this cluster handle (connected,
 * else -ENOTCONN) breaks a silent holder's lock fenced or unfenced.
 */
int handover_set_policy(rados_t cluster, int how);
/* striped_lock_break(): an operator's break of one holder, as listed now. */
int handover_break(rados_ioctx_t io, const char *name, const char *client, const char *cookie,
		   int how);

#endif /* STRIPED_HANDOVER_H */
