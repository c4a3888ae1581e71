// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A libradosstriper striper on libstriped: the state behind a RadosStriper
 * (and its copies, and the rados_striper_t made of it), and every call
 * translated to libstriped's public API.
 *
 * libradosstriper opens a file by name in every call: it takes the lock,
 * reads the layout and size, writes the size, works, and unlocks, each a
 * round trip. Here a call takes a libstriped handle kept per file name
 * (opened on first use, its lock let go of by libstriped's lease when idle
 * or when another client asks), so a call costs what the same call costs
 * on an open libstriped handle. Handles close when the striper goes, when
 * their file is removed through it, and when many more than are in use
 * are open.
 */
#ifndef COMPAT_STRIPER_H
#define COMPAT_STRIPER_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <rados/buffer.h>
#include <rados/librados.h>
#include <rados/librados.hpp>
#include <striped.h>

#include "handle_cache.h"
#include "write_runs.h"

namespace compat
{

/* A read into a buffer of ours larger than this first learns the size: the buffer is the file's bytes, not len. */
constexpr size_t READ_PREALLOC_MAX = 64u << 20;

/* An aio read finished, waiting for those before it to complete (deliver_in_order()). */
struct HeldRead {
	rados_completion_t c = nullptr;
	int rval = 0;
	bool stale = false; /* its handle's file is gone */
};
using HeldReads = std::map<uint64_t, HeldRead>;

/*
 * An open libstriped handle of one file, shared by the striper's calls on
 * it. It owns the file: deleting it closes the file (a close waits for the
 * file's calls, so never in a libstriped callback: close_handle()).
 */
struct Handle {
	Handle() = default;
	Handle(const Handle &) = delete;
	Handle &operator=(const Handle &) = delete;
	~Handle() { striped_close(f); }

	std::string key;		  /* namespace, NUL, name */
	struct striped_file *f = nullptr;
	int refs = 0;			  /* the cache's while in it, and each call's */
	bool in_map = false;		  /* in the striper's HandleCache */
	uint64_t last_used_ns = 0;
	/*
	 * aio reads complete in the order they were made (deliver_in_order()):
	 * the tickets given, the next one to complete, those finished and not
	 * completed yet, whether a thread is completing them.
	 */
	uint64_t reads_started = 0;
	uint64_t reads_delivered = 0;
	HeldReads reads_held;
	bool delivering = false;
	/* aio writes gathered into runs (write_runs.h, write_gather.cc) */
	WriteGather writes;
	/*
	 * aio reads gathered into runs (read_gather.cc): the run gathering, the
	 * reads of runs sent and not complete, how many reads a run gathers
	 * before it goes, whether its timer is set, since when no run is out.
	 */
	std::unique_ptr<struct ReadRun> reading;
	size_t read_runs_unsent = 0; /* out of reading, not yet handed to libstriped */
	size_t reads_out = 0;
	size_t read_target = 1;
	bool read_timer = false;
	uint64_t reads_idle_ns = 0; /* when the last run out was over */
};

/* What an aio call leaves behind until its completion: the translation of its result. */
using ResultFn = std::function<int(ssize_t result)>;

/*
 * Contiguous aio reads gathered into one (read_gather.cc): each read's
 * buffer, in the order of the file, and what completes it.
 */
struct ReadMember {
	rados_completion_t c;
	char *buf;
	size_t len;
	ResultFn result; /* given its bytes (or the run's error), gives its rval */
	/*
	 * Its place in the file's order of reads (key: its ticket), allocated
	 * when it was made, so that completing it allocates nothing.
	 */
	HeldReads::node_type held;
};

struct ReadRun {
	Handle *handle = nullptr; /* where its reads were made: each holds a reference */
	uint64_t off = 0;
	uint64_t len = 0;
	std::vector<ReadMember> members;
	uint64_t due_ns = 0; /* when it goes even if short */

