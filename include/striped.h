/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libstriped: one logical file striped over many RADOS objects, with every
 * object request of a call in flight at once. An object's share of a read
 * or write goes as requests of at most 1 MiB, cut at each MiB of the object
 * (the OSD works on the first while the next still arrive): a 4 MiB write
 * over 4 MiB objects is 4 requests, a discard one per object, and one per
 * object under a throttle of one operation (striped_file_set_throttle()),
 * cut only at each 64 MiB of larger objects (an OSD refuses bigger writes).
 *
 * Conventions (as in librados and liburing):
 * - every function returning int or ssize_t returns >= 0 on success and a
 *   negative errno on failure; librados error codes pass through unchanged;
 *   nothing is reported through errno;
 * - constructors return int and fill an out-pointer; destructors return void
 *   and accept NULL;
 * - handles are opaque; a handle may be used from many threads at once unless
 *   a function says otherwise.
 *
 * On-RADOS format (shared with libradosstriper): object number N of file
 * NAME is the RADOS object "NAME.%016llx"; object 0 (the head) carries the
 * xattrs striper.layout.stripe_unit, striper.layout.stripe_count,
 * striper.layout.object_size and striper.size, each ASCII decimal, and the
 * cls lock "striper.lock". libstriped adds striper.id (ASCII decimal, a
 * random number given at creation, so a file removed and created again is
 * told apart; files made by libradosstriper have none).
 *
 * Shared files: the contract. Any number of handles, in any processes and
 * on any hosts, of libstriped or libradosstriper, may use one file:
 * - A call that returns success had its full effect: a fresh client sees
 *   its bytes and the size it implies. Otherwise it returns an error.
 * - Calls in flight together are not ordered (as POSIX aio and io_uring):
 *   of two that touch the same bytes, start the one that must land last
 *   once the other completed.
 * - A write is not atomic, not even within one object: it lands as RADOS
 *   operations of at most 1 MiB (see above), so a read in flight beside it,
 *   or a crash in the middle, may see some of its MiB pieces and not others.
 * - Reads and writes hold the file's lock shared (libradosstriper's lock,
 *   with its tag, so the two libraries exclude each other); truncate and
 *   remove hold it exclusive for their whole duration, and their last step
 *   checks they still hold it; the remove of a file whose bytes all lie in
 *   its head and whose lock no one holds (since 0.7.1) takes no lock: the head
 *   goes in one operation that checks nothing changed since it was read,
 *   the lock included. A read by name without a handle
 *   (striped_head_pread(), since 0.7) holds no lock: it is one operation on
 *   the head, which fails with -EBUSY while the lock is held exclusive. A
 *   file made whole by name (striped_head_create(), since 0.8) takes no
 *   lock either: the operation that creates its head carries its bytes, and
 *   no one can hold the lock of a file that is not there yet; nor does one
 *   removed as it was read (striped_head_remove(), since 0.8): its one
 *   operation checks the head's metadata is unchanged (layout, size, mark,
 *   id; not the bytes) and its lock held by no one.
 * - A handle takes the lock at open, with no expiry, and watches the head
 *   object while it is open. Truncate and remove by any libstriped handle
 *   ask the holders to let go (notify): an idle holder lets go at once, a
 *   busy one as soon as its calls in flight have completed, and takes the
 *   lock back for its next call (one round trip), learning the new size.
 *   Its new calls wait meanwhile. A handle with no call in flight also lets
 *   go by itself after one idle second (striped_file_set_lease()), so
 *   libradosstriper's truncate and remove, which cannot ask, wait that long
 *   at most.
 * - A holder that does not answer (dead, stopped, cut off) is fenced before
 *   its lock is broken: its client address is blocklisted (as librbd does),
 *   the breaker waits for the OSD map that carries the blocklist, then breaks
 *   the lock. OSDs refuse everything the fenced client sends afterwards,
 *   queued writes included: its calls fail with -EBLOCKLISTED (-ESHUTDOWN),
 *   and the application must shut its cluster handle down and connect again
 *   (as with librbd). Fencing needs the `osd blocklist` capability (Ceph's
 *   `profile rbd` has it); without it, truncate and remove fail with -EACCES
 *   and change nothing. Breaking without fencing is an explicit opt-in
 *   (striped_cluster_set_lock_break()).
 * - A blocklist fences an address, and every client that has it. Before
 *   fencing, the breaker compares the holder's address with its own and
 *   with those of the other clients that hold the lock or watch the head
 *   (one that answered the notify is alive). If another client has it
 *   (processes forked after librados was used and connected with
 *   rados_connect(): see striped_cluster_connect()), nothing is
 *   blocklisted nor broken: truncate and remove fail with -ENOTUNIQ ("name
 *   not unique on network": not -EADDRINUSE, which says a local bind failed,
 *   and no errno librados or an OSD returns), and change nothing. Reconnect
 *   the clients with striped_cluster_connect(), or stop those sharing the
 *   address (a fenced one is then fenced alone), or opt in to breaking
 *   without fencing.
 * - A lock let go of and taken back is a new lock, never one held all
 *   along: a call with an operation in flight while the lock was not held,
 *   or while the handle's watch was broken (notifies may have been missed),
 *   returns -ESTALE, never success.
 * - If the file was removed, or removed and created again, while the handle
 *   did not hold the lock, its next call fails with -ESTALE (and so does
 *   every later one: open the file again). If it was truncated, the handle
 *   learns the new size and goes on.
 * - Names (since 0.9): on a pool (namespace) with a namespace index
 *   (striped_index_create()), a libstriped create that returned success is
 *   listed, and a file whose libstriped remove returned success is not,
 *   for every client from then on; a file libradosstriper makes is not
 *   listed until striped_index_check() mends the index, nor may be one
 *   whose creating client died between sending its entry and its head
 *   (striped_index_check() finds it). Without an index, listings walk the
 *   pool and show both libraries' files.
 * - Files held for write-back (since 0.9, striped_head_take()): a file
 *   another client made and holds unwritten is written back before any
 *   libstriped open or read by name of it returns (the reader asks the
 *   holder and waits for it, up to 5 s); a holder that does not answer
 *   loses the file, which then reads as RADOS has it (empty), and its
 *   late write-back is refused. Listings, libradosstriper and a holder's
 *   own reads see what RADOS has. See "Files made now and written later".
 * - libradosstriper's own locks never expire and its clients do not watch:
 *   they are waited for (a few seconds, then -EBUSY), never fenced; a crashed
 *   libradosstriper client leaves its file locked until the lock is broken
 *   (striped_lock_break(), `striped lock break`, or `striped rm --force`,
 *   which fence it first).
 * - A write that grows the file sends the new size beside its data, not
 *   before it (libradosstriper stores the size first), and returns once
 *   both are stored. Each size update is a compare-and-set that only
 *   raises the stored size, so updates landing in any order never move it
 *   back. A write the pool refuses for want of space leaves the size as it
 *   was.
 * - The head's high-water mark (xattr striper.reserved) bounds the bytes:
 *   no object of the file holds a byte past max(size, mark). A growing
 *   write raises the mark before it sends data past it, far ahead (4 MiB,
 *   then as much again as the file holds, at most 256 MiB a raise), so
 *   that round trip is rare. A new file's mark starts at its first stripe
 *   unit (since 0.6), whose bytes live in the head object: a small file's
 *   first write sends only its data and size.
 * - Bytes past the size come only from calls that failed, or were in
 *   flight when their client crashed; a call that returned success leaves
 *   none. They are never read (reads stop at the size). Truncate and
 *   remove clean every object up to the mark, by name (the pool is never
 *   listed), so bytes of a file's earlier life never show; until then, a
 *   later write past them shows them at the offsets they were written to,
 *   as the size-first order would have shown them at once. Below the size,
 *   a client killed during a write leaves what completed writes wrote,
 *   what the interrupted write was writing, or zeros.
 * - libradosstriper knows nothing of the mark: its truncate and remove
 *   (and `rados --striper rm`) clean up to the size only, so after a
 *   libstriped call failed or its client crashed, objects past the size
 *   can outlive them; striped_remove() or striped_truncate() cleans them.
 * - No operation creates a head object as a side effect: every lock request
 *   asserts the head exists and is a striped file.
 * - With an op timeout (striped_cluster_set_op_timeout(), or ceph.conf's
 *   rados_osd_op_timeout and rados_mon_op_timeout), no call waits on a
 *   cluster that does not answer longer than the timeout and 1 s: it
 *   returns -ETIMEDOUT, also when what it waited for was another call's
 *   round trip (see there). Until then, librados waits for ever.
 * - The lock is a class method (cls_lock): a key needs osd 'allow rwx' on
 *   the pool (and namespace), or class access besides 'rw', to change a
 *   file. A client that cannot lock (no w, or no x) opens the file without a
 *   lock and reads it (its reads are not excluded from a truncate by
 *   others); every change (write, discard, append, truncate, remove, xattrs)
 *   fails with -EPERM, refused by the library when the OSD would let it
 *   through: a change without the lock would not be excluded either.
 *
 * Erasure-coded pools. A new file's default layout puts its stripe units
 * on whole stripes of the pool (a multiple of 64 KiB and of the pool's
 * stripe width, at most 4 MiB where one fits), and a call's operations are
 * cut on stripe boundaries, so that no write starts inside a stripe. A pool
 * without allow_ec_overwrites takes a write on an object only at the
 * object's end and at a multiple of its stripe width (the last write of a
 * file may end anywhere): files written front to back, in pieces that are
 * multiples of the stripe width, fit, as `rados --striper put` and XRootD
 * write them. There every write such a pool takes is taken, also many in
 * flight together (a handle sends the operations of its calls in the order
 * the calls were made, and learns where objects end from the cluster, once,
 * then from its own writes); every other write, and anything else such a
 * pool cannot do, fails with -EOPNOTSUPP (the pool's own error, as
 * libradosstriper gets it) before any byte of it is sent, the size
 * unchanged: an overwrite, a write behind an object's end, a write at an
 * offset not a multiple of the stripe width, a truncate that would cut an
 * object (a truncate that only removes whole objects, or to 0, is done: the
 * head object is rewritten empty), a discard of part of an object or of the
 * head, and an append to a file whose size is not a multiple of the stripe
 * width. striped_write_full() there empties the file, then writes it.
 */
