// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The buffered mode's settings and memory: the window's size and the
 * bounds derived from it, the blocks' data and the segments' (some kept
 * for reuse, all counted against the window), the blocks and segments
 * themselves, and giving librados' freed receive buffers back to the
 * system. Called under the buffer's lock unless said.
 */
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buffered_i.h"

/* ---- settings ---- */

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A stripe, in whole blocks, within [lo, hi]. */
uint64_t stripe_bytes(const struct striped_layout *l, uint64_t lo, uint64_t hi)
{
	uint64_t stripe = l->stripe_unit * l->stripe_count;

	return clamp(stripe, lo, hi) / WIN_BLOCK * WIN_BLOCK;
}

void apply_config(struct buffered *b, const struct striped_buffer_config *cfg)
{
	b->max_blocks = cfg->window / WIN_BLOCK;
	b->trim_blocks = clamp(b->max_blocks / 8, TRIM_BLOCKS_MIN, TRIM_BLOCKS_MAX);
	b->ra_max = cfg->readahead_max / WIN_BLOCK * WIN_BLOCK;
	b->dirty_age_ns = (uint64_t)cfg->dirty_age_ms * NS_PER_MS;
	ra_set_bounds(&b->ra, b->segment_bytes, b->ra_max);
}

/* The config as the caller gave it (cfg_size bytes of it), the defaults for the rest. */
int buffer_check_config(const struct striped_buffer_config *in, size_t cfg_size,
			struct striped_buffer_config *out)
{
	struct striped_buffer_config cfg = STRIPED_BUFFER_CONFIG_INIT;

	if (!in || cfg_size < sizeof(cfg.window))
		return -EINVAL;
	memcpy(&cfg, in, cfg_size < sizeof(cfg) ? cfg_size : sizeof(cfg));
	if (cfg_size < offsetof(struct striped_buffer_config, dirty_age_ms) + sizeof(uint32_t))
		cfg.dirty_age_ms = DIRTY_AGE_MS_DEFAULT;
	if (cfg_size < offsetof(struct striped_buffer_config, readahead_max) + sizeof(uint64_t))
		cfg.readahead_max = cfg.window / 2;
	if (cfg.window < WINDOW_MIN || cfg.window > ((uint64_t)1 << 40) ||
	    cfg.readahead_max > cfg.window || cfg.dirty_age_ms > DIRTY_AGE_MS_MAX)
		return -EINVAL;
	*out = cfg;
	return 0;
}

