// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aio writes of one file gathered into runs.
 *
 * XrdCeph writes a file as 64 KiB aio writes, 8 in flight, and refills its 8
 * buffers as they complete. Sent one by one, each is a RADOS write of its
 * own: on the sandbox cluster the OSDs then spend 3-4 s of CPU per GiB on
 * them, CPU that XRootD, on the same cores, needs (libstriped's 64 KiB x 8
 * writes reach ~200 MiB/s, 512 KiB x 1 ~400).
 *
 * So the aio writes of a file queue as runs, in the order they were made: a
 * write that continues the last run joins it, any other starts a new one.
 * Each run is sent as one libstriped write, and each application completion
 * of it completes once the run has landed, with its result: nothing is
 * acknowledged before its bytes are on RADOS, as with stock. Runs leave the
 * queue in order. The last one goes when it holds as many writes as the
 * application had in flight when a run last completed (run_target: one for
 * a caller with one write in flight, who so waits no longer than before)
 * while fewer than RUNS_OUT_MAX runs are out, or once it waited
 * GATHER_WAIT_NS with no run out (the count then learns what it got); the
 * others, a run RUN_MAX long and all of them before another call on the
 * file (flush_gathered()) go at once. But a run never goes while a run it overlaps is out:
 * libstriped does not order calls in flight together (two writes held for the same size update may
 * go out in either order), and a later write over the same bytes must win, as with stock, which
 * sends each write's object requests before its aio call returns.
 *
 * The queue and these decisions are a class of their own (write_runs.h);
 * here the runs are sent and completed.
 *
 * Runs are handed to libstriped in the order they left the queue, by one
 * thread at a time (the first that finds none doing it; a run that has to
 * wait, refused with -EAGAIN in a callback, takes the turn to the timer
 * thread with it): an erasure-coded pool without overwrites takes a
 * file's writes only in order, each where the one before ended.
 */
#include "striper.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <new>

#include "jobs.h"
#include "rados_completion.h"

using compat::now_ns;
using compat::Handle;
using compat::WriteRun;

namespace
{

/* The longest a write waits for others to gather with it. */
constexpr uint64_t GATHER_WAIT_NS = 1000 * 1000;

/* A run on the wire, until libstriped completes it. */
struct RunCall {
	libradosstriper::RadosStriperImpl *striper;
	Handle *handle;
	std::unique_ptr<WriteRun> run;
};

} // namespace

