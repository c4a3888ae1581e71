// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The engine's calls, started. A call's range is planned into one RADOS
 * operation per object and MiB of it (io_plan.c), built and sent as it is
 * planned (io_ops.c), and none is waited for before the call's last is
 * sent, so all of a call's operations are in flight together, bounded only
 * by the throttle; the call's completion aggregates them (io_call.c).
 *
 * A call runs under the file's lease (lease.c): it starts only with the
 * lease in hand, and it claims success only if the lease was held until its
 * last operation landed. A write that grows the file sends its size update
 * beside its data, and completes when both landed; data past the
 * high-water mark waits for the mark's raise first (io_grow.c, and size.c
 * says why). A call that must not wait (STRIPED_IO_NOWAIT), and a growing
 * write whose data may go from the raise's callback, take the throttle
 * shares of all their operations up front, counted by their plan, which
 * the operations are then built from.
 */
#include <errno.h>

#include "completion.h"
#include "io_call.h"
#include "io_file.h"
#include "iov.h"

/*
 * Above this a growing write past the mark that copies has the mark raised
 * while the submitter waits, then copies while its first operations are
 * out: copying it all up front costs more (fresh memory, page faults) than
 * the round trip.
 */
#define HOLD_COPY_BYTES (1ull << 20)

/* ---- the data phase ---- */

/*
 * Build (and, unless hold, send as they are built) every operation of the
 * call: those planned already (all of them, for a call that reserved its
 * shares), then the rest, planned one object set at a time.
 */
static int build_phase(struct call *call, struct batch *b, bool hold)
{
	struct plan *p = &call->plan;
	int r = build_planned(call, b, p, hold);

	plan_built(p);
	while (!r && !plan_whole(p)) {
		r = plan_next_set(p);
		if (!r)
			r = build_planned(call, b, p, hold);
		plan_built(p);
	}
	return r;
}

/* Send every data operation of the call (the submitter's part still holds it open). */
static int send_data_phase(struct call *call)
{
	struct batch b;
	int r;

	batch_init(&b);
	r = build_phase(call, &b, false);
	if (!r)
		r = batch_send(&b);
	else
		batch_discard(&b);
	call_give_back(call);
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
	r = build_phase(call, &call->held, true);
	if (r)
		batch_discard(&call->held);
	call_give_back(call);
	return r;
}

/*
 * Take the throttle shares of all the call's operations at once, before any
 * is built, as its whole plan counts them: the call then never waits for
 * the throttle, even when its data goes out from a librados callback after
 * the size update. A call that must not wait gets -EAGAIN when they are not
 * free; one that may wait waits for them if they fit the limits at all,
 * and otherwise is left unreserved.
 * @return 0 (check call->reserved), or -errno
 */
static int reserve_whole_call(struct call *call, bool nowait)
{
	struct reservation want;
	int r = plan_all(&call->plan);

	if (r)
		return r;
	want = (struct reservation){call->plan.total_ops, call->plan.total_bytes};
	if (nowait) {
		if (!throttle_try_get_many(call->throttle, want.ops, want.bytes))
			return -EAGAIN;
	} else if (!throttle_within_limits(call->throttle, want.ops, want.bytes)) {
		return 0;
	} else if (!throttle_try_get_many(call->throttle, want.ops, want.bytes)) {
		completion_add_throttle_wait(call->c);
		r = throttle_get_many(call->throttle, want.ops, want.bytes);
		if (r)
			return r;
	}
	call->left = want;
	call->reserved = true;
	return 0;
}

/* ---- preparing and sending ---- */

