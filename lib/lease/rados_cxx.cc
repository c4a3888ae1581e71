// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operations only librados' C++ API can build: a size update with a
 * numeric compare (u64 mode), as libradosstriper does it, and object writes
 * whose bufferlists reference the caller's memory instead of a copy of it.
 * Nothing here throws across the C boundary.
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <map>
#include <new>
#include <string>
#include <vector>

#include <rados/librados.hpp>

extern "C" {
#include "decimal.h"
#include "meta.h"
#include "rados_cxx.h"
#include "xattrs.h"
}

/*
 * Start op on oid through the C completion c. The C++ wrapper must not take
 * ownership: its destructor would drop the caller's reference, so it is
 * built in place and never destroyed.
 */
static int operate_aio(rados_ioctx_t io, const char *oid, rados_completion_t c,
		       librados::ObjectWriteOperation *op, int flags)
{
	librados::IoCtx ioctx;

	librados::IoCtx::from_rados_ioctx_t(io, ioctx);
	alignas(librados::AioCompletion) unsigned char storage[sizeof(librados::AioCompletion)];
	auto *comp =
		new (storage) librados::AioCompletion(static_cast<librados::AioCompletionImpl *>(c));

	return ioctx.aio_operate(oid, comp, op, flags);
}

static ceph::bufferlist decimal(uint64_t v)
{
	ceph::bufferlist bl;

	bl.append(std::to_string(v));
	return bl;
}

