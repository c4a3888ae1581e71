/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine (io.c, io_read.c, io_clean.c): one RADOS operation per object
 * per call, all sent before any is waited for. This is all that lies above
 * it sees; it knows no mode and no window, and calls nothing above it.
 */
#ifndef STRIPED_IO_H
#define STRIPED_IO_H

#include "appends.h"
#include "completion.h"
#include "iov.h"
#include "lease.h"
#include "throttle.h"

struct head_meta;

/*
 * A handle's writes on a pool that takes only aligned appends (erasure
 * coded without overwrites; io_appends.c): where its objects end, and the
 * lock that sends checked calls in the order they were checked.
 */
struct io_appends {
	pthread_mutex_t lock;
	uint64_t align;		/* the pool's stripe width */
	uint64_t epoch;		/* the lease the ends were learned under */
	u64_atomic unknown_gen; /* bumped when the ends may have moved (a failed call) */
	uint64_t gen_seen;
	struct append_map ends;
};

int io_appends_init(struct io_appends *a, uint64_t align);
void io_appends_destroy(struct io_appends *a);
/* The ends may have moved behind the handle's back: learn them again (any thread). */
void io_appends_unknown(struct io_appends *a);
/*
 * Whether the pool would take a write of [off, off + len) of file name now
 * (0, or -EOPNOTSUPP), learning where its objects end if the handle does not
 * know; nothing is counted as written. For a call whose range is decided
 * by a round trip first (an append's claim), so that a refusal comes before
 * it: the write itself is checked again.
 */
int io_appends_would_take(struct io_appends *a, rados_ioctx_t io, const char *name,
			  const struct striped_layout *l, uint64_t off, uint64_t len);

/* What the engine needs of an open handle (calls.c fills it). */
struct io_target {
	rados_ioctx_t io;
	const char *name;
	const char *head_oid;
	const struct striped_layout *layout;
	struct striped_throttle *throttle;
	struct io_account *account;
	struct lease *lease;
	struct io_appends *appends; /* on a pool that takes only aligned appends; else NULL */
	uint64_t stripe_width;	    /* an erasure-coded pool's; 0 for a replicated one */
	call_release_fn release; /* after the call's callback: the file lets go of it */
	void *owner;
	uint64_t tag; /* given back to release: the call's flush generation */
	/*
	 * The client has an op timeout: a write that timed out may still be
	 * read by the messenger after it completed, so writes always copy.
	 */
	bool always_copy;
};

/* What one call of the engine does. */
enum io_op { IO_WRITE, IO_READ, IO_DISCARD, IO_STAT };

struct io_req {
	enum io_op op;
	/* IO_WRITE, IO_READ: the caller's memory (len bytes), taken over by the call */
	struct io_mem *mem;
	uint64_t len, off;
	int flags;	/* STRIPED_IO_* */
	bool drain;	/* write-behind of a buffered handle: sent while the lock is handed over */
	uint64_t *size; /* IO_STAT: where the stored size goes */
};

/*
 * Start one call: c completes when every operation of it did. Returns 0,
 * or -errno with c untouched. req->mem is the call's either way (emptied:
 * a later io_mem_free() of it frees nothing).
 */
int io_start(const struct io_target *t, struct striped_completion *c, struct io_req *req);
/*
 * Cleanup operations (truncate, remove, repair) kept in flight: a file's
 * all at once, as libradosstriper's remove sends them, up to what librados
 * takes without blocking: 3/4 of the client's objecter_inflight_ops, as a
 * file's throttle is clamped (768 by default).
 */
uint32_t io_clean_window(rados_ioctx_t io);
/* Called between cleanup operations; a non-zero return stops the cleanup with that error. */
typedef int (*clean_keep_fn)(void *arg);
/* Which objects exist comes from the head (m): its regions, or for a file
 * libradosstriper made (no striper.id, no regions), every object up to upto;
 * and the `nlisted` objects of `listed`, found by listing the pool, besides. */
int io_clean_objects(rados_ioctx_t io, const char *name, const struct striped_layout *l,
		     uint64_t keep, uint64_t upto, const struct head_meta *m,
		     const uint64_t *listed, size_t nlisted, clean_keep_fn keep_fn, void *keep_arg);

#endif /* STRIPED_IO_H */
