// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operators' command's arguments. Options may come anywhere on the
 * line (GNU getopt permutes them, as rados and rbd take theirs); `--` ends
 * them, for a value or a name that begins with a dash. Each subcommand
 * takes the connection options and --format, plus its own (its struct
 * cli_command lists them); anything else is a usage error that names the
 * option.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"

/* ---- the registered subcommands ---- */

/* Defined by the linker when an object linked has the section; weak, so a line without any parses.
 */
extern const struct cli_command *const __start_cli_commands[] __attribute__((weak));
extern const struct cli_command *const __stop_cli_commands[] __attribute__((weak));

static size_t registered(void)
{
	return __start_cli_commands ? (size_t)(__stop_cli_commands - __start_cli_commands) : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct cli_command *const *)a)->name,
		      (*(const struct cli_command *const *)b)->name);
}

/* By name, as rbd lists its actions: the section's order is the compiler's and the linker's. */
const struct cli_command *const *cli_commands_begin(void)
{
	static const struct cli_command *sorted[CLI_COMMANDS_MAX];
	static size_t n;

	if (!n && registered()) {
		n = registered() < CLI_COMMANDS_MAX ? registered() : CLI_COMMANDS_MAX;
		memcpy(sorted, __start_cli_commands, n * sizeof(sorted[0]));
		qsort(sorted, n, sizeof(sorted[0]), by_name);
	}
	return sorted;
}

size_t cli_commands_count(void)
{
	return registered() < CLI_COMMANDS_MAX ? registered() : CLI_COMMANDS_MAX;
}

/* Whether word is the first (or, with second, the second) word of c's name. */
static bool is_word(const struct cli_command *c, const char *word, bool second)
{
	const char *space = strchr(c->name, ' ');
	const char *w = second ? space + 1 : c->name;
	size_t len = second || !space ? strlen(w) : (size_t)(space - c->name);

	if (!second && c->alias && !strcmp(word, c->alias))
		return true;
	return strlen(word) == len && !strncmp(word, w, len);
}

const struct cli_command *cli_find_command(char **ops, int n, int *words, char *err, size_t errlen)
{
	const struct cli_command *const *all = cli_commands_begin();
	bool known_word = false;

	for (size_t i = 0; i < cli_commands_count(); i++) {
		const struct cli_command *c = all[i];
		bool two = strchr(c->name, ' ') != NULL;

		if (!is_word(c, ops[0], false))
			continue;
		known_word = true;
		if (!two || (n > 1 && is_word(c, ops[1], true))) {
			*words = two ? 2 : 1;
			return c;
		}
	}
	if (known_word && n > 1)
		cli_usage_error(err, errlen, "unknown subcommand '%s %s'", ops[0], ops[1]);
	else if (known_word)
		cli_usage_error(err, errlen, "'%s' wants a subcommand (%s ls, ...)", ops[0],
				ops[0]);
	else
		cli_usage_error(err, errlen, "unknown subcommand '%s'", ops[0]);
	return NULL;
}

/* ---- operands ---- */

/* Another pool named on the line than -p's is a usage error; otherwise it is the pool. */
static int set_pool(struct cli_args *a, const char *pool, const char *operand, char *err,
		    size_t errlen)
{
	if (a->pool && strcmp(a->pool, pool))
		return cli_usage_error(err, errlen, "%s: another pool than -p %s", operand,
				       a->pool);
	snprintf(a->pool_buf, sizeof(a->pool_buf), "%s", pool);
	a->pool = a->pool_buf;
	return 0;
}

int cli_take_location(struct cli_args *a, const char *s, char *err, size_t errlen)
{
	struct tool_rados url;
	int r;

	a->prefix = "";
	if (!tool_is_rados(s)) {
		if (!*s || strlen(s) >= sizeof(url.pool))
			return cli_usage_error(err, errlen, "'%s': not a pool name", s);
		return set_pool(a, s, s, err, errlen);
	}
	r = tool_parse_rados(s, TOOL_RADOS_PREFIX, &url, err, errlen);
	if (r)
		return r;
	a->prefix = url.name;
	return set_pool(a, url.pool, s, err, errlen);
}

