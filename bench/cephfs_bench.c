// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CephFS through libcephfs, the peer of the seed case: one file written (or
 * read) with O_DIRECT in calls of bs bytes, one at a time (ceph_write and
 * ceph_read wait for their data: with O_DIRECT neither goes through the
 * client's object cache). The file is NAME at the root of the file system
 * --fs (default $STRIPED_TEST_FS, else the cluster's default file system),
 * as client.admin of CEPH_CONF; the layout is the file system's (Ceph's
 * default: 4 MiB objects, as libstriped's). --op remove unlinks it.
 * --buffered opens it without O_DIRECT, through the client's object cache
 * (write-behind, readahead), and a write run ends with ceph_fsync(), timed
 * with it; a read run in a process of its own is a fresh mount. The
 * options and the JSON line are the other programs'; --depth and the layout
 * options mean nothing here.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cephfs/libcephfs.h>

#include "bench.h"

struct cfs {
	struct ceph_mount_info *cm;
	char path[4096];
	int fd;
};

static int cfs_call(struct bench *b, uint32_t slot, uint64_t off, uint64_t len)
{
	struct cfs *c = b->priv;
	int r;

	if (b->o.op == BENCH_WRITE || b->o.op == BENCH_RANDWRITE)
		r = ceph_write(c->cm, c->fd, b->bufs[slot], (int64_t)len, (int64_t)off);
	else
		r = ceph_read(c->cm, c->fd, b->bufs[slot], (int64_t)len, (int64_t)off);
	if (r < 0)
		return r;
	return (uint64_t)r == len ? 0 : -EIO;
}

static int cfs_mount(struct bench *b, struct cfs *c)
{
	int r = ceph_create(&c->cm, NULL);

	if (r < 0)
		return r;
	r = ceph_conf_read_file(c->cm, b->o.conf);
	if (r < 0)
		return r;
	if (b->o.fs && *b->o.fs) {
		r = ceph_select_filesystem(c->cm, b->o.fs);
		if (r < 0)
			return r;
	}
	return ceph_mount(c->cm, "/");
}

static int cfs_open(struct bench *b, struct cfs *c)
{
	bool writing = b->o.op == BENCH_WRITE || b->o.op == BENCH_RANDWRITE;
	int flags = writing ? O_WRONLY | O_CREAT | (b->o.existing ? 0 : O_TRUNC) : O_RDONLY;

	if (b->o.op == BENCH_APPEND || b->o.op == BENCH_CREATE || b->o.bs > INT_MAX)
		return -EINVAL; /* ceph_write returns an int */
	c->fd = ceph_open(c->cm, c->path, flags | (b->o.buffered ? 0 : O_DIRECT), 0644);
	if (c->fd < 0)
		return c->fd;
	b->priv = c;
	return 0;
}

/* A buffered write run is over when the client's cache is on the OSDs. */
static int cfs_finish(struct bench *b)
{
	struct cfs *c = b->priv;
	bool writing = b->o.op == BENCH_WRITE || b->o.op == BENCH_RANDWRITE;

	return writing && b->o.buffered ? ceph_fsync(c->cm, c->fd, 0) : 0;
}

int main(int argc, char **argv)
{
	static const struct bench_engine engine = {.sync_call = cfs_call, .finish = cfs_finish};
	struct bench b = {0};
	struct cfs c = {.fd = -1};
	int r;

	r = bench_parse_flags(&b.o, argc, argv, "cephfs", BENCH_NO_POOL);
	if (r)
		return r < 0 ? 2 : 0;
	b.o.sync = true; /* ceph_write/ceph_read: one call at a time */
	b.o.depth = 1;
	snprintf(c.path, sizeof(c.path), "%s%s", b.o.name[0] == '/' ? "" : "/", b.o.name);
	r = cfs_mount(&b, &c);
	if (r < 0) {
		r = bench_fail("ceph_mount", r);
		goto out;
	}
	if (b.o.op == BENCH_REMOVE) {
		r = ceph_unlink(c.cm, c.path);
		r = r < 0 && r != -ENOENT ? bench_fail("ceph_unlink", r) : 0;
		goto out;
	}
	r = bench_setup_buffers(&b);
	if (r < 0) {
		r = bench_fail("buffers", r);
		goto out;
	}
	r = cfs_open(&b, &c);
	if (r < 0) {
		r = bench_fail(b.o.buffered ? "ceph_open" : "ceph_open (O_DIRECT)", r);
		goto out;
	}
	r = bench_run(&b, &engine);
	if (r < 0) {
		r = bench_fail("I/O", r);
		goto out;
	}
	bench_report(&b); /* RADOS ops and in flight: libcephfs does not say (0) */
out:
	if (c.fd >= 0)
		ceph_close(c.cm, c.fd);
	if (c.cm)
		ceph_shutdown(c.cm); /* unmounts, and releases */
	bench_teardown(&b);
	return r;
}
