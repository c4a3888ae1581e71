// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for cls_lock's get_info reply as libstriped decodes it
 * (lib/lock_info.c), and what is done with the holders it names
 * (cookie_owner, addr_shared, cookie_answered in lib/meta.c).
 * The first byte chooses:
 * - even: the rest is a reply as an OSD would send it; decoding it must
 *   not crash, leak or read out of bounds, give -EBADMSG or at most max
 *   holders with NUL-terminated fields, the same with any max, and the
 *   holders' addresses must be usable (each shares an address with itself);
 * - odd: the rest describes holders (entity names, cookies with NUL bytes
 *   or not, addresses of either encoding and any type and family, expiry,
 *   description, envelopes of later versions with bytes to skip), which
 *   are encoded as Ceph encodes them and decoded: every holder must come
 *   back as librados would print it (its address parsed back to the same
 *   bytes, port and nonce), with the lock's kind and tag.
 *
 * Seeds: fuzz/corpus/fuzz_lock_info/ (replies captured from a cluster by
 * fuzz/capture.c); dictionary: fuzz/fuzz_lock_info.dict.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "cookie.h"
#include "lock_info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_holders(const struct locker *l, size_t n, const char *tag)
{
	for (size_t i = 0; i < n; i++) {
		int owner;

		if (strnlen(l[i].client, sizeof(l[i].client)) == sizeof(l[i].client) ||
		    strnlen(l[i].cookie, sizeof(l[i].cookie)) == sizeof(l[i].cookie) ||
		    strnlen(l[i].addr, sizeof(l[i].addr)) == sizeof(l[i].addr))
			abort();
		owner = cookie_owner(l[i].cookie, tag, false);
		if (owner < STRIPED_LOCKER_OTHER || owner > STRIPED_LOCKER_LIBRADOSSTRIPER)
			abort();
		if (!addr_shared(l[i].addr, l[i].addr))
			abort();
		if (i)
			addr_shared(l[i].addr, l[i - 1].addr);
		if (!cookie_answered(l[i].cookie, strlen(l[i].cookie) + 1, l[i].cookie))
			abort();
	}
}

static void fuzz_reply(const uint8_t *data, size_t size)
{
	static struct locker l[LOCKERS_MAX], few[2];
	char tag[LOCK_TAG_MAX];
	bool exclusive = false, excl2 = false;
	ssize_t n = lock_info_decode(data, size, l, LOCKERS_MAX, &exclusive, tag), m;

	m = lock_info_decode(data, size, few, 2, &excl2, NULL);
	if ((n < 0) != (m < 0) || (n >= 0 && (m != (n < 2 ? n : 2) || excl2 != exclusive)))
		abort();
	if (lock_info_decode(data, size, NULL, 0, &excl2, NULL) != (n < 0 ? n : 0))
		abort();
	if (n < 0) {
		if (n != -EBADMSG)
			abort();
		return;
	}
	if (n > LOCKERS_MAX || strnlen(tag, sizeof(tag)) == sizeof(tag))
		abort();
	for (ssize_t i = 0; i < m; i++)
		if (strcmp(few[i].client, l[i].client) || strcmp(few[i].cookie, l[i].cookie) ||
		    strcmp(few[i].addr, l[i].addr))
			abort();
	check_holders(l, (size_t)n, tag);
}

/* ---- the structured side: holders encoded as Ceph encodes them ---- */

struct src {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct src *s, size_t bytes)
{
	uint64_t v = 0;

	for (size_t i = 0; i < bytes && s->left; i++, s->p++, s->left--)
		v |= (uint64_t)*s->p << (8 * i);
	return v;
}

struct buf {
	uint8_t b[1 << 16];
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n <= sizeof(b->b))
		memcpy(b->b + b->len, p, n);
	b->len += n;
}

