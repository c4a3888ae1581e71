// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runs of one file's gathered aio writes (write_runs.h): their queue
 * and the decisions on it.
 */
#include "write_runs.h"

#include <algorithm>

namespace
{

/* Runs of one file out at once before the last one waits to gather. */
constexpr unsigned RUNS_OUT_MAX = 1;

} // namespace

namespace compat
{

bool WriteGather::join(rados_completion_t c, ceph::bufferlist &data, uint64_t off)
{
	WriteRun *last = queued_.empty() ? nullptr : queued_.back().get();

	if (!last || last->end() != off || last->data.length() + data.length() > RUN_MAX)
		return false;
	last->members.push_back(c);
	last->data.claim_append(data);
	return true;
}

void WriteGather::queue(std::unique_ptr<WriteRun> run)
{
	run->gen = gen_ + 1;
	queued_.push_back(std::move(run));
	gen_++;
}

bool WriteGather::overlaps_out(const WriteRun *run) const
{
	return std::any_of(out_.begin(), out_.end(), [run](const WriteRun *o) {
		return o->off < run->end() && run->off < o->end();
	});
}

void WriteGather::pump(uint64_t now)
{
	while (!queued_.empty()) {
		WriteRun *run = queued_.front().get();
		bool last = queued_.size() == 1;
		bool ready = !last || flushing_ || run->data.length() >= RUN_MAX;

		if (!ready && out_.size() < RUNS_OUT_MAX)
			ready = run->members.size() >= run_target_ || now >= run->due_ns;
		if (!ready || overlaps_out(run))
			return;
		out_.push_back(run);
		writes_out_ += run->members.size();
		to_send_.push_back(std::move(queued_.front()));
		queued_.pop_front();
	}
}

const WriteRun *WriteGather::time_last(uint64_t now, uint64_t wait)
{
	if (queued_.empty() || !out_.empty() || queued_.back()->due_ns != UINT64_MAX)
		return nullptr;
	queued_.back()->due_ns = now + wait;
	return queued_.back().get();
}

void WriteGather::timer_due(uint64_t gen)
{
	for (auto &q : queued_)
		if (q->gen == gen && out_.empty())
			run_target_ = q->members.size();
}

std::unique_ptr<WriteRun> WriteGather::next_to_send()
{
	if (to_send_.empty())
		return nullptr;
	std::unique_ptr<WriteRun> run = std::move(to_send_.front());
	to_send_.pop_front();
	return run;
}

bool WriteGather::take_turn()
{
	if (sending_)
		return false;
	sending_ = true;
	return true;
}

void WriteGather::adopt(const WriteRun *run)
{
	out_.push_back(run);
	writes_out_ += run->members.size();
}

void WriteGather::forget(const WriteRun *run)
{
	out_.erase(std::find(out_.begin(), out_.end(), run));
	writes_out_ -= run->members.size();
}

void WriteGather::over(const WriteRun *run)
{
	size_t in_flight = writes_out_;

	for (auto &q : queued_)
		in_flight += q->members.size();
	run_target_ = in_flight;
	forget(run);
}

} // namespace compat