/* A data call over mem, which it takes over (freed with the call, or here on failure). */
static struct call *data_call_new(const struct io_target *t, struct striped_completion *c,
				  const struct io_req *req, struct io_mem *mem)
{
	struct call *call = call_new(c, t, req->op, req->off, req->len);

	if (!call) {
		io_mem_free(mem);
		return NULL;
	}
	io_mem_move(&call->mem, mem);
	call->result_len = req->op == IO_DISCARD ? 0 : req->len;
	call->zero_upto = UINT64_MAX;
	call->zero_copy = req->op == IO_WRITE && (req->flags & STRIPED_IO_ZEROCOPY) &&
			  !t->file->always_copy;
	call->op_flags = req->flags & IO_FADVISE_FLAGS;
	call->handover = req->handover;
	return call;
}

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

	if (grows && call->reserved && !mark_covers(&call->file->size, call->off + call->len))
		r = -EAGAIN;
	if (!r)
		r = io_appends_claim(call, nowait);
	if (r)
		call_give_back(call);
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
	struct io_file *f = call->file;
	bool changes = call->op == IO_WRITE || call->op == IO_DISCARD;
	int r = lease_enter(&f->lease,
			    (nowait ? LEASE_NOWAIT : 0) | (changes ? LEASE_CHANGES : 0) |
				    (call->handover ? LEASE_HANDOVER : 0),
			    &call->epoch);
	bool grows;

	if (r)
		return r;
	call->entered = true;
	/* Known only now: a lease taken back re-reads the size. */
	grows = call->op == IO_WRITE && call->len && call->off + call->len > size_known(&f->size);
	if (call->op == IO_WRITE)
		r = regions_register(&f->regions, &f->layout, call->off, call->len, nowait);
	/* Held data would go after calls checked later: never on an append-only pool. */
	if (!r && (nowait || (grows && !f->appends &&
			      (call->zero_copy || call->len <= HOLD_COPY_BYTES))))
		r = reserve_whole_call(call, nowait);
	if (!r && grows && !call->reserved)
		r = mark_grow(&f->size, call->off + call->len);
	if (r >= 0 && f->appends && changes)
		r = prepare_appends(call, grows, nowait, r);
	if (r < 0) {
		lease_exit(&f->lease);
		call->entered = false;
	}
	return r;
}

/* Send what the call needs beyond its preparation; errors become its result. */
static int send_call(struct call *call, uint64_t known)
{
	uint64_t end = call->off + call->len;

	if (call->op == IO_WRITE && call->len && end > known) {
		int r;

		if (call->reserved && !mark_covers(&call->file->size, end)) {
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
	if (call->op == IO_READ && end > known) {
		/* Past what we know the file may have grown: the size comes along. */
		int r = send_size_read(call, NULL);

		call->zero_upto = known;
		return r ? r : send_data_phase(call);
	}
	return send_data_phase(call);
}

/* ---- entry points ---- */

/*
 * A call that must not wait is prepared before its completion starts, so
 * that a refusal leaves c untouched: what it took goes back if c cannot
 * start after all.
 */
static int start_prepared(struct call *call, struct io_file *f)
{
	struct reservation left = call->left;
	bool appends_locked = call->appends_locked;
	int r = call_start(call); /* frees the call when it fails */

	if (r) {
		throttle_put_many(&f->throttle, left.ops, left.bytes);
		if (appends_locked)
			io_appends_abandon(f->appends);
		lease_exit(&f->lease);
	}
	return r;
}

static int start_data_call(const struct io_target *t, struct striped_completion *c,
			   struct io_req *req, struct io_mem *mem)
{
	struct call *call = data_call_new(t, c, req, mem);
	bool nowait = req->flags & STRIPED_IO_NOWAIT;
	int r, grew = 0;

	if (!call)
		return -ENOMEM;
	if (nowait) {
		grew = prepare_call(call, true);
		if (grew < 0) {
			call_free(call);
			return grew;
		}
	}
	r = nowait ? start_prepared(call, t->file) : call_start(call);
	if (r)
		return r;
	if (!nowait)
		grew = prepare_call(call, false);
	if (grew == 1)
		completion_count_op(c); /* the mark update, sent and answered before the data */
	r = grew < 0 ? grew : send_call(call, size_known(&t->file->size));
	io_appends_sent(call, r);
	/* Errors after the start are the call's result, not the submitter's. */
	completion_submit_end(c, r);
	return 0;
}

static int start_stat(const struct io_target *t, struct striped_completion *c, uint64_t *size)
{
	struct call *call = call_new(c, t, IO_STAT, 0, 0);
	int r;

	if (!call)
		return -ENOMEM;
	r = call_start(call);
	if (r)
		return r;
	r = lease_enter(&t->file->lease, 0, &call->epoch);
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
		return start_data_call(t, c, req, req->mem);
	/* A discard: no memory of the caller's. */
	io_mem_buf(&none, NULL, 0);
	return start_data_call(t, c, req, &none);
}
