/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal structures and helpers of libstriped; never installed. */
#ifndef STRIPED_I_H
#define STRIPED_I_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "striped.h"

#ifndef SSIZE_MAX
#define SSIZE_MAX LONG_MAX
#endif

/* The thrasher's deliberate defects (tests/thrash): 0 but in its test copies of the library. */
#ifndef STRIPED_THRASH_DEFECT
#define STRIPED_THRASH_DEFECT 0
#endif

/*
 * A counter updated without a lock. rados_cxx.cc includes this header for
 * its prototypes only: C++ gets the same layout under its own spelling.
 */
#ifdef __cplusplus
extern "C++" {
#include <atomic>
}
typedef std::atomic<uint64_t> u64_atomic;
#else
typedef _Atomic uint64_t u64_atomic;

/* Raise *max to v unless it is already at least v (a statistic: relaxed). */
static inline void u64_atomic_max(u64_atomic *max, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(max, memory_order_relaxed);

	while (v > cur && !atomic_compare_exchange_weak_explicit(max, &cur, v, memory_order_relaxed,
								 memory_order_relaxed))
		;
}
#endif

/* ---- completion.c: aggregation of one call's parts (pure, no librados) ---- */

/*
 * Run once when the last part of a call has finished, before the user's
 * callback: turns the parts' outcome into the call's result.
 */
typedef ssize_t (*call_finish_fn)(struct striped_completion *c, int first_error);
/* Run last, after the callback and the waiters: the owner of the call lets go of it. */
/* After a call's callback has returned; tag is what the owner gave the call. */
typedef void (*call_release_fn)(void *owner, uint64_t tag);

struct striped_completion {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned refs;	  /* caller's reference + one while a call runs */
	unsigned pending; /* parts not finished, + 1 while still submitting */
	bool started;
	bool result_ready; /* set before the callback runs */
	bool done;	   /* set after it returned */
	int first_error;
	ssize_t result;
	striped_callback_t cb;
	void *cb_arg;

	call_finish_fn finish;
	void *call; /* the engine's per-call state, freed by finish */
	call_release_fn release;
	void *owner;
	uint64_t owner_tag;

	uint64_t in_flight;
	struct striped_io_stats stats;
	uint64_t start_ns;
};

uint64_t striped_now_ns(void);
int completion_start(struct striped_completion *c, call_finish_fn finish, void *call,
		     call_release_fn release, void *owner, uint64_t owner_tag);
void completion_part_begin(struct striped_completion *c);
void completion_part_landed(struct striped_completion *c);
void completion_part_end(struct striped_completion *c, int result);
void completion_submit_end(struct striped_completion *c, int error);
/* The first error of the parts ended so far, 0 if none: a long call sends no more after one. */
int completion_first_error(struct striped_completion *c);
void completion_add_throttle_wait(struct striped_completion *c);
void completion_count_op(struct striped_completion *c);
void completion_wait_begin(struct striped_completion *c);
bool completion_in_callback(void);
/* Whether a call was ever started on c (a completion serves one call only). */
bool completion_used(struct striped_completion *c);
/* Undo completion_start() of a call refused before any part of it began. */
void completion_abandon(struct striped_completion *c);
/* Start c and complete it at once with result (bytes or -errno), its callback run here. */
int completion_complete_now(struct striped_completion *c, ssize_t result);

/* ---- latency.c: per-call latency histograms, log-scaled buckets (pure, lock-free) ---- */

/* 2^5 buckets to each power of two: a bucket is at most 1/32 of its lower end wide. */
#define LATENCY_SUB_BITS 5
/* Latencies from 2^44 ns (4.9 hours) on share the last bucket. */
#define LATENCY_TOP_BITS 44
#define LATENCY_BUCKETS ((LATENCY_TOP_BITS - LATENCY_SUB_BITS + 1) << LATENCY_SUB_BITS)

struct latency_hist {
	u64_atomic max_ns;
	u64_atomic buckets[LATENCY_BUCKETS];
};

/* The bucket of a latency, and the first and last latency it holds (the last one's: UINT64_MAX). */
unsigned latency_bucket(uint64_t ns);
uint64_t latency_bucket_low(unsigned b);
uint64_t latency_bucket_high(unsigned b);
/* Count one latency: atomics only, from any thread. */
void latency_record(struct latency_hist *h, uint64_t ns);
/*
 * The nearest-rank percentile (per_100k / 1000 percent) of total latencies
 * counted in counts[LATENCY_BUCKETS]: the upper end of its bucket, at most
 * max (the largest latency counted); 0 when total is 0.
 */
uint64_t latency_percentile(const uint64_t *counts, uint64_t total, uint64_t max,
			    unsigned per_100k);
/* Calls, percentiles and max of a histogram while others may record into it. */
void latency_read(struct latency_hist *h, struct striped_percentiles *out);

/*
 * A file's statistics over its lifetime (completion.c): atomics, so that
 * calls and their operations count without a lock. A reader while calls run
 * may see one field a call ahead of another.
 */