int buffer_configure(struct buffered *b, const struct striped_buffer_config *cfg)
{
	pthread_mutex_lock(&b->lock);
	apply_config(b, cfg);
	spare_trim(b);
	/* A smaller window may be over-full: writers wait while it drains. */
	if (b->blocks > b->max_blocks)
		b->send_all = true;
	kick(b);
	pthread_cond_broadcast(&b->room);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

/* ---- the blocks' memory ---- */

static char *block_data_get(struct buffered *b)
{
	char *p = b->spare;

	if (p) {
		b->spare = *(char **)(void *)p;
		b->nspare--;
	} else if (!(p = malloc(WIN_BLOCK))) {
		/* Not page-aligned on purpose: glibc would waste a page on each. */
		return NULL;
	}
	b->blocks++;
	return p;
}

/* A whole segment's data, in blocks. */
static uint64_t segment_unit(const struct buffered *b)
{
	return b->segment_bytes / WIN_BLOCK;
}

/* Blocks and segments in use and kept for reuse: never more than the window. */
uint64_t blocks_footprint(const struct buffered *b)
{
	return b->blocks + b->nspare + b->segment_blocks + b->nseg_spare * segment_unit(b);
}

/* Whether n more blocks fit: their data taken from the spare first, then new. */
bool blocks_fit(const struct buffered *b, uint64_t n)
{
	uint64_t fresh = n > b->nspare ? n - b->nspare : 0;

	return blocks_footprint(b) + fresh <= b->max_blocks;
}

/*
 * Kept for reuse: a few only, so the reuse list never takes the room
 * segments need; the rest go back to malloc, which keeps them for the next
 * allocation anyway.
 */
#define FREE_KEEP 64

static void block_data_put(struct buffered *b, char *p)
{
	b->blocks--;
	if (b->nspare < FREE_KEEP && blocks_footprint(b) < b->max_blocks) {
		*(char **)(void *)p = b->spare;
		b->spare = p;
		b->nspare++;
	} else {
		free(p);
	}
}

/* Pop the first of a list threaded through the data itself. */
static char *list_pop(char **list)
{
	char *p = *list;

	*list = *(char **)(void *)p;
	return p;
}

static void list_push(char **list, char *p)
{
	*(char **)(void *)p = *list;
	*list = p;
}

/*
 * What librados holds while it receives a segment: its reply lands in a
 * buffer of librados' before it is copied into the segment's. A segment's
 * worth of the readahead bound is left for it, when the bound holds two.
 */
static uint64_t receiving(const struct buffered *b)
{
	return b->ra_max / WIN_BLOCK >= 2 * segment_unit(b) ? segment_unit(b) : 0;
}

/* Whether the segments' data kept for reuse exceeds what readahead may hold. */
static bool seg_spare_over(const struct buffered *b, uint64_t more)
{
	return b->segment_blocks + (b->nseg_spare + more) * segment_unit(b) + receiving(b) >
	       b->ra_max / WIN_BLOCK;
}

/* What is kept for reuse beyond the (new) window or readahead bound goes. */
void spare_trim(struct buffered *b)
{
	while (b->seg_spare && (blocks_footprint(b) > b->max_blocks || seg_spare_over(b, 0))) {
		munmap(list_pop(&b->seg_spare), b->segment_bytes);
		b->nseg_spare--;
	}
	while (b->spare && blocks_footprint(b) > b->max_blocks) {
		free(list_pop(&b->spare));
		b->nspare--;
	}
}

static void seg_spare_free(struct buffered *b)
{
	while (b->seg_spare) {
		munmap(list_pop(&b->seg_spare), b->segment_bytes);
		b->nseg_spare--;
	}
}

/* The data kept for reuse goes (the handle goes). */
void spare_free(struct buffered *b)
{
	seg_spare_free(b);
	while (b->spare) {
		free(list_pop(&b->spare));
		b->nspare--;
	}
}

/* ---- the segments' memory ---- */

/*
 * A segment's data is mapped, not allocated: whole pages that go back to
 * the system the moment they are given up, never left on glibc's heaps.
 */
static char *segment_map(uint64_t blocks)
{
	void *p = mmap(NULL, blocks * WIN_BLOCK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Whether a segment of this many blocks may be read ahead now: within the
 * readahead bound, and within the window (a whole one reuses kept data).
 */
bool segment_fits(const struct buffered *b, uint64_t blocks)
{
	uint64_t fresh = blocks == segment_unit(b) && b->nseg_spare ? 0 : blocks;

	return b->segment_blocks + blocks + receiving(b) <= b->ra_max / WIN_BLOCK &&
	       blocks_footprint(b) + fresh <= b->max_blocks;
}

/*
 * A segment's data: a whole one from those kept for reuse, so a sequential
 * reader's pages are faulted in once, not once per segment.
 */
char *segment_data_get(struct buffered *b, uint64_t blocks)
{
	if (blocks == segment_unit(b) && b->seg_spare) {
		b->nseg_spare--;
		return list_pop(&b->seg_spare);
	}
	return segment_map(blocks);
}

/* The bytes of segments' data mapped now (in use and kept for reuse). */
uint64_t segments_mapped(const struct buffered *b)
{
	return (b->segment_blocks + b->nseg_spare * segment_unit(b)) * WIN_BLOCK;
}

/* Kept for the next segment while readahead and the window allow (s no longer counts). */
static void segment_data_put(struct buffered *b, char *p, uint64_t blocks)
{
	if (blocks == segment_unit(b) && !seg_spare_over(b, 1) &&
	    blocks_footprint(b) + blocks <= b->max_blocks) {
		list_push(&b->seg_spare, p);
		b->nseg_spare++;
	} else {
		munmap(p, blocks * WIN_BLOCK);
	}
}

/* ---- blocks ---- */

void block_unref(struct buffered *b, struct win_block *blk)
{
	if (--blk->refs)
		return;
	block_data_put(b, blk->data);
	free(blk);
}

struct win_block *block_new(struct buffered *b, uint64_t index)
{
	struct win_block *blk = calloc(1, sizeof(*blk));

	if (!blk)
		return NULL;
	blk->data = block_data_get(b);
	if (!blk->data) {
		free(blk);
		return NULL;
	}
	blk->index = index;
	blk->refs = 1; /* the index's */
	win_insert(&b->w, blk, clock_now_ns());
	return blk;
}

/* The bytes of block index that [off, off + len) covers. */
void block_span(uint64_t index, uint64_t off, uint64_t len, uint32_t *lo, uint32_t *hi)
{
	uint64_t start = index * WIN_BLOCK, end = start + WIN_BLOCK;

	*lo = (uint32_t)(off > start ? off - start : 0);
	*hi = (uint32_t)((off + len < end ? off + len : end) - start);
}

/* Whether any block of the window lies in [off, off + len). */
bool window_overlaps(const struct buffered *b, uint64_t off, uint64_t len)
{
	if (!b->w.nblocks || !len)
		return false;
	for (uint64_t i = off / WIN_BLOCK; i <= (off + len - 1) / WIN_BLOCK; i++)
		if (win_find(&b->w, i))
			return true;
	return false;
}

/* ---- segments ---- */

void segment_unref(struct buffered *b, struct segment *s)
{
	if (--s->refs)
		return;
	b->segment_blocks -= s->blocks;
	b->freed_blocks += s->blocks;
	if (b->freed_blocks >= b->trim_blocks)
		kick(b);
	if (s->data)
		segment_data_put(b, s->data, s->blocks);
	free(s);
}

static void segment_drop(struct buffered *b, struct segment *s)
{
	struct segment **p = &b->segs;

	while (*p && *p != s)
		p = &(*p)->next;
	if (*p)
		*p = s->next;
	s->dropped = true;
	segment_unref(b, s);
}

/* Drop the segments that match: those a write overlaps, a stale lock's, consumed ones. */
void segments_drop_if(struct buffered *b, bool (*match)(const struct segment *, uint64_t, uint64_t),
		      uint64_t a, uint64_t c)
{
	struct segment *s = b->segs, *next;

	for (; s; s = next) {
		next = s->next;
		if (match(s, a, c))
			segment_drop(b, s);
	}
}

bool seg_overlaps(const struct segment *s, uint64_t off, uint64_t len)
{
	return s->off < off + len && off < s->off + s->len;
}

bool seg_other_epoch(const struct segment *s, uint64_t epoch, uint64_t unused)
{
	(void)unused;
	return s->epoch != epoch;
}

bool seg_below(const struct segment *s, uint64_t pos, uint64_t unused)
{
	(void)unused;
	return s->off + s->len <= pos;
}

bool seg_any(const struct segment *s, uint64_t a, uint64_t c)
{
	(void)s;
	(void)a;
	(void)c;
	return true;
}

/* Segments that came in, and segments' data kept for reuse, go: a writer needs room. */
bool segments_reclaim(struct buffered *b)
{
	struct segment *s = b->segs, *next;
	bool any = false;

	for (; s; s = next) {
		next = s->next;
		if (s->done) {
			segment_drop(b, s);
			any = true;
		}
	}
	any = any || b->seg_spare;
	seg_spare_free(b);
	return any;
}

/* The process's resident memory, in bytes; 0 when /proc does not say. */
static uint64_t resident_bytes(void)
{
	unsigned long long pages, resident;
	char buf[128];
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &pages, &resident) != 2)
		return 0;
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* What glibc's heaps have in use now (0 where glibc cannot say). */
static uint64_t heap_in_use(void)
{
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 33)
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
#else
	return 0;
#endif
}

/*
 * librados receives each reply into a buffer of its own, on glibc's heaps
 * (an arena per messenger thread), and frees it once the reply is copied
 * out; glibc keeps much of that memory, and left alone a sequential
 * reader's resident memory grew by 127 MiB for a 32 MiB window. Trimming
 * hands the free pages back, but every page handed back is faulted in
 * again by the next reply that lands there: trimmed once per quarter
 * window consumed, a reader took 2-3 times the page faults of the same
 * reads made with aio. So the heap is looked at each time an eighth of
 * the window was consumed, and trimmed only once the resident memory
 * beyond what the heaps had in use at most since the last trim (and
 * beyond the segments', held) grew by as much (slack) above the lowest
 * it was since: memory in use (replies librados still holds, the
 * application's own) never makes it trim, nor do free pages the next
 * replies will land on again. From the flusher, never the caller.
 */
void heap_trim(struct buffered *b, uint64_t slack, uint64_t held)
{
#ifdef __GLIBC__
	uint64_t rss = resident_bytes(), used = heap_in_use(), idle;

	if (used > b->heap_peak)
		b->heap_peak = used;
	idle = rss > held + b->heap_peak ? rss - held - b->heap_peak : 0;
	if (rss && b->trimmed && idle < b->trimmed_idle)
		b->trimmed_idle = idle; /* the lowest since: growth is counted from there */
	if (rss && b->trimmed && idle <= b->trimmed_idle + slack)
		return;
	malloc_trim(0);
	rss = resident_bytes();
	b->heap_peak = heap_in_use();
	b->trimmed_idle = rss > held + b->heap_peak ? rss - held - b->heap_peak : 0;
	b->trimmed = true;
#else
	(void)b;
	(void)slack;
	(void)held;
#endif
}
