// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Cleanup for truncate and remove: every object a file of `upto` bytes
 * spans brought to its size in a file of `keep` bytes (removed when
 * empty, the head only truncated), as one call of the engine whose
 * operations, up to CLEAN_OPS_IN_FLIGHT, are in flight at once. Objects
 * are found by name (the first REGION_WALK_OBJECTS, then the regions the
 * head registers), never by listing the pool.
 *
 * A pool that takes only aligned appends (erasure coded without
 * overwrites) cuts no object: there whole objects are removed, the head is
 * emptied by rewriting it with nothing (its xattrs and lock stay), and an
 * object that would have to be cut fails the whole cleanup with
 * -EOPNOTSUPP before anything is sent, unless it holds no more than it
 * keeps already (learned by a stat).
 */
#include <errno.h>

#include "completion.h"
#include "head.h"
#include "io_call.h"
#include "meta.h"
#include "throttle.h"

/* Object objectno must shrink to `size`: remove it when empty (the head is only emptied). */
static int build_clean_op(struct call *call, struct batch *b, uint64_t objectno, uint64_t size)
{
	struct obj_op *op;
	int r;

	if (call->appends_only && size)
		return 0; /* it holds no more than size: checked before (uncut_check()) */
	r = batch_reserve(b, call, 0);
	if (r)
		return r;
	op = existing_object_op(call, objectno);
	if (!op)
		return -ENOMEM;
	if (size == 0 && objectno != 0)
		rados_write_op_remove(op->wop);
	else if (size == 0 && call->appends_only)
		rados_write_op_write_full(op->wop, "", 0);
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

/*
 * On a pool that cuts no object: the objects keep's object set would cut
 * (the only ones a truncate to keep leaves part of) must hold no more than
 * they keep. One stat each, all in flight at once; -EOPNOTSUPP otherwise.
 */
static int uncut_check(struct call *call, const struct striped_layout *l, uint64_t keep,
		       uint64_t upto)
{
	uint64_t first = keep / (l->stripe_count * l->object_size) * l->stripe_count;
	uint64_t count, n, objectnos[CLEAN_OPS_IN_FLIGHT], sizes[CLEAN_OPS_IN_FLIGHT];
	int r = striped_layout_object_count(l, upto, &count);

	if (r || first >= count)
		return r;
	n = count - first < l->stripe_count ? count - first : l->stripe_count;
	for (uint64_t done = 0; done < n && !r; done += CLEAN_OPS_IN_FLIGHT) {
		size_t k = n - done < CLEAN_OPS_IN_FLIGHT ? n - done : CLEAN_OPS_IN_FLIGHT;

		for (size_t i = 0; i < k; i++)
			objectnos[i] = first + done + i;
		r = io_object_sizes(call->io, call->name, objectnos, k, sizes);
		for (size_t i = 0; i < k && !r; i++) {
			uint64_t want;

			striped_layout_object_size(l, objectnos[i], keep, &want);
			if (want && sizes[i] > want)
				r = -EOPNOTSUPP;
		}
	}
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
	call->appends_only = io_pool_appends_only(io);
	r = call_start(call);
	if (r)
		goto out_throttle;
	batch_init(&b);
	r = call->appends_only ? uncut_check(call, l, keep, upto) : 0;
	if (!r)
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
