// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for striped-dd's operand parser (tools/dd/dd_args.c): the
 * input is an argument vector, arguments separated by NUL bytes. Whatever
 * it is, dd_parse_args() must not crash, leak or read out of bounds, and
 * what it accepts must be usable: block sizes and iodepth in range, a valid
 * layout when one was given, striped targets with a pool and a name; what it
 * refuses comes with a one-line message. tool_parse_number(),
 * tool_parse_rados() (tools/common/tool_args.c, which striped reads its sizes and
 * rados:// operands with too) and dd_parse_target() get every single
 * argument too.
 *
 * Seeds: fuzz/corpus/fuzz_dd_args/ (real command lines); dictionary:
 * fuzz/fuzz_dd_args.dict.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dd_args.h"
#include "fuzz_argv.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_target(const struct dd_target *t)
{
	if (!t->striped) {
		if (t->pool || t->name)
			abort();
		return;
	}
	if (!t->path || !t->pool || !t->name || !*t->pool || !*t->name)
		abort();
	if (strncmp(t->path, "rados://", 8) || strchr(t->pool, '/'))
		abort();
}

static void check_accepted(const struct dd_args *a)
{
	if (a->ibs < 1 || a->ibs > DD_MAX_BLOCKSIZE || a->obs < 1 || a->obs > DD_MAX_BLOCKSIZE)
		abort();
	if (a->iodepth < 1 || a->iodepth > DD_MAX_IODEPTH)
		abort();
	if (a->layout_given && (striped_layout_validate(&a->layout) || !a->out.striped))
		abort();
	if (a->skip > INT64_MAX || a->seek > INT64_MAX)
		abort();
	if (a->conn.op_timeout > UINT32_MAX)
		abort();
	if (a->status > DD_STATUS_JSON)
		abort();
	if (a->conn.id && a->conn.name)
		abort();
	if ((a->conv & DD_CONV_EXCL) && (a->conv & DD_CONV_NOCREAT))
		abort();
	check_target(&a->in);
	check_target(&a->out);
}

/*
 * A refusal has a message. It is one line unless an argument itself holds a
 * newline: messages quote arguments as given (K7-newline in run-faults.sh:
 * GNU dd escapes them).
 */
static void check_refused(int r, const char *err, bool args_have_newline)
{
	size_t len = strnlen(err, 512);

	if (r >= 0 || len == 0 || len >= 512)
		abort();
	if (!args_have_newline && memchr(err, '\n', len))
		abort();
}

/* A rados:// string parsed has a pool (and, for a file, a name); any other is refused in a line. */
static void check_rados(const char *s, enum tool_rados_form form, bool args_have_newline)
{
	struct tool_rados u;
	char err[512] = "";
	int r = tool_parse_rados(s, form, &u, err, sizeof(err));

	if (r < 0)
		check_refused(r, err, args_have_newline);
	else if (r || !tool_is_rados(s) || !u.pool[0] || (form == TOOL_RADOS_FILE && !u.name[0]))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *argv[MAX_ARGS + 2] = {"striped-dd"};
	int argc = 1 + fuzz_split(data, size, &copy, argv + 1, MAX_ARGS), r;
	bool nl = memchr(data, '\n', size) != NULL;
	struct dd_args a;
	char err[512];

	if (argc == 0)
		return 0;

	for (int i = 1; i < argc; i++) {
		struct dd_target t = {0};
		uint64_t v;

		r = tool_parse_number(argv[i], &v);
		if (r == 0 && v > INT64_MAX)
			abort();
		if (r && r != -EINVAL && r != -EOVERFLOW)
			abort();
		check_rados(argv[i], TOOL_RADOS_FILE, nl);
		check_rados(argv[i], TOOL_RADOS_PREFIX, nl);
		err[0] = '\0';
		r = dd_parse_target(argv[i], &t, err, sizeof(err));
		if (r < 0)
			check_refused(r, err, nl);
		else if (r != (int)t.striped)
			abort();
		else
			check_target(&t);
		free(t.pool);
		free(t.name);
	}

	memset(&a, 0, sizeof(a));
	err[0] = '\0';
	r = dd_parse_args(argc, argv, &a, err, sizeof(err));
	if (r == DD_ARGS_RUN)
		check_accepted(&a);
	else if (r < 0)
		check_refused(r, err, nl);
	else if (r != DD_ARGS_HELP && r != DD_ARGS_VERSION)
		abort();
	/* parsing again into the same struct frees what the first parse kept */
	r = dd_parse_args(argc, argv, &a, err, sizeof(err));
	if (r == DD_ARGS_RUN)
		check_accepted(&a);
	dd_args_free(&a);
	dd_args_free(&a);
	free(copy);
	return 0;
}
