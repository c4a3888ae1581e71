// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Connecting a cluster handle so that its client address is its own.
 *
 * librados 16.2 gives a client the address IP:0/NONCE, the nonce drawn in
 * rados_connect() from ceph::util's random engine, which is thread_local
 * and seeded from std::random_device on its first use in each thread
 * (Messenger::get_random_nonce(), include/random.h). fork() copies the
 * forking thread's engine: children that connect from that thread after
 * their parent used librados all draw the same next number, one address
 * for all of them (seen: three children, 127.0.0.1:0/3490100637 each). A
 * thread started for the connect has a fresh engine, seeded anew.
 */
#include <errno.h>
#include <pthread.h>

#include "striped_i.h"

struct connecting {
	rados_t cluster;
	int r;
};

static void *connect_main(void *arg)
{
	struct connecting *c = arg;

	c->r = rados_connect(c->cluster);
	return NULL;
}

int striped_cluster_connect(rados_t cluster)
{
	struct connecting c = {cluster, 0};
	pthread_t th;
	int r;

	if (!cluster)
		return -EINVAL;
	r = pthread_create(&th, NULL, connect_main, &c);
	if (r)
		return -r;
	pthread_join(th, NULL);
	return c.r;
}
