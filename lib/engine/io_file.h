/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * io_file.c: what the engine keeps of an open file (its parts below the
 * modes: the lease, the size and mark, the regions, the throttle, the
 * statistics, a pool's append rules, the handle's calls). Private to the
 * engine: the handle sees a struct io_file only through io.h and calls.h.
 */
#ifndef STRIPED_IO_FILE_H
#define STRIPED_IO_FILE_H

#include "account.h"
#include "calls.h"
#include "io.h"
#include "io_appends.h"
#include "lease.h"
#include "regions.h"
#include "size.h"
#include "throttle.h"

struct io_file {
	rados_ioctx_t io;
	char *name;
	char *head_oid;
	struct striped_layout layout;
	uint64_t stripe_width;	    /* an erasure-coded pool's (0: replicated) */
	struct io_appends *appends; /* a pool that takes only aligned appends; else NULL */
	uint64_t objecter_ops_limit, objecter_bytes_limit;
	/*
	 * The client has an op timeout: a write that timed out may still be
	 * read by the messenger after it completed, so writes always copy.
	 */
	bool always_copy;
	struct io_owner owner; /* the handle's references, for the lease's idler and the calls */
	struct lease lease;
	struct file_size size; /* the size and the mark: what the lease's grants say */
	struct regions regions;
	struct striped_throttle throttle;
	struct io_account account;
	struct file_calls calls;
};

#endif /* STRIPED_IO_FILE_H */
