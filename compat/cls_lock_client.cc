// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Five functions of Ceph's cls_lock client, which stock libradosstriper.so.1
 * carries (Ceph links the client into it) and exports, and which Debian's
 * `rados` binds to there, at start (it is linked with BIND_NOW): without
 * them `rados` does not run on the drop-in at all. They are Ceph's lock
 * class calls, nothing of striping: `rados lock get|list|info|break`.
 *
 * The types are Ceph 16.2's, member for member: the program's own inline
 * code builds a Lock and walks the map of lockers returned here. The
 * requests and replies are the lock class's encodings (each in Ceph's
 * versioned envelope: version, compat, length). Where these and Ceph's
 * header disagreed, `rados lock info` through the drop-in would print
 * otherwise than through stock: tests/compat/rados-striper.sh compares them.
 */
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <list>
#include <map>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>

#include <rados/librados.hpp>

/* ---- Ceph 16.2's types, as the programs compiled against them lay them out ---- */

/* msg/msg_types.h: a client's name, client.NUM. */
struct entity_name_t {
	uint8_t _type;
	int64_t _num;
};

/* cls/lock/cls_lock_types.h */
enum class ClsLockType { NONE = 0, EXCLUSIVE = 1, SHARED = 2, EXCLUSIVE_EPHEMERAL = 3 };

namespace compat
{
/* include/utime.h */
struct utime {
	uint32_t sec;
	uint32_t nsec;
};
/* msg/msg_types.h's entity_addr_t: type, nonce, then the socket address. */
struct entity_addr {
	uint32_t type;
	uint32_t nonce;
	union {
		sockaddr sa;
		sockaddr_in sin;
		sockaddr_in6 sin6;
	} u;
};
static_assert(sizeof(entity_addr) == 36, "entity_addr_t is 36 bytes");
} // namespace compat

namespace rados
{
namespace cls
{
namespace lock
{

struct locker_id_t {
	entity_name_t locker;
	std::string cookie;

	/* As Ceph orders them: by client type, number, then cookie. */
	bool operator<(const locker_id_t &o) const
	{
		if (locker._type != o.locker._type)
			return locker._type < o.locker._type;
		if (locker._num != o.locker._num)
			return locker._num < o.locker._num;
		return cookie < o.cookie;
	}
};

struct locker_info_t {
	compat::utime expiration;
	compat::entity_addr addr;
	std::string description;
};

/* cls_lock_client.h's Lock: its fields are set by the program's inline code. */
class Lock
{
	std::string name;
	std::string cookie;
	std::string tag;
	std::string description;
	compat::utime duration;
	uint8_t flags;

      public:
	int lock_shared(librados::IoCtx *ioctx, const std::string &oid);
	int lock_exclusive(librados::IoCtx *ioctx, const std::string &oid);
	int break_lock(librados::IoCtx *ioctx, const std::string &oid, const entity_name_t &locker);

      private:
	int lock(librados::IoCtx *ioctx, const std::string &oid, ClsLockType type);
};

int list_locks(librados::IoCtx *ioctx, const std::string &oid, std::list<std::string> *locks);
int get_lock_info(librados::IoCtx *ioctx, const std::string &oid, const std::string &name,
		  std::map<locker_id_t, locker_info_t> *lockers, ClsLockType *type,
		  std::string *tag);

} // namespace lock
} // namespace cls
} // namespace rados

/* ---- the encodings ---- */

namespace
{

struct malformed {
};

/* Little-endian fields, as Ceph's encode() writes them. */
class Encoder
{
      public:
	void u8(uint8_t v)
	{
		bl_.append(reinterpret_cast<const char *>(&v), 1);
	}
	void u32(uint32_t v)
	{
		char b[4] = {char(v), char(v >> 8), char(v >> 16), char(v >> 24)};
		bl_.append(b, 4);
	}
	void u64(uint64_t v)
	{
		u32(uint32_t(v));
		u32(uint32_t(v >> 32));
	}
	void str(const std::string &s)
	{
		u32(uint32_t(s.size()));
		bl_.append(s);
	}
	void name(const entity_name_t &n)
	{
		u8(n._type);
		u64(uint64_t(n._num));
	}
	/* What was encoded, in ENCODE_START(1, 1)'s envelope: version, compat, length. */
	ceph::bufferlist in_envelope() const
	{
		Encoder head;
		head.u8(1);
		head.u8(1);
		head.u32(bl_.length());
		ceph::bufferlist whole = head.bl_;
		whole.append(bl_);
		return whole;
	}

      private:
	ceph::bufferlist bl_;
};

class Decoder
{
      public:
	explicit Decoder(const ceph::bufferlist &bl) : data_(bl.to_str())
	{
	}
	void bytes(void *to, size_t n)
	{
		if (n > data_.size() - at_)
			throw malformed();
		memcpy(to, data_.data() + at_, n);
		at_ += n;
	}
	uint8_t u8()
	{
		uint8_t v;
		bytes(&v, 1);
		return v;
	}
	uint16_t u16()
	{
		uint8_t b[2];
		bytes(b, 2);
		return uint16_t(b[0] | b[1] << 8);
	}
	uint32_t u32()
	{
		uint8_t b[4];
		bytes(b, 4);
		return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 |
		       uint32_t(b[3]) << 24;
	}
	uint64_t u64()
	{
		uint64_t lo = u32();
		return lo | uint64_t(u32()) << 32;
	}
	std::string str()
	{
		uint32_t n = u32();
		if (n > data_.size() - at_)
			throw malformed();
		std::string s = data_.substr(at_, n);
		at_ += n;
		return s;
	}
	/* DECODE_START: a struct this old or newer; its end, past fields added since. */
	size_t start()
	{
		u8(); /* version */
		if (u8() > 1)
			throw malformed(); /* compat: needs a newer decoder */
		uint32_t len = u32();
		if (len > data_.size() - at_)
			throw malformed();
		return at_ + len;
	}
	void finish(size_t end)
	{
		if (at_ > end)
			throw malformed();
		at_ = end;
	}
	entity_name_t name()
	{
		entity_name_t n;
		n._type = u8();
		n._num = int64_t(u64());
		return n;
	}
	compat::utime utime()
	{
		compat::utime t;
		t.sec = u32();
		t.nsec = u32();
		return t;
	}
	compat::entity_addr addr();

