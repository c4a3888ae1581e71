// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The zero-copy ceiling: a raw librados write whose bufferlist references
 * the caller's buffer (a static buffer), as librados' C++ API allows and
 * its C API does not. Everything else is as rados_aio_write().
 */
#include <cerrno>
#include <new>

#include <rados/librados.hpp>

extern "C" {
#include "bench.h"
}

extern "C" int rados_zc_aio_write(rados_ioctx_t io, const char *oid, rados_completion_t c,
				  const char *buf, size_t len, uint64_t off)
{
	try {
		librados::IoCtx ioctx;
		ceph::bufferlist bl;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		bl.append(ceph::buffer::create_static(len, const_cast<char *>(buf)));
		/* Wrap the C completion in place; the wrapper would drop its reference. */
		alignas(librados::AioCompletion) unsigned char storage[sizeof(librados::AioCompletion)];
		auto *comp = new (storage)
			librados::AioCompletion(static_cast<librados::AioCompletionImpl *>(c));

		return ioctx.aio_write(oid, comp, bl, len, off);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}