extern "C" int size_cas_send(rados_ioctx_t io, const char *oid, rados_completion_t c,
			     const char *xattr, uint64_t want, int flags)
{
	try {
		librados::ObjectWriteOperation op;

		/* A missing xattr compares as 0 (the mark of an older file). */
		op.cmpxattr(xattr, LIBRADOS_CMPXATTR_OP_GT, want);
		op.setxattr(xattr, decimal(want));
		return operate_aio(io, oid, c, &op, flags);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

/* "striper.size: old -> size", compared as numbers; -ECANCELED when it is not old. */
static void add_size_swap(librados::ObjectWriteOperation &op, uint64_t old, uint64_t size)
{
	op.cmpxattr(XATTR_SIZE, LIBRADOS_CMPXATTR_OP_EQ, old);
	op.setxattr(XATTR_SIZE, decimal(size));
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
		add_size_swap(op, old, size);
		/* Everything past the new size was cleaned: the mark comes down to it. */
		op.setxattr(XATTR_RESERVED, decimal(size));
		return ioctx.operate(oid, &op, flags);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

/*
 * The head is the file m was read as: its layout and id (a missing id
 * compares as 0, none), and its size and mark compared by cmp (m's value
 * against the stored one).
 */
static void guard_as_read(librados::ObjectWriteOperation *op, const struct head_meta *m, int cmp)
{
	op->cmpxattr(XATTR_STRIPE_UNIT, LIBRADOS_CMPXATTR_OP_EQ, m->layout.stripe_unit);
	op->cmpxattr(XATTR_STRIPE_COUNT, LIBRADOS_CMPXATTR_OP_EQ, m->layout.stripe_count);
	op->cmpxattr(XATTR_OBJECT_SIZE, LIBRADOS_CMPXATTR_OP_EQ, m->layout.object_size);
	op->cmpxattr(XATTR_ID, LIBRADOS_CMPXATTR_OP_EQ, m->id);
	op->cmpxattr(XATTR_SIZE, cmp, m->size);
	op->cmpxattr(XATTR_RESERVED, cmp, m->reserved);
	if (m->found & (1u << META_FIELD_HELD)) /* still held by the same holder */
		op->cmpxattr(XATTR_HELD, LIBRADOS_CMPXATTR_OP_EQ, m->held);
}

extern "C" int lock_if_unchanged(rados_ioctx_t io, const char *oid, const char *lock_in,
				 size_t lock_len, const struct head_meta *m, int flags)
{
	try {
		librados::IoCtx ioctx;
		librados::ObjectWriteOperation op;
		ceph::bufferlist in;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		in.append(lock_in, lock_len);
		op.assert_exists();
		/* Size and mark as read or above ("read <= stored"): never lowered since. */
		guard_as_read(&op, m, LIBRADOS_CMPXATTR_OP_LTE);
		op.exec("lock", "lock", in);
		return ioctx.operate(oid, &op, flags);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

/*
 * Remove the head only if it still holds what m and the lock's xattr (its
 * raw value) were read as: a file that changed, or was locked, in between
 * is left alone (-ECANCELED).
 */
extern "C" int remove_if_unchanged(rados_ioctx_t io, const char *oid, const struct head_meta *m,
				   const void *lock_val, size_t lock_len, int flags)
{
	try {
		librados::IoCtx ioctx;
		librados::ObjectWriteOperation op;
		ceph::bufferlist lock;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		lock.append(static_cast<const char *>(lock_val), lock_len);
		op.assert_exists(); /* -ENOENT, not a compare's answer on a missing object */
		op.cmpxattr(XATTR_LOCK, LIBRADOS_CMPXATTR_OP_EQ, lock);
		guard_as_read(&op, m, LIBRADOS_CMPXATTR_OP_EQ);
		op.remove();
		return ioctx.operate(oid, &op, flags);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

extern "C" int replace_if_unchanged(rados_ioctx_t io, const char *oid, const struct head_meta *m,
				    const void *lock_val, size_t lock_len, const void *buf,
				    size_t len, const struct striped_xattr_value *x, size_t nx,
				    int flags)
{
	try {
		librados::IoCtx ioctx;
		librados::ObjectWriteOperation op;
		ceph::bufferlist lock, bytes;
		std::vector<ceph::bufferlist> values(nx);

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		lock.append(static_cast<const char *>(lock_val), lock_len);
		op.assert_exists(); /* -ENOENT, not a compare's answer on a missing object */
		op.cmpxattr(XATTR_LOCK, LIBRADOS_CMPXATTR_OP_EQ, lock);
		guard_as_read(&op, m, LIBRADOS_CMPXATTR_OP_EQ);
		if (len)
			bytes.append(static_cast<const char *>(buf), len);
		op.write_full(bytes);
		op.setxattr(XATTR_SIZE, decimal(len));
		op.rmxattr(XATTR_HELD); /* written back: held no more */
		for (size_t i = 0; i < nx; i++) {
			values[i].append(static_cast<const char *>(x[i].value), x[i].len);
			op.setxattr(x[i].name, values[i]);
		}
		return ioctx.operate(oid, &op, flags);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

extern "C" int unhold_if(rados_ioctx_t io, const char *oid, uint64_t held)
{
	try {
		librados::IoCtx ioctx;
		librados::ObjectWriteOperation op;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		op.assert_exists();
		op.cmpxattr(XATTR_HELD, LIBRADOS_CMPXATTR_OP_EQ, held);
		op.rmxattr(XATTR_HELD);
		return ioctx.operate(oid, &op, STRIPED_WRITE_FLAGS);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

/* ---- object writes ---- */

/*
 * One object's share of a call: runs of contiguous bytes, each one write.
 * A call's pieces in one object are contiguous whatever the layout, so a
 * call normally gives one write per object, not one per stripe unit.
 */
struct obj_write {
	librados::ObjectWriteOperation op;
	ceph::bufferlist run;
	uint64_t run_off = 0;
	uint64_t writes = 0;
	int op_flags = 0;
};

static void flush_run(struct obj_write *w)
{
	if (w->run.length()) {
		w->op.write(w->run_off, w->run);
		if (w->op_flags)
			w->op.set_op_flags2(w->op_flags);
		w->run.clear();
		w->writes++;
	}
}

extern "C" struct obj_write *obj_write_new(int op_flags)
{
	auto *w = new (std::nothrow) obj_write;

	if (w)
		w->op_flags = op_flags;
	return w;
}

extern "C" void obj_write_free(struct obj_write *w)
{
	delete w;
}

extern "C" int obj_write_add(struct obj_write *w, const char *buf, size_t len, uint64_t obj_off,
			     bool zero_copy)
{
	try {
		if (w->run.length() && w->run_off + w->run.length() != obj_off)
			flush_run(w);
		if (!w->run.length())
			w->run_off = obj_off;
		if (zero_copy)
			w->run.append(ceph::buffer::create_static(len, const_cast<char *>(buf)));
		else
			w->run.append(buf, len);
		return 0;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

extern "C" int obj_write_send(struct obj_write *w, rados_ioctx_t io, const char *oid,
			      rados_completion_t c, uint64_t object_size, int flags)
{
	try {
		/* The whole object in one run: write_full, no read of what was there. */
		if (!w->writes && w->run_off == 0 && w->run.length() == object_size) {
			w->op.write_full(w->run);
			if (w->op_flags)
				w->op.set_op_flags2(w->op_flags);
			w->run.clear();
		} else {
			flush_run(w);
		}
		return operate_aio(io, oid, c, &w->op, flags);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

/* ---- head reads the C API cannot express in one round trip ---- */

extern "C" ssize_t head_getxattr(rados_ioctx_t io, const char *oid, const char *name, void *buf,
				 size_t len)
{
	try {
		librados::IoCtx ioctx;
		ceph::bufferlist bl;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		int r = ioctx.getxattr(oid, name, bl);
		if (r < 0)
			return r;
		if (len)
			bl.begin().copy(bl.length() < len ? bl.length() : len, static_cast<char *>(buf));
		return bl.length();
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

extern "C" int head_stat_time(rados_ioctx_t io, const char *oid, uint64_t *size,
			      struct timespec *mtime)
{
	try {
		librados::IoCtx ioctx;
		librados::ObjectReadOperation op;
		ceph::bufferlist value;
		uint64_t object_len;
		int stat_r = 0, size_r = 0;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		op.stat2(&object_len, mtime, &stat_r);
		op.getxattr(XATTR_SIZE, &value, &size_r);
		int r = ioctx.operate(oid, &op, nullptr);
		if (r < 0)
			return r;
		if (stat_r < 0 || size_r < 0)
			return stat_r < 0 ? stat_r : size_r;
		return decimal_parse(value.c_str(), value.length(), size) ? -EUCLEAN : 0;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

/* x's bytes and lock reply, taken from the operation that read them. */
static int take_extra(struct head_read_extra *x, ceph::bufferlist &data, ceph::bufferlist &lock)
{
	x->nread = data.length() < x->len ? data.length() : x->len;
	data.begin().copy(x->nread, static_cast<char *>(x->buf));
	x->lock_reply_len = lock.length();
	x->lock_reply = static_cast<char *>(malloc(lock.length() ? lock.length() : 1));
	if (!x->lock_reply)
		return -ENOMEM;
	lock.begin().copy(lock.length(), x->lock_reply);
	return 0;
}

extern "C" int head_stat_xattrs(rados_ioctx_t io, const char *oid, struct timespec *mtime,
				head_xattr_fn fn, void *arg, struct head_read_extra *x)
{
	try {
		librados::IoCtx ioctx;
		librados::ObjectReadOperation op;
		std::map<std::string, ceph::bufferlist> attrs;
		ceph::bufferlist data, lock_in, lock_reply;
		uint64_t object_len;
		int stat_r = 0, attrs_r = 0, read_r = 0, lock_r = 0;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		op.stat2(&object_len, mtime, &stat_r);
		op.getxattrs(&attrs, &attrs_r);
		if (x) {
			if (x->len)
				op.read(x->off, x->len, &data, &read_r);
			lock_in.append(x->lock_in, x->lock_len);
			op.exec("lock", "get_info", lock_in, &lock_reply, &lock_r);
		}
		int r = ioctx.operate(oid, &op, nullptr);
		if (r < 0)
			return r;
		if (stat_r < 0 || attrs_r < 0)
			return stat_r < 0 ? stat_r : attrs_r;
		if (read_r < 0 || lock_r < 0)
			return read_r < 0 ? read_r : lock_r;
		for (auto &kv : attrs) {
			r = fn(arg, kv.first.c_str(), kv.second.c_str(), kv.second.length());
			if (r)
				return r;
		}
		return x ? take_extra(x, data, lock_reply) : 0;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

/* The C API has no list_watchers: who watches the head, to tell who shares an address. */
extern "C" ssize_t head_watchers(rados_ioctx_t io, const char *oid, struct watcher **out)
{
	struct watcher *w = nullptr;

	try {
		librados::IoCtx ioctx;
		std::list<obj_watch_t> listed;
		size_t n = 0;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		int r = ioctx.list_watchers(oid, &listed);
		if (r < 0)
			return r;
		w = static_cast<struct watcher *>(calloc(listed.size() + 1, sizeof(*w)));
		if (!w)
			return -ENOMEM;
		for (const auto &one : listed) {
			w[n].id = one.watcher_id;
			snprintf(w[n].addr, sizeof(w[n].addr), "%s", one.addr);
			n++;
		}
		*out = w;
		return static_cast<ssize_t>(n);
	} catch (const std::bad_alloc &) {
		free(w);
		return -ENOMEM;
	} catch (...) {
		free(w);
		return -EIO;
	}
}

extern "C" int size_cas_eq(rados_ioctx_t io, const char *oid, uint64_t old, uint64_t size,
			   int flags)
{
	try {
		librados::IoCtx ioctx;
		librados::ObjectWriteOperation op;

		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		add_size_swap(op, old, size);
		return ioctx.operate(oid, &op, flags);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}
