/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ec_ops: the calls a thrash client makes on a file of a pool that takes
 * only aligned appends (erasure coded without allow_ec_overwrites; the
 * "Erasure-coded pools" paragraph of striped.h). Such a pool takes a write
 * on an object only at the object's end and at a multiple of its stripe
 * width, so random offsets would be refused nearly always and test
 * nothing else: most calls go where the pool takes them (writes at the
 * file's end as last seen, whole stripes; truncates to 0 or to whole
 * object sets; discards of whole object sets past the head), and some go
 * where it refuses them on purpose (an overwrite, an unaligned write, a
 * truncate or discard that cuts an object), so that the checker sees
 * refusals and can tell whether they left anything behind. A few writes
 * are short (not whole stripes): they end the file's appends until it is
 * truncated to 0 or removed, and the next write at its end is refused.
 * Pure: every draw comes from the caller's generator.
 */
#ifndef THRASH_EC_OPS_H
#define THRASH_EC_OPS_H

#include <stdbool.h>
#include <stdint.h>

enum ec_kind { EC_WRITE, EC_APPEND, EC_TRUNC, EC_DISCARD, EC_WFULL };

struct ec_file {
	uint64_t align;	  /* the pool's stripe width (rados_ioctx_pool_required_alignment2) */
	uint64_t set;	  /* bytes of one object set: stripe_count * object_size */
	uint64_t span;	  /* the client's span: files stay about this small */
	bool writes_only; /* a client that only writes and reads (striped-dd): no truncate */
};

struct ec_call {
	enum ec_kind kind;
	uint64_t off, len; /* write, discard; len also of append and write_full */
	uint64_t size;	   /* truncate's target */
};

/* Uniform in [0, n) (0 for n 0), from the caller's generator. */
typedef uint64_t (*ec_below_fn)(uint64_t n);

/*
 * Shape c (its kind drawn already) for a file e whose size was last seen
 * to be end (writes only: the others need no size). A write may become a
 * truncate (unless e->writes_only): to 0 when the file ended with a short
 * write (nothing more can go at its end), or down when it outgrew its span.
 */
void ec_shape(const struct ec_file *e, uint64_t end, struct ec_call *c, ec_below_fn below);

#endif
