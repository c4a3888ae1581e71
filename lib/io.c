// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The I/O engine. A call is cut, one object set at a time, into one RADOS
 * operation per object (the call's pieces in that object gathered into it).
 * Operations are sent as they are built (small ones gathered first), and
 * none is waited for before the call's last is sent, so all of a call's
 * operations are in flight together, bounded only by the throttle. Each
 * operation's callback records its result and gives back its throttle
 * share; the call's completion aggregates them.
 *
 * A call runs under the file's lease (lease.c): it starts only with the
 * lease in hand, and it claims success only if the lease was held until its
 * last operation landed. A write that grows the file sends its size update
 * beside its data, and completes when both landed; data past the
 * high-water mark waits for the mark's raise first (size.c says why).
 *
 * Every rados_* call of the data path is in this file.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "completion.h"
#include "head.h"
#include "io.h"
#include "io_call.h"
#include "iov.h"
#include "lease.h"
#include "meta.h"
#include "rados_cxx.h"
#include "regions.h"
#include "size.h"
#include "throttle.h"

/*
 * One object's share of a read or write goes as operations of at most
 * OP_BYTES, cut at multiples of OP_BYTES in the object, all in flight
 * together: the OSD works on the first while the next still arrive. On the
 * sandbox cluster (BlueStore), one 4 MiB write at a time goes at 630-660
 * MiB/s as one operation and 890-990 as four of 1 MiB (512 KiB and 2 MiB:
 * no better); a 64 MiB call over 4 MiB objects 1040-1090 against 1200-1330.
 */
#define OP_BYTES (1ull << 20)
/*
 * The serial path (one operation at a time) sends an object's share as
 * one operation, as the kernel client it stands for, but never more than
 * this in one: an OSD refuses writes above osd_max_write_size (90 MiB by
 * default), and objects may be up to 128 MiB (osd_max_object_size).
 */
#define SERIAL_OP_BYTES (64ull << 20)

/*
 * Operations built but not yet sent. Small operations are gathered and sent
 * back to back (building one costs less than a round trip, so none returns
 * before the last leaves); once the gathered bytes reach BATCH_BYTES they go,
 * so a large operation is on the wire while the next one is still copied.
 */
#define BATCH_BYTES (1ull << 20)

/* ---- calls ---- */

static int call_oid(struct call *call, uint64_t objectno)
{
	int n = striped_object_name(call->name, objectno, call->oid, call->oid_len);

	return n < 0 || (size_t)n >= call->oid_len ? -ENAMETOOLONG : 0;
}

/*
 * Where the call cuts an object's share into operations, decided once: the
 * pass that counts a call's operations and the one that builds them must
 * agree, whatever striped_file_set_throttle() does in between. A discard's
 * object is one operation (0: no cut), so that a whole object is removed.
 * On an erasure-coded pool the cuts fall on its stripes: a piece that
 * starts inside one costs its OSDs a read of the stripe (with overwrites),
 * or is refused (without).
 */
static uint64_t call_op_bytes(enum call_kind kind, const struct io_target *t)
{
	uint64_t piece = throttle_max_ops(t->throttle) > 1 ? OP_BYTES : SERIAL_OP_BYTES;

	if (kind == CALL_DISCARD)
		return 0;
	return appends_aligned_piece(piece, t->stripe_width);
}

struct call *call_new(struct striped_completion *c, const struct io_target *t,
			     rados_ioctx_t io, const char *name, enum call_kind kind)
{
	struct call *call = calloc(1, sizeof(*call));

	if (!call)
		return NULL;
	call->oid_len = strlen(name) + OBJECT_SUFFIX_LEN + 1;
	call->oid = malloc(call->oid_len);
	if (!call->oid) {
		free(call);
		return NULL;
	}
	call->c = c;
	if (t) {
		call->target = *t;
		call->t = &call->target;
		call->throttle = t->throttle;
		call->op_bytes = call_op_bytes(kind, t);
	}
	call->io = io;
	call->name = name;
	call->kind = kind;
	return call;
}

static void call_free(struct call *call)
{
	read_fill_deferred(call, 0); /* frees holes left by a call that never finished */
	io_mem_free(&call->mem);
	free(call->oid);
	free(call);
}

/* Which latency histogram of the file counts a call of this kind. */
static enum account_kind call_account_kind(enum call_kind kind)
{
	return kind == CALL_READ ? ACCOUNT_READ : kind == CALL_WRITE ? ACCOUNT_WRITE : ACCOUNT_OTHER;
}

static ssize_t call_finish(struct striped_completion *c, int first_error)
{
	struct call *call = c->call;
	ssize_t result = first_error;

	if (!result && call->kind == CALL_READ)
		result = (ssize_t)read_result(call);
	else if (!result)
		result = (ssize_t)call->result_len;
	if (call->kind == CALL_READ)
		read_fill_deferred(call, result > 0 ? (uint64_t)result : 0);
	/* Without the lease all along, a truncate or remove may have raced the call. */
	if (result >= 0 && call->entered && !lease_covered(call->t->lease, call->epoch))
		result = -ESTALE;
	if (result > 0)
		c->stats.bytes = (uint64_t)result;
	/* What a failed write left on an append-only pool is not known. */
	if (result < 0 && call->kind == CALL_WRITE && call->t && call->t->appends)
		io_appends_unknown(call->t->appends);
	if (call->t) {
		account_call(call->t->account, &c->stats, call_account_kind(call->kind));
		if (call->entered)
			lease_exit(call->t->lease);
	}
	call_free(call);
	c->call = NULL;
	return result;
}

/* Start the completion for call; on failure the call is freed and c untouched. */
int call_start(struct call *call)
{
	const struct io_target *t = call->t;
	int r = completion_start(call->c, call_finish, call, t ? t->release : NULL,
				 t ? t->owner : NULL, t ? t->tag : 0);

	if (r)
		call_free(call);
	return r;
}

/* One of the call's RADOS operations goes out: it counts as in flight. */
static void call_op_begin(struct call *call)
{
	completion_part_begin(call->c);
	if (call->t)
		account_op_begin(call->t->account);
}

/* Its reply is in: it stops counting as in flight (its part ends later). */
static void call_op_landed(struct call *call)
{
	if (call->t)
		account_op_end(call->t->account);
	completion_part_landed(call->c);
}

/* A head operation (size update or stat) is over: free it, then end its part. */
static void head_op_end(struct call *call, rados_completion_t rc, void *op, int r)
{
	struct striped_completion *c = call->c;

	if (r == -ETIMEDOUT && call->t)
		lease_timed_out(call->t->lease); /* calls waiting on the head give up */
	call_op_landed(call);
	rados_aio_release(rc);
	free(op);
	completion_part_end(c, r);
}

/* ---- object operations ---- */

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
	if (call->kind != CALL_WRITE || !call->t)
		return false;
	return r == -EDQUOT || r == -ENOSPC || (r == -EOPNOTSUPP && call->t->appends);
}

