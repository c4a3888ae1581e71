// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The command line, as mount.fuse3 passes it from /etc/fstab:
 * `striped-mount rados://POOL[/NAMESPACE] MOUNTPOINT [-f] [-o OPT[,OPT...]]`.
 * Our options are taken out of -o; the rest (ro, allow_other, ...) go on
 * to libfuse and the kernel. Sizes are read as striped-dd reads them (4M).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "tool_args.h"

#define DEFAULT_CACHE_TIME 1.0
#define DEFAULT_WINDOW (64ull << 20)
#define DEFAULT_WRITEBACK_TIME 2

struct raw {
	char *conf, *id, *name, *keyring, *uid, *gid, *file_mode, *dir_mode;
	char *stripe_unit, *stripe_count, *object_size, *window, *cache_time, *op_timeout;
	char *cache, *writeback_time;
	const char *source;
	int help, version, sync_close;
};

#define OPT(t, f)                                                                                  \
	{                                                                                          \
		t, offsetof(struct raw, f), 0                                                      \
	}
static const struct fuse_opt spec[] = {
    OPT("conf=%s", conf),
    OPT("id=%s", id),
    OPT("name=%s", name),
    OPT("keyring=%s", keyring),
    OPT("uid=%s", uid),
    OPT("gid=%s", gid),
    OPT("file_mode=%s", file_mode),
    OPT("dir_mode=%s", dir_mode),
    OPT("stripe_unit=%s", stripe_unit),
    OPT("stripe_count=%s", stripe_count),
    OPT("object_size=%s", object_size),
    OPT("window=%s", window),
    OPT("cache_time=%s", cache_time),
    OPT("op_timeout=%s", op_timeout),
    OPT("cache=%s", cache),
    OPT("writeback_time=%s", writeback_time),
    {"sync_close", offsetof(struct raw, sync_close), 1},
    {"-h", offsetof(struct raw, help), 1},
    {"--help", offsetof(struct raw, help), 1},
    {"-V", offsetof(struct raw, version), 1},
    {"--version", offsetof(struct raw, version), 1},
    FUSE_OPT_END,
};

static int take_nonopt(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct raw *r = data;

	(void)outargs;
	if (key == FUSE_OPT_KEY_NONOPT && !r->source) {
		r->source = arg; /* the first: rados://POOL[/NS]; the second is the mountpoint */
		return 0;
	}
	return 1;
}

static int number(const char *what, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (!s)
		return 0;
	if (tool_parse_number(s, out) || *out < lo || *out > hi) {
		fprintf(stderr, "striped-mount: %s=%s: not a number from %llu to %llu\n", what, s,
			(unsigned long long)lo, (unsigned long long)hi);
		return -EINVAL;
	}
	return 0;
}

