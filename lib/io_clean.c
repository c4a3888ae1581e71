// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Cleanup for truncate and remove: every object a file of `upto` bytes
 * spans brought to its size in a file of `keep` bytes (removed when
 * empty, the head only truncated), as one call of the engine whose
 * operations, up to CLEAN_OPS_IN_FLIGHT, are in flight at once. Objects
 * are found by name (the first REGION_WALK_OBJECTS, then the regions the
 * head registers), never by listing the pool.
 */
#include <errno.h>

#include "completion.h"
#include "head.h"
#include "io_call.h"
#include "meta.h"
#include "throttle.h"

/* Object objectno must shrink to `size`: remove it when empty (the head is only truncated). */
static int build_clean_op(struct call *call, struct batch *b, uint64_t objectno, uint64_t size)
{
	struct obj_op *op;
	int r;

	r = batch_reserve(b, call, 0);
	if (r)
		return r;
	op = existing_object_op(call, objectno);
	if (!op)
		return -ENOMEM;
	if (size == 0 && objectno != 0)
		rados_write_op_remove(op->wop);
	else
		rados_write_op_truncate(op->wop, size);
	*b->tail = op;
	b->tail = &op->next;
	return 0;
}

/* Object objectno in a file of `keep` bytes, from one of `upto` bytes: shrink it if it must. */
static int clean_one(struct call *call, struct batch *b, const struct striped_layout *l,
		     uint64_t objectno, uint64_t keep, uint64_t upto)
{
	uint64_t want, have;
	int r = call->keep_fn ? call->keep_fn(call->keep_arg) : 0;

	/*
	 * An operation failed (an OSD down past the op timeout): stop, rather
	 * than send the rest only to wait for each (seen: a truncate of 32768
	 * objects failing after 42 s instead of 3).
	 */
	if (!r)
		r = completion_first_error(call->c);
	if (r)
		return r;
	striped_layout_object_size(l, objectno, keep, &want);
	striped_layout_object_size(l, objectno, upto, &have);
	return want < have ? build_clean_op(call, b, objectno, want) : 0;
}

/*
 * Bring every object to the size it has in a file of `keep` bytes, for the
 * objects a file of `upto` bytes spans: what truncate does when shrinking
 * from upto to keep, and, growing, what clears stale bytes past the old end.
 * Objects before keep's object set are whole either way. Past the first
 * REGION_WALK_OBJECTS objects only the registered regions are walked: no
 * object is ever written there outside one.
 */
static int plan_clean_ops(struct call *call, struct batch *b, const struct striped_layout *l,
			  uint64_t keep, uint64_t upto, const struct head_meta *m,
			  const uint64_t *listed, size_t nlisted)
{
	const uint64_t *regions = m->regions;
	size_t nregions = m->nregions;
	uint64_t count, objectno, walk_end;
	uint64_t first = keep / (l->stripe_count * l->object_size) * l->stripe_count;
	int r = striped_layout_object_count(l, upto, &count);

	/* libradosstriper registers nothing: walk its files whole, as it does itself. */
	walk_end = count < REGION_WALK_OBJECTS || !m->id ? count : REGION_WALK_OBJECTS;
	for (objectno = first; !r && objectno < walk_end; objectno++)
		r = clean_one(call, b, l, objectno, keep, upto);
	for (size_t i = 0; !r && i < nregions; i++) {
		uint64_t lo = regions[i] * REGION_OBJECTS, hi = lo + REGION_OBJECTS;

		if (lo < REGION_WALK_OBJECTS)
			lo = REGION_WALK_OBJECTS;
		for (objectno = lo > first ? lo : first; !r && objectno < hi && objectno < count;
		     objectno++)
			r = clean_one(call, b, l, objectno, keep, upto);
	}
	/*
	 * Objects a listing found past what was walked, whatever they hold (one
	 * in a registered region may get a second operation: it finds the
	 * object gone or cut already, which is clean).
	 */
	for (size_t i = 0; !r && i < nlisted; i++)
		if (listed[i] >= walk_end)
			r = clean_one(call, b, l, listed[i], keep, UINT64_MAX);
	return r;
}

int io_clean_objects(rados_ioctx_t io, const char *name, const struct striped_layout *l,
		     uint64_t keep, uint64_t upto, const struct head_meta *m,
		     const uint64_t *listed, size_t nlisted, clean_keep_fn keep_fn, void *keep_arg)
{
	struct striped_completion *c;
	struct striped_throttle throttle;
	struct call *call;
	struct batch b;
	ssize_t result;
	int r;

	r = striped_completion_create(NULL, NULL, &c);
	if (r)
		return r;
	r = throttle_init(&throttle, CLEAN_OPS_IN_FLIGHT, UINT64_MAX);
	if (r)
		goto out_completion;
	call = call_new(c, NULL, io, name, CALL_CLEAN);
	if (!call) {
		r = -ENOMEM;
		goto out_throttle;
	}
	call->throttle = &throttle;
	call->keep_fn = keep_fn;
	call->keep_arg = keep_arg;
	r = call_start(call);
	if (r)
		goto out_throttle;
	batch_init(&b);
	r = plan_clean_ops(call, &b, l, keep, upto, m, listed, nlisted);
	if (!r)
		r = batch_send(&b);
	else
		batch_discard(&b);
	completion_submit_end(c, r);
	striped_completion_wait(c);
	result = striped_completion_result(c);
	r = result < 0 ? (int)result : 0;
out_throttle:
	throttle_destroy(&throttle);
out_completion:
	striped_completion_release(c);
	return r;
}
