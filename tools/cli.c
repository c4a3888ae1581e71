// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operators' command: the line parsed (cli_args.c), the cluster
 * connected as every Ceph command connects (-c, --id/--name, --keyring,
 * CEPH_ARGS), the pool and namespace opened, the subcommand run. Exit
 * status 0 done, 1 failed (one line on stderr), 2 usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define EXIT_USAGE 2

int cli_fail(const struct cli *c, int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", c->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err < 0 ? -err : err));
	return 1;
}

void cli_say(const struct cli *c, const char *fmt, ...)
{
	va_list ap;

	(void)c;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout); /* before the change begins, whatever stdout is */
}

bool cli_json(const struct cli *c)
{
	return c->a.format != CLI_FORMAT_PLAIN;
}

const char *cli_owner_name(int owner)
{
	return owner == STRIPED_LOCKER_LIBSTRIPED	 ? "libstriped"
	       : owner == STRIPED_LOCKER_LIBRADOSSTRIPER ? "libradosstriper"
							 : "other";
}

int cli_lockers(struct cli *c, const char *name, struct cli_locker *out, int max)
{
	struct striped_lockers *it = NULL; /* left so when the open fails */
	struct striped_locker l;
	int n = 0, r = striped_lockers_open(c->io, name, &it);

	while (!r && n < max && !(r = striped_lockers_next(it, &l, sizeof(l))) && l.client) {
		struct cli_locker *o = &out[n++];

		snprintf(o->client, sizeof(o->client), "%s", l.client);
		snprintf(o->cookie, sizeof(o->cookie), "%s", l.cookie);
		snprintf(o->address, sizeof(o->address), "%s", l.address);
		snprintf(o->tag, sizeof(o->tag), "%s", l.tag);
		o->exclusive = l.exclusive;
		o->owner = l.owner;
	}
	striped_lockers_close(it);
	return r ? r : n;
}

void cli_lockers_json(struct json *j, const char *key, const struct cli_locker *l, int n)
{
	json_array_begin(j, key);
	for (int i = 0; i < n; i++) {
		json_object_begin(j, NULL);
		json_string(j, "client", l[i].client);
		json_string(j, "cookie", l[i].cookie);
		json_string(j, "address", l[i].address);
		json_string(j, "tag", l[i].tag);
		json_bool(j, "exclusive", l[i].exclusive);
		json_string(j, "owner", cli_owner_name(l[i].owner));
		json_object_end(j);
	}
	json_array_end(j);
}

void cli_locker_text(const struct cli_locker *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s (%s, cookie %s)", l->client, cli_owner_name(l->owner), l->cookie);
}

/* ---- help ---- */

/* What each subcommand does, for `striped help SUBCOMMAND` (the man page says more). */
static const char *const about[CLI_COMMANDS] = {
    [CLI_LS] = "List the striped files of the pool (either library's), one name a line;\n"
	       "-l: SIZE<TAB>NAME. rados://POOL/PREFIX: the names that start with PREFIX.\n"
	       "It walks every object of the pool (or namespace).",
    [CLI_STAT] = "Size, layout, high-water mark (striper.reserved), id, mtime and lock\n"
		 "holders of a file, read without taking its lock.",
    [CLI_RM] = "Remove a file: every object up to its size and mark, the head last, under\n"
	       "its exclusive lock (holders asked to let go; a silent one fenced).",
    [CLI_TRUNCATE] = "Set a file's size (SIZE: bytes, or with K, M, G, T, P, E: 1024^n).\n"
		     "Shrinking removes what lies past the new size; growing reads as zeros.",
    [CLI_XATTR_GET] = "Print the value of a file's extended attribute, read without a lock.",
    [CLI_XATTR_SET] = "Set a file's extended attribute (striper.* names are the libraries').",
    [CLI_XATTR_RM] = "Remove a file's extended attribute.",
    [CLI_XATTR_LS] = "List a file's extended attributes, read without a lock.",
    [CLI_LOCK_LS] = "List the holders of a file's lock: client, cookie, address, and whose\n"
		    "(libstriped, libradosstriper, or other).",
    [CLI_LOCK_BREAK] = "Break one holder's lock, as `lock ls` names it (CLIENT: when two\n"
		       "holders share the cookie). Fenced first: its address is blocklisted\n"
		       "and the OSD map that carries it awaited, so a client that was only\n"
		       "paused writes nothing more. --unfenced breaks it alone.",
    [CLI_CHECK] = "Find orphans: objects past a file's size (up to its mark, or past it),\n"
		  "objects whose head is missing, heads with corrupt metadata. --repair\n"
		  "removes the orphans: a file's under its exclusive lock, never a byte\n"
		  "within its size; a corrupt head is only reported.",
    [CLI_HELP] = "Show what a subcommand does, or list them all.",
};

