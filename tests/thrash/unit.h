/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Data that says where it came from: every 64-byte unit a thrash client
 * writes carries its writer (client, incarnation, operation number), the
 * file offset it was meant for (for an append, its offset within the
 * append's buffer, which knows no file offset) and a checksum over all of
 * it, so a read can be attributed unit by unit. All offsets and lengths the
 * clients use are multiples of UNIT, so a unit never straddles two writes.
 * The layout is also decoded by tests/thrash/checker.py's unit tests.
 */
#ifndef THRASH_UNIT_H
#define THRASH_UNIT_H

#include <stdint.h>
#include <string.h>

#define UNIT 64u
#define UNIT_MAGIC 0x31524854u /* "THR1" */
#define UNIT_APPEND 0x1u

struct unit_id {
	uint32_t client, inc, op, flags;
	uint64_t off; /* file offset, or offset within an append */
};

static inline uint64_t unit_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t unit_sum(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static inline void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t get32(const unsigned char *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * Layout (little endian): magic 4, client 2, incarnation 2, op 4, flags 4,
 * offset 8, fill 32 (from the fields above), checksum 8 (FNV-1a of 56 bytes).
 */
static inline void unit_encode(unsigned char *p, const struct unit_id *id)
{
	uint64_t x = unit_mix(((uint64_t)id->client << 48) ^ ((uint64_t)id->inc << 32) ^ id->op) ^
		     unit_mix(id->off ^ id->flags);

	put32(p, UNIT_MAGIC);
	p[4] = (unsigned char)id->client;
	p[5] = (unsigned char)(id->client >> 8);
	p[6] = (unsigned char)id->inc;
	p[7] = (unsigned char)(id->inc >> 8);
	put32(p + 8, id->op);
	put32(p + 12, id->flags);
	put64(p + 16, id->off);
	for (int i = 0; i < 4; i++) {
		x = unit_mix(x);
		put64(p + 24 + 8 * i, x);
	}
	put64(p + 56, unit_sum(p, 56));
}

/* 1: a valid unit (id filled); 0: all zeros; -1: anything else. */
static inline int unit_decode(const unsigned char *p, struct unit_id *id)
{
	static const unsigned char zero[UNIT];
	unsigned char again[UNIT];

	if (!memcmp(p, zero, UNIT))
		return 0;
	if (get32(p) != UNIT_MAGIC || get64(p + 56) != unit_sum(p, 56))
		return -1;
	id->client = p[4] | (uint32_t)p[5] << 8;
	id->inc = p[6] | (uint32_t)p[7] << 8;
	id->op = get32(p + 8);
	id->flags = get32(p + 12);
	id->off = get64(p + 16);
	unit_encode(again, id);
	return memcmp(p, again, UNIT) ? -1 : 1;
}

#endif
