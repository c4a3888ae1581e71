/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * striped-dd: blocks of a regular input file mapped instead of read, so a
 * zero-copy write to a striped file sends the page cache itself (no read(2)
 * copy, no block buffer to fault in).
 *
 * A mapped page can vanish under the copy: the file shrinks, or the page
 * cannot be read (I/O error). Touching it raises SIGBUS, on whichever thread
 * touches it (a librados messenger thread, for a write in flight). The
 * handler puts a page of zeros in its place, marks the block lost and lets
 * the thread go on; the copy reports the lost block as an error. A SIGBUS
 * outside every registered block gets the action it had before.
 *
 * So that a file cut short does not get there, the copy maps only under a
 * read lease on the file (fcntl F_SETLEASE): another process that opens it
 * for writing or truncates it waits until the lease is given back, which
 * the copy does once no mapped block is left to write. SIGBUS stays the
 * answer for what the lease cannot hold off: a read error, or a write that
 * took longer than the kernel's lease-break-time.
 */
#ifndef DD_MAP_H
#define DD_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Blocks smaller than this are read: mmap and munmap would cost more than the copy. */
#define DD_MAP_MIN_BLOCK (1024 * 1024)

struct dd_map {
	char *base; /* the mapping, page aligned */
	size_t maplen;
	char *data;	    /* the block's first byte within it */
	unsigned int entry; /* its registry entry */
};

/**
 * Make room for blocks mapped at once and take SIGBUS over (once).
 * @return 0 or a negative errno
 */
int dd_map_setup(unsigned int blocks);

/**
 * Map [off, off + len) of fd read-only, its pages faulted in now.
 * @return 0 or a negative errno (-EBUSY when every entry is in use)
 */
int dd_map_block(int fd, uint64_t off, size_t len, struct dd_map *m);

/** Whether m holds a mapping (a zeroed struct dd_map holds none). */
static inline bool dd_map_held(const struct dd_map *m)
{
	return m->base != NULL;
}

/** Whether a page of the block vanished (SIGBUS) since it was mapped. */
bool dd_map_lost(const struct dd_map *m);

/** Unmap the block; nothing may touch it any more. */
void dd_map_release(struct dd_map *m);

/**
 * Take a read lease on fd (opened read-only), so the file cannot shrink
 * unnoticed: when another process wants to write or truncate it, a flag is
 * raised (dd_map_lease_wanted) and wake_fd, an eventfd, is written to.
 * @return 0, or a negative errno when the file cannot be leased (someone
 * has it open for writing, the caller does not own it, the file system
 * has no leases): then it must be read, not mapped
 */
int dd_map_lease(int fd, int wake_fd);

/** Whether another process has asked for the leased file since. */
bool dd_map_lease_wanted(void);

/** Give the lease on fd back: the process waiting for it goes on. */
void dd_map_lease_end(int fd);

#endif