#ifndef STRIPED_H
#define STRIPED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include <rados/librados.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRIPED_VERSION_MAJOR 0
#define STRIPED_VERSION_MINOR 9
#define STRIPED_VERSION_PATCH 0

/**
 * Run-time version of the library (compare with STRIPED_VERSION_*).
 * @param major, minor, patch  filled when not NULL
 * @return the version as a static string, e.g. "0.1.0"
 */
const char *striped_version(int *major, int *minor, int *patch);

/* ------------------------------------------------------------------------ */
/* Layout and mapping: pure arithmetic, no cluster needed.                  */

/*
 * How a file is cut into objects, with Ceph's semantics: the file is dealt
 * out in stripe_unit blocks round-robin over stripe_count objects (an
 * "object set"); once each object of the set holds object_size bytes the
 * next object set begins.
 */
struct striped_layout {
	uint64_t stripe_unit;
	uint64_t stripe_count;
	uint64_t object_size;
};

/* libradosstriper's default layout: 4 MiB units, 1 object per set, 4 MiB objects. */
#define STRIPED_LAYOUT_DEFAULT_INIT                                                                \
	{                                                                                          \
		4194304, 1, 4194304                                                                \
	}

/* A run of bytes contiguous both in the file and in object objectno. */
struct striped_extent {
	uint64_t objectno;      /* object number (0 is the head object) */
	uint64_t offset;        /* byte offset inside the object */
	uint64_t length;        /* bytes */
	uint64_t buffer_offset; /* where the run starts, counted from the mapped offset */
};

/**
 * Check a layout against Ceph's rules.
 * stripe_unit > 0 and a multiple of 64 KiB; object_size > 0, a multiple of
 * 64 KiB and of stripe_unit; stripe_count > 0. Ceph stores each field in 32
 * bits, so each must also be below 2^32.
 * @param layout the layout (NULL is invalid)
 * @return 0 if valid, -EINVAL otherwise
 */
int striped_layout_validate(const struct striped_layout *layout);

/**
 * Map the file range [off, off + len) onto object extents, in file order.
 * Consecutive pieces that continue in the same object are merged.
 * @param layout a valid layout
 * @param off    first byte of the range
 * @param len    bytes in the range (0 gives no extent)
 * @param ext    array filled with up to max extents (may be NULL when max is 0)
 * @param max    capacity of ext
 * @return how many extents the whole range needs, even when more than max
 *         (only the first max are filled); -EINVAL for a bad layout or a
 *         NULL ext with max > 0; -EOVERFLOW when off + len exceeds 2^64 - 1
 */
ssize_t striped_layout_map(const struct striped_layout *layout, uint64_t off, uint64_t len,
			   struct striped_extent *ext, size_t max);

/**
 * Reverse mapping: the file offset of byte obj_off of object objectno.
 * @param file_off filled with the file offset
 * @return 0; -EINVAL for a bad layout, NULL file_off or obj_off >= object_size;
 *         -EOVERFLOW when the file offset does not fit in 64 bits
 */
int striped_layout_unmap(const struct striped_layout *layout, uint64_t objectno, uint64_t obj_off,
			 uint64_t *file_off);

/**
 * How many objects a file of file_size bytes spans: objects 0 .. count - 1
 * may hold data (some may be short or missing, which reads as zeros).
 * @param count filled with the number of objects
 * @return 0; -EINVAL for a bad layout or NULL count
 */
int striped_layout_object_count(const struct striped_layout *layout, uint64_t file_size,
				uint64_t *count);

/**
 * The size object objectno has once the file is truncated to file_size
 * (Ceph's object_truncate_size): 0 for objects past the end.
 * @param obj_size filled with the object's size in bytes
 * @return 0; -EINVAL for a bad layout or NULL obj_size
 */
int striped_layout_object_size(const struct striped_layout *layout, uint64_t objectno,
			       uint64_t file_size, uint64_t *obj_size);

/**
 * The RADOS object name of object objectno of file name ("name.%016llx").
 * @param buf receives the NUL-terminated name when len is large enough
 * @return the name's length without the NUL (as snprintf), or -EINVAL for a
 *         NULL name; when the result is >= len, buf holds nothing useful
 */
int striped_object_name(const char *name, uint64_t objectno, char *buf, size_t len);

/**
 * Split a RADOS object name into its file's name and object number: the
 * inverse of striped_object_name(), for telling a file's objects from the
 * rest of a pool's listing. oid must be "NAME.%016llx": a name of one byte
 * at least, a dot, then exactly 16 lowercase hex digits.
 * @param oid the object's name (NUL-terminated)
 * @param objectno filled with the object number; left alone on failure
 * @return the length of the file's name (oid's first bytes); -EINVAL when
 *         oid is no such name (any other object of a pool), or for NULL
 *         arguments
 */
ssize_t striped_object_name_split(const char *oid, uint64_t *objectno);

/**
 * Make RADOS operations of this cluster handle fail with -ETIMEDOUT after
 * `seconds` instead of waiting forever (a paused or unreachable cluster):
 * sets librados' rados_osd_op_timeout and rados_mon_op_timeout. Call it
 * before rados_connect(); it applies to every file opened through the handle.
 * librados takes whole seconds only. The same two settings in the [client]
 * section of ceph.conf (or CEPH_ARGS="--rados_osd_op_timeout=N
 * --rados_mon_op_timeout=N") do the same for any handle that reads them.
 *
 * With it, every call that waits on the cluster returns within the timeout
 * and 1 s when the OSDs of its file's placement groups do not answer, with
 * -ETIMEDOUT (striped_close(), which returns nothing, returns as soon): not
 * only its own RADOS operations time out, but also its waits for others'.
 * A call that waits for another call's lock round trip (taking the lock
 * back, the idler letting go of it), for the file's throttle behind
 * operations in flight, or for the handle's own truncate, fails with
 * -ETIMEDOUT as soon as what it waits for timed out, instead of starting
 * its own operations then and waiting the timeout once more; a truncate
 * whose wait for the handle's calls in flight saw one time out does the
 * same. Such a call sent nothing, or what it sent may or may not have
 * landed (as for any -ETIMEDOUT). Close does not wait to let go of the lock
 * and the watch when the cluster did not answer while it waited (its
 * window, its calls, a lock round trip timed out): the unlock goes out and
 * the lock is gone once an OSD takes it; until then other clients' truncate
 * and remove fence this client, and its own break that lock at once.
 * Measured by tests/faults/test_timeouts.c, every OSD stopped (SIGSTOP), each kind
 * of call in a thread of its own and several sharing one handle.
 * @param cluster a created, not yet connected cluster handle
 * @param seconds > 0; 0 restores waiting forever
 * @return 0; -EINVAL for a NULL handle; librados errors from rados_conf_set()
 */
int striped_cluster_set_op_timeout(rados_t cluster, unsigned int seconds);

/* What truncate and remove may do to the lock of a holder that does not answer. */
#define STRIPED_LOCK_BREAK_FENCE 0    /* blocklist it, wait for the OSD map, then break (default) */
#define STRIPED_LOCK_BREAK_UNFENCED 1 /* break it without fencing: see below */

/**
 * Choose how this cluster handle's truncate and remove treat a lock holder
 * that does not answer (since 0.4). The default fences it first. UNFENCED
 * breaks the lock without blocklisting, for applications that know no other
 * client can be alive (a single-host tool after a crash): a holder that was
 * only paused can then still land queued writes into the file afterwards.
 * @param cluster a connected cluster handle; the choice lasts as long as
 *        its connection
 * @param how STRIPED_LOCK_BREAK_FENCE or STRIPED_LOCK_BREAK_UNFENCED
 * @return 0; -EINVAL for a NULL handle or an unknown choice; -ENOTCONN
 *         before rados_connect(); -ENOMEM
 */
int striped_cluster_set_lock_break(rados_t cluster, int how);

/**
 * Connect a cluster handle as rados_connect() does, but from a thread of
 * its own (since 0.6), so that a process forked after librados was used
 * gets a client address of its own. librados 16.2 draws the nonce of a
 * client's address (IP:0/NONCE) from a random engine kept per thread and
 * seeded at its first use; fork() copies the forking thread's engine, so
 * children that connect from that thread after their parent used librados
 * (a pre-forking server, Python's multiprocessing with the fork start
 * method) all get one address, and a blocklist of one fences them all.
 * truncate and remove refuse to fence a holder whose address another
 * client has (-ENOTUNIQ, see "Shared files"). A process that may fork
 * connects with this, or calls rados_connect() from a thread it started
 * after the fork.
 * @param cluster a created and configured cluster handle, not yet connected
 * @return 0; -EINVAL for NULL; -EAGAIN when no thread can be started;
 *         rados_connect()'s errors
 */
int striped_cluster_connect(rados_t cluster);

/* ------------------------------------------------------------------------ */
/* Completions: one per call, aggregating all of the call's object requests. */

struct striped_completion;
struct striped_file;

/*
 * Called exactly once when a call completes, in the thread that ended the
 * call's last part: a librados callback thread, or the submitting thread
 * itself, before the submitting function returns, when nothing was left in
 * flight by then (always so for zero-length calls and for calls that failed
 * after they started; possibly so for fast replies). Waiters wake after it
 * returns. It may release the completion.
 *
 * On a librados thread it must not block: no striped_completion_wait(), no
 * synchronous call (any file or data call whose name does not begin with
 * striped_aio_, such as striped_read(), striped_write(), striped_flush(),
 * striped_truncate(), striped_open()). It may start asynchronous calls with
 * STRIPED_IO_NOWAIT, which never wait (they fail with -EAGAIN instead),
 * striped_aio_flush(), and striped_aio_open/truncate/remove/append(), which
 * run on a thread of their own; and it may striped_close() a file: the file
 * then goes once its calls in flight have ended.
 */
typedef void (*striped_callback_t)(struct striped_completion *c, void *arg);

/**
 * Create a completion for one asynchronous call. A completion serves one
 * call only; create a new one for the next call.
 * @param cb  called once when the call completes (may be NULL)
 * @param arg passed to cb
 * @param out filled with the new completion; free with striped_completion_release()
 * @return 0; -EINVAL for NULL out; -ENOMEM
 */
