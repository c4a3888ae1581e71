// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A cluster handle's configuration, as libstriped reads it (limits on
 * names and objects, the objecter's budget, op timeouts) and sets it
 * (striped_cluster_set_op_timeout()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "decimal.h"

uint64_t conf_u64(rados_ioctx_t io, const char *key, uint64_t fallback)
{
	char buf[64];
	uint64_t v;

	if (rados_conf_get(rados_ioctx_get_cluster(io), key, buf, sizeof(buf)) < 0)
		return fallback;
	if (decimal_parse(buf, strlen(buf), &v))
		return fallback;
	return v;
}

uint64_t conf_objecter_limit(rados_ioctx_t io, const char *key, uint64_t fallback)
{
	uint64_t v = conf_u64(io, key, fallback);

	return v ? v : UINT64_MAX;
}

bool conf_has_op_timeout(rados_ioctx_t io)
{
	char buf[64];

	if (rados_conf_get(rados_ioctx_get_cluster(io), "rados_osd_op_timeout", buf, sizeof(buf)) <
	    0)
		return true; /* unknown: assume the worst */
	return strtod(buf, NULL) != 0;
}

int conf_set_op_timeout(rados_t cluster, unsigned int seconds)
{
	static const char *const keys[] = {"rados_osd_op_timeout", "rados_mon_op_timeout"};
	char value[32];

	snprintf(value, sizeof(value), "%u", seconds);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int r = rados_conf_set(cluster, keys[i], value);

		if (r < 0)
			return r;
	}
	return 0;
}
