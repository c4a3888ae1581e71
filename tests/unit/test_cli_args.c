// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operators' command's argument parser, its registered subcommands
 * and JSON output (tools/cli/cli_args.c, cmd_*.c, tools/cli/cli_out.c): no
 * cluster. (The object-name split is the library's: test_layout.c.)
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

#include "cli.h"

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

static void assert_cmd(const struct cli_args *a, const char *name)
{
	assert_non_null(a->cmd);
	assert_string_equal(a->cmd->name, name);
}

static void test_connection_options_anywhere(void **state)
{
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, "-p", "data", "-N", "t1", "--id", "app", "-k", "/k", "-c", "/c",
			       "stat", "big", NULL),
			 0);
	assert_cmd(&a, "stat");
	assert_string_equal(a.pool, "data");
	assert_string_equal(a.nspace, "t1");
	assert_string_equal(a.conn.id, "app");
	assert_string_equal(a.conn.keyring, "/k");
	assert_string_equal(a.conn.conf, "/c");
	assert_string_equal(a.file, "big");
	assert_int_equal(a.format, CLI_FORMAT_PLAIN);
	/* After the subcommand too, long forms, and --name for TYPE.ID. */
	assert_int_equal(parse(&a, "stat", "big", "--pool=data", "--namespace", "t2", "--name",
			       "client.x", "--keyring=/k2", "--conf", "/c2", "--format", "json",
			       NULL),
			 0);
	assert_string_equal(a.pool, "data");
	assert_string_equal(a.nspace, "t2");
	assert_string_equal(a.conn.name, "client.x");
	assert_null(a.conn.id);
	assert_string_equal(a.conn.keyring, "/k2");
	assert_int_equal(a.format, CLI_FORMAT_JSON);
	assert_int_equal(parse(&a, "--user", "u", "--format=json-pretty", "ls", NULL), 0);
	assert_string_equal(a.conn.id, "u");
	assert_int_equal(a.format, CLI_FORMAT_JSON_PRETTY);
	assert_null(a.pool); /* cli_main says so: a usage error there */
}

static void test_every_subcommand(void **state)
{
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, "ls", "-l", NULL), 0);
	assert_cmd(&a, "ls");
	assert_non_null(cli_given(&a, 'l'));
	assert_int_equal(parse(&a, "list", NULL), 0);
	assert_cmd(&a, "ls");
	assert_null(cli_given(&a, 'l'));
	assert_int_equal(parse(&a, "remove", "f", NULL), 0);
	assert_cmd(&a, "rm");
	assert_int_equal(parse(&a, "rm", "f", NULL), 0);
	assert_cmd(&a, "rm");
	assert_string_equal(a.file, "f");
	assert_null(cli_given(&a, 'f'));
	/* -f is rm's --force, whatever global option is spelt with an f. */
	assert_int_equal(parse(&a, "--format", "json", "rm", "-f", "f", NULL), 0);
	assert_non_null(cli_given(&a, 'f'));
	assert_int_equal(a.format, CLI_FORMAT_JSON);
	assert_int_equal(parse(&a, "rm", "--force", "f", "--format", "json-pretty", NULL), 0);
	assert_non_null(cli_given(&a, 'f'));
	assert_int_equal(a.format, CLI_FORMAT_JSON_PRETTY);
	assert_int_equal(parse(&a, "xattr", "get", "f", "user.k", NULL), 0);
	assert_cmd(&a, "xattr get");
	assert_string_equal(a.key, "user.k");
	assert_int_equal(parse(&a, "xattr", "set", "f", "user.k", "v", NULL), 0);
	assert_cmd(&a, "xattr set");
	assert_string_equal(a.value, "v");
	assert_int_equal(parse(&a, "xattr", "set", "f", "user.k", NULL), 0);
	assert_null(a.value); /* from standard input */
	assert_int_equal(parse(&a, "xattr", "set", "f", "user.k", "--", "-v", NULL), 0);
	assert_string_equal(a.value, "-v");
	assert_int_equal(parse(&a, "xattr", "rm", "f", "user.k", NULL), 0);
	assert_cmd(&a, "xattr rm");
	assert_int_equal(parse(&a, "xattr", "ls", "f", NULL), 0);
	assert_cmd(&a, "xattr ls");
	assert_int_equal(parse(&a, "lock", "ls", "f", NULL), 0);
	assert_cmd(&a, "lock ls");
	assert_int_equal(parse(&a, "lock", "break", "f", "cookie", NULL), 0);
	assert_cmd(&a, "lock break");
	assert_string_equal(a.cookie, "cookie");
	assert_null(a.client);
	assert_null(cli_given(&a, 'U'));
	assert_int_equal(parse(&a, "lock", "break", "--unfenced", "f", "c", "client.9", NULL), 0);
	assert_non_null(cli_given(&a, 'U'));
	assert_string_equal(a.client, "client.9");
	assert_int_equal(parse(&a, "check", NULL), 0);
	assert_cmd(&a, "check");
	assert_int_equal(a.nfiles, 0);
	assert_null(cli_given(&a, 'R'));
	assert_int_equal(parse(&a, "check", "--repair", "a", "b", NULL), 0);
	assert_non_null(cli_given(&a, 'R'));
	assert_int_equal(a.nfiles, 2);
	assert_string_equal(a.files[0], "a");
	assert_string_equal(a.files[1], "b");
	assert_true(a.cmd->query);
	assert_int_equal(parse(&a, "rm", "f", NULL), 0);
	assert_false(a.cmd->query);
}

