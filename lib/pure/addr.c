// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Client addresses as librados prints them: a lone "127.0.0.1:0/3490100637"
 * or a vector "[v2:...,v1:...]" (and a lone IPv6 address in brackets). Two
 * share an entity address (IP, port and nonce, whatever its type) when one
 * blocklist entry would fence both, which fencing must never do to a client
 * it did not mean. Pure.
 */
#include <string.h>

#include "addr.h"

/* An address vector "[v2:A,v1:B]" (a lone IPv6 address also begins with '['). */
static bool addr_is_vector(const char *s)
{
	return !strncmp(s, "[v1:", 4) || !strncmp(s, "[v2:", 4) || !strncmp(s, "[any:", 5) ||
	       !strcmp(s, "[]");
}

static const char *addr_skip_type(const char *s)
{
	static const char *const types[] = {"v1:", "v2:", "any:"};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strncmp(s, types[i], strlen(types[i])))
			return s + strlen(types[i]);
	return s;
}

struct addr_iter {
	const char *at;
	bool vector;
};

static void addr_iter_init(struct addr_iter *it, const char *s)
{
	it->vector = addr_is_vector(s);
	it->at = s + it->vector;
}

/* The next address of the vector (or the lone one): "IP:PORT/NONCE", its type left out. */
static bool addr_iter_next(struct addr_iter *it, const char **addr, size_t *len)
{
	const char *p, *end;

	if (!*it->at || *it->at == ']')
		return false;
	p = addr_skip_type(it->at);
	end = p;
	if (*end == '[') { /* IPv6: "[::1]:0/5" */
		end = strchr(end, ']');
		end = end ? end + 1 : p + strlen(p);
	}
	end += it->vector ? strcspn(end, ",]") : strlen(end);
	*addr = p;
	*len = (size_t)(end - p);
	it->at = *end == ',' ? end + 1 : end;
	return *len > 0;
}

bool addr_shared(const char *a, const char *b)
{
	struct addr_iter ia, ib;
	const char *x, *y;
	size_t nx, ny;

	for (addr_iter_init(&ia, a); addr_iter_next(&ia, &x, &nx);)
		for (addr_iter_init(&ib, b); addr_iter_next(&ib, &y, &ny);)
			if (nx == ny && !memcmp(x, y, nx))
				return true;
	return false;
}
