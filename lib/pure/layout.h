/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* layout.c: what the library adds to the public layout maths (pure) */
#ifndef STRIPED_LAYOUT_H
#define STRIPED_LAYOUT_H

#include "striped_i.h"

/* ".%016llx": the suffix of every object's name after the file's name. */
#define OBJECT_SUFFIX_LEN 17

/*
 * The public layout maths (include/striped.h says what each does), by the
 * names lib/ calls them: striped_layout_*() and striped_object_name() are
 * the doors of api/layout.c into these.
 */
int layout_validate(const struct striped_layout *l);
ssize_t layout_map(const struct striped_layout *l, uint64_t off, uint64_t len,
		   struct striped_extent *ext, size_t max);
int layout_unmap(const struct striped_layout *l, uint64_t objectno, uint64_t obj_off,
		 uint64_t *off);
int layout_object_count(const struct striped_layout *l, uint64_t file_size, uint64_t *count);
int layout_object_size(const struct striped_layout *l, uint64_t objectno, uint64_t file_size,
		       uint64_t *size);
int layout_object_name(const char *name, uint64_t objectno, char *buf, size_t len);

/*
 * The objects that bytes [off, off + len) of a file of layout l lie in, as
 * runs of consecutive object numbers [first, last], in increasing order,
 * each to fn; a non-zero return of fn stops the walk and is returned. The
 * runs name exactly the objects layout_map() maps the range to,
 * whatever the stripe count (4294967295 objects to a set: a small range
 * still touches one or two), at most three runs however long the range.
 * l must be valid and off + len must not pass 2^64.
 */
typedef int (*layout_run_fn)(void *arg, uint64_t first, uint64_t last);
int layout_object_runs(const struct striped_layout *l, uint64_t off, uint64_t len, layout_run_fn fn,
		       void *arg);

/*
 * An object's name split as layout_object_name() writes it, "NAME.%016llx"
 * (16 lowercase hex digits after a name that is not empty): the name's
 * length, *objectno the number; -1 for any other name (a listing's).
 */
ssize_t layout_object_split(const char *oid, uint64_t *objectno);

#endif /* STRIPED_LAYOUT_H */