static void put_le(struct buf *b, uint64_t v, size_t n)
{
	uint8_t le[8];

	for (size_t i = 0; i < n; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	put(b, le, n);
}

static void put_str(struct buf *b, const void *p, size_t n)
{
	put_le(b, n, 4);
	put(b, p, n);
}

/* An envelope of version v (1, or later with extra bytes a decoder must skip). */
static size_t env_begin(struct buf *b, uint8_t v)
{
	put_le(b, v, 1);
	put_le(b, 1, 1);
	put_le(b, 0, 4);
	return b->len;
}

static void env_end(struct buf *b, size_t at, uint8_t v, struct src *s)
{
	uint32_t len;

	if (v > 1) /* what a later version appends */
		for (uint64_t k = take(s, 1) % 8; k; k--)
			put_le(b, take(s, 1), 1);
	len = (uint32_t)(b->len - at);
	if (at + len <= sizeof(b->b))
		for (int i = 0; i < 4; i++)
			b->b[at - 4 + i] = (uint8_t)(len >> (8 * i));
}

struct want {
	char client[64], cookie[COOKIE_MAX + 64];
	uint32_t type, nonce;
	uint16_t family, port;
	uint8_t ip[16];
};

static const char *entity_type(uint8_t t)
{
	switch (t) {
	case 1:
		return "mon";
	case 2:
		return "mds";
	case 4:
		return "osd";
	case 8:
		return "client";
	case 16:
		return "mgr";
	case 32:
		return "auth";
	default:
		return "unknown";
	}
}

static void build_addr(struct buf *b, struct src *s, struct want *w)
{
	static const uint16_t families[] = {AF_INET, AF_INET6, 0, 1, 7};
	bool legacy = take(s, 1) % 4 == 0;
	uint16_t family = families[take(s, 1) % 5];
	uint8_t sa[26] = {0}; /* sa_data: port, then flow info and address, or the address */
	size_t at;
	uint8_t v = (uint8_t)(1 + take(s, 1) % 2);

	w->port = (uint16_t)take(s, 2);
	w->nonce = (uint32_t)take(s, 4);
	sa[0] = (uint8_t)(w->port >> 8);
	sa[1] = (uint8_t)w->port;
	for (int i = 0; i < 16; i++)
		w->ip[i] = (uint8_t)take(s, 1);
	memcpy(sa + (family == AF_INET6 ? 6 : 2), w->ip, family == AF_INET6 ? 16 : 4);
	w->family = family;
	if (legacy) {
		uint8_t ss[128] = {0};

		put_le(b, 0, 4); /* marker 0, then the rest of a u32 type 0 */
		put_le(b, w->nonce, 4);
		ss[0] = (uint8_t)(family >> 8), ss[1] = (uint8_t)family;
		memcpy(ss + 2, sa, sizeof(sa));
		put(b, ss, sizeof(ss));
		/* set_sockaddr() takes these two families only */
		w->type = family == AF_INET || family == AF_INET6 ? 1 : 0;
		w->family = w->type ? family : 0;
		return;
	}
	w->type = (uint32_t)(take(s, 1) % 7);
	put_le(b, 1, 1);
	at = env_begin(b, v);
	put_le(b, w->type, 4);
	put_le(b, w->nonce, 4);
	if (family == 0 && take(s, 1) % 2) {
		put_le(b, 0, 4); /* no sockaddr at all */
	} else {
		size_t len = family == AF_INET ? 14 : 26;

		put_le(b, len + 2, 4);
		put_le(b, family, 2);
		put(b, sa, len);
	}
	env_end(b, at, v, s);
}

/* The printed address names the same type, bytes, port and nonce. */
static void check_addr(const char *got, const struct want *w)
{
	static const char *const types[] = {"none", "v1", "v2", "any", "cidr"};
	char prefix[16] = "", ip[64];
	unsigned port;
	uint32_t nonce;
	uint8_t bytes[16];
	int used = 0;

	if (w->type == 0) {
		if (strcmp(got, "-"))
			abort();
		return;
	}
	if (w->type != 3)
		snprintf(prefix, sizeof(prefix), "%s:", w->type <= 4 ? types[w->type] : "???");
	if (strncmp(got, prefix, strlen(prefix)))
		abort();
	got += strlen(prefix);
	if (w->family == AF_INET) {
		if (sscanf(got, "%63[0-9.]:%u/%" SCNu32 "%n", ip, &port, &nonce, &used) != 3 ||
		    inet_pton(AF_INET, ip, bytes) != 1 || memcmp(bytes, w->ip, 4))
			abort();
	} else if (w->family == AF_INET6) {
		if (sscanf(got, "[%63[0-9a-f:.]]:%u/%" SCNu32 "%n", ip, &port, &nonce, &used) !=
			3 ||
		    inet_pton(AF_INET6, ip, bytes) != 1 || memcmp(bytes, w->ip, 16))
			abort();
	} else {
		unsigned family;

		if (sscanf(got, "(unrecognized address family %u)/%" SCNu32 "%n", &family, &nonce,
			   &used) != 2 ||
		    family != w->family)
			abort();
		port = w->port;
	}
	if (got[used] || port != w->port || nonce != w->nonce)
		abort();
}

static void fuzz_holders(const uint8_t *data, size_t size)
{
	static struct buf b;
	static struct want w[80];
	static struct locker l[LOCKERS_MAX];
	struct src s = {data, size};
	size_t n = take(&s, 1) % 80, at, tag_len;
	uint8_t v = (uint8_t)(1 + take(&s, 1) % 2), type;
	char tag[LOCK_TAG_MAX], tag_in[100];
	bool exclusive;
	ssize_t got;

	b.len = 0;
	at = env_begin(&b, v);
	put_le(&b, n, 4);
	for (size_t i = 0; i < n; i++) {
		uint8_t t = (uint8_t)take(&s, 1), id_v = (uint8_t)(1 + take(&s, 1) % 2);
		int64_t num = (int64_t)take(&s, 8);
		uint8_t cookie[200];
		size_t clen = take(&s, 1) % sizeof(cookie), in;

		for (size_t k = 0; k < clen; k++)
			cookie[k] = (uint8_t)(take(&s, 1) % 3 == 0 ? 0 : 'a' + take(&s, 1) % 26);
		in = env_begin(&b, id_v);
		put_le(&b, t, 1);
		put_le(&b, (uint64_t)num, 8);
		put_str(&b, cookie, clen);
		env_end(&b, in, id_v, &s);
		if (num < 0)
			snprintf(w[i].client, sizeof(w[i].client), "%s.?", entity_type(t));
		else
			snprintf(w[i].client, sizeof(w[i].client), "%s.%" PRId64, entity_type(t),
				 num);
		snprintf(w[i].cookie, sizeof(w[i].cookie), "%.*s",
			 (int)strnlen((char *)cookie, clen), (char *)cookie);

		in = env_begin(&b, id_v);
		put_le(&b, take(&s, 8), 8); /* expiry */
		build_addr(&b, &s, &w[i]);
		put_str(&b, "desc", take(&s, 1) % 5);
		env_end(&b, in, id_v, &s);
	}
	type = (uint8_t)take(&s, 1) % 4;
	put_le(&b, type, 1);
	tag_len = take(&s, 1) % sizeof(tag_in);
	memset(tag_in, 'T', tag_len);
	put_str(&b, tag_in, tag_len);
	env_end(&b, at, v, &s);
	if (b.len > sizeof(b.b))
		return;

	got = lock_info_decode(b.b, b.len, l, LOCKERS_MAX, &exclusive, tag);
	if (got != (ssize_t)(n < LOCKERS_MAX ? n : LOCKERS_MAX) || exclusive != (type == 1) ||
	    strlen(tag) != (tag_len < LOCK_TAG_MAX ? tag_len : LOCK_TAG_MAX - 1))
		abort();
	for (ssize_t i = 0; i < got; i++) {
		if (strcmp(l[i].client, w[i].client) || strcmp(l[i].cookie, w[i].cookie))
			abort();
		check_addr(l[i].addr, &w[i]);
	}
	check_holders(l, (size_t)got, tag);
	/* Cut anywhere, it is refused whole. */
	if (b.len)
		if (lock_info_decode(b.b, take(&s, 4) % b.len, l, LOCKERS_MAX, &exclusive, tag) !=
		    -EBADMSG)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size && data[0] % 2)
		fuzz_holders(data + 1, size - 1);
	else
		fuzz_reply(size ? data + 1 : data, size ? size - 1 : 0);
	return 0;
}
