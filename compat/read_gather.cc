// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aio reads of one file gathered into runs.
 *
 * XrdCeph reads a file for xrdcp as 64 KiB aio reads, 8 in flight, and makes
 * the next ones as they complete. Sent one by one, each is a RADOS read of
 * its own, 16384 per GiB, and the OSDs' CPU per read is what XRootD, on the
 * same cores, then lacks (dropin-limits.md).
 *
 * So a file's aio reads gather as its aio writes do (write_gather.cc): a
 * read that continues the run gathering joins it, any other sends it and
 * starts a new one. A run goes as one libstriped read, its bytes scattered
 * straight into its reads' buffers (striped_aio_readv(): no copy), once it
 * holds half as many reads as the application had in flight when a run last
 * completed (read_target: one for a caller with one or two reads in flight,
 * who so waits no longer than before; two runs out at once, RUNS_OUT), once
 * it is RUN_MAX long, once another call is made on the file, or once it
 * waited GATHER_WAIT_NS with no run of the file out, as a run of writes
 * does (write_gather.cc): its wait behind a run out does not count, since
 * the reads that complete with that run are the ones the application makes
 * next. (Counted from when it began, a busy host that held the application
 * back for a moment sent runs short, and the count then learnt to wait for
 * fewer.) Each read then completes with its part of the bytes (short or
 * none past the end of the file, zeros in holes) or with the run's error,
 * in the order the reads were made, one thread at a time, allocating
 * nothing in the callback (deliver_in_order()).
 *
 * A run is sent after the last of its reads was made, so each read sees
 * every write acknowledged before it was made, as libstriped promises and
 * as stock, which sends each read before its call returns, does. Any other
 * call on the file through the striper first sends the run gathering and
 * waits until every run another thread took is handed to libstriped
 * (acquire(), send_reads()), so a write made after a read never reaches
 * RADOS before it. (A write through another striper or connection is
 * ordered with the read only once the read completed, as any two clients'
 * calls are.)
 */
#include "striper.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <new>
#include <sys/uio.h>

#include "guard.h"
#include "jobs.h"
#include "rados_completion.h"

using compat::now_ns;
using compat::Handle;
using compat::ReadMember;
using compat::ReadRun;

namespace
{

/* A run is sent once it is this long (and a longer read is never gathered). */
constexpr uint64_t RUN_MAX = 4u << 20;
/* Reads of one run at most (striped_aio_readv()'s segments). */
constexpr size_t RUN_READS_MAX = IOV_MAX;
/*
 * A run waits for this share of the reads the application keeps in flight,
 * so that this many runs of a file are out at once: a file's reads never go
 * in turns with the application, which refills while a run is out.
 */
constexpr size_t RUNS_OUT = 2;
/* The longest a read waits for others to gather with it while no run of its file is out. */
constexpr uint64_t GATHER_WAIT_NS = 1000 * 1000;

/* A run on the wire, until libstriped completes it: the handle it went on, and its reference. */
struct ReadCall {
	libradosstriper::RadosStriperImpl *striper;
	Handle *handle;
	std::unique_ptr<ReadRun> run;
	std::vector<struct iovec> iov;
};

} // namespace