int striped_completion_create(striped_callback_t cb, void *arg, struct striped_completion **out);

/**
 * Wait until the call attached to c has completed (returns at once if it has).
 * @return 0; -EINVAL if no call was ever started on c
 */
int striped_completion_wait(struct striped_completion *c);

/**
 * Whether the call attached to c has completed. A call counts as complete
 * once its callback has returned: inside the callback (or in a thread the
 * callback wakes before returning) this still says 0, while
 * striped_completion_result() already gives the result.
 * @return 1 if complete, 0 if not (or if no call was started)
 */
int striped_completion_is_complete(struct striped_completion *c);

/**
 * The call's result: bytes transferred, or the first error any of its object
 * requests met. Other requests of a failed call have still completed. It is
 * available inside the callback already.
 * @return bytes (>= 0); a negative errno; -EINPROGRESS while not complete
 */
ssize_t striped_completion_result(struct striped_completion *c);

/**
 * Drop the caller's reference. Safe while the call is still in flight: the
 * completion is freed when both the caller and the call are done with it
 * (the callback still runs). Accepts NULL.
 */
void striped_completion_release(struct striped_completion *c);

/* What one call, or one file over its lifetime, did. */
struct striped_io_stats {
	uint64_t calls;          /* calls (1 for a completion) */
	uint64_t ops;            /* RADOS object operations issued (data and metadata) */
	uint64_t max_in_flight;  /* most of those in flight at once (a size update shared
	                          * by growing writes counts in ops of the call that sent
	                          * it, never here) */
	uint64_t bytes;          /* bytes transferred by successful calls */
	uint64_t throttle_waits; /* times a submitter waited for the throttle */
	uint64_t latency_ns;     /* completion: submit to complete; file: sum over calls */
};

/**
 * Statistics of the call attached to c (valid once it has completed).
 * @param st   filled with up to st_size bytes of struct striped_io_stats
 * @param st_size sizeof(struct striped_io_stats) as the caller knows it
 * @return 0; -EINVAL for NULL arguments
 */
int striped_completion_stats(struct striped_completion *c, struct striped_io_stats *st,
			     size_t st_size);

/* ------------------------------------------------------------------------ */
/* Striped files.                                                           */

#define STRIPED_CREATE 0x1 /* create the file if it does not exist */
#define STRIPED_EXCL 0x2   /* with STRIPED_CREATE: fail with -EEXIST if it exists */
#define STRIPED_BUFFERED 0x4 /* since 0.6: write-behind and readahead (see "Buffered mode") */

/**
 * Open (and with STRIPED_CREATE create) the striped file name in io's pool.
 * Opening costs three round trips to the head object, one after another
 * (its metadata, the shared lock, the watch); creating, two (the head made
 * with its metadata and the lock, the watch).
 * @param io     an open librados I/O context; it must outlive the file
 * @param name   the file name (objects are "name.%016llx")
 * @param flags  0, STRIPED_CREATE or STRIPED_CREATE | STRIPED_EXCL, each
 *               with or without STRIPED_BUFFERED
 * @param layout layout for a new file; NULL for the default (libradosstriper's,
 *               on an erasure-coded pool cut to whole stripes); ignored when
 *               the file exists (its own layout is used)
 * @param out    filled with the open file; close with striped_close()
 * @return 0; -EINVAL for NULL or empty arguments, unknown flags or an invalid
 *         layout; -ENAMETOOLONG when object names would exceed the cluster's
 *         osd_max_object_name_len; -EFBIG when object_size exceeds the
 *         cluster's osd_max_object_size; -ENOENT when the file does not exist
 *         and STRIPED_CREATE is not given; -EEXIST with STRIPED_EXCL;
 *         -ENODATA when the head object exists but is not a striped file;
 *         -EUCLEAN when its head's metadata is damaged (a field missing or
 *         not a decimal number, or an invalid layout): nothing is written
 *         to such a head, not even the lock;
 *         -EPERM; with STRIPED_CREATE on a pool with a namespace index, its
 *         errors (-EUCLEAN for a record this version cannot read): a file
 *         made but not indexed is closed and the error returned;
 *         other librados errors
 * Since 0.9, a file another client holds unwritten (striped_head_take())
 * is written back by its holder before the open returns: it waits for the
 * holder's answer, up to 5 s.
 */
int striped_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
		 struct striped_file **out);

/**
 * Close a file and let go of its lock. Waits for the file's calls still in
 * flight (and a buffered handle's window: see striped_close2(), which also
 * says whether it landed), then returns; others may truncate or remove the
 * file at once. But with an op timeout (striped_cluster_set_op_timeout()),
 * when the cluster did not answer while close waited, the unlock is sent
 * and not waited for, and the lock goes once an OSD takes it.
 * From a completion callback it does not wait: the file goes when its last
 * call has ended. No other call on f may start once close has begun (as
 * with close(2)). Accepts NULL.
 */
void striped_close(struct striped_file *f);

/**
 * Current size and layout of the file (one round trip for the size).
 * @param size   filled with the size (may be NULL)
 * @param layout filled with the layout (may be NULL)
 * @return 0; -EINVAL for NULL f; -ESTALE if the file was removed (or
 *         removed and created again); -EBUSY while another client truncates
 *         or removes it; librados errors
 */
int striped_stat(struct striped_file *f, uint64_t *size, struct striped_layout *layout);

/**
 * Write len bytes at off; all object writes are sent at once (bounded by the
 * file's throttle). When the write grows the file, the new size is stored
 * beside the data, and the write returns once both are stored: no round
 * trip before the data (past a high-water mark raised far ahead, at most one
 * per doubling of the file or per 256 MiB). A write the pool refuses for
 * want of space (-ENOSPC, -EDQUOT) leaves the size as it was.
 * @return len, or a negative errno: -EINVAL for NULL arguments or len above
 *         SSIZE_MAX; -EOVERFLOW when off + len exceeds 2^64 - 1; -EOPNOTSUPP
 *         on a pool that takes only aligned appends when any of its objects
 *         would refuse its part (nothing sent; see "Erasure-coded pools"
 *         above); -ESTALE when the file
 *         was removed (or removed and created again) since it was opened, or
 *         the handle lost its lease while the write was in flight (the data
 *         may or may not have been written); -EBUSY while another client
 *         truncates or removes it; -EBLOCKLISTED (-ESHUTDOWN) once another
 *         client fenced this one (reconnect); -EUCLEAN when the handle,
 *         taking its lock back, found the head's metadata damaged (nothing
 *         written; the next call looks again); -ENOSPC, -EDQUOT, -EPERM,
 *         -ETIMEDOUT and other librados errors
 */
ssize_t striped_write(struct striped_file *f, const void *buf, size_t len, uint64_t off);

/**
 * Read up to len bytes at off; all object reads are sent at once. Holes,
 * missing and short objects read as zeros; the result stops at end of file.
 * The bytes of buf past the result are unspecified: a large read past the
 * end of a small file does not spend time zeroing them.
 * @return bytes read (0 at or past end of file), or a negative errno as for
 *         striped_write()
 */
ssize_t striped_read(struct striped_file *f, void *buf, size_t len, uint64_t off);

/**
 * Set the file's size. Shrinking removes or truncates the objects past the
 * new end, all at once; growing leaves a hole that reads as zeros. The
 * handle lets go of its shared lock and holds the exclusive one meanwhile
 * (renewed while the objects are cleaned); its own calls wait until it is
 * done. Other libstriped handles are asked to let go and do once their
 * calls in flight complete; a holder that does not answer is fenced first
 * (see "Shared files" above). The size is set last, only if the lock is
 * still ours and the size is still the one read under it.
 * @return 0; -EINVAL for NULL f; -EBUSY when holders that answer stay busy
 *         for 20 s, while a libradosstriper client or another truncate or
 *         remove holds the file for 2 s, or when the exclusive lock was lost
 *         meanwhile; -EACCES when a holder does not answer and this client
 *         may not blocklist it, -ENOTUNIQ when its address is another
 *         client's too (nothing was changed in either case); -ESTALE when
 *         the file was removed (or removed and created again); -EUCLEAN
 *         when its head's metadata is damaged (nothing written, no holder
 *         asked); -EOPNOTSUPP on a pool that takes only aligned appends
 *         when an object would have to be cut (nothing changed);
 *         -EDEADLK from a completion callback; -ETIMEDOUT with an op
 *         timeout, also when a call of the handle it waited for timed out
 *         (nothing changed; the handle's calls waiting for it fail so too);
 *         librados errors
 */
int striped_truncate(struct striped_file *f, uint64_t size);

/**
 * Remove the striped file name: every object up to its size and its mark,
 * by name (the pool is not listed), the head last, under the exclusive lock
 * (taken from the holders as striped_truncate() takes it, renewed while it
 * lasts, and checked by the head's removal). The objects' operations are
 * all in flight at once, up to 3/4 of the client's objecter_inflight_ops
 * (as libradosstriper sends its remove's); those past the size, most never
 * written, are stat'ed first (a read, where a remove of an object that is
 * not there is a write the OSD logs) and removed if they are there, as
 * truncate and striped_repair() do too. A file no larger than its stripe
 * unit (its bytes all in the head object, no mark or region past it) whose
 * lock no one holds is removed in two round trips instead (since 0.7.1): its
 * head read, then removed in one operation that checks the head still says
 * what was read (layout, id, size, mark, and the lock's xattr: no one took
 * the lock in between); else the remove takes the lock as above. Handles
 * of the file then get -ESTALE.
 * @return 0; -EINVAL for NULL or empty arguments; -ENOENT; -ENODATA when
 *         the object is no striped file; -EUCLEAN when its metadata is
 *         damaged (nothing written, no holder asked); -EBUSY, -EACCES and
 *         -ENOTUNIQ as for striped_truncate(); on a pool with a namespace
 *         index, its errors (the entry goes beside the head, and comes back
 *         if the file stayed; a directory's marker "dir/" removed takes the
 *         empty directory out of its parent's index); librados errors
 */
int striped_remove(rados_ioctx_t io, const char *name);

