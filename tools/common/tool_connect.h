/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Connecting to the cluster as every Ceph command does: both tools' one sequence. */
#ifndef TOOL_CONNECT_H
#define TOOL_CONNECT_H

#include <stddef.h>

#include <striped.h>

#include "tool_args.h"

/**
 * Create a cluster handle as the rados CLI would (id= or name=), read the
 * configuration (o->conf, else $CEPH_CONF and Ceph's search path; a missing
 * default file is no error), CEPH_ARGS, the keyring and timeouts, and
 * connect from a thread of its own (striped_cluster_connect()), so a
 * process forked from one that used librados gets an address of its own.
 * @return 0 with *out connected; a negative errno, *out shut down and err
 *         one line ("WHAT: strerror")
 */
int tool_connect(const struct tool_conn *o, rados_t *out, char *err, size_t errlen);

#endif /* TOOL_CONNECT_H */