namespace libradosstriper
{

/*
 * An aio read of len bytes at off into buffer(want), completed with
 * result(bytes or error) (see above). c is untouched when it fails to start.
 * A handle whose file is gone is forgotten and the call made once more on
 * a new one, as every call of the striper is.
 */
int RadosStriperImpl::aio_read_gathered(const char *name, rados_completion_t c, size_t len,
					uint64_t off, size_t prealloc_max,
					const compat::ReadBufferFn &buffer, compat::ResultFn result)
{
	int r = compat::completion_supported();

	if (r)
		return r;
	if (!c)
		return -EINVAL;
	Handle *h = nullptr;
	size_t want = 0;
	for (int attempt = 0; attempt < 2; attempt++) {
		r = acquire(name, compat::open_existing, &h, compat::Gathered::keep_reads);
		if (r)
			return r;
		r = read_length(h->f, len, off, &want, prealloc_max);
		if (!r || !done_with(h, r))
			break;
	}
	if (r)
		return r;
	/* What it may need, had before the lock: a run of its own, its place in it, its buffer. */
	std::unique_ptr<ReadRun> fresh(new (std::nothrow) ReadRun);
	std::vector<std::unique_ptr<ReadRun>> go;
	compat::HeldReads::node_type held;
	char *buf = nullptr;
	try {
		if (fresh) {
			fresh->members.reserve(1);
			go.reserve(2);
			compat::HeldReads node;
			held = node.extract(node.emplace(0, compat::HeldRead{}).first);
			buf = buffer(want);
		}
	} catch (...) { /* std::bad_alloc, or ceph::buffer's */
		buf = nullptr;
	}
	if (!fresh || held.empty() || (!buf && want)) {
		done_with(h, -ENOMEM);
		return -ENOMEM;
	}
	/* Held before any other thread can see it: its run may complete at once. */
	refs_++;
	compat::completion_hold(c);
	{
		std::lock_guard<std::mutex> l(lock_);
		in_flight_++;
		held.key() = h->reads_started++;
		ReadMember m{c, buf, want, std::move(result), std::move(held)};
		read_join_locked(h, std::move(m), off, std::move(fresh), &go);
	}
	for (auto &run : go)
		read_send(std::move(run));
	return 0;
}

/*
 * m joins h's run gathering, or that run goes (into *go) and m starts a new
 * one in fresh; the run goes too once it is ready.
 */
void RadosStriperImpl::read_join_locked(Handle *h, ReadMember &&m, uint64_t off,
					std::unique_ptr<ReadRun> fresh,
					std::vector<std::unique_ptr<ReadRun>> *go)
{
	ReadRun *run = h->reading.get();
	size_t len = m.len;
	bool joined = false;

	if (run && len && run->end() == off && run->len + len <= RUN_MAX &&
	    run->members.size() < RUN_READS_MAX) {
		try {
			run->members.push_back(std::move(m));
			run->len += len;
			joined = true;
		} catch (const std::bad_alloc &) {
		}
	}
	if (!joined) {
		if (h->reading)
			go->push_back(take_reading_locked(h)); /* reserved: does not throw */
		fresh->handle = h;
		fresh->off = off;
		fresh->len = len;
		fresh->members.push_back(std::move(m)); /* reserved: does not throw */
		fresh->due_ns = now_ns() + GATHER_WAIT_NS;
		h->reading = std::move(fresh);
		run = h->reading.get();
	}
	if (run->members.size() >= h->read_target || !len || run->len >= RUN_MAX ||
	    (!h->read_timer && !read_timer_locked(h, GATHER_WAIT_NS)))
		go->push_back(take_reading_locked(h)); /* reserved: does not throw */
}

/*
 * The run gathering leaves h, to be handed to libstriped (read_send()) by
 * the thread that took it: until then send_reads() waits for it.
 */
std::unique_ptr<ReadRun> RadosStriperImpl::take_reading_locked(Handle *h)
{
	if (h->reading)
		h->read_runs_unsent++;
	return std::move(h->reading);
}

/* Whether a run of h's reads is out: taken from h->reading and not over. */
bool RadosStriperImpl::reads_out_locked(const Handle *h)
{
	return h->reads_out || h->read_runs_unsent;
}

/* A run of h's is over or was handed on: from now on, h may have none out. */
void RadosStriperImpl::reads_maybe_idle_locked(Handle *h)
{
	if (!reads_out_locked(h))
		h->reads_idle_ns = now_ns();
}

/*
 * The run gathering goes once its time is up: one timer a handle, set again
 * for the run then gathering when it fires early, and while a run of the
 * file is out (a callback, where that run is over, allocates no timer). It
 * holds a reference to h and counts as a call in flight, so that the handle
 * and the striper outlive it. false: no timer could be set (no memory).
 */
bool RadosStriperImpl::read_timer_locked(Handle *h, uint64_t delay_ns)
{
	h->read_timer = true;
	h->refs++;
	in_flight_++;
	refs_++;
	try {
		compat::timer_run(delay_ns, [this, h] { read_timer_due(h); });
	} catch (const std::bad_alloc &) { /* the run goes now instead */
		h->read_timer = false;
		h->refs--; /* the caller's reference still holds it */
		in_flight_--;
		refs_--;
		return false;
	}
	return true;
}

void RadosStriperImpl::read_timer_due(Handle *h)
{
	std::unique_ptr<ReadRun> run;
	{
		std::lock_guard<std::mutex> l(lock_);
		uint64_t now = now_ns();
		h->read_timer = false;
		if (h->reading) {
			bool out = reads_out_locked(h);
			uint64_t due =
			    std::max(h->reading->due_ns, h->reads_idle_ns + GATHER_WAIT_NS);
			if (!out && now >= due) {
				/* It waited the whole time: a run waits for as many as it got. */
				h->read_target = h->reading->members.size();
				run = take_reading_locked(h);
			} else if (!read_timer_locked(h, out ? GATHER_WAIT_NS : due - now)) {
				run = take_reading_locked(h);
			}
		}
		in_flight_--;
	}
	if (run)
		read_send(std::move(run));
	release(h, false);
	changed_.notify_all();
	put_ref();
}

/*
 * Before another call on h: the run gathering goes now, and the call waits
 * until the runs other threads took are handed to libstriped too, so that
 * it reaches RADOS after every read made before it. Not in a callback.
 */
void RadosStriperImpl::send_reads(Handle *h)
{
	std::unique_ptr<ReadRun> run;
	{
		std::lock_guard<std::mutex> l(lock_);
		run = take_reading_locked(h);
	}
	if (run)
		read_send(std::move(run));
	std::unique_lock<std::mutex> l(lock_);
	changed_.wait(l, [h] { return h->read_runs_unsent == 0; });
}

/*
 * One libstriped read of the run, into its reads' buffers. Refused before
 * anything was sent by a handle whose file is gone (-ESTALE), it goes once
 * more on a new handle of the same name; any other refusal completes its
 * reads with it. Never in a libstriped callback: it may wait.
 */
void RadosStriperImpl::read_send(std::unique_ptr<ReadRun> run)
{
	ReadRun *raw = run.get();
	Handle *h = raw->handle;
	Handle *on = h;
	int r = 0;

	{
		std::lock_guard<std::mutex> l(lock_);
		on->reads_out += raw->members.size();
		on->refs += 2; /* the call's, and ours until the run is handed over */
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		r = read_start(on, &run);
		if (!r)
			break;
		if (r != -ESTALE || attempt)
			break;
		forget(on);
		size_t nul = on->key.find('\0');
		Handle *fresh = nullptr;
		int a = acquire_in(on->key.substr(0, nul), on->key.c_str() + nul + 1, compat::open_existing,
				   &fresh);
		release(on, false); /* the call's, on the gone handle */
		on = fresh;
		if (a) {
			r = a;
			break;
		}
	}
	if (r)
		read_over(on, raw, r);
	{
		std::lock_guard<std::mutex> l(lock_);
		h->read_runs_unsent--;
		reads_maybe_idle_locked(h);
	}
	changed_.notify_all();
	release(h, false);
}

/* Start the run on handle on; the call takes the run (left in *run when refused). */
int RadosStriperImpl::read_start(Handle *on, std::unique_ptr<ReadRun> *run)
{
	struct striped_completion *sc = nullptr;
	ReadRun *raw = run->get();
	ReadCall *call = new (std::nothrow) ReadCall{this, on, nullptr, {}};
	int r = -ENOMEM;

	if (!call)
		return r;
	try {
		call->iov.reserve(raw->members.size());
		for (const ReadMember &m : raw->members)
			call->iov.push_back({m.buf, m.len});
		r = striped_completion_create(read_callback, call, &sc);
	} catch (const std::bad_alloc &) {
	}
	if (!r) {
		call->run = std::move(*run);
		r = striped_aio_readv(on->f, sc, call->iov.data(), (int)call->iov.size(), raw->off);
		if (!r)
			return 0;
		*run = std::move(call->run);
		striped_completion_release(sc);
	}
	delete call;
	return r;
}

/* libstriped's callback: never waits. */
void RadosStriperImpl::read_callback(struct striped_completion *sc, void *arg) noexcept
{
	auto *call = static_cast<ReadCall *>(arg);
	ssize_t r = striped_completion_result(sc);

	striped_completion_release(sc);
	if (r == -ESTALE)
		call->striper->forget(call->handle);
	call->striper->read_over(call->handle, call->run.get(), r);
	delete call;
}

/*
 * A run is over with r (its bytes, or an error): a run of its file waits
 * from now on for as many reads as the application has in flight, and each
 * read completes in its turn with its part. on (the handle the run went on,
 * whose reference the call held; none when a new one could not be had) goes
 * back.
 */
void RadosStriperImpl::read_over(Handle *on, ReadRun *run, ssize_t r)
{
	Handle *h = run->handle;
	{
		std::lock_guard<std::mutex> l(lock_);
		size_t in_flight = h->reads_out + (h->reading ? h->reading->members.size() : 0);
		h->read_target = in_flight > RUNS_OUT ? (in_flight + RUNS_OUT - 1) / RUNS_OUT : 1;
		h->reads_out -= run->members.size();
		reads_maybe_idle_locked(h);
	}
	uint64_t at = run->off;
	bool stale = r == -ESTALE;
	for (ReadMember &m : run->members) {
		ssize_t mine = r;
		if (r >= 0) {
			uint64_t got = run->off + (uint64_t)r;
			mine = got <= at ? 0 : (ssize_t)std::min<uint64_t>(m.len, got - at);
		}
		at += m.len;
		int rval = compat::guard([&] { return m.result(mine); });
		m.held.mapped() = compat::HeldRead{m.c, rval, stale};
		deliver_in_order(h, std::move(m.held));
	}
	if (on)
		release(on, true);
}

} // namespace libradosstriper