/**
 * Asynchronous write: as striped_write(), completing through c.
 * The calling thread waits while the file's throttle is full and while the
 * lease is taken back after it lapsed; see striped_aio_write2() for a call
 * that never waits. A growing write sends its size update beside its data
 * and completes once both are stored: no round trip before the data. Its
 * update is its own when none is in flight, is shared with an update in
 * flight that stores enough, and otherwise goes out with those of the
 * writes gathered behind it, as soon as it landed (one at a time: the head
 * object's OSD applies them in turn). Data past the file's high-water mark
 * (raised far ahead, so rarely) waits for the mark's raise first: a write
 * with STRIPED_IO_ZEROCOPY, or of at most 1 MiB, then sends its data from
 * the raise's callback; a larger copying write, or one beyond the
 * throttle's limits, waits for the raise in the calling thread.
 * buf is copied before the call returns and may be reused at once (see
 * STRIPED_IO_ZEROCOPY for a write that sends buf itself).
 * Calls in flight together are not ordered, as with POSIX aio and
 * io_uring (librados orders operations on one object; a call here may
 * span many, and one held for the mark's raise goes after a later one):
 * where two of them touch the same bytes, the one that must land last is
 * started once the other completed.
 * @param c a completion no call has used yet
 * @return 0 when the call was started (its result comes through c); a
 *         negative errno when it was refused before anything was sent
 *         (c is then untouched): -EINVAL, -EOVERFLOW, -EBUSY for a used c
 *         or while another client truncates or removes the file, -ESTALE,
 *         -EOPNOTSUPP, -ENOMEM; librados errors of the size update
 */
int striped_aio_write(struct striped_file *f, struct striped_completion *c, const void *buf,
		      size_t len, uint64_t off);

/**
 * Asynchronous read: as striped_read(), completing through c. A read that
 * passes the end this handle knows of reads the stored size along with the
 * data (no extra round trip) and stops at it.
 * @return as striped_aio_write()
 */
int striped_aio_read(struct striped_file *f, struct striped_completion *c, void *buf, size_t len,
		     uint64_t off);

/* Flags of striped_aio_write2() and striped_aio_read2(). */
#define STRIPED_IO_NOWAIT 0x1	/* refuse with -EAGAIN rather than wait */
#define STRIPED_IO_ZEROCOPY 0x2 /* a write sends buf itself: see striped_aio_write2() */
/*
 * Hints passed on every object operation of the call, as librados' op flags
 * (the same values as LIBRADOS_OP_FLAG_FADVISE_*). What the OSDs make of
 * them is theirs: BlueStore acts on WILLNEED, DONTNEED and NOCACHE (its
 * cache), not on SEQUENTIAL or RANDOM; they never change what is stored.
 */
#define STRIPED_IO_FADVISE_RANDOM 0x4
#define STRIPED_IO_FADVISE_SEQUENTIAL 0x8
#define STRIPED_IO_FADVISE_WILLNEED 0x10
#define STRIPED_IO_FADVISE_DONTNEED 0x20
#define STRIPED_IO_FADVISE_NOCACHE 0x40

/**
 * Asynchronous write with flags. With STRIPED_IO_NOWAIT the calling thread
 * never waits: the call is refused with -EAGAIN (c untouched, nothing sent)
 * when the throttle cannot take all of its operations at once, when the
 * lock must first be taken back (the library then takes it back on a
 * thread of its own, so a later try goes through), or while the handle's
 * own truncate runs;
 * the size update of a growing write is then sent without waiting and the
 * data follows from its callback. This is the way to start calls from a
 * completion callback.
 *
 * With STRIPED_IO_ZEROCOPY the object writes reference buf instead of a
 * copy of it, saving a memory copy of every byte: buf must then stay valid
 * and unchanged until c completes (a byte changed while in flight fails the
 * messenger's checksum or reaches the OSDs half old, half new). Copying is
 * the default for that reason, as in librbd; synchronous striped_write()
 * always sends buf itself. When the cluster handle has an op timeout
 * (striped_cluster_set_op_timeout()), writes always copy: an operation that
 * timed out may still be read by librados after its completion. The flag
 * means nothing to reads.
 * @param flags STRIPED_IO_NOWAIT, STRIPED_IO_ZEROCOPY, STRIPED_IO_FADVISE_*
 * @return as striped_aio_write(), and -EAGAIN with STRIPED_IO_NOWAIT
 */
int striped_aio_write2(struct striped_file *f, struct striped_completion *c, const void *buf,
		       size_t len, uint64_t off, int flags);

/**
 * Asynchronous read with flags (see striped_aio_write2()).
 * @return as striped_aio_read(), and -EAGAIN with STRIPED_IO_NOWAIT
 */
int striped_aio_read2(struct striped_file *f, struct striped_completion *c, void *buf, size_t len,
		      uint64_t off, int flags);

/**
 * Asynchronous stat: *size is filled when c completes (result 0).
 * @param size where the size is stored; must stay valid until completion
 * @return as striped_aio_write()
 */
int striped_aio_stat(struct striped_file *f, struct striped_completion *c, uint64_t *size);

/**
 * Bound the RADOS operations and bytes this file keeps in flight. A single
 * operation larger than max_bytes still goes out, alone. Calls waiting for
 * the throttle are served first come, first served. The defaults (256
 * operations, 3/4 of the client's objecter_inflight_op_bytes, no byte bound
 * when that is 0, Ceph's "unlimited") never hold back a 64 MiB call over
 * 4 MiB objects; values are clamped below the client's objecter limits so
 * librados itself never has to block.
 * @param max_ops   operations in flight; 1 gives the serial path (one
 *                  operation per object, no MiB cuts; at most 64 MiB each)
 * @param max_bytes bytes in flight
 * @return 0; -EINVAL for NULL f or a zero limit
 */
int striped_file_set_throttle(struct striped_file *f, uint32_t max_ops, uint64_t max_bytes);

#define STRIPED_LEASE_MIN_SECONDS 1
#define STRIPED_LEASE_MAX_SECONDS 3600

/**
 * Set how long the handle keeps its lock with no call in flight before it
 * lets go by itself (1 s by default). libstriped clients that want the lock
 * ask and get it at once whatever this is; it bounds how long an idle handle
 * holds off libradosstriper's truncate and remove, which cannot ask. A
 * longer time saves the round trip that takes the lock back for a handle
 * whose calls come further apart.
 * @param seconds STRIPED_LEASE_MIN_SECONDS .. STRIPED_LEASE_MAX_SECONDS
 * @return 0; -EINVAL for NULL f or a time out of range
 */
int striped_file_set_lease(struct striped_file *f, unsigned int seconds);

/**
 * Cumulative statistics of the file since it was opened.
 * @return 0; -EINVAL for NULL arguments
 */
int striped_file_stats(struct striped_file *f, struct striped_io_stats *st, size_t st_size);

/* ------------------------------------------------------------------------ */
/* Since 0.3: scatter-gather, flush, stat with time, append, whole-file write, xattrs. */

/**
 * Write the segments of iov, laid end to end, at off: one call, every
 * object request of it in flight at once, the segments' bytes sent as they
 * lie (no copy, as striped_write()). The iovec array itself may go once the
 * call returns.
 * @param iovcnt 0 .. IOV_MAX
 * @return the bytes written (the segments' total), or as striped_write();
 *         -EINVAL also for a NULL iov with iovcnt > 0, iovcnt out of range,
 *         a NULL segment with a length, or a total above SSIZE_MAX
 */
ssize_t striped_writev(struct striped_file *f, const struct iovec *iov, int iovcnt, uint64_t off);

/**
 * Read into the segments of iov, laid end to end, from off: as
 * striped_read() (it stops at the end of the file), the bytes landing in
 * each segment in turn.
 * @return bytes read, or the errors of striped_writev() and striped_read()
 */
ssize_t striped_readv(struct striped_file *f, const struct iovec *iov, int iovcnt, uint64_t off);

/**
 * Asynchronous striped_writev(), completing through c. The segments' bytes
 * are copied before the call returns, as striped_aio_write() does; the
 * iovec array may go once it returns.
 * @return as striped_aio_write(), and the iovec errors of striped_writev()
 */
int striped_aio_writev(struct striped_file *f, struct striped_completion *c,
		       const struct iovec *iov, int iovcnt, uint64_t off);

/**
 * Asynchronous striped_readv(), completing through c. The segments must
 * stay valid until c completes; the iovec array may go once the call
 * returns.
 * @return as striped_aio_read(), and the iovec errors of striped_writev()
 */
int striped_aio_readv(struct striped_file *f, struct striped_completion *c,
		      const struct iovec *iov, int iovcnt, uint64_t off);

/**
 * Asynchronous flush, as rados_aio_flush(): c completes (result 0) once
 * every call started on f before this one has completed, whatever their
 * results (each reports its own through its own completion). Calls started
 * after it do not hold it up. It never waits, so it may be called from a
 * completion callback. On a buffered handle it is the file's fsync: the
 * window is sent first (by the library's thread), c completes once all of
 * it landed, and its result is the first write-behind error not reported
 * yet (see "Buffered mode").
 * @param c a completion no call has used yet
 * @return 0 when started; -EINVAL for NULL arguments; -EBUSY for a used c;
 *         -ENOMEM
 */
int striped_aio_flush(struct striped_file *f, struct striped_completion *c);

/**
 * Wait until every call started on f before this one has completed; on a
 * buffered handle, until everything written through it landed (fsync).
 * Not from a completion callback (it waits).
 * @return 0; -EINVAL for NULL f; -ENOMEM; on a buffered handle, the first
 *         write-behind error not reported yet
 */
int striped_flush(struct striped_file *f);

/* What striped_fstat() fills. Later versions may add fields at the end. */
struct striped_stat {
	uint64_t size;
	struct striped_layout layout;
	/*
	 * The head object's modification time, as libradosstriper's stat
	 * reports it: it moves with every write to the head object (size
	 * updates of growing writes, data in the first object, xattrs,
	 * truncate) and with lock renewals, not with overwrites elsewhere.
	 */
	struct timespec mtime;
};

/**
 * Size, layout and modification time, read in one round trip.
 * @param st_size sizeof(struct striped_stat) as the caller was built with:
 *        only that much of *st is written
 * @return 0; -EINVAL for NULL arguments or st_size below sizeof(uint64_t);
 *         -ESTALE when the file was removed or re-created since it was
 *         opened; librados errors
 */
