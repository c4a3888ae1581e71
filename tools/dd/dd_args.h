/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * striped-dd operand parsing: GNU dd's operands (numbers as tool_args.h
 * reads them), plus the striped extensions. Pure: no printing, no exit, no cluster.
 */
#ifndef DD_ARGS_H
#define DD_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <striped.h>

#include "tool_args.h"

/* conv= symbols */
#define DD_CONV_NOTRUNC 0x01
#define DD_CONV_NOCREAT 0x02
#define DD_CONV_EXCL 0x04
#define DD_CONV_FSYNC 0x08
#define DD_CONV_FDATASYNC 0x10
#define DD_CONV_SPARSE 0x20
#define DD_CONV_SYNC 0x40
#define DD_CONV_NOERROR 0x80

/* iflag= / oflag= symbols */
#define DD_FLAG_DIRECT 0x001
#define DD_FLAG_FULLBLOCK 0x002
#define DD_FLAG_COUNT_BYTES 0x004
#define DD_FLAG_SKIP_BYTES 0x008
#define DD_FLAG_SEEK_BYTES 0x010
#define DD_FLAG_DSYNC 0x020
#define DD_FLAG_SYNC 0x040
#define DD_FLAG_NOATIME 0x080
#define DD_FLAG_NOFOLLOW 0x100
#define DD_FLAG_NONBLOCK 0x200
#define DD_FLAG_NOCTTY 0x400
#define DD_FLAG_APPEND 0x800

/* oflag= symbols that make a striped output write one block at a time. */
#define DD_STRIPED_ONE_BY_ONE (DD_FLAG_DIRECT | DD_FLAG_DSYNC | DD_FLAG_SYNC)

enum dd_status {
	DD_STATUS_DEFAULT,
	DD_STATUS_NONE,
	DD_STATUS_NOXFER,
	DD_STATUS_PROGRESS,
	DD_STATUS_JSON,
};

/*
 * Largest block size, as GNU dd 9.1 on 64-bit Linux takes it (memory
 * permitting). The local side splits what Linux will not move in one call
 * (DD_IO_MAX); libstriped takes any length up to SSIZE_MAX.
 */
#define DD_MAX_BLOCKSIZE (INT64_MAX - 1ULL)
#define DD_IO_MAX 0x7ffff000ULL
#define DD_DEFAULT_BLOCKSIZE 512
#define DD_DEFAULT_IODEPTH 4
#define DD_MAX_IODEPTH 1024
#define DD_UNLIMITED UINT64_MAX

/* One side of the copy: a local path (NULL: stdin/stdout) or rados://POOL/NAME. */
struct dd_target {
	const char *path; /* as given, NULL when absent */
	bool striped;
	char *pool; /* owned, striped only */
	char *name; /* owned, striped only */
};

struct dd_args {
	struct dd_target in, out;
	uint64_t ibs, obs;
	bool twobufs;	      /* bs= not given: aggregate input into obs-sized writes */
	uint64_t skip;	      /* input offset in bytes */
	uint64_t seek;	      /* output offset in bytes */
	uint64_t count;	      /* input bytes to copy, DD_UNLIMITED for all */
	uint64_t max_records; /* input records to copy, DD_UNLIMITED for all */
	unsigned int conv, iflags, oflags;
	enum dd_status status;
	struct striped_layout layout;
	bool layout_given;
	struct tool_conn conn; /* conf=, id=, name=, keyring=, op_timeout= */
	const char *nspace; /* ns=: both striped sides' RADOS namespace; NULL: the default */
	unsigned int iodepth;
	bool verify;
};

enum {
	DD_ARGS_RUN = 0,
	DD_ARGS_HELP = 1,
	DD_ARGS_VERSION = 2,
};

/**
 * Parse rados://POOL/NAME into t (pool and name allocated).
 * @return 1 when s is a striped path, 0 when it is a local path; -EINVAL for
 *         a rados:// path without pool or name (err says which); -ENOMEM
 */
int dd_parse_target(const char *s, struct dd_target *t, char *err, size_t errlen);

/**
 * Parse argv[1..argc-1] into out (which is reset first).
 * @return DD_ARGS_RUN, DD_ARGS_HELP, DD_ARGS_VERSION; or a negative errno
 *         with a one-line message (without program name) in err
 */
int dd_parse_args(int argc, char **argv, struct dd_args *out, char *err, size_t errlen);

/** Free what dd_parse_args() allocated (accepts a zeroed or parsed struct). */
void dd_args_free(struct dd_args *a);

#endif /* DD_ARGS_H */