/* librados callback: record and return, never wait. */
static void obj_op_done(rados_completion_t rc, void *arg)
{
	struct obj_op *op = arg;
	int r = rados_aio_get_return_value(rc);

	if (op->call->kind == CALL_READ && (r >= 0 || r == -ENOENT))
		r = read_fill_zeros(op, r);
	else if (r == -ENOENT && op->missing_ok)
		r = 0;
	else if (refused_write(op->call, r))
		/* Refused: the size update beside it must not land (if still in time). */
		size_grow_cancel(op->call->t->lease, &op->call->size_wait, r);
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
	return call->t->appends ? UINT64_MAX : call->t->layout->object_size;
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

/* Take a throttle share; when it is full, first send what is built, then wait. */
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

/* ---- data calls: planning ---- */

static int extent_cmp(const void *a, const void *b)
{
	const struct striped_extent *x = a, *y = b;

	if (x->objectno != y->objectno)
		return x->objectno < y->objectno ? -1 : 1;
	if (x->buffer_offset != y->buffer_offset)
		return x->buffer_offset < y->buffer_offset ? -1 : 1;
	return 0;
}

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
 * A write operation (its throttle share of no bytes taken) on an object
 * that may be gone: it never creates one, and an absent object counts as
 * done, since it already reads as zeros. The caller adds what it does.
 */
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

/*
 * A discard's operation on one object: the extents' range (contiguous in the
 * object) removed when it is the whole object, else zeroed; never the head
 * object, which holds the file's metadata and lock, and never an object that
 * is not there (it already reads as zeros).
 */
static int build_discard_op(struct call *call, struct batch *b, const struct striped_extent *ext,
			    size_t n)
{
	uint64_t from = ext[0].offset, to = ext[n - 1].offset + ext[n - 1].length;
	struct obj_op *op = existing_object_op(call, ext[0].objectno);

	if (!op)
		return -ENOMEM;
	if (from == 0 && to == call->t->layout->object_size && ext[0].objectno != 0)
		rados_write_op_remove(op->wop);
	else
		rados_write_op_zero(op->wop, from, to - from);
	*b->tail = op;
	b->tail = &op->next;
	return 0;
}

/* One operation on one object carrying extents ext[0..n) (call-relative buffer offsets). */
static int build_data_op(struct call *call, struct batch *b, const struct striped_extent *ext,
			 size_t n, uint64_t bytes)
{
	struct obj_op *op;
	size_t i, next_piece = 0;
	int r;

	if (call->kind == CALL_DISCARD)
		bytes = 0; /* carries no data */
	if (call->counting) {
		call->count_ops++;
		call->count_bytes += bytes;
		return 0;
	}
	if (call->reserved) {
		/* The operation takes its share out of the call's reservation. */
		call->count_ops--;
		call->count_bytes -= bytes;
	}
	r = batch_reserve(b, call, bytes);
	if (r)
		return r;
	if (call->kind == CALL_DISCARD)
		return build_discard_op(call, b, ext, n);
	op = obj_op_new(call, ext[0].objectno,
			call->kind == CALL_READ ? read_pieces(call, ext, n) : 0);
	if (!op) {
		throttle_put(call->throttle, bytes);
		return -ENOMEM;
	}
	op->bytes = bytes;
	if (call->kind == CALL_WRITE)
		op->dw = obj_write_new(call->op_flags);
	else
		op->rop = rados_create_read_op();
	if (!op->dw && !op->rop) {
		obj_op_retire(op, 0, false);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		r = add_extent(call, op, &ext[i], &next_piece);
		if (r) {
			obj_op_retire(op, 0, false);
			return r;
		}
	}
	*b->tail = op;
	b->tail = &op->next;
	b->bytes += bytes;
	return b->bytes >= BATCH_BYTES && !call->holding ? batch_send(b) : 0;
}

/* Which piece of its object an extent lies in (it crosses none: cut_extents()); 0 uncut. */
static uint64_t op_slice(const struct striped_extent *e, uint64_t piece)
{
	return piece ? e->offset / piece : 0;
}

/* Gather sorted extents into operations: per object, and per piece of it (0: uncut). */
static int build_ops_for_window(struct call *call, struct batch *b,
				const struct striped_extent *ext, size_t n, uint64_t piece)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i;
		uint64_t bytes = 0;
		int r;

		while (j < n && ext[j].objectno == ext[i].objectno &&
		       op_slice(&ext[j], piece) == op_slice(&ext[i], piece))
			bytes += ext[j++].length;
		r = build_data_op(call, b, ext + i, j - i, bytes);
		if (r)
			return r;
		i = j;
	}
	return 0;
}