struct io_account {
	u64_atomic calls, ops, bytes, throttle_waits, latency_ns;
	u64_atomic ops_in_flight, max_in_flight;
	struct latency_hist read_latency, write_latency;
};

/* What a call was, for its latency: which histogram counts it (none for OTHER). */
enum account_kind { ACCOUNT_READ, ACCOUNT_WRITE, ACCOUNT_OTHER };

void account_init(struct io_account *a);
void account_op_begin(struct io_account *a);
void account_op_end(struct io_account *a);
void account_call(struct io_account *a, const struct striped_io_stats *call,
		  enum account_kind kind);
void account_read(struct io_account *a, struct striped_io_stats *out);
void account_latency(struct io_account *a, struct striped_latency *out);

/* ---- iov.c: the caller's memory, one buffer or an iovec array (pure) ---- */

struct io_mem {
	const struct iovec *iov; /* the segments; &one for a plain buffer */
	int iovcnt;
	struct iovec one;
	uint64_t *ends; /* iovcnt > 1: where each segment ends, counted from the first */
};

void io_mem_buf(struct io_mem *m, char *buf, uint64_t len);
int io_mem_iov(struct io_mem *m, const struct iovec *iov, int iovcnt);
void io_mem_move(struct io_mem *dst, struct io_mem *src);
void io_mem_free(struct io_mem *m);
/* The memory at offset off (< the total), and how many bytes follow it there. */
char *io_mem_at(const struct io_mem *m, uint64_t off, uint64_t *avail);
/* How many contiguous pieces [off, off + len) spans. */
size_t io_mem_pieces(const struct io_mem *m, uint64_t off, uint64_t len);
void io_mem_zero(const struct io_mem *m, uint64_t off, uint64_t len);
/* Copy len bytes between the caller's memory at off and buf: into it with to_mem, else out. */
void io_mem_copy(const struct io_mem *m, uint64_t off, char *buf, uint64_t len, bool to_mem);
struct iovec *io_mem_slice(const struct io_mem *m, uint64_t off, uint64_t len, int *cnt);

/* ---- flush.c: flush barriers over a file's calls (pure) ---- */

struct flush_waiter {
	struct striped_completion *c; /* started; ended when the flush is due */
	struct flush_waiter *next;
};

struct flush_gens {
	struct flush_gen *oldest, *now;
};

int flush_gens_init(struct flush_gens *fg);
void flush_gens_destroy(struct flush_gens *fg);
/* A call begins: returns its generation, to give back to flush_gens_leave(). */
uint64_t flush_gens_enter(struct flush_gens *fg);
/* A call of generation gen has ended: returns the waiters now due (a list). */
struct flush_waiter *flush_gens_leave(struct flush_gens *fg, uint64_t gen);
/*
 * A flush after every call begun so far: *due when none is left (w is then
 * not kept), else w is kept until flush_gens_leave() returns it.
 */
int flush_gens_barrier(struct flush_gens *fg, struct flush_waiter *w, bool *due);

/* ---- window.c: the buffered mode's bookkeeping (pure) ---- */

/* 64 KiB: every stripe unit is a multiple, so a block lies in one object. */
#define WIN_BLOCK_SHIFT 16
#define WIN_BLOCK (1u << WIN_BLOCK_SHIFT)
/* A block remembers this many separate ranges written into it; one more waits for a send. */
#define WIN_RANGES 4

enum win_state {
	WIN_DIRTY,   /* written, not sent yet */
	WIN_SENDING, /* its write is in flight: unchanged until it lands */
	WIN_LANDED,  /* out of the index; freed once nothing pins it */
};

struct win_range {
	uint32_t lo, hi;
};

struct win_block {
	uint64_t index; /* the block's file offset / WIN_BLOCK */
	char *data;	/* WIN_BLOCK bytes; only the ranges hold the caller's */
	struct win_range r[WIN_RANGES];
	unsigned nranges;
	enum win_state state;
	unsigned refs;	     /* the index's and each reader's pin */
	unsigned sends;	     /* writes in flight carrying its bytes: it leaves the index after the last */
	uint64_t dirtied_ns; /* when it was first written after its last send */
	struct win_block *hnext;
	struct win_block *older, *newer; /* the dirty list, oldest first */
};

struct window {
	struct win_block **buckets;
	size_t nbuckets;
	size_t nblocks;			  /* in the index: dirty or being sent */
	size_t dirty;			  /* on the dirty list */
	struct win_block *oldest, *newest; /* dirty, in the order first written */
	uint64_t end; /* past the last byte indexed blocks hold; 0 when none is */
};

/* A piece of a run: the bytes [lo, hi) of block b. */
struct win_piece {
	struct win_block *b;
	uint32_t lo, hi;
};