int striped_fstat(struct striped_file *f, struct striped_stat *st, size_t st_size);

/**
 * Append: write buf at the end of the file, in a range no other libstriped
 * appender gets. The range is claimed first, by moving the stored size from
 * what it is to len more in one compare-and-set on the head (a loser reads
 * the new size and tries again); the data follows. libradosstriper's append
 * claims nothing (it reads the size and writes there), so one of its appends
 * racing this one may land on the same range; plain writes are not fenced
 * either. A failed append may leave its claimed range reading as zeros.
 * @return len, or as striped_write(); -EFBIG past 2^64 - 1 bytes
 */
ssize_t striped_append(struct striped_file *f, const void *buf, size_t len);

/**
 * Asynchronous striped_append(): the claim and the write run on a thread of
 * the library's (which runs c's callback); c's result is len or the errors
 * of striped_append(). buf is sent as it lies, so it must stay unchanged
 * until c completes, and f must stay open until then.
 * @return 0 when started; -EINVAL for NULL arguments, NULL buf with len > 0
 *         or len above SSIZE_MAX; -EBUSY for a used c; -ENOMEM
 */
int striped_aio_append(struct striped_file *f, struct striped_completion *c, const void *buf,
		       size_t len);

/**
 * Make the file exactly these len bytes: truncate to len, then write them
 * at 0. Not atomic: a reader in between sees the old bytes (cut, or zeros
 * past the old end) being overwritten, never an empty file (but on a pool
 * that takes only aligned appends, which cuts no object: there the file is
 * truncated to 0 first). As the truncate, it needs the file to itself.
 * @return 0; the errors of striped_truncate() (-EBUSY while another client
 *         has the file open, -EDEADLK from a callback) and striped_write()
 */
int striped_write_full(struct striped_file *f, const void *buf, size_t len);

/**
 * Discard [off, off + len): it reads as zeros afterwards and the size does
 * not change (as librbd's discard). Objects the range covers whole are
 * removed, the others zeroed over the range; the head object is only ever
 * zeroed (it holds the file's metadata and lock), and no object is created,
 * so a range past the end of the file costs nothing but its round trips.
 * All of the range's operations are in flight at once, as a write's.
 * @return 0; -EINVAL for NULL f; -EOVERFLOW when off + len exceeds 2^64 - 1;
 *         -EOPNOTSUPP on a pool that takes only aligned appends, unless the
 *         range removes whole objects other than the head; -ESTALE,
 *         -EBUSY and librados errors as striped_write()
 */
int striped_discard(struct striped_file *f, uint64_t off, uint64_t len);

/**
 * Asynchronous striped_discard(), completing through c (result 0).
 * @return as striped_aio_write()
 */
int striped_aio_discard(struct striped_file *f, struct striped_completion *c, uint64_t off,
			uint64_t len);

/**
 * Asynchronous striped_open(): *out is set, and c completes (result 0 or
 * the errors of striped_open()). The arguments are checked at once (bad
 * input is refused, c untouched); the round trips run on a thread of the
 * library's, which also runs c's callback. name and layout may go once the
 * call returns; out must stay valid until c completes.
 * @return 0 when started; -EINVAL (also for a NULL c), -ENAMETOOLONG,
 *         -EBUSY for a used c, -ENOMEM
 */
int striped_aio_open(rados_ioctx_t io, struct striped_completion *c, const char *name, int flags,
		     const struct striped_layout *layout, struct striped_file **out);

/**
 * Asynchronous striped_truncate(), on a thread of the library's (which runs
 * c's callback); result 0 or the errors of striped_truncate(). f must stay
 * open until c completes. Unlike striped_truncate() it may be called from a
 * completion callback: its thread is not one.
 * @return 0 when started; -EINVAL for NULL arguments; -EBUSY for a used c;
 *         -ENOMEM
 */
int striped_aio_truncate(struct striped_file *f, struct striped_completion *c, uint64_t size);

/**
 * Asynchronous striped_remove(), as striped_aio_open() runs; result 0 or
 * the errors of striped_remove().
 * @return as striped_aio_open()
 */
int striped_aio_remove(rados_ioctx_t io, struct striped_completion *c, const char *name);

/**
 * What striped_objects_walk() calls for each object name: oid is
 * NUL-terminated and valid only during the call. A nonzero return stops the
 * walk, which then returns it (return a negative errno, or a positive code
 * of your own).
 */
typedef int (*striped_walk_fn)(void *arg, const char *oid);

/* The placement-group slices striped_objects_walk() lists at once by default. */
#define STRIPED_WALK_PARALLEL 8
/* The most slices it lists at once. */
#define STRIPED_WALK_PARALLEL_MAX 64

/**
 * Walk every object name of io's pool (its namespace): the pool's hash
 * space is cut into slices (rados_object_list_slice()), and `parallel`
 * threads list them at once, up to 1024 names per request, instead of one
 * placement group after another as rados_nobjects_list_next() does. fn is
 * called once per object from those threads, never two calls at once (arg
 * needs no lock), in no particular order. Objects made or removed while it
 * runs may or may not show; every object there throughout shows once.
 * @param parallel slices listed at once, 1 to STRIPED_WALK_PARALLEL_MAX;
 *        0 for STRIPED_WALK_PARALLEL
 * @return 0 once every object was passed to fn; fn's nonzero return; -EINVAL
 *         for a NULL io or fn or too many slices; -ENOMEM; -EAGAIN when no
 *         thread could be started; librados errors
 */
int striped_objects_walk(rados_ioctx_t io, unsigned int parallel, striped_walk_fn fn, void *arg);

struct striped_list;

/**
 * List the striped files of io's pool (its namespace), libradosstriper's
 * included, sorted by name: striped_list_open2() with an empty query.
 * @param it receives the listing; close it with striped_list_close();
 *        NULL when the call fails
 * @return as striped_list_open2()
 */
int striped_list_open(rados_ioctx_t io, struct striped_list **it);

/* striped_list_query.flags: no size read (striped_list_entry.size is 0). */
#define STRIPED_LIST_NAMES_ONLY 0x1
/* striped_list_query.flags: walk the pool even when it has an index. */
#define STRIPED_LIST_NO_INDEX 0x2

/* What a listing asks for, as S3's ListObjectsV2 does. Zero it first. */
struct striped_list_query {
	const char *prefix;	 /* names that start with it; NULL or "" for all */
	const char *delimiter;	 /* NULL: every name; "/": one level (no other) */
	const char *start_after; /* a continuation: the names after it; NULL from the first */
	unsigned int flags;	 /* STRIPED_LIST_* */
};

/* One name of a listing. */
struct striped_list_entry {
	const char *name; /* valid until the next call on the listing; NULL after the last */
	uint64_t size;	  /* the size stored when it was read; 0 for a prefix */
	int is_prefix;	  /* one level: "dir/" stands for the names below it */
};

/**
 * List the striped files of io's pool (its namespace) whose names start
 * with q->prefix, sorted by name, from after q->start_after. With the "/"
 * delimiter a name with a '/' past the prefix shows once as its directory
 * ("PREFIXdir/", is_prefix), as S3 shows a common prefix. The names come
 * from the pool's namespace index when it has one that is ready
 * (striped_index_create(): the cost of the directories listed), else from a
 * walk of every object of the pool (striped_objects_walk(): the cost of the
 * pool). Each file's size is read from its head, many at once ahead of the
 * caller, unless STRIPED_LIST_NAMES_ONLY; an index entry whose head is gone
 * (a creator killed between the two) is then left out, and a file whose
 * creator was killed between the two sends may miss its entry until
 * striped_index_check() repairs it. Files made or
 * removed while it runs may or may not show. A listing stopped early goes
 * on in a new one from its last name as start_after.
 * @param q_size sizeof(*q), so later versions can grow the query
 * @param it receives the listing, NULL when the call fails
 * @return 0; -EINVAL for NULL arguments, a delimiter other than "/" or
 *         unknown flags; -ENOMEM; -EUCLEAN for an index record this version
 *         cannot read; librados errors (-EPERM for a client whose caps do
 *         not cover the namespace)
 */
int striped_list_open2(rados_ioctx_t io, const struct striped_list_query *q, size_t q_size,
		       struct striped_list **it);

/**
 * The next entry of a listing; e->name is NULL after the last.
 * @param e_size sizeof(*e)
 * @return 0; -EINVAL for NULL arguments; -EUCLEAN for an index entry this
 *         version does not know; librados errors
 */
int striped_list_next2(struct striped_list *it, struct striped_list_entry *e, size_t e_size);

/**
 * The next file (prefixes skipped): its name (valid until the next call on
 * it) and the size stored at that moment; *name is NULL after the last one.
 * @return 0; -EINVAL for NULL arguments; librados errors
 */
int striped_list_next(struct striped_list *it, const char **name, uint64_t *size);

/** 1 when the listing reads the namespace index, 0 when it walked the pool; -EINVAL. */
int striped_list_is_indexed(const struct striped_list *it);

/** Close a listing (NULL is ignored). */
void striped_list_close(struct striped_list *it);

/* ---- the namespace index (since 0.9) ----
 * A pool (a namespace of it) may keep an index of its files' names, one
 * per directory ("a/b/" of "a/b/c"), in the omap of index objects cut into
 * shards, so that a listing costs the directories it reads, not the pool.
 * Every libstriped writer keeps it (open with STRIPED_CREATE,
 * striped_head_create(), the removes; the mount, the tools, Python and the
 * libradosstriper drop-in through them): a create that returned 0 is
 * listed, a file whose remove returned 0 is not. A client learns of an index
 * made or dropped within STRIPED_INDEX_NOTICE_S. Writers that do not know
 * it (stock libradosstriper, `rados put`) leave files out of it:
 * striped_index_check() finds and mends them. A directory stays listed
 * after its last file goes, until its marker ("dir/") is removed while it
 * is empty.
 */
#define STRIPED_INDEX_SHARDS_DEFAULT 8
#define STRIPED_INDEX_SHARDS_MAX 1024
/* How long a running client may go on not knowing of an index made or dropped. */
#define STRIPED_INDEX_NOTICE_S 5

