// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The connection both tools make, in the order every Ceph command makes
 * it: the handle, the configuration file, CEPH_ARGS, then what the line
 * said (keyring, timeouts), then the connection itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tool_connect.h"

static int conn_error(char *err, size_t errlen, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "WHAT: strerror(-r)" into err; returns r. */
static int conn_error(char *err, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, ": %s", strerror(-r));
	return r;
}

static int conn_set(rados_t cl, const char *key, const char *val, char *err, size_t errlen)
{
	int r = rados_conf_set(cl, key, val);

	return r < 0 ? conn_error(err, errlen, r, "rados: setting %s", key) : 0;
}

static int configure(rados_t cl, const struct tool_conn *o, char *err, size_t errlen)
{
	char timeout[32];
	int r = rados_conf_read_file(cl, o->conf);

	/* Without a file named, a missing default file is not an error (as the rados CLI). */
	if (r < 0 && o->conf)
		return conn_error(err, errlen, r, "%s: cannot read configuration", o->conf);
	r = rados_conf_parse_env(cl, NULL);
	if (r < 0)
		return conn_error(err, errlen, r, "CEPH_ARGS");
	if (o->keyring && (r = conn_set(cl, "keyring", o->keyring, err, errlen)) < 0)
		return r;
	if (!o->op_timeout)
		return 0;
	snprintf(timeout, sizeof(timeout), "%" PRIu64, o->op_timeout);
	r = conn_set(cl, "rados_osd_op_timeout", timeout, err, errlen);
	return r ? r : conn_set(cl, "rados_mon_op_timeout", timeout, err, errlen);
}

int tool_connect(const struct tool_conn *o, rados_t *out, char *err, size_t errlen)
{
	rados_t cl;
	int r = o->name ? rados_create2(&cl, "ceph", o->name, 0) : rados_create(&cl, o->id);

	*out = NULL;
	if (r < 0)
		return conn_error(err, errlen, r, "rados: cannot create cluster handle");
	r = configure(cl, o, err, errlen);
	if (!r && (r = striped_cluster_connect(cl)) < 0)
		conn_error(err, errlen, r, "rados: cannot connect to the cluster");
	if (r < 0) {
		rados_shutdown(cl);
		return r;
	}
	*out = cl;
	return 0;
}