int win_block_add(struct win_block *b, uint32_t lo, uint32_t hi);
bool win_block_fits(const struct win_block *b, uint32_t lo, uint32_t hi);
bool win_block_full(const struct win_block *b);
uint64_t win_block_end(const struct win_block *b);
int win_init(struct window *w, size_t max_blocks);
void win_destroy(struct window *w);
struct win_block *win_find(const struct window *w, uint64_t index);
void win_insert(struct window *w, struct win_block *b, uint64_t now);
void win_note_write(struct window *w, const struct win_block *b);
void win_mark_sending(struct window *w, struct win_block *b);
void win_remove(struct window *w, struct win_block *b);
bool win_unit_complete(const struct window *w, uint64_t first, uint64_t nblocks);
void win_sort(struct win_block **blocks, size_t n);
size_t win_next_run(struct win_block *const *blocks, size_t n, size_t first_range,
		    struct win_piece *pieces, size_t max_pieces, size_t *used, size_t *next_range);
uint64_t win_run_offset(const struct win_piece *p);
uint64_t win_run_length(const struct win_piece *p, size_t n);

/* How far a reader is read ahead. */
struct ra_policy {
	uint64_t next;	   /* where a sequential reader reads next */
	uint64_t ahead;	   /* bytes kept read ahead of it; 0: not sequential */
	uint64_t min, max; /* the first distance, and the bound it doubles up to */
	bool seen;	   /* a read came before */
};

void ra_init(struct ra_policy *p, uint64_t min, uint64_t max);
uint64_t ra_observe(struct ra_policy *p, uint64_t off, uint64_t len);

/* ---- throttle.c: bound operations and bytes in flight (pure) ---- */

struct striped_throttle {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t max_ops, max_bytes;
	uint64_t ops, bytes;
	/* Waiters are served first come, first served: a ticket each. */
	uint64_t next_ticket, serving;
};

int throttle_init(struct striped_throttle *t, uint64_t max_ops, uint64_t max_bytes);
void throttle_destroy(struct striped_throttle *t);
void throttle_set(struct striped_throttle *t, uint64_t max_ops, uint64_t max_bytes);
bool throttle_try_get(struct striped_throttle *t, uint64_t bytes);
bool throttle_try_get_many(struct striped_throttle *t, uint64_t ops, uint64_t bytes);
void throttle_get(struct striped_throttle *t, uint64_t bytes);
void throttle_get_many(struct striped_throttle *t, uint64_t ops, uint64_t bytes);
bool throttle_within_limits(struct striped_throttle *t, uint64_t ops, uint64_t bytes);
void throttle_put(struct striped_throttle *t, uint64_t bytes);
void throttle_put_many(struct striped_throttle *t, uint64_t ops, uint64_t bytes);

/*
 * Writes on a full cluster or pool fail with -ENOSPC or -EDQUOT instead of
 * waiting for space forever (librados' default), and deletes still go
 * through, so a full cluster can be cleaned up with striped_remove().
 */
#define STRIPED_WRITE_FLAGS LIBRADOS_OPERATION_FULL_TRY

/* The STRIPED_IO_FADVISE_* flags: librados' op flags, passed on as they are. */
#define IO_FADVISE_FLAGS                                                                           \
	(STRIPED_IO_FADVISE_RANDOM | STRIPED_IO_FADVISE_SEQUENTIAL | STRIPED_IO_FADVISE_WILLNEED | \
	 STRIPED_IO_FADVISE_DONTNEED | STRIPED_IO_FADVISE_NOCACHE)

/* ---- meta.c: head-object xattrs, names and lock requests (pure) ---- */

#define XATTR_STRIPE_UNIT "striper.layout.stripe_unit"
#define XATTR_STRIPE_COUNT "striper.layout.stripe_count"
#define XATTR_OBJECT_SIZE "striper.layout.object_size"
#define XATTR_SIZE "striper.size"
/* libstriped's own: a random number given at creation, so a re-created file is told apart. */
#define XATTR_ID "striper.id"
/*
 * libstriped's own: "striper.region.%016llx" is set (value "1") before any
 * byte goes to an object of that region, for objects past the first
 * REGION_WALK_OBJECTS. Remove and truncate walk the first objects by name,
 * then only the registered regions: a file of 2^40 mostly missing objects is
 * cleaned without walking them all and without listing the pool.
 */
#define XATTR_REGION_PREFIX "striper.region."
/*
 * libstriped's own: the high-water mark. No byte of the file's objects lies
 * past max(striper.size, striper.reserved): a growing write raises the mark
 * (in large steps, see meta_mark_target) before it sends data past it, and
 * sends the size update beside its data. Remove and truncate clean up to
 * the mark. Missing (files of libradosstriper or of libstriped < 0.5): 0.
 */
#define XATTR_RESERVED "striper.reserved"
#define REGION_OBJECTS 4096ull
#define REGION_WALK_OBJECTS 65536ull
#define STRIPER_LOCK_NAME "striper.lock"
/* libradosstriper's tags: its shared lockers use "Tag", its exclusive ones "". */
#define STRIPER_SHARED_TAG "Tag"
#define STRIPER_EXCLUSIVE_TAG ""

