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

/* ---- completion.c: aggregation of one call's parts (pure, no librados) ---- */

/*
 * Run once when the last part of a call has finished, before the user's
 * callback: turns the parts' outcome into the call's result.
 */
typedef ssize_t (*call_finish_fn)(struct striped_completion *c, int first_error);
/* Run last, after the callback and the waiters: the owner of the call lets go of it. */
typedef void (*call_release_fn)(void *owner, const struct striped_io_stats *stats);

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

	uint64_t in_flight;
	struct striped_io_stats stats;
	uint64_t start_ns;
};

uint64_t striped_now_ns(void);
int completion_start(struct striped_completion *c, call_finish_fn finish, void *call,
		     call_release_fn release, void *owner);
void completion_part_begin(struct striped_completion *c);
void completion_part_landed(struct striped_completion *c);
void completion_part_end(struct striped_completion *c, int result);
void completion_submit_end(struct striped_completion *c, int error);
void completion_add_throttle_wait(struct striped_completion *c);

/* ---- throttle.c: bound operations and bytes in flight (pure) ---- */

struct striped_throttle {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t max_ops, max_bytes;
	uint64_t ops, bytes;
};

int throttle_init(struct striped_throttle *t, uint64_t max_ops, uint64_t max_bytes);
void throttle_destroy(struct striped_throttle *t);
void throttle_set(struct striped_throttle *t, uint64_t max_ops, uint64_t max_bytes);
bool throttle_try_get(struct striped_throttle *t, uint64_t bytes);
void throttle_get(struct striped_throttle *t, uint64_t bytes);
void throttle_put(struct striped_throttle *t, uint64_t bytes);

/*
 * Writes on a full cluster or pool fail with -ENOSPC or -EDQUOT instead of
 * waiting for space forever (librados' default), and deletes still go
 * through, so a full cluster can be cleaned up with striped_remove().
 */
#define STRIPED_WRITE_FLAGS LIBRADOS_OPERATION_FULL_TRY

/* ---- meta.c: head-object xattrs and names (pure) ---- */

#define XATTR_STRIPE_UNIT "striper.layout.stripe_unit"
#define XATTR_STRIPE_COUNT "striper.layout.stripe_count"
#define XATTR_OBJECT_SIZE "striper.layout.object_size"
#define XATTR_SIZE "striper.size"
#define STRIPER_LOCK_NAME "striper.lock"

/* Longest decimal uint64 plus NUL. */
#define DECIMAL_MAX 21
/* ".%016llx" */
#define OBJECT_SUFFIX_LEN 17

int meta_parse_u64(const char *s, size_t len, uint64_t *out);
int meta_format_u64(uint64_t v, char buf[DECIMAL_MAX]);
ssize_t meta_encode_lock(char *buf, size_t cap, const char *name, const char *cookie,
			 const char *description, uint32_t seconds);
ssize_t meta_encode_unlock(char *buf, size_t cap, const char *name, const char *cookie);

/* ---- size_cas.cc: the one place that needs librados' C++ API ---- */

/*
 * Send "striper.size = want if want > striper.size (as numbers)" on oid,
 * completing c with 0, or -ECANCELED when the stored size is already >= want.
 * The C API compares xattrs only as strings, which orders "9" after "10".
 */
int size_cas_send(rados_ioctx_t io, const char *oid, rados_completion_t c, uint64_t want,
		  int flags);

/* ---- the open file ---- */

struct striped_file {
	rados_ioctx_t io;
	char *name;
	size_t name_len;
	struct striped_layout layout;
	bool aligned_appends_only;
	uint64_t objecter_ops_limit, objecter_bytes_limit;

	/* Size this client knows the file has at least (it may have grown). */
	pthread_mutex_t size_lock;
	uint64_t known_size;

	struct striped_throttle throttle;

	/* Calls in flight, so close can wait for them. */
	pthread_mutex_t calls_lock;
	pthread_cond_t calls_cond;
	uint64_t calls_in_flight;

	/* File statistics; guarded by calls_lock. */
	struct striped_io_stats stats;
	uint64_t ops_in_flight;
};

/* file.c */
void file_call_begin(struct striped_file *f);
void file_account_call(struct striped_file *f, const struct striped_io_stats *call);
void file_call_end(void *file, const struct striped_io_stats *call);
void file_note_op_begin(struct striped_file *f);
void file_note_op_end(struct striped_file *f);
void file_learn_size(struct striped_file *f, uint64_t size);
void file_set_size(struct striped_file *f, uint64_t size);
uint64_t file_known_size(struct striped_file *f);
int object_name_into(const struct striped_file *f, uint64_t objectno, char *buf, size_t len);

/* io.c */
int io_start_write(struct striped_file *f, struct striped_completion *c, const char *buf,
		   size_t len, uint64_t off);
int io_start_read(struct striped_file *f, struct striped_completion *c, char *buf, size_t len,
		  uint64_t off);
int io_start_stat(struct striped_file *f, struct striped_completion *c, uint64_t *size);
/* Cleanup operations kept in flight by truncate and remove. */
#define CLEAN_OPS_IN_FLIGHT 64
/* Past this many candidate objects, cleanup lists the pool instead of walking. */
#define CLEAN_WALK_MAX (1u << 16)
int io_clean_objects(rados_ioctx_t io, const char *name, const struct striped_layout *l,
		     uint64_t keep, uint64_t upto);

#endif /* STRIPED_I_H */
