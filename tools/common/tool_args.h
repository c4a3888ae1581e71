/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What both commands, striped-dd and striped, take: numbers with GNU dd's
 * suffixes, rados://POOL/NAME, and Ceph's connection options. One
 * spelling means one thing in both. Pure: no printing, no exit, no cluster.
 */
#ifndef TOOL_ARGS_H
#define TOOL_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * What every parser of both commands does with a refusal: err (when not
 * NULL) filled with one line that says why, without the program's name;
 * the caller prints it.
 * @return r, so that a parser can `return tool_error(err, errlen, -EINVAL, ...)`
 */
int tool_error(char *err, size_t errlen, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/**
 * A number as GNU dd 9.1 reads one: decimal, then an optional multiplier,
 * c 1, w 2, b 512, K k KiB 1024, kB KB 1000, M MiB 1024^2, MB 1000^2, and
 * so on for G, T, P, E, Z, Y; a trailing B; products such as 2x4K.
 * "4M" and "4MiB" are 4194304, "4MB" is 4000000.
 * @return 0; -EINVAL for a malformed number; -EOVERFLOW above INT64_MAX
 */
int tool_parse_number(const char *s, uint64_t *out);

#define TOOL_RADOS_SCHEME "rados://"
/* Pool names out of rados://POOL/...: Ceph's are far shorter. */
#define TOOL_POOL_MAX 256

/* What follows rados://POOL: a file's name (required), or ls's prefix (optional). */
enum tool_rados_form {
	TOOL_RADOS_FILE,   /* rados://POOL/NAME */
	TOOL_RADOS_PREFIX, /* rados://POOL[/PREFIX] (ls, which also takes a POOL alone) */
};

struct tool_rados {
	char pool[TOOL_POOL_MAX];
	const char *name; /* into the string: the file's name, or the prefix ("" for none) */
};

/** Whether s names a striped file or pool (starts with rados://). */
bool tool_is_rados(const char *s);

/**
 * Parse rados://POOL/NAME (or rados://POOL[/PREFIX]) into out.
 * @return 0; -EINVAL when s is no such string, err then says why in one
 *         line ("S: missing pool name (rados://POOL/NAME)", ...)
 */
int tool_parse_rados(const char *s, enum tool_rados_form form, struct tool_rados *out, char *err,
		     size_t errlen);

/* Ceph's connection options; NULL or 0: librados' defaults ($CEPH_CONF, client.admin). */
struct tool_conn {
	const char *conf, *id, *name, *keyring;
	uint64_t op_timeout; /* seconds: rados_osd_op_timeout and rados_mon_op_timeout */
};

#endif /* TOOL_ARGS_H */
