// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The striper's synchronous calls, and the handles they go through.
 */
#include "striper.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <climits>
#include <new>
#include <vector>

#include <rados/librados.hpp>

#include "jobs.h"
#include "rados_completion.h"

using compat::Handle;
using compat::handle_key;
using compat::now_ns;

uint64_t compat::now_ns()
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(
		   std::chrono::steady_clock::now().time_since_epoch())
	    .count();
}

namespace
{

/* libstriped's lease: an idle handle lets go of its lock after this long. */
constexpr uint64_t LEASE_NS = 1000ull * 1000 * 1000;

/* libradosstriper's reserved xattrs, as it stores them: what getxattr gives for them. */
const char *const XATTR_STRIPE_UNIT = "striper.layout.stripe_unit";
const char *const XATTR_STRIPE_COUNT = "striper.layout.stripe_count";
const char *const XATTR_OBJECT_SIZE = "striper.layout.object_size";
const char *const XATTR_SIZE = "striper.size";

/* libradosstriper's least stripe unit and object size step (CEPH_MIN_STRIPE_UNIT). */
constexpr unsigned MIN_STRIPE_UNIT = 65536;

/*
 * libradosstriper's errors where libstriped says more: a head without
 * striper metadata is no such file to it (its layout is missing), a corrupt
 * one an -EINVAL (its numbers do not parse).
 */
int as_stock_open_error(int r)
{
	if (r == -ENODATA)
		return -ENOENT;
	if (r == -EUCLEAN)
		return -EINVAL;
	return r;
}

bool reserved_xattr(const char *xname)
{
	return !strncmp(xname, "striper.", 8) || !strcmp(xname, "lock.striper.lock");
}

} // namespace

