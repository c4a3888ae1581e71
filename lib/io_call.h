/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's own declarations, shared by its files: io.c (a call, its
 * object operations, planning, sending, the size beside a growing write),
 * io_read.c (what a read's operations bring back: zeros for holes),
 * io_clean.c (cleanup for truncate and remove).
 */
#ifndef STRIPED_IO_CALL_H
#define STRIPED_IO_CALL_H

#include "io.h"

/* A call of the engine: what io_start() is asked for, or a cleanup (io_clean_objects()). */
enum call_kind {
	CALL_WRITE = IO_WRITE,
	CALL_READ = IO_READ,
	CALL_DISCARD = IO_DISCARD,
	CALL_STAT = IO_STAT,
	CALL_CLEAN,
};

struct obj_op;

struct batch {
	struct obj_op *head;
	struct obj_op **tail;
	uint64_t bytes;
};

struct call {
	struct striped_completion *c;
	const struct io_target *t; /* NULL for cleanup calls made outside an open file */
	struct io_target target;   /* t points here: the target outlives the submitter's copy */
	rados_ioctx_t io;
	const char *name;
	enum call_kind kind;
	struct io_mem mem; /* the caller's buffer, or its iovec segments */
	uint64_t len, off;
	bool zero_copy;	     /* writes reference buf instead of copying it */
	int op_flags;	     /* the call's fadvise hints, on each object operation */
	uint64_t result_len; /* bytes reported on success */
	struct striped_throttle *throttle;
	uint64_t op_bytes; /* an object's share goes cut at multiples of this; 0: uncut */
	bool reserved;		      /* throttle shares taken for the whole call up front */
	bool counting;		      /* planning only counts operations and bytes */
	bool holding;		      /* planning builds into held, sending nothing */
	struct batch held;	      /* a growing write's data, sent once the mark covers it */
	struct size_waiter mark_wait; /* ... and its wait for that mark */
	struct size_waiter size_wait; /* a growing write's size update, beside its data */
	uint64_t count_ops, count_bytes;
	uint64_t epoch;	 /* the lease the call runs under */
	bool entered;	 /* lease_enter() succeeded: lease_exit() at the end */
	bool size_known; /* a read learned the stored size along the way */
	uint64_t size_seen;
	uint64_t zero_upto;	 /* a read zero-fills its holes below this file offset at once */
	struct read_hole *holes; /* the holes past it, zero-filled at the end up to the result */
	bool drain;		 /* write-behind of a buffered handle: LEASE_DRAIN */
	clean_keep_fn keep_fn;	 /* cleanup: keeps the exclusive lock */
	void *keep_arg;
	bool appends_locked;	 /* checked on an append-only pool: sent in its turn */
	bool appends_only;	 /* cleanup on a pool that takes only aligned appends */
	char *oid; /* scratch for object names */
	size_t oid_len;
};

/* Part of a read's buffer that no object held, past what the file was known to hold. */
struct read_hole {
	uint64_t buf_off, len;
	struct read_hole *next;
};

struct op_piece {
	uint64_t obj_off, len, buf_off;
	size_t bytes_read;
	int prval;
};

struct obj_op {
	struct call *call;
	struct obj_op *next; /* built, not yet sent */
	rados_completion_t rc;
	rados_write_op_t wop; /* cleanup */
	struct obj_write *dw; /* data write */
	rados_read_op_t rop;
	uint64_t objectno;
	uint64_t bytes;	 /* throttle share */
	bool missing_ok; /* cleanup: an absent object is already clean */
	size_t npieces;
	struct op_piece pieces[];
};

static inline void batch_init(struct batch *b)
{
	b->head = NULL;
	b->tail = &b->head;
	b->bytes = 0;
}

/* ---- io.c: calls, object operations and their batches ---- */

struct call *call_new(struct striped_completion *c, const struct io_target *t, rados_ioctx_t io,
		      const char *name, enum call_kind kind);
int call_start(struct call *call);
int batch_send(struct batch *b);
void batch_discard(struct batch *b);
int batch_reserve(struct batch *b, struct call *call, uint64_t bytes);
struct obj_op *existing_object_op(struct call *call, uint64_t objectno);

/* ---- io_appends.c: a pool that takes only aligned appends ---- */

/*
 * A write or discard checked whole before anything is sent: 0 (the ends'
 * lock then held until io_appends_sent()), -EOPNOTSUPP when the pool would
 * refuse any part of it, -EAGAIN for nowait when it would have to wait (for
 * the lock, or to learn where objects end), or a stat's error.
 */
int io_appends_claim(struct call *call, bool nowait);
/* Every operation of the claimed call was sent (r 0), or not: the next goes. */
void io_appends_sent(struct call *call, int r);
/* A claimed call that never started: its ends are not known, the next goes. */
void io_appends_abandon(struct io_appends *a);
/* Whether io's pool takes only aligned appends (from the client's OSD map). */
bool io_pool_appends_only(rados_ioctx_t io);
/* The sizes of n objects of file name (0: not there), stats all in flight, waited for. */
int io_object_sizes(rados_ioctx_t io, const char *name, const uint64_t *objectnos, size_t n,
		    uint64_t *sizes);

/* ---- io_read.c: what a read's operations bring back ---- */

void read_fill_deferred(struct call *call, uint64_t result);
uint64_t read_result(const struct call *call);
int read_fill_zeros(struct obj_op *op, int r);

#endif /* STRIPED_IO_CALL_H */