#define STRIPED_INDEX_NONE 0
#define STRIPED_INDEX_BUILDING 1 /* kept by writers, not yet read by listings */
#define STRIPED_INDEX_READY 2

struct striped_index_info {
	int state;	 /* STRIPED_INDEX_* */
	uint32_t shards; /* per directory */
	char pool[128];	 /* the pool of the index objects */
	uint64_t objects; /* with count: the index objects */
	uint64_t entries; /* with count: their keys */
};

/**
 * Make io's pool (its namespace) an index: recorded first, so writers keep
 * it, then built from one walk of the pool once every client knows
 * (STRIPED_INDEX_NOTICE_S), then marked ready for listings.
 * @param index_pool the replicated pool of the index objects (in io's
 *        namespace); NULL for io's own pool, which must then keep omap
 *        (an erasure-coded pool does not)
 * @param shards objects per directory, 1 to STRIPED_INDEX_SHARDS_MAX (0: the
 *        default); each object keeps its keys under the OSDs' large-omap
 *        warning (200,000) for directories of up to 150,000 x shards names
 * @return 0; -EINVAL; -EEXIST when it has one; -EOPNOTSUPP for an index
 *         pool that keeps no omap (erasure-coded); -ENOENT for an index pool
 *         that does not exist; -ENOMEM; librados errors
 */
int striped_index_create(rados_ioctx_t io, const char *index_pool, uint32_t shards);

/**
 * Drop io's index: its record first, then (after STRIPED_INDEX_NOTICE_S,
 * when no client writes it any more) its objects. Listings walk again.
 * @return 0; -EINVAL; -ENOENT when there is none; librados errors
 */
int striped_index_drop(rados_ioctx_t io);

/**
 * Whether and where io's pool has an index; with count, its objects and
 * entries counted too (a walk of the index pool: the cost of the pool).
 * @param info_size sizeof(*info)
 * @return 0 (state STRIPED_INDEX_NONE when there is none); -EINVAL;
 *         -EUCLEAN for a record this version cannot read; librados errors
 */
int striped_index_stat(rados_ioctx_t io, int count, struct striped_index_info *info,
		       size_t info_size);

/* What striped_index_check() found of a name. */
#define STRIPED_INDEX_MISSING 1 /* a file the index does not list */
#define STRIPED_INDEX_STALE 2	/* an entry whose file is gone */

/** What striped_index_check() calls for each difference; nonzero stops it. */
typedef int (*striped_index_diff_fn)(void *arg, const char *name, int kind);

/**
 * Compare io's index with a walk of its pool: fn gets each file the index
 * misses (as files of stock libradosstriper or `rados put` are) and each
 * entry without its file; with repair, each is mended (added, removed) as
 * found. Directories are not differences. Best run when no one writes: a
 * file made or removed during it may show as a difference.
 * @return the count of differences; -EINVAL; -ENOENT when there is no
 *         index; fn's nonzero return; librados errors
 */
int striped_index_check(rados_ioctx_t io, int repair, striped_index_diff_fn fn, void *arg);

/* The longest xattr name: the OSDs' default osd_max_attr_name_len. */
#define STRIPED_XATTR_NAME_MAX 100

/**
 * Set an extended attribute of the file. It is kept on the head object
 * under the name as given, as libradosstriper keeps its own, so either
 * library reads what the other set. Names beginning with "striper." and the
 * lock's "lock.striper.lock" are the libraries' own: they cannot be set,
 * read or removed, and striped_getxattrs() does not show them.
 * @return 0; -EINVAL for NULL f or name, an empty name, or a NULL value
 *         with len > 0; -ENAMETOOLONG for a name longer than
 *         STRIPED_XATTR_NAME_MAX; -EPERM for a reserved name; -ESTALE as
 *         striped_fstat(); librados errors (-EFBIG for a value larger than
 *         the OSDs take)
 */
int striped_setxattr(struct striped_file *f, const char *name, const void *value, size_t len);

/**
 * Read an extended attribute into value.
 * @param len the room in value; 0 (value may then be NULL) asks for the
 *        value's length only
 * @return the value's length; -ERANGE when it is longer than len (> 0);
 *         -ENODATA when the file has no such attribute; the name errors of
 *         striped_setxattr(); -ESTALE; librados errors
 */
ssize_t striped_getxattr(struct striped_file *f, const char *name, void *value, size_t len);

/**
 * Remove an extended attribute.
 * @return 0, also when the file had no such attribute (as RADOS answers);
 *         the errors of striped_setxattr()
 */
int striped_rmxattr(struct striped_file *f, const char *name);

struct striped_xattrs;

/**
 * Every extended attribute of the file but the libraries' own, read in one
 * round trip, to walk with striped_getxattrs_next().
 * @param it receives the iterator; free it with striped_getxattrs_end()
 * @return 0; -EINVAL for NULL arguments; -ESTALE; -ENOMEM; librados errors
 */
int striped_getxattrs(struct striped_file *f, struct striped_xattrs **it);

/**
 * The next attribute: *name is NULL after the last one. The pointers stay
 * valid until striped_getxattrs_end().
 * @return 0; -EINVAL for NULL arguments
 */
int striped_getxattrs_next(struct striped_xattrs *it, const char **name, const void **value,
			   size_t *len);

/** Free an iterator of striped_getxattrs() (NULL is ignored). */
void striped_getxattrs_end(struct striped_xattrs *it);

/* ------------------------------------------------------------------------ */
/* Since 0.6: the buffered mode.                                            */

/*
 * Buffered mode (open flag STRIPED_BUFFERED), for programs that make one
 * small synchronous call after another, as CephFS's client and librbd's
 * cache serve them. The default stays the contract above: a call that
 * returns success had its full effect. A buffered handle instead:
 * - Write-behind: a write (sync or aio, vectored or not) is copied into the
 *   handle's window and returns (an aio write completes) once its bytes
 *   are there. The window goes out in large asynchronous writes: a stripe
 *   (stripe_unit * stripe_count, 1 to 16 MiB) as soon as it was written
 *   whole, anything else once it is dirty_age_ms old, everything at a
 *   flush, at close, when the window is full, and when another client asks
 *   for the lock. Each such write stores the size beside its data, so the
 *   size is updated once per batch, not once per call. Only the bytes the
 *   caller wrote are ever sent (never a block filled from an older read):
 *   buffered writers of disjoint ranges of one file lose nothing. A full
 *   window makes the writer wait (STRIPED_IO_NOWAIT: -EAGAIN); it never
 *   grows. A write into bytes still being sent waits for them to land.
 * - Errors: a write-behind that fails is not dropped: from then on every
 *   read and write of the handle fails with its error until
 *   striped_flush(), striped_aio_flush() or striped_close2() returns it
 *   (once); the bytes of the failed write-behind are lost, as POSIX
 *   buffered I/O loses them. A fenced handle (-EBLOCKLISTED) or one whose
 *   file was removed (-ESTALE) thus never reports success for data that
 *   did not land.
 * - Readahead: a reader whose reads follow each other (or that starts at
 *   offset 0) gets the following bytes read ahead asynchronously, a
 *   distance that starts at one stripe and doubles with each sequential
 *   read up to readahead_max, with no more being read at once than the
 *   file's throttle lets out (striped_file_set_throttle(): by default 3/4
 *   of objecter_inflight_op_bytes); random reads get nothing read ahead and
 *   pay nothing for it. Reads larger than readahead_max go straight to
 *   RADOS.
 * - Reads see the handle's own writes not yet sent, and its size view
 *   (striped_stat(), striped_fstat(), where a read stops) includes them.
 * - Coherence across clients (close-to-open, as NFS gives):
 *   what a buffered handle wrote is visible to every client once
 *   striped_flush() or close returned; a handle opened afterwards sees it.
 *   Before that, another client may see none, some or all of it: each
 *   stripe of it appears as a whole when its write-behind lands, with the
 *   size that covers it, in no particular order. A buffered reader sees
 *   other clients' writes as of when it read the bytes (or read them
 *   ahead); what it read ahead is kept only while it holds the lock, so
 *   after another client truncates, removes or re-creates the file it is
 *   never returned, nor is any byte of the file's earlier life.
 * - Truncate and remove by any client work through the handover as
 *   before: a buffered holder that is asked sends its window at once,
 *   drops what it read ahead, and lets go once the writes landed. The
 *   handle's own striped_truncate(), striped_append() and
 *   striped_write_full() first send the window and wait for it (their
 *   errors include a write-behind error not reported yet);
 *   striped_discard() sends the window too but waits only for the blocks
 *   in its range (older than the discard, they must land before it).
 * - A crash (the process killed) loses at most what was not flushed;
 *   nothing ever shows past the stored size, and bytes of the file that a
 *   lost write-behind did not reach keep what they held (zeros for a new
 *   file), never older data.
 * - The statistics (striped_file_stats()) and the latency percentiles
 *   (striped_file_latency()) count the calls sent to RADOS (write-behind,
 *   readahead, reads), not the calls the window answered.
 * - Memory: the window, and at most that much more held for reuse. What
 *   is read ahead lands in the handle's own memory (counted in the
 *   window, reused from one stripe to the next) and is copied from there
 *   into the reader's buffer. librados receives each reply in a buffer of
 *   its own, which glibc keeps on its heaps once freed; a buffered handle
 *   gives glibc's free pages back to the system (malloc_trim()) from its
 *   own thread once they grew by an eighth of the window (1 to 16 MiB)
 *   since it last did, so that a reader's resident memory follows the
 *   window.
 */

/* The buffered mode's settings; later versions may add fields at the end. */
struct striped_buffer_config {
	uint64_t window;	/* bytes of memory for data written, being sent and read
				 * ahead: 1 MiB .. 1 TiB; default 64 MiB */
	uint64_t readahead_max; /* the most read ahead, <= window (0: no readahead);
				 * default window / 2 */
	uint32_t dirty_age_ms;	/* data is sent at the latest this long after it was
				 * written: 0 .. 60000; default 200 */
};

#define STRIPED_BUFFER_CONFIG_INIT                                                                 \
	{                                                                                          \
		64ull << 20, 32ull << 20, 200                                                      \
	}

