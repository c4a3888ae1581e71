// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A call's object operations: built from its plan (io_plan.c), one RADOS
 * operation per object (or piece of it), each holding its throttle share
 * from when it is built until it is answered. Built operations are
 * gathered in a batch and sent back to back (building one costs less than
 * a round trip, so none returns before the last leaves); once a batch
 * holds BATCH_BYTES it goes, so a large operation is on the wire while the
 * next one is still copied. Each operation's callback records its result,
 * gives back its share and ends its part of the call: it never waits.
 *
 * Every rados_* call of the data path is here (and in rados_cxx.cc's
 * object writes), so a fault can be injected there.
 */
#include <errno.h>
#include <stdlib.h>

#include "completion.h"
#include "io_call.h"
#include "io_file.h"
#include "iov.h"
#include "rados_cxx.h"

/* A batch is sent once its operations carry this many bytes. */
#define BATCH_BYTES (1ull << 20)

static void obj_op_free(struct obj_op *op)
{
	if (op->wop)
		rados_release_write_op(op->wop);
	if (op->dw)
		obj_write_free(op->dw);
	if (op->rop)
		rados_release_read_op(op->rop);
	if (op->rc)
		rados_aio_release(op->rc);
	free(op);
}

/*
 * Give back what a finished (or never sent) operation held, then end its
 * part. It stops counting as in flight before its throttle share frees the
 * next operation, so the statistics never show more than the throttle allows.
 */
static void obj_op_retire(struct obj_op *op, int r, bool was_sent)
{
	struct call *call = op->call;
	struct striped_completion *c = call->c;

	if (was_sent)
		call_op_landed(call);
	if (r == -ETIMEDOUT)
		throttle_timed_out(call->throttle); /* its waiters give up */
	throttle_put(call->throttle, op->bytes);
	obj_op_free(op);
	if (was_sent)
		completion_part_end(c, r);
}

/*
 * A write the pool refused: for want of space, or, on a pool that takes
 * only aligned appends, an object that did not end where the handle knew
 * (another client wrote meanwhile; the call was checked on what it knew).
 */
static bool refused_write(const struct call *call, int r)
{
	if (call->op != IO_WRITE)
		return false;
	return r == -EDQUOT || r == -ENOSPC || (r == -EOPNOTSUPP && call->file->appends);
}

/* librados callback: record and return, never wait. */
static void obj_op_done(rados_completion_t rc, void *arg)
{
	struct obj_op *op = arg;
	struct call *call = op->call;
	int r = rados_aio_get_return_value(rc);

	if (call->op == IO_READ && (r >= 0 || r == -ENOENT))
		r = read_fill_zeros(op, r);
	else if (r == -ENOENT && op->missing_ok)
		r = 0;
	else if (refused_write(call, r))
		/* Refused: the size update beside it must not land (if still in time). */
		size_grow_cancel(&call->file->size, &call->size_wait, r);
	obj_op_retire(op, r > 0 ? 0 : r, true);
}

static struct obj_op *obj_op_new(struct call *call, uint64_t objectno, size_t npieces)
{
	struct obj_op *op = calloc(1, sizeof(*op) + npieces * sizeof(op->pieces[0]));

	if (!op)
		return NULL;
	op->call = call;
	op->objectno = objectno;
	op->npieces = npieces;
	if (rados_aio_create_completion2(op, obj_op_done, &op->rc) < 0) {
		free(op);
		return NULL;
	}
	return op;
}

/*
 * The size of an object a write replaces whole (write_full, no read of what
 * was there). Never on a pool that takes only aligned appends: it takes a
 * write_full over an object that is there, so an overwrite the handle's
 * ends did not foresee (another client wrote meanwhile) would land instead
 * of being refused by the pool, as every other overwrite is.
 */
static uint64_t whole_object_size(const struct call *call)
{
	return call->file->appends ? UINT64_MAX : call->file->layout.object_size;
}

static int obj_op_send(struct obj_op *op)
{
	struct call *call = op->call;
	int r = call_oid(call, op->objectno);

	if (r)
		return r;
	if (op->dw)
		return obj_write_send(op->dw, call->io, call->oid, op->rc, whole_object_size(call),
				      STRIPED_WRITE_FLAGS);
	if (op->wop)
		return rados_aio_write_op_operate(op->wop, call->io, op->rc, call->oid, NULL,
						  STRIPED_WRITE_FLAGS);
	return rados_aio_read_op_operate(op->rop, call->io, op->rc, call->oid, 0);
}

/* ---- batches ---- */

void batch_init(struct batch *b)
{
	b->head = NULL;
	b->tail = &b->head;
	b->bytes = 0;
}

void batch_add(struct batch *b, struct obj_op *op)
{
	*b->tail = op;
	b->tail = &op->next;
	b->bytes += op->bytes;
}

/*
 * Send every built operation back to back. After the first failure the rest
 * are given back unsent; the call then completes with that error once the
 * sent ones are in.
 */
int batch_send(struct batch *b)
{
	struct obj_op *op = b->head, *next;
	int err = 0;

	for (; op; op = next) {
		next = op->next;
		if (err) {
			obj_op_retire(op, err, false);
			continue;
		}
		call_op_begin(op->call);
		err = obj_op_send(op);
		if (err)
			obj_op_retire(op, err, true);
	}
	batch_init(b);
	return err;
}

