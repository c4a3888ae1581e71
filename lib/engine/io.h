/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine as the handle (modes/) sees it, with calls.h: an open file's
 * part below the modes (struct io_file, io_file.c), the requests the
 * handle's calls make of it (io.c: one RADOS operation per object and MiB
 * of it, all sent before any is waited for), the head's round trips made
 * as calls of the handle (io_head.c), truncate and remove (io_truncate.c),
 * and the lease taken for a call the mode answers itself. It knows no mode
 * and no window, and calls nothing above it.
 */
#ifndef STRIPED_IO_H
#define STRIPED_IO_H

#include "completion.h"
#include "iov.h"

struct head_meta;
struct striped_xattrs;
struct io_file;

/*
 * The handle's references: taken while the engine works for the handle on
 * its own (a call in flight, the lease's idler); the last drop frees the
 * handle, the io_file with it (io_file_free()).
 */
struct io_owner {
	void (*hold)(void *arg);
	void (*drop)(void *arg);
	void *arg;
};

/* What one call of the engine does: a request of the handle's, or a cleanup of the engine's. */
enum io_op { IO_WRITE, IO_READ, IO_DISCARD, IO_STAT, IO_CLEAN };

struct io_req {
	enum io_op op; /* IO_WRITE, IO_READ, IO_DISCARD or IO_STAT */
	/* IO_WRITE, IO_READ: the caller's memory (len bytes), taken over by the call */
	struct io_mem *mem;
	uint64_t len, off;
	int flags; /* STRIPED_IO_* */
	/*
	 * Part of handing the lock over: what must land before it goes to the
	 * client that asked. It enters while the lock is asked for, as long as
	 * it is still held.
	 */
	bool handover;
	uint64_t *size; /* IO_STAT: where the stored size goes */
};

/* ---- io_file.c: an open file's part below the modes ---- */

/*
 * Open (or create) file name: the lease taken, the head read. layout is a
 * new file's (NULL: the default, cut to an erasure-coded pool's stripes).
 * *out is the owner's until io_file_free().
 */
int io_file_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
		 const struct io_owner *owner, struct io_file **out);
/* Close: every call ended, then the lock and the watch let go of, both waited for. */
/*
 * Others may truncate or remove once it returns. When the cluster did not
 * answer since timeouts_seen (io_file_timeouts()), the lock and the watch are
 * let go of without waiting: close takes the op timeout once, not twice.
 */
void io_file_close(struct io_file *f, uint64_t timeouts_seen);
/* Operations and round trips of the handle that timed out (the cluster did not answer). */
uint64_t io_file_timeouts(struct io_file *f);
/* Close from a completion callback: nothing waited for; the lock goes with io_file_free(). */
void io_file_stop(struct io_file *f);
/* The owner's last reference is gone: everything goes. */
void io_file_free(struct io_file *f);
const struct striped_layout *io_file_layout(const struct io_file *f);
/* striped_file_set_throttle(): clamped to 3/4 of the client's own budget. */
void io_file_set_throttle(struct io_file *f, uint32_t max_ops, uint64_t max_bytes);
uint64_t io_file_max_bytes(struct io_file *f);
void io_file_set_idle(struct io_file *f, uint32_t seconds);
void io_file_stats(struct io_file *f, struct striped_io_stats *st);
void io_file_latency(struct io_file *f, struct striped_latency *lat);
/* asked(arg), from a watch callback (it must not wait), when another client asks for the lock. */
void io_file_on_asked(struct io_file *f, void (*asked)(void *arg), void *arg);
/* Whether the file's pool takes only aligned appends (erasure coded without overwrites). */
bool io_file_appends_only(const struct io_file *f);
/* The size as the handle knows it (a lower bound while it holds the lock). */
uint64_t io_file_size_known(struct io_file *f);

/*
 * A call the mode answers itself (from its window) runs under the lease as
 * an engine call does: io_file_enter(), then io_file_exit(). With nowait,
 * -EAGAIN rather than take the lock back; a change of a file opened without
 * a lock, -EPERM. *epoch: the lease it runs under.
 */
int io_file_enter(struct io_file *f, bool changes, bool nowait, uint64_t *epoch);
void io_file_exit(struct io_file *f);
/* When the lock was last taken. */
uint64_t io_file_granted_ns(struct io_file *f);
/* One round trip: is the lock still ours, and this client not fenced? (-ESTALE if not) */
int io_file_confirm(struct io_file *f);

/* ---- io_head.c: round trips on the head, each a call of the handle ---- */

/* The stored size and the head's mtime (st->layout is left alone). */
int io_fstat(struct io_file *f, struct striped_stat *st);
int io_setxattr(struct io_file *f, const char *name, const void *value, size_t len);
ssize_t io_getxattr(struct io_file *f, const char *name, void *value, size_t len);
int io_rmxattr(struct io_file *f, const char *name);
int io_getxattrs(struct io_file *f, struct striped_xattrs **out);
/*
 * Claim [*off, *off + len) at the end of the file for an append: the size
 * moves by len in one compare-and-set (on a pool that takes only aligned
 * appends, only if the pool would take the write there).
 */
int io_append_claim(struct io_file *f, uint64_t len, uint64_t *off);

/* ---- io_truncate.c: truncate, and remove by name ---- */

/*
 * Under the exclusive lock, with the handle's own calls held
 * (calls_gate_close()); -ETIMEDOUT at once if io_file_timeouts() moved past
 * timeouts_seen while it waited for them.
 */
int io_truncate(struct io_file *f, uint64_t size, uint64_t timeouts_seen);
int io_remove(rados_ioctx_t io, const char *name);

/* ---- io_repair.c: a file's orphans removed (striped_repair()) ---- */

int io_repair(rados_ioctx_t io, const char *name, const uint64_t *objectnos, size_t n);

/* ---- io_clean.c: cleanup ---- */

/*
 * Cleanup operations (truncate, remove, repair) kept in flight: a file's
 * all at once, as libradosstriper's remove sends them, up to what librados
 * takes without blocking: 3/4 of the client's objecter_inflight_ops, as a
 * file's throttle is clamped (768 by default).
 */
uint32_t io_clean_window(rados_ioctx_t io);
/* Called between cleanup operations; a non-zero return stops the cleanup with that error. */
typedef int (*clean_keep_fn)(void *arg);
/* Which objects exist comes from the head (m): its regions, or for a file
 * libradosstriper made (no striper.id, no regions), every object up to upto;
 * and the `nlisted` objects of `listed`, found by listing the pool, besides.
 * head_goes (a remove, keep 0): the head object is left as it is, for the
 * caller deletes it next. */
int io_clean_objects(rados_ioctx_t io, const char *name, const struct striped_layout *l,
		     uint64_t keep, uint64_t upto, const struct head_meta *m,
		     const uint64_t *listed, size_t nlisted, clean_keep_fn keep_fn, void *keep_arg,
		     bool head_goes);

#endif /* STRIPED_IO_H */
