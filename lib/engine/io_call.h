/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's own declarations, shared by its files (the handle sees
 * calls.h and io.h only): a call and what it is made of. Layered from the
 * bottom: io_plan.c (a call's range cut into object operations, planned
 * once), io_ops.c (object operations built from the plan, gathered in
 * batches, sent, answered), io_call.c (a call's life: its completion, its
 * result, its statistics), io_read.c (what a read's operations bring back),
 * io_grow.c (the size and mark beside a growing write, the size read beside
 * a read), io.c (a call started: the lease, the reservation, the phases),
 * io_appends.c (a pool that takes only aligned appends), io_clean.c
 * (cleanup by name).
 */
#ifndef STRIPED_IO_CALL_H
#define STRIPED_IO_CALL_H

#include "io.h"
#include "io_appends.h"
#include "size.h"
#include "throttle.h"

struct io_file;

/* How a call of the handle ends: release(owner, tag) once its callback returned (calls.c). */
struct io_target {
	struct io_file *file;
	call_release_fn release; /* NULL: the call leaves nothing (one within an entry) */
	void *owner;
	uint64_t tag; /* the call's flush generation */
};

/*
 * Start one call (calls.c does, for the handle): c completes when every
 * operation of it did. Returns 0, or -errno with c untouched. req->mem is
 * the call's either way (emptied: a later io_mem_free() of it frees nothing).
 */
int io_start(const struct io_target *t, struct striped_completion *c, struct io_req *req);

/* ---- io_plan.c: a call's range as object operations, planned once ---- */

/* One operation: one object (a piece of it, when cut), the extents it carries. */
struct plan_op {
	uint64_t objectno;
	uint64_t from, to; /* the bytes of the object it covers: contiguous */
	size_t first, n;   /* a data call's extents: plan.ext[first .. first + n) */
	uint64_t bytes;	   /* its throttle share: the data it carries (0 for a discard) */
};

/*
 * [off, off + len) of a file of layout l, planned one object set at a time
 * (within a set each object appears in no other, so gathering per set gives
 * one operation per object, or per piece of it, for the whole call). A call
 * that reserves its throttle shares up front plans whole, reserves from the
 * totals and builds from the plan; the others plan a set, build it, and go
 * on with the next. Either way each extent is planned once.
 */
struct plan {
	const struct striped_layout *l;
	uint64_t off, len;
	uint64_t piece; /* object shares cut at multiples of this in the object; 0: uncut */
	bool data;	/* a write or read: its operations carry their extents' bytes */
	uint64_t done;	/* file bytes planned so far: whole object sets */
	struct striped_extent *ext; /* a data call's, buffer_offset counted from off */
	size_t n, cap;
	struct plan_op *ops;
	size_t nops, ops_cap;
	uint64_t total_ops, total_bytes; /* of every operation planned so far */
};

void plan_init(struct plan *p, const struct striped_layout *l, uint64_t off, uint64_t len,
	       uint64_t piece, bool data);
void plan_free(struct plan *p);
/* Whether the call's whole range is planned. */
bool plan_whole(const struct plan *p);
/* Plan the next object set, after the operations planned so far: 0, or -errno. */
int plan_next_set(struct plan *p);
/* Plan everything left. */
int plan_all(struct plan *p);
/* The operations planned so far were built: the next set's start a list of their own. */
void plan_built(struct plan *p);

/* ---- io_ops.c: object operations and their batches ---- */

struct obj_op;

/* Operations built and not yet sent, in order. */
struct batch {
	struct obj_op *head;
	struct obj_op **tail;
	uint64_t bytes;
};

/* What a read's operation brings back of one contiguous piece of the caller's memory. */
struct op_piece {
	uint64_t obj_off, len, buf_off;
	size_t bytes_read;
	int prval;
};

struct obj_op {
	struct call *call;
	struct obj_op *next; /* built, not yet sent */
	rados_completion_t rc;
	rados_write_op_t wop; /* a discard's or a cleanup's */
	struct obj_write *dw; /* a data write */
	rados_read_op_t rop;
	uint64_t objectno;
	uint64_t bytes;	 /* throttle share */
	bool missing_ok; /* an absent object is already as wanted (discard, cleanup) */
	size_t npieces;
	struct op_piece pieces[];
};

void batch_init(struct batch *b);
int batch_send(struct batch *b);
void batch_discard(struct batch *b);
/* Take a throttle share; when it is full, first send what is built, then wait. */
int batch_reserve(struct batch *b, struct call *call, uint64_t bytes);
/*
 * A write operation (its throttle share of no bytes taken) on an object
 * that may be gone: it never creates one, and an absent object counts as
 * done. The caller adds what it does, then batch_add()s it.
 */
struct obj_op *existing_object_op(struct call *call, uint64_t objectno);
void batch_add(struct batch *b, struct obj_op *op);
/*
 * Build the operations p planned and not built yet, each taking its
 * throttle share (from the call's reservation, if it has one); sent as they
 * are built (batch_send() once a batch holds BATCH_BYTES) unless hold.
 */
int build_planned(struct call *call, struct batch *b, struct plan *p, bool hold);

/* ---- io_call.c: a call's life ---- */

/* Part of a read's buffer that no object held, past what the file was known to hold. */
struct read_hole {
	uint64_t buf_off, len;
	struct read_hole *next;
};

/* The throttle shares a call took up front, given back as its operations take theirs. */
struct reservation {
	uint64_t ops, bytes;
};

struct call {
	struct striped_completion *c;
	enum io_op op;
	/* What every call has, a cleanup's too. */
	rados_ioctx_t io;
	const char *name;
	struct striped_throttle *throttle;
	struct io_account *account;
	struct io_target end; /* how the call ends (a cleanup: no release) */
	char *oid;	      /* scratch for object names */
	size_t oid_len;
	/* A call of an open file (io_start()): */
	struct io_file *file;
	struct io_mem mem; /* the caller's buffer, or its iovec segments */
	uint64_t len, off;
	bool zero_copy;	     /* writes reference buf instead of copying it */
	int op_flags;	     /* the call's fadvise hints, on each object operation */
	uint64_t result_len; /* bytes reported on success */
	struct plan plan;
	bool reserved;		 /* throttle shares taken for the whole call up front */
	struct reservation left; /* ... those its operations did not take yet */
	struct batch held;	 /* a growing write's data, sent once the mark covers it */
	struct size_waiter mark_wait; /* ... and its wait for that mark */
	struct size_waiter size_wait; /* a growing write's size update, beside its data */
	uint64_t epoch;		      /* the lease the call runs under */
	bool entered;		      /* lease_enter() succeeded: lease_exit() at the end */
	bool handover;		      /* part of handing the lock over: LEASE_HANDOVER */
	bool appends_locked;	      /* checked on an append-only pool: sent in its turn */
	bool size_known;	      /* a read learned the stored size along the way */
	uint64_t size_seen;
	uint64_t zero_upto;	 /* a read zero-fills its holes below this file offset at once */
	struct read_hole *holes; /* the holes past it, zero-filled at the end up to the result */
	/* A cleanup (io_clean_objects()): */
	clean_keep_fn keep_fn; /* keeps the exclusive lock */
	void *keep_arg;
	bool appends_only; /* on a pool that takes only aligned appends */
	bool head_goes;	   /* a remove: the head is deleted next, data and all: left as it is */
};

/* A call of t's file over [off, off + len), or NULL without memory. */
struct call *call_new(struct striped_completion *c, const struct io_target *t, enum io_op op,
		      uint64_t off, uint64_t len);
/* A cleanup of file name in io, on a throttle and an account of its own. */
struct call *call_new_clean(struct striped_completion *c, rados_ioctx_t io, const char *name,
			    struct striped_throttle *throttle, struct io_account *account);
void call_free(struct call *call);
/* Start the completion for call; on failure the call is freed and c untouched. */
int call_start(struct call *call);
/* The name of object objectno, in call->oid. */
int call_oid(struct call *call, uint64_t objectno);
/* One of the call's RADOS operations goes out: it counts as in flight. */
void call_op_begin(struct call *call);
/* Its reply is in: it stops counting as in flight (its part ends later). */
void call_op_landed(struct call *call);
/* Shares the call reserved and no operation took go back. */
void call_give_back(struct call *call);

/* ---- io_grow.c: the head's operations inside a call ---- */

/* The size update beside a growing write's data, shared with other calls when it can be. */
void send_size_update(struct call *call, uint64_t end);
/* The data (held, its shares reserved) waits for a mark past end: sent from the raise's callback. */
void send_mark_update(struct call *call, uint64_t end);
/* The stored size, read alongside the call's other operations (into *out if not NULL). */
int send_size_read(struct call *call, uint64_t *out);

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

/* ---- io_read.c: what a read's operations bring back ---- */

void read_fill_deferred(struct call *call, uint64_t result);
uint64_t read_result(const struct call *call);
int read_fill_zeros(struct obj_op *op, int r);

#endif /* STRIPED_IO_CALL_H */