void batch_discard(struct batch *b)
{
	struct obj_op *op = b->head, *next;

	for (; op; op = next) {
		next = op->next;
		obj_op_retire(op, 0, false);
	}
	batch_init(b);
}

int batch_reserve(struct batch *b, struct call *call, uint64_t bytes)
{
	int r;

	if (call->reserved || throttle_try_get(call->throttle, bytes))
		return 0;
	r = batch_send(b);
	if (r)
		return r;
	completion_add_throttle_wait(call->c);
	return throttle_get(call->throttle, bytes);
}

struct obj_op *existing_object_op(struct call *call, uint64_t objectno)
{
	struct obj_op *op = obj_op_new(call, objectno, 0);

	if (!op) {
		throttle_put(call->throttle, 0);
		return NULL;
	}
	op->missing_ok = true;
	op->wop = rados_create_write_op();
	if (!op->wop) {
		obj_op_retire(op, 0, false);
		return NULL;
	}
	rados_write_op_assert_exists(op->wop);
	return op;
}

/* ---- operations from the plan ---- */

/* A read's pieces: one per contiguous run of the caller's memory in each extent. */
static size_t read_pieces(const struct call *call, const struct striped_extent *ext, size_t n)
{
	size_t pieces = 0;

	for (size_t i = 0; i < n; i++)
		pieces += io_mem_pieces(&call->mem, ext[i].buffer_offset, ext[i].length);
	return pieces;
}

/*
 * Add extent e to op, one piece of the caller's memory at a time: reads get
 * a read each (from *next_piece on), writes a run of the object's write.
 */
static int add_extent(struct call *call, struct obj_op *op, const struct striped_extent *e,
		      size_t *next_piece)
{
	uint64_t done = 0;

	while (done < e->length) {
		uint64_t avail;
		char *mem = io_mem_at(&call->mem, e->buffer_offset + done, &avail);
		int r;

		if (avail > e->length - done)
			avail = e->length - done;
		if (op->rop) {
			struct op_piece *p = &op->pieces[(*next_piece)++];

			p->obj_off = e->offset + done;
			p->len = avail;
			p->buf_off = e->buffer_offset + done;
			rados_read_op_read(op->rop, p->obj_off, p->len, mem, &p->bytes_read,
					   &p->prval);
			if (call->op_flags)
				rados_read_op_set_flags(op->rop, call->op_flags);
		} else {
			r = obj_write_add(op->dw, mem, avail, e->offset + done, call->zero_copy);
			if (r)
				return r;
		}
		done += avail;
	}
	return 0;
}

/*
 * A discard's operation on one object: its range removed when it is the
 * whole object, else zeroed; never the head object, which holds the file's
 * metadata and lock, and never an object that is not there (it already
 * reads as zeros).
 */
static int build_discard_op(struct call *call, struct batch *b, const struct plan_op *po)
{
	struct obj_op *op = existing_object_op(call, po->objectno);

	if (!op)
		return -ENOMEM;
	if (po->from == 0 && po->to == call->file->layout.object_size && po->objectno != 0)
		rados_write_op_remove(op->wop);
	else
		rados_write_op_zero(op->wop, po->from, po->to - po->from);
	batch_add(b, op);
	return 0;
}

/* A write's or a read's operation on one object: the planned extents, into one operation. */
static int build_data_op(struct call *call, struct batch *b, const struct plan *p,
			 const struct plan_op *po)
{
	const struct striped_extent *ext = p->ext + po->first;
	size_t next_piece = 0;
	struct obj_op *op =
	    obj_op_new(call, po->objectno, call->op == IO_READ ? read_pieces(call, ext, po->n) : 0);

	if (!op) {
		throttle_put(call->throttle, po->bytes);
		return -ENOMEM;
	}
	op->bytes = po->bytes;
	if (call->op == IO_WRITE)
		op->dw = obj_write_new(call->op_flags);
	else
		op->rop = rados_create_read_op();
	if (!op->dw && !op->rop) {
		obj_op_retire(op, 0, false);
		return -ENOMEM;
	}
	for (size_t i = 0; i < po->n; i++) {
		int r = add_extent(call, op, &ext[i], &next_piece);

		if (r) {
			obj_op_retire(op, 0, false);
			return r;
		}
	}
	batch_add(b, op);
	return 0;
}

int build_planned(struct call *call, struct batch *b, struct plan *p, bool hold)
{
	for (size_t i = 0; i < p->nops; i++) {
		const struct plan_op *po = &p->ops[i];
		int r;

		if (call->reserved) {
			/* The operation takes its share out of the call's reservation. */
			call->left.ops--;
			call->left.bytes -= po->bytes;
		}
		r = batch_reserve(b, call, po->bytes);
		if (!r)
			r = call->op == IO_DISCARD ? build_discard_op(call, b, po)
						   : build_data_op(call, b, p, po);
		if (!r && b->bytes >= BATCH_BYTES && !hold)
			r = batch_send(b);
		if (r)
			return r;
	}
	return 0;
}
