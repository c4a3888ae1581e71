// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operators' command's argument parser, object-name splitting, size
 * syntax and JSON output (tools/cli_args.c, tools/cli_out.c): pure, no
 * cluster.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli_args.h"
#include "cli_out.h"

static char err[512];
static char *argv_store[32];

/* Parse a NULL-terminated command line (the program name is added). */
static int parse(struct cli_args *a, ...)
{
	va_list ap;
	char *s;
	int argc = 1;

	argv_store[0] = "striped";
	va_start(ap, a);
	while ((s = va_arg(ap, char *)) && argc < 31)
		argv_store[argc++] = s;
	va_end(ap);
	argv_store[argc] = NULL;
	err[0] = '\0';
	return cli_parse(argc, argv_store, a, err, sizeof(err));
}

static void test_connection_options_anywhere(void **state)
{
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, "-p", "data", "-N", "t1", "--id", "app", "-k", "/k", "-c", "/c",
			       "stat", "big", NULL),
			 0);
	assert_int_equal(a.cmd, CLI_STAT);
	assert_string_equal(a.pool, "data");
	assert_string_equal(a.nspace, "t1");
	assert_string_equal(a.id, "app");
	assert_string_equal(a.keyring, "/k");
	assert_string_equal(a.conf, "/c");
	assert_string_equal(a.file, "big");
	assert_int_equal(a.format, CLI_FORMAT_PLAIN);
	/* After the subcommand too, long forms, and --name for TYPE.ID. */
	assert_int_equal(parse(&a, "stat", "big", "--pool=data", "--namespace", "t2", "--name",
			       "client.x", "--keyring=/k2", "--conf", "/c2", "--format", "json",
			       NULL),
			 0);
	assert_string_equal(a.pool, "data");
	assert_string_equal(a.nspace, "t2");
	assert_string_equal(a.name, "client.x");
	assert_null(a.id);
	assert_string_equal(a.keyring, "/k2");
	assert_int_equal(a.format, CLI_FORMAT_JSON);
	assert_int_equal(parse(&a, "--user", "u", "--format=json-pretty", "ls", NULL), 0);
	assert_string_equal(a.id, "u");
	assert_int_equal(a.format, CLI_FORMAT_JSON_PRETTY);
	assert_null(a.pool); /* cli_main says so: a usage error there */
}

static void test_every_subcommand(void **state)
{
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, "ls", "-l", NULL), 0);
	assert_int_equal(a.cmd, CLI_LS);
	assert_true(a.long_list);
	assert_int_equal(parse(&a, "list", NULL), 0);
	assert_int_equal(a.cmd, CLI_LS);
	assert_false(a.long_list);
	assert_int_equal(parse(&a, "remove", "f", NULL), 0);
	assert_int_equal(a.cmd, CLI_RM);
	assert_int_equal(parse(&a, "rm", "f", NULL), 0);
	assert_int_equal(a.cmd, CLI_RM);
	assert_string_equal(a.file, "f");
	assert_int_equal(parse(&a, "xattr", "get", "f", "user.k", NULL), 0);
	assert_int_equal(a.cmd, CLI_XATTR_GET);
	assert_string_equal(a.key, "user.k");
	assert_int_equal(parse(&a, "xattr", "set", "f", "user.k", "v", NULL), 0);
	assert_int_equal(a.cmd, CLI_XATTR_SET);
	assert_string_equal(a.value, "v");
	assert_int_equal(parse(&a, "xattr", "set", "f", "user.k", NULL), 0);
	assert_null(a.value); /* from standard input */
	assert_int_equal(parse(&a, "xattr", "set", "f", "user.k", "--", "-v", NULL), 0);
	assert_string_equal(a.value, "-v");
	assert_int_equal(parse(&a, "xattr", "rm", "f", "user.k", NULL), 0);
	assert_int_equal(a.cmd, CLI_XATTR_RM);
	assert_int_equal(parse(&a, "xattr", "ls", "f", NULL), 0);
	assert_int_equal(a.cmd, CLI_XATTR_LS);
	assert_int_equal(parse(&a, "lock", "ls", "f", NULL), 0);
	assert_int_equal(a.cmd, CLI_LOCK_LS);
	assert_int_equal(parse(&a, "lock", "break", "f", "cookie", NULL), 0);
	assert_int_equal(a.cmd, CLI_LOCK_BREAK);
	assert_string_equal(a.cookie, "cookie");
	assert_null(a.client);
	assert_false(a.unfenced);
	assert_int_equal(parse(&a, "lock", "break", "--unfenced", "f", "c", "client.9", NULL), 0);
	assert_true(a.unfenced);
	assert_string_equal(a.client, "client.9");
	assert_int_equal(parse(&a, "check", NULL), 0);
	assert_int_equal(a.cmd, CLI_CHECK);
	assert_int_equal(a.nfiles, 0);
	assert_false(a.repair);
	assert_int_equal(parse(&a, "check", "--repair", "a", "b", NULL), 0);
	assert_true(a.repair);
	assert_int_equal(a.nfiles, 2);
	assert_string_equal(a.files[0], "a");
	assert_string_equal(a.files[1], "b");
	assert_true(cli_command_is_query(CLI_CHECK));
	assert_false(cli_command_is_query(CLI_RM));
	assert_string_equal(cli_command_name(CLI_LOCK_BREAK), "lock break");
}