	uint64_t end() const { return off + len; }
};

/* Where an aio read's bytes go, given how many it may get (nullptr: no memory). */
using ReadBufferFn = std::function<char *(size_t want)>;

/*
 * How a call gets its file's handle (acquire()): create: the file is made
 * (in the striper's layout) if it is not there; fresh: not a handle idle
 * for longer than the lease, whose next call would take the lock back and
 * could find the file re-created meanwhile.
 */
struct Open {
	bool create;
	bool fresh;
};
constexpr Open open_existing{false, false};
constexpr Open open_or_create{true, false};
constexpr Open open_or_create_fresh{true, true};

/* What a call sends first of the file's aio calls still gathering. */
enum class Gathered {
	flush,	     /* every one: reads sent, writes sent and waited for */
	keep_writes, /* reads sent: an aio write, which joins the writes */
	keep_reads,  /* writes sent and waited for: an aio read, which joins the reads */
};
/* Starts the libstriped side of an aio call on an open file. */
using StartFn = std::function<int(struct striped_file *f, struct striped_completion *sc)>;
/* The same for a write of a bufferlist's bytes, made contiguous at data. */
using BufferStartFn =
	std::function<int(struct striped_file *f, struct striped_completion *sc, const char *data)>;

/* The monotonic clock in nanoseconds: when a handle was last used, when a gathered run is due. */
uint64_t now_ns();

/* An I/O context of our own, destroyed with its owner. */
struct IoctxDestroy {
	void operator()(void *io) const noexcept { rados_ioctx_destroy(io); }
};
using OwnedIoctx = std::unique_ptr<void, IoctxDestroy>;

} // namespace compat

namespace libradosstriper
{

struct RadosStriperImpl {
	/* A striper on io's pool; io's namespace is followed at each call. */
	static int create(rados_ioctx_t io, RadosStriperImpl **out);

	/* The references of RadosStriper objects and rados_striper_t handles. */
	void get_user();
	void put_user();

	int set_stripe_unit(unsigned int v);
	int set_stripe_count(unsigned int v);
	int set_object_size(unsigned int v);

	int write(const char *name, const char *buf, size_t len, uint64_t off);
	int writev(const char *name, const struct iovec *iov, int iovcnt, uint64_t off);
	int write_full(const char *name, const char *buf, size_t len);
	int append(const char *name, const char *buf, size_t len);
	int read(const char *name, char *buf, size_t len, uint64_t off);
	int read(const char *name, ceph::buffer::list *bl, size_t len, uint64_t off);
	int stat(const char *name, uint64_t *size, struct timespec *mtime);
	int remove(const char *name);
	int trunc(const char *name, uint64_t size);

	int getxattr(const char *name, const char *xname, std::string *value);
	int setxattr(const char *name, const char *xname, const void *value, size_t len);
	int rmxattr(const char *name, const char *xname);
	int getxattrs(const char *name, struct striped_xattrs **it);

	/* aio: c completes with rval as libradosstriper gives it. */
	int aio_write(const char *name, rados_completion_t c, const char *buf, size_t len,
		      uint64_t off);
	int aio_write(const char *name, rados_completion_t c, const ceph::buffer::list &bl,
		      size_t len, uint64_t off);
	int aio_write_full(const char *name, rados_completion_t c, const ceph::buffer::list &bl);
	int aio_append(const char *name, rados_completion_t c, const ceph::buffer::list &bl,
		       size_t len);
	int aio_read(const char *name, rados_completion_t c, char *buf, size_t len, uint64_t off);
	int aio_read(const char *name, rados_completion_t c, ceph::buffer::list *bl, size_t len,
		     uint64_t off);
	int aio_stat(const char *name, rados_completion_t c, uint64_t *size, time_t *mtime,
		     struct timespec *mtime_ns);
	int aio_remove(const char *name, rados_completion_t c);
	/* Wait until every aio call started before it has completed. */
	int aio_flush();

      private:
	RadosStriperImpl() = default;
	~RadosStriperImpl() = default;

