// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A call's life: made for an open file (a request of the handle's) or for
 * a cleanup by name (io_clean.c), started on the caller's completion,
 * counted as each of its RADOS operations goes out and comes back, and
 * finished once the last part ended: its result (a read's stops at the end
 * of the file as the head said it was), and -ESTALE unless its lease was
 * held all along, for then a truncate or remove may have raced it. Every
 * call has what the operations need (the I/O context, names, a throttle,
 * an account); a cleanup's are its own, so nothing here asks which it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "completion.h"
#include "io_call.h"
#include "io_file.h"
#include "layout.h"

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

int call_oid(struct call *call, uint64_t objectno)
{
	int n = layout_object_name(call->name, objectno, call->oid, call->oid_len);

	return n < 0 || (size_t)n >= call->oid_len ? -ENAMETOOLONG : 0;
}

/*
 * Where the call cuts an object's share into operations, decided once, when
 * the call is made: its plan keeps it, whatever striped_file_set_throttle()
 * does meanwhile. A discard's object is one operation (0: no cut), so that
 * a whole object is removed. On an erasure-coded pool the cuts fall on its
 * stripes: a piece that starts inside one costs its OSDs a read of the
 * stripe (with overwrites), or is refused (without).
 */
static uint64_t call_op_bytes(enum io_op op, struct io_file *f)
{
	uint64_t piece = throttle_max_ops(&f->throttle) > 1 ? OP_BYTES : SERIAL_OP_BYTES;

	if (op == IO_DISCARD)
		return 0;
	return appends_aligned_piece(piece, f->stripe_width);
}

static struct call *call_alloc(struct striped_completion *c, rados_ioctx_t io, const char *name,
			       enum io_op op)
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
	call->op = op;
	call->io = io;
	call->name = name;
	return call;
}

struct call *call_new(struct striped_completion *c, const struct io_target *t, enum io_op op,
		      uint64_t off, uint64_t len)
{
	struct io_file *f = t->file;
	struct call *call = call_alloc(c, f->io, f->name, op);

	if (!call)
		return NULL;
	call->end = *t;
	call->file = f;
	call->throttle = &f->throttle;
	call->account = &f->account;
	call->off = off;
	call->len = len;
	plan_init(&call->plan, &f->layout, off, len, call_op_bytes(op, f), op != IO_DISCARD);
	return call;
}

struct call *call_new_clean(struct striped_completion *c, rados_ioctx_t io, const char *name,
			    struct striped_throttle *throttle, struct io_account *account)
{
	struct call *call = call_alloc(c, io, name, IO_CLEAN);

	if (!call)
		return NULL;
	call->throttle = throttle;
	call->account = account;
	return call;
}

void call_free(struct call *call)
{
	read_fill_deferred(call, 0); /* frees holes left by a call that never finished */
	io_mem_free(&call->mem);
	plan_free(&call->plan);
	free(call->oid);
	free(call);
}

void call_give_back(struct call *call)
{
	if (call->reserved && call->left.ops)
		throttle_put_many(call->throttle, call->left.ops, call->left.bytes);
	call->left = (struct reservation){0};
}

/* Which latency histogram of the file counts a call of this kind. */
static enum account_kind call_account_kind(enum io_op op)
{
	return op == IO_READ ? ACCOUNT_READ : op == IO_WRITE ? ACCOUNT_WRITE : ACCOUNT_OTHER;
}

/* The call's result, and its statistics counted in its account (all its parts have ended). */
static ssize_t call_finish(struct striped_completion *c, int first_error)
{
	struct call *call = c->call;
	struct striped_io_stats st = c->stats;
	ssize_t result = first_error;

	if (!result && call->op == IO_READ)
		result = (ssize_t)read_result(call);
	else if (!result)
		result = (ssize_t)call->result_len;
	if (call->op == IO_READ)
		read_fill_deferred(call, result > 0 ? (uint64_t)result : 0);
	/* Without the lease all along, a truncate or remove may have raced the call. */
	if (result >= 0 && call->entered && !lease_covered(&call->file->lease, call->epoch))
		result = -ESTALE;
	if (result > 0)
		st.bytes = (uint64_t)result;
	/* What a failed write left on an append-only pool is not known. */
	if (result < 0 && call->op == IO_WRITE && call->file->appends)
		io_appends_unknown(call->file->appends);
	account_call(call->account, &st, call_account_kind(call->op));
	if (call->entered)
		lease_exit(&call->file->lease);
	call_free(call);
	return result;
}

int call_start(struct call *call)
{
	int r = completion_start(call->c, call_finish, call, call->end.release, call->end.owner,
				 call->end.tag);

	if (r)
		call_free(call);
	return r;
}

void call_op_begin(struct call *call)
{
	completion_part_begin(call->c);
	account_op_begin(call->account);
}

void call_op_landed(struct call *call)
{
	account_op_end(call->account);
	completion_part_landed(call->c);
}