static void test_truncate_sizes(void **state)
{
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, "truncate", "f", "4M", NULL), 0);
	assert_int_equal(a.cmd, CLI_TRUNCATE);
	assert_int_equal(a.size, 4 << 20);
	assert_int_equal(parse(&a, "truncate", "-s", "0", "f", NULL), 0);
	assert_int_equal(a.size, 0);
	assert_string_equal(a.file, "f");
	assert_int_equal(parse(&a, "truncate", "--size", "10KiB", "f", NULL), 0);
	assert_int_equal(a.size, 10240);
	/* the size once: not twice, not never */
	assert_int_equal(parse(&a, "truncate", "-s", "1", "f", "2", NULL), -EINVAL);
	assert_int_equal(parse(&a, "truncate", "f", NULL), -EINVAL);
	assert_string_equal(err, "usage: striped truncate NAME SIZE | truncate -s SIZE NAME");
	assert_int_equal(parse(&a, "truncate", "f", "4X", NULL), -EINVAL);
	assert_string_equal(err, "truncate: invalid size '4X'");
	assert_int_equal(parse(&a, "truncate", "f", "-1", NULL), -EINVAL);
}

static void test_size_syntax(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(cli_parse_size("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(cli_parse_size("300000", &v), 0);
	assert_int_equal(v, 300000);
	assert_int_equal(cli_parse_size("1K", &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(cli_parse_size("1KB", &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(cli_parse_size("3GiB", &v), 0);
	assert_int_equal(v, 3ull << 30);
	assert_int_equal(cli_parse_size("1T", &v), 0);
	assert_int_equal(v, 1ull << 40);
	assert_int_equal(cli_parse_size("2P", &v), 0);
	assert_int_equal(v, 2ull << 50);
	assert_int_equal(cli_parse_size("15E", &v), 0);
	assert_int_equal(v, 15ull << 60);
	assert_int_equal(cli_parse_size("16E", &v), -ERANGE);
	assert_int_equal(cli_parse_size("18446744073709551615", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(cli_parse_size("18446744073709551616", &v), -ERANGE);
	assert_int_equal(cli_parse_size("", &v), -EINVAL);
	assert_int_equal(cli_parse_size("K", &v), -EINVAL);
	assert_int_equal(cli_parse_size("1k", &v), -EINVAL);
	assert_int_equal(cli_parse_size("1Ki", &v), -EINVAL);
	assert_int_equal(cli_parse_size("1KiBx", &v), -EINVAL);
	assert_int_equal(cli_parse_size(" 1", &v), -EINVAL);
	assert_int_equal(cli_parse_size("1 ", &v), -EINVAL);
}

static void test_rados_urls(void **state)
{
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, "ls", "rados://data/pre", NULL), 0);
	assert_string_equal(a.pool, "data");
	assert_string_equal(a.prefix, "pre");
	assert_int_equal(parse(&a, "ls", "rados://data", NULL), 0);
	assert_string_equal(a.pool, "data");
	assert_string_equal(a.prefix, "");
	assert_int_equal(parse(&a, "ls", "data", NULL), 0);
	assert_string_equal(a.pool, "data");
	assert_int_equal(parse(&a, "-p", "data", "ls", "rados://data/x", NULL), 0);
	assert_int_equal(parse(&a, "-p", "other", "ls", "rados://data/x", NULL), -EINVAL);
	assert_string_equal(err, "rados://data/x: another pool than -p other");
	assert_int_equal(parse(&a, "ls", "rados:///x", NULL), -EINVAL);
	assert_string_equal(err, "rados:///x: missing pool name (POOL or rados://POOL[/PREFIX])");
	assert_int_equal(parse(&a, "stat", "rados://data/dir/big", NULL), 0);
	assert_string_equal(a.pool, "data");
	assert_string_equal(a.file, "dir/big");
	assert_int_equal(parse(&a, "stat", "rados://data", NULL), -EINVAL);
	assert_string_equal(err, "rados://data: missing file name (rados://POOL/NAME)");
	assert_int_equal(parse(&a, "stat", "rados://data/", NULL), -EINVAL);
	assert_int_equal(parse(&a, "stat", "", NULL), -EINVAL);
}

static void test_usage_errors(void **state)
{
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, NULL), -EINVAL);
	assert_string_equal(err, "no subcommand given");
	assert_int_equal(parse(&a, "frobnicate", NULL), -EINVAL);
	assert_string_equal(err, "unknown subcommand 'frobnicate'");
	assert_int_equal(parse(&a, "lock", NULL), -EINVAL);
	assert_string_equal(err, "'lock' wants a subcommand (lock ls, ...)");
	assert_int_equal(parse(&a, "lock", "pick", "f", NULL), -EINVAL);
	assert_string_equal(err, "unknown subcommand 'lock pick'");
	assert_int_equal(parse(&a, "stat", NULL), -EINVAL);
	assert_string_equal(err, "usage: striped stat NAME");
	assert_int_equal(parse(&a, "stat", "a", "b", NULL), -EINVAL);
	assert_int_equal(parse(&a, "xattr", "get", "f", NULL), -EINVAL);
	assert_int_equal(parse(&a, "lock", "break", "f", NULL), -EINVAL);
	/* another subcommand's options */
	assert_int_equal(parse(&a, "stat", "-l", "f", NULL), -EINVAL);
	assert_string_equal(err, "stat: an option of another subcommand given");
	assert_int_equal(parse(&a, "rm", "--repair", "f", NULL), -EINVAL);
	assert_int_equal(parse(&a, "check", "--unfenced", NULL), -EINVAL);
	assert_int_equal(parse(&a, "ls", "-s", "1", NULL), -EINVAL);
	assert_int_equal(parse(&a, "--bogus", "ls", NULL), -EINVAL);
	assert_string_equal(err, "unrecognized option '--bogus'");
	assert_int_equal(parse(&a, "-x", "ls", NULL), -EINVAL);
	assert_string_equal(err, "unrecognized option '-x'");
	assert_int_equal(parse(&a, "ls", "-p", NULL), -EINVAL);
	assert_string_equal(err, "option '-p' needs a value");
	assert_int_equal(parse(&a, "--format", "xml", "ls", NULL), -EINVAL);
	assert_string_equal(err, "--format: want plain, json or json-pretty, not 'xml'");
}

static void test_help_and_version(void **state)
{
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, "--help", NULL), 0);
	assert_int_equal(a.cmd, CLI_HELP);
	assert_int_equal(a.help, CLI_HELP);
	assert_int_equal(parse(&a, "help", NULL), 0);
	assert_int_equal(a.help, CLI_HELP);
	assert_int_equal(parse(&a, "help", "check", NULL), 0);
	assert_int_equal(a.cmd, CLI_HELP);
	assert_int_equal(a.help, CLI_CHECK);
	assert_int_equal(parse(&a, "help", "lock", "break", NULL), 0);
	assert_int_equal(a.help, CLI_LOCK_BREAK);
	assert_int_equal(parse(&a, "lock", "break", "-h", NULL), 0);
	assert_int_equal(a.help, CLI_LOCK_BREAK);
	assert_int_equal(parse(&a, "help", "nothing", NULL), -EINVAL);
	assert_int_equal(parse(&a, "--version", "ls", NULL), 0);
	assert_int_equal(a.cmd, CLI_VERSION);
}

static void test_object_names(void **state)
{
	uint64_t n = 99;

	(void)state;
	assert_int_equal(cli_split_object_name("big.0000000000000000", &n), 3);
	assert_int_equal(n, 0);
	assert_int_equal(cli_split_object_name("a.b.00000000000000ff", &n), 3);
	assert_int_equal(n, 255);
	assert_int_equal(cli_split_object_name("x.ffffffffffffffff", &n), 1);
	assert_int_equal(n, UINT64_MAX);
	/* a file whose name looks like an object's has objects of its own */
	assert_int_equal(cli_split_object_name("f.0000000000000001.0000000000000002", &n), 18);
	assert_int_equal(n, 2);
	n = 99;
	assert_int_equal(cli_split_object_name(".0000000000000000", &n), -1);
	assert_int_equal(cli_split_object_name("big.000000000000000", &n), -1);
	assert_int_equal(cli_split_object_name("big.00000000000000000", &n), -1);
	assert_int_equal(cli_split_object_name("big_0000000000000000", &n), -1);
	assert_int_equal(cli_split_object_name("big.000000000000000A", &n), -1);
	assert_int_equal(cli_split_object_name("big.000000000000000g", &n), -1);
	assert_int_equal(cli_split_object_name("rbd_header.1234", &n), -1);
	assert_int_equal(cli_split_object_name("", &n), -1);
}

/* What a JSON writer wrote into a memory stream. */
static char *json_text(void (*write)(struct json *j), bool pretty)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	assert_non_null(f);
	json_init(&j, f, pretty);
	write(&j);
	json_end(&j);
	fclose(f);
	return buf;
}

static void write_sample(struct json *j)
{
	json_object_begin(j, NULL);
	json_string(j, "name", "a\"b\\c\n\t\x01");
	json_u64(j, "size", UINT64_MAX);
	json_bool(j, "exclusive", true);
	json_array_begin(j, "empty");
	json_array_end(j);
	json_array_begin(j, "objects");
	json_object_begin(j, NULL);
	json_u64(j, "objectno", 3);
	json_object_end(j);
	json_u64(j, NULL, 4);
	json_array_end(j);
	json_bytes(j, "value", "caf\xc3\xa9 \xff\xc3", 8);
	json_object_end(j);
}

static void test_json(void **state)
{
	char *plain = json_text(write_sample, false), *pretty = json_text(write_sample, true);

	(void)state;
	assert_string_equal(plain, "{\"name\":\"a\\\"b\\\\c\\n\\t\\u0001\","
				   "\"size\":18446744073709551615,\"exclusive\":true,"
				   "\"empty\":[],\"objects\":[{\"objectno\":3},4],"
				   "\"value\":\"caf\xc3\xa9 \\u00ff\\u00c3\"}\n");
	assert_string_equal(pretty, "{\n  \"name\": \"a\\\"b\\\\c\\n\\t\\u0001\",\n"
				    "  \"size\": 18446744073709551615,\n  \"exclusive\": true,\n"
				    "  \"empty\": [],\n  \"objects\": [\n    {\n"
				    "      \"objectno\": 3\n    },\n    4\n  ],\n"
				    "  \"value\": \"caf\xc3\xa9 \\u00ff\\u00c3\"\n}\n");
	free(plain);
	free(pretty);
}

static void test_sizes_for_people(void **state)
{
	char buf[32];

	(void)state;
	fmt_size(0, buf);
	assert_string_equal(buf, "0 B");
	fmt_size(1023, buf);
	assert_string_equal(buf, "1023 B");
	fmt_size(1024, buf);
	assert_string_equal(buf, "1.0 KiB");
	fmt_size(300000, buf);
	assert_string_equal(buf, "293 KiB");
	fmt_size(3ull << 20, buf);
	assert_string_equal(buf, "3.0 MiB");
	fmt_size(UINT64_MAX, buf);
	assert_string_equal(buf, "16 EiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_connection_options_anywhere),
	    cmocka_unit_test(test_every_subcommand),
	    cmocka_unit_test(test_truncate_sizes),
	    cmocka_unit_test(test_size_syntax),
	    cmocka_unit_test(test_rados_urls),
	    cmocka_unit_test(test_usage_errors),
	    cmocka_unit_test(test_help_and_version),
	    cmocka_unit_test(test_object_names),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_sizes_for_people),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
