// SPDX-License-Identifier: LGPL-2.1-or-later
#include "multi_completion.h"

namespace libradosstriper
{

void MultiAioCompletionImpl::set_complete_callback(void *arg, rados_callback_t cb)
{
	std::lock_guard<std::mutex> l(lock_);
	complete_cb_ = cb;
	complete_arg_ = arg;
	cond_.notify_all();
}

void MultiAioCompletionImpl::set_safe_callback(void *arg, rados_callback_t cb)
{
	std::lock_guard<std::mutex> l(lock_);
	safe_cb_ = cb;
	safe_arg_ = arg;
	cond_.notify_all();
}

/* Done once no callback is left to run: never, while one is set (none ever runs). */
void MultiAioCompletionImpl::wait_for_complete_and_cb(bool safe)
{
	std::unique_lock<std::mutex> l(lock_);
	cond_.wait(l, [&] { return !(safe ? safe_cb_ : complete_cb_); });
}

bool MultiAioCompletionImpl::is_complete_and_cb(bool safe)
{
	std::lock_guard<std::mutex> l(lock_);
	return !(safe ? safe_cb_ : complete_cb_);
}

/* The sum of its requests' results: none. */
int MultiAioCompletionImpl::get_return_value()
{
	return 0;
}

void MultiAioCompletionImpl::put()
{
	bool last;
	{
		std::lock_guard<std::mutex> l(lock_);
		last = --refs_ == 0;
	}
	if (last)
		delete this;
}

} // namespace libradosstriper