/* How many extents e becomes once cut at multiples of piece of its object. */
static size_t extent_cuts(const struct striped_extent *e, uint64_t piece)
{
	return (size_t)((e->offset + e->length - 1) / piece - e->offset / piece + 1);
}

/*
 * Cut the n extents of (*ext, *cap) where they cross a multiple of piece
 * of their object, in place (from the back: each lands at or after where it
 * was). Returns the new count, or -ENOMEM.
 */
static ssize_t cut_extents(struct striped_extent **ext, size_t *cap, size_t n, uint64_t piece)
{
	size_t m = 0, i, at;

	for (i = 0; i < n; i++)
		m += extent_cuts(&(*ext)[i], piece);
	if (m == n)
		return (ssize_t)n; /* nothing crosses a cut */
	if (m > *cap) {
		struct striped_extent *bigger = realloc(*ext, m * sizeof(**ext));

		if (!bigger)
			return -ENOMEM;
		*ext = bigger;
		*cap = m;
	}
	at = m;
	for (i = n; i-- > 0;) {
		struct striped_extent e = (*ext)[i];
		size_t k = extent_cuts(&e, piece);

		at -= k;
		for (size_t c = 0; c < k; c++) {
			struct striped_extent *cut = &(*ext)[at + c];
			uint64_t end = (e.offset / piece + 1) * piece;
			uint64_t len = c + 1 < k ? end - e.offset : e.length;

			*cut = e;
			cut->length = len;
			e.offset += len;
			e.buffer_offset += len;
			e.length -= len;
		}
	}
	return (ssize_t)m;
}

