// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Layout validation and the file <-> object mapping (Ceph's Striper
 * semantics). Pure arithmetic: no librados, so it is unit-tested against a
 * byte-by-byte model and fuzzed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"

#define LAYOUT_ALIGN 65536u
/* ".%016llx" */
#define OBJECT_NAME_SUFFIX 17

int striped_layout_validate(const struct striped_layout *l)
{
	if (!l)
		return -EINVAL;
	/* Ceph keeps these in 32-bit fields; larger values cannot be stored. */
	if (l->stripe_unit > UINT32_MAX || l->stripe_count > UINT32_MAX ||
	    l->object_size > UINT32_MAX)
		return -EINVAL;
	if (l->stripe_unit == 0 || l->stripe_unit % LAYOUT_ALIGN)
		return -EINVAL;
	if (l->object_size == 0 || l->object_size % LAYOUT_ALIGN)
		return -EINVAL;
	if (l->object_size < l->stripe_unit || l->object_size % l->stripe_unit)
		return -EINVAL;
	if (l->stripe_count == 0)
		return -EINVAL;
	return 0;
}

/* Where file byte `pos` lives: object number and offset inside it. */
static void locate(const struct striped_layout *l, uint64_t pos, uint64_t *objectno,
		   uint64_t *obj_off)
{
	uint64_t su = l->stripe_unit, sc = l->stripe_count;
	uint64_t stripes_per_object = l->object_size / su;
	uint64_t blockno = pos / su;
	uint64_t stripeno = blockno / sc;
	uint64_t stripepos = blockno % sc;
	uint64_t objectsetno = stripeno / stripes_per_object;

	*objectno = objectsetno * sc + stripepos;
	*obj_off = (stripeno % stripes_per_object) * su + pos % su;
}

/*
 * With one object per set, every stripe unit of an object follows the
 * previous one in the file, so a piece is a whole object's share of the
 * range; otherwise consecutive stripe units go to different objects and each
 * stripe unit is its own piece.
 */
static uint64_t piece_count(const struct striped_layout *l, uint64_t off, uint64_t len)
{
	uint64_t last = off + len - 1;
	uint64_t unit = l->stripe_count == 1 ? l->object_size : l->stripe_unit;

	return last / unit - off / unit + 1;
}

ssize_t striped_layout_map(const struct striped_layout *l, uint64_t off, uint64_t len,
			   struct striped_extent *ext, size_t max)
{
	uint64_t count, done = 0, pos = off;
	size_t n = 0;

	if (striped_layout_validate(l) || (!ext && max))
		return -EINVAL;
	if (len > UINT64_MAX - off)
		return -EOVERFLOW;
	if (len == 0)
		return 0;
	count = piece_count(l, off, len);
	if (count > SSIZE_MAX)
		return -EOVERFLOW;

	while (n < max && done < len) {
		uint64_t objectno, obj_off, run;

		locate(l, pos, &objectno, &obj_off);
		/* A piece ends at its stripe unit, or its object when units chain. */
		if (l->stripe_count == 1)
			run = l->object_size - obj_off;
		else
			run = l->stripe_unit - pos % l->stripe_unit;
		if (run > len - done)
			run = len - done;
		ext[n].objectno = objectno;
		ext[n].offset = obj_off;
		ext[n].length = run;
		ext[n].buffer_offset = done;
		n++;
		done += run;
		pos += run;
	}
	return (ssize_t)count;
}

int striped_layout_unmap(const struct striped_layout *l, uint64_t objectno, uint64_t obj_off,
			 uint64_t *file_off)
{
	uint64_t su, sc, stripes_per_object, objectsetno, stripepos, stripeno, blockno;

	if (striped_layout_validate(l) || !file_off || obj_off >= l->object_size)
		return -EINVAL;
	su = l->stripe_unit;
	sc = l->stripe_count;
	stripes_per_object = l->object_size / su;
	objectsetno = objectno / sc;
	stripepos = objectno % sc;

	/* stripeno = objectsetno * stripes_per_object + obj_off / su, checked. */
	if (objectsetno > (UINT64_MAX - obj_off / su) / stripes_per_object)
		return -EOVERFLOW;
	stripeno = objectsetno * stripes_per_object + obj_off / su;
	if (stripeno > (UINT64_MAX - stripepos) / sc)
		return -EOVERFLOW;
	blockno = stripeno * sc + stripepos;
	if (blockno > (UINT64_MAX - obj_off % su) / su)
		return -EOVERFLOW;
	*file_off = blockno * su + obj_off % su;
	return 0;
}

