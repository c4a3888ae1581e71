/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * With a librados whose completions the drop-in cannot verify
 * (wrong_librados.so preloaded), its aio calls fail with -ENOTSUP and touch
 * nothing, while its synchronous calls work; without it, aio works. TAP.
 *
 * usage: aio_unverified expect-enotsup|expect-works   (CEPH_CONF, STRIPED_TEST_POOL)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rados/librados.h>
#include <radosstriper/libradosstriper.h>

static int n, failed;

static void check(int ok, const char *what, int got)
{
	printf("%s %d - %s (%d)\n", ok ? "ok" : "not ok", ++n, what, got);
	failed += !ok;
}

int main(int argc, char **argv)
{
	rados_t cluster;
	rados_ioctx_t io;
	rados_striper_t s;
	rados_completion_t c;
	char name[64], buf[100];
	int want_enotsup = argc == 2 && !strcmp(argv[1], "expect-enotsup");

	if (argc != 2)
		return 2;
	if (rados_create(&cluster, NULL) || rados_conf_read_file(cluster, getenv("CEPH_CONF")) ||
	    rados_connect(cluster) || rados_ioctx_create(cluster, getenv("STRIPED_TEST_POOL"), &io)) {
		printf("1..1\nnot ok 1 - cannot connect to the cluster\n");
		return 1;
	}
	snprintf(name, sizeof(name), "aio-unverified-%d", getpid());
	memset(buf, 3, sizeof(buf));
	check(rados_striper_create(io, &s) == 0, "striper made", 0);
	rados_aio_create_completion2(NULL, NULL, &c);
	int r = rados_striper_aio_write(s, name, c, buf, sizeof(buf), 0);
	if (want_enotsup) {
		check(r == -ENOTSUP, "aio_write refused with -ENOTSUP", r);
		check(!rados_aio_is_complete(c), "its completion untouched", 0);
		r = rados_striper_aio_read(s, name, c, buf, sizeof(buf), 0);
		check(r == -ENOTSUP, "aio_read refused with -ENOTSUP", r);
		r = rados_striper_stat(s, name, NULL, NULL);
		check(r == -ENOENT, "nothing was written", r);
		r = rados_striper_write(s, name, buf, sizeof(buf), 0);
		check(r == 0, "a synchronous write works", r);
	} else {
		check(r == 0, "aio_write started", r);
		rados_aio_wait_for_complete(c);
		r = rados_aio_get_return_value(c);
		check(r == 0, "aio_write completed", r);
	}
	rados_aio_release(c);
	r = rados_striper_read(s, name, buf, sizeof(buf), 0);
	check(r == (int)sizeof(buf), "read back", r);
	check(rados_striper_remove(s, name) == 0, "removed", 0);
	rados_striper_destroy(s);
	rados_ioctx_destroy(io);
	rados_shutdown(cluster);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