/*
 * Map [off, off + len) one object set at a time: within a set each object
 * appears in no other set, so gathering per set gives one operation per
 * object for the whole call.
 */
static int plan_data_ops(struct call *call, struct batch *b, const struct striped_layout *l,
			 uint64_t off, uint64_t len)
{
	uint64_t period = l->stripe_count * l->object_size;
	uint64_t done = 0;
	struct striped_extent *ext = NULL;
	size_t cap = 0;
	int r = 0;

	while (done < len) {
		uint64_t pos = off + done;
		uint64_t wlen = period - pos % period;
		ssize_t n;
		size_t i;

		if (wlen > len - done)
			wlen = len - done;
		n = striped_layout_map(l, pos, wlen, NULL, 0);
		if (n < 0) {
			r = (int)n;
			break;
		}
		if ((size_t)n > cap) {
			struct striped_extent *bigger = realloc(ext, (size_t)n * sizeof(*ext));

			if (!bigger) {
				r = -ENOMEM;
				break;
			}
			ext = bigger;
			cap = (size_t)n;
		}
		striped_layout_map(l, pos, wlen, ext, (size_t)n);
		for (i = 0; i < (size_t)n; i++)
			ext[i].buffer_offset += done;
		if (n > 1)
			qsort(ext, (size_t)n, sizeof(*ext), extent_cmp);
		if (call->op_bytes)
			n = cut_extents(&ext, &cap, (size_t)n, call->op_bytes);
		if (n < 0) {
			r = (int)n;
			break;
		}
		r = build_ops_for_window(call, b, ext, (size_t)n, call->op_bytes);
		if (r)
			break;
		done += wlen;
	}
	free(ext);
	return r;
}

/* ---- the data phase ---- */

/* Shares reserved for operations that were never built go back. */
static void give_back_reservation(struct call *call)
{
	if (call->reserved && call->count_ops)
		throttle_put_many(call->throttle, call->count_ops, call->count_bytes);
	call->count_ops = call->count_bytes = 0;
}

/* Plan and send every data operation of the call (the submitter's part still holds it open). */
static int send_data_phase(struct call *call)
{
	struct batch b;
	int r;

	batch_init(&b);
	r = plan_data_ops(call, &b, call->t->layout, call->off, call->len);
	if (!r)
		r = batch_send(&b);
	else
		batch_discard(&b);
	give_back_reservation(call);
	return r;
}

/*
 * A growing write's operations are all built at once, in the submitter, so
 * the caller's bytes are copied (unless it chose zero copy) before the call
 * returns; they are held until the size update lands, then sent from its
 * callback, which only sends. The call's throttle shares are reserved.
 */
static int hold_data_phase(struct call *call)
{
	int r;

	batch_init(&call->held);
	call->holding = true;
	r = plan_data_ops(call, &call->held, call->t->layout, call->off, call->len);
	call->holding = false;
	if (r)
		batch_discard(&call->held);
	give_back_reservation(call);
	return r;
}

