// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unsigned 64-bit numbers as ASCII decimal, the way libradosstriper stores
 * a head's layout and size (and Ceph prints its settings): strict on the
 * way in (digits only, a trailing NUL tolerated, nothing past 2^64 - 1),
 * since what comes from a cluster is untrusted. Pure: fuzzed and tested.
 */
#include <errno.h>
#include <stdio.h>

#include "decimal.h"

int decimal_parse(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	/* Tolerate a trailing NUL some writers add; nothing else. */
	if (len && s[len - 1] == '\0')
		len--;
	if (len == 0)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int decimal_format(uint64_t v, char buf[DECIMAL_MAX])
{
	return snprintf(buf, DECIMAL_MAX, "%llu", (unsigned long long)v);
}
