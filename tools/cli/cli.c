// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operators' command: the line parsed (cli_args.c), the cluster
 * connected as every Ceph command connects (tool_connect.c: -c, --id/--name,
 * --keyring, CEPH_ARGS), the pool and namespace opened, the subcommand run.
 * Exit status 0 done, 1 failed (one line on stderr), 2 usage error. Also
 * here: the subcommands help and bash-completion, and the operands
 * functions several subcommands share.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tool_connect.h"

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

int cli_error(const struct cli *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", c->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

bool cli_holder_text(struct cli *c, const char *name, char *buf, size_t len)
{
	struct cli_locker l[CLI_LOCKERS_MAX];
	int n = cli_lockers(c, name, l, CLI_LOCKERS_MAX);

	if (n > 0)
		cli_locker_text(&l[0], buf, len);
	return n > 0;
}

int cli_operand_file(struct cli_args *a, char **ops, int n, char *err, size_t errlen)
{
	(void)n;
	return cli_take_file(a, ops[0], err, errlen);
}

int cli_operand_file_key(struct cli_args *a, char **ops, int n, char *err, size_t errlen)
{
	a->key = ops[1];
	a->value = n == 3 ? ops[2] : NULL;
	return cli_take_file(a, ops[0], err, errlen);
}

/* ---- help ---- */

static void help_options(const struct cli_command *cmd, FILE *out)
{
	char form[96];

	for (const struct cli_option *o = cmd->options; o && o->name; o++) {
		snprintf(form, sizeof(form), "%s%c%s--%s%s%s", o->is_short ? "-" : "",
			 o->is_short ? o->key : ' ', o->is_short ? ", " : "", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(out, "  %-26s %s\n", o->is_short ? form : form + 1, o->about);
	}
}

static void help_topic(const struct cli *c, const struct cli_command *topic, FILE *out)
{
	const char *synopsis = topic->synopsis;

	/* an alias names the subcommand itself: "striped-ls [-l] ..." */
	if (c->alias)
		synopsis += strlen(topic->name) + 1;
	fprintf(out, "usage: %s %s\n%s\n", c->prog, synopsis, topic->about);
	help_options(topic, out);
}

static void help_all(const struct cli *c, FILE *out)
{
	const struct cli_command *const *all = cli_commands_begin();

	fprintf(out, "usage: %s [OPTIONS] SUBCOMMAND [ARGS]\n\nSubcommands:\n", c->prog);
	for (size_t i = 0; i < cli_commands_count(); i++)
		if (!all[i]->hidden)
			fprintf(out, "  %s\n", all[i]->synopsis);
	fprintf(out,
		"NAME is a striped file of the pool, or rados://POOL/NAME. SIZE is bytes, or\n"
		"as dd reads it: K, M, G, T, P, E (or KiB...) 1024^n, KB, MB, GB... 1000^n.\n"
		"\nOptions (anywhere on the line, as rados and rbd take them):\n"
		"  -p, --pool POOL            the pool (needed by every subcommand)\n"
		"  -N, --namespace NS         a RADOS namespace of the pool\n"
		"  -c, --conf PATH            ceph.conf (default: $CEPH_CONF, then Ceph's search)\n"
		"      --id ID | -n, --name TYPE.ID   the client (default: client.admin)\n"
		"  -k, --keyring PATH         its keyring; CEPH_ARGS is honoured too\n"
		"      --format plain|json|json-pretty   fields as in the C structs, of\n"
		"                            ");
	for (size_t i = 0, n = 0; i < cli_commands_count(); i++)
		if (all[i]->query && !all[i]->offline)
			fprintf(out, "%s%s", n++ ? ", " : " ", all[i]->name);
	fprintf(out, "\n"
		     "  -h, --help, --version\n"
		     "Exit status: 0 done, 1 failed (one line on stderr), 2 usage error.\n"
		     "See striped(8).\n");
}

static int help_run(struct cli *c)
{
	if (c->a.topic)
		help_topic(c, c->a.topic, stdout);
	else
		help_all(c, stdout);
	return 0;
}

static int help_operands(struct cli_args *a, char **ops, int n, char *err, size_t errlen)
{
	int words;

	a->topic = n ? cli_find_command(ops, n, &words, err, errlen) : NULL;
	return n && !a->topic ? -EINVAL : 0;
}

CLI_COMMAND(help_command) = {
    .name = "help",
    .synopsis = "help [SUBCOMMAND]",
    .about = "Show what a subcommand does, or list them all.",
    .min = 0,
    .max = 2,
    .query = true,
    .offline = true,
    .operands = help_operands,
    .run = help_run,
};

/*
 * What the bash completion asks (striped.bash-completion): a line per
 * subcommand, its words (the alias too) then its own options, a value's
 * marked with "=": "truncate:-s= --size=".
 */
static void complete_line(const char *first, const struct cli_command *cmd)
{
	const char *space = strchr(cmd->name, ' ');

	printf("%s%s:", first, space ? space : "");
	for (const struct cli_option *o = cmd->options; o && o->name; o++) {
		if (o->is_short)
			printf(" -%c%s", o->key, o->arg ? "=" : "");
		printf(" --%s%s", o->name, o->arg ? "=" : "");
	}
	putchar('\n');
}

static int completion_run(struct cli *c)
{
	const struct cli_command *const *all = cli_commands_begin();
	char first[64];

	(void)c;
	for (size_t i = 0; i < cli_commands_count(); i++) {
		const struct cli_command *cmd = all[i];

		if (cmd->hidden)
			continue;
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(cmd->name, " "), cmd->name);
		complete_line(first, cmd);
		if (cmd->alias)
			complete_line(cmd->alias, cmd);
	}
	return 0;
}

CLI_COMMAND(completion_command) = {
    .name = "bash-completion",
    .synopsis = "bash-completion",
    .about = "The subcommands and their options, for the bash completion.",
    .query = true,
    .offline = true,
    .hidden = true,
    .run = completion_run,
};

/* ---- the connection ---- */

static int connect_cluster(struct cli *c)
{
	const struct cli_args *a = &c->a;
	char why[PATH_MAX + 128]; /* the conf file named, and why */
	int r = tool_connect(&a->conn, &c->cluster, why, sizeof(why));

	if (r)
		return cli_error(c, "%s", why);
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

static int run_online(struct cli *c)
{
	int r;

	if (!c->a.pool) {
		fprintf(stderr, "%s: %s: no pool given (-p POOL)\n", c->prog, c->a.cmd->name);
		return EXIT_USAGE;
	}
	/* a JSON document reaches stdout whole or not at all (a failed listing prints none) */
	json_init(&c->json, stdout, c->a.format == CLI_FORMAT_JSON_PRETTY);
	r = connect_cluster(c);
	if (!r)
		r = c->a.cmd->run(c);
	json_discard(&c->json);
	disconnect(c);
	return r;
}

int cli_main(const char *prog, bool alias, int argc, char **argv)
{
	struct cli c = {.prog = prog, .alias = alias};
	char err[512];
	int r = cli_parse(argc, argv, &c.a, err, sizeof(err));

	if (r) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	if (c.a.version) {
		printf("%s (libstriped) %s\n", prog, striped_version(NULL, NULL, NULL));
		return 0;
	}
	return c.a.cmd->offline ? c.a.cmd->run(&c) : run_online(&c);
}
