/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* layout.c: what the library adds to the public layout maths (pure) */
#ifndef STRIPED_LAYOUT_H
#define STRIPED_LAYOUT_H

#include "striped_i.h"

/*
 * The objects that bytes [off, off + len) of a file of layout l lie in, as
 * runs of consecutive object numbers [first, last], in increasing order,
 * each to fn; a non-zero return of fn stops the walk and is returned. The
 * runs name exactly the objects striped_layout_map() maps the range to,
 * whatever the stripe count (4294967295 objects to a set: a small range
 * still touches one or two), at most three runs however long the range.
 * l must be valid and off + len must not pass 2^64.
 */
typedef int (*layout_run_fn)(void *arg, uint64_t first, uint64_t last);
int layout_object_runs(const struct striped_layout *l, uint64_t off, uint64_t len, layout_run_fn fn,
		       void *arg);

/*
 * An object's name split as striped_object_name() writes it, "NAME.%016llx"
 * (16 lowercase hex digits after a name that is not empty): the name's
 * length, *objectno the number; -1 for any other name (a listing's).
 */
ssize_t layout_object_split(const char *oid, uint64_t *objectno);

#endif /* STRIPED_LAYOUT_H */