/* Longest decimal uint64 plus NUL. */
#define DECIMAL_MAX 21
/* ".%016llx" */
#define OBJECT_SUFFIX_LEN 17
/* An encoded lock request: our names, cookies and descriptions are short. */
#define LOCK_REQ_MAX 256
#define COOKIE_MAX 64

/* cls_lock's types and flags (Ceph's cls_lock_types.h). */
enum { LOCK_EXCLUSIVE = 1, LOCK_SHARED = 2 };
#define LOCK_FLAG_MAY_RENEW 0x1
#define LOCK_FLAG_MUST_RENEW 0x2

struct lock_req {
	const char *name;
	int type;
	const char *cookie;
	const char *tag;
	const char *description;
	uint32_t seconds;
	uint8_t flags;
};

int meta_parse_u64(const char *s, size_t len, uint64_t *out);
int meta_format_u64(uint64_t v, char buf[DECIMAL_MAX]);
ssize_t meta_encode_lock(char *buf, size_t cap, const struct lock_req *req);
ssize_t meta_encode_unlock(char *buf, size_t cap, const char *name, const char *cookie);
ssize_t meta_encode_assert_locked(char *buf, size_t cap, const struct lock_req *req);
void meta_new_cookie(char buf[COOKIE_MAX]);
/* Whether a lock cookie is libstriped's (its holders watch the head and answer). */
bool meta_cookie_is_ours(const char *cookie);
/* Whose a holder of the lock is (STRIPED_LOCKER_*), from its cookie and the lock's tag. */
int meta_locker_owner(const char *cookie, const char *tag, bool exclusive);
/* Whether answered ('\\0'-separated cookies, len bytes) holds cookie. */
bool meta_cookie_answered(const char *answered, size_t len, const char *cookie);
/*
 * Whether two client addresses, as librados prints them (a lone
 * "127.0.0.1:0/3490100637" or a vector "[v2:...,v1:...]"), have an entity
 * address in common (IP, port and nonce; v1, v2 or any alike): one
 * blocklist entry would fence both.
 */
bool meta_addr_shared(const char *a, const char *b);
/*
 * Where to raise the high-water mark for a write ending at end: ahead by
 * as much again as the file holds, at least MARK_STEP_MIN and at most
 * MARK_STEP_MAX, so a file growing from nothing raises it once per doubling
 * and then once per MARK_STEP_MAX, never once per call.
 */
#define MARK_STEP_MIN (4ull << 20)
#define MARK_STEP_MAX (256ull << 20)
uint64_t meta_mark_target(uint64_t end);

/* ---- rados_cxx.cc: what only librados' C++ API can build ---- */

/*
 * Send "xattr = want if want > xattr (as numbers)" on oid (the size or the
 * mark), completing c with 0, or -ECANCELED when the stored value is
 * already >= want. The C API compares xattrs only as strings, which orders
 * "9" after "10".
 */
int size_cas_send(rados_ioctx_t io, const char *oid, rados_completion_t c, const char *xattr,
		  uint64_t want, int flags);
/* "if striper.size == old (as numbers), set it to size", synchronously; -ECANCELED if not. */
int size_cas_eq(rados_ioctx_t io, const char *oid, uint64_t old, uint64_t size, int flags);
/*
 * "if the exclusive lock is ours and striper.size == old, set it to size",
 * and the mark (striper.reserved) to size, synchronously.
 */
int size_set_fenced(rados_ioctx_t io, const char *oid, const char *assert_in, size_t assert_len,
		    uint64_t old, uint64_t size, int flags);

/* The value's whole length (even above len); at most len bytes go to buf. */
ssize_t head_getxattr(rados_ioctx_t io, const char *oid, const char *name, void *buf, size_t len);
/* The stored size and the head object's mtime, in one read. */
int head_stat_time(rados_ioctx_t io, const char *oid, uint64_t *size, struct timespec *mtime);
/* Called for each xattr of an object; a non-zero return stops the walk with it. */
typedef int (*head_xattr_fn)(void *arg, const char *key, const char *val, size_t len);
/* The object's mtime, and every xattr of it to fn, in one read. */
int head_stat_xattrs(rados_ioctx_t io, const char *oid, struct timespec *mtime,
		     head_xattr_fn fn, void *arg);

/* A client watching an object: its global id (client.ID) and its address. */
struct watcher {
	int64_t id;
	char addr[256]; /* as obj_watch_t has it */
};
/* The watchers of oid in *out (free() it); how many, or -errno. */
ssize_t head_watchers(rados_ioctx_t io, const char *oid, struct watcher **out);

/* One object's write operation: add its pieces in object order, send it once. */
struct obj_write;
/* op_flags: librados op flags given to each write (the call's fadvise hints). */
struct obj_write *obj_write_new(int op_flags);
void obj_write_free(struct obj_write *w);
/* zero_copy: the operation references buf, which must stay unchanged until it completes. */
int obj_write_add(struct obj_write *w, const char *buf, size_t len, uint64_t obj_off,
		  bool zero_copy);
