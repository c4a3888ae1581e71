// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libradosstriper's multi completion, as its public API has it: made,
 * given callbacks, asked about, waited for and released. Only the striper's
 * own internal calls ever add requests to one; no public call takes one.
 * So, as in stock libradosstriper (Ceph 16.2), one made through the public
 * API has no request pending: it is complete (and safe) from the start,
 * with result 0, and its callbacks never run, so the "_and_cb" forms say
 * done (and their waits return) only when no callback was set.
 */
#ifndef COMPAT_MULTI_COMPLETION_H
#define COMPAT_MULTI_COMPLETION_H

#include <condition_variable>
#include <mutex>

#include <rados/librados.h>

namespace libradosstriper
{

struct MultiAioCompletionImpl {
	void set_complete_callback(void *arg, rados_callback_t cb);
	void set_safe_callback(void *arg, rados_callback_t cb);
	/* safe: the safe callback's forms; "complete" and "safe" are one since Ceph 14 */
	void wait_for_complete_and_cb(bool safe);
	bool is_complete_and_cb(bool safe);
	int get_return_value();
	void put();

      private:
	std::mutex lock_;
	std::condition_variable cond_;
	int refs_ = 1;
	rados_callback_t complete_cb_ = nullptr, safe_cb_ = nullptr;
	void *complete_arg_ = nullptr, *safe_arg_ = nullptr;
};

} // namespace libradosstriper

#endif
