// SPDX-License-Identifier: LGPL-2.1-or-later
#include "rados_completion.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <malloc.h>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <thread>

#include "jobs.h"

namespace compat
{

namespace
{

/*
 * librados::AioCompletionImpl as librados 14.2 to 16.2 lay it out, its
 * members up to the callbacks, in their order (include/rados' private
 * src/librados/AioCompletionImpl.h): a ceph::mutex and a
 * ceph::condition_variable (std::mutex and std::condition_variable in
 * release builds, each exactly a pthread object in libstdc++), the
 * reference count, the result, two flags, the object version and tid, the
 * two callbacks and their arguments. completion_check() verifies every
 * field used here against librados before any is touched.
 */
struct completion_mirror {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ref;
	int rval;
	bool released;
	bool complete;
	uint64_t objver;
	uint64_t tid;
	rados_callback_t callback_complete;
	rados_callback_t callback_safe;
	void *callback_complete_arg;
	void *callback_safe_arg;
};

static_assert(sizeof(pthread_mutex_t) == sizeof(std::mutex), "ceph::mutex is a std::mutex");
static_assert(sizeof(pthread_cond_t) == sizeof(std::condition_variable),
	      "ceph::condition_variable is a std::condition_variable");

completion_mirror *mirror(rados_completion_t c)
{
	return static_cast<completion_mirror *>(c);
}

std::atomic<int> supported{-ENOTSUP};

/* ---- the check ---- */

/* What a probe completion's callback saw. */
struct probe {
	std::mutex lock;
	std::condition_variable cond;
	int calls = 0;
	rados_completion_t seen = nullptr;
};

void probe_callback(rados_completion_t c, void *arg)
{
	auto *p = static_cast<probe *>(arg);
	std::lock_guard<std::mutex> l(p->lock);
	p->calls++;
	p->seen = c;
	p->cond.notify_all();
}

void probe_safe_callback(rados_completion_t, void *)
{
}

bool all_zero(const void *p, size_t len)
{
	const unsigned char *b = static_cast<const unsigned char *>(p);

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* A completion librados just made: every field as its constructor sets it. */
const char *check_fresh(rados_completion_t c, rados_callback_t cb, void *arg, rados_callback_t safe)
{
	completion_mirror *m = mirror(c);

	if (malloc_usable_size(c) < sizeof(*m))
		return "a completion is smaller than librados 16.2's";
	if (!all_zero(&m->lock, sizeof(m->lock)))
		return "the lock of a new completion is not an unlocked default mutex";
	if (m->ref != 1 || m->rval != 0 || m->released || m->complete || m->objver || m->tid)
		return "a new completion's reference count, result or flags are not where expected";
	if (m->callback_complete != cb || m->callback_complete_arg != arg)
		return "the completion callback is not where expected";
	if (m->callback_safe != safe || m->callback_safe_arg != (safe ? arg : nullptr))
		return "the safe callback is not where expected";
	if (rados_aio_is_complete(c) || rados_aio_get_return_value(c))
		return "librados reads a new completion otherwise";
	return nullptr;
}

bool wait_calls(probe *p, int calls)
{
	std::unique_lock<std::mutex> l(p->lock);
	return p->cond.wait_for(l, std::chrono::seconds(5), [&] { return p->calls >= calls; });
}

/* Poll: the reference is dropped right after the waiters were woken. */
bool wait_ref(rados_completion_t c, int ref)
{
	for (int i = 0; i < 5000; i++) {
		pthread_mutex_lock(&mirror(c)->lock);
		int now = mirror(c)->ref;
		pthread_mutex_unlock(&mirror(c)->lock);
		if (now == ref)
			return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	return false;
}

/* A completion librados completed itself, with no round trip (a flush with nothing to flush). */
const char *check_librados_completes(rados_ioctx_t io)
{
	probe p;
	rados_completion_t c;

	if (rados_aio_create_completion2(&p, probe_callback, &c))
		return "rados_aio_create_completion2 failed";
	const char *why = check_fresh(c, probe_callback, &p, nullptr);
	if (!why && rados_aio_flush_async(io, c))
		why = "rados_aio_flush_async failed";
	if (!why && !wait_calls(&p, 1))
		why = "librados did not complete a flush within 5 s";
	if (!why) {
		rados_aio_wait_for_complete_and_cb(c);
		completion_mirror *m = mirror(c);
		if (!m->complete || m->rval != rados_aio_get_return_value(c))
			why = "librados completed a completion otherwise";
		else if (m->callback_complete || m->callback_safe)
			why = "librados keeps the callbacks of a completed completion";
		else if (p.calls != 1 || p.seen != c)
			why = "librados ran a callback otherwise";
		else if (!wait_ref(c, 1))
			why = "librados kept a reference to a completed completion";
	}
	rados_aio_release(c);
	return why;
}

/* Both callback slots, through the older constructor. */
const char *check_safe_slot()
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	probe p;
	rados_completion_t c;

	if (rados_aio_create_completion(&p, probe_callback, probe_safe_callback, &c))
		return "rados_aio_create_completion failed";
	const char *why = check_fresh(c, probe_callback, &p, probe_safe_callback);
	rados_aio_release(c);
	return why;
#pragma GCC diagnostic pop
}

/*
 * One completion completed here, as an aio call completes them: a thread
 * already waiting in librados' wait wakes, librados reads the result and
 * the flags, the callback runs once, and the reference goes.
 */
const char *check_completing()
{
	const int magic = 0x5eed1e55;
	probe p;
	rados_completion_t c;

	if (rados_aio_create_completion2(&p, probe_callback, &c))
		return "rados_aio_create_completion2 failed";
	const char *why = check_fresh(c, probe_callback, &p, nullptr);
	if (why) {
		rados_aio_release(c);
		return why;
	}
	/* The waiter owns what it shares, so a waiter that never wakes is left behind safely. */
	struct waiter_state {
		std::mutex lock;
		std::condition_variable cond;
		bool woke = false;
	};
	auto w = std::make_shared<waiter_state>();
	completion_hold(c); /* the waiter's own reference */
	std::thread([w, c] {
		rados_aio_wait_for_complete(c);
		std::lock_guard<std::mutex> l(w->lock);
		w->woke = true;
		w->cond.notify_all();
	}).detach();
	completion_hold(c);
	completion_finish(c, magic);
	{
		std::unique_lock<std::mutex> l(w->lock);
		if (!w->cond.wait_for(l, std::chrono::seconds(5), [&] { return w->woke; }))
			return "a waiter in rados_aio_wait_for_complete() did not wake";
	}
	rados_aio_release(c); /* the waiter's */
	if (rados_aio_get_return_value(c) != magic || !rados_aio_is_complete(c))
		why = "librados reads another result or state than the one set";
	else if (!wait_calls(&p, 1))
		why = "the callback did not run";
	if (!why) {
		rados_aio_wait_for_complete_and_cb(c);
		if (p.calls != 1 || p.seen != c || !rados_aio_is_complete_and_cb(c))
			why = "the callback did not run once, or librados does not see it done";
		else if (!wait_ref(c, 1))
			why = "the call's reference was not dropped";
	}
	rados_aio_release(c);
	return why;
}

const char *run_checks(rados_ioctx_t io)
{
	const char *why = check_safe_slot();

	if (!why)
		why = check_librados_completes(io);
	if (!why)
		why = check_completing();
	return why;
}

} // namespace

int completion_check(rados_ioctx_t io, std::string *why_out)
{
	static std::once_flag once;
	static std::string why;

	std::call_once(once, [io] {
		int major, minor, extra;
		const char *why_not = run_checks(io);

		rados_version(&major, &minor, &extra);
		if (why_not) {
			why = std::string(why_not) + " (librados " + std::to_string(major) + "." +
			      std::to_string(minor) + "." + std::to_string(extra) + ")";
			fprintf(stderr,
				"libradosstriper (libstriped): aio calls fail with ENOTSUP in this "
				"process: %s\n",
				why.c_str());
		}
		supported = why_not ? -ENOTSUP : 0;
	});
	if (why_out)
		*why_out = why;
	return supported;
}

int completion_supported()
{
	return supported;
}

void completion_hold(rados_completion_t c)
{
	completion_mirror *m = mirror(c);

	pthread_mutex_lock(&m->lock);
	m->ref++;
	pthread_mutex_unlock(&m->lock);
}

void completion_unhold(rados_completion_t c)
{
	/* rados_aio_release() is librados' put: the last reference frees it. */
	rados_aio_release(c);
}

/* As librados' own callback context: callbacks, then done, then the reference. */
static void run_callbacks(rados_completion_t c, rados_callback_t complete, void *complete_arg,
			  rados_callback_t safe, void *safe_arg)
{
	completion_mirror *m = mirror(c);

	if (complete)
		complete(c, complete_arg);
	if (safe)
		safe(c, safe_arg);
	pthread_mutex_lock(&m->lock);
	m->callback_complete = nullptr;
	m->callback_safe = nullptr;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
	completion_unhold(c);
}

void completion_finish(rados_completion_t c, int rval)
{
	completion_mirror *m = mirror(c);

	pthread_mutex_lock(&m->lock);
	m->rval = rval;
	m->complete = true;
	pthread_cond_broadcast(&m->cond);
	rados_callback_t complete = m->callback_complete, safe = m->callback_safe;
	void *complete_arg = m->callback_complete_arg, *safe_arg = m->callback_safe_arg;
	pthread_mutex_unlock(&m->lock);
	if (!complete && !safe) {
		completion_unhold(c);
		return;
	}
	callbacks_run([=] { run_callbacks(c, complete, complete_arg, safe, safe_arg); });
}

} // namespace compat
