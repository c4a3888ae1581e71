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
int layout_object_runs(const struct striped_layout *l, uint64_t off, uint64_t len,
		       layout_run_fn fn, void *arg);

#endif /* STRIPED_LAYOUT_H */
