/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operators' command's arguments: `striped [OPTIONS] SUBCOMMAND [ARGS]`,
 * with Ceph's connection options anywhere on the line, as rados and rbd
 * take them. Each subcommand is one struct cli_command, defined in its own
 * file beside its run function and registered there with CLI_COMMAND():
 * the parser, help and the bash completion read them all from that list.
 * Parsing is pure: no printing, no exit, no cluster.
 */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tool_args.h"

struct cli;
struct cli_args;

/* One of a subcommand's own options. */
struct cli_option {
	int key;	  /* its short form ('l' for -l) when is_short, else only a key */
	bool is_short;	  /* -KEY works too */
	const char *name; /* the long form, --NAME */
	const char *arg;  /* the value it takes, as help shows it ("SIZE"); NULL: a flag */
	const char *about;
};

struct cli_command {
	const char *name;		  /* one word, or two: "lock break" */
	const char *alias;		  /* another name of the first word (rados' and rbd's) */
	const char *synopsis;		  /* what follows the program's name in a usage line */
	const char *about;		  /* what it does, for help (the man page says more) */
	const struct cli_option *options; /* its own, ending with {0}; may be NULL */
	int min, max;			  /* how many operands follow its words; max -1: any */
	bool query;   /* prints what it reads: --format applies */
	bool offline; /* runs without a cluster (help) */
	bool hidden;  /* not listed by help (what the bash completion asks) */
	/* Its operands (min to max of them) into *a; 0, or -EINVAL with err set. */
	int (*operands)(struct cli_args *a, char **ops, int n, char *err, size_t errlen);
	/* Does the work; returns the exit status, 0 or 1. */
	int (*run)(struct cli *c);
};

/*
 * Registers a subcommand, as rbd's actions register themselves: a pointer
 * to it in the section cli_commands, which the linker gathers from every
 * object linked whole (meson: link_whole) into one array; listed by name.
 *
 *   CLI_COMMAND(stat_command) = {.name = "stat", ..., .run = stat_run};
 */
#define CLI_COMMAND(var)                                                                           \
	static const struct cli_command var;                                                       \
	static const struct cli_command *const var##_registered                                    \
	    __attribute__((used, section("cli_commands"), aligned(sizeof(void *)))) = &var;        \
	static const struct cli_command var

/* The registered subcommands by name: cli_commands_begin()[0 .. cli_commands_count() - 1]. */
#define CLI_COMMANDS_MAX 64
const struct cli_command *const *cli_commands_begin(void);
size_t cli_commands_count(void);

enum cli_format {
	CLI_FORMAT_PLAIN,
	CLI_FORMAT_JSON,
	CLI_FORMAT_JSON_PRETTY,
};

#define CLI_GIVEN_MAX 16

struct cli_args {
	const struct cli_command *cmd;
	bool version;			 /* --version: nothing else is done */
	const struct cli_command *topic; /* help: the subcommand asked about, NULL for all */
	struct tool_conn conn;		 /* Ceph's connection options */
	const char *pool, *nspace;
	enum cli_format format;
	/* the subcommands' own options given, in order: key and value ("" for a flag) */
	struct {
		int key;
		const char *value;
	} given[CLI_GIVEN_MAX];
	int ngiven;
	const char *prefix;	     /* ls: only the names that start with it ("" for all) */
	const char *file;	     /* the file operand */
	const char *key;	     /* xattr get/set/rm: the attribute's name */
	const char *value;	     /* xattr set: the value; NULL: read from standard input */
	uint64_t size;		     /* truncate */
	const char *cookie, *client; /* lock break: the holder (client may be NULL) */
	char *const *files;	     /* check: only these files (nfiles 0: every file) */
	int nfiles;
	char pool_buf[TOOL_POOL_MAX]; /* the pool of a rados:// operand */
};

/*
 * Parse argv (argv[0] is the program). Returns 0 with *a filled; -EINVAL
 * for a usage error, err then says what (one line, no program name, no
 * newline). For --help and help, a->cmd is the help subcommand and
 * a->topic what it is asked about; for --version, a->version is set.
 * Pointers in *a point into argv, into *a itself, or at the registered
 * subcommands.
 */
int cli_parse(int argc, char **argv, struct cli_args *a, char *err, size_t errlen);

/* The value of a subcommand's own option (key as in its struct cli_option), or NULL. */
const char *cli_given(const struct cli_args *a, int key);

/* The subcommand named by the words at ops (one or two), or NULL (err then says why). */
const struct cli_command *cli_find_command(char **ops, int n, int *words, char *err, size_t errlen);

/* Operand helpers for the subcommands' operands functions. */
/* A file: NAME, or rados://POOL/NAME (its pool then that of the line). */
int cli_take_file(struct cli_args *a, const char *s, char *err, size_t errlen);
/* A pool and what the names start with: POOL, rados://POOL or rados://POOL/PREFIX. */
int cli_take_location(struct cli_args *a, const char *s, char *err, size_t errlen);
/* A usage error: err filled (one line), returns -EINVAL; tool_error() is the one formatter. */
#define cli_usage_error(err, errlen, ...) tool_error(err, errlen, -EINVAL, __VA_ARGS__)

#endif /* CLI_ARGS_H */
