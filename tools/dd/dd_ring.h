/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * striped-dd's ring: iodepth slots, each a block buffer and the request
 * that moves it. A slot is read into (libaio, or striped_aio_read, at an
 * offset), then written from (libaio, or striped_aio_write2), so that
 * block k + 1 is read while block k is written. libaio and libstriped's
 * callbacks both signal one eventfd, which the copy's thread sleeps on: it
 * never blocks inside a librados callback.
 *
 * The ring knows requests, not dd: it starts them, gathers their
 * completions and hands each finished block to the copy (dd_ring_done_fn);
 * what a block holds, in which order blocks go and how they count is the
 * copy's (dd_copy.c, dd_records.c).
 */
#ifndef DD_RING_H
#define DD_RING_H

#include <libaio.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dd_io.h"
#include "dd_map.h"

enum dd_slot_state {
	DD_SLOT_FREE,	 /* may be read into */
	DD_SLOT_READING, /* a read in flight (the ring's) */
	DD_SLOT_FULL,	 /* holds a block that waits for its turn */
	DD_SLOT_WRITING, /* a write in flight (the ring's) */
};

/* The request a slot has in flight: the ring's alone. */
struct dd_request {
	struct iocb *iocbs; /* libaio: one per DD_IO_MAX bytes of the block */
	unsigned int parts_left;
	long parts_res; /* bytes done by the parts so far, or their first error */
	struct striped_completion *c;
	atomic_int signaled; /* set by the striped callback */
	int efd;	     /* the ring's eventfd, which the callback writes */
};

struct dd_slot {
	/* The block: the copy's (the ring only allocates and maps its memory). */
	char *buf;	   /* the block: own, or a mapped input block */
	char *own;	   /* the slot's buffer, allocated when first needed */
	struct dd_map map; /* buf lies in it while dd_map_held() */
	size_t len;	   /* bytes held */
	size_t want;	   /* bytes asked of a positional read */
	size_t got;	   /* bytes read (len less conv=sync's padding) */
	bool eof;	   /* a positional read came back short: the input ends here */
	int err;	   /* the read failed (negative errno): handled at its turn */
	uint64_t seq;
	uint64_t pos; /* offset of buf[0] from the copy's first byte */
	enum dd_slot_state state;
	struct dd_request req;
};

struct dd_ring {
	struct dd_slot *slots;
	unsigned int nslots;
	size_t cap;		    /* each slot's buffer */
	io_context_t aio;	    /* when a side is local and read or written at offsets */
	int efd;		    /* what every completion signals; the copy sleeps on it */
	unsigned int reads, writes; /* requests in flight */
};

/**
 * Set up nslots empty slots of cap bytes each, the eventfd and (aio) a
 * libaio context for them. On failure dd_ring_destroy() undoes what was done.
 * @return 0 or a negative errno
 */
int dd_ring_init(struct dd_ring *r, unsigned int nslots, size_t cap, bool aio);

/**
 * Each slot's libaio requests, and (buffers) its block buffer now, so that
 * a bs= too large fails before anything is copied.
 * @return 0; -ENOMEM; -E2BIG when a block buffer cannot be had
 */
int dd_ring_prepare(struct dd_ring *r, bool buffers);

/** Free the slots (unmapping their blocks) and the libaio context; the eventfd stays open. */
void dd_ring_destroy(struct dd_ring *r);

/** The slot of block seq. */
static inline struct dd_slot *dd_ring_slot(const struct dd_ring *r, uint64_t seq)
{
	return &r->slots[seq % r->nslots];
}

/** Whether every slot is free. */
bool dd_ring_empty(const struct dd_ring *r);

/** Whether a slot not yet free holds a mapped input block. */
bool dd_ring_holds_mapped(const struct dd_ring *r);

/**
 * Point s at its own buffer (allocated on first use; a mapped input needs none).
 * @return 0; -E2BIG when it cannot be had
 */
int dd_slot_buffer(struct dd_ring *r, struct dd_slot *s);

/** Unmap s's mapped input block, if it holds one; buf is its own buffer again. */
void dd_slot_unmap(struct dd_slot *s);

/** s holds a block that waits for its turn. */
static inline void dd_slot_full(struct dd_slot *s)
{
	s->state = DD_SLOT_FULL;
}

/*
 * s is done with: free to be read into. A mapped block stays mapped until
 * its slot is read into again: unmapping 64 MiB tears down 16384 page table
 * entries, which would otherwise sit between one block's completion and the
 * next block's write. (Inline, as each block passes here.)
 */
static inline void dd_slot_free(struct dd_slot *s)
{
	striped_completion_release(s->req.c);
	s->req.c = NULL;
	s->state = DD_SLOT_FREE;
}

/**
 * Start reading (or writing) len bytes of s's buffer at off of end, which
 * is read or written at offsets (libaio, or libstriped's zero-copy write).
 * @return 0, s reading (writing) and counted in flight; a negative errno
 */
int dd_ring_submit(struct dd_ring *r, struct dd_end *end, struct dd_slot *s, bool is_write,
		   uint64_t off, size_t len);

/* A slot's request finished: res its bytes, or a negative errno; s still reading or writing. */
typedef void dd_ring_done_fn(void *arg, struct dd_slot *s, long res);

/**
 * Hand every request that finished to done (not counted in flight any
 * more, the striped completion released), without waiting.
 * @return how many libaio parts and striped requests finished
 */
int dd_ring_harvest(struct dd_ring *r, dd_ring_done_fn *done, void *arg);

/** Sleep until a completion signals, or timeout_ms (-1: none); never more than 100 ms. */
void dd_ring_wait(struct dd_ring *r, int timeout_ms);

#endif /* DD_RING_H */