static void test_truncate_sizes(void **state)
{
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, "truncate", "f", "4M", NULL), 0);
	assert_cmd(&a, "truncate");
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

/* SIZE as striped-dd reads it (tool_args.c): "4MB" is 4000000 in both commands. */
static void test_truncate_size_spelling(void **state)
{
	struct cli_args a;

	(void)state;
	assert_int_equal(parse(&a, "truncate", "f", "4MB", NULL), 0);
	assert_int_equal(a.size, 4000000);
	assert_int_equal(parse(&a, "truncate", "f", "4MiB", NULL), 0);
	assert_int_equal(a.size, 4 << 20);
	assert_int_equal(parse(&a, "truncate", "f", "1kB", NULL), 0);
	assert_int_equal(a.size, 1000);
	assert_int_equal(parse(&a, "truncate", "f", "3G", NULL), 0);
	assert_int_equal(a.size, 3ull << 30);
	assert_int_equal(parse(&a, "truncate", "f", "2x4K", NULL), 0);
	assert_int_equal(a.size, 8192);
	assert_int_equal(parse(&a, "truncate", "-s", "8E", "f", NULL), -EINVAL);
	assert_string_equal(err, "truncate: size '8E' past 2^63-1");
	assert_int_equal(parse(&a, "truncate", "f", "1Ki", NULL), -EINVAL);
	assert_int_equal(parse(&a, "truncate", "f", "", NULL), -EINVAL);
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
	assert_string_equal(err, "stat: --long is an option of another subcommand");
	assert_int_equal(parse(&a, "rm", "--repair", "f", NULL), -EINVAL);
	assert_string_equal(err, "rm: --repair is an option of another subcommand");
	assert_int_equal(parse(&a, "check", "--unfenced", NULL), -EINVAL);
	assert_int_equal(parse(&a, "ls", "-s", "1", NULL), -EINVAL);
	assert_int_equal(parse(&a, "--bogus", "ls", NULL), -EINVAL);
	assert_string_equal(err, "unrecognized option '--bogus'");
	assert_int_equal(parse(&a, "-x", "ls", NULL), -EINVAL);
	assert_string_equal(err, "unrecognized option '-x'");
	/* the option itself, wherever it stands in a cluster of short ones */
	assert_int_equal(parse(&a, "ls", "-xl", NULL), -EINVAL);
	assert_string_equal(err, "unrecognized option '-x'");
	assert_int_equal(parse(&a, "ls", "-lx", NULL), -EINVAL);
	assert_string_equal(err, "unrecognized option '-x'");
	assert_int_equal(parse(&a, "ls", "--long", "-lq", NULL), -EINVAL);
	assert_string_equal(err, "unrecognized option '-q'");
	assert_int_equal(parse(&a, "ls", "--bogus=3", NULL), -EINVAL);
	assert_string_equal(err, "unrecognized option '--bogus'");
	assert_int_equal(parse(&a, "ls", "--long=3", NULL), -EINVAL);
	assert_string_equal(err, "option '--long' takes no value");
	assert_int_equal(parse(&a, "ls", "--pool", NULL), -EINVAL);
	assert_string_equal(err, "option '--pool' needs a value");
	assert_int_equal(parse(&a, "truncate", "f", "-ls", NULL), -EINVAL);
	assert_string_equal(err, "option '-s' needs a value");
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
	assert_cmd(&a, "help");
	assert_null(a.topic);
	assert_int_equal(parse(&a, "help", NULL), 0);
	assert_null(a.topic);
	assert_int_equal(parse(&a, "help", "check", NULL), 0);
	assert_cmd(&a, "help");
	assert_string_equal(a.topic->name, "check");
	assert_int_equal(parse(&a, "help", "lock", "break", NULL), 0);
	assert_string_equal(a.topic->name, "lock break");
	assert_int_equal(parse(&a, "lock", "break", "-h", NULL), 0);
	assert_cmd(&a, "help");
	assert_string_equal(a.topic->name, "lock break");
	assert_int_equal(parse(&a, "help", "nothing", NULL), -EINVAL);
	assert_int_equal(parse(&a, "--version", "ls", NULL), 0);
	assert_true(a.version);
}