/*
 * Take the throttle shares of all the call's operations at once, before any
 * is built: the call then never waits for the throttle, even when its data
 * goes out from a librados callback after the size update. A call that must
 * not wait gets -EAGAIN when they are not free; one that may wait waits for
 * them if they fit the limits at all, and otherwise is left unreserved.
 * @return 0 (check call->reserved), or -errno
 */
static int reserve_whole_call(struct call *call, bool nowait)
{
	int r;

	call->counting = true;
	r = plan_data_ops(call, NULL, call->t->layout, call->off, call->len);
	call->counting = false;
	if (r)
		return r;
	if (nowait) {
		if (!throttle_try_get_many(call->throttle, call->count_ops, call->count_bytes))
			return -EAGAIN;
	} else if (!throttle_within_limits(call->throttle, call->count_ops, call->count_bytes)) {
		call->count_ops = call->count_bytes = 0;
		return 0;
	} else if (!throttle_try_get_many(call->throttle, call->count_ops, call->count_bytes)) {
		completion_add_throttle_wait(call->c);
		r = throttle_get_many(call->throttle, call->count_ops, call->count_bytes);
		if (r) {
			call->count_ops = call->count_bytes = 0;
			return r;
		}
	}
	call->reserved = true;
	return 0;
}

/* ---- head operations inside a call: the size update, the size read ---- */

struct head_op {
	struct call *call;
	rados_completion_t rc;
	uint64_t *out;	 /* stat: where the size goes */
	char value[64];	 /* size read: the xattr */
};

static struct head_op *head_op_new(struct call *call, rados_callback_t done)
{
	struct head_op *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->call = call;
	if (rados_aio_create_completion2(h, done, &h->rc) < 0) {
		free(h);
		return NULL;
	}
	return h;
}

/*
 * The size covers the call's end (or could not be stored): that part of
 * the call is over. The update may have been another call's: only the call
 * that sent it counts it.
 */
static void size_stored(struct size_waiter *w, int r)
{
	struct call *call = (struct call *)((char *)w - offsetof(struct call, size_wait));

	if (w->sent_update)
		completion_count_op(call->c);
	completion_part_end(call->c, r);
}

/* The size update beside the data, shared with other calls when it can be. */
static void send_size_update(struct call *call, uint64_t end)
{
	call->size_wait.want = end;
	call->size_wait.stored = size_stored;
	completion_wait_begin(call->c);
	size_grow_async(call->t->lease, &call->size_wait);
}

/*
 * The mark now covers the call's held data (or could not be raised): send
 * the data, whose throttle shares were reserved, so nothing waits here on a
 * librados callback, and the size update beside it; or drop the data.
 */
static void mark_stored(struct size_waiter *w, int r)
{
	struct call *call = (struct call *)((char *)w - offsetof(struct call, mark_wait));
	struct striped_completion *c = call->c;

	if (w->sent_update)
		completion_count_op(c);
	if (r == 0) {
		send_size_update(call, w->want);
		r = batch_send(&call->held);
	} else {
		batch_discard(&call->held);
	}
	completion_part_end(c, r);
}

/* The data waits for a mark past end, sharing a raise when it can. */
static void send_mark_update(struct call *call, uint64_t end)
{
	call->mark_wait.want = end;
	call->mark_wait.stored = mark_stored;
	completion_wait_begin(call->c);
	mark_grow_async(call->t->lease, &call->mark_wait);
}

static void size_read_done(rados_completion_t rc, void *arg)
{
	struct head_op *h = arg;
	struct call *call = h->call;
	int r = rados_aio_get_return_value(rc);
	uint64_t size;

	if (r == -ENODATA || r == -ENOENT)
		r = -ESTALE; /* the file is gone */
	else if (r == -ERANGE)
		r = -EUCLEAN; /* longer than any number */
	if (r >= 0) {
		if ((size_t)r > sizeof(h->value) || meta_parse_u64(h->value, (size_t)r, &size)) {
			r = -EUCLEAN;
		} else {
			call->size_seen = size;
			call->size_known = true;
			if (h->out)
				*h->out = size;
			size_learn(call->t->lease, size);
			r = 0;
		}
	}
	head_op_end(call, h->rc, h, r);
}

