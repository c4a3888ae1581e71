// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-ls: the striped files of a pool, one per line with its size, as
 * `rados ls` lists objects. It walks the pool once (striped_list_*), so it
 * takes as long as listing every object of the pool (or of its namespace).
 *
 *   striped-ls [-l] [--conf PATH] [--id NAME] [--namespace NS] POOL|rados://POOL[/PREFIX]
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "striped.h"

#define RADOS_PREFIX "rados://"

/* What to list: a pool, in a namespace, the names starting with a prefix. */
struct ls_args {
	const char *conf, *id, *nspace;
	char *pool;	    /* owned */
	const char *prefix; /* "" lists every file */
	bool sizes;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: striped-ls [-l] [--conf PATH] [--id NAME] [--namespace NS] "
		"POOL|rados://POOL[/PREFIX]\n"
		"List the striped files of POOL (either library's), one per line; with\n"
		"rados://POOL/PREFIX only those whose names start with PREFIX.\n"
		"  -l               SIZE<TAB>NAME instead of NAME\n"
		"  --conf PATH      ceph.conf (default: $CEPH_CONF, then Ceph's search);\n"
		"                   CEPH_ARGS is honoured (e.g. --keyring PATH)\n"
		"  --id NAME        client name without 'client.' (default: admin)\n"
		"  --namespace NS   the pool's RADOS namespace NS (default: the default one)\n");
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "striped-ls: %s: %s\n", what, strerror(-err));
	return 1;
}

/* POOL, rados://POOL or rados://POOL/PREFIX into a->pool and a->prefix; 0 or -EINVAL. */
static int parse_location(const char *s, struct ls_args *a)
{
	const char *slash;

	a->prefix = "";
	if (!strncmp(s, RADOS_PREFIX, strlen(RADOS_PREFIX))) {
		s += strlen(RADOS_PREFIX);
		slash = strchr(s, '/');
		if (slash) {
			a->prefix = slash + 1;
			a->pool = strndup(s, (size_t)(slash - s));
		} else {
			a->pool = strdup(s);
		}
	} else {
		a->pool = strdup(s);
	}
	if (!a->pool)
		return -ENOMEM;
	return *a->pool ? 0 : -EINVAL;
}

/* Open the pool (and namespace) of a; 0 or 1 after a one-line message. */
static int open_pool(rados_t cl, const struct ls_args *a, rados_ioctx_t *io)
{
	char what[512];
	int r;

	r = rados_ioctx_create(cl, a->pool, io);
	if (r == -ENOENT) {
		fprintf(stderr, "striped-ls: no pool named %s\n", a->pool);
		return 1;
	}
	if (r) {
		snprintf(what, sizeof(what), "pool %s", a->pool);
		return fail(what, r);
	}
	rados_ioctx_set_namespace(*io, a->nspace);
	return 0;
}

/* Connect, open the pool, print its files; 0 or 1 after a one-line message. */
static int list_pool(rados_t cl, const struct ls_args *a)
{
	struct striped_list *it;
	rados_ioctx_t io;
	const char *name;
	size_t plen = strlen(a->prefix);
	uint64_t size;
	int r;

	r = rados_conf_read_file(cl, a->conf);
	if (r && a->conf)
		return fail(a->conf, r);
	r = rados_conf_parse_env(cl, NULL); /* CEPH_ARGS, as the rados command and striped-dd */
	if (r)
		return fail("CEPH_ARGS", r);
	r = striped_cluster_connect(cl);
	if (r)
		return fail("cannot connect to the cluster", r);
	if (open_pool(cl, a, &io))
		return 1;
	r = striped_list_open(io, &it);
	while (!r && !(r = striped_list_next(it, &name, &size)) && name) {
		if (strncmp(name, a->prefix, plen))
			continue;
		if (a->sizes)
			printf("%llu\t%s\n", (unsigned long long)size, name);
		else
			printf("%s\n", name);
	}
	striped_list_close(it);
	rados_ioctx_destroy(io);
	return r ? fail("listing", r) : 0;
}

/* 0 to run, 1 for --help (done), 2 after a usage error. */
static int parse_args(int argc, char **argv, struct ls_args *a)
{
	static const struct option opts[] = {{"conf", required_argument, NULL, 'c'},
					     {"id", required_argument, NULL, 'i'},
					     {"namespace", required_argument, NULL, 'N'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	int c;

	while ((c = getopt_long(argc, argv, "lN:", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			a->sizes = true;
			break;
		case 'c':
			a->conf = optarg;
			break;
		case 'i':
			a->id = optarg;
			break;
		case 'N':
			a->nspace = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (parse_location(argv[optind], a) == -EINVAL) {
		fprintf(stderr,
			"striped-ls: %s: missing pool name (POOL or rados://POOL[/PREFIX])\n",
			argv[optind]);
		return 2;
	}
	if (!a->pool) {
		fail(argv[optind], -ENOMEM);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ls_args a = {0};
	rados_t cl;
	int r;

	r = parse_args(argc, argv, &a);
	if (r) {
		free(a.pool);
		return r == 1 ? 0 : r;
	}
	r = rados_create(&cl, a.id);
	if (r) {
		free(a.pool);
		return fail("rados", r);
	}
	r = list_pool(cl, &a);
	rados_shutdown(cl); /* also after an error: librados' threads must not outlive main */
	free(a.pool);
	return r;
}
