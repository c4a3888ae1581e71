// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Cleanup for truncate and remove: every object a file of `upto` bytes
 * spans brought to its size in a file of `keep` bytes (removed when
 * empty, the head only truncated, or for a remove left to be deleted
 * last, data and all), as one call of the engine whose
 * operations, up to io_clean_window(), are in flight at once. Objects are
 * found by name (the first REGION_WALK_OBJECTS, then the regions the head
 * registers), never by listing the pool. Objects past the stored size (up
 * to the mark), most never written, are stat'ed first, beside the rest:
 * one that is not there costs a read, not a write (see struct probes).
 *
 * A pool that takes only aligned appends (erasure coded without
 * overwrites) cuts no object: there whole objects are removed, the head is
 * emptied by rewriting it with nothing (its xattrs and lock stay), and an
 * object that would have to be cut fails the whole cleanup with
 * -EOPNOTSUPP before anything is sent, unless it holds no more than it
 * keeps already (learned by a stat).
 */
#include <errno.h>
#include <stdlib.h>

#include "account.h"
#include "completion.h"
#include "conf.h"
#include "head.h"
#include "io_call.h"
#include "meta.h"
#include "throttle.h"

/* Objects stat'ed at once by uncut_check(): at most a stripe_count, on the stack. */
#define CLEAN_STATS_AT_ONCE 64

uint32_t io_clean_window(rados_ioctx_t io)
{
	uint64_t ops = conf_objecter_limit(io, "objecter_inflight_ops", 1024) / 4 * 3;

	/* libradosstriper sends a remove's all at once: bench/results/2026-11-27-remove/. */
	if (ops > UINT32_MAX)
		ops = UINT32_MAX;
	return ops ? (uint32_t)ops : 1;
}

/* Object objectno must shrink to `size`: remove it when empty (the head is only emptied). */
static int build_clean_op(struct call *call, struct batch *b, uint64_t objectno, uint64_t size)
{
	struct obj_op *op;
	int r;

	if (call->appends_only && size)
		return 0; /* it holds no more than size: checked before (uncut_check()) */
	if (objectno == 0 && call->head_goes)
		return 0; /* emptying it would cost a small file's remove a round trip */
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
	batch_add(b, op);
	return 0;
}

/* One cleanup: what it walks, and where the stored size ends. */
struct clean {
	struct call *call;
	struct batch *b;
	const struct striped_layout *l;
	uint64_t keep, upto;
	uint64_t sized; /* objects the stored size spans; past them, probed first */
	struct probes *p;
	bool probing; /* this walk gathers the objects past the size, and cleans nothing */
};

/* Whether objectno must shrink, and to what. */
static bool needs_clean(const struct clean *k, uint64_t objectno, uint64_t upto, uint64_t *want)
{
	uint64_t have;

	layout_object_size(k->l, objectno, k->keep, want);
	layout_object_size(k->l, objectno, upto, &have);
	return *want < have;
}

/* Object objectno in a file of `keep` bytes, from one of `upto` bytes: shrink it if it must. */
static int clean_one(const struct clean *k, uint64_t objectno, uint64_t upto)
{
	struct call *call = k->call;
	uint64_t want;
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
	return needs_clean(k, objectno, upto, &want) ? build_clean_op(call, k->b, objectno, want)
						     : 0;
}

/* ---- objects past the stored size: stat'ed first ---- */

/*
 * Past the stored size (up to the mark, or in the old end's object set
 * when a truncate grows the file) an object holds bytes only if a write
 * failed or its client died: most were never written. Each is stat'ed, a
 * read, and gets an operation only if it is there: an operation on an
 * object that is not there is a write to the OSD all the same, which logs
 * it in the PG's log; a stat is a read. Up to PROBES_AT_ONCE stats go out before the
 * cleanup's own operations and are answered while those are in flight: no
 * round trip of their own unless there are more.
 */
#define PROBES_AT_ONCE 128

