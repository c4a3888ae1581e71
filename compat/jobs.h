// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Threads of the drop-in's own, that run jobs in order. Their jobs may wait:
 * they run in no librados or libstriped callback thread.
 * - callbacks: the applications' completion callbacks (as librados' finisher
 *   runs them), and what must follow a call that ended in a callback thread
 *   (closing a handle, destroying a striper);
 * - work: the blocking libstriped calls behind aio calls libstriped has no
 *   asynchronous form of (stat with its mtime), so that they never hold up a
 *   callback;
 * - timer: jobs due after a delay (a run of aio writes gathered long enough).
 */
#ifndef COMPAT_JOBS_H
#define COMPAT_JOBS_H

#include <cstdint>
#include <functional>

namespace compat
{

/* Queue job on the callback thread; returns at once. */
void callbacks_run(std::function<void()> job);

/* Queue job on the work thread; returns at once. */
void work_run(std::function<void()> job);

/*
 * Run job on the timer thread once delay_ns has passed; returns at once.
 * The job may wait, holding up later timers only.
 */
void timer_run(uint64_t delay_ns, std::function<void()> job);

/* Whether the calling thread is the callback thread. */
bool on_callback_thread();

} // namespace compat

#endif
