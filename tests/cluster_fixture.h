/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared by the cluster suite: connect to the sandbox cluster named by
 * CEPH_CONF and STRIPED_TEST_POOL, or skip (exit 77) with a one-line reason
 * (cluster_check.h says when; under STRIPED_TEST_REQUIRE_CLUSTER=1, exit 1).
 */
#ifndef CLUSTER_FIXTURE_H
#define CLUSTER_FIXTURE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rados/librados.h>

#include "cluster_check.h"

#define SKIP_EXIT 77

/* Skip the whole program (exit 77) for why, or fail (exit 1) when a cluster is required. */
static inline void cluster_skip(const char *why)
{
	if (cluster_required()) {
		fprintf(stderr, "%s (STRIPED_TEST_REQUIRE_CLUSTER=1)\n", why);
		exit(1);
	}
	printf("SKIP: %s\n", why);
	exit(SKIP_EXIT);
}

/* Without a sandbox cluster the whole program skips, before cmocka starts. */
static inline void cluster_skip_unless_configured(void)
{
	char buf[1400];
	const char *why = cluster_missing(buf, sizeof(buf));

	if (why)
		cluster_skip(why);
}

struct cluster {
	rados_t rados;
	rados_ioctx_t io;
	const char *pool;
};

/*
 * Connects as `name` (a key of the sandbox's keyring: client.admin,
 * client.fencer, client.nofence) with the environment's CEPH_CONF; every
 * operation fails after op_timeout seconds (0: never). Exits 77 without a
 * cluster.
 */
static inline void cluster_connect_as(struct cluster *cl, const char *name, unsigned op_timeout)
{
	char timeout[16];
	int r;

	cluster_skip_unless_configured();
	cl->pool = getenv("STRIPED_TEST_POOL");
	snprintf(timeout, sizeof(timeout), "%u", op_timeout);
	r = rados_create2(&cl->rados, "ceph", name, 0);
	if (!r)
		r = rados_conf_read_file(cl->rados, NULL);
	if (!r)
		r = rados_conf_set(cl->rados, "client_mount_timeout", "20");
	if (!r && op_timeout)
		r = rados_conf_set(cl->rados, "rados_osd_op_timeout", timeout);
	if (!r)
		r = rados_connect(cl->rados);
	if (!r)
		r = rados_ioctx_create(cl->rados, cl->pool, &cl->io);
	if (r) {
		fprintf(stderr, "cannot reach the sandbox cluster as %s: %s\n", name, strerror(-r));
		exit(1);
	}
}

/* Connects as client.admin. */
static inline void cluster_connect(struct cluster *cl)
{
	cluster_connect_as(cl, "client.admin", 0);
}

static inline void cluster_disconnect(struct cluster *cl)
{
	rados_ioctx_destroy(cl->io);
	rados_shutdown(cl->rados);
}

/*
 * Start the helper program that environment variable env names (a test's
 * other client: its own process, its own connection) with the arguments
 * name, seed, mode, and arg1 and arg2 where not NULL; its stdout comes back
 * on *out_fd.
 * @return its pid, or -1 when env is unset or the pipe or fork failed
 */
static inline pid_t spawn_helper_args(const char *env, const char *name, uint64_t seed,
				      const char *mode, const char *arg1, const char *arg2,
				      int *out_fd)
{
	const char *prog = getenv(env);
	char seed_s[32];
	int p[2];
	pid_t pid;

	*out_fd = -1;
	if (!prog || pipe(p))
		return -1;
	snprintf(seed_s, sizeof(seed_s), "%llu", (unsigned long long)seed);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		/* execl's list ends at the first NULL: a NULL arg1 drops arg2 too */
		execl(prog, prog, name, seed_s, mode, arg1, arg2, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0)
		close(p[0]);
	else
		*out_fd = p[0];
	return pid;
}

/* spawn_helper_args() with name, seed and mode only. */
static inline pid_t spawn_helper(const char *env, const char *name, uint64_t seed, const char *mode,
				 int *out_fd)
{
	return spawn_helper_args(env, name, seed, mode, NULL, NULL, out_fd);
}

/* The process's resident memory now (VmRSS), in KiB; 0 when it cannot be read. */
static inline uint64_t rss_kib(void)
{
	FILE *fp = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long kib = 0;

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmRSS: %llu", &kib) == 1)
			break;
	fclose(fp);
	return kib;
}

/* Wall-clock time in ns: comparable across the test's processes. */
static inline uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A name no other test run uses. */
static inline void unique_name(char *buf, size_t len, const char *what)
{
	static unsigned seq;

	snprintf(buf, len, "t-%s-%ld-%u", what, (long)getpid(), seq++);
}

/* The byte a file holds at offset pos when written by pattern_fill(seed). */
static inline uint8_t pattern_byte(uint64_t seed, uint64_t pos)
{
	uint64_t x = (pos / 8 + 1) * 0x9e3779b97f4a7c15ull ^ seed;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	return (uint8_t)(x >> (8 * (pos % 8)));
}

static inline void pattern_fill(uint8_t *buf, size_t len, uint64_t seed, uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern_byte(seed, off + i);
}

/* Index of the first byte that differs from the pattern, or -1. */
static inline long long pattern_check(const uint8_t *buf, size_t len, uint64_t seed, uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pattern_byte(seed, off + i))
			return (long long)i;
	return -1;
}

/* How many objects of the pool start with "name." (the file's objects). */
static inline int count_objects(rados_ioctx_t io, const char *name)
{
	rados_list_ctx_t ctx;
	const char *entry;
	size_t len = strlen(name);
	int n = 0;

	if (rados_nobjects_list_open(io, &ctx) < 0)
		return -1;
	while (rados_nobjects_list_next(ctx, &entry, NULL, NULL) == 0)
		if (!strncmp(entry, name, len) && entry[len] == '.')
			n++;
	rados_nobjects_list_close(ctx);
	return n;
}

/* The connection a test program shares, with cmocka group setup and teardown. */
static struct cluster cl;

static inline int cluster_group_setup(void **state)
{
	(void)state;
	cluster_connect(&cl);
	return 0;
}

static inline int cluster_group_teardown(void **state)
{
	(void)state;
	cluster_disconnect(&cl);
	return 0;
}

#endif /* CLUSTER_FIXTURE_H */
