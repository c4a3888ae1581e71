/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The buffered mode's own declarations, shared by its files (layered from
 * the bottom): window.c (bookkeeping, pure), memory.c (settings, the
 * blocks' memory, segments' life), writeback.c (writes into the window and
 * the flusher), readahead.c (reads through the window and readahead),
 * buffered.c (open, close, and the mode's table).
 */
#ifndef STRIPED_BUFFERED_I_H
#define STRIPED_BUFFERED_I_H

#include "buffered.h"
#include "calls.h"
#include "clock.h"
#include "gate.h"
#include "io.h"
#include "window.h"

#define WINDOW_DEFAULT (64ull << 20)
#define WINDOW_MIN (1ull << 20)
#define DIRTY_AGE_MS_DEFAULT 200u
#define DIRTY_AGE_MS_MAX 60000u
/* One write-behind call carries at most this many pieces (16 MiB of whole blocks). */
#define RUN_PIECES_MAX 256
/* Units that write-behind sends whole: one stripe, within these bounds. */
#define UNIT_MIN (1ull << 20)
#define UNIT_MAX (16ull << 20)
/* Readahead goes in segments of one stripe, within these bounds. */
#define SEGMENT_MIN (1ull << 20)
#define SEGMENT_MAX (8ull << 20)
/* Complete units queued for the flusher; past this it sends everything dirty. */
#define READY_MAX 64
/* A handle that heard nothing from the cluster for this long checks its lock first. */
#define SILENCE_NS (1000 * NS_PER_MS)

/*
 * The heap is looked at once segments of an eighth of the window were
 * consumed (1 to 16 MiB), and trimmed when the free memory glibc keeps
 * resident grew by as much since the last trim (heap_trim()): librados'
 * receive buffers left on glibc's heaps, with what is read ahead (at most
 * half the window), stay within the window.
 */
#define TRIM_BLOCKS_MIN ((1ull << 20) / WIN_BLOCK)
#define TRIM_BLOCKS_MAX ((16ull << 20) / WIN_BLOCK)

/*
 * A run of the file read ahead into memory of the handle's (a stripe's
 * worth, reused from one segment to the next), copied from there into the
 * reader's buffer; holes and missing objects came in as zeros.
 */
struct segment {
	struct buffered *b;
	uint64_t off, len;
	uint64_t got;	/* bytes read; short only at the end of the file */
	uint64_t epoch; /* the lock it was read under */
	int error;
	bool done;
	bool dropped;	      /* out of the list: freed once unreferenced */
	unsigned refs;	      /* the list's, the read in flight's, each waiting reader's */
	uint64_t blocks;      /* what it counts against the window: its data's size */
	char *data;	      /* blocks * WIN_BLOCK bytes: [off, off + got) of the file */
	struct segment *next; /* the list, by offset */
};

/* An aio flush whose barrier the flusher places after sending everything. */
struct flush_req {
	struct striped_completion *c;
	struct flush_req *next;
};

struct buffered {
	struct striped_file *f;
	/* Closes f on the flusher, for a close deferred from a callback (file.c's). */
	void (*close_file)(struct striped_file *f);
	/*
	 * Writes into the window pass it; the handle's own truncate closes it
	 * from before it sends the window until it took the lock back.
	 */
	struct gate copies;
	pthread_mutex_t lock;
	pthread_cond_t room; /* writers and readers: a block landed, a segment came in */
	pthread_cond_t work; /* the flusher (CLOCK_MONOTONIC) */
	struct window w;

	uint64_t max_blocks; /* the window, in blocks */
	uint64_t ra_max;
	uint64_t dirty_age_ns;
	uint64_t unit_blocks;
	uint64_t segment_bytes;

	uint64_t blocks; /* blocks' data in use */
	/* Held by segments, in blocks: they count against the window. */
	uint64_t segment_blocks;
	char *spare; /* blocks' data kept for reuse: a list threaded through the data itself */
	uint64_t nspare;
	/* Whole segments' data kept for reuse (segment_bytes each), listed the same way. */
	char *seg_spare;
	uint64_t nseg_spare;

	uint64_t ready[READY_MAX]; /* complete units (first block), for the flusher */
	unsigned nready;
	bool send_all;	   /* pressure, flush, close: everything dirty goes */
	bool asked;	   /* another client wants the lock */
	unsigned sending;  /* write-behind calls in flight */
	int error;	   /* the first failed write-behind, until a flush reports it */
	uint64_t heard_ns; /* when a write-behind or read last came back from the cluster */
	bool pinned;	   /* holds a lease entry while data waits in the window */
	struct flush_req *flushes;
	bool stop;
	bool close_deferred; /* closed from a callback: the flusher closes the file */
	pthread_t flusher;
	bool flusher_running;

	struct ra_policy ra;
	struct segment *segs;
	uint64_t reading_blocks; /* of segments being read: librados receives them too */
	uint64_t freed_blocks;	 /* of segments, since the heap was last looked at */
	uint64_t trim_blocks;	 /* looked at once freed_blocks reaches it */
	/* The flusher's, for heap_trim(): */
	bool trimmed;
	uint64_t trimmed_idle; /* resident beyond the heaps' peak use: growth counts from it */
	uint64_t heap_peak;    /* the most glibc's heaps had in use since the last trim */
};

/* Wake the flusher (under the lock). */
static inline void kick(struct buffered *b)
{
	pthread_cond_signal(&b->work);
}

/* ---- memory.c: settings, the blocks' memory, blocks, segments' life, the heap ---- */

uint64_t stripe_bytes(const struct striped_layout *l, uint64_t lo, uint64_t hi);
void apply_config(struct buffered *b, const struct striped_buffer_config *cfg);
int buffer_check_config(const struct striped_buffer_config *in, size_t cfg_size,
			struct striped_buffer_config *out);
int buffer_configure(struct buffered *b, const struct striped_buffer_config *cfg);
uint64_t blocks_footprint(const struct buffered *b);
bool blocks_fit(const struct buffered *b, uint64_t n);
void spare_trim(struct buffered *b);
void spare_free(struct buffered *b);
char *segment_data_get(struct buffered *b, uint64_t blocks);
bool segment_fits(const struct buffered *b, uint64_t blocks);
uint64_t segments_mapped(const struct buffered *b);
void block_unref(struct buffered *b, struct win_block *blk);
struct win_block *block_new(struct buffered *b, uint64_t index);
void block_span(uint64_t index, uint64_t off, uint64_t len, uint32_t *lo, uint32_t *hi);
bool window_overlaps(const struct buffered *b, uint64_t off, uint64_t len);
void segment_unref(struct buffered *b, struct segment *s);
void segments_drop_if(struct buffered *b, bool (*match)(const struct segment *, uint64_t, uint64_t),
		      uint64_t a, uint64_t c);
bool seg_overlaps(const struct segment *s, uint64_t off, uint64_t len);
bool seg_other_epoch(const struct segment *s, uint64_t epoch, uint64_t unused);
bool seg_below(const struct segment *s, uint64_t pos, uint64_t unused);
bool seg_any(const struct segment *s, uint64_t a, uint64_t c);
bool segments_reclaim(struct buffered *b);
void heap_trim(struct buffered *b, uint64_t slack, uint64_t held);

/* ---- writeback.c: writes into the window, the flusher, drain and flush ---- */

void *flusher_main(void *arg);
void buffer_asked(void *arg);
void drain_locked(struct buffered *b);
int take_error_locked(struct buffered *b);
int buffer_drain(struct buffered *b);
int buffer_settle(struct buffered *b, uint64_t off, uint64_t len, bool nowait);
int check_not_silent(struct buffered *b);
ssize_t buffer_write(struct buffered *b, const struct io_mem *m, uint64_t len, uint64_t off,
		     int flags);
int buffer_aio_flush(struct buffered *b, struct striped_completion *c);

/* ---- readahead.c: reads through the window, readahead ---- */

ssize_t buffer_read(struct buffered *b, const struct io_mem *m, uint64_t len, uint64_t off);

#endif /* STRIPED_BUFFERED_I_H */