int cli_take_file(struct cli_args *a, const char *s, char *err, size_t errlen)
{
	struct tool_rados url;
	int r;

	a->file = s;
	if (!tool_is_rados(s))
		return *s ? 0 : cli_usage_error(err, errlen, "empty file name");
	r = tool_parse_rados(s, TOOL_RADOS_FILE, &url, err, errlen);
	if (r)
		return r;
	a->file = url.name;
	return set_pool(a, url.pool, s, err, errlen);
}

/* ---- options ---- */

/*
 * Every command's: Ceph's connection options, --format, help and version.
 * The long-only ones have keys past any character, so a subcommand's short
 * option never takes one's key (rm -f would have been --format).
 */
enum { OPT_ID = 256, OPT_FORMAT, OPT_VERSION };
static const struct option global_opts[] = {
    {"conf", required_argument, NULL, 'c'},
    {"id", required_argument, NULL, OPT_ID},
    {"user", required_argument, NULL, OPT_ID},
    {"name", required_argument, NULL, 'n'},
    {"keyring", required_argument, NULL, 'k'},
    {"pool", required_argument, NULL, 'p'},
    {"namespace", required_argument, NULL, 'N'},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
};
#define GLOBAL_SHORT ":c:n:k:p:N:h"
#define NGLOBAL (sizeof(global_opts) / sizeof(global_opts[0]))
#define OPTS_MAX 64

/* getopt's tables: the global options, then every subcommand's own (each name once). */
struct opt_tables {
	struct option longs[OPTS_MAX + 1];
	char shorts[2 * OPTS_MAX + sizeof(GLOBAL_SHORT)];
	size_t n;
};

static bool has_long(const struct opt_tables *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->longs[i].name, name))
			return true;
	return false;
}

static void add_command_options(struct opt_tables *t, const struct cli_option *o)
{
	for (; o && o->name && t->n < OPTS_MAX; o++) {
		size_t len = strlen(t->shorts);

		if (has_long(t, o->name))
			continue;
		t->longs[t->n++] = (struct option){
		    o->name, o->arg ? required_argument : no_argument, NULL, o->key};
		if (o->is_short)
			snprintf(t->shorts + len, sizeof(t->shorts) - len, "%c%s", o->key,
				 o->arg ? ":" : "");
	}
}

static void build_tables(struct opt_tables *t)
{
	const struct cli_command *const *all = cli_commands_begin();

	memset(t, 0, sizeof(*t));
	memcpy(t->longs, global_opts, sizeof(global_opts));
	t->n = NGLOBAL;
	snprintf(t->shorts, sizeof(t->shorts), "%s", GLOBAL_SHORT);
	for (size_t i = 0; i < cli_commands_count(); i++)
		add_command_options(t, all[i]->options);
}

/* The subcommands' option of that key (any subcommand's), for messages. */
static const struct cli_option *option_of(int key)
{
	const struct cli_command *const *all = cli_commands_begin();

	for (size_t i = 0; i < cli_commands_count(); i++)
		for (const struct cli_option *o = all[i]->options; o && o->name; o++)
			if (o->key == key)
				return o;
	return NULL;
}

static bool command_takes(const struct cli_command *c, int key)
{
	for (const struct cli_option *o = c->options; o && o->name; o++)
		if (o->key == key)
			return true;
	return false;
}

const char *cli_given(const struct cli_args *a, int key)
{
	for (int i = a->ngiven - 1; i >= 0; i--) /* the last one wins */
		if (a->given[i].key == key)
			return a->given[i].value;
	return NULL;
}

static int parse_format(struct cli_args *a, const char *s, char *err, size_t errlen)
{
	if (!strcmp(s, "plain"))
		a->format = CLI_FORMAT_PLAIN;
	else if (!strcmp(s, "json"))
		a->format = CLI_FORMAT_JSON;
	else if (!strcmp(s, "json-pretty"))
		a->format = CLI_FORMAT_JSON_PRETTY;
	else
		return cli_usage_error(err, errlen,
				       "--format: want plain, json or json-pretty, not '%s'", s);
	return 0;
}