/* A single run covering the whole object goes as write_full. */
int obj_write_send(struct obj_write *w, rados_ioctx_t io, const char *oid, rados_completion_t c,
		   uint64_t object_size, int flags);

/* One object's read whose bytes stay in librados' bufferlists (read ahead, copied once). */
struct obj_read;
struct obj_read *obj_read_new(size_t npieces, int op_flags);
void obj_read_free(struct obj_read *r);
int obj_read_add(struct obj_read *r, uint64_t obj_off, uint64_t len);
int obj_read_send(struct obj_read *r, rados_ioctx_t io, const char *oid, rados_completion_t c);
ssize_t obj_read_got(const struct obj_read *r, size_t i);
void obj_read_copy(const struct obj_read *r, size_t i, uint64_t at, char *dst, size_t len);

/*
 * Where a kept read's bytes go (buffer.c): each object read, when it
 * completed, with the call-relative offset and length of each piece.
 * Called from librados callbacks; takes r (frees it when done with it).
 */
struct read_sink;
struct kept_piece {
	uint64_t buf_off, len, got;
};
int read_sink_take(struct read_sink *s, struct obj_read *r, const struct kept_piece *pieces,
		   size_t n);

/* ---- head.c: every RADOS call on the head object ---- */

struct head_meta {
	struct striped_layout layout;
	uint64_t size;
	uint64_t id; /* 0 when the file has none (libradosstriper made it) */
	uint64_t reserved; /* the high-water mark, 0 when the file has none */
	unsigned found; /* bit per xattr */
	uint64_t *regions;   /* registered regions (see REGION_OBJECTS), sorted */
	size_t nregions;
};
void head_meta_free(struct head_meta *m);

/* Where the file's objects may hold bytes up to: what remove and truncate clean. */
static inline uint64_t head_meta_end(const struct head_meta *m)
{
	return m->reserved > m->size ? m->reserved : m->size;
}
/* stripe unit, stripe count, object size, size; the id is optional. */
#define HEAD_META_REQUIRED 0xfu

int head_create_locked(rados_ioctx_t io, const char *oid, const struct striped_layout *l,
		       uint64_t id, const struct lock_req *req);
int head_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req);
void head_unlock(rados_ioctx_t io, const char *oid, const char *cookie);
void head_unlock_nowait(rados_ioctx_t io, const char *oid, const char *cookie);
int head_read_meta(rados_ioctx_t io, const char *oid, struct head_meta *m);
/*
 * As head_read_meta(), and the mtime (may be NULL), in one read; with user,
 * the user's xattrs are added to it. Told apart for operators: -ENODATA
 * for an object with no striper metadata, -EUCLEAN for metadata that is
 * incomplete, not a number or no valid layout.
 */
int head_inspect(rados_ioctx_t io, const char *oid, struct head_meta *m, struct timespec *mtime,
		 struct striped_xattrs *user);
int head_get_size(rados_ioctx_t io, const char *oid, uint64_t *size);
int head_get_size_aio(rados_ioctx_t io, const char *oid, rados_completion_t rc, char *buf,
		      size_t len);
int head_set_size_fenced(rados_ioctx_t io, const char *oid, const struct lock_req *excl,
			 uint64_t old, uint64_t size);
int head_remove_fenced(rados_ioctx_t io, const char *oid, const struct lock_req *excl);
int head_check_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req);
/* An I/O context of io's pool and namespace for the watch: writes on a full pool go through. */
/*
 * An I/O context of io's pool and namespace of its own, whose writes on a
 * full pool go through: the watch's, and a headless repair's (repair.c).
 */
int head_watch_ioctx(rados_ioctx_t io, rados_ioctx_t *wio);
void head_watch_ioctx_destroy(rados_ioctx_t wio);
/* Watch the head: heard() on every notify, lost() when the watch breaks. */
int head_watch(rados_ioctx_t wio, const char *oid, rados_watchcb2_t heard, rados_watcherrcb_t lost,
	       void *arg, uint64_t *handle);
void head_unwatch(rados_ioctx_t wio, uint64_t handle);
/* Close: drop the watch and, with a cookie, the lock; both waited for; then destroy wio. */
void head_unwatch_unlock(rados_ioctx_t wio, uint64_t handle, rados_ioctx_t io, const char *oid,
			 const char *cookie);
/* Drop the watch and then destroy wio, without waiting (its completion does it). */
void head_unwatch_and_destroy(rados_ioctx_t wio, uint64_t handle);
/* Answer a notify (from a watch callback: sent, not waited for). */
void head_notify_ack(rados_ioctx_t io, const char *oid, uint64_t notify_id, uint64_t handle,
		     const char *payload);
/*
 * Ask every watcher to let go of the lock; fills answered with the cookies
 * they answered with ('\0'-separated, free()), the watchers that did not
 * answer in time are left out.
 */
int head_notify_release(rados_ioctx_t io, const char *oid, uint64_t timeout_ms, char **answered,
			size_t *len);