      private:
	std::string data_;
	size_t at_ = 0;
};

/* entity_addr_t, new form (marker 1) or legacy (marker 0), as msg_types.h decodes it. */
compat::entity_addr Decoder::addr()
{
	compat::entity_addr a = {};

	if (u8() == 0) {
		/* legacy: marker, 2 bytes, nonce, a sockaddr_storage with its family in network order */
		u8();
		u16();
		a.nonce = u32();
		unsigned char ss[128];
		bytes(ss, sizeof(ss));
		uint16_t family = uint16_t(ss[0] << 8 | ss[1]);
		a.u.sa.sa_family = family;
		memcpy(a.u.sa.sa_data, ss + 2, sizeof(a.u) - 2);
		a.type = family == AF_UNSPEC ? 0 : 1; /* TYPE_NONE, TYPE_LEGACY */
		return a;
	}
	size_t end = start();
	a.type = u32();
	a.nonce = u32();
	uint32_t elen = u32();
	if (elen) {
		if (elen < 2 || elen - 2 > sizeof(a.u) - sizeof(a.u.sa.sa_family))
			throw malformed();
		a.u.sa.sa_family = u16();
		bytes(a.u.sa.sa_data, elen - 2);
	}
	finish(end);
	return a;
}

} // namespace

/* ---- the calls ---- */

namespace rados
{
namespace cls
{
namespace lock
{

int Lock::lock(librados::IoCtx *ioctx, const std::string &oid, ClsLockType type)
{
	Encoder e; /* cls_lock_lock_op */

	e.str(name);
	e.u8(uint8_t(type));
	e.str(cookie);
	e.str(tag);
	e.str(description);
	e.u32(duration.sec);
	e.u32(duration.nsec);
	e.u8(flags);
	ceph::bufferlist in = e.in_envelope();
	librados::ObjectWriteOperation op;
	op.exec("lock", "lock", in);
	return ioctx->operate(oid, &op);
}

int Lock::lock_shared(librados::IoCtx *ioctx, const std::string &oid)
{
	return lock(ioctx, oid, ClsLockType::SHARED);
}

int Lock::lock_exclusive(librados::IoCtx *ioctx, const std::string &oid)
{
	return lock(ioctx, oid, ClsLockType::EXCLUSIVE);
}

int Lock::break_lock(librados::IoCtx *ioctx, const std::string &oid, const entity_name_t &locker)
{
	Encoder e; /* cls_lock_break_op */

	e.str(name);
	e.name(locker);
	e.str(cookie);
	ceph::bufferlist in = e.in_envelope();
	librados::ObjectWriteOperation op;
	op.exec("lock", "break_lock", in);
	return ioctx->operate(oid, &op);
}

int list_locks(librados::IoCtx *ioctx, const std::string &oid, std::list<std::string> *locks)
{
	ceph::bufferlist in, out;
	int r = ioctx->exec(oid, "lock", "list_locks", in, out);

	if (r < 0)
		return r;
	try {
		Decoder d(out);
		size_t end = d.start(); /* cls_lock_list_locks_reply */
		std::list<std::string> names;
		for (uint32_t n = d.u32(); n; n--)
			names.push_back(d.str());
		d.finish(end);
		*locks = std::move(names);
	} catch (const malformed &) {
		return -EBADMSG;
	}
	return 0;
}

int get_lock_info(librados::IoCtx *ioctx, const std::string &oid, const std::string &name,
		  std::map<locker_id_t, locker_info_t> *lockers, ClsLockType *type,
		  std::string *tag)
{
	Encoder e; /* cls_lock_get_info_op */
	ceph::bufferlist out;

	e.str(name);
	ceph::bufferlist in = e.in_envelope();
	librados::ObjectReadOperation op;
	int rval = 0;
	op.exec("lock", "get_info", in, &out, &rval);
	int r = ioctx->operate(oid, &op, nullptr);
	if (r < 0)
		return r;
	try {
		Decoder d(out);
		size_t end = d.start(); /* cls_lock_get_info_reply */
		std::map<locker_id_t, locker_info_t> found;
		for (uint32_t n = d.u32(); n; n--) {
			locker_id_t id;
			size_t id_end = d.start();
			id.locker = d.name();
			id.cookie = d.str();
			d.finish(id_end);
			locker_info_t info;
			size_t info_end = d.start();
			info.expiration = d.utime();
			info.addr = d.addr();
			info.description = d.str();
			d.finish(info_end);
			found[id] = info;
		}
		ClsLockType got_type = ClsLockType(d.u8());
		std::string got_tag = d.str();
		d.finish(end);
		if (lockers)
			*lockers = std::move(found);
		if (type)
			*type = got_type;
		if (tag)
			*tag = std::move(got_tag);
	} catch (const malformed &) {
		return -EBADMSG;
	}
	return 0;
}

} // namespace lock
} // namespace cls
} // namespace rados