/* Every subcommand registered itself whole, once; help lists them by name. */
static void test_registered_subcommands(void **state)
{
	static const char *const order[] = {
	    "bash-completion", "check",	       "dropin status", "help",	      "index check",
	    "index create",    "index drop",   "index repair",  "index status", "lock break",
	    "lock ls",	       "ls",	       "mount",		"rm",	      "stat",
	    "truncate",	       "xattr get",    "xattr ls",	"xattr rm",     "xattr set",
	};
	const struct cli_command *const *all = cli_commands_begin();

	(void)state;
	assert_int_equal(cli_commands_count(), sizeof(order) / sizeof(order[0]));
	for (size_t i = 0; i < cli_commands_count(); i++) {
		assert_string_equal(all[i]->name, order[i]);
		assert_non_null(all[i]->run);
		assert_non_null(all[i]->about);
		assert_true(!strncmp(all[i]->synopsis, all[i]->name, strlen(all[i]->name)));
		for (const struct cli_option *o = all[i]->options; o && o->name; o++)
			assert_non_null(o->about);
	}
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

/*
 * Bytes F5-FF start no UTF-8 sequence: escaped, not taken for the lead of
 * three bytes (they were when two continuation bytes followed, and
 * `striped xattr get --format json` printed invalid UTF-8; fuzz_cli_args
 * found it: fuzz/corpus/fuzz_cli_args/regress-utf8-lead-ff).
 */
static void write_bad_leads(struct json *j)
{
	json_object_begin(j, NULL);
	json_bytes(j, "v", "\xff\x91\x91 \xf5\x80\x80\x80 \xf4\x8f\xbf\xbf", 13);
	json_object_end(j);
}

static void test_json_bad_utf8_leads(void **state)
{
	char *doc = json_text(write_bad_leads, false);

	(void)state;
	assert_string_equal(doc, "{\"v\":\"\\u00ff\\u0091\\u0091 \\u00f5\\u0080\\u0080\\u0080 "
				 "\xf4\x8f\xbf\xbf\"}\n");
	free(doc);
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
	    cmocka_unit_test(test_json_bad_utf8_leads),
	    cmocka_unit_test(test_every_subcommand),
	    cmocka_unit_test(test_truncate_sizes),
	    cmocka_unit_test(test_truncate_size_spelling),
	    cmocka_unit_test(test_rados_urls),
	    cmocka_unit_test(test_usage_errors),
	    cmocka_unit_test(test_help_and_version),
	    cmocka_unit_test(test_registered_subcommands),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_sizes_for_people),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
