// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The aio writes of one file gathered into runs (the why: write_gather.cc):
 * the queue of runs, which of them may go now, and what the next one waits
 * for. Pure state and decisions: the striper sends the runs and completes
 * them (write_gather.cc). Not locked of its own: the striper's mutex guards
 * every call, as it guards the handle that holds it.
 */
#ifndef COMPAT_WRITE_RUNS_H
#define COMPAT_WRITE_RUNS_H

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include <rados/buffer.h>
#include <rados/librados.h>

namespace compat
{

/* A run is sent once it is this long (and a longer write is never gathered). */
constexpr size_t RUN_MAX = 4u << 20;

/*
 * Contiguous aio writes made while a run of the same file is on the wire,
 * gathered into one write: the bytes from off, and the application's
 * completions, each completed with the run's result.
 */
struct WriteRun {
	uint64_t off = 0;
	ceph::bufferlist data;
	std::vector<rados_completion_t> members;
	uint64_t gen = 0;		 /* which one it is, for its timer */
	uint64_t due_ns = UINT64_MAX; /* when it goes even if short (no timer yet: UINT64_MAX) */

	uint64_t end() const { return off + data.length(); }
};

class WriteGather
{
      public:
	/*
	 * c's write of data at off joins the last run when it continues it and
	 * the run stays within RUN_MAX (data's bytes then move into it): whether
	 * it did. May throw std::bad_alloc, with nothing joined.
	 */
	bool join(rados_completion_t c, ceph::bufferlist &data, uint64_t off);
	/* run, made for one write, queued as the last run. May throw std::bad_alloc. */
	void queue(std::unique_ptr<WriteRun> run);
	/*
	 * The runs that may go now, from the head of the queue, moved to those to
	 * send and counted out: all but the last; the last when a flush waits, it
	 * is RUN_MAX long, or (while fewer than RUNS_OUT_MAX runs are out) it has
	 * as many writes as the run target or its time is up. Never a run that
	 * overlaps one out: libstriped does not order calls in flight together.
	 */
	void pump(uint64_t now);
	/*
	 * The last run, when it gathers with no run out and no time set yet: its
	 * time set to now + wait, returned (its gen names it to timer_due()).
	 */
	const WriteRun *time_last(uint64_t now, uint64_t wait);
	/* Run gen's time is up: if it waited alone, the next runs wait for as many as it got. */
	void timer_due(uint64_t gen);
	/* The next run to hand to libstriped, in order; nullptr when none. */
	std::unique_ptr<WriteRun> next_to_send();
	/* Take the turn of sending: false when another thread has it. */
	bool take_turn();
	void give_turn() { sending_ = false; }
	/* A run out of another handle's queue, sent on this one's file. */
	void adopt(const WriteRun *run);
	/* run is no longer out. */
	void forget(const WriteRun *run);
	/* run is over: forgotten, and the next runs wait for as many writes as are in flight. */
	void over(const WriteRun *run);
	/* A call after the writes made before it: every run goes, while it waits. */
	void flush_begin() { flushing_++; }
	void flush_end() { flushing_--; }
	/* No run queued or out. */
	bool idle() const { return queued_.empty() && out_.empty(); }

      private:
	bool overlaps_out(const WriteRun *run) const;

	std::deque<std::unique_ptr<WriteRun>> queued_; /* not sent, in the order made */
	std::deque<std::unique_ptr<WriteRun>> to_send_; /* out of the queue, not yet sent */
	bool sending_ = false;				/* a thread hands to_send_ over */
	std::vector<const WriteRun *> out_;		/* sent, not complete */
	size_t writes_out_ = 0;				/* the members of out_ */
	unsigned flushing_ = 0;
	uint64_t gen_ = 0;
	size_t run_target_ = 1; /* how many writes the last run gathers before it goes */
};

} // namespace compat

#endif
