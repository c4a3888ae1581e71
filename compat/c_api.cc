// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libradosstriper's C API (radosstriper/libradosstriper.h, Ceph 16.2), each
 * call a translation to the striper's. Where stock libradosstriper crashes
 * on bad input (a NULL striper, name or completion), these return -EINVAL.
 */
#include <cerrno>
#include <cstring>
#include <new>
#include <string>

#include <radosstriper/libradosstriper.h>

#include "guard.h"
#include "multi_completion.h"
#include "striper.h"

using libradosstriper::MultiAioCompletionImpl;
using libradosstriper::RadosStriperImpl;

namespace
{

RadosStriperImpl *impl(rados_striper_t striper)
{
	return static_cast<RadosStriperImpl *>(striper);
}

MultiAioCompletionImpl *multi(rados_striper_multi_completion_t c)
{
	return static_cast<MultiAioCompletionImpl *>(c);
}

} // namespace

#define STRIPER_CALL(striper, expr)                                                                \
	compat::guard([&]() -> int {                                                               \
		if (!(striper))                                                                    \
			return -EINVAL;                                                            \
		return impl(striper)->expr;                                                        \
	})

extern "C" {

int rados_striper_create(rados_ioctx_t ioctx, rados_striper_t *striper)
{
	return compat::guard([&] {
		RadosStriperImpl *s;
		if (!striper)
			return -EINVAL;
		int r = RadosStriperImpl::create(ioctx, &s);
		if (!r)
			*striper = s;
		return r;
	});
}

void rados_striper_destroy(rados_striper_t striper)
{
	if (striper)
		impl(striper)->put_user();
}

int rados_striper_set_object_layout_stripe_unit(rados_striper_t striper, unsigned int stripe_unit)
{
	return STRIPER_CALL(striper, set_stripe_unit(stripe_unit));
}

int rados_striper_set_object_layout_stripe_count(rados_striper_t striper,
						 unsigned int stripe_count)
{
	return STRIPER_CALL(striper, set_stripe_count(stripe_count));
}

int rados_striper_set_object_layout_object_size(rados_striper_t striper, unsigned int object_size)
{
	return STRIPER_CALL(striper, set_object_size(object_size));
}

int rados_striper_write(rados_striper_t striper, const char *soid, const char *buf, size_t len,
			uint64_t off)
{
	return STRIPER_CALL(striper, write(soid, buf, len, off));
}

int rados_striper_write_full(rados_striper_t striper, const char *soid, const char *buf,
			     size_t len)
{
	return STRIPER_CALL(striper, write_full(soid, buf, len));
}

int rados_striper_append(rados_striper_t striper, const char *soid, const char *buf, size_t len)
{
	return STRIPER_CALL(striper, append(soid, buf, len));
}

int rados_striper_read(rados_striper_t striper, const char *soid, char *buf, size_t len,
		       uint64_t off)
{
	return STRIPER_CALL(striper, read(soid, buf, len, off));
}

int rados_striper_remove(rados_striper_t striper, const char *soid)
{
	return STRIPER_CALL(striper, remove(soid));
}

int rados_striper_trunc(rados_striper_t striper, const char *soid, uint64_t size)
{
	return STRIPER_CALL(striper, trunc(soid, size));
}

int rados_striper_getxattr(rados_striper_t striper, const char *oid, const char *name, char *buf,
			   size_t len)
{
	return compat::guard([&] {
		std::string value;
		if (!striper || (!buf && len))
			return -EINVAL;
		int r = impl(striper)->getxattr(oid, name, &value);
		if (r)
			return r;
		if (value.size() > len)
			return -ERANGE;
		if (!value.empty())
			memcpy(buf, value.data(), value.size());
		return (int)value.size();
	});
}

int rados_striper_setxattr(rados_striper_t striper, const char *oid, const char *name,
			   const char *buf, size_t len)
{
	return STRIPER_CALL(striper, setxattr(oid, name, buf, len));
}

int rados_striper_rmxattr(rados_striper_t striper, const char *oid, const char *name)
{
	return STRIPER_CALL(striper, rmxattr(oid, name));
}

int rados_striper_getxattrs(rados_striper_t striper, const char *oid, rados_xattrs_iter_t *iter)
{
	return compat::guard([&] {
		struct striped_xattrs *it;
		if (!striper || !iter)
			return -EINVAL;
		int r = impl(striper)->getxattrs(oid, &it);
		if (!r)
			*iter = it;
		return r;
	});
}

int rados_striper_getxattrs_next(rados_xattrs_iter_t iter, const char **name, const char **val,
				 size_t *len)
{
	const void *value = nullptr;

	if (!iter || !name || !val || !len)
		return -EINVAL;
	int r = striped_getxattrs_next(static_cast<struct striped_xattrs *>(iter), name, &value,
				       len);
	/* After the last one, as librados' iterator: all three empty. */
	if (!r && !*name) {
		value = nullptr;
		*len = 0;
	}
	*val = static_cast<const char *>(value);
	return r;
}

void rados_striper_getxattrs_end(rados_xattrs_iter_t iter)
{
	striped_getxattrs_end(static_cast<struct striped_xattrs *>(iter));
}

int rados_striper_stat(rados_striper_t striper, const char *soid, uint64_t *psize,
		       time_t *pmtime)
{
	return compat::guard([&] {
		struct timespec ts;
		if (!striper)
			return -EINVAL;
		int r = impl(striper)->stat(soid, psize, &ts);
		if (!r && pmtime)
			*pmtime = ts.tv_sec;
		return r;
	});
}

int rados_striper_multi_aio_create_completion(void *cb_arg, rados_callback_t cb_complete,
					      rados_callback_t cb_safe,
					      rados_striper_multi_completion_t *pc)
{
	if (!pc)
		return -EINVAL;
	auto *c = new (std::nothrow) MultiAioCompletionImpl;
	if (!c)
		return -ENOMEM;
	if (cb_complete)
		c->set_complete_callback(cb_arg, cb_complete);
	if (cb_safe)
		c->set_safe_callback(cb_arg, cb_safe);
	*pc = c;
	return 0;
}

/* No request is ever pending (see multi_completion.h): complete from the start. */
void rados_striper_multi_aio_wait_for_complete(rados_striper_multi_completion_t)
{
}

void rados_striper_multi_aio_wait_for_safe(rados_striper_multi_completion_t)
{
}

int rados_striper_multi_aio_is_complete(rados_striper_multi_completion_t c)
{
	return c ? 1 : -EINVAL;
}

int rados_striper_multi_aio_is_safe(rados_striper_multi_completion_t c)
{
	return c ? 1 : -EINVAL;
}

void rados_striper_multi_aio_wait_for_complete_and_cb(rados_striper_multi_completion_t c)
{
	if (c)
		multi(c)->wait_for_complete_and_cb(false);
}

void rados_striper_multi_aio_wait_for_safe_and_cb(rados_striper_multi_completion_t c)
{
	if (c)
		multi(c)->wait_for_complete_and_cb(true);
}

int rados_striper_multi_aio_is_complete_and_cb(rados_striper_multi_completion_t c)
{
	return c ? multi(c)->is_complete_and_cb(false) : -EINVAL;
}

int rados_striper_multi_aio_is_safe_and_cb(rados_striper_multi_completion_t c)
{
	return c ? multi(c)->is_complete_and_cb(true) : -EINVAL;
}

int rados_striper_multi_aio_get_return_value(rados_striper_multi_completion_t c)
{
	return c ? multi(c)->get_return_value() : -EINVAL;
}

void rados_striper_multi_aio_release(rados_striper_multi_completion_t c)
{
	if (c)
		multi(c)->put();
}

int rados_striper_aio_write(rados_striper_t striper, const char *soid,
			    rados_completion_t completion, const char *buf, size_t len,
			    uint64_t off)
{
	return STRIPER_CALL(striper, aio_write(soid, completion, buf, len, off));
}

/* The C calls' buf may be reused at once: copied here, as libradosstriper copies it. */
static int copy_in(const char *buf, size_t len, ceph::bufferlist *bl)
{
	if (!buf && len)
		return -EINVAL;
	if (len > UINT32_MAX)
		return -EINVAL; /* a bufferlist's limit, as libradosstriper's */
	bl->append(buf, (unsigned)len);
	return 0;
}

int rados_striper_aio_append(rados_striper_t striper, const char *soid,
			     rados_completion_t completion, const char *buf, size_t len)
{
	return compat::guard([&] {
		ceph::bufferlist bl;
		int r = striper ? copy_in(buf, len, &bl) : -EINVAL;
		return r ? r : impl(striper)->aio_append(soid, completion, bl, len);
	});
}

int rados_striper_aio_write_full(rados_striper_t striper, const char *soid,
				 rados_completion_t completion, const char *buf, size_t len)
{
	return compat::guard([&] {
		ceph::bufferlist bl;
		int r = striper ? copy_in(buf, len, &bl) : -EINVAL;
		return r ? r : impl(striper)->aio_write_full(soid, completion, bl);
	});
}

int rados_striper_aio_read(rados_striper_t striper, const char *soid,
			   rados_completion_t completion, char *buf, const size_t len, uint64_t off)
{
	return STRIPER_CALL(striper, aio_read(soid, completion, buf, len, off));
}

int rados_striper_aio_remove(rados_striper_t striper, const char *soid,
			     rados_completion_t completion)
{
	return STRIPER_CALL(striper, aio_remove(soid, completion));
}

void rados_striper_aio_flush(rados_striper_t striper)
{
	if (striper)
		impl(striper)->aio_flush();
}

int rados_striper_aio_stat(rados_striper_t striper, const char *soid,
			   rados_completion_t completion, uint64_t *psize, time_t *pmtime)
{
	return STRIPER_CALL(striper, aio_stat(soid, completion, psize, pmtime, nullptr));
}

} /* extern "C" */
