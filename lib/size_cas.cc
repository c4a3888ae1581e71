// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Size updates as libradosstriper does them: a numeric compare (u64 mode)
 * guarding the set, in one operation. Only librados' C++ API offers the
 * numeric mode, so these functions are C++; they throw nothing across the
 * C boundary.
 */
#include <cerrno>
#include <new>
#include <string>

#include <rados/librados.hpp>

extern "C" {
#include "striped_i.h"
}

static ceph::bufferlist decimal(uint64_t v)
{
	ceph::bufferlist bl;

	bl.append(std::to_string(v));
	return bl;
}

extern "C" int size_cas_send(rados_ioctx_t io, const char *oid, rados_completion_t c,
			     uint64_t want, int flags)
{
	try {
		librados::IoCtx ioctx;
		librados::ObjectWriteOperation op;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		op.cmpxattr(XATTR_SIZE, LIBRADOS_CMPXATTR_OP_GT, want);
		op.setxattr(XATTR_SIZE, decimal(want));
		/*
		 * Wrap the C completion without taking ownership: the wrapper's
		 * destructor would drop the caller's reference, so it never runs.
		 */
		alignas(librados::AioCompletion) unsigned char storage[sizeof(librados::AioCompletion)];
		auto *comp = new (storage)
			librados::AioCompletion(static_cast<librados::AioCompletionImpl *>(c));

		return ioctx.aio_operate(oid, comp, &op, flags);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

extern "C" int size_set_fenced(rados_ioctx_t io, const char *oid, const char *assert_in,
			       size_t assert_len, uint64_t old, uint64_t size, int flags)
{
	try {
		librados::IoCtx ioctx;
		librados::ObjectWriteOperation op;
		ceph::bufferlist in;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		in.append(assert_in, assert_len);
		op.exec("lock", "assert_locked", in);
		op.cmpxattr(XATTR_SIZE, LIBRADOS_CMPXATTR_OP_EQ, old);
		op.setxattr(XATTR_SIZE, decimal(size));
		return ioctx.operate(oid, &op, flags);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}
