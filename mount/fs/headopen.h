/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A read-only open of a file whose bytes all lie in its head object (no
 * larger than its stripe unit), with no handle open on this mount: no
 * lock, no watch. The open reads the head (that the file is there, its
 * size and id; for a file of 64 KiB or less its bytes too, in the same
 * round trip), each read reads the bytes with the size beside them, one
 * operation each, none of them a write: a handle costs three round trips
 * to open (metadata, lock, watch) and two to close (unwatch, unlock), four
 * of them writes to the head. Its reads go through the node's handle once
 * one is open (an open for writing came: what it writes is read at once),
 * and through one it opens when the head alone cannot answer (the file
 * grew past it, or a truncate or remove holds the lock exclusive). The
 * open counts in the node's opens, so the handle stays until the last
 * close of either kind.
 *
 * A FUSE file handle (fi->fh) is either a node (its open file) or a
 * head_open, tagged in its low bit.
 */
#ifndef MOUNT_HEADOPEN_H
#define MOUNT_HEADOPEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mount.h"

struct head_open;

/* The file handle of an open of n's open file, or of a head_open. */
uint64_t headopen_fh_of_node(struct node *n);
uint64_t headopen_fh(struct head_open *ho);
/* The head_open of fh, or NULL (a node's). */
struct head_open *headopen_of(uint64_t fh);
/* The node of fh, either kind. */
struct node *headopen_node(uint64_t fh);

/*
 * A head_open for a read-only open of n, when it can be one: 1 (*out set,
 * the open counted), 0 when the open needs the handle (a file past its
 * head, or an error the handle's open reports as ever), or -ENOMEM. The
 * head's reading is kept for the GETATTR the kernel sends next (it forgot
 * the attributes at the open): attr_open_reading().
 */
int headopen_try(struct mount *m, struct node *n, const char *path, int oflags,
		 struct head_open **out);
void headopen_free(struct head_open *ho);

/*
 * A head_open's read: from the bytes its open read, from the head, or
 * false with nothing read when it goes through the node's handle (one is
 * open, or opened now: the head alone cannot answer); *r its result.
 */
bool headopen_read(struct mount *m, struct head_open *ho, char *buf, size_t size, uint64_t off,
		   ssize_t *r);

#endif /* MOUNT_HEADOPEN_H */