/* The stored size, read alongside the call's other operations. */
static int send_size_read(struct call *call, uint64_t *out)
{
	struct head_op *h = head_op_new(call, size_read_done);
	int r;

	if (!h)
		return -ENOMEM;
	h->out = out;
	call_op_begin(call);
	r = head_get_size_aio(call->io, call->t->head_oid, h->rc, h->value, sizeof(h->value));
	if (r)
		head_op_end(call, h->rc, h, r);
	return r;
}

/* ---- entry points ---- */

/* A data call over mem, which it takes over (freed with the call, or here on failure). */
static struct call *data_call_new(const struct io_target *t, struct striped_completion *c,
				  enum call_kind kind, struct io_mem *mem, uint64_t len,
				  uint64_t off, int flags)
{
	struct call *call = call_new(c, t, t->io, t->name, kind);

	if (!call) {
		io_mem_free(mem);
		return NULL;
	}
	io_mem_move(&call->mem, mem);
	call->len = len;
	call->off = off;
	call->result_len = kind == CALL_DISCARD ? 0 : len;
	call->zero_upto = UINT64_MAX;
	call->zero_copy = kind == CALL_WRITE && (flags & STRIPED_IO_ZEROCOPY) && !t->always_copy;
	call->op_flags = flags & IO_FADVISE_FLAGS;
	return call;
}

/*
 * Above this a growing write past the mark that copies has the mark raised
 * while the submitter waits, then copies while its first operations are
 * out: copying it all up front costs more (fresh memory, page faults) than
 * the round trip.
 */
#define HOLD_COPY_BYTES (1ull << 20)

/*
 * On a pool that takes only aligned appends: the call checked whole, and
 * sent in its turn (io_appends.c); with nowait, -EAGAIN where it would wait
 * for the mark (its data would go from the raise's callback, after calls
 * checked later). Returns prepared (prepare_call's result so far), or -errno
 * with the call's throttle shares given back.
 */
static int prepare_appends(struct call *call, bool grows, bool nowait, int prepared)
{
	int r = 0;

	if (grows && call->reserved && !mark_covers(call->t->lease, call->off + call->len))
		r = -EAGAIN;
	if (!r)
		r = io_appends_claim(call, nowait);
	if (r)
		give_back_reservation(call);
	return r ? r : prepared;
}

/*
 * The lease, and for a growing write the throttle shares of the whole call,
 * so that, past the mark, its raise goes out without waiting and its data
 * follows from the raise's callback: the submitter returns at once. A
 * growing write too large for the throttle's limits, or copying more than
 * HOLD_COPY_BYTES, has the mark raised while the submitter waits (rarely:
 * the mark goes far ahead).
 * With STRIPED_IO_NOWAIT every call reserves its shares (or gets -EAGAIN),
 * and this runs before the call starts, so -EAGAIN leaves c untouched;
 * otherwise after, so a round trip's error (a timeout, -ESTALE, -EBUSY) is
 * the call's result, delivered through c.
 * @return 1 when a mark update was sent and answered, 0, or -errno
 */
