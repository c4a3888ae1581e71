// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The calls a thrash client makes on a file of a pool that takes only
 * aligned appends (ec_ops.h says why they look the way they do). Every
 * offset and length stays a multiple of UNIT, so a unit never straddles
 * two writes there either.
 */
#include "ec_ops.h"
#include "unit.h"

/* Units in one stripe (the pool's stripe width is a multiple of UNIT: 8 KiB here). */
static uint64_t stripe_units(const struct ec_file *e)
{
	return e->align / UNIT;
}

/* Mostly a few stripes, some of many; one in ten short (not whole stripes). */
static uint64_t ec_length(const struct ec_file *e, ec_below_fn below)
{
	uint64_t r = below(100), stripes;

	if (r < 10)
		return below(4) * e->align + (1 + below(stripe_units(e) - 1)) * UNIT;
	if (r < 55)
		stripes = 1 + below(4);
	else if (r < 92)
		stripes = 1 + below(32);
	else
		stripes = 1 + below(48);
	return stripes * e->align;
}

/* A size at an object set boundary, down mostly, up to two sets past the span. */
static uint64_t whole_sets(const struct ec_file *e, uint64_t below_bytes, ec_below_fn below)
{
	return below(below_bytes / e->set + 2) * e->set;
}

/*
 * A write where the file ends at end: there mostly; into the hole past it
 * (taken where it starts whole objects: their end is 0); and refused ones,
 * an overwrite of whole stripes, or a write at an offset that is no
 * multiple of the stripe width.
 */
static void ec_write(const struct ec_file *e, uint64_t end, struct ec_call *c, ec_below_fn below)
{
	uint64_t r = below(100), skew = (1 + below(stripe_units(e) - 1)) * UNIT;

	c->len = ec_length(e, below);
	if (r < 60 || (r >= 70 && r < 85 && end < e->align))
		c->off = end;
	else if (r < 70)
		c->off = end / e->align * e->align + (1 + below(16)) * e->align;
	else if (r < 85)
		c->off = below(end / e->align) * e->align;
	else
		c->off = end >= skew && r % 2 ? end - skew : end + skew;
}

void ec_shape(const struct ec_file *e, uint64_t end, struct ec_call *c, ec_below_fn below)
{
	switch (c->kind) {
	case EC_WRITE:
		/* Nothing goes at the end of a file that ends inside a stripe: empty it, mostly. */
		if (e->writes_only) {
			ec_write(e, end, c, below);
			return;
		}
		if (end % e->align && below(4)) {
			c->kind = EC_TRUNC;
			c->size = 0;
			return;
		}
		if (end >= e->span) {
			c->kind = EC_TRUNC;
			c->size = below(end / 2 / e->set + 1) * e->set;
			return;
		}
		ec_write(e, end, c, below);
		return;
	case EC_APPEND:
	case EC_WFULL:
		c->len = ec_length(e, below);
		return;
	case EC_TRUNC:
		if (below(4) == 0)
			c->size = 0;
		else if (below(3))
			c->size = whole_sets(e, e->span, below);
		else /* cuts an object, mostly: refused */
			c->size = below(e->span / UNIT) * UNIT;
		return;
	case EC_DISCARD:
		if (below(4)) {
			c->off = (1 + below(e->span / e->set)) * e->set;
			c->len = (1 + below(2)) * e->set;
		} else { /* part of an object, mostly: refused */
			c->off = below(e->span / UNIT) * UNIT;
			c->len = (1 + below(1024)) * UNIT;
		}
		return;
	}
}