/**
 * Change a buffered handle's window, readahead bound and dirty age (since
 * 0.6). A smaller window than the data it holds is drained first: writers
 * wait meanwhile.
 * @param cfg      the settings
 * @param cfg_size sizeof(struct striped_buffer_config) as the caller knows
 *        it: fields past it take their defaults
 * @return 0; -EINVAL for NULL arguments, a handle opened without
 *         STRIPED_BUFFERED, or a value out of range
 */
int striped_file_set_buffer(struct striped_file *f, const struct striped_buffer_config *cfg,
			    size_t cfg_size);

/**
 * Close a file as striped_close() does, and say whether everything written
 * through it landed (since 0.6): for a buffered handle, the window is sent
 * and waited for first. The handle is gone either way (as with close(2)).
 * From a completion callback it does not wait and returns 0: a buffered
 * handle's window is then sent, and the file closed, by a thread of the
 * library's, and an error is lost; call striped_aio_flush() first.
 * @return 0; the first write-behind error not reported yet (-ESTALE,
 *         -EBLOCKLISTED, -ENOSPC, ...); 0 for NULL f
 */
int striped_close2(struct striped_file *f);

/*
 * Since 0.6: a file seen from outside, for operators (the `striped` command).
 * These calls take a file by name, not an open handle: the reads take no
 * lock and watch nothing, so they work on a file whose lock a dead client
 * left, and never hold up a truncate or remove.
 */

/* What striped_head_read() fills. Later versions may add fields at the end. */
struct striped_head {
	uint64_t size;
	struct striped_layout layout;
	struct timespec mtime; /* the head object's, as striped_fstat() reports it */
	/*
	 * The high-water mark (striper.reserved): no byte of the file's
	 * objects lies past max(size, reserved). Bytes between the size and
	 * the mark come only from writes that failed or were in flight when
	 * their client died; truncate, remove and striped_repair() clean up
	 * to it. 0 when the file has none (libradosstriper's files, and
	 * libstriped's before 0.5).
	 */
	uint64_t reserved;
	uint64_t id; /* striper.id, given at creation; 0 for libradosstriper's files */
	/*
	 * Since 0.9: the client id of the holder a file made with
	 * striped_head_take() has until it is written back (striper.held),
	 * 0 when no one holds it. Reads settle a held file first, so they
	 * give 0; striped_head_take() gives the holder's.
	 */
	uint64_t holder;
};

/**
 * Read a file's metadata from its head object in one round trip, without
 * opening the file (no lock, no watch). Since 0.9, a file another client
 * holds unwritten (striped_head_take()) is written back first, as
 * striped_open() does: then a notify, the holder's write and a read more.
 * @param h_size sizeof(struct striped_head) as the caller was built with:
 *        only that much of *h is written
 * @return 0; -EINVAL for NULL arguments, an empty name or h_size below
 *         sizeof(uint64_t); -ENAMETOOLONG as striped_open(); -ENOENT when
 *         there is no head object; -ENODATA
 *         when the object is no striped file (it carries no striper.*
 *         metadata); -EUCLEAN when its metadata is corrupt (a field
 *         missing or not a decimal number, or an invalid layout);
 *         librados errors
 */
int striped_head_read(rados_ioctx_t io, const char *name, struct striped_head *h, size_t h_size);

/**
 * Since 0.7: read a small file without opening it. Up to len of its bytes
 * from off, and its metadata, in one round trip and at one instant (one
 * RADOS operation on the head object), with no lock and no watch: as a
 * read through an open handle, it never sees a truncate, remove or repair
 * half done, nor bytes past the size. Only the file's first stripe unit is
 * read (its bytes live in the head object), so a file no larger than its
 * stripe unit is read whole; h says the size, so fewer bytes than asked
 * with off + count below h->size means the rest lies in other objects
 * (open the file to read them). Since 0.9 a file another client holds
 * unwritten is written back first, as striped_head_read() says (so is
 * striped_head_pread2()'s).
 * @param h, h_size as striped_head_read(): filled on success
 * @param buf   where the bytes go (may be NULL when len is 0: the metadata alone)
 * @return bytes read (0 at or past the size, or past the first stripe
 *         unit); the errors of striped_head_read(); -EINVAL also for a
 *         NULL buf with len > 0 or len above SSIZE_MAX; -EBUSY while a
 *         truncate, remove or repair holds the file's lock exclusive
 *         (libstriped's or libradosstriper's), nothing read: try again, or
 *         open the file, whose calls wait for it
 */
ssize_t striped_head_pread(rados_ioctx_t io, const char *name, struct striped_head *h,
			   size_t h_size, void *buf, size_t len, uint64_t off);

/**
 * Since 0.9: striped_head_pread(), and the file's extended attributes (the
 * user's, as striped_head_getxattrs() gives them) from the same read: a
 * small file's bytes, metadata and xattrs in one round trip, all of one
 * instant (a copy of it by name, as the mount's rename makes).
 * @param xattrs receives the iterator on success (walk it with
 *        striped_getxattrs_next(), free it with striped_getxattrs_end());
 *        NULL: none read, as striped_head_pread()
 * @return striped_head_pread()'s returns (*xattrs untouched on an error);
 *         -ENOMEM
 */
ssize_t striped_head_pread2(rados_ioctx_t io, const char *name, struct striped_head *h,
			    size_t h_size, void *buf, size_t len, uint64_t off,
			    struct striped_xattrs **xattrs);

/**
 * A file's extended attributes (the user's, as striped_getxattrs() shows
 * them), read in one round trip without opening the file.
 * @param it receives the iterator: walk it with striped_getxattrs_next(),
 *        free it with striped_getxattrs_end()
 * @return 0; the errors of striped_head_read(); -ENOMEM
 */
int striped_head_getxattrs(rados_ioctx_t io, const char *name, struct striped_xattrs **it);

/* An extended attribute given to striped_head_create(). */
struct striped_xattr_value {
	const char *name;  /* as striped_setxattr() takes it */
	const void *value; /* may be NULL when len is 0 */
	size_t len;
};

/**
 * Since 0.8: make a small file whole by name, without opening it (no lock,
 * no watch): its bytes, its size and extended attributes, in one round trip
 * (one RADOS operation that creates the head object). The file appears
 * with all of them or not at all, and is durable when the call returns. It
 * is then as a file a handle made, wrote and closed: any client of either
 * library opens, reads, writes, truncates or removes it (its lock is there,
 * held by no one). A file of many small writes made at once, as an object
 * store's put: a handle costs five round trips (create, watch, write,
 * unwatch, unlock).
 * @param layout the new file's, as striped_open() takes it (NULL: the default)
 * @param buf, len the file's bytes, all of them: len at most the layout's
 *        stripe unit (they lie in the head object); buf may be NULL when
 *        len is 0
 * @param xattrs, nxattrs extended attributes set with it (NULL when 0)
 * @return 0; -EEXIST when an object of that name is there (nothing
 *         changed: open the file to write it); -EFBIG when len exceeds the
 *         stripe unit, len and the xattrs' names and values together
 *         exceed 64 MiB (one operation: an OSD refuses a request above
 *         osd_max_write_size), or the layout's object size what the OSDs
 *         take; -E2BIG for more than 1024 xattrs; -EINVAL for a NULL io, a
 *         NULL buf with len > 0, a NULL xattrs with nxattrs > 0, an invalid
 *         layout, and an xattr's name or value as striped_setxattr()
 *         refuses them (-ENAMETOOLONG, -EPERM too); the name errors of
 *         striped_open(); on a pool with a namespace index, its errors
 *         (its entry goes beside the head's operation); librados errors
 */
int striped_head_create(rados_ioctx_t io, const char *name, const struct striped_layout *layout,
			const void *buf, size_t len, const struct striped_xattr_value *xattrs,
			size_t nxattrs);

/**
 * Since 0.9: striped_head_create(), and h filled with the head as made (its
 * size, layout, mark and id; its mtime zero), as striped_head_read() would
 * read it back: what striped_head_replace() and striped_head_remove() check
 * the file against, without reading it first.
 * @param h, h_size where the head goes (h may be NULL); h_size as
 *        striped_head_read() takes it
 * @return striped_head_create()'s returns; -EINVAL also for h_size below
 *         sizeof(uint64_t)
 */
int striped_head_create2(rados_ioctx_t io, const char *name, const struct striped_layout *layout,
			 const void *buf, size_t len, const struct striped_xattr_value *xattrs,
			 size_t nxattrs, struct striped_head *h, size_t h_size);

/**
 * Since 0.9: replace a small file's bytes whole by name, as it was read or
 * made (h), in one round trip, without opening it: one operation that
 * checks the head as striped_head_remove() does (layout, size, mark and id
 * as h says, its lock held by no one, as a shared holder's unlock leaves
 * it) writes buf as all of the file's bytes, its size len, and sets the
 * xattrs (the others stay). A file made with striped_head_create2() empty
 * and filled at its writer's close: two round trips for a new name that
 * no other client can take meanwhile. A reader sees the old bytes or the
 * new ones, never a mix. Given the head striped_head_take() made, it also
 * checks the file is still held by that holder, and takes the mark off.
 * @param h, h_size the head as read or made; h->size becomes len
 * @param buf, len the file's bytes, all of them: len at most the layout's
 *        stripe unit; buf may be NULL when len is 0
 * @param xattrs, nxattrs extended attributes set with them (NULL when 0)
 * @return 0; -ECANCELED when the file is not as h says, or its lock is held
 *         or was last held exclusive, or a reader took a holder's mark off
 *         (nothing changed: open the file to write it); -EFBIG as striped_head_create(); -EINVAL for NULL
 *         arguments, a short h_size, an invalid layout, a file h says does
 *         not live in its head alone, and xattrs as striped_head_create()
 *         refuses them; -ENOENT when there is no such object; the name
 *         errors of striped_open(); librados errors
 */
int striped_head_replace(rados_ioctx_t io, const char *name, struct striped_head *h,
			 size_t h_size, const void *buf, size_t len,
			 const struct striped_xattr_value *xattrs, size_t nxattrs);

