/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A node's attribute part: what fs/attr.c keeps of the node's head as last
 * read (node.h embeds it; layers.conf names who writes it). Each field
 * says what guards it.
 */
#ifndef MOUNT_NODE_ATTR_H
#define MOUNT_NODE_ATTR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "mattr.h"

struct node_attr {
	/*
	 * Atomic: its head as last read (a stat, lookup or listing), with the
	 * size and mode last given to the kernel. An unlink removes the file as
	 * read, in one operation that checks it still is; fields of two
	 * readings mixed only fail that check.
	 */
	atomic_bool size_known;
	_Atomic uint64_t size, su, sc, os, id, reserved;
	_Atomic uint32_t mode;
	/*
	 * Under the node's lock: attributes read for the next asker (a file's
	 * read-only open's reading of its head, for the GETATTR after it; a
	 * directory's, for cache_time), made at cached_at (clock_age_now())
	 * when the node's count of changes was cached_changes.
	 */
	struct mattr cached;
	double cached_at; /* 0: none */
	uint64_t cached_changes;
};

/* The size last given to the kernel, when one was. */
static inline bool node_attr_size(const struct node_attr *a, uint64_t *size)
{
	*size = atomic_load(&a->size);
	return atomic_load(&a->size_known);
}

#endif /* MOUNT_NODE_ATTR_H */