/* One option: a global one into *a, a subcommand's own into a->given. */
static int take_option(struct cli_args *a, int opt, const char *arg, char *err, size_t errlen)
{
	switch (opt) {
	case 'c':
		a->conn.conf = arg;
		return 0;
	case OPT_ID:
		a->conn.id = arg;
		return 0;
	case 'n':
		a->conn.name = arg;
		return 0;
	case 'k':
		a->conn.keyring = arg;
		return 0;
	case 'p':
		a->pool = arg;
		return 0;
	case 'N':
		a->nspace = arg;
		return 0;
	case OPT_FORMAT:
		return parse_format(a, arg, err, errlen);
	}
	if (a->ngiven == CLI_GIVEN_MAX)
		return cli_usage_error(err, errlen, "too many options");
	a->given[a->ngiven].key = opt;
	a->given[a->ngiven++].value = arg ? arg : "";
	return 0;
}

/*
 * Whether getopt stopped inside a cluster of short options ("-xl" at x):
 * it then leaves optind at the cluster, so argv[optind - 1] is the
 * element before it, not the option refused.
 */
static bool inside_cluster(char **argv, int argc)
{
	const char *next = optind < argc ? argv[optind] : "";
	const char *at =
	    optopt && next[0] == '-' && next[1] != '-' ? strchr(next + 1, optopt) : NULL;

	return at && at[1];
}

/*
 * The option getopt refused, named as it was typed: "--bogus" (a value
 * given with = left out), or "-x" out of a cluster such as "-lx". optopt
 * is 0 for an unknown long option, else the short option's (or the long
 * one's) key.
 */
static int refused(char **argv, int argc, int opt, char *err, size_t errlen)
{
	const char *prev = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	bool long_form = !strncmp(prev, "--", 2) && !inside_cluster(argv, argc);
	int len = (int)strcspn(prev, "=");

	if (long_form && opt == ':')
		return cli_usage_error(err, errlen, "option '%.*s' needs a value", len, prev);
	if (long_form && optopt && prev[len])
		return cli_usage_error(err, errlen, "option '%.*s' takes no value", len, prev);
	if (long_form)
		return cli_usage_error(err, errlen, "unrecognized option '%.*s'", len, prev);
	if (opt == ':')
		return cli_usage_error(err, errlen, "option '-%c' needs a value", optopt);
	return cli_usage_error(err, errlen, "unrecognized option '-%c'", optopt);
}

/* Options the subcommand does not take: the first one named. */
static int check_given(const struct cli_args *a, const struct cli_command *c, char *err,
		       size_t errlen)
{
	for (int i = 0; i < a->ngiven; i++) {
		const struct cli_option *o = option_of(a->given[i].key);

		if (!command_takes(c, a->given[i].key))
			return cli_usage_error(err, errlen,
					       "%s: --%s is an option of another subcommand",
					       c->name, o ? o->name : "?");
	}
	return 0;
}

static const struct cli_command *help_command(void)
{
	char *word = "help";
	int words;

	return cli_find_command(&word, 1, &words, NULL, 0);
}

int cli_parse(int argc, char **argv, struct cli_args *a, char *err, size_t errlen)
{
	const struct cli_command *c;
	struct opt_tables t;
	bool help = false;
	int opt, words = 0, r, nops;
	char **ops;

	memset(a, 0, sizeof(*a));
	a->prefix = "";
	build_tables(&t);
	optind = 0; /* GNU: start over (the unit tests parse many lines) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, t.shorts, t.longs, NULL)) != -1) {
		if (opt == '?' || opt == ':')
			return refused(argv, argc, opt, err, errlen);
		if (opt == 'h') {
			help = true;
		} else if (opt == OPT_VERSION) {
			a->version = true;
			return 0;
		} else if ((r = take_option(a, opt, optarg, err, errlen))) {
			return r;
		}
	}
	ops = argv + optind;
	nops = argc - optind;
	if (nops == 0) {
		a->cmd = help_command();
		return help && a->cmd ? 0 : cli_usage_error(err, errlen, "no subcommand given");
	}
	c = cli_find_command(ops, nops, &words, err, errlen);
	if (!c)
		return -EINVAL;
	ops += words;
	nops -= words;
	if (help && c != help_command()) {
		a->cmd = help_command();
		a->topic = c;
		return 0;
	}
	r = check_given(a, c, err, errlen);
	if (r)
		return r;
	if (nops < c->min || (c->max >= 0 && nops > c->max))
		return cli_usage_error(err, errlen, "usage: striped %s", c->synopsis);
	a->cmd = c;
	return c->operands ? c->operands(a, ops, nops, err, errlen) : 0;
}
