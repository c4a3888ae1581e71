// SPDX-License-Identifier: LGPL-2.1-or-later
#include "jobs.h"

#include <condition_variable>
#include <deque>
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

	bool is_current() const
	{
		return thread_.get_id() == std::this_thread::get_id();
	}

      private:
	void loop()
	{
		for (;;) {
			std::function<void()> job;
			{
				std::unique_lock<std::mutex> l(lock_);
				cond_.wait(l, [this] { return !queue_.empty(); });
				job = std::move(queue_.front());
				queue_.pop_front();
			}
			job();
		}
	}

	std::once_flag started_;
	std::thread thread_;
	std::mutex lock_;
	std::condition_variable cond_;
	std::deque<std::function<void()>> queue_;
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

bool on_callback_thread()
{
	return callbacks_thread().is_current();
}

} // namespace compat