/**
 * Since 0.8: remove a small file as it was read, in one round trip, without
 * opening it: a file that lives in its head alone (size and mark within its
 * first stripe unit), as striped_head_read() or striped_head_pread() gave
 * h, is removed in one operation that checks its head still says so
 * (layout, size, mark and id equal) and that no one holds its lock (as a
 * shared holder's unlock leaves it, libstriped's or libradosstriper's: the
 * lock's last holder was a reader or writer, not a truncate or remove). A
 * conditional delete, as an object store's delete if unchanged:
 * striped_remove() reads the head first (two round trips). What is
 * compared is the head's metadata and lock, not the bytes: a file
 * overwritten within its size by a writer that has let go of the lock
 * since goes too, and a libradosstriper file (no id) removed and made
 * again with the same layout and size is taken for the one read.
 * @param h, h_size the head as read; h_size at least sizeof(struct
 *        striped_head) of 0.8
 * @return 0; -ECANCELED when the file is not as h says, or its lock is
 *         held or was last held exclusive (nothing removed: striped_remove()
 *         it); -EINVAL for NULL arguments, a short h_size, an invalid
 *         layout, or a file h says does not live in its head alone; -ENOENT
 *         when there is no such object; the name errors of striped_open();
 *         on a pool with a namespace index, its errors (the entry goes
 *         beside the head, and comes back if the file stayed); librados errors
 */
int striped_head_remove(rados_ioctx_t io, const char *name, const struct striped_head *h,
			size_t h_size);

/*
 * Since 0.9: files made now and written later (write-back), as a file
 * system client keeps new files in memory past their close. The maker
 * takes the name at once (striped_head_take(): the head made empty,
 * marked with the holder's client id) and fills it later with
 * striped_head_replace(), which takes the mark off. Every libstriped read
 * of a marked head (striped_open(), striped_head_read(),
 * striped_head_pread(), striped_head_pread2()) first asks the holder to
 * write it back (a notify on its object, "striper.holder.<client id>"),
 * and waits for its answer: another client that opens or reads the file
 * after its writer's close sees what the writer wrote. A holder that does
 * not answer within 5 s (dead, cut off) loses the file's content: the
 * reader takes the mark off, compared first, and reads the file as RADOS
 * has it (empty); the holder's striped_head_replace() then fails with
 * -ECANCELED, so nothing lands afterwards; the process then reads that
 * holder's other files without waiting for a minute. A client never asks
 * itself (the holder's own cluster handle reads its files as RADOS has
 * them). Listings and libradosstriper read what RADOS has (an empty file)
 * until it is written back.
 */
struct striped_holder;

/**
 * Since 0.9: hold files for this cluster handle's client: watch its holder
 * object (made, in io's pool and namespace) and call asked(arg, name), on
 * a thread of the library's, one call at a time, when a reader asks for a
 * file this client holds. asked may block (it writes the file back, with
 * striped_head_replace()); the reader waits until it returns, then reads.
 * A name asked for that is not held (written back meanwhile) needs nothing.
 * @return 0; -EINVAL for NULL arguments; -ENOMEM; librados errors (the
 *         object's write and watch)
 */
int striped_holder_open(rados_ioctx_t io, void (*asked)(void *arg, const char *name), void *arg,
			struct striped_holder **out);

/**
 * Since 0.9: stop holding: no asked() call runs after it returns; the
 * holder object goes. Files still marked are then settled by their next
 * reader after its wait (empty). NULL is ignored.
 */
void striped_holder_close(struct striped_holder *h);

/**
 * Since 0.9: take a file's name now and write it later: striped_head_create2()
 * of an empty file whose head says holder holds it (h->holder its id).
 * Fill it with striped_head_replace() given h (checked against the mark
 * too: -ECANCELED once a reader took it off).
 * @return striped_head_create2()'s returns; -EINVAL also for a NULL holder
 *         or h, or h_size short of struct striped_head's holder
 */
int striped_head_take(rados_ioctx_t io, const char *name, const struct striped_layout *layout,
		      const struct striped_xattr_value *xattrs, size_t nxattrs,
		      struct striped_holder *holder, struct striped_head *h, size_t h_size);

/* Whose a lock holder is (struct striped_locker's owner). */
#define STRIPED_LOCKER_OTHER 0		 /* neither library's: taken by hand (rados lock) */
#define STRIPED_LOCKER_LIBSTRIPED 1	 /* its cookie begins with "striped-" */
#define STRIPED_LOCKER_LIBRADOSSTRIPER 2 /* a UUID cookie with libradosstriper's tag */

/*
 * A holder of a file's lock ("striper.lock" on the head object), as
 * striped_lockers_next() fills it; the strings stay valid until
 * striped_lockers_close(). Later versions may add fields at the end.
 */
struct striped_locker {
	const char *client;  /* its client, "client.4123" */
	const char *cookie;  /* its lock cookie */
	const char *address; /* its client's address, what fencing blocklists */
	const char *tag;     /* the lock's tag: "Tag" while shared, "" exclusive */
	int exclusive;	     /* 1: held exclusive (truncate, remove), 0: shared (open files) */
	int owner;	     /* STRIPED_LOCKER_* */
};

struct striped_lockers;

/**
 * List the holders of a file's lock, read in one round trip without
 * opening the file. libstriped's holders of an open file hold it shared
 * with no expiry and answer a request to let go; libradosstriper's hold it
 * for one call each, so a holder that stays is one whose client died.
 * @param it receives the listing; close it with striped_lockers_close()
 * @return 0 (also when nobody holds the lock); -EINVAL for NULL arguments
 *         or an empty name; -ENAMETOOLONG; -ENOENT when there is no head
 *         object; -ENOMEM; librados errors
 */
int striped_lockers_open(rados_ioctx_t io, const char *name, struct striped_lockers **it);

/**
 * The next holder: l->client is NULL after the last one.
 * @param l_size sizeof(struct striped_locker) as the caller was built with
 * @return 0; -EINVAL for NULL arguments or l_size below the first field
 */
int striped_lockers_next(struct striped_lockers *it, struct striped_locker *l, size_t l_size);

/** Close a listing of striped_lockers_open() (NULL is ignored). */
void striped_lockers_close(struct striped_lockers *it);

/**
 * Break one holder's lock on a file: for an operator, after its client
 * died. STRIPED_LOCK_BREAK_FENCE first blocklists the holder's address and
 * waits for the OSD map that carries the blocklist, as truncate and remove
 * do to a silent holder, so a client that was only paused or cut off lands
 * nothing afterwards (it must reconnect); STRIPED_LOCK_BREAK_UNFENCED breaks
 * the lock alone. The holder is named as striped_lockers_next() lists it.
 * @param client the holder's client ("client.4123")
 * @param cookie its cookie
 * @param how STRIPED_LOCK_BREAK_FENCE or STRIPED_LOCK_BREAK_UNFENCED
 * @return 0; -EINVAL for NULL or empty arguments or an unknown how;
 *         -ENAMETOOLONG; -ENOENT when there is no head object or no such
 *         holder; -EACCES
 *         when this client may not blocklist (nothing was changed);
 *         librados errors
 */
int striped_lock_break(rados_ioctx_t io, const char *name, const char *client,
		       const char *cookie, int how);

/**
 * Remove the file's orphans: what its objects hold past its size. Under
 * the file's exclusive lock, taken as striped_truncate() takes it (holders
 * asked to let go, a silent libstriped holder fenced), so no live writer's
 * data is cut: the size is read under the lock, objects wholly past it are
 * removed and the last ones cut to it, up to the high-water mark by name
 * (as truncate) and the objects named in objectnos besides (found past the
 * mark by listing the pool); then the mark comes down to the size, fenced
 * by the lock. No byte within the size changes; the head object is never
 * removed. When the file has no head (libradosstriper's remove cleans up
 * to the size only, so objects past it up to the mark outlive it), the
 * objects in objectnos are removed, each only if it did not change since
 * it was found to have no head (a file created again meanwhile keeps its
 * data): they must be the file's (name.%016llx, not another application's
 * objects named so). A head with corrupt metadata is never touched.
 * @param objectnos object numbers of name found by listing the pool (may
 *        be NULL when n is 0)
 * @return 0; -EINVAL for NULL or empty arguments; -ENAMETOOLONG; -ENOENT
 *         when the file has no head and n is 0; -ENODATA when the head is no striped
 *         file; -EUCLEAN when its metadata is corrupt (nothing changed);
 *         -EBUSY and -EACCES as for striped_truncate(); -ENOMEM; librados
 *         errors
 */
int striped_repair(rados_ioctx_t io, const char *name, const uint64_t *objectnos, size_t n);
/* Since 0.6: latency percentiles.                                          */

/*
 * Latency percentiles of one kind of call, in nanoseconds, from submission
 * to completion (as striped_io_stats.latency_ns). They come from a
 * histogram of log-scaled buckets, 32 to each power of two, counted
 * without locks: a percentile (nearest rank) is the upper end of the bucket
 * holding it, at most 1/32 (3.1%) above the true value and never above
 * max_ns. All 0 while calls is 0.
 */
struct striped_percentiles {
	uint64_t calls;	  /* calls counted */
	uint64_t p50_ns;  /* the median */
	uint64_t p90_ns;
	uint64_t p99_ns;
	uint64_t p999_ns; /* the 99.9th percentile */
	uint64_t max_ns;  /* the slowest call, exact */
};

/* What striped_file_latency() fills. Later versions may add fields at the end. */
struct striped_latency {
	struct striped_percentiles read;  /* striped_read(), striped_readv(), their aio forms */
	struct striped_percentiles write; /* striped_write(), striped_writev(), their aio
					   * forms, and the data of appends and of
					   * striped_write_full() (an append's claim on the
					   * head comes before, uncounted) */
};

/**
 * Latency percentiles of the file's reads and of its writes since it was
 * opened (since 0.6): an application reads its own p50/p99/p99.9 here. A
 * call counts once its result is known, before its callback runs; failed
 * calls count too (as in striped_file_stats()), calls refused before they
 * started do not. Stat, discard and flush calls count in neither. Safe
 * while calls run: it reads the histograms without stopping them.
 * @param lat     filled with up to lat_size bytes of struct striped_latency
 * @param lat_size sizeof(struct striped_latency) as the caller was built with
 * @return 0; -EINVAL for NULL f or lat
 */
int striped_file_latency(struct striped_file *f, struct striped_latency *lat, size_t lat_size);

#ifdef __cplusplus
}
#endif

#endif /* STRIPED_H */