	int current_namespace(std::string *ns);
	int named_namespace(const char *name, std::string *ns);
	int open_ioctx(const std::string &ns, rados_ioctx_t *io);
	int with_ioctx(const std::function<int(rados_ioctx_t)> &call);
	int acquire(const char *name, compat::Open open, compat::Handle **out,
		    compat::Gathered first = compat::Gathered::flush);
	int acquire_handle(const char *name, compat::Open open, compat::Handle **out);
	int acquire_in(const std::string &ns, const char *name, compat::Open open,
		       compat::Handle **out);
	int insert(const std::string &key, struct striped_file *f, compat::Handle **out);
	void forget(compat::Handle *h);
	void release(compat::Handle *h, bool in_callback);
	bool done_with(compat::Handle *h, int r);
	void close_handle(compat::Handle *h, bool in_callback);
	int with_handle(const char *name, compat::Open open,
			const std::function<int(struct striped_file *)> &call);
	int read_length(struct striped_file *f, size_t len, uint64_t off, size_t *want,
			size_t prealloc_max);
	int aio_start(const char *name, compat::Open open, rados_completion_t c,
		      const compat::StartFn &start, compat::ResultFn result);
	void deliver_in_order(compat::Handle *h, compat::HeldReads::node_type held);
	int aio_bufferlist(const char *name, rados_completion_t c, const ceph::buffer::list &bl,
			   size_t len, compat::Open open, const compat::BufferStartFn &start);
	int aio_blocking(rados_completion_t c, std::function<int()> call);
	void aio_done(compat::Handle *h, rados_completion_t c, int rval, bool stale);
	int aio_write_gathered(const char *name, rados_completion_t c, ceph::bufferlist &&data,
			       uint64_t off);
	void pump_locked(compat::Handle *h);
	void send_all(compat::Handle *h, bool in_callback);
	void send_turn_locked(compat::Handle *h, bool in_callback, std::unique_lock<std::mutex> &l);
	void arm_last_locked(compat::Handle *h);
	void gathering_due(compat::Handle *h);
	void flush_gathered(compat::Handle *h);
	bool run_send(compat::Handle *h, std::unique_ptr<compat::WriteRun> run, bool in_callback,
		      bool retried = false);
	void run_on_new_handle(compat::Handle *h, std::unique_ptr<compat::WriteRun> run);
	void run_over(compat::Handle *h, compat::WriteRun *run, int rval, bool in_callback);
	void member_done(rados_completion_t c, int rval);
	int aio_read_gathered(const char *name, rados_completion_t c, size_t len, uint64_t off,
			      size_t prealloc_max, const compat::ReadBufferFn &buffer,
			      compat::ResultFn result);
	void read_join_locked(compat::Handle *h, compat::ReadMember &&m, uint64_t off,
			      std::unique_ptr<compat::ReadRun> fresh,
			      std::vector<std::unique_ptr<compat::ReadRun>> *go);
	std::unique_ptr<compat::ReadRun> take_reading_locked(compat::Handle *h);
	static bool reads_out_locked(const compat::Handle *h);
	static void reads_maybe_idle_locked(compat::Handle *h);
	bool read_timer_locked(compat::Handle *h, uint64_t delay_ns);
	void read_timer_due(compat::Handle *h);
	void send_reads(compat::Handle *h);
	void read_send(std::unique_ptr<compat::ReadRun> run);
	int read_start(compat::Handle *on, std::unique_ptr<compat::ReadRun> *run);
	void read_over(compat::Handle *on, compat::ReadRun *run, ssize_t r);
	static void read_callback(struct striped_completion *sc, void *arg) noexcept;
	static void run_callback(struct striped_completion *sc, void *arg) noexcept;
	void teardown();
	void put_ref();
	static void aio_callback(struct striped_completion *sc, void *arg) noexcept;

	std::atomic<int> refs_{1}; /* memory: the users' (all as one) and each aio call's */
	rados_ioctx_t user_io_ = nullptr;
	/* the user's IoCtx, kept alive as libradosstriper keeps it */
	std::unique_ptr<librados::IoCtx> user_io_ref_;
	/* a reference to its cluster handle, as libradosstriper's */
	std::unique_ptr<librados::Rados> cluster_ref_;
	rados_t cluster_ = nullptr;
	int64_t pool_ = 0;
	std::mutex lock_;
	std::condition_variable changed_;
	int users_ = 1;
	struct striped_layout layout_ = STRIPED_LAYOUT_DEFAULT_INIT;
	std::map<std::string, compat::OwnedIoctx> ioctxs_; /* one of our own per namespace */
	compat::HandleCache handles_;			   /* under lock_ */
	uint64_t in_flight_ = 0;			   /* aio calls */
	uint64_t closing_ = 0; /* handles being closed on the work thread */
};

} // namespace libradosstriper

#endif