static void help(const struct cli *c, enum cli_command topic, FILE *out)
{
	if (topic != CLI_HELP) {
		const char *synopsis = cli_command_synopsis(topic);

		/* an alias names the subcommand itself: "striped-ls [-l] ..." */
		if (c->alias)
			synopsis += strlen(cli_command_name(topic)) + 1;
		fprintf(out, "usage: %s %s\n%s\n", c->prog, synopsis, about[topic]);
		return;
	}
	fprintf(out, "usage: %s [OPTIONS] SUBCOMMAND [ARGS]\n\nSubcommands:\n", c->prog);
	for (int i = 0; i < CLI_HELP; i++)
		fprintf(out, "  %s\n", cli_command_synopsis((enum cli_command)i));
	fprintf(out,
		"  help [SUBCOMMAND]\n"
		"NAME is a striped file of the pool, or rados://POOL/NAME.\n"
		"\nOptions (anywhere on the line, as rados and rbd take them):\n"
		"  -p, --pool POOL            the pool (needed by every subcommand)\n"
		"  -N, --namespace NS         a RADOS namespace of the pool\n"
		"  -c, --conf PATH            ceph.conf (default: $CEPH_CONF, then Ceph's search)\n"
		"      --id ID | -n, --name TYPE.ID   the client (default: client.admin)\n"
		"  -k, --keyring PATH         its keyring; CEPH_ARGS is honoured too\n"
		"      --format plain|json|json-pretty   the output of ls, stat, xattr get,\n"
		"                             xattr ls, lock ls and check (fields as in the C "
		"structs)\n"
		"  -h, --help, --version\n"
		"Exit status: 0 done, 1 failed (one line on stderr), 2 usage error.\n"
		"See striped(8).\n");
}

/* ---- the connection ---- */

static int connect_cluster(struct cli *c)
{
	const struct cli_args *a = &c->a;
	int r = a->name ? rados_create2(&c->cluster, "ceph", a->name, 0)
			: rados_create(&c->cluster, a->id);

	if (r) {
		c->cluster = NULL;
		return cli_fail(c, r, "rados");
	}
	r = rados_conf_read_file(c->cluster, a->conf);
	if (r && a->conf)
		return cli_fail(c, r, "%s", a->conf);
	r = rados_conf_parse_env(c->cluster, NULL); /* CEPH_ARGS, as every Ceph command */
	if (r)
		return cli_fail(c, r, "CEPH_ARGS");
	if (a->keyring && (r = rados_conf_set(c->cluster, "keyring", a->keyring)))
		return cli_fail(c, r, "--keyring %s", a->keyring);
	/* An address of its own, even when a script forks it from a process that used librados. */
	r = striped_cluster_connect(c->cluster);
	if (r)
		return cli_fail(c, r, "cannot connect to the cluster");
	r = rados_ioctx_create(c->cluster, a->pool, &c->io);
	if (r == -ENOENT && c->alias) { /* striped-ls's own words, which scripts may match */
		fprintf(stderr, "%s: no pool named %s\n", c->prog, a->pool);
		return 1;
	}
	if (r)
		return cli_fail(c, r, "pool %s", a->pool);
	rados_ioctx_set_namespace(c->io, a->nspace);
	return 0;
}

static void disconnect(struct cli *c)
{
	if (c->io)
		rados_ioctx_destroy(c->io);
	/* also after a failure: librados' threads must not outlive main */
	if (c->cluster)
		rados_shutdown(c->cluster);
}

static int (*const run[CLI_COMMANDS])(struct cli *c) = {
    [CLI_LS] = cmd_ls,		 [CLI_STAT] = cmd_stat,
    [CLI_RM] = cmd_rm,		 [CLI_TRUNCATE] = cmd_truncate,
    [CLI_XATTR_GET] = cmd_xattr, [CLI_XATTR_SET] = cmd_xattr,
    [CLI_XATTR_RM] = cmd_xattr,	 [CLI_XATTR_LS] = cmd_xattr,
    [CLI_LOCK_LS] = cmd_lock,	 [CLI_LOCK_BREAK] = cmd_lock,
    [CLI_CHECK] = cmd_check,
};

int cli_main(const char *prog, bool alias, int argc, char **argv)
{
	struct cli c = {.prog = prog, .alias = alias};
	char err[512];
	int r = cli_parse(argc, argv, &c.a, err, sizeof(err));

	if (r) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	if (c.a.cmd == CLI_VERSION) {
		printf("%s (libstriped) %s\n", prog, striped_version(NULL, NULL, NULL));
		return 0;
	}
	if (c.a.cmd == CLI_HELP) {
		help(&c, c.a.help, stdout);
		return 0;
	}
	if (!c.a.pool) {
		fprintf(stderr, "%s: %s: no pool given (-p POOL)\n", prog,
			cli_command_name(c.a.cmd));
		return EXIT_USAGE;
	}
	json_init(&c.json, stdout, c.a.format == CLI_FORMAT_JSON_PRETTY);
	r = connect_cluster(&c);
	if (!r)
		r = run[c.a.cmd](&c);
	disconnect(&c);
	return r;
}
