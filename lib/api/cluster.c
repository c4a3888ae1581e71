// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The public calls on a cluster handle and on a file's lock by name: the
 * op timeouts, the lock-break policy, an operator's break of one holder.
 * No handle is open: the policy and the break are the lease layer's
 * (lease/handover.c), reached directly (lib/layers.conf says so).
 */
#include <errno.h>

#include "conf.h"
#include "handover.h"

static bool break_how_valid(int how)
{
	return how == STRIPED_LOCK_BREAK_FENCE || how == STRIPED_LOCK_BREAK_UNFENCED;
}

int striped_cluster_set_op_timeout(rados_t cluster, unsigned int seconds)
{
	return cluster ? conf_set_op_timeout(cluster, seconds) : -EINVAL;
}

int striped_cluster_set_lock_break(rados_t cluster, int how)
{
	if (!cluster || !break_how_valid(how))
		return -EINVAL;
	return handover_set_policy(cluster, how);
}

int striped_lock_break(rados_ioctx_t io, const char *name, const char *client,
		       const char *cookie, int how)
{
	if (!client || !*client || !cookie || !*cookie || !break_how_valid(how))
		return -EINVAL;
	return handover_break(io, name, client, cookie, how);
}