struct probes {
	uint64_t *objectnos;
	size_t n, cap;
	size_t from, sent; /* objectnos[from .. from + sent) in flight */
	rados_completion_t rc[PROBES_AT_ONCE];
	uint64_t size[PROBES_AT_ONCE];
	time_t mtime[PROBES_AT_ONCE];
};

static int probes_add(struct probes *p, uint64_t objectno)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		uint64_t *more = realloc(p->objectnos, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		p->objectnos = more;
		p->cap = cap;
	}
	p->objectnos[p->n++] = objectno;
	return 0;
}

/* The next PROBES_AT_ONCE stats (or fewer), sent, not waited for. */
static int probes_send(struct call *call, struct probes *p)
{
	int r = 0;

	p->from += p->sent;
	for (p->sent = 0; !r && p->sent < PROBES_AT_ONCE && p->from + p->sent < p->n; p->sent++) {
		r = call_oid(call, p->objectnos[p->from + p->sent]);
		if (!r)
			r = rados_aio_create_completion2(NULL, NULL, &p->rc[p->sent]);
		if (r)
			break;
		r = rados_aio_stat(call->io, call->oid, p->rc[p->sent], &p->size[p->sent],
				   &p->mtime[p->sent]);
		if (r) {
			rados_aio_release(p->rc[p->sent]);
			break;
		}
	}
	return r;
}

/* The stats in flight answered: the objects there get their operation (r: the first error). */
static int probes_take(const struct clean *k, int r)
{
	struct probes *p = k->p;

	for (size_t i = 0; i < p->sent; i++) {
		int e;

		rados_aio_wait_for_complete(p->rc[i]);
		e = rados_aio_get_return_value(p->rc[i]);
		rados_aio_release(p->rc[i]);
		if (!r && !e)
			r = clean_one(k, p->objectnos[p->from + i], k->upto);
		else if (!r && e != -ENOENT)
			r = e;
	}
	return r;
}

/* ---- the walk ---- */

static int visit(const struct clean *k, uint64_t objectno)
{
	uint64_t want;

	if (objectno < k->sized)
		return k->probing ? 0 : clean_one(k, objectno, k->upto);
	if (!k->probing)
		return 0;
	return needs_clean(k, objectno, k->upto, &want) ? probes_add(k->p, objectno) : 0;
}

/*
 * Every object a file of `upto` bytes spans, from the first of keep's
 * object set (objects before it are whole either way): the first
 * REGION_WALK_OBJECTS, then the regions the head registers (no object is
 * ever written past them outside one). libradosstriper registers nothing:
 * its files are walked whole, as it does itself. Returns where the walk of
 * the first objects ended in *walk_end.
 */
static int walk(const struct clean *k, const struct head_meta *m, uint64_t *walk_end)
{
	const struct striped_layout *l = k->l;
	uint64_t count, objectno;
	uint64_t first = k->keep / (l->stripe_count * l->object_size) * l->stripe_count;
	int r = layout_object_count(l, k->upto, &count);

	*walk_end = count < REGION_WALK_OBJECTS || !m->id ? count : REGION_WALK_OBJECTS;
	for (objectno = first; !r && objectno < *walk_end; objectno++)
		r = visit(k, objectno);
	for (size_t i = 0; !r && i < m->nregions; i++) {
		uint64_t lo = m->regions[i] * REGION_OBJECTS, hi = lo + REGION_OBJECTS;

		if (lo < REGION_WALK_OBJECTS)
			lo = REGION_WALK_OBJECTS;
		for (objectno = lo > first ? lo : first; !r && objectno < hi && objectno < count;
		     objectno++)
			r = visit(k, objectno);
	}
	return r;
}

/*
 * Bring every object to the size it has in a file of `keep` bytes, for the
 * objects a file of `upto` bytes spans: what truncate does when shrinking
 * from upto to keep, and, growing, what clears stale bytes past the old end.
 * Those past the stored size are stat'ed first (the probes sent before the
 * rest go out), the others get their operation at once.
 */