namespace libradosstriper
{

/* ---- creation and teardown ---- */

int RadosStriperImpl::create(rados_ioctx_t io, RadosStriperImpl **out)
{
	if (!io || !out)
		return -EINVAL;
	auto *s = new (std::nothrow) RadosStriperImpl;
	if (!s)
		return -ENOMEM;
	s->user_io_ = io;
	s->cluster_ = rados_ioctx_get_cluster(io);
	s->pool_ = rados_ioctx_get_id(io);
	try {
		/*
		 * As libradosstriper, keep the caller's IoCtx alive (its namespace is
		 * followed), and a reference to the cluster handle: a C++ program's
		 * Rados may go first (rados(8)'s striper is destroyed at exit),
		 * and the handles here must still let go of their locks then.
		 */
		s->user_io_ref_ = std::make_unique<librados::IoCtx>();
		librados::IoCtx::from_rados_ioctx_t(io, *s->user_io_ref_);
		s->cluster_ref_ = std::make_unique<librados::Rados>(*s->user_io_ref_);
	} catch (const std::bad_alloc &) {
		delete s;
		return -ENOMEM;
	}
	int r = s->with_ioctx([](rados_ioctx_t own) {
		compat::completion_check(own);
		return 0;
	});
	if (r) {
		s->put_user();
		return r;
	}
	*out = s;
	return 0;
}

void RadosStriperImpl::get_user()
{
	std::lock_guard<std::mutex> l(lock_);
	users_++;
}

void RadosStriperImpl::put_user()
{
	bool last;
	{
		std::lock_guard<std::mutex> l(lock_);
		last = --users_ == 0;
	}
	if (last) {
		teardown();
		put_ref();
	}
}

void RadosStriperImpl::put_ref()
{
	if (refs_.fetch_sub(1) == 1)
		delete this;
}

/*
 * The last user went: once the aio calls in flight and the closes under way
 * are done, close every handle and our I/O contexts, here, so that nothing of
 * the cluster is touched after this returns (the application may shut its
 * cluster handle down next).
 */
void RadosStriperImpl::teardown()
{
	std::map<std::string, Handle *> handles;
	std::map<std::string, compat::OwnedIoctx> ioctxs;
	{
		std::unique_lock<std::mutex> l(lock_);
		changed_.wait(l, [this] { return in_flight_ == 0 && closing_ == 0; });
		handles = handles_.take_all();
		ioctxs.swap(ioctxs_);
	}
	/* In this order: the files, the contexts they used, the user's, the cluster. */
	for (auto &kv : handles)
		delete kv.second;
	ioctxs.clear();
	user_io_ref_.reset();
	/* The last reference shuts the cluster handle down. */
	cluster_ref_.reset();
}

/* ---- I/O contexts: one of our own per namespace ---- */

int RadosStriperImpl::current_namespace(std::string *ns)
{
	std::vector<char> buf(256);

	for (;;) {
		int r = rados_ioctx_get_namespace(user_io_, buf.data(), buf.size());
		if (r >= 0) {
			ns->assign(buf.data(), r);
			return 0;
		}
		if (r != -ERANGE)
			return r;
		buf.resize(buf.size() * 4);
	}
}

/* The namespace a call on name works in: the caller's context's, now; -EINVAL for no name. */
int RadosStriperImpl::named_namespace(const char *name, std::string *ns)
{
	return name ? current_namespace(ns) : -EINVAL;
}

/*
 * libstriped's handles need a context whose namespace never changes under
 * them; the caller's may change between calls.
 */
int RadosStriperImpl::open_ioctx(const std::string &ns, rados_ioctx_t *io)
{
	{
		std::lock_guard<std::mutex> l(lock_);
		auto it = ioctxs_.find(ns);
		if (it != ioctxs_.end()) {
			*io = it->second.get();
			return 0;
		}
	}
	rados_ioctx_t made;
	int r = rados_ioctx_create2(cluster_, pool_, &made);
	if (r)
		return r;
	compat::OwnedIoctx owned(made);
	rados_ioctx_set_namespace(made, ns.c_str());
	std::lock_guard<std::mutex> l(lock_);
	/* Another thread's, made meanwhile, wins; ours goes. */
	auto inserted = ioctxs_.emplace(ns, std::move(owned));
	*io = inserted.first->second.get();
	return 0;
}

int RadosStriperImpl::with_ioctx(const std::function<int(rados_ioctx_t)> &call)
{
	std::string ns;
	rados_ioctx_t io;
	int r = current_namespace(&ns);

	if (!r)
		r = open_ioctx(ns, &io);
	return r ? r : call(io);
}

/* ---- handles ---- */

/*
 * The handle of name in the current namespace, opened as open says (in the
 * striper's layout when the file is new) if none is: one reference for the
 * caller.
 */
int RadosStriperImpl::acquire(const char *name, compat::Open open, Handle **out,
			      compat::Gathered first)
{
	int r = acquire_handle(name, open, out);

	if (r)
		return r;
	/*
	 * Any other call goes after the aio reads made before it, which are
	 * sent (read_gather.cc), and after the aio writes made before it, which
	 * land first (write_gather.cc).
	 */
	if (first != compat::Gathered::keep_reads)
		send_reads(*out);
	if (first != compat::Gathered::keep_writes)
		flush_gathered(*out);
	return 0;
}

int RadosStriperImpl::acquire_handle(const char *name, compat::Open open, Handle **out)
{
	std::string ns;
	int r = named_namespace(name, &ns);

	return r ? r : acquire_in(ns, name, open, out);
}

/* The same, in namespace ns. */
int RadosStriperImpl::acquire_in(const std::string &ns, const char *name, compat::Open open,
				 Handle **out)
{
	rados_ioctx_t io;
	int r;
	std::string key = handle_key(ns, name);
	Handle *stale = nullptr;
	{
		std::lock_guard<std::mutex> l(lock_);
		Handle *h = handles_.find(key);
		if (h) {
			if (!open.fresh || h->refs > 1 || now_ns() - h->last_used_ns < LEASE_NS) {
				h->refs++;
				*out = h;
				return 0;
			}
			stale = handles_.detach(h);
		}
	}
	if (stale)
		close_handle(stale, false);
	r = open_ioctx(ns, &io);
	if (r)
		return r;
	struct striped_layout layout;
	{
		std::lock_guard<std::mutex> l(lock_);
		layout = layout_;
	}
	struct striped_file *f;
	r = striped_open(io, name, open.create ? STRIPED_CREATE : 0, &layout, &f);
	if (r)
		return as_stock_open_error(r);
	return insert(key, f, out);
}

/* A handle for key, with the cache's reference, not kept yet; nullptr without memory. */
static Handle *new_handle(const std::string &key) noexcept
{
	auto *h = new (std::nothrow) Handle;

	if (!h)
		return nullptr;
	try {
		h->key = key;
	} catch (const std::bad_alloc &) {
		delete h;
		return nullptr;
	}
	h->refs = 1;
	return h;
}

/* Keep a handle just opened, or use the one another thread opened meanwhile. */
int RadosStriperImpl::insert(const std::string &key, struct striped_file *f, Handle **out)
{
	std::vector<Handle *> evicted;
	Handle *h = nullptr;
	bool ours = false;
	{
		std::lock_guard<std::mutex> l(lock_);
		h = handles_.find(key);
		if (!h) {
			h = new_handle(key);
			if (h && handles_.keep(h)) {
				h->f = f; /* the handle's from here on: it closes it */
				ours = true;
			} else {
				delete h;
				h = nullptr;
			}
		}
		if (h) {
			h->refs++;
			h->last_used_ns = now_ns();
			handles_.evict_idle(h->last_used_ns, &evicted);
		}
	}
	if (!ours)
		striped_close(f);
	for (Handle *e : evicted)
		close_handle(e, false);
	if (!h)
		return -ENOMEM;
	*out = h;
	return 0;
}

void RadosStriperImpl::forget(Handle *h)
{
	std::lock_guard<std::mutex> l(lock_);
	handles_.detach(h); /* the caller's reference keeps it */
}

void RadosStriperImpl::release(Handle *h, bool in_callback)
{
	bool last;
	{
		std::lock_guard<std::mutex> l(lock_);
		h->last_used_ns = now_ns();
		last = --h->refs == 0;
	}
	if (last)
		close_handle(h, in_callback);
}

/*
 * Close a handle no call holds. In a libstriped callback closing must not
 * wait: the work thread closes it, and teardown() waits for that.
 */
void RadosStriperImpl::close_handle(Handle *h, bool in_callback)
{
	if (!in_callback) {
		delete h;
		return;
	}
	{
		std::lock_guard<std::mutex> l(lock_);
		closing_++;
	}
	refs_++;
	compat::work_run([this, h] {
		delete h;
		{
			std::lock_guard<std::mutex> l(lock_);
			closing_--;
		}
		changed_.notify_all();
		put_ref();
	});
}

/*
 * One call on name's handle. A handle whose file was removed, or removed
 * and made again, since it last held the lock answers -ESTALE: it is
 * forgotten and the call made once more on a new one, as libradosstriper,
 * which opens the file by name in every call, would make it.
 */
int RadosStriperImpl::with_handle(const char *name, compat::Open open,
				  const std::function<int(struct striped_file *)> &call)
{
	int r = 0;

	for (int attempt = 0; attempt < 2; attempt++) {
		Handle *h;
		r = acquire(name, open, &h);
		if (r)
			return r;
		r = call(h->f);
		if (!done_with(h, r))
			break;
	}
	return r == -EUCLEAN ? -EINVAL : r; /* its head found damaged: stock's numbers do not parse */
}

/*
 * A call on h ended with r: h goes back, forgotten if its file is gone.
 * @return whether the call is to be made again, on a new handle
 */
bool RadosStriperImpl::done_with(Handle *h, int r)
{
	if (r == -ESTALE)
		forget(h);
	release(h, false);
	return r == -ESTALE;
}

/* ---- layout ---- */

int RadosStriperImpl::set_stripe_unit(unsigned int v)
{
	if (!v || v % MIN_STRIPE_UNIT)
		return -EINVAL;
	std::lock_guard<std::mutex> l(lock_);
	layout_.stripe_unit = v;
	return 0;
}

int RadosStriperImpl::set_stripe_count(unsigned int v)
{
	if (!v)
		return -EINVAL;
	std::lock_guard<std::mutex> l(lock_);
	layout_.stripe_count = v;
	return 0;
}

int RadosStriperImpl::set_object_size(unsigned int v)
{
	std::lock_guard<std::mutex> l(lock_);
	if (!v || v % MIN_STRIPE_UNIT || v < layout_.stripe_unit || v % layout_.stripe_unit)
		return -EINVAL;
	layout_.object_size = v;
	return 0;
}

/* ---- data ---- */

int RadosStriperImpl::write(const char *name, const char *buf, size_t len, uint64_t off)
{
	if (!buf && len)
		return -EINVAL; /* before the file is made */
	return with_handle(name, compat::open_or_create, [=](struct striped_file *f) {
		ssize_t n = striped_write(f, buf, len, off);
		return n < 0 ? (int)n : 0;
	});
}

int RadosStriperImpl::writev(const char *name, const struct iovec *iov, int iovcnt, uint64_t off)
{
	return with_handle(name, compat::open_or_create, [=](struct striped_file *f) {
		ssize_t n = striped_writev(f, iov, iovcnt, off);
		return n < 0 ? (int)n : 0;
	});
}

int RadosStriperImpl::write_full(const char *name, const char *buf, size_t len)
{
	if (!buf && len)
		return -EINVAL;
	return with_handle(name, compat::open_or_create, [=](struct striped_file *f) {
		return striped_write_full(f, buf, len);
	});
}

/*
 * Not retried on -ESTALE: an append that lost its lock in flight may have
 * landed. A handle idle past its lease is opened anew instead, so a file
 * re-created meanwhile is found before anything is sent.
 */
int RadosStriperImpl::append(const char *name, const char *buf, size_t len)
{
	Handle *h;

	if (!buf && len)
		return -EINVAL;
	int r = acquire(name, compat::open_or_create_fresh, &h);

	if (r)
		return r;
	ssize_t n = striped_append(h->f, buf, len);
	done_with(h, (int)n);
	return n < 0 ? (int)n : 0;
}

/*
 * The bytes a read of len at off can give, bounded as the int it returns: a
 * read above INT_MAX bytes learns the size first and fails with -EOVERFLOW
 * only when the file holds more than that from off.
 */
int RadosStriperImpl::read_length(struct striped_file *f, size_t len, uint64_t off, size_t *want,
				  size_t prealloc_max)
{
	*want = len;
	if (len <= prealloc_max && len <= INT_MAX)
		return 0;
	uint64_t size;
	int r = striped_stat(f, &size, nullptr);
	if (r)
		return r;
	uint64_t avail = off >= size ? 0 : size - off;
	if (avail < *want)
		*want = avail;
	return *want > INT_MAX ? -EOVERFLOW : 0;
}

int RadosStriperImpl::read(const char *name, char *buf, size_t len, uint64_t off)
{
	return with_handle(name, compat::open_existing, [=](struct striped_file *f) {
		size_t want;
		int r = read_length(f, len, off, &want, SIZE_MAX);
		if (r)
			return r;
		return (int)striped_read(f, buf, want, off);
	});
}

int RadosStriperImpl::read(const char *name, ceph::bufferlist *bl, size_t len, uint64_t off)
{
	if (!bl)
		return -EINVAL;
	return with_handle(name, compat::open_existing, [=](struct striped_file *f) {
		size_t want;
		bl->clear();
		int r = read_length(f, len, off, &want, compat::READ_PREALLOC_MAX);
		if (r)
			return r;
		ceph::bufferptr bp(ceph::buffer::create((unsigned)want));
		ssize_t n = striped_read(f, bp.c_str(), want, off);
		if (n < 0)
			return (int)n;
		bp.set_length((unsigned)n);
		bl->push_back(std::move(bp));
		return (int)n;
	});
}

/* ---- metadata ---- */

/* By name, from the head, with no lock: as libradosstriper's stat, which takes none. */
int RadosStriperImpl::stat(const char *name, uint64_t *size, struct timespec *mtime)
{
	if (!name)
		return -EINVAL;
	return with_ioctx([=](rados_ioctx_t io) {
		struct striped_head h;
		int r = striped_head_read(io, name, &h, sizeof(h));
		if (r)
			return r == -EUCLEAN ? -EINVAL : r;
		if (size)
			*size = h.size;
		if (mtime)
			*mtime = h.mtime;
		return 0;
	});
}

int RadosStriperImpl::remove(const char *name)
{
	std::string ns;
	int r = named_namespace(name, &ns);

	if (r)
		return r;
	/*
	 * The aio writes made before it go first (flush_gathered()); our own
	 * idle handle goes then, so the remove need not ask it to let go.
	 */
	Handle *h = nullptr;
	{
		std::lock_guard<std::mutex> l(lock_);
		h = handles_.find(handle_key(ns, name));
		if (h)
			h->refs++;
	}
	if (h) {
		send_reads(h);
		flush_gathered(h);
		{
			std::lock_guard<std::mutex> l(lock_);
			handles_.detach(h); /* ours is not the last reference */
		}
		release(h, false); /* closes it if no call holds it */
	}
	return with_ioctx([=](rados_ioctx_t io) {
		int r = striped_remove(io, name);
		return r == -EUCLEAN ? -EINVAL : r;
	});
}

int RadosStriperImpl::trunc(const char *name, uint64_t size)
{
	return with_handle(name, compat::open_existing,
			   [=](struct striped_file *f) { return striped_truncate(f, size); });
}

/* ---- xattrs ---- */

/* getxattr of libradosstriper's own xattrs: the head's numbers, in its decimal. */
static int reserved_getxattr(rados_ioctx_t io, const char *name, const char *xname,
			     std::string *value)
{
	const char *const numbers[] = {XATTR_SIZE, XATTR_STRIPE_UNIT, XATTR_STRIPE_COUNT,
				       XATTR_OBJECT_SIZE};
	struct striped_head h;
	int which = -1;

	for (int i = 0; i < 4; i++)
		if (!strcmp(xname, numbers[i]))
			which = i;
	if (which < 0)
		return -EPERM; /* the lock, and libstriped's own */
	int r = striped_head_read(io, name, &h, sizeof(h));
	if (r)
		return r == -EUCLEAN ? -EINVAL : r;
	const uint64_t values[] = {h.size, h.layout.stripe_unit, h.layout.stripe_count,
				   h.layout.object_size};
	*value = std::to_string(values[which]);
	return 0;
}

/* By name, with no lock, as libradosstriper reads them. */
int RadosStriperImpl::getxattr(const char *name, const char *xname, std::string *value)
{
	if (!name || !xname || !value)
		return -EINVAL;
	return with_ioctx([=](rados_ioctx_t io) {
		if (reserved_xattr(xname))
			return reserved_getxattr(io, name, xname, value);
		struct striped_xattrs *it;
		int r = striped_head_getxattrs(io, name, &it);
		if (r)
			return r == -EUCLEAN ? -EINVAL : r;
		r = -ENODATA;
		const char *n;
		const void *v;
		size_t len;
		while (striped_getxattrs_next(it, &n, &v, &len) == 0 && n) {
			if (!strcmp(n, xname)) {
				value->assign(static_cast<const char *>(v), len);
				r = 0;
				break;
			}
		}
		striped_getxattrs_end(it);
		return r;
	});
}

int RadosStriperImpl::setxattr(const char *name, const char *xname, const void *value, size_t len)
{
	return with_handle(name, compat::open_existing, [=](struct striped_file *f) {
		return striped_setxattr(f, xname, value, len);
	});
}

int RadosStriperImpl::rmxattr(const char *name, const char *xname)
{
	return with_handle(name, compat::open_existing,
			   [=](struct striped_file *f) { return striped_rmxattr(f, xname); });
}

int RadosStriperImpl::getxattrs(const char *name, struct striped_xattrs **it)
{
	if (!name || !it)
		return -EINVAL;
	return with_ioctx([=](rados_ioctx_t io) {
		int r = striped_head_getxattrs(io, name, it);
		return r == -EUCLEAN ? -EINVAL : r;
	});
}

} // namespace libradosstriper
