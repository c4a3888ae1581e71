// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The head object's metadata as libradosstriper writes it: each layout field
 * and the size as ASCII decimal, without a NUL. Pure: parsing and formatting.
 */
#include <errno.h>
#include <stdio.h>

#include "striped_i.h"

int meta_parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	/* Tolerate a trailing NUL some writers add; nothing else. */
	while (len && s[len - 1] == '\0')
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

int meta_format_u64(uint64_t v, char buf[DECIMAL_MAX])
{
	return snprintf(buf, DECIMAL_MAX, "%llu", (unsigned long long)v);
}