/* A holder of the head's lock, as cls_lock lists it. */
struct locker {
	char client[64]; /* "client.4123" */
	char cookie[COOKIE_MAX + 64];
	char addr[128];
};
/* The most holders a listing keeps (more are not listed). */
#define LOCKERS_MAX 64
/* The lock's tag, as cls_lock keeps it: libradosstriper's and ours are short. */
#define LOCK_TAG_MAX 64
/*
 * The lock's holders (at most max), whether it is exclusive, and its tag
 * (tag may be NULL).
 */
ssize_t head_lockers(rados_ioctx_t io, const char *oid, struct locker *out, size_t max,
		     bool *exclusive, char *tag);
int head_break_lock(rados_ioctx_t io, const char *oid, const struct locker *l);
int head_register_regions(rados_ioctx_t io, const char *oid, const uint64_t *regions, size_t n);

/* The user's xattrs, as libradosstriper keeps them: on the head, names as given. */
#define XATTR_RESERVED_PREFIX "striper."
#define XATTR_LOCK "lock." STRIPER_LOCK_NAME

struct xattr_entry {
	char *name; /* one allocation with the value after it */
	const char *value;
	size_t len;
};

struct striped_xattrs {
	struct xattr_entry *e;
	size_t n, next;
};

bool head_xattr_reserved(const char *name);
int head_setxattr(rados_ioctx_t io, const char *oid, const char *name, const void *value,
		  size_t len);
int head_rmxattr(rados_ioctx_t io, const char *oid, const char *name);
int head_getxattrs(rados_ioctx_t io, const char *oid, struct striped_xattrs **out);
void head_xattrs_free(struct striped_xattrs *x);

/* ---- lease.c: the lock a handle holds, its watch, identity and layout ---- */

/* How long a handle with no call in flight keeps its lock before letting go unasked. */
#define LEASE_IDLE_SECONDS_DEFAULT 1
/* How long an exclusive section's lock lasts unless renewed (it is, while it runs). */
#define EXCL_SECONDS 30

/*
 * A growing write waiting for a stored size of at least `want`: stored() is
 * called once, with 0 or -errno, from a librados callback or from
 * size_grow_async() itself. `sent_update` tells whether this waiter's call
 * sent the update (it counts the operation); the others shared it.
 */
struct size_waiter {
	uint64_t want;
	void (*stored)(struct size_waiter *w, int r);
	bool sent_update;
	struct size_waiter *next;
};

/* Writes waiting together for one update not sent yet. */
struct size_group {
	uint64_t want;
	struct size_waiter *waiters;
};

/*
 * Updates of one stored value in flight at once. Each growing write sends
 * its own while fewer are on the wire (no waiting behind another's round
 * trip, which cost 15% of sequential growing writes at +4 ms); past that,
 * writes gather and share the next one (fewer head operations when many
 * pile up). 4: the default depth of sequential writers.
 */
#define GROW_UPDATES_IN_FLIGHT 4

/* One update on the wire and the writes it lets go; free while it has none. */
struct grow_update {
	struct grow_queue *q;
	uint64_t gen;	   /* bumped at each use: tells this use from a later one */
	uint64_t target;   /* the value it stores */
	struct size_waiter *waiters;
	rados_completion_t rc; /* as librados has it, for size_grow_cancel() */
	bool on_wire;	   /* rc was submitted: cancelling it means something */
	int cancel_r;	   /* why it was cancelled, 0 if it was not */
};

/*
 * A stored value that only grows while the shared lock is held (the size,
 * or the high-water mark), what the handle knows of it, and its updates:
 * up to GROW_UPDATES_IN_FLIGHT on the wire, the waiters past them gathered
 * for the next.
 */
struct grow_queue {
	struct lease *ls;
	const char *xattr; /* XATTR_SIZE or XATTR_RESERVED */
	bool ahead;	   /* the mark: an update goes far past what its waiters need */
	int flags;	   /* librados flags of its updates */
	uint64_t known;	   /* a lower bound of the stored value while the lock is held */
	struct grow_update updates[GROW_UPDATES_IN_FLIGHT];
	struct size_group next;
};

