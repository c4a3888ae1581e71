// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for the decoding of a head object's xattrs (lib/meta.c:
 * meta_head_init/take/finish, decimal_parse), as open, the lease, remove,
 * truncate, repair and `striped stat` and `check` read them from the
 * cluster. The input is an xattr set, as getxattrs returns one:
 *
 *   record := u8 key length, key, u16 (little-endian) value length, value
 *
 * (a key ends at a NUL, as RADOS keys are C strings; a key seen before is
 * skipped, as an object has each once). Properties, besides no crash, leak
 * or undefined behaviour:
 * - the result is what a reference decoder written apart from meta.c says
 *   (-ENODATA with none of the libraries' fields, -EUCLEAN for a field
 *   that is not ASCII digits with at most one trailing NUL, past 2^64 - 1,
 *   some fields missing or no valid layout), with the same numbers;
 * - what decodes also encodes: each field formatted back and each region
 *   named back (decimal_format, meta_region_key) decodes to the same head,
 *   and a decimal accepted is the formatted number, but for leading zeros.
 *
 * Seeds: fuzz/corpus/fuzz_head_xattrs/ (heads of real files, captured by
 * fuzz/capture.c); dictionary: fuzz/fuzz_head_xattrs.dict.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "meta.h"

#define MAX_XATTRS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct xattr {
	char key[256];
	const char *val;
	size_t len;
};

/* The reference: digits, one trailing NUL at most, at most 2^64 - 1. */
static int ref_decimal(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len && s[len - 1] == '\0')
		len--;
	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	while (len > 1 && *s == '0')
		s++, len--;
	if (len > 20)
		return -1;
	for (size_t i = 0; i < len; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	/* 20 digits are at least 10^19; past 2^64 - 1, the sum wrapped below that */
	if (len == 20 && (s[0] > '1' || v < 10000000000000000000ull))
		return -1;
	*out = v;
	return 0;
}

static int parse_records(const uint8_t *p, size_t left, struct xattr *x)
{
	int n = 0;

	while (left >= 3 && n < MAX_XATTRS) {
		size_t klen = p[0], vlen;
		bool dup = false;

		if (left < 1 + klen + 2)
			break;
		vlen = (size_t)p[1 + klen] | (size_t)p[2 + klen] << 8;
		if (left < 3 + klen + vlen)
			break;
		memcpy(x[n].key, p + 1, klen);
		x[n].key[klen] = '\0';
		x[n].val = (const char *)p + 3 + klen;
		x[n].len = vlen;
		p += 3 + klen + vlen;
		left -= 3 + klen + vlen;
		for (int i = 0; i < n; i++)
			dup |= !strcmp(x[i].key, x[n].key);
		n += !dup;
	}
	return n;
}

/* What the head says by the reference, compared with what meta.c decoded. */
static void check_reference(const struct xattr *x, int n, int r, struct head_meta *m)
{
	uint64_t want[META_FIELDS] = {0};
	unsigned found = 0;
	int want_r;

	for (int i = 0; i < n; i++)
		for (int f = 0; f < META_FIELDS; f++) {
			if (strcmp(x[i].key, meta_field_key(f)))
				continue;
			if (ref_decimal(x[i].val, x[i].len, &want[f])) {
				if (r != -EUCLEAN)
					abort();
				return;
			}
			found |= 1u << f;
		}
	if (!found)
		want_r = -ENODATA;
	else if ((found & HEAD_META_REQUIRED) != HEAD_META_REQUIRED)
		want_r = -EUCLEAN;
	else
		want_r = striped_layout_validate(&(struct striped_layout){
			     want[META_FIELD_STRIPE_UNIT], want[META_FIELD_STRIPE_COUNT],
			     want[META_FIELD_OBJECT_SIZE]})
			     ? -EUCLEAN
			     : 0;
	if (r != want_r)
		abort();
	if (r)
		return;
	if (m->found != found)
		abort();
	for (int f = 0; f < META_FIELDS; f++)
		if (*meta_field(m, f) != want[f])
			abort();
}

/* Decode a set of records as head.c does: stop at the first error. */
static int decode(const struct xattr *x, int n, struct head_meta *m)
{
	int r = 0;

	meta_head_init(m);
	for (int i = 0; i < n && !r; i++)
		r = meta_head_take(m, x[i].key, x[i].val, x[i].len);
	return meta_head_finish(m, r);
}

/* m encoded as the libraries write it, decoded again: the same head. */
static void check_round_trip(struct head_meta *m)
{
	static struct xattr x[META_FIELDS + MAX_XATTRS];
	static char vals[META_FIELDS][DECIMAL_MAX];
	struct head_meta again;
	int n = 0, r;

	for (int f = 0; f < META_FIELDS; f++) {
		if (!(m->found & (1u << f)))
			continue;
		strcpy(x[n].key, meta_field_key(f));
		x[n].len = (size_t)decimal_format(*meta_field(m, f), vals[f]);
		x[n].val = vals[f];
		n++;
	}
	for (size_t i = 0; i < m->nregions; i++) {
		if (i && m->regions[i] == m->regions[i - 1])
			continue; /* two spellings of one region: one key once formatted */
		meta_region_key(m->regions[i], x[n].key);
		x[n].val = "1";
		x[n].len = 1;
		n++;
	}
	r = decode(x, n, &again);
	if (r || again.found != m->found)
		abort();
	for (int f = 0; f < META_FIELDS; f++)
		if (*meta_field(&again, f) != *meta_field(m, f))
			abort();
	for (size_t i = 0, j = 0; i < m->nregions; i++) {
		if (i && m->regions[i] == m->regions[i - 1])
			continue;
		if (j >= again.nregions || again.regions[j++] != m->regions[i])
			abort();
	}
	head_meta_free(&again);
}

/* A decimal accepted is the number formatted, but for leading zeros and a trailing NUL. */
static void check_canonical(const struct xattr *x, int n)
{
	for (int i = 0; i < n; i++) {
		char out[DECIMAL_MAX];
		size_t len = x[i].len, skip = 0;
		uint64_t v;

		if (decimal_parse(x[i].val, len, &v))
			continue;
		if (len && x[i].val[len - 1] == '\0')
			len--;
		while (skip + 1 < len && x[i].val[skip] == '0')
			skip++;
		if ((size_t)decimal_format(v, out) != len - skip ||
		    memcmp(out, x[i].val + skip, len - skip))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xattr x[MAX_XATTRS];
	struct head_meta m;
	int n = parse_records(data, size, x), r;

	r = decode(x, n, &m);
	if (r == -ENOMEM)
		return 0;
	if (r && (m.regions || m.nregions))
		abort(); /* refused: nothing kept */
	check_reference(x, n, r, &m);
	check_canonical(x, n);
	if (!r) {
		for (size_t i = 1; i < m.nregions; i++)
			if (m.regions[i - 1] > m.regions[i])
				abort();
		if (head_meta_end(&m) < m.size || head_meta_end(&m) < m.reserved)
			abort();
		check_round_trip(&m);
	}
	head_meta_free(&m);
	return 0;
}
