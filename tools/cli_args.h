/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operators' command's arguments: `striped [OPTIONS] SUBCOMMAND [ARGS]`,
 * with Ceph's connection options anywhere on the line, as rados and rbd
 * take them. Pure: no printing, no exit, no cluster.
 */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cli_command {
	CLI_LS,
	CLI_STAT,
	CLI_RM,
	CLI_TRUNCATE,
	CLI_XATTR_GET,
	CLI_XATTR_SET,
	CLI_XATTR_RM,
	CLI_XATTR_LS,
	CLI_LOCK_LS,
	CLI_LOCK_BREAK,
	CLI_CHECK,
	CLI_HELP,
	CLI_VERSION,
	CLI_COMMANDS,
};

enum cli_format {
	CLI_FORMAT_PLAIN,
	CLI_FORMAT_JSON,
	CLI_FORMAT_JSON_PRETTY,
};

/* Pool names out of rados://POOL/...: Ceph's are far shorter. */
#define CLI_POOL_MAX 256

struct cli_args {
	enum cli_command cmd;
	/* Ceph's connection options; NULL: librados' defaults ($CEPH_CONF, client.admin) */
	const char *conf, *id, *name, *keyring, *pool, *nspace;
	enum cli_format format;
	bool long_list;		     /* ls -l */
	bool repair;		     /* check --repair */
	bool unfenced;		     /* lock break --unfenced */
	const char *prefix;	     /* ls: only the names that start with it ("" for all) */
	const char *file;	     /* the file operand */
	const char *key;	     /* xattr get/set/rm: the attribute's name */
	const char *value;	     /* xattr set: the value; NULL: read from standard input */
	uint64_t size;		     /* truncate */
	const char *cookie, *client; /* lock break: the holder (client may be NULL) */
	char *const *files;	     /* check: only these files (nfiles 0: every file) */
	int nfiles;
	enum cli_command help;	     /* help: the subcommand asked about, CLI_HELP for all */
	char pool_buf[CLI_POOL_MAX]; /* the pool of a rados:// operand */
};

/* What a subcommand is called, and its synopsis for usage messages. */
const char *cli_command_name(enum cli_command cmd);
const char *cli_command_synopsis(enum cli_command cmd);
/* Whether it prints what it reads (--format applies), or changes something. */
bool cli_command_is_query(enum cli_command cmd);

/*
 * Parse argv (argv[0] is the program). Returns 0 with *a filled; -EINVAL
 * for a usage error, err then says what (one line, no program name, no
 * newline). For --help and help, a->cmd is CLI_HELP; for --version,
 * CLI_VERSION. Pointers in *a point into argv or into *a itself.
 */
int cli_parse(int argc, char **argv, struct cli_args *a, char *err, size_t errlen);

/*
 * A size with an optional binary suffix: K, M, G, T, P or E (1024^n),
 * alone or followed by iB or B ("4M", "4MiB", "4MB" are 4 MiB).
 * Returns 0, -EINVAL for no such number, -ERANGE past 2^64 - 1.
 */
int cli_parse_size(const char *s, uint64_t *out);

/*
 * Split a RADOS object name into its striped file's name and object
 * number: "NAME.%016llx" with exactly 16 lowercase hex digits and a name
 * that is not empty. Returns the name's length, or -1 when oid is no
 * striped file's object.
 */
int cli_split_object_name(const char *oid, uint64_t *objectno);

#endif /* CLI_ARGS_H */
