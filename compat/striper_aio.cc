// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The striper's asynchronous calls: each starts one libstriped aio call on
 * the file's handle, every object request of it in flight at once, and
 * completes the application's librados completion from libstriped's
 * callback with libradosstriper's result (bytes for reads, 0 for writes,
 * a negative errno). Calls libstriped has no aio form of run on the work
 * thread.
 */
#include "striper.h"

#include <cerrno>
#include <climits>
#include <new>

#include "guard.h"
#include "jobs.h"
#include "rados_completion.h"

using compat::Handle;

namespace
{

/* What an aio call keeps until libstriped completes it. */
struct AioCall {
	libradosstriper::RadosStriperImpl *striper;
	Handle *handle;
	rados_completion_t c;
	compat::ResultFn result;
};

int write_result(ssize_t r)
{
	return r < 0 ? (int)r : 0;
}

} // namespace

namespace libradosstriper
{

/*
 * Start an aio call on name's handle. A refusal before anything was sent
 * (-ESTALE from a handle whose file is gone) is retried once on a new
 * handle, as the synchronous calls are; c is untouched when the call
 * fails to start, as librados leaves it.
 */
int RadosStriperImpl::aio_start(const char *name, compat::Open open, rados_completion_t c,
				const compat::StartFn &start, compat::ResultFn result)
{
	int r = compat::completion_supported();

	if (r)
		return r;
	if (!c)
		return -EINVAL;
	for (int attempt = 0; attempt < 2; attempt++) {
		Handle *h;
		r = acquire(name, open, &h);
		if (r)
			return r;
		auto *call = new (std::nothrow) AioCall{this, h, c, result};
		struct striped_completion *sc = nullptr;
		r = call ? striped_completion_create(aio_callback, call, &sc) : -ENOMEM;
		if (!r) {
			refs_++;
			{
				std::lock_guard<std::mutex> l(lock_);
				in_flight_++;
			}
			compat::completion_hold(c);
			r = start(h->f, sc);
			if (!r)
				return 0;
			compat::completion_unhold(c);
			{
				std::lock_guard<std::mutex> l(lock_);
				in_flight_--;
			}
			changed_.notify_all();
			refs_--; /* the user's reference still holds it */
		}
		striped_completion_release(sc);
		delete call;
		if (!done_with(h, r))
			break;
	}
	return r;
}

/* libstriped's callback: never waits (it may be a librados thread). */
void RadosStriperImpl::aio_callback(struct striped_completion *sc, void *arg) noexcept
{
	auto *call = static_cast<AioCall *>(arg);
	ssize_t r = striped_completion_result(sc);

	striped_completion_release(sc);
	int rval = compat::guard([&] { return call->result(r); });
	RadosStriperImpl *s = call->striper;
	Handle *h = call->handle;
	rados_completion_t c = call->c;
	s->aio_done(h, c, rval, r == -ESTALE);
	delete call;
}

/*
 * XRootD's pgread checks each 64 KiB read of a request against the pages
 * before it, and re-reads, 4 KiB at a time, the pages of one that completed
 * early: reads of objects on different OSDs do. So a file's aio reads
 * complete in the order they were made; one that finished early is held
 * until those before it have completed (read_gather.cc: a read that fails
 * to start takes no place). held: the read's place, its ticket the key.
 * Called in libstriped callbacks: it never waits but for the striper's lock.
 */
void RadosStriperImpl::deliver_in_order(Handle *h, compat::HeldReads::node_type held)
{
	{
		std::lock_guard<std::mutex> l(lock_);
		h->reads_held.insert(std::move(held)); /* a node of its own: allocates nothing */
		if (h->delivering)
			return; /* the thread completing them completes this one in its turn */
		h->delivering = true;
		/* the last aio_done() must not close h, nor free the striper, under the loop */
		h->refs++;
		in_flight_++;
		refs_++;
	}
	/*
	 * One thread at a time completes a file's reads, so that two finishing
	 * together on different threads cannot complete out of order.
	 */
	for (;;) {
		compat::HeldRead next;
		{
			std::lock_guard<std::mutex> l(lock_);
			auto it = h->reads_held.begin();
			if (it == h->reads_held.end() || it->first != h->reads_delivered) {
				h->delivering = false;
				break;
			}
			next = it->second;
			h->reads_held.erase(it);
			h->reads_delivered++;
		}
		aio_done(h, next.c, next.rval, next.stale);
	}
	release(h, true);
	{
		std::lock_guard<std::mutex> l(lock_);
		in_flight_--;
	}
	changed_.notify_all();
	put_ref();
}

/*
 * The handle goes back (closed on the work thread if it was its last
 * call), the application's completion completes, and only then does the
 * call stop counting as in flight: aio_flush() and the striper's teardown
 * wait for that, so a completion is complete once they return.
 */
void RadosStriperImpl::aio_done(Handle *h, rados_completion_t c, int rval, bool stale)
{
	if (stale)
		forget(h);
	release(h, true);
	compat::completion_finish(c, rval);
	{
		std::lock_guard<std::mutex> l(lock_);
		in_flight_--;
	}
	changed_.notify_all();
	put_ref();
}

/* An aio call made of blocking libstriped calls, run on the work thread. */
int RadosStriperImpl::aio_blocking(rados_completion_t c, std::function<int()> call)
{
	int r = compat::completion_supported();

	if (r)
		return r;
	if (!c)
		return -EINVAL;
	refs_++;
	{
		std::lock_guard<std::mutex> l(lock_);
		in_flight_++;
	}
	compat::completion_hold(c);
	try {
		compat::work_run([this, c, call] {
			compat::completion_finish(c, call());
			{
				std::lock_guard<std::mutex> l(lock_);
				in_flight_--;
			}
			changed_.notify_all();
			put_ref();
		});
	} catch (const std::bad_alloc &) {
		compat::completion_unhold(c);
		{
			std::lock_guard<std::mutex> l(lock_);
			in_flight_--;
		}
		refs_--;
		return -ENOMEM;
	}
	return 0;
}

int RadosStriperImpl::aio_flush()
{
	std::unique_lock<std::mutex> l(lock_);
	changed_.wait(l, [this] { return in_flight_ == 0; });
	return 0;
}

/* ---- writes ---- */

/* buf is copied before the call returns, as libradosstriper's C API does; see write_gather.cc. */
int RadosStriperImpl::aio_write(const char *name, rados_completion_t c, const char *buf,
				size_t len, uint64_t off)
{
	if (!buf && len)
		return -EINVAL;
	if (len > UINT_MAX)
		return -EFBIG;
	ceph::bufferlist copy;
	try {
		copy.append(buf, (unsigned)len);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	}
	return aio_write_gathered(name, c, std::move(copy), off);
}

/*
 * The bufferlist's own memory is sent, as libradosstriper sends it (it
 * "steals" bl): kept referenced until the call completes, made contiguous
 * first when it is not (one copy).
 */
static int contiguous_prefix(const ceph::bufferlist &bl, size_t len, ceph::bufferlist *keep,
			     const char **data)
{
	if (len > bl.length())
		return -EINVAL;
	keep->substr_of(bl, 0, (unsigned)len);
	*data = len ? keep->c_str() : "";
	return 0;
}

/* An aio write of bl's first len bytes as they lie (see contiguous_prefix()). */
int RadosStriperImpl::aio_bufferlist(const char *name, rados_completion_t c,
				     const ceph::bufferlist &bl, size_t len, compat::Open open,
				     const compat::BufferStartFn &start)
{
	ceph::bufferlist keep;
	const char *data;
	int r = contiguous_prefix(bl, len, &keep, &data);

	if (r)
		return r;
	return aio_start(
		name, open, c,
		[&](struct striped_file *f, struct striped_completion *sc) {
			return start(f, sc, data);
		},
		[keep](ssize_t res) { return write_result(res); });
}

/* bl's own memory is sent (see contiguous_prefix()); see write_gather.cc. */
int RadosStriperImpl::aio_write(const char *name, rados_completion_t c,
				const ceph::bufferlist &bl, size_t len, uint64_t off)
{
	if (len > bl.length())
		return -EINVAL;
	ceph::bufferlist keep;
	try {
		keep.substr_of(bl, 0, (unsigned)len);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	}
	return aio_write_gathered(name, c, std::move(keep), off);
}

/* As libradosstriper: the truncate to 0 in the calling thread, the write asynchronous. */
int RadosStriperImpl::aio_write_full(const char *name, rados_completion_t c,
				     const ceph::bufferlist &bl)
{
	size_t len = bl.length();

	return aio_bufferlist(name, c, bl, len, compat::open_or_create,
			      [=](struct striped_file *f, struct striped_completion *sc,
				  const char *data) {
				      int t = striped_truncate(f, 0);
				      if (t)
					      return t;
				      return striped_aio_write2(f, sc, data, len, 0,
								STRIPED_IO_ZEROCOPY);
			      });
}

/* Not retried once sent (see append()): a handle idle past its lease is opened anew. */
int RadosStriperImpl::aio_append(const char *name, rados_completion_t c,
				 const ceph::bufferlist &bl, size_t len)
{
	return aio_bufferlist(name, c, bl, len, compat::open_or_create_fresh,
			      [=](struct striped_file *f, struct striped_completion *sc,
				  const char *data) { return striped_aio_append(f, sc, data, len); });
}

/* ---- reads ---- */

int RadosStriperImpl::aio_read(const char *name, rados_completion_t c, char *buf, size_t len,
			       uint64_t off)
{
	return aio_read_gathered(
		name, c, len, off, SIZE_MAX, [buf](size_t) { return buf; },
		[](ssize_t res) { return (int)res; });
}

/*
 * Into a buffer of the bytes the read can give (at most len, the file's
 * bytes from off for a large len), which bl holds once the call completed.
 */
int RadosStriperImpl::aio_read(const char *name, rados_completion_t c, ceph::bufferlist *bl,
			       size_t len, uint64_t off)
{
	if (!bl)
		return -EINVAL;
	auto bp = std::make_shared<ceph::bufferptr>();
	return aio_read_gathered(
		name, c, len, off, compat::READ_PREALLOC_MAX,
		[bl, bp](size_t want) {
			*bp = ceph::bufferptr(ceph::buffer::create((unsigned)want));
			bl->clear();
			return bp->c_str();
		},
		[bl, bp](ssize_t res) {
			if (res >= 0) {
				bp->set_length((unsigned)res);
				bl->push_back(std::move(*bp));
			}
			return (int)res;
		});
}

/* ---- by name ---- */

int RadosStriperImpl::aio_stat(const char *name, rados_completion_t c, uint64_t *size,
			       time_t *mtime, struct timespec *mtime_ns)
{
	if (!name)
		return -EINVAL;
	std::string n = name;
	return aio_blocking(c, [this, n, size, mtime, mtime_ns] {
		struct timespec ts;
		int r = stat(n.c_str(), size, &ts);
		if (!r && mtime)
			*mtime = ts.tv_sec;
		if (!r && mtime_ns)
			*mtime_ns = ts;
		return r;
	});
}

int RadosStriperImpl::aio_remove(const char *name, rados_completion_t c)
{
	if (!name)
		return -EINVAL;
	std::string n = name;
	return aio_blocking(c, [this, n] { return remove(n.c_str()); });
}

} // namespace libradosstriper
