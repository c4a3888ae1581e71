// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operators' command's arguments. Options may come anywhere on the
 * line (GNU getopt permutes them, as rados and rbd take theirs); `--` ends
 * them, for a value or a name that begins with a dash. Each subcommand
 * takes the connection options and --format, plus its own, listed in its
 * row below; anything else is a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"

#define RADOS_PREFIX "rados://"

/* A subcommand's own options. */
enum {
	OPT_LONG = 0x1,
	OPT_REPAIR = 0x2,
	OPT_UNFENCED = 0x4,
	OPT_SIZE = 0x8,
};

/* How a subcommand's operands are read. */
enum operands {
	OPS_NONE,     /* help, version */
	OPS_LOCATION, /* ls: [POOL | rados://POOL[/PREFIX]] */
	OPS_FILE,     /* NAME, then more as min/max say */
	OPS_FILES,    /* check: [NAME...] */
};

struct command {
	enum cli_command cmd;
	const char *name;  /* one word, or two: "lock break" */
	const char *alias; /* another name of the first word (rados' and rbd's) */
	unsigned opts;
	enum operands operands;
	int min, max; /* operands after the words */
	bool query;
	const char *synopsis;
};

static const struct command commands[] = {
    {CLI_LS, "ls", "list", OPT_LONG, OPS_LOCATION, 0, 1, true,
     "ls [-l] [POOL | rados://POOL[/PREFIX]]"},
    {CLI_STAT, "stat", NULL, 0, OPS_FILE, 1, 1, true, "stat NAME"},
    {CLI_RM, "rm", "remove", 0, OPS_FILE, 1, 1, false, "rm NAME"},
    {CLI_TRUNCATE, "truncate", NULL, OPT_SIZE, OPS_FILE, 1, 2, false,
     "truncate NAME SIZE | truncate -s SIZE NAME"},
    {CLI_XATTR_GET, "xattr get", NULL, 0, OPS_FILE, 2, 2, true, "xattr get NAME KEY"},
    {CLI_XATTR_SET, "xattr set", NULL, 0, OPS_FILE, 2, 3, false,
     "xattr set NAME KEY [VALUE]   (no VALUE: read from standard input)"},
    {CLI_XATTR_RM, "xattr rm", NULL, 0, OPS_FILE, 2, 2, false, "xattr rm NAME KEY"},
    {CLI_XATTR_LS, "xattr ls", NULL, 0, OPS_FILE, 1, 1, true, "xattr ls NAME"},
    {CLI_LOCK_LS, "lock ls", NULL, 0, OPS_FILE, 1, 1, true, "lock ls NAME"},
    {CLI_LOCK_BREAK, "lock break", NULL, OPT_UNFENCED, OPS_FILE, 2, 3, false,
     "lock break [--unfenced] NAME COOKIE [CLIENT]"},
    {CLI_CHECK, "check", NULL, OPT_REPAIR, OPS_FILES, 0, -1, true, "check [--repair] [NAME...]"},
    {CLI_HELP, "help", NULL, 0, OPS_NONE, 0, 1, true, "help [SUBCOMMAND]"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *command_of(enum cli_command cmd)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (commands[i].cmd == cmd)
			return &commands[i];
	return NULL;
}

const char *cli_command_name(enum cli_command cmd)
{
	const struct command *c = command_of(cmd);

	return c ? c->name : "striped";
}

const char *cli_command_synopsis(enum cli_command cmd)
{
	const struct command *c = command_of(cmd);

	return c ? c->synopsis : "";
}

bool cli_command_is_query(enum cli_command cmd)
{
	const struct command *c = command_of(cmd);

	return c && c->query;
}

static int usage_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int cli_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGTPE";
	uint64_t v = 0, mult = 1;
	const char *p = s, *u;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (*p) {
		u = strchr(units, *p);
		if (!u)
			return -EINVAL;
		for (const char *k = units; k <= u; k++)
			mult *= 1024;
		p++;
		if (!strcmp(p, "iB") || !strcmp(p, "B"))
			p += strlen(p);
	}
	if (*p)
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

int cli_split_object_name(const char *oid, uint64_t *objectno)
{
	size_t n = strlen(oid);
	uint64_t v = 0;

	/* ".%016llx": a dot, then 16 lowercase hex digits, after a name of one byte at least. */
	if (n < 18 || n > 0x7fffffff || oid[n - 17] != '.')
		return -1;
	for (size_t i = n - 16; i < n; i++) {
		char c = oid[i];

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return -1;
	}
	*objectno = v;
	return (int)(n - 17);
}

/* Another pool named on the line than -p's is a usage error; otherwise it is the pool. */
static int set_pool(struct cli_args *a, const char *pool, size_t len, const char *operand,
		    char *err, size_t errlen)
{
	if (len == 0)
		return usage_error(err, errlen, "%s: missing pool name (POOL or rados://POOL%s)",
				   operand, a->cmd == CLI_LS ? "[/PREFIX]" : "/NAME");
	if (len >= sizeof(a->pool_buf))
		return usage_error(err, errlen, "%s: pool name too long", operand);
	if (a->pool && (strlen(a->pool) != len || strncmp(a->pool, pool, len)))
		return usage_error(err, errlen, "%s: another pool than -p %s", operand, a->pool);
	memcpy(a->pool_buf, pool, len);
	a->pool_buf[len] = '\0';
	a->pool = a->pool_buf;
	return 0;
}

/* ls: POOL, rados://POOL or rados://POOL/PREFIX. */
static int parse_location(struct cli_args *a, const char *s, char *err, size_t errlen)
{
	const char *slash;

	a->prefix = "";
	if (strncmp(s, RADOS_PREFIX, strlen(RADOS_PREFIX)))
		return set_pool(a, s, strlen(s), s, err, errlen);
	slash = strchr(s + strlen(RADOS_PREFIX), '/');
	if (slash)
		a->prefix = slash + 1;
	return set_pool(a, s + strlen(RADOS_PREFIX),
			slash ? (size_t)(slash - s) - strlen(RADOS_PREFIX)
			      : strlen(s + strlen(RADOS_PREFIX)),
			s, err, errlen);
}

/* A file: NAME, or rados://POOL/NAME. */
static int parse_file(struct cli_args *a, const char *s, char *err, size_t errlen)
{
	const char *pool = s + strlen(RADOS_PREFIX), *slash;

	a->file = s;
	if (strncmp(s, RADOS_PREFIX, strlen(RADOS_PREFIX)))
		return *s ? 0 : usage_error(err, errlen, "empty file name");
	slash = strchr(pool, '/');
	if (!slash || !slash[1])
		return usage_error(err, errlen, "%s: missing file name (rados://POOL/NAME)", s);
	a->file = slash + 1;
	return set_pool(a, pool, (size_t)(slash - pool), s, err, errlen);
}

/* The operands after the subcommand's words, as its row says. */
static int parse_operands(struct cli_args *a, const struct command *c, char **ops, int n, char *err,
			  size_t errlen)
{
	int r = 0;

	switch (c->operands) {
	case OPS_NONE:
		break;
	case OPS_LOCATION:
		if (n)
			r = parse_location(a, ops[0], err, errlen);
		break;
	case OPS_FILES:
		a->files = ops;
		a->nfiles = n;
		break;
	case OPS_FILE:
		r = parse_file(a, ops[0], err, errlen);
		break;
	}
	if (r)
		return r;
	switch (c->cmd) {
	case CLI_TRUNCATE:
		if (n == 2 && cli_parse_size(ops[1], &a->size))
			return usage_error(err, errlen, "truncate: invalid size '%s'", ops[1]);
		break;
	case CLI_XATTR_GET:
	case CLI_XATTR_SET:
	case CLI_XATTR_RM:
		a->key = ops[1];
		a->value = n == 3 ? ops[2] : NULL;
		break;
	case CLI_LOCK_BREAK:
		a->cookie = ops[1];
		a->client = n == 3 ? ops[2] : NULL;
		break;
	default:
		break;
	}
	return 0;
}

/* Whether word is the first (or, with second, the second) word of c's name. */
static bool is_word(const struct command *c, const char *word, bool second)
{
	const char *space = strchr(c->name, ' ');
	const char *w = second ? space + 1 : c->name;
	size_t len = second || !space ? strlen(w) : (size_t)(space - c->name);

	if (!second && c->alias && !strcmp(word, c->alias))
		return true;
	return strlen(word) == len && !strncmp(word, w, len);
}

/* The subcommand named by the words at ops (one or two); NULL and err set when none. */
static const struct command *find_command(char **ops, int n, int *words, char *err, size_t errlen)
{
	bool known_word = false;

	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct command *c = &commands[i];
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
		usage_error(err, errlen, "unknown subcommand '%s %s'", ops[0], ops[1]);
	else if (known_word)
		usage_error(err, errlen, "'%s' wants a subcommand (%s ls, ...)", ops[0], ops[0]);
	else
		usage_error(err, errlen, "unknown subcommand '%s'", ops[0]);
	return NULL;
}

static const struct option long_opts[] = {
    {"conf", required_argument, NULL, 'c'},
    {"id", required_argument, NULL, 'i'},
    {"user", required_argument, NULL, 'i'},
    {"name", required_argument, NULL, 'n'},
    {"keyring", required_argument, NULL, 'k'},
    {"pool", required_argument, NULL, 'p'},
    {"namespace", required_argument, NULL, 'N'},
    {"format", required_argument, NULL, 'f'},
    {"long", no_argument, NULL, 'l'},
    {"repair", no_argument, NULL, 'R'},
    {"unfenced", no_argument, NULL, 'U'},
    {"size", required_argument, NULL, 's'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static int parse_format(struct cli_args *a, const char *s, char *err, size_t errlen)
{
	if (!strcmp(s, "plain"))
		a->format = CLI_FORMAT_PLAIN;
	else if (!strcmp(s, "json"))
		a->format = CLI_FORMAT_JSON;
	else if (!strcmp(s, "json-pretty"))
		a->format = CLI_FORMAT_JSON_PRETTY;
	else
		return usage_error(err, errlen,
				   "--format: want plain, json or json-pretty, not '%s'", s);
	return 0;
}

/* One option: into *a, its bit into *given when it is a subcommand's own. */
static int take_option(struct cli_args *a, int opt, const char *arg, unsigned *given, char *err,
		       size_t errlen)
{
	switch (opt) {
	case 'c':
		a->conf = arg;
		break;
	case 'i':
		a->id = arg;
		break;
	case 'n':
		a->name = arg;
		break;
	case 'k':
		a->keyring = arg;
		break;
	case 'p':
		a->pool = arg;
		break;
	case 'N':
		a->nspace = arg;
		break;
	case 'f':
		return parse_format(a, arg, err, errlen);
	case 'l':
		a->long_list = true;
		*given |= OPT_LONG;
		break;
	case 'R':
		a->repair = true;
		*given |= OPT_REPAIR;
		break;
	case 'U':
		a->unfenced = true;
		*given |= OPT_UNFENCED;
		break;
	case 's':
		*given |= OPT_SIZE;
		if (cli_parse_size(arg, &a->size))
			return usage_error(err, errlen, "-s: invalid size '%s'", arg);
		break;
	}
	return 0;
}

/* The option argv[optind - 1] was, for a message about it. */
static const char *option_text(char **argv, int at)
{
	return at > 0 ? argv[at - 1] : "?";
}

int cli_parse(int argc, char **argv, struct cli_args *a, char *err, size_t errlen)
{
	const struct command *c = NULL;
	unsigned given = 0;
	bool help = false;
	int opt, words = 0, r = 0;
	char **ops;
	int nops;

	memset(a, 0, sizeof(*a));
	a->prefix = "";
	optind = 0; /* GNU: start over (the unit tests parse many lines) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:n:k:p:N:ls:h", long_opts, NULL)) != -1) {
		if (opt == '?')
			return usage_error(err, errlen, "unrecognized option '%s'",
					   option_text(argv, optind));
		if (opt == ':')
			return usage_error(err, errlen, "option '%s' needs a value",
					   option_text(argv, optind));
		if (opt == 'h') {
			help = true;
		} else if (opt == 'V') {
			a->cmd = CLI_VERSION;
			return 0;
		} else {
			r = take_option(a, opt, optarg, &given, err, errlen);
			if (r)
				return r;
		}
	}
	ops = argv + optind;
	nops = argc - optind;
	if (nops == 0) {
		if (!help)
			return usage_error(err, errlen, "no subcommand given");
		a->cmd = CLI_HELP;
		a->help = CLI_HELP;
		return 0;
	}
	c = find_command(ops, nops, &words, err, errlen);
	if (!c)
		return -EINVAL;
	a->cmd = c->cmd;
	ops += words;
	nops -= words;
	if (help || c->cmd == CLI_HELP) {
		const struct command *topic =
		    nops ? find_command(ops, nops, &words, err, errlen) : NULL;

		if (nops && c->cmd == CLI_HELP && !topic)
			return -EINVAL;
		a->help = c->cmd == CLI_HELP ? (topic ? topic->cmd : CLI_HELP) : c->cmd;
		a->cmd = CLI_HELP;
		return 0;
	}
	if (given & ~c->opts)
		return usage_error(err, errlen, "%s: an option of another subcommand given",
				   cli_command_name(c->cmd));
	/* truncate: the size once, as an operand or with -s */
	if (nops < c->min || (c->max >= 0 && nops > c->max) ||
	    (c->cmd == CLI_TRUNCATE && (nops == 2) == !!(given & OPT_SIZE)))
		return usage_error(err, errlen, "usage: striped %s", c->synopsis);
	return parse_operands(a, c, ops, nops, err, errlen);
}
