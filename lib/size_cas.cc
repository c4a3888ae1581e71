// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The size update as libradosstriper does it: a numeric compare (u64 mode)
 * guarding the set, in one operation. Only librados' C++ API offers the
 * numeric mode, so this one function is C++; it throws nothing across the
 * C boundary.
 */
#include <cerrno>
#include <new>
#include <string>

#include <rados/librados.hpp>

extern "C" {
#include "striped_i.h"
}

extern "C" int size_cas_send(rados_ioctx_t io, const char *oid, rados_completion_t c,
			     uint64_t want, int flags)
{
	try {
		librados::IoCtx ioctx;
		librados::ObjectWriteOperation op;
		ceph::bufferlist value;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		value.append(std::to_string(want));
		op.cmpxattr(XATTR_SIZE, LIBRADOS_CMPXATTR_OP_GT, want);
		op.setxattr(XATTR_SIZE, value);
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
