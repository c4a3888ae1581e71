/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * appends.c: writes on a pool that takes only aligned appends (erasure
 * coded without allow_ec_overwrites), checked before any byte is sent (pure).
 */
#ifndef STRIPED_APPENDS_H
#define STRIPED_APPENDS_H

#include <sys/types.h>

#include "layout.h"

/* What a file range asks of one object: bytes [from, to) of it. */
struct obj_range {
	uint64_t objectno, from, to;
};

/*
 * The objects [off, off + len) of a file of layout l lies in, each with the
 * one contiguous range of it the file range covers, by object number, into
 * *out (malloc'd, the caller frees it). Returns how many, or -errno.
 */
ssize_t appends_ranges(const struct striped_layout *l, uint64_t off, uint64_t len,
		       struct obj_range **out);

/* Where each object of a file ends, as far as a handle knows (sorted by object number). */
struct obj_end {
	uint64_t objectno, end;
};

struct append_map {
	struct obj_end *v;
	size_t n, cap;
};

void appends_map_init(struct append_map *m);
void appends_map_destroy(struct append_map *m);
/* Nothing known any more (the file may have changed behind the handle's back). */
void appends_forget(struct append_map *m);
/* Object objectno ends at end (learned from the cluster, or written): 0 or -ENOMEM. */
int appends_learn(struct append_map *m, uint64_t objectno, uint64_t end);
/* Whether objectno's end is known, and then where (*end). */
bool appends_known(const struct append_map *m, uint64_t objectno, uint64_t *end);

/*
 * Whether a write of the ranges r[0..n) is one such a pool takes: every
 * range starts at its object's end (0 for an object that is not there), at
 * a multiple of align. 0, -EOPNOTSUPP, or -ENOENT when an object's end is
 * not known (learn it first).
 */
int appends_check(const struct append_map *m, uint64_t align, const struct obj_range *r, size_t n);
/* The ranges were accepted: each object now ends where its range ends. 0 or -ENOMEM. */
int appends_advance(struct append_map *m, const struct obj_range *r, size_t n);

/*
 * The default stripe unit (and object size) of a new file on a pool whose
 * stripe width is sw: the largest multiple of both 64 KiB and sw at most
 * want, or that common multiple when it is larger (0 when it passes 2^32:
 * no valid layout). sw 0: want.
 */
uint64_t appends_aligned_unit(uint64_t want, uint64_t sw);

/*
 * A new file's layout when the caller gives none, on a pool of stripe width
 * sw: libradosstriper's (4 MiB stripe units and objects), its units cut to
 * whole stripes of an erasure-coded pool (appends_aligned_unit(), at most
 * 4 MiB where one fits), so that writes of whole units never start inside a
 * stripe.
 */
void appends_default_layout(uint64_t sw, struct striped_layout *l);

/* The largest multiple of sw at most piece, or sw when piece is smaller (piece for sw 0). */
uint64_t appends_aligned_piece(uint64_t piece, uint64_t sw);

#endif /* STRIPED_APPENDS_H */