struct lease {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	rados_ioctx_t io;
	const char *oid; /* the head object's name */
	char cookie[COOKIE_MAX];
	uint64_t idle_ns;    /* let go after this long without a call */
	uint64_t epoch;	     /* bumped by every acquisition */
	bool held;	     /* taken and not let go of */
	bool lost;	     /* the watch broke while held: the lock may have been broken */
	bool acquiring;	     /* a submitter is taking it back */
	bool releasing;	     /* the idler is letting go of it */
	bool release_wanted; /* another client asked for it: let go once no call is in flight */
	bool reacquire_wanted; /* a NOWAIT call was refused: the idler takes it back */
	uint64_t handed_over_ns; /* when it was last let go of on request (0: not) */
	bool stale;	     /* the file was removed (or re-created): every call fails */
	bool unleased;	     /* opened by a client that may not write: no lock, reads only */
	rados_ioctx_t wio;   /* the watch's I/O context (head_watch_ioctx) */
	bool watching;	     /* watch_handle is a watch on the head */
	bool watch_broken;   /* its error callback ran: watch again before the next lock */
	uint64_t watch_handle;
	uint64_t active;     /* calls in flight: the lock is kept while > 0 */
	uint64_t used_ns;    /* when the last call began or ended */
	uint64_t granted_ns; /* when the lock was last taken */
	uint64_t id;
	struct striped_layout layout;
	/* size.c */
	struct grow_queue size; /* striper.size */
	struct grow_queue mark; /* striper.reserved: no data lies past max(size, mark) */
	/* regions.c */
	uint64_t *regions;   /* regions known registered, sorted */
	size_t nregions;
	/* Called (from a watch callback: it must not wait) when another client asks for the lock. */
	void (*asked)(void *arg);
	void *asked_arg;
	struct lease *next;  /* the idler's list */
	unsigned refs;	     /* the file's: its user, its calls, a release in flight */
	void (*release)(struct lease *ls); /* frees the file once refs fall to 0 */
};

int lease_open(struct lease *ls, rados_ioctx_t io, const char *oid, int flags,
	       const struct striped_layout *create_layout, void (*release)(struct lease *));
void lease_release(struct lease *ls, bool wait);
void lease_stop(struct lease *ls);
void lease_close(struct lease *ls);
void lease_get(struct lease *ls);
void lease_put(struct lease *ls);
void lease_set_idle(struct lease *ls, uint32_t seconds);
/*
 * lease_enter's flags: refuse rather than wait; the call changes the file;
 * enter while the lock is being asked for (a buffered handle's write-behind,
 * sent before it lets go).
 */
#define LEASE_NOWAIT 0x1
#define LEASE_CHANGES 0x2
#define LEASE_DRAIN 0x4
int lease_enter(struct lease *ls, unsigned flags, uint64_t *epoch);
uint64_t lease_granted_ns(struct lease *ls);
int lease_confirm(struct lease *ls);
void lease_exit(struct lease *ls);
bool lease_covered(struct lease *ls, uint64_t epoch);
int lease_reacquire(struct lease *ls);
bool lease_cookie_open(const char *cookie);

/* ---- size.c: the size a handle knows, and the stored size's updates ---- */

void size_init(struct lease *ls);
uint64_t size_known(struct lease *ls);
void size_learn(struct lease *ls, uint64_t size);
/* Before data past the mark is sent: the mark is raised ahead of end (meta_mark_target). */
bool mark_covers(struct lease *ls, uint64_t end);
int mark_grow(struct lease *ls, uint64_t end);
void mark_grow_async(struct lease *ls, struct size_waiter *w);
/* Beside a growing write's data: the size is raised to w->want. */
void size_grow_async(struct lease *ls, struct size_waiter *w);
/* w's data was refused for want of space (reason): its size update must not land. */
void size_grow_cancel(struct lease *ls, struct size_waiter *w, int reason);
int size_append_reserve(struct lease *ls, uint64_t len, uint64_t *off);

/* ---- regions.c: objects far out in a file, registered on the head ---- */

int regions_register(struct lease *ls, const struct striped_layout *l, uint64_t off, uint64_t len,
		     bool nowait);

/* ---- handover.c: asking holders to let go, fencing those that do not answer ---- */

/* Take the lock req describes, asking the holders to let go and fencing a silent one. */
int handover_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req);

/* ---- excl.c: an exclusive section (truncate, remove): the lock, renewed while it lasts ---- */

struct excl {
	rados_ioctx_t io;
	const char *oid;
	char cookie[COOKIE_MAX];
	uint64_t granted_ns;
	bool lost;
};

int excl_begin(struct excl *x, rados_ioctx_t io, const char *oid);
int excl_keep(void *excl);
void excl_end(struct excl *x);
int excl_set_size(struct excl *x, uint64_t old, uint64_t size);
int excl_remove_head(struct excl *x);

/* ---- io.c: the engine ---- */

/* What the engine needs of an open file: it never calls back into file.c. */
struct io_target {
	rados_ioctx_t io;
	const char *name;
	const char *head_oid;
	const struct striped_layout *layout;
	struct striped_throttle *throttle;
	struct io_account *account;
	struct lease *lease;
	call_release_fn release; /* after the call's callback: the file lets go of it */
	void *owner;
	uint64_t tag; /* given back to release: the call's flush generation */
	/*
	 * The client has an op timeout: a write that timed out may still be
	 * read by the messenger after it completed, so writes always copy.
	 */
	bool always_copy;
	/* Write-behind of a buffered handle: enters the lease with LEASE_DRAIN. */
	bool drain;
};

/* STRIPED_IO_* flags the engine knows. */
int io_start_write(const struct io_target *t, struct striped_completion *c, const char *buf,
		   size_t len, uint64_t off, int flags);
int io_start_read(const struct io_target *t, struct striped_completion *c, char *buf,
		  size_t len, uint64_t off, int flags);
