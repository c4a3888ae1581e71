/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Is the sandbox cluster named by CEPH_CONF and STRIPED_TEST_POOL there?
 * Without one a cluster test skips with a one-line reason, also when
 * CEPH_CONF names a file that is gone or a cluster that was stopped (no
 * monitor listens). With STRIPED_TEST_REQUIRE_CLUSTER=1 (scripts/test, which
 * started one) that is a failure instead, so a broken cluster never passes
 * as a skip. tests/cluster-check.sh is the same check for the shell tests.
 */
#ifndef CLUSTER_CHECK_H
#define CLUSTER_CHECK_H

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rados/librados.h>

/* Does something accept a TCP connection at ip:port within 2 s? */
static inline bool cluster_port_open(const char *ip, unsigned int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct pollfd p;
	socklen_t len = sizeof(int);
	int fd, err = 0;
	bool open = false;

	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
		return false;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		open = true;
	} else if (errno == EINPROGRESS) {
		p.fd = fd;
		p.events = POLLOUT;
		open = poll(&p, 1, 2000) == 1 &&
		       !getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) && !err;
	}
	close(fd);
	return open;
}

/* Does a monitor of mon_host ("[v2:127.0.0.1:3300],..." or "IP:PORT,...") listen? */
static inline bool cluster_mon_listens(const char *mon_host, bool *named)
{
	char ip[16];
	unsigned int port;
	size_t i;

	*named = false;
	for (i = 0; mon_host[i]; i++) {
		if (i && (isdigit((unsigned char)mon_host[i - 1]) || mon_host[i - 1] == '.'))
			continue;
		if (sscanf(mon_host + i, "%15[0-9.]:%5u", ip, &port) != 2 || !strchr(ip, '.'))
			continue;
		*named = true;
		if (cluster_port_open(ip, port))
			return true;
	}
	return false;
}

/* NULL when the cluster is there, else why not (in buf). */
static inline const char *cluster_missing(char *buf, size_t len)
{
	const char *conf = getenv("CEPH_CONF");
	char mon_host[1024] = "";
	bool named;
	rados_t r;

	if (!conf || !getenv("STRIPED_TEST_POOL"))
		return "no sandbox cluster (CEPH_CONF and STRIPED_TEST_POOL unset)";
	if (access(conf, R_OK)) {
		snprintf(buf, len, "no sandbox cluster: CEPH_CONF=%s: %s", conf, strerror(errno));
		return buf;
	}
	if (!rados_create(&r, NULL)) {
		if (!rados_conf_read_file(r, NULL))
			rados_conf_get(r, "mon_host", mon_host, sizeof(mon_host));
		rados_shutdown(r);
	}
	/* Only a monitor address we can read and reach nothing at is "stopped". */
	if (cluster_mon_listens(mon_host, &named) || !named)
		return NULL;
	snprintf(buf, len, "no sandbox cluster: no monitor listens at %s (CEPH_CONF=%s)", mon_host,
		 conf);
	return buf;
}

/* Whether a missing cluster is a failure rather than a skip. */
static inline bool cluster_required(void)
{
	const char *v = getenv("STRIPED_TEST_REQUIRE_CLUSTER");

	return v && !strcmp(v, "1");
}

#endif /* CLUSTER_CHECK_H */
