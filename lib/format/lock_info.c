// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cls_lock's get_info reply, decoded here rather than by librados'
 * rados_list_lockers(), whose fixed buffers refuse a long tag or many
 * holders (-ERANGE) and whose NUL-separated lists lose which cookie is
 * whose when a cookie holds a NUL byte. Pure: what comes from the cluster
 * is checked byte by byte, so the fuzzer drives it with anything.
 *
 * The encoding is Ceph's: little-endian integers, strings as a u32 length
 * and bytes, structures in an envelope (version, oldest compatible version,
 * u32 length of what follows; a newer version's extra bytes are skipped).
 *
 *   cls_lock_get_info_reply: envelope { u32 n, n x (locker_id_t, locker_info_t),
 *                                       u8 lock type, string tag }
 *   locker_id_t:   envelope { entity_name_t (u8 type, s64 num), string cookie }
 *   locker_info_t: envelope { utime_t (u32 sec, u32 nsec), entity_addr_t, string description }
 *   entity_addr_t: u8 1, envelope { u32 type, u32 nonce, u32 len, len bytes of sockaddr
 *                  (u16 family, then sa_data) }; or u8 0, the legacy form (u8, u16,
 *                  u32 nonce, 128 bytes of sockaddr_storage, family in network order)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lock_info.h"

/* Ceph's entity types (ceph_entity_type_name()) and address types (entity_addr_t). */
enum { ADDR_NONE = 0, ADDR_LEGACY = 1, ADDR_MSGR2 = 2, ADDR_ANY = 3, ADDR_CIDR = 4 };
/* sizeof(entity_addr_t::u): the largest sockaddr it holds (sockaddr_in6). */
#define SOCKADDR_MAX 28
#define LEGACY_SOCKADDR 128

struct dec {
	const uint8_t *p, *end;
	bool bad;
};

static bool need(struct dec *d, size_t n)
{
	if (d->bad || (size_t)(d->end - d->p) < n)
		d->bad = true;
	return !d->bad;
}

static uint64_t take_le(struct dec *d, size_t n)
{
	uint64_t v = 0;

	if (!need(d, n))
		return 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)d->p[i] << (8 * i);
	d->p += n;
	return v;
}

static void take_bytes(struct dec *d, void *to, size_t n)
{
	if (!need(d, n))
		return;
	memcpy(to, d->p, n);
	d->p += n;
}

struct str {
	const char *s;
	size_t len;
};

static struct str take_str(struct dec *d)
{
	size_t n = (size_t)take_le(d, 4);
	struct str s = {"", 0};

	if (need(d, n)) {
		s = (struct str){(const char *)d->p, n};
		d->p += n;
	}
	return s;
}

/*
 * An envelope (DECODE_START): version at least 1, a compatible version we
 * know (1), a length within the reply. Returns where the structure ends;
 * the decoding of its fields stays within it.
 */
static const uint8_t *envelope_begin(struct dec *d, const uint8_t **outer_end)
{
	uint8_t v = (uint8_t)take_le(d, 1), compat = (uint8_t)take_le(d, 1);
	size_t len = (size_t)take_le(d, 4);

	*outer_end = d->end;
	if (!d->bad && (v < 1 || compat > 1))
		d->bad = true;
	if (!need(d, len))
		return d->p;
	d->end = d->p + len;
	return d->end;
}

/* DECODE_FINISH: what a newer version added is skipped. */
static void envelope_end(struct dec *d, const uint8_t *struct_end, const uint8_t *outer_end)
{
	if (d->bad)
		return;
	d->p = struct_end;
	d->end = outer_end;
}

/* entity_name_t, printed as Ceph prints it: "client.4123" ("client.?" for a new one). */
static void take_name(struct dec *d, char *out, size_t cap)
{
	uint8_t type = (uint8_t)take_le(d, 1);
	int64_t num = (int64_t)take_le(d, 8);
	const char *what;

	switch (type) {
	case 0x01:
		what = "mon";
		break;
	case 0x02:
		what = "mds";
		break;
	case 0x04:
		what = "osd";
		break;
	case 0x08:
		what = "client";
		break;
	case 0x10:
		what = "mgr";
		break;
	case 0x20:
		what = "auth";
		break;
	default:
		what = "unknown";
		break;
	}
	if (num < 0)
		snprintf(out, cap, "%s.?", what);
	else
		snprintf(out, cap, "%s.%" PRId64, what, num);
}

/* An address, once decoded: type, nonce, and the sockaddr as Linux lays it out. */
struct addr {
	uint32_t type, nonce;
	uint16_t family;
	uint8_t data[SOCKADDR_MAX - 2]; /* sa_data: port, then the address */
};

/* entity_addr_t::get_sockaddr_len() for a family, less the family itself. */
static size_t sockaddr_data_len(uint16_t family)
{
	if (family == AF_INET)
		return sizeof(struct sockaddr_in) - 2;
	return SOCKADDR_MAX - 2; /* AF_INET6, and the union's size for any other */
}

/* The legacy form after its first byte: sockaddr_storage with the family big-endian. */
static void take_legacy_addr(struct dec *d, struct addr *a)
{
	uint8_t ss[LEGACY_SOCKADDR];
	uint16_t family;

	take_le(d, 1);
	take_le(d, 2);
	a->nonce = (uint32_t)take_le(d, 4);
	take_bytes(d, ss, sizeof(ss));
	family = (uint16_t)(ss[0] << 8 | ss[1]);
	/* entity_addr_t::set_sockaddr() takes these families only; the rest stays blank. */
	if (family == AF_INET || family == AF_INET6) {
		a->family = family;
		memcpy(a->data, ss + 2, sockaddr_data_len(family));
	}
	a->type = a->family ? ADDR_LEGACY : ADDR_NONE;
}