static int plan_clean_ops(struct clean *k, const struct head_meta *m, const uint64_t *listed,
			  size_t nlisted)
{
	uint64_t walk_end;
	int r;

	k->probing = true;
	r = walk(k, m, &walk_end);
	if (!r)
		r = probes_send(k->call, k->p);
	k->probing = false;
	if (!r)
		r = walk(k, m, &walk_end);
	/*
	 * Objects a listing found past what was walked, whatever they hold (one
	 * in a registered region may get a second operation: it finds the
	 * object gone or cut already, which is clean).
	 */
	for (size_t i = 0; !r && i < nlisted; i++)
		if (listed[i] >= walk_end)
			r = clean_one(k, listed[i], UINT64_MAX);
	/* What was planned goes out now, beside the stats; every stat is waited for. */
	if (!r)
		r = batch_send(k->b);
	for (r = probes_take(k, r); !r && k->p->from + k->p->sent < k->p->n;)
		r = probes_take(k, probes_send(k->call, k->p));
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
	uint64_t count, n, objectnos[CLEAN_STATS_AT_ONCE], sizes[CLEAN_STATS_AT_ONCE];
	int r = layout_object_count(l, upto, &count);

	if (r || first >= count)
		return r;
	n = count - first < l->stripe_count ? count - first : l->stripe_count;
	for (uint64_t done = 0; done < n && !r; done += CLEAN_STATS_AT_ONCE) {
		size_t k = n - done < CLEAN_STATS_AT_ONCE ? n - done : CLEAN_STATS_AT_ONCE;

		for (size_t i = 0; i < k; i++)
			objectnos[i] = first + done + i;
		r = io_object_sizes(call->io, call->name, objectnos, k, sizes);
		for (size_t i = 0; i < k && !r; i++) {
			uint64_t want;

			layout_object_size(l, objectnos[i], keep, &want);
			if (want && sizes[i] > want)
				r = -EOPNOTSUPP;
		}
	}
	return r;
}

int io_clean_objects(rados_ioctx_t io, const char *name, const struct striped_layout *l,
		     uint64_t keep, uint64_t upto, const struct head_meta *m,
		     const uint64_t *listed, size_t nlisted, clean_keep_fn keep_fn, void *keep_arg,
		     bool head_goes)
{
	struct striped_completion *c;
	struct striped_throttle throttle;
	struct io_account account; /* its statistics: nobody's */
	struct probes *p = calloc(1, sizeof(*p));
	struct clean k = {.l = l, .keep = keep, .upto = upto, .p = p};
	struct call *call;
	struct batch b;
	ssize_t result;
	int r = p ? layout_object_count(l, m->size, &k.sized) : -ENOMEM;

	if (!r)
		r = completion_create(NULL, NULL, &c);
	if (r)
		goto out_probes;
	r = throttle_init(&throttle, io_clean_window(io), UINT64_MAX);
	if (r)
		goto out_completion;
	account_init(&account);
	call = call_new_clean(c, io, name, &throttle, &account);
	if (!call) {
		r = -ENOMEM;
		goto out_throttle;
	}
	call->keep_fn = keep_fn;
	call->keep_arg = keep_arg;
	call->appends_only = io_pool_appends_only(io);
	call->head_goes = head_goes;
	r = call_start(call);
	if (r)
		goto out_throttle;
	batch_init(&b);
	k.call = call;
	k.b = &b;
	r = call->appends_only ? uncut_check(call, l, keep, upto) : 0;
	if (!r)
		r = plan_clean_ops(&k, m, listed, nlisted);
	if (!r)
		r = batch_send(&b);
	else
		batch_discard(&b);
	completion_submit_end(c, r);
	completion_wait(c);
	result = completion_result(c);
	r = result < 0 ? (int)result : 0;
out_throttle:
	throttle_destroy(&throttle);
out_completion:
	completion_release(c);
out_probes:
	if (p)
		free(p->objectnos);
	free(p);
	return r;
}
