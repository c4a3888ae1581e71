// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-ls: the striped files of a pool, one per line with its size, as
 * `rados ls` lists objects. It walks the pool once (striped_list_*), so it
 * takes as long as listing every object of the pool.
 *
 *   striped-ls [-l] [--conf PATH] [--id NAME] POOL
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "striped.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: striped-ls [-l] [--conf PATH] [--id NAME] POOL\n"
		     "List the striped files of POOL (either library's), one per line.\n"
		     "  -l            SIZE<TAB>NAME instead of NAME\n"
		     "  --conf PATH   ceph.conf (default: $CEPH_CONF, then Ceph's search)\n"
		     "  --id NAME     client name without 'client.' (default: admin)\n");
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "striped-ls: %s: %s\n", what, strerror(-err));
	return 1;
}

/* Connect, open the pool, print its files; 0 or 1 after a one-line message. */
static int list_pool(rados_t cl, const char *conf, const char *pool, bool sizes)
{
	struct striped_list *it;
	rados_ioctx_t io;
	const char *name;
	uint64_t size;
	int r;

	r = rados_conf_read_file(cl, conf);
	if (r && conf)
		return fail(conf, r);
	r = rados_connect(cl);
	if (r)
		return fail("cannot connect to the cluster", r);
	r = rados_ioctx_create(cl, pool, &io);
	if (r)
		return fail(pool, r);
	r = striped_list_open(io, &it);
	while (!r && !(r = striped_list_next(it, &name, &size)) && name) {
		if (sizes)
			printf("%llu\t%s\n", (unsigned long long)size, name);
		else
			printf("%s\n", name);
	}
	striped_list_close(it);
	rados_ioctx_destroy(io);
	return r ? fail("listing", r) : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"conf", required_argument, NULL, 'c'},
					     {"id", required_argument, NULL, 'i'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *conf = NULL, *id = NULL;
	bool sizes = false;
	rados_t cl;
	int c, r;

	while ((c = getopt_long(argc, argv, "l", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			sizes = true;
			break;
		case 'c':
			conf = optarg;
			break;
		case 'i':
			id = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	r = rados_create(&cl, id);
	if (r)
		return fail("rados", r);
	r = list_pool(cl, conf, argv[optind], sizes);
	rados_shutdown(cl); /* also after an error: librados' threads must not outlive main */
	return r;
}

