// SPDX-License-Identifier: LGPL-2.1-or-later
#include "jobs.h"

#include <condition_variable>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

namespace compat
{

namespace
{

/*
 * One thread and its queue. Made on first use and never destroyed: at exit
 * the thread is left waiting, as librados leaves its own, rather than joined
 * from a static destructor that may run before or after librados'.
 */
class JobThread
{
      public:
	void run(std::function<void()> job)
	{
		std::call_once(started_, [this] { thread_ = std::thread([this] { loop(); }); });
		{
			std::lock_guard<std::mutex> l(lock_);
			queue_.push_back(std::move(job));
		}
		cond_.notify_one();
	}

	/* job, once delay_ns has passed; before the jobs queued meanwhile if it is due. */
	void run_after(uint64_t delay_ns, std::function<void()> job)
	{
		std::call_once(started_, [this] { thread_ = std::thread([this] { loop(); }); });
		{
			std::lock_guard<std::mutex> l(lock_);
			timed_.emplace(Clock::now() + std::chrono::nanoseconds(delay_ns),
				       std::move(job));
		}
		cond_.notify_one();
	}

	bool is_current() const
	{
		return thread_.get_id() == std::this_thread::get_id();
	}

      private:
	using Clock = std::chrono::steady_clock;

	bool timed_due() const
	{
		return !timed_.empty() && timed_.begin()->first <= Clock::now();
	}

	void loop()
	{
		for (;;) {
			std::function<void()> job;
			{
				std::unique_lock<std::mutex> l(lock_);
				while (queue_.empty() && !timed_due()) {
					if (timed_.empty())
						cond_.wait(l);
					else
						cond_.wait_until(l, timed_.begin()->first);
				}
				if (timed_due()) {
					job = std::move(timed_.begin()->second);
					timed_.erase(timed_.begin());
				} else {
					job = std::move(queue_.front());
					queue_.pop_front();
				}
			}
			job();
		}
	}

	std::once_flag started_;
	std::thread thread_;
	std::mutex lock_;
	std::condition_variable cond_;
	std::deque<std::function<void()>> queue_;
	std::multimap<Clock::time_point, std::function<void()>> timed_;
};

JobThread &callbacks_thread()
{
	static JobThread *t = new JobThread;
	return *t;
}

JobThread &work_thread()
{
	static JobThread *t = new JobThread;
	return *t;
}

} // namespace

void callbacks_run(std::function<void()> job)
{
	callbacks_thread().run(std::move(job));
}

void work_run(std::function<void()> job)
{
	work_thread().run(std::move(job));
}

void timer_run(uint64_t delay_ns, std::function<void()> job)
{
	static JobThread *t = new JobThread;
	t->run_after(delay_ns, std::move(job));
}

bool on_callback_thread()
{
	return callbacks_thread().is_current();
}

} // namespace compat
