// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd operand parsing. Numbers and rados:// paths are read as
 * `striped` reads them (tool_args.c: GNU dd 9.1's numbers); repeated
 * operands as in GNU dd: the last value wins, while conv=, iflag= and
 * oflag= accumulate their symbols.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dd_args.h"

struct dd_symbol {
	const char *name;
	unsigned int value;
};

static const struct dd_symbol conv_symbols[] = {
    {"notrunc", DD_CONV_NOTRUNC},
    {"nocreat", DD_CONV_NOCREAT},
    {"excl", DD_CONV_EXCL},
    {"fsync", DD_CONV_FSYNC},
    {"fdatasync", DD_CONV_FDATASYNC},
    {"sparse", DD_CONV_SPARSE},
    {"sync", DD_CONV_SYNC},
    {"noerror", DD_CONV_NOERROR},
    {NULL, 0},
};

/* GNU dd conversions striped-dd refuses rather than silently ignores. */
static const char *const conv_refused[] = {
    "block", "unblock", "lcase", "ucase", "swab", "ascii", "ebcdic", "ibm", NULL,
};

static const struct dd_symbol flag_symbols[] = {
    {"direct", DD_FLAG_DIRECT},
    {"fullblock", DD_FLAG_FULLBLOCK},
    {"count_bytes", DD_FLAG_COUNT_BYTES},
    {"skip_bytes", DD_FLAG_SKIP_BYTES},
    {"seek_bytes", DD_FLAG_SEEK_BYTES},
    {"dsync", DD_FLAG_DSYNC},
    {"sync", DD_FLAG_SYNC},
    {"noatime", DD_FLAG_NOATIME},
    {"nofollow", DD_FLAG_NOFOLLOW},
    {"nonblock", DD_FLAG_NONBLOCK},
    {"noctty", DD_FLAG_NOCTTY},
    {"append", DD_FLAG_APPEND},
    {"binary", 0},
    {"text", 0},
    {NULL, 0},
};

static const char *const flag_refused[] = {"nocache", "directory", "nolinks", "cio", NULL};

static const struct dd_symbol status_symbols[] = {
    {"none", DD_STATUS_NONE},
    {"noxfer", DD_STATUS_NOXFER},
    {"progress", DD_STATUS_PROGRESS},
    {"json", DD_STATUS_JSON},
    {NULL, 0},
};

/* Operand values as given, before block sizes are known. */
struct dd_raw {
	uint64_t bs, skip, seek, count;
	bool skip_B, seek_B, count_B, count_given;
};

static int number_error(const char *val, int r, char *err, size_t errlen)
{
	if (r == -EOVERFLOW)
		return tool_error(err, errlen, r, "invalid number: '%s': %s", val,
				  strerror(EOVERFLOW));
	return tool_error(err, errlen, r, "invalid number: '%s'", val);
}

static int parse_ranged(const char *val, uint64_t min, uint64_t max, uint64_t *out, char *err,
			size_t errlen)
{
	int r = tool_parse_number(val, out);

	if (!r && *out < min)
		r = -EINVAL;
	else if (!r && *out > max)
		r = -EOVERFLOW;
	return r ? number_error(val, r, err, errlen) : 0;
}

static bool in_list(const char *const *list, const char *s, size_t len)
{
	for (; *list; list++)
		if (strlen(*list) == len && !strncmp(*list, s, len))
			return true;
	return false;
}

/*
 * Comma-separated symbols. exclusive (status=): the last one wins;
 * otherwise they are or-ed.
 */
static int parse_symbols(const char *val, const struct dd_symbol *table, const char *const *refused,
			 bool exclusive, const char *what, unsigned int *out, char *err,
			 size_t errlen)
{
	const char *s = val;

	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		const struct dd_symbol *t;

		for (t = table; t->name; t++)
			if (strlen(t->name) == len && !strncmp(t->name, s, len))
				break;
		if (!t->name && refused && in_list(refused, s, len))
			return tool_error(err, errlen, -EOPNOTSUPP,
					  "%s: '%.*s': not supported by striped-dd", what, (int)len,
					  s);
		if (!t->name)
			return tool_error(err, errlen, -EINVAL, "%s: '%.*s'", what, (int)len, s);
		*out = exclusive ? t->value : (*out | t->value);
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

void dd_args_free(struct dd_args *a)
{
	if (!a)
		return;
	free(a->in.pool);
	free(a->in.name);
	free(a->out.pool);
	free(a->out.name);
	a->in.pool = a->in.name = a->out.pool = a->out.name = NULL;
}

int dd_parse_target(const char *s, struct dd_target *t, char *err, size_t errlen)
{
	struct tool_rados url;
	int r;

	free(t->pool);
	free(t->name);
	t->path = s;
	t->striped = false;
	t->pool = t->name = NULL;
	if (!tool_is_rados(s))
		return 0;
	r = tool_parse_rados(s, TOOL_RADOS_FILE, &url, err, errlen);
	if (r)
		return r;
	t->pool = strdup(url.pool);
	t->name = strdup(url.name);
	if (!t->pool || !t->name)
		return tool_error(err, errlen, -ENOMEM, "%s: %s", s, strerror(ENOMEM));
	t->striped = true;
	return 1;
}

static int parse_bool(const char *val, bool *out, char *err, size_t errlen)
{
	if (!strcmp(val, "yes") || !strcmp(val, "1") || !strcmp(val, "true")) {
		*out = true;
		return 0;
	}
	if (!strcmp(val, "no") || !strcmp(val, "0") || !strcmp(val, "false")) {
		*out = false;
		return 0;
	}
	return tool_error(err, errlen, -EINVAL, "invalid boolean: '%s' (use yes or no)", val);
}

static bool is(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && !strncmp(name, want, len);
}

/* Operands that take a size in bytes: bs=, ibs=, obs=, layout, iodepth=... */
static int parse_size_operand(const char *name, size_t nlen, const char *val, struct dd_args *a,
			      struct dd_raw *raw, char *err, size_t errlen)
{
	uint64_t v, *field;
	int r;

	if (is(name, nlen, "bs"))
		return parse_ranged(val, 1, DD_MAX_BLOCKSIZE, &raw->bs, err, errlen);
	if (is(name, nlen, "ibs"))
		return parse_ranged(val, 1, DD_MAX_BLOCKSIZE, &a->ibs, err, errlen);
	if (is(name, nlen, "obs"))
		return parse_ranged(val, 1, DD_MAX_BLOCKSIZE, &a->obs, err, errlen);
	if (is(name, nlen, "iodepth")) {
		r = parse_ranged(val, 1, DD_MAX_IODEPTH, &v, err, errlen);
		a->iodepth = (unsigned int)v;
		return r;
	}
	if (is(name, nlen, "op_timeout"))
		return parse_ranged(val, 0, UINT32_MAX, &a->conn.op_timeout, err, errlen);
	if (is(name, nlen, "stripe_unit"))
		field = &a->layout.stripe_unit;
	else if (is(name, nlen, "stripe_count"))
		field = &a->layout.stripe_count;
	else if (is(name, nlen, "object_size"))
		field = &a->layout.object_size;
	else
		return 1;
	a->layout_given = true;
	return parse_ranged(val, 1, UINT32_MAX, field, err, errlen);
}

/* skip=, iseek=, seek=, oseek=, count=: counts, in bytes when ending in B. */
static int parse_count_operand(const char *name, size_t nlen, const char *val, struct dd_raw *raw,
			       char *err, size_t errlen)
{
	uint64_t *dst;
	bool *has_B;
	int r;

	if (is(name, nlen, "skip") || is(name, nlen, "iseek")) {
		dst = &raw->skip;
		has_B = &raw->skip_B;
	} else if (is(name, nlen, "seek") || is(name, nlen, "oseek")) {
		dst = &raw->seek;
		has_B = &raw->seek_B;
	} else if (is(name, nlen, "count")) {
		dst = &raw->count;
		has_B = &raw->count_B;
		raw->count_given = true;
	} else {
		return 1;
	}
	r = parse_ranged(val, 0, INT64_MAX, dst, err, errlen);
	*has_B = strchr(val, 'B') != NULL;
	return r;
}

static int parse_string_operand(const char *name, size_t nlen, const char *val, struct dd_args *a,
				char *err, size_t errlen)
{
	int r;

	if (is(name, nlen, "if")) {
		r = dd_parse_target(val, &a->in, err, errlen);
		return r < 0 ? r : 0;
	}
	if (is(name, nlen, "of")) {
		r = dd_parse_target(val, &a->out, err, errlen);
		return r < 0 ? r : 0;
	}
	if (is(name, nlen, "conf"))
		a->conn.conf = val;
	else if (is(name, nlen, "id"))
		a->conn.id = val;
	else if (is(name, nlen, "name"))
		a->conn.name = val;
	else if (is(name, nlen, "keyring"))
		a->conn.keyring = val;
	else if (is(name, nlen, "ns"))
		a->nspace = val;
	else if (is(name, nlen, "verify"))
		return parse_bool(val, &a->verify, err, errlen);
	else
		return 1;
	return 0;
}

static int parse_flag_operand(const char *name, size_t nlen, const char *val, struct dd_args *a,
			      char *err, size_t errlen)
{
	unsigned int st = a->status;
	int r;

	if (is(name, nlen, "conv"))
		return parse_symbols(val, conv_symbols, conv_refused, false, "invalid conversion",
				     &a->conv, err, errlen);
	if (is(name, nlen, "iflag"))
		return parse_symbols(val, flag_symbols, flag_refused, false, "invalid input flag",
				     &a->iflags, err, errlen);
	if (is(name, nlen, "oflag"))
		return parse_symbols(val, flag_symbols, flag_refused, false, "invalid output flag",
				     &a->oflags, err, errlen);
	if (!is(name, nlen, "status"))
		return 1;
	r = parse_symbols(val, status_symbols, NULL, true, "invalid status level", &st, err,
			  errlen);
	a->status = (enum dd_status)st;
	return r;
}

static int parse_operand(const char *arg, struct dd_args *a, struct dd_raw *raw, char *err,
			 size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t nlen;
	const char *val;
	int r;

	if (!eq)
		return tool_error(err, errlen, -EINVAL, "unrecognized operand '%s'", arg);
	nlen = (size_t)(eq - arg);
	val = eq + 1;
	r = parse_string_operand(arg, nlen, val, a, err, errlen);
	if (r == 1)
		r = parse_flag_operand(arg, nlen, val, a, err, errlen);
	if (r == 1)
		r = parse_size_operand(arg, nlen, val, a, raw, err, errlen);
	if (r == 1)
		r = parse_count_operand(arg, nlen, val, raw, err, errlen);
	if (r == 1)
		r = tool_error(err, errlen, -EINVAL, "unrecognized operand '%s'", arg);
	return r;
}

/* records * bs + bytes, or an error when it does not fit. */
static int to_bytes(uint64_t n, bool in_bytes, uint64_t bs, const char *what, uint64_t *out,
		    char *err, size_t errlen)
{
	if (in_bytes) {
		*out = n;
		return 0;
	}
	if (__builtin_mul_overflow(n, bs, out) || *out > INT64_MAX)
		return tool_error(err, errlen, -EOVERFLOW,
				  "%s: offset %" PRIu64 " * %" PRIu64 ": %s", what, n, bs,
				  strerror(EOVERFLOW));
	return 0;
}

static int finalize_counts(struct dd_args *a, const struct dd_raw *raw, char *err, size_t errlen)
{
	int r;

	if (raw->skip_B)
		a->iflags |= DD_FLAG_SKIP_BYTES;
	if (raw->seek_B)
		a->oflags |= DD_FLAG_SEEK_BYTES;
	if (raw->count_B)
		a->iflags |= DD_FLAG_COUNT_BYTES;
	r = to_bytes(raw->skip, a->iflags & DD_FLAG_SKIP_BYTES, a->ibs, "skip", &a->skip, err,
		     errlen);
	if (!r)
		r = to_bytes(raw->seek, a->oflags & DD_FLAG_SEEK_BYTES, a->obs, "seek", &a->seek,
			     err, errlen);
	if (r || !raw->count_given)
		return r;
	if (a->iflags & DD_FLAG_COUNT_BYTES) {
		a->count = raw->count;
		a->max_records = DD_UNLIMITED;
		return 0;
	}
	a->max_records = raw->count;
	/* A count so large its byte length overflows is "all of it". */
	if (__builtin_mul_overflow(raw->count, a->ibs, &a->count))
		a->count = DD_UNLIMITED;
	return 0;
}

/*
 * Open flags that mean nothing to a striped file: refused, never ignored.
 * What a striped side honours: iflag=direct (librados keeps no cache of
 * object data: every read goes to the OSDs), iflag=fullblock (reads are
 * whole), oflag=direct, dsync and sync (each block acknowledged, so
 * durable, before the next starts).
 */
#define DD_STRIPED_IN_REFUSED                                                                      \
	(DD_FLAG_DSYNC | DD_FLAG_SYNC | DD_FLAG_NOATIME | DD_FLAG_NOFOLLOW | DD_FLAG_NONBLOCK |    \
	 DD_FLAG_NOCTTY | DD_FLAG_APPEND)
#define DD_STRIPED_OUT_REFUSED                                                                     \
	(DD_FLAG_NOATIME | DD_FLAG_NOFOLLOW | DD_FLAG_NONBLOCK | DD_FLAG_NOCTTY | DD_FLAG_APPEND)

static const char *first_flag(unsigned int flags)
{
	const struct dd_symbol *t;

	for (t = flag_symbols; t->name; t++)
		if (t->value & flags)
			return t->name;
	return "?";
}

static int check_striped_flags(const struct dd_args *a, char *err, size_t errlen)
{
	unsigned int in = a->in.striped ? a->iflags & DD_STRIPED_IN_REFUSED : 0;
	unsigned int out = a->out.striped ? a->oflags & DD_STRIPED_OUT_REFUSED : 0;

	if (out)
		return tool_error(err, errlen, -EINVAL,
				  "%s: oflag=%s: not supported on a striped file", a->out.path,
				  first_flag(out));
	if (in)
		return tool_error(err, errlen, -EINVAL,
				  "%s: iflag=%s: not supported on a striped file", a->in.path,
				  first_flag(in));
	return 0;
}

static int check_conflicts(struct dd_args *a, char *err, size_t errlen)
{
	int r;

	if ((a->conv & DD_CONV_EXCL) && (a->conv & DD_CONV_NOCREAT))
		return tool_error(err, errlen, -EINVAL, "cannot combine excl and nocreat");
	if (a->oflags & DD_FLAG_FULLBLOCK)
		return tool_error(err, errlen, -EINVAL, "invalid output flag: 'fullblock'");
	r = check_striped_flags(a, err, errlen);
	if (r)
		return r;
	if (a->layout_given && !a->out.striped)
		return tool_error(
		    err, errlen, -EINVAL,
		    "stripe_unit=, stripe_count=, object_size=: output is not a striped file");
	if (a->layout_given && striped_layout_validate(&a->layout))
		return tool_error(err, errlen, -EINVAL,
				  "invalid layout: stripe_unit=%" PRIu64 " stripe_count=%" PRIu64
				  " object_size=%" PRIu64 ": %s",
				  a->layout.stripe_unit, a->layout.stripe_count,
				  a->layout.object_size,
				  "units must be multiples of 64K and divide object_size");
	if (a->conn.id && a->conn.name)
		return tool_error(err, errlen, -EINVAL, "cannot combine id= and name=");
	if (a->nspace && !a->in.striped && !a->out.striped)
		return tool_error(err, errlen, -EINVAL,
				  "ns=: neither input nor output is a striped file");
	/* the output is meant to differ from the input there */
	if (a->verify && (a->conv & (DD_CONV_SYNC | DD_CONV_NOERROR)))
		return tool_error(err, errlen, -EINVAL,
				  "verify=yes: cannot combine with conv=sync or conv=noerror");
	return 0;
}

static void set_defaults(struct dd_args *a)
{
	struct striped_layout def = STRIPED_LAYOUT_DEFAULT_INIT;

	dd_args_free(a);
	memset(a, 0, sizeof(*a));
	a->layout = def;
	a->iodepth = DD_DEFAULT_IODEPTH;
	a->count = DD_UNLIMITED;
	a->max_records = DD_UNLIMITED;
	a->status = DD_STATUS_DEFAULT;
}

int dd_parse_args(int argc, char **argv, struct dd_args *out, char *err, size_t errlen)
{
	struct dd_raw raw = {0};
	int i, r;

	if (!out || argc < 0 || (argc && !argv))
		return tool_error(err, errlen, -EINVAL, "bad arguments");
	set_defaults(out);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help"))
			return DD_ARGS_HELP;
		if (!strcmp(argv[i], "--version"))
			return DD_ARGS_VERSION;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			continue;
		r = parse_operand(argv[i], out, &raw, err, errlen);
		if (r < 0)
			goto err;
	}
	if (raw.bs) {
		out->ibs = out->obs = raw.bs;
	} else {
		out->twobufs = true;
		if (!out->ibs)
			out->ibs = DD_DEFAULT_BLOCKSIZE;
		if (!out->obs)
			out->obs = DD_DEFAULT_BLOCKSIZE;
	}
	r = finalize_counts(out, &raw, err, errlen);
	if (!r)
		r = check_conflicts(out, err, errlen);
	if (!r)
		return DD_ARGS_RUN;
err:
	dd_args_free(out);
	return r;
}
