// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The head's operations inside a call: the size update a growing write
 * sends beside its data, the mark's raise its data waits for when it goes
 * past the mark (size.c shares both among the calls that need them, and
 * says why no round trip is needed before the data), and the stored size
 * a read past what the handle knows, or a stat, reads beside its other
 * operations. Each is a part of the call: it ends from a librados callback,
 * which only records and sends, never waits.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "completion.h"
#include "decimal.h"
#include "head.h"
#include "io_call.h"
#include "io_file.h"

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

void send_size_update(struct call *call, uint64_t end)
{
	completion_wait_begin(call->c);
	size_grow_async(&call->file->size, &call->size_wait, end, size_stored);
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

void send_mark_update(struct call *call, uint64_t end)
{
	completion_wait_begin(call->c);
	mark_grow_async(&call->file->size, &call->mark_wait, end, mark_stored);
}

/* ---- the stored size, read beside a call's operations ---- */

struct size_read {
	struct call *call;
	rados_completion_t rc;
	uint64_t *out;	/* a stat's: where the size goes */
	char value[64]; /* the xattr */
};

/* The read is over: free it, then end its part. */
static void size_read_end(struct size_read *h, int r)
{
	struct call *call = h->call;

	if (r == -ETIMEDOUT)
		lease_timed_out(&call->file->lease); /* calls waiting on the head give up */
	call_op_landed(call);
	rados_aio_release(h->rc);
	free(h);
	completion_part_end(call->c, r);
}

static void size_read_done(rados_completion_t rc, void *arg)
{
	struct size_read *h = arg;
	struct call *call = h->call;
	int r = rados_aio_get_return_value(rc);
	uint64_t size;

	if (r == -ENODATA || r == -ENOENT)
		r = -ESTALE; /* the file is gone */
	else
		r = head_size_of_reply(h->value, sizeof(h->value), r, &size);
	if (r == 0) {
		call->size_seen = size;
		call->size_known = true;
		if (h->out)
			*h->out = size;
		size_learn(&call->file->size, size);
	}
	size_read_end(h, r);
}

int send_size_read(struct call *call, uint64_t *out)
{
	struct size_read *h = calloc(1, sizeof(*h));
	int r;

	if (!h)
		return -ENOMEM;
	h->call = call;
	if (rados_aio_create_completion2(h, size_read_done, &h->rc) < 0) {
		free(h);
		return -ENOMEM;
	}
	h->out = out;
	call_op_begin(call);
	r = head_get_size_aio(call->io, call->file->head_oid, h->rc, h->value, sizeof(h->value));
	if (r)
		size_read_end(h, r);
	return r;
}
