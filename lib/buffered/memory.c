// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The buffered mode's settings and memory: the window's size and the
 * bounds derived from it, the blocks' data (a few kept for reuse, all
 * counted against the window with what segments hold in librados'
 * buffers), the blocks and segments themselves, and giving freed memory
 * back to the system. Called under the buffer's lock unless said.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

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
	b->trim_blocks = clamp(b->max_blocks / 4, TRIM_BLOCKS_MIN, TRIM_BLOCKS_MAX);
	b->ra_max = cfg->readahead_max / WIN_BLOCK * WIN_BLOCK;
	b->dirty_age_ns = (uint64_t)cfg->dirty_age_ms * MS;
	b->ra.max = b->ra_max;
	b->ra.min = b->segment_bytes < b->ra_max ? b->segment_bytes : b->ra_max;
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

/* Blocks in use, kept for reuse, and held by librados for us: never more than the window. */
uint64_t blocks_footprint(const struct buffered *b)
{
	return b->blocks + b->nspare + b->segment_blocks;
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

void spare_trim(struct buffered *b)
{
	while (b->spare && blocks_footprint(b) > b->max_blocks) {
		char *p = b->spare;

		b->spare = *(char **)(void *)p;
		b->nspare--;
		free(p);
	}
}

/* The blocks' data kept for reuse goes (the handle goes). */
void spare_free(struct buffered *b)
{
	while (b->spare) {
		char *p = b->spare;

		b->spare = *(char **)(void *)p;
		free(p);
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
	win_insert(&b->w, blk, striped_now_ns());
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
	for (size_t i = 0; i < s->nkept; i++)
		if (s->kept[i].owner)
			obj_read_free(s->kept[i].r);
	b->segment_blocks -= s->blocks;
	b->freed_blocks += s->blocks;
	if (b->freed_blocks >= b->trim_blocks)
		kick(b);
	free(s->kept);
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

/* Segments that came in are given up for a writer that needs their room. */
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
	return any;
}

/*
 * What a reader consumed was held in librados' receive buffers, which glibc
 * keeps on its heaps once freed (its mmap threshold rises to their size):
 * a buffered reader's resident memory grew to 5 times its window (1 GiB of
 * 64 KiB reads: 311-327 MiB resident against 67-71 MiB when trimmed, at
 * 4% less throughput). Handing the free pages back keeps it near the
 * window. Once per trim_blocks freed, from the flusher, never the caller.
 */
void heap_trim(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}