static void take_addr(struct dec *d, struct addr *a)
{
	uint8_t marker = (uint8_t)take_le(d, 1);
	const uint8_t *end, *outer;
	size_t len;

	memset(a, 0, sizeof(*a));
	if (d->bad)
		return;
	if (marker == 0) {
		take_legacy_addr(d, a);
		return;
	}
	if (marker != 1) {
		d->bad = true;
		return;
	}
	end = envelope_begin(d, &outer);
	a->type = (uint32_t)take_le(d, 4);
	a->nonce = (uint32_t)take_le(d, 4);
	len = (size_t)take_le(d, 4);
	if (len) {
		if (len < 2) {
			d->bad = true;
			return;
		}
		a->family = (uint16_t)take_le(d, 2);
		len -= 2;
		if (len > sockaddr_data_len(a->family)) {
			d->bad = true;
			return;
		}
		take_bytes(d, a->data, len);
	}
	envelope_end(d, end, outer);
}

/* As Ceph's operator<<(entity_addr_t): "v1:127.0.0.1:0/3490100637", "any:[::1]:0/5", "-". */
static void print_addr(const struct addr *a, char *out, size_t cap)
{
	static const char *const types[] = {"none", "v1", "v2", "any", "cidr"};
	char ip[INET6_ADDRSTRLEN] = "", prefix[8] = "";
	unsigned port = (unsigned)a->data[0] << 8 | a->data[1];

	if (a->type == ADDR_NONE) {
		snprintf(out, cap, "-");
		return;
	}
	if (a->type != ADDR_ANY)
		snprintf(prefix, sizeof(prefix),
			 "%s:", a->type <= ADDR_CIDR ? types[a->type] : "???");
	if (a->family == AF_INET) {
		inet_ntop(AF_INET, a->data + 2, ip, sizeof(ip));
		snprintf(out, cap, "%s%s:%u/%" PRIu32, prefix, ip, port, a->nonce);
	} else if (a->family == AF_INET6) {
		/* sockaddr_in6: port, flow info (4 bytes), then the address */
		inet_ntop(AF_INET6, a->data + 6, ip, sizeof(ip));
		snprintf(out, cap, "%s[%s]:%u/%" PRIu32, prefix, ip, port, a->nonce);
	} else {
		snprintf(out, cap, "%s(unrecognized address family %u)/%" PRIu32, prefix,
			 (unsigned)a->family, a->nonce);
	}
}

/* One holder: its locker_id_t (name, cookie) and locker_info_t (expiry, address, description). */
static void take_holder(struct dec *d, struct locker *l)
{
	const uint8_t *end, *outer;
	struct locker scratch;
	struct addr a;
	struct str s;

	if (!l)
		l = &scratch;
	end = envelope_begin(d, &outer);
	take_name(d, l->client, sizeof(l->client));
	s = take_str(d);
	snprintf(l->cookie, sizeof(l->cookie), "%.*s", (int)strnlen(s.s, s.len), s.s);
	envelope_end(d, end, outer);

	end = envelope_begin(d, &outer);
	take_le(d, 8); /* the expiry: libstriped's and libradosstriper's locks have none */
	take_addr(d, &a);
	take_str(d); /* the description */
	envelope_end(d, end, outer);
	if (!d->bad)
		print_addr(&a, l->addr, sizeof(l->addr));
}

ssize_t lock_info_decode(const void *reply, size_t len, struct locker *out, size_t max,
			 bool *exclusive, char *tag)
{
	struct dec d = {reply, (const uint8_t *)reply + len, !reply};
	const uint8_t *end, *outer;
	uint32_t n;
	uint8_t type;
	struct str t;
	size_t kept = 0;

	end = envelope_begin(&d, &outer);
	n = (uint32_t)take_le(&d, 4);
	/* n comes from the wire: each holder is read, never n allocated. */
	for (uint32_t i = 0; i < n && !d.bad; i++) {
		take_holder(&d, kept < max ? &out[kept] : NULL);
		kept += kept < max;
	}
	type = (uint8_t)take_le(&d, 1);
	t = take_str(&d);
	envelope_end(&d, end, outer);
	if (d.bad)
		return -EBADMSG;
	/* librados counts only LOCK_EXCLUSIVE (1) as exclusive, not the ephemeral kind (3). */
	*exclusive = type == LOCK_EXCLUSIVE;
	if (tag)
		snprintf(tag, LOCK_TAG_MAX, "%.*s", (int)strnlen(t.s, t.len), t.s);
	return (ssize_t)kept;
}

static void put_le32(char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (char)(v >> (8 * i));
}

ssize_t lock_info_encode_free(char *buf, size_t cap, int type, const char *tag)
{
	size_t tl = strlen(tag), body = 4 + 1 + 4 + tl, len = 2 + 4 + body;

	if (cap < len || tl > UINT32_MAX - 9)
		return -ERANGE;
	buf[0] = 1; /* the envelope: version 1, compatible with 1, the body's length */
	buf[1] = 1;
	put_le32(buf + 2, (uint32_t)body);
	put_le32(buf + 6, 0); /* no holder */
	buf[10] = (char)type;
	put_le32(buf + 11, (uint32_t)tl);
	memcpy(buf + 15, tag, tl);
	return (ssize_t)len;
}