static int mode_bits(const char *what, const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (!s)
		return 0;
	v = strtoul(s, &end, 8);
	if (!*s || *end || v > 07777) {
		fprintf(stderr, "striped-mount: %s=%s: not an octal mode\n", what, s);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

static int layout(const struct raw *raw, struct mount_opts *o)
{
	struct striped_layout l = STRIPED_LAYOUT_DEFAULT_INIT;
	int r = number("stripe_unit", raw->stripe_unit, 1, UINT32_MAX, &l.stripe_unit);

	r = r ? r : number("stripe_count", raw->stripe_count, 1, UINT32_MAX, &l.stripe_count);
	r = r ? r : number("object_size", raw->object_size, 1, UINT32_MAX, &l.object_size);
	if (!r && striped_layout_validate(&l)) {
		fprintf(stderr,
			"striped-mount: stripe_unit %llu, stripe_count %llu, object_size "
			"%llu: not a layout (units and objects in 64 KiB, objects a "
			"multiple of the unit)\n",
			(unsigned long long)l.stripe_unit, (unsigned long long)l.stripe_count,
			(unsigned long long)l.object_size);
		r = -EINVAL;
	}
	o->layout = l;
	return r;
}

static int source(const char *s, struct mount_opts *o)
{
	struct tool_rados tr;
	char err[256];

	if (!s) {
		fprintf(stderr, "striped-mount: no source (rados://POOL[/NAMESPACE])\n");
		return -EINVAL;
	}
	if (tool_parse_rados(s, TOOL_RADOS_PREFIX, &tr, err, sizeof(err))) {
		fprintf(stderr, "striped-mount: %s\n", err);
		return -EINVAL;
	}
	o->source = s;
	o->pool = strdup(tr.pool);
	o->nspace = strdup(tr.name);
	return o->pool && o->nspace ? 0 : -ENOMEM;
}

static int convert(const struct raw *raw, struct mount_opts *o)
{
	uint64_t v, ct = 0;
	int r = source(raw->source, o);

	o->conf = raw->conf;
	o->id = raw->id;
	o->name = raw->name;
	o->keyring = raw->keyring;
	o->uid = getuid();
	o->gid = getgid();
	o->file_mode = 0644;
	o->dir_mode = 0755;
	o->window = DEFAULT_WINDOW;
	o->cache_time = DEFAULT_CACHE_TIME;
	if (!r && !(r = number("uid", raw->uid, 0, UINT32_MAX - 1, &v)) && raw->uid)
		o->uid = (unsigned int)v;
	if (!r && !(r = number("gid", raw->gid, 0, UINT32_MAX - 1, &v)) && raw->gid)
		o->gid = (unsigned int)v;
	r = r ? r : mode_bits("file_mode", raw->file_mode, &o->file_mode);
	r = r ? r : mode_bits("dir_mode", raw->dir_mode, &o->dir_mode);
	r = r ? r : layout(raw, o);
	r = r ? r : number("window", raw->window, 1ull << 20, 1ull << 40, &o->window);
	if (!r && !(r = number("cache_time", raw->cache_time, 0, 3600, &ct)) && raw->cache_time)
		o->cache_time = (double)ct;
	if (!r && raw->cache && strcmp(raw->cache, "striped") && strcmp(raw->cache, "kernel")) {
		fprintf(stderr, "striped-mount: cache=%s: want striped or kernel\n", raw->cache);
		r = -EINVAL;
	}
	o->kernel_cache = raw->cache && !strcmp(raw->cache, "kernel");
	if (!r && !(r = number("op_timeout", raw->op_timeout, 0, 3600, &v)) && raw->op_timeout)
		o->op_timeout = (unsigned int)v;
	o->writeback_time = DEFAULT_WRITEBACK_TIME;
	if (!r && !(r = number("writeback_time", raw->writeback_time, 0, 60, &v)) &&
	    raw->writeback_time)
		o->writeback_time = (unsigned int)v;
	if (!r && raw->sync_close && raw->writeback_time && o->writeback_time) {
		fprintf(stderr, "striped-mount: sync_close and writeback_time=%u: choose one\n",
			o->writeback_time);
		r = -EINVAL;
	}
	if (raw->sync_close)
		o->writeback_time = 0;
	return r;
}

static void usage(void)
{
	printf(
	    "usage: striped-mount rados://POOL[/NAMESPACE] MOUNTPOINT [-f] [-o OPTIONS]\n"
	    "\n"
	    "Striped files of a RADOS pool as a file system (see striped-mount(8)).\n"
	    "Options (-o, comma-separated):\n"
	    "  conf=PATH, id=ID, name=TYPE.ID, keyring=PATH   the cluster, as Ceph's tools\n"
	    "  uid=N, gid=N                  owner of files that store none (the mounting user)\n"
	    "  file_mode=OCTAL, dir_mode=OCTAL  their modes (0644, 0755)\n"
	    "  stripe_unit=SIZE, stripe_count=N, object_size=SIZE  layout of new files\n"
	    "  window=SIZE                   the buffered window of a cached open (64M)\n"
	    "  cache_time=SECONDS            the most a listing or attribute is old (1)\n"
	    "  cache=striped|kernel          cached opens: libstriped's window, or the page cache\n"
	    "  op_timeout=SECONDS            RADOS operations fail after it (0: wait)\n"
	    "  writeback_time=SECONDS        new files stay in the daemon past their close (0)\n"
	    "  sync_close                    every close puts the file on RADOS (writeback_time=0)\n"
	    "  ro, allow_other, ...          libfuse's and the kernel's (fuse(8))\n"
	    "  -f                            stay in the foreground; -d: debug\n");
}

int mount_parse(struct fuse_args *args, struct mount_opts *o, struct fuse_cmdline_opts *cmd)
{
	struct raw raw;
	int r;

	memset(&raw, 0, sizeof(raw));
	memset(cmd, 0, sizeof(*cmd));
	if (fuse_opt_parse(args, &raw, spec, take_nonopt) == -1)
		return 2;
	if (raw.help || raw.version) {
		if (raw.help)
			usage();
		else
			printf("striped-mount (libstriped %s, libfuse %s)\n",
			       striped_version(NULL, NULL, NULL), fuse_pkgversion());
		return -1;
	}
	if (fuse_parse_cmdline(args, cmd) || !cmd->mountpoint) {
		fprintf(stderr, "striped-mount: no mountpoint (see --help)\n");
		return 2;
	}
	r = convert(&raw, o);
	return r == -EINVAL ? 2 : r ? 1 : 0;
}
