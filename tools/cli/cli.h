/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operators' command `striped`: what its subcommands share (the
 * connection, one-line failures, output). Each subcommand is one file
 * (cmd_*.c) that registers itself with CLI_COMMAND() (cli_args.h): its
 * name, help, options, operands and run function together. Public header
 * only: libstriped and librados.
 */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>

#include <striped.h>

#include "cli_args.h"
#include "cli_out.h"

struct cli {
	const char *prog; /* "striped", or "striped-ls": the old name of `striped ls` */
	bool alias;	  /* prog names one subcommand, given in argv as its first operand */
	struct cli_args a;
	rados_t cluster; /* NULL until connected */
	rados_ioctx_t io;
	struct json json; /* the document of a query under --format json */
};

/*
 * Run the command line argv (argv[0] the program) as prog; the exit
 * status: 0 done, 1 failed, 2 usage error. alias: prog is another name of
 * the subcommand that argv names first (striped-ls), as help shows it.
 */
int cli_main(const char *prog, bool alias, int argc, char **argv);

/* One line on stderr, "PROG: WHAT: strerror(-err)"; returns 1, the exit status. */
int cli_fail(const struct cli *c, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* One line on stderr, "PROG: WHAT", for a failure no errno names; returns 1. */
int cli_error(const struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What a subcommand that changes something is about to do: one line on stdout. */
void cli_say(const struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether the output is JSON (c->json is then ready). */
bool cli_json(const struct cli *c);
/* "libstriped", "libradosstriper" or "other" (STRIPED_LOCKER_*). */
const char *cli_owner_name(int owner);

/*
 * The holders of a file's lock, copied out of a listing (the strings are
 * the struct's own). Returns how many (at most max), or -errno.
 */
struct cli_locker {
	char client[64], cookie[192], address[160], tag[64];
	int exclusive, owner;
};
#define CLI_LOCKERS_MAX 64
int cli_lockers(struct cli *c, const char *name, struct cli_locker *out, int max);
/* The holders as JSON: struct striped_locker's fields, owner by name. */
void cli_lockers_json(struct json *j, const char *key, const struct cli_locker *l, int n);
/* "client.4123 (libstriped, cookie C)", for a one-line failure or notice. */
void cli_locker_text(const struct cli_locker *l, char *buf, size_t len);
/* The first holder of name's lock as cli_locker_text() says it; false when none is listed. */
bool cli_holder_text(struct cli *c, const char *name, char *buf, size_t len);

/* Operands functions several subcommands share (struct cli_command's operands). */
/* NAME: the file alone. */
int cli_operand_file(struct cli_args *a, char **ops, int n, char *err, size_t errlen);
/* NAME KEY [VALUE]: xattr get, set and rm. */
int cli_operand_file_key(struct cli_args *a, char **ops, int n, char *err, size_t errlen);

#endif /* CLI_H */
