/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* conf.c: what libstriped reads of a cluster handle's configuration. */
#ifndef STRIPED_CONF_H
#define STRIPED_CONF_H

#include <stdbool.h>
#include <stdint.h>
#include <rados/librados.h>

/* A numeric setting of io's cluster handle, or fallback when unset or not a number. */
uint64_t conf_u64(rados_ioctx_t io, const char *key, uint64_t fallback);
/* objecter_inflight_op_bytes and _ops: 0 means "no limit" in Ceph, UINT64_MAX here. */
uint64_t conf_objecter_limit(rados_ioctx_t io, const char *key, uint64_t fallback);
/* Whether the client has an OSD op timeout (when unknown: assume it has). */
bool conf_has_op_timeout(rados_ioctx_t io);
/* striped_cluster_set_op_timeout(): the OSDs' and the monitors' op timeouts. */
int conf_set_op_timeout(rados_t cluster, unsigned int seconds);

#endif /* STRIPED_CONF_H */
