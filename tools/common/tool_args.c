// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What both commands take. Numbers follow GNU dd 9.1 exactly (gnulib's
 * xstrtoumax with the suffixes "bcEGkKMPTwYZ0", a trailing B, and x
 * products): striped-dd must read them as dd does, and `striped` reads the
 * same spelling as the same size.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_args.h"

/* gnulib's strtol_error bits */
enum {
	NUM_OK = 0,
	NUM_OVERFLOW = 1,
	NUM_BAD_SUFFIX = 2,
	NUM_INVALID = 4,
};

static int scale(uint64_t *x, uint64_t m)
{
	if (*x > UINT64_MAX / m) {
		*x = UINT64_MAX;
		return NUM_OVERFLOW;
	}
	*x *= m;
	return NUM_OK;
}

static int scale_power(uint64_t *x, uint64_t base, int power)
{
	int e = NUM_OK;

	while (power-- > 0)
		e |= scale(x, base);
	return e;
}

static int suffix_scale(char c, uint64_t base, uint64_t *x, int *known)
{
	static const char letters[] = "kMGTPEZY";
	const char *p;

	*known = 1;
	switch (c) {
	case 'b':
		return scale(x, 512);
	case 'c':
		return NUM_OK;
	case 'w':
		return scale(x, 2);
	case 'K':
		return scale(x, base);
	}
	p = c ? strchr(letters, c) : NULL;
	if (p)
		return scale_power(x, base, (int)(p - letters) + 1);
	*known = 0;
	return NUM_OK;
}

/* gnulib xstrtoumax(s, end, 10, val, "bcEGkKMPTwYZ0") */
static int xstrtou(const char *s, const char **end, uint64_t *val)
{
	static const char valid[] = "bcEGkKMPTwYZ0";
	const char *q = s;
	char *e;
	uint64_t tmp, base = 1024;
	int err = NUM_OK, known, nsuffix = 1;

	while (isspace((unsigned char)*q))
		q++;
	*end = s;
	if (*q == '-')
		return NUM_INVALID;
	errno = 0;
	tmp = strtoumax(s, &e, 10);
	*end = e;
	if (e == s) {
		if (*e && strchr(valid, *e))
			tmp = 1;
		else
			return NUM_INVALID;
	} else if (errno == ERANGE) {
		err = NUM_OVERFLOW;
	}
	*val = tmp;
	if (!*e)
		return err;
	if (!strchr(valid, *e))
		return err | NUM_BAD_SUFFIX;
	/* Only powers take a second suffix: "iB" (1024) or "B"/"D" (1000). */
	if (strchr("bcw", *e)) {
		/* no second suffix: dd itself drops a trailing B */
	} else if (e[1] == 'i' && e[2] == 'B') {
		nsuffix += 2;
	} else if (e[1] == 'B' || e[1] == 'D') {
		base = 1000;
		nsuffix++;
	}
	err |= suffix_scale(*e, base, &tmp, &known);
	*val = tmp;
	if (!known)
		return err | NUM_BAD_SUFFIX;
	*end = e + nsuffix;
	if (**end)
		err |= NUM_BAD_SUFFIX;
	return err;
}

/* GNU dd's parse_integer(): a trailing B, then "x" products, recursively. */
static int64_t parse_integer(const char *str, int *invalid)
{
	const char *suffix;
	uint64_t n = 0;
	int64_t result, o;
	int e = xstrtou(str, &suffix, &n), f = NUM_OK;

	if ((e & ~NUM_OVERFLOW) == NUM_BAD_SUFFIX && *suffix == 'B' && str < suffix &&
	    suffix[-1] != 'B') {
		suffix++;
		if (!*suffix)
			e &= ~NUM_BAD_SUFFIX;
	}
	if ((e & ~NUM_OVERFLOW) == NUM_BAD_SUFFIX && *suffix == 'x') {
		o = parse_integer(suffix + 1, &f);
		if ((f & ~NUM_OVERFLOW) != NUM_OK) {
			e = f;
			result = 0;
		} else if (__builtin_mul_overflow(n, o, &result) ||
			   (result != 0 && ((e | f) & NUM_OVERFLOW))) {
			e = NUM_OVERFLOW;
			result = INT64_MAX;
		} else {
			e = NUM_OK;
		}
	} else if (n <= INT64_MAX) {
		result = (int64_t)n;
	} else {
		e = NUM_OVERFLOW;
		result = INT64_MAX;
	}
	*invalid = e;
	return result;
}

int tool_parse_number(const char *s, uint64_t *out)
{
	int invalid;
	int64_t n;

	if (!s || !out)
		return -EINVAL;
	n = parse_integer(s, &invalid);
	if (invalid == NUM_OVERFLOW)
		return -EOVERFLOW;
	if (invalid != NUM_OK || n < 0)
		return -EINVAL;
	*out = (uint64_t)n;
	return 0;
}

bool tool_is_rados(const char *s)
{
	return !strncmp(s, TOOL_RADOS_SCHEME, strlen(TOOL_RADOS_SCHEME));
}

int tool_error(char *err, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return r;
}

int tool_parse_rados(const char *s, enum tool_rados_form form, struct tool_rados *out, char *err,
		     size_t errlen)
{
	const char *pool = s + strlen(TOOL_RADOS_SCHEME), *slash;
	const char *shape =
	    form == TOOL_RADOS_FILE ? "rados://POOL/NAME" : "POOL or rados://POOL[/PREFIX]";
	size_t len;

	if (!tool_is_rados(s))
		return tool_error(err, errlen, -EINVAL, "%s: not %s", s, shape);
	slash = strchr(pool, '/');
	len = slash ? (size_t)(slash - pool) : strlen(pool);
	if (!len)
		return tool_error(err, errlen, -EINVAL, "%s: missing pool name (%s)", s, shape);
	if (len >= sizeof(out->pool))
		return tool_error(err, errlen, -EINVAL, "%s: pool name too long", s);
	if (form == TOOL_RADOS_FILE && (!slash || !slash[1]))
		return tool_error(err, errlen, -EINVAL, "%s: missing file name (%s)", s, shape);
	memcpy(out->pool, pool, len);
	out->pool[len] = '\0';
	out->name = slash ? slash + 1 : "";
	return 0;
}