namespace libradosstriper
{

/* An aio write of data at off, queued (see above). c is untouched when it fails to start. */
int RadosStriperImpl::aio_write_gathered(const char *name, rados_completion_t c,
					 ceph::bufferlist &&data, uint64_t off)
{
	int r = compat::completion_supported();

	if (r)
		return r;
	if (!c)
		return -EINVAL;
	if (off > UINT64_MAX - data.length())
		return -EFBIG;
	std::unique_ptr<WriteRun> fresh(new (std::nothrow) WriteRun);
	try {
		if (fresh)
			fresh->members.reserve(1);
	} catch (const std::bad_alloc &) {
		fresh.reset();
	}
	if (!fresh)
		return -ENOMEM;
	Handle *h;
	r = acquire(name, compat::open_or_create, &h, compat::Gathered::keep_writes);
	if (r)
		return r;
	/* Held before any other thread can see it: its run may complete at once. */
	refs_++;
	compat::completion_hold(c);
	bool joined = false;
	{
		std::lock_guard<std::mutex> l(lock_);
		try {
			joined = h->writes.join(c, data, off);
			if (!joined) {
				fresh->off = off;
				fresh->members.push_back(c); /* reserved: does not throw */
				fresh->data.claim_append(data);
				h->writes.queue(std::move(fresh)); /* with our handle reference */
			}
		} catch (const std::bad_alloc &) {
			r = -ENOMEM;
		}
		if (!r) {
			in_flight_++;
			pump_locked(h);
			arm_last_locked(h);
		}
	}
	if (r) {
		compat::completion_unhold(c);
		refs_--;
		release(h, false);
		return r;
	}
	if (joined)
		release(h, false); /* the run holds the handle */
	send_all(h, false);
	return 0;
}

/* The runs of h's queue that may go now (WriteGather::pump()). */
void RadosStriperImpl::pump_locked(Handle *h)
{
	h->writes.pump(now_ns());
}

/* Hand h's pumped runs to libstriped, unless another thread has the turn. */
void RadosStriperImpl::send_all(Handle *h, bool in_callback)
{
	std::unique_lock<std::mutex> l(lock_);

	if (h->writes.take_turn())
		send_turn_locked(h, in_callback, l);
}

/*
 * With the turn of sending: the runs pumped, one after another, until none
 * is left or one had to wait and took the turn with it.
 */
void RadosStriperImpl::send_turn_locked(Handle *h, bool in_callback,
					std::unique_lock<std::mutex> &l)
{
	while (std::unique_ptr<WriteRun> run = h->writes.next_to_send()) {
		l.unlock();
		bool waits = run_send(h, std::move(run), in_callback);
		l.lock();
		if (waits)
			return;
	}
	h->writes.give_turn();
}

/*
 * The last run, still gathering with no run out, waits GATHER_WAIT_NS at
 * most from now (its wait behind a run out does not count: the writes that
 * complete with that run are the ones the application sends next). Its
 * timer holds a reference to h and counts as a call in flight, so that the
 * handle and the striper outlive it.
 */
void RadosStriperImpl::arm_last_locked(Handle *h)
{
	const WriteRun *run = h->writes.time_last(now_ns(), GATHER_WAIT_NS);

	if (!run)
		return;
	uint64_t gen = run->gen;
	h->refs++;
	in_flight_++;
	refs_++;
	compat::timer_run(GATHER_WAIT_NS, [this, h, gen] {
		{
			std::lock_guard<std::mutex> l(lock_);
			h->writes.timer_due(gen);
		}
		gathering_due(h);
	});
}

/* A run's wait is over: what may go goes; the timer's references go. */
void RadosStriperImpl::gathering_due(Handle *h)
{
	{
		std::lock_guard<std::mutex> l(lock_);
		pump_locked(h);
	}
	send_all(h, false);
	release(h, false);
	{
		std::lock_guard<std::mutex> l(lock_);
		in_flight_--;
	}
	changed_.notify_all();
	put_ref();
}

/*
 * Before a call that must come after the aio writes made on h: every run
 * goes (as soon as the runs it overlaps are in), and the call waits until
 * all of them completed: libstriped does not order calls in flight
 * together, and the application made its call after them. Never on the
 * timer thread, which sends the runs it would wait for.
 */
void RadosStriperImpl::flush_gathered(Handle *h)
{
	std::unique_lock<std::mutex> l(lock_);

	if (h->writes.idle())
		return;
	h->writes.flush_begin();
	pump_locked(h);
	l.unlock();
	send_all(h, false);
	l.lock();
	changed_.wait(l, [h] { return h->writes.idle(); });
	h->writes.flush_end();
}

/*
 * One libstriped write of the run's bytes (made contiguous: one copy when
 * gathered from several writes), sent as they lie. From a libstriped
 * callback it must not wait: STRIPED_IO_NOWAIT, and on -EAGAIN the send is
 * made again on the timer thread, which may wait, and takes the turn of
 * sending with it (returns true). A handle whose file is gone (-ESTALE,
 * nothing sent) is forgotten and the run sent once more on a new one, as
 * every call of the striper is.
 */
bool RadosStriperImpl::run_send(Handle *h, std::unique_ptr<WriteRun> run, bool in_callback,
				bool retried)
{
	struct striped_completion *sc = nullptr;
	WriteRun *w = run.get();
	int r;

	try {
		const char *data = w->data.length() ? w->data.c_str() : "";
		auto *call = new RunCall{this, h, std::move(run)};
		r = striped_completion_create(run_callback, call, &sc);
		if (!r) {
			r = striped_aio_write2(h->f, sc, data, w->data.length(), w->off,
					       STRIPED_IO_ZEROCOPY |
						   (in_callback ? STRIPED_IO_NOWAIT : 0));
			if (!r)
				return false;
			striped_completion_release(sc);
		}
		run = std::move(call->run);
		delete call;
	} catch (const std::bad_alloc &) {
		r = -ENOMEM;
	}
	if (r == -ESTALE)
		forget(h);
	if ((r == -EAGAIN || r == -ESTALE) && in_callback) {
		/* The timer thread may wait, and never waits for runs (flush_gathered()). */
		WriteRun *raw = run.release();
		compat::timer_run(0, [this, h, raw] {
			run_send(h, std::unique_ptr<WriteRun>(raw), false);
			std::unique_lock<std::mutex> l(lock_);
			send_turn_locked(h, false, l);
		});
		return true;
	}
	if (r == -ESTALE && !retried) {
		run_on_new_handle(h, std::move(run));
		return false;
	}
	run_over(h, run.get(), r, in_callback);
	return false;
}

/*
 * The run, refused by h's gone file before anything was sent, goes on a
 * new handle of the same name (the runs queued behind it on h follow, each
 * refused the same way).
 */
void RadosStriperImpl::run_on_new_handle(Handle *h, std::unique_ptr<WriteRun> run)
{
	size_t nul = h->key.find('\0');
	Handle *fresh;
	int r = acquire_in(h->key.substr(0, nul), h->key.c_str() + nul + 1, compat::open_or_create, &fresh);

	if (r) {
		run_over(h, run.get(), r, false);
		return;
	}
	{
		std::lock_guard<std::mutex> l(lock_);
		h->writes.forget(run.get());
		fresh->writes.adopt(run.get());
		pump_locked(h);
		arm_last_locked(h);
	}
	changed_.notify_all();
	release(h, false); /* the run's; it holds the new handle's */
	run_send(fresh, std::move(run), false, true);
	send_all(h, false);
}

/* libstriped's callback: never waits. */
void RadosStriperImpl::run_callback(struct striped_completion *sc, void *arg) noexcept
{
	auto *call = static_cast<RunCall *>(arg);
	ssize_t r = striped_completion_result(sc);

	striped_completion_release(sc);
	if (r == -ESTALE)
		call->striper->forget(call->handle);
	call->striper->run_over(call->handle, call->run.get(), r < 0 ? (int)r : 0, true);
	delete call;
}

/*
 * A run is over (landed, failed, or never sent): what may go now goes,
 * then every member completes with rval, then the run's handle reference
 * goes. A run waits from now on for as many writes as the application has
 * in flight.
 */
void RadosStriperImpl::run_over(Handle *h, WriteRun *run, int rval, bool in_callback)
{
	{
		std::lock_guard<std::mutex> l(lock_);
		h->writes.over(run);
		pump_locked(h);
		arm_last_locked(h);
	}
	send_all(h, in_callback);
	for (rados_completion_t c : run->members)
		member_done(c, rval);
	release(h, in_callback);
}

void RadosStriperImpl::member_done(rados_completion_t c, int rval)
{
	compat::completion_finish(c, rval);
	{
		std::lock_guard<std::mutex> l(lock_);
		in_flight_--;
	}
	changed_.notify_all();
	put_ref();
}

} // namespace libradosstriper