int striped_layout_object_count(const struct striped_layout *l, uint64_t file_size, uint64_t *count)
{
	uint64_t period, periods, rem, missing = 0;

	if (striped_layout_validate(l) || !count)
		return -EINVAL;
	/* Both factors are below 2^32 (validated), so the product fits. */
	period = l->stripe_count * l->object_size;
	periods = file_size / period + (file_size % period != 0);
	rem = file_size % period;
	/* A partial last set whose first stripe is short leaves objects unused. */
	if (rem && rem < l->stripe_count * l->stripe_unit)
		missing = l->stripe_count - (rem + l->stripe_unit - 1) / l->stripe_unit;
	*count = periods * l->stripe_count - missing;
	return 0;
}

int striped_layout_object_size(const struct striped_layout *l, uint64_t objectno,
			       uint64_t file_size, uint64_t *obj_size)
{
	uint64_t su, sc, stripes_per_object, objectsetno, end_setno;
	uint64_t end_blockno, end_stripeno, end_objectno, row;

	if (striped_layout_validate(l) || !obj_size)
		return -EINVAL;
	su = l->stripe_unit;
	sc = l->stripe_count;
	stripes_per_object = l->object_size / su;
	objectsetno = objectno / sc;
	end_setno = file_size / l->object_size / sc;

	if (objectsetno > end_setno) {
		*obj_size = 0;
		return 0;
	}
	if (objectsetno < end_setno) {
		*obj_size = l->object_size;
		return 0;
	}
	/* The object set holding the end: compare with the object holding it. */
	end_blockno = file_size / su;
	end_stripeno = end_blockno / sc;
	end_objectno = end_setno * sc + end_blockno % sc;
	row = end_stripeno % stripes_per_object;
	if (objectno < end_objectno)
		*obj_size = (row + 1) * su;
	else if (objectno > end_objectno)
		*obj_size = row * su;
	else
		*obj_size = row * su + file_size % su;
	return 0;
}

/*
 * The objects touched in object set `set` by its bytes [a, b] (offsets
 * within the set, b included): all of the set's objects once the range
 * covers a whole row of stripe units, else the stripe positions of its
 * units, which may wrap past the last one (two runs, lower first).
 */
static int set_runs(const struct striped_layout *l, uint64_t set, uint64_t a, uint64_t b,
		    layout_run_fn fn, void *arg)
{
	uint64_t sc = l->stripe_count, base = set * sc;
	uint64_t first = a / l->stripe_unit, last = b / l->stripe_unit, p0, p1;
	int r;

	if (last - first + 1 >= sc)
		return fn(arg, base, base + sc - 1);
	p0 = first % sc;
	p1 = last % sc;
	if (p0 <= p1)
		return fn(arg, base + p0, base + p1);
	r = fn(arg, base, base + p1);
	return r ? r : fn(arg, base + p0, base + sc - 1);
}

int layout_object_runs(const struct striped_layout *l, uint64_t off, uint64_t len, layout_run_fn fn,
		       void *arg)
{
	uint64_t period = l->stripe_count * l->object_size, last = off + len - 1;
	uint64_t set = off / period, last_set = last / period;
	int r;

	if (!len)
		return 0;
	if (set == last_set)
		return set_runs(l, set, off - set * period, last - set * period, fn, arg);
	r = set_runs(l, set, off - set * period, period - 1, fn, arg);
	/* The sets in between are whole: every object of them, as one run. */
	if (!r && last_set - set > 1)
		r = fn(arg, (set + 1) * l->stripe_count, last_set * l->stripe_count - 1);
	return r ? r : set_runs(l, last_set, 0, last - last_set * period, fn, arg);
}

ssize_t layout_object_split(const char *oid, uint64_t *objectno)
{
	size_t n = strlen(oid);
	uint64_t v = 0;

	if (n < OBJECT_NAME_SUFFIX + 1 || oid[n - OBJECT_NAME_SUFFIX] != '.')
		return -1;
	for (size_t i = n - OBJECT_NAME_SUFFIX + 1; i < n; i++) {
		char c = oid[i];

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return -1;
	}
	*objectno = v;
	return (ssize_t)(n - OBJECT_NAME_SUFFIX);
}

int striped_object_name(const char *name, uint64_t objectno, char *buf, size_t len)
{
	if (!name || (!buf && len))
		return -EINVAL;
	return snprintf(buf, len, "%s.%016llx", name, (unsigned long long)objectno);
}

ssize_t striped_object_name_split(const char *oid, uint64_t *objectno)
{
	ssize_t n;

	if (!oid || !objectno)
		return -EINVAL;
	n = layout_object_split(oid, objectno);
	return n < 0 ? -EINVAL : n;
}
