// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libradosstriper's C++ API (radosstriper/libradosstriper.hpp, Ceph 16.2):
 * RadosStriper, whose copies share one striper, and MultiAioCompletion.
 * Methods of a RadosStriper that striper_create() never set up return
 * -EINVAL (stock libradosstriper dereferences NULL).
 */
#include <cerrno>
#include <climits>
#include <sys/uio.h>
#include <vector>

#include <radosstriper/libradosstriper.hpp>

#include "guard.h"
#include "multi_completion.h"
#include "striper.h"

namespace libradosstriper
{

namespace
{

rados_completion_t pc_of(librados::AioCompletion *c)
{
	return c ? static_cast<rados_completion_t>(c->pc) : nullptr;
}

/*
 * The first len bytes of bl as they lie, for a synchronous write: its
 * buffers as an iovec (nothing copied), or one buffer when there are more
 * than an iovec takes.
 */
int write_bufferlist(RadosStriperImpl *s, const std::string &soid, const ceph::bufferlist &bl,
		     size_t len, uint64_t off)
{
	if (len > bl.length())
		return -EINVAL;
	ceph::bufferlist part;
	part.substr_of(bl, 0, (unsigned)len);
	if (part.get_num_buffers() > 1 && part.get_num_buffers() <= IOV_MAX) {
		std::vector<struct iovec> iov;
		for (const auto &bp : part.buffers())
			iov.push_back({const_cast<char *>(bp.c_str()), bp.length()});
		return s->writev(soid.c_str(), iov.data(), (int)iov.size(), off);
	}
	return s->write(soid.c_str(), len ? part.c_str() : "", len, off);
}

} // namespace

#define IMPL_CALL(expr)                                                                            \
	compat::guard([&]() -> int {                                                               \
		if (!rados_striper_impl)                                                           \
			return -EINVAL;                                                            \
		return rados_striper_impl->expr;                                                   \
	})

/* ---- MultiAioCompletion ---- */

MultiAioCompletion::~MultiAioCompletion()
{
	if (pc)
		pc->put();
}

int MultiAioCompletion::set_complete_callback(void *cb_arg, librados::callback_t cb)
{
	pc->set_complete_callback(cb_arg, cb);
	return 0;
}

int MultiAioCompletion::set_safe_callback(void *cb_arg, librados::callback_t cb)
{
	pc->set_safe_callback(cb_arg, cb);
	return 0;
}

/* No request is ever pending (see multi_completion.h): complete from the start. */
void MultiAioCompletion::wait_for_complete()
{
}

void MultiAioCompletion::wait_for_safe()
{
}

void MultiAioCompletion::wait_for_complete_and_cb()
{
	pc->wait_for_complete_and_cb(false);
}

void MultiAioCompletion::wait_for_safe_and_cb()
{
	pc->wait_for_complete_and_cb(true);
}

bool MultiAioCompletion::is_complete()
{
	return true;
}

bool MultiAioCompletion::is_safe()
{
	return true;
}

bool MultiAioCompletion::is_complete_and_cb()
{
	return pc->is_complete_and_cb(false);
}

bool MultiAioCompletion::is_safe_and_cb()
{
	return pc->is_complete_and_cb(true);
}

int MultiAioCompletion::get_return_value()
{
	return pc->get_return_value();
}

/* Stock frees the implementation twice here (release, then the destructor); once is enough. */
void MultiAioCompletion::release()
{
	MultiAioCompletionImpl *c = pc;

	pc = nullptr;
	if (c)
		c->put();
	delete this;
}

/* ---- RadosStriper ---- */

RadosStriper::RadosStriper() : rados_striper_impl(nullptr)
{
}

void RadosStriper::to_rados_striper_t(RadosStriper &striper, rados_striper_t *s)
{
	if (!s)
		return;
	if (striper.rados_striper_impl)
		striper.rados_striper_impl->get_user();
	*s = striper.rados_striper_impl;
}

RadosStriper::RadosStriper(const RadosStriper &rs) : rados_striper_impl(rs.rados_striper_impl)
{
	if (rados_striper_impl)
		rados_striper_impl->get_user();
}

RadosStriper &RadosStriper::operator=(const RadosStriper &rs)
{
	/* The new one is taken before the old one goes: assigning a striper to itself keeps it. */
	if (rs.rados_striper_impl)
		rs.rados_striper_impl->get_user();
	if (rados_striper_impl)
		rados_striper_impl->put_user();
	rados_striper_impl = rs.rados_striper_impl;
	return *this;
}

RadosStriper::~RadosStriper()
{
	if (rados_striper_impl)
		rados_striper_impl->put_user();
	rados_striper_impl = nullptr;
}

int RadosStriper::striper_create(librados::IoCtx &ioctx, RadosStriper *striper)
{
	return compat::guard([&] {
		RadosStriperImpl *s;
		if (!striper)
			return -EINVAL;
		int r = RadosStriperImpl::create(static_cast<rados_ioctx_t>(ioctx.io_ctx_impl), &s);
		if (r)
			return r;
		if (striper->rados_striper_impl)
			striper->rados_striper_impl->put_user();
		striper->rados_striper_impl = s;
		return 0;
	});
}

int RadosStriper::set_object_layout_stripe_unit(unsigned int stripe_unit)
{
	return IMPL_CALL(set_stripe_unit(stripe_unit));
}

int RadosStriper::set_object_layout_stripe_count(unsigned int stripe_count)
{
	return IMPL_CALL(set_stripe_count(stripe_count));
}

int RadosStriper::set_object_layout_object_size(unsigned int object_size)
{
	return IMPL_CALL(set_object_size(object_size));
}

int RadosStriper::getxattr(const std::string &oid, const char *name, ceph::bufferlist &bl)
{
	return compat::guard([&] {
		std::string value;
		if (!rados_striper_impl)
			return -EINVAL;
		int r = rados_striper_impl->getxattr(oid.c_str(), name, &value);
		if (r)
			return r;
		bl.clear();
		bl.append(value);
		return (int)bl.length();
	});
}

int RadosStriper::setxattr(const std::string &oid, const char *name, ceph::bufferlist &bl)
{
	return IMPL_CALL(setxattr(oid.c_str(), name, bl.length() ? bl.c_str() : "", bl.length()));
}

int RadosStriper::rmxattr(const std::string &oid, const char *name)
{
	return IMPL_CALL(rmxattr(oid.c_str(), name));
}

int RadosStriper::getxattrs(const std::string &oid,
			    std::map<std::string, ceph::bufferlist> &attrset)
{
	return compat::guard([&] {
		struct striped_xattrs *it;
		if (!rados_striper_impl)
			return -EINVAL;
		int r = rados_striper_impl->getxattrs(oid.c_str(), &it);
		if (r)
			return r;
		attrset.clear();
		const char *name;
		const void *value;
		size_t len;
		while (striped_getxattrs_next(it, &name, &value, &len) == 0 && name)
			attrset[name].append(static_cast<const char *>(value), (unsigned)len);
		striped_getxattrs_end(it);
		return 0;
	});
}

int RadosStriper::write(const std::string &soid, const ceph::bufferlist &bl, size_t len,
			uint64_t off)
{
	return compat::guard([&] {
		if (!rados_striper_impl)
			return -EINVAL;
		return write_bufferlist(rados_striper_impl, soid, bl, len, off);
	});
}

int RadosStriper::write_full(const std::string &soid, const ceph::bufferlist &bl)
{
	return compat::guard([&] {
		if (!rados_striper_impl)
			return -EINVAL;
		ceph::bufferlist whole(bl);
		size_t len = whole.length();
		return rados_striper_impl->write_full(soid.c_str(), len ? whole.c_str() : "", len);
	});
}

int RadosStriper::append(const std::string &soid, const ceph::bufferlist &bl, size_t len)
{
	return compat::guard([&] {
		if (!rados_striper_impl || len > bl.length())
			return -EINVAL;
		ceph::bufferlist part;
		part.substr_of(bl, 0, (unsigned)len);
		return rados_striper_impl->append(soid.c_str(), len ? part.c_str() : "", len);
	});
}

int RadosStriper::aio_write(const std::string &soid, librados::AioCompletion *c,
			    const ceph::bufferlist &bl, size_t len, uint64_t off)
{
	return IMPL_CALL(aio_write(soid.c_str(), pc_of(c), bl, len, off));
}

int RadosStriper::aio_write_full(const std::string &soid, librados::AioCompletion *c,
				 const ceph::bufferlist &bl)
{
	return IMPL_CALL(aio_write_full(soid.c_str(), pc_of(c), bl));
}

int RadosStriper::aio_append(const std::string &soid, librados::AioCompletion *c,
			     const ceph::bufferlist &bl, size_t len)
{
	return IMPL_CALL(aio_append(soid.c_str(), pc_of(c), bl, len));
}

int RadosStriper::read(const std::string &soid, ceph::bufferlist *pbl, size_t len, uint64_t off)
{
	return IMPL_CALL(read(soid.c_str(), pbl, len, off));
}

int RadosStriper::aio_read(const std::string &soid, librados::AioCompletion *c,
			   ceph::bufferlist *pbl, size_t len, uint64_t off)
{
	return IMPL_CALL(aio_read(soid.c_str(), pc_of(c), pbl, len, off));
}

int RadosStriper::stat(const std::string &soid, uint64_t *psize, time_t *pmtime)
{
	return compat::guard([&] {
		struct timespec ts;
		if (!rados_striper_impl)
			return -EINVAL;
		int r = rados_striper_impl->stat(soid.c_str(), psize, &ts);
		if (!r && pmtime)
			*pmtime = ts.tv_sec;
		return r;
	});
}

int RadosStriper::stat2(const std::string &soid, uint64_t *psize, struct timespec *pts)
{
	return IMPL_CALL(stat(soid.c_str(), psize, pts));
}

int RadosStriper::aio_stat(const std::string &soid, librados::AioCompletion *c, uint64_t *psize,
			   time_t *pmtime)
{
	return IMPL_CALL(aio_stat(soid.c_str(), pc_of(c), psize, pmtime, nullptr));
}

int RadosStriper::aio_stat2(const std::string &soid, librados::AioCompletion *c, uint64_t *psize,
			    struct timespec *pts)
{
	return IMPL_CALL(aio_stat(soid.c_str(), pc_of(c), psize, nullptr, pts));
}

int RadosStriper::remove(const std::string &soid)
{
	return IMPL_CALL(remove(soid.c_str()));
}

/* flags are librados' operation flags for the head's removal; libstriped removes by its own rules. */
int RadosStriper::remove(const std::string &soid, int)
{
	return IMPL_CALL(remove(soid.c_str()));
}

int RadosStriper::aio_remove(const std::string &soid, librados::AioCompletion *c)
{
	return IMPL_CALL(aio_remove(soid.c_str(), pc_of(c)));
}

int RadosStriper::aio_remove(const std::string &soid, librados::AioCompletion *c, int)
{
	return IMPL_CALL(aio_remove(soid.c_str(), pc_of(c)));
}

int RadosStriper::trunc(const std::string &soid, uint64_t size)
{
	return IMPL_CALL(trunc(soid.c_str(), size));
}

int RadosStriper::aio_flush()
{
	return IMPL_CALL(aio_flush());
}

MultiAioCompletion *RadosStriper::multi_aio_create_completion()
{
	return new MultiAioCompletion(new MultiAioCompletionImpl);
}

MultiAioCompletion *RadosStriper::multi_aio_create_completion(void *cb_arg,
							      librados::callback_t cb_complete,
							      librados::callback_t cb_safe)
{
	auto *c = new MultiAioCompletionImpl;

	if (cb_complete)
		c->set_complete_callback(cb_arg, cb_complete);
	if (cb_safe)
		c->set_safe_callback(cb_arg, cb_safe);
	return new MultiAioCompletion(c);
}

} // namespace libradosstriper
