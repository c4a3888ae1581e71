// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What both commands take (tools/common/tool_args.c): rados://POOL/NAME and
 * rados://POOL[/PREFIX], and one size for one spelling, GNU dd's. Both
 * parsers are checked to agree: striped-dd's bs= and striped's truncate SIZE.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "dd_args.h"
#include "tool_args.h"

static char err[512];

static void test_rados_file(void **state)
{
	struct tool_rados u;

	(void)state;
	assert_true(tool_is_rados("rados://p/n"));
	assert_false(tool_is_rados("rados:/p/n"));
	assert_false(tool_is_rados("/tmp/rados://p/n"));
	assert_int_equal(
	    tool_parse_rados("rados://data/dir/big", TOOL_RADOS_FILE, &u, err, sizeof(err)), 0);
	assert_string_equal(u.pool, "data");
	assert_string_equal(u.name, "dir/big");
	assert_int_equal(tool_parse_rados("rados:///n", TOOL_RADOS_FILE, &u, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "rados:///n: missing pool name (rados://POOL/NAME)");
	assert_int_equal(tool_parse_rados("rados://", TOOL_RADOS_FILE, &u, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "rados://: missing pool name (rados://POOL/NAME)");
	assert_int_equal(tool_parse_rados("rados://p", TOOL_RADOS_FILE, &u, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "rados://p: missing file name (rados://POOL/NAME)");
	assert_int_equal(tool_parse_rados("rados://p/", TOOL_RADOS_FILE, &u, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "rados://p/: missing file name (rados://POOL/NAME)");
	assert_int_equal(tool_parse_rados("/x", TOOL_RADOS_FILE, &u, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/x: not rados://POOL/NAME");
}

static void test_rados_prefix(void **state)
{
	struct tool_rados u;
	char long_pool[TOOL_POOL_MAX + 16] = "rados://";

	(void)state;
	assert_int_equal(tool_parse_rados("rados://p", TOOL_RADOS_PREFIX, &u, err, sizeof(err)), 0);
	assert_string_equal(u.pool, "p");
	assert_string_equal(u.name, "");
	assert_int_equal(tool_parse_rados("rados://p/", TOOL_RADOS_PREFIX, &u, err, sizeof(err)),
			 0);
	assert_string_equal(u.name, "");
	assert_int_equal(
	    tool_parse_rados("rados://p/pre/x", TOOL_RADOS_PREFIX, &u, err, sizeof(err)), 0);
	assert_string_equal(u.name, "pre/x");
	assert_int_equal(tool_parse_rados("rados:///x", TOOL_RADOS_PREFIX, &u, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "rados:///x: missing pool name (POOL or rados://POOL[/PREFIX])");
	memset(long_pool + 8, 'a', TOOL_POOL_MAX);
	assert_int_equal(tool_parse_rados(long_pool, TOOL_RADOS_PREFIX, &u, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, ": pool name too long"));
}

/* The same pool and name out of both commands' lines. */
static void test_both_commands_read_rados_alike(void **state)
{
	char *dd_argv[] = {"striped-dd", "if=rados://data/dir/big", NULL};
	char *cli_argv[] = {"striped", "stat", "rados://data/dir/big", NULL};
	struct dd_args d = {0};
	struct cli_args c;

	(void)state;
	assert_int_equal(dd_parse_args(2, dd_argv, &d, err, sizeof(err)), DD_ARGS_RUN);
	assert_int_equal(cli_parse(3, cli_argv, &c, err, sizeof(err)), 0);
	assert_string_equal(d.in.pool, c.pool);
	assert_string_equal(d.in.name, c.file);
	dd_args_free(&d);
}

/* One spelling, one size, in both commands: GNU dd's meaning. */
static void test_both_commands_read_sizes_alike(void **state)
{
	static const struct {
		const char *s;
		uint64_t v;
	} sizes[] = {
	    {"4MB", 4000000},	 {"4M", 4 << 20},    {"4MiB", 4 << 20}, {"1kB", 1000},
	    {"1K", 1024},	 {"1k", 1024},	     {"1KiB", 1024},	{"3G", 3ull << 30},
	    {"2GB", 2000000000}, {"1T", 1ull << 40}, {"5b", 2560},	{"2x4K", 8192},
	    {"7E", 7ull << 60},	 {"300000", 300000},
	};
	char bs[64], *dd_argv[] = {"striped-dd", bs, NULL};
	char *cli_argv[] = {"striped", "truncate", "f", NULL, NULL};
	struct dd_args d = {0};
	struct cli_args c;
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		assert_int_equal(tool_parse_number(sizes[i].s, &v), 0);
		assert_int_equal(v, sizes[i].v);
		snprintf(bs, sizeof(bs), "bs=%s", sizes[i].s);
		assert_int_equal(dd_parse_args(2, dd_argv, &d, err, sizeof(err)), DD_ARGS_RUN);
		assert_int_equal(d.ibs, sizes[i].v);
		cli_argv[3] = (char *)sizes[i].s;
		assert_int_equal(cli_parse(4, cli_argv, &c, err, sizeof(err)), 0);
		assert_int_equal(c.size, sizes[i].v);
	}
	dd_args_free(&d);
	assert_int_equal(tool_parse_number("8E", &v), -EOVERFLOW);
	assert_int_equal(tool_parse_number("1Ki", &v), -EINVAL);
	assert_int_equal(tool_parse_number("", &v), -EINVAL);
	assert_int_equal(tool_parse_number("-1", &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rados_file),
	    cmocka_unit_test(test_rados_prefix),
	    cmocka_unit_test(test_both_commands_read_rados_alike),
	    cmocka_unit_test(test_both_commands_read_sizes_alike),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