static int prepare_call(struct call *call, bool nowait)
{
	const struct io_target *t = call->t;
	bool changes = call->kind == CALL_WRITE || call->kind == CALL_DISCARD;
	int r = lease_enter(t->lease,
			    (nowait ? LEASE_NOWAIT : 0) | (changes ? LEASE_CHANGES : 0) |
				    (call->drain ? LEASE_DRAIN : 0),
			    &call->epoch);
	bool grows;

	if (r)
		return r;
	call->entered = true;
	/* Known only now: a lease taken back re-reads the size. */
	grows = call->kind == CALL_WRITE && call->len &&
		call->off + call->len > size_known(t->lease);
	if (call->kind == CALL_WRITE)
		r = regions_register(t->lease, t->layout, call->off, call->len, nowait);
	/* Held data would go after calls checked later: never on an append-only pool. */
	if (!r && (nowait || (grows && !t->appends &&
			      (call->zero_copy || call->len <= HOLD_COPY_BYTES))))
		r = reserve_whole_call(call, nowait);
	if (!r && grows && !call->reserved)
		r = mark_grow(t->lease, call->off + call->len);
	if (r >= 0 && t->appends && changes)
		r = prepare_appends(call, grows, nowait, r);
	if (r < 0) {
		lease_exit(t->lease);
		call->entered = false;
	}
	return r;
}

/* Send what the call needs beyond its preparation; errors become its result. */
static int send_call(struct call *call, uint64_t known)
{
	uint64_t end = call->off + call->len;

	if (call->kind == CALL_WRITE && call->len && end > known) {
		int r;

		if (call->reserved && !mark_covers(call->t->lease, end)) {
			/* The data is built now and follows from the mark's callback. */
			r = hold_data_phase(call);
			if (!r)
				send_mark_update(call, end);
			return r;
		}
		/* The mark covers it (prepare_call raised it otherwise): size and data together. */
		send_size_update(call, end);
		return send_data_phase(call);
	}
	if (call->kind == CALL_READ && end > known) {
		/* Past what we know the file may have grown: the size comes along. */
		int r = send_size_read(call, NULL);

		call->zero_upto = known;
		return r ? r : send_data_phase(call);
	}
	return send_data_phase(call);
}

static int start_data_call(const struct io_target *t, struct striped_completion *c,
			   enum call_kind kind, struct io_mem *mem, const struct io_req *req)
{
	struct call *call = data_call_new(t, c, kind, mem, req->len, req->off, req->flags);
	bool nowait = req->flags & STRIPED_IO_NOWAIT;
	uint64_t reserved_ops, reserved_bytes;
	bool appends_locked;
	int r, grew = 0;

	if (!call)
		return -ENOMEM;
	call->drain = req->drain;
	if (nowait) {
		grew = prepare_call(call, true);
		if (grew < 0) {
			call_free(call);
			return grew;
		}
	}
	reserved_ops = call->count_ops;
	reserved_bytes = call->count_bytes;
	appends_locked = call->appends_locked;
	r = call_start(call); /* frees the call when it fails */
	if (r) {
		if (nowait) {
			throttle_put_many(t->throttle, reserved_ops, reserved_bytes);
			if (appends_locked)
				io_appends_abandon(t->appends);
			lease_exit(t->lease);
		}
		return r;
	}
	if (!nowait)
		grew = prepare_call(call, false);
	if (grew == 1)
		completion_count_op(c); /* the mark update, sent and answered before the data */
	r = grew < 0 ? grew : send_call(call, size_known(t->lease));
	io_appends_sent(call, r);
	/* Errors after the start are the call's result, not the submitter's. */
	completion_submit_end(c, r);
	return 0;
}

static int start_stat(const struct io_target *t, struct striped_completion *c, uint64_t *size)
{
	struct call *call = call_new(c, t, t->io, t->name, CALL_STAT);
	int r;

	if (!call)
		return -ENOMEM;
	r = call_start(call);
	if (r)
		return r;
	r = lease_enter(t->lease, 0, &call->epoch);
	call->entered = r == 0;
	if (!r)
		r = send_size_read(call, size);
	completion_submit_end(c, r);
	return 0;
}

int io_start(const struct io_target *t, struct striped_completion *c, struct io_req *req)
{
	struct io_mem none;

	if (req->op == IO_STAT)
		return start_stat(t, c, req->size);
	if (req->mem)
		return start_data_call(t, c, (enum call_kind)req->op, req->mem, req);
	/* A discard: no memory of the caller's. */
	io_mem_buf(&none, NULL, 0);
	return start_data_call(t, c, (enum call_kind)req->op, &none, req);
}