/* Discard [off, off + len): whole objects removed, the rest zeroed, nothing created. */
int io_start_discard(const struct io_target *t, struct striped_completion *c, uint64_t len,
		     uint64_t off, int flags);
/* Vectored: len is the segments' total; the iovec array is copied. */
int io_start_writev(const struct io_target *t, struct striped_completion *c,
		    const struct iovec *iov, int iovcnt, uint64_t len, uint64_t off, int flags);
int io_start_readv(const struct io_target *t, struct striped_completion *c,
		   const struct iovec *iov, int iovcnt, uint64_t len, uint64_t off, int flags);
/* A read whose bytes go to sink as librados received them, not into memory of the caller. */
int io_start_read_kept(const struct io_target *t, struct striped_completion *c,
		       struct read_sink *sink, uint64_t len, uint64_t off, int flags);
int io_start_stat(const struct io_target *t, struct striped_completion *c, uint64_t *size);
/* Cleanup operations kept in flight by truncate and remove. */
#define CLEAN_OPS_IN_FLIGHT 64
/* Called between cleanup operations; a non-zero return stops the cleanup with that error. */
typedef int (*clean_keep_fn)(void *arg);
/* Which objects exist comes from the head (m): its regions, or for a file
 * libradosstriper made (no striper.id, no regions), every object up to upto;
 * and the `nlisted` objects of `listed`, found by listing the pool, besides. */
int io_clean_objects(rados_ioctx_t io, const char *name, const struct striped_layout *l,
		     uint64_t keep, uint64_t upto, const struct head_meta *m,
		     const uint64_t *listed, size_t nlisted, clean_keep_fn keep_fn, void *keep_arg);

/* ---- buffer.c: the buffered mode (STRIPED_BUFFERED) ---- */

struct buffer;
/* An internal call flag: write-behind, sent while the lock is being handed over. */
#define IO_INTERNAL_DRAIN (1 << 30)

int buffer_check_config(const struct striped_buffer_config *in, size_t cfg_size,
			struct striped_buffer_config *out);
int buffer_open(struct striped_file *f);
int buffer_configure(struct buffer *b, const struct striped_buffer_config *cfg);
int buffer_drain(struct buffer *b);
int buffer_settle(struct buffer *b, uint64_t off, uint64_t len, bool nowait);
int buffer_close(struct buffer *b);
void buffer_close_deferred(struct buffer *b);
void buffer_free(struct buffer *b);
ssize_t buffer_write(struct buffer *b, const struct io_mem *m, uint64_t len, uint64_t off,
		     int flags);
ssize_t buffer_read(struct buffer *b, const struct io_mem *m, uint64_t len, uint64_t off);
int buffer_aio_read(struct buffer *b, struct striped_completion *c, const struct io_mem *m,
		    uint64_t len, uint64_t off, int flags);
int buffer_aio_flush(struct buffer *b, struct striped_completion *c);
uint64_t buffer_size_view(struct buffer *b, uint64_t stored);

/* ---- the open file ---- */

/* Start one call of the file through the engine (file.c): what start_call runs. */
typedef int (*file_start_fn)(const struct io_target *t, struct striped_completion *c, char *buf,
			     size_t len, uint64_t off, int flags);
/* A call of the file: the gate, the flush generation, the file kept open until it ends. */
int file_start_call(struct striped_file *f, file_start_fn start, struct striped_completion *c,
		    char *buf, size_t len, uint64_t off, int flags);
/* c (started) completes once every call of f begun before it has ended. */
void file_flush_barrier(struct striped_file *f, struct striped_completion *c);

/* file.c: what open and remove refuse before any round trip (meta_aio.c checks first). */
/* file.c: what open refuses before any round trip (meta_aio.c checks first). */
int file_check_open(rados_ioctx_t io, const char *name, int flags,
		    const struct striped_layout *layout, struct striped_file **out);
/* What every call by name refuses before any round trip: a NULL io, a bad name. */
int file_check_name(rados_ioctx_t io, const char *name);
/* A call by name: file_check_name(), then *oid is its head object's name (free() it). */
int file_name_oid(rados_ioctx_t io, const char *name, char **oid);

struct striped_file {
	rados_ioctx_t io;
	char *name;
	char *head_oid;
	struct striped_layout layout;
	bool aligned_appends_only;
	uint64_t objecter_ops_limit, objecter_bytes_limit;

	struct lease lease;
	struct striped_throttle throttle;
	struct io_target target; /* what the engine gets for this file's calls */

	/* Calls in flight, so close can wait for them; guarded by calls_lock. */
	pthread_mutex_t calls_lock;
	pthread_cond_t calls_cond;
	uint64_t calls_in_flight;
	struct flush_gens gens; /* the same calls, for striped_aio_flush() */
	bool gate_closed;    /* the handle's own truncate runs: new calls wait */
	bool close_deferred; /* closed from a callback: freed by the last call's end */

	struct io_account account;
	struct buffer *buf; /* STRIPED_BUFFERED: the window; NULL otherwise */
};

#endif /* STRIPED_I_H */
