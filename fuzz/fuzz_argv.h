/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the fuzzers of command lines and names share: the input as NUL-separated strings. */
#ifndef FUZZ_ARGV_H
#define FUZZ_ARGV_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The input copied (*copy, NUL-terminated: free() it) and cut at its NUL
 * bytes into at most max strings, out[0] to out[n - 1]; out[n] is NULL.
 * Returns n (1 at least: an empty input is one empty string), -1 without memory.
 */
static inline int fuzz_split(const uint8_t *data, size_t size, char **copy, char **out, int max)
{
	int n = 0;

	*copy = malloc(size + 1);
	if (!*copy)
		return -1;
	memcpy(*copy, data, size);
	(*copy)[size] = '\0';
	for (size_t i = 0; i <= size && n < max; n++) {
		out[n] = *copy + i;
		i += strlen(*copy + i) + 1;
	}
	out[n] = NULL;
	return n;
}

#endif /* FUZZ_ARGV_H */
