// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd's operand parser and report formatting. The expected strings
 * were produced by GNU coreutils 9.1 dd on Debian 12.
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

#include <striped.h>

#include "dd_args.h"
#include "dd_report.h"

static char err[512];

/* Parse a NULL-terminated list of operands. */
static int parse(struct dd_args *a, ...)
{
	char *argv[32] = {"striped-dd"};
	int argc = 1;
	va_list ap;
	char *s;

	va_start(ap, a);
	while ((s = va_arg(ap, char *)) && argc < 31)
		argv[argc++] = s;
	va_end(ap);
	err[0] = '\0';
	return dd_parse_args(argc, argv, a, err, sizeof(err));
}

static uint64_t num(const char *s)
{
	uint64_t v = 0;

	assert_int_equal(tool_parse_number(s, &v), 0);
	return v;
}

static void test_plain_and_suffixes(void **state)
{
	(void)state;
	assert_int_equal(num("0"), 0);
	assert_int_equal(num("17"), 17);
	assert_int_equal(num("5c"), 5);
	assert_int_equal(num("5w"), 10);
	assert_int_equal(num("3b"), 1536);
	assert_int_equal(num("1kB"), 1000);
	assert_int_equal(num("1kiB"), 1024);
	assert_int_equal(num("1KD"), 1000);
	assert_int_equal(num("1cB"), 1);
	assert_int_equal(num("1wB"), 2);
	assert_int_equal(num("1bB"), 512);
	assert_int_equal(num("1Bx2"), 2);
	assert_int_equal(num("1KiBx2"), 2048);
	assert_int_equal(num("1KB"), 1000);
	assert_int_equal(num("1K"), 1024);
	assert_int_equal(num("1k"), 1024);
	assert_int_equal(num("1KiB"), 1024);
	assert_int_equal(num("2MB"), 2000000);
	assert_int_equal(num("2M"), 2 << 20);
	assert_int_equal(num("2MiB"), 2 << 20);
	assert_int_equal(num("1GB"), 1000000000ULL);
	assert_int_equal(num("1G"), 1ULL << 30);
	assert_int_equal(num("1TB"), 1000000000000ULL);
	assert_int_equal(num("1T"), 1ULL << 40);
	assert_int_equal(num("1PB"), 1000000000000000ULL);
	assert_int_equal(num("1P"), 1ULL << 50);
	assert_int_equal(num("1EB"), 1000000000000000000ULL);
	assert_int_equal(num("1E"), 1ULL << 60);
	assert_int_equal(num("7B"), 7);
	assert_int_equal(num("K"), 1024); /* no digits: the suffix alone */
}

static void test_products(void **state)
{
	(void)state;
	assert_int_equal(num("2x4K"), 8192);
	assert_int_equal(num("2x3x4"), 24);
	assert_int_equal(num("1Mx2"), 2 << 20);
	assert_int_equal(num("0x5"), 0);
	assert_int_equal(num("512x0"), 0);
	assert_int_equal(num("4Kx4KiB"), 4096 * 4096);
}

static void test_overflow(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(num("9223372036854775807"), INT64_MAX);
	assert_int_equal(tool_parse_number("9223372036854775808", &v), -EOVERFLOW);
	assert_int_equal(tool_parse_number("99999999999999999999999", &v), -EOVERFLOW);
	assert_int_equal(tool_parse_number("8E", &v), -EOVERFLOW);
	assert_int_equal(tool_parse_number("16EB", &v), -EOVERFLOW);
	assert_int_equal(tool_parse_number("1Z", &v), -EOVERFLOW);
	assert_int_equal(tool_parse_number("4Gx4G", &v), -EOVERFLOW);
	assert_int_equal(tool_parse_number("3x4Ex2", &v), -EOVERFLOW);
	assert_int_equal(num("7E"), 7ULL << 60);
}

static void test_bad_numbers(void **state)
{
	static const char *const bad[] = {"",	    "x",     "-1",   "1.5",  "1Q1",  "1KK",
					  "1m",	    "1g",    "1BB",  "2x",   "x2",   "1 K",
					  "0xK2",   "1Kx-2", "1ciB", "1biB", "1wiB", "1Ki",
					  "2x1kBB", "0x",    "3xB",  "1xB",  NULL};
	const char *const *s;
	uint64_t v;

	(void)state;
	for (s = bad; *s; s++) {
		int r = tool_parse_number(*s, &v);

		if (r != -EINVAL)
			fail_msg("'%s' gave %d", *s, r);
	}
}

static void test_defaults(void **state)
{
	struct dd_args a = {0};
	struct striped_layout def = STRIPED_LAYOUT_DEFAULT_INIT;

	(void)state;
	assert_int_equal(parse(&a, NULL), DD_ARGS_RUN);
	assert_int_equal(a.ibs, 512);
	assert_int_equal(a.obs, 512);
	assert_true(a.twobufs);
	assert_int_equal(a.count, DD_UNLIMITED);
	assert_int_equal(a.skip, 0);
	assert_int_equal(a.seek, 0);
	assert_int_equal(a.iodepth, DD_DEFAULT_IODEPTH);
	assert_int_equal(a.status, DD_STATUS_DEFAULT);
	assert_memory_equal(&a.layout, &def, sizeof(def));
	assert_false(a.layout_given);
	assert_null(a.in.path);
	assert_null(a.out.path);
	dd_args_free(&a);
}

static void test_block_sizes_and_counts(void **state)
{
	struct dd_args a = {0};

	(void)state;
	assert_int_equal(parse(&a, "bs=1M", "ibs=7", "skip=3", "seek=2", "count=5", NULL), 0);
	assert_int_equal(a.ibs, 1 << 20);
	assert_int_equal(a.obs, 1 << 20);
	assert_false(a.twobufs);
	assert_int_equal(a.skip, 3 << 20);
	assert_int_equal(a.seek, 2 << 20);
	assert_int_equal(a.count, 5 << 20);
	assert_int_equal(a.max_records, 5);

	assert_int_equal(parse(&a, "ibs=1000", "obs=3000", "skip=2", "seek=2", NULL), 0);
	assert_true(a.twobufs);
	assert_int_equal(a.skip, 2000);
	assert_int_equal(a.seek, 6000);

	/* count_bytes, skip_bytes, seek_bytes, and GNU dd 9.1's trailing B */
	assert_int_equal(parse(&a, "bs=4K", "iflag=count_bytes,skip_bytes", "oflag=seek_bytes",
			       "count=10", "skip=3", "seek=5", NULL),
			 0);
	assert_int_equal(a.count, 10);
	assert_int_equal(a.max_records, DD_UNLIMITED);
	assert_int_equal(a.skip, 3);
	assert_int_equal(a.seek, 5);
	assert_int_equal(parse(&a, "bs=4K", "count=1KiB", "iseek=7B", "oseek=1kB", NULL), 0);
	assert_int_equal(a.count, 1024);
	assert_int_equal(a.skip, 7);
	assert_int_equal(a.seek, 1000);
	assert_true(a.iflags & DD_FLAG_COUNT_BYTES);
	dd_args_free(&a);
}

static void test_repeated_last_wins(void **state)
{
	struct dd_args a = {0};

	(void)state;
	assert_int_equal(parse(&a, "bs=1K", "bs=2K", "if=a", "if=b", "status=none",
			       "status=progress", "conv=notrunc", "conv=fsync", NULL),
			 0);
	assert_int_equal(a.ibs, 2048);
	assert_string_equal(a.in.path, "b");
	assert_int_equal(a.status, DD_STATUS_PROGRESS);
	/* flags accumulate, as in GNU dd */
	assert_int_equal(a.conv, DD_CONV_NOTRUNC | DD_CONV_FSYNC);
	assert_int_equal(parse(&a, "status=none,noxfer", NULL), 0);
	assert_int_equal(a.status, DD_STATUS_NOXFER);
	dd_args_free(&a);
}

static void expect_error(int r, int want, const char *msg)
{
	assert_int_equal(r, want);
	assert_string_equal(err, msg);
}

static void test_bad_operands(void **state)
{
	struct dd_args a = {0};

	(void)state;
	expect_error(parse(&a, "foo=1", NULL), -EINVAL, "unrecognized operand 'foo=1'");
	expect_error(parse(&a, "bs", NULL), -EINVAL, "unrecognized operand 'bs'");
	expect_error(parse(&a, "bs=x", NULL), -EINVAL, "invalid number: 'x'");
	expect_error(parse(&a, "bs=0", NULL), -EINVAL, "invalid number: '0'");
	expect_error(parse(&a, "count=-1", NULL), -EINVAL, "invalid number: '-1'");
	/* GNU dd 9.1 on 64-bit: block sizes up to 2^63 - 2 */
	expect_error(
	    parse(&a, "bs=9223372036854775807", NULL), -EOVERFLOW,
	    "invalid number: '9223372036854775807': Value too large for defined data type");
	expect_error(parse(&a, "obs=8E", NULL), -EOVERFLOW,
		     "invalid number: '8E': Value too large for defined data type");
	assert_int_equal(parse(&a, "bs=9223372036854775806", NULL), 0);
	assert_int_equal(a.ibs, 9223372036854775806ULL);
	assert_int_equal(parse(&a, "bs=4G", NULL), 0);
	assert_int_equal(a.obs, 4ULL << 30);
	assert_int_equal(parse(&a, "ibs=7E", NULL), 0);
	assert_int_equal(a.ibs, 7ULL << 60);
	expect_error(
	    parse(&a, "skip=99999999999999999999", NULL), -EOVERFLOW,
	    "invalid number: '99999999999999999999': Value too large for defined data type");
	expect_error(parse(&a, "bs=1M", "skip=8T", NULL), -EOVERFLOW,
		     "skip: offset 8796093022208 * 1048576: Value too large for defined data type");
	expect_error(parse(&a, "conv=notrunc,bogus", NULL), -EINVAL, "invalid conversion: 'bogus'");
	assert_int_equal(parse(&a, "conv=sync", "conv=noerror", NULL), 0);
	assert_int_equal(a.conv, DD_CONV_SYNC | DD_CONV_NOERROR);
	expect_error(parse(&a, "conv=noerror,block", NULL), -EOPNOTSUPP,
		     "invalid conversion: 'block': not supported by striped-dd");
	expect_error(parse(&a, "iflag=direct,", NULL), -EINVAL, "invalid input flag: ''");
	expect_error(parse(&a, "oflag=fullblock", NULL), -EINVAL,
		     "invalid output flag: 'fullblock'");
	expect_error(parse(&a, "status=loud", NULL), -EINVAL, "invalid status level: 'loud'");
	expect_error(parse(&a, "iodepth=0", NULL), -EINVAL, "invalid number: '0'");
	expect_error(parse(&a, "iodepth=5000", NULL), -EOVERFLOW,
		     "invalid number: '5000': Value too large for defined data type");
	expect_error(parse(&a, "verify=maybe", NULL), -EINVAL,
		     "invalid boolean: 'maybe' (use yes or no)");
}

static void test_conflicts(void **state)
{
	struct dd_args a = {0};

	(void)state;
	expect_error(parse(&a, "conv=excl,nocreat", NULL), -EINVAL,
		     "cannot combine excl and nocreat");
	expect_error(parse(&a, "conv=excl", "conv=nocreat", NULL), -EINVAL,
		     "cannot combine excl and nocreat");
	expect_error(parse(&a, "conv=noerror", "verify=yes", NULL), -EINVAL,
		     "verify=yes: cannot combine with conv=sync or conv=noerror");
	expect_error(parse(&a, "conv=sync", "verify=yes", NULL), -EINVAL,
		     "verify=yes: cannot combine with conv=sync or conv=noerror");
	expect_error(parse(&a, "of=x", "stripe_unit=64K", NULL), -EINVAL,
		     "stripe_unit=, stripe_count=, object_size=: output is not a striped file");
	assert_int_equal(parse(&a, "of=rados://p/f", "stripe_unit=100000", NULL), -EINVAL);
	assert_non_null(strstr(err, "invalid layout"));
	assert_int_equal(parse(&a, "of=rados://p/f", "stripe_unit=64K", "stripe_count=3",
			       "object_size=128K", "id=admin", "name=client.x", NULL),
			 -EINVAL);
	expect_error(parse(&a, "of=rados://p/f", "oflag=append", NULL), -EINVAL,
		     "rados://p/f: oflag=append: not supported on a striped file");
	expect_error(parse(&a, "if=x", "of=y", "ns=t1", NULL), -EINVAL,
		     "ns=: neither input nor output is a striped file");
	assert_int_equal(parse(&a, "if=rados://p/f", "of=y", "ns=t1", NULL), 0);
	assert_string_equal(a.nspace, "t1");
	dd_args_free(&a);
}

static void test_layout_and_cluster(void **state)
{
	struct dd_args a = {0};

	(void)state;
	assert_int_equal(parse(&a, "of=rados://p/f", "stripe_unit=64K", "stripe_count=16",
			       "object_size=1M", "conf=/etc/c.conf", "name=client.admin",
			       "keyring=/k", "op_timeout=30", "iodepth=8", "verify=yes",
			       "status=json", "ns=tenant-1", NULL),
			 0);
	assert_true(a.layout_given);
	assert_int_equal(a.layout.stripe_unit, 65536);
	assert_int_equal(a.layout.stripe_count, 16);
	assert_int_equal(a.layout.object_size, 1 << 20);
	assert_string_equal(a.conn.conf, "/etc/c.conf");
	assert_string_equal(a.conn.name, "client.admin");
	assert_string_equal(a.conn.keyring, "/k");
	assert_string_equal(a.nspace, "tenant-1");
	assert_int_equal(a.conn.op_timeout, 30);
	assert_int_equal(a.iodepth, 8);
	assert_true(a.verify);
	assert_int_equal(a.status, DD_STATUS_JSON);
	dd_args_free(&a);
}

static void test_rados_paths(void **state)
{
	struct dd_args a = {0};
	struct dd_target t = {0};

	(void)state;
	assert_int_equal(parse(&a, "if=rados://pool/dir/name", "of=local", NULL), 0);
	assert_true(a.in.striped);
	assert_string_equal(a.in.pool, "pool");
	assert_string_equal(a.in.name, "dir/name");
	assert_false(a.out.striped);
	assert_string_equal(a.out.path, "local");
	expect_error(parse(&a, "if=rados:///name", NULL), -EINVAL,
		     "rados:///name: missing pool name (rados://POOL/NAME)");
	expect_error(parse(&a, "of=rados://", NULL), -EINVAL,
		     "rados://: missing pool name (rados://POOL/NAME)");
	expect_error(parse(&a, "of=rados://pool", NULL), -EINVAL,
		     "rados://pool: missing file name (rados://POOL/NAME)");
	expect_error(parse(&a, "of=rados://pool/", NULL), -EINVAL,
		     "rados://pool/: missing file name (rados://POOL/NAME)");
	assert_int_equal(dd_parse_target("rados:/x/y", &t, err, sizeof(err)), 0);
	assert_int_equal(dd_parse_target("rados://a/b", &t, err, sizeof(err)), 1);
	assert_string_equal(t.pool, "a");
	assert_string_equal(t.name, "b");
	free(t.pool);
	free(t.name);
}

static void test_help_version(void **state)
{
	struct dd_args a = {0};

	(void)state;
	assert_int_equal(parse(&a, "bs=1", "--help", NULL), DD_ARGS_HELP);
	assert_int_equal(parse(&a, "--version", NULL), DD_ARGS_VERSION);
	dd_args_free(&a);
}

/* dd's summary: sizes as GNU dd 9.1 prints them. */
static void test_human_sizes(void **state)
{
	static const struct {
		uint64_t bytes;
		const char *text;
	} cases[] = {
	    {0, "0 bytes copied"},
	    {1, "1 byte copied"},
	    {999, "999 bytes copied"},
	    {1000, "1000 bytes (1.0 kB) copied"},
	    {1023, "1023 bytes (1.0 kB) copied"},
	    {1024, "1024 bytes (1.0 kB, 1.0 KiB) copied"},
	    {1050, "1050 bytes (1.0 kB, 1.0 KiB) copied"},
	    {1051, "1051 bytes (1.1 kB, 1.0 KiB) copied"},
	    {9949, "9949 bytes (9.9 kB, 9.7 KiB) copied"},
	    {9950, "9950 bytes (10 kB, 9.7 KiB) copied"},
	    {99949, "99949 bytes (100 kB, 98 KiB) copied"},
	    {999499, "999499 bytes (999 kB, 976 KiB) copied"},
	    {999500, "999500 bytes (1.0 MB, 976 KiB) copied"},
	    {999999, "999999 bytes (1.0 MB, 977 KiB) copied"},
	    {1048575, "1048575 bytes (1.0 MB, 1.0 MiB) copied"},
	    {10239999, "10239999 bytes (10 MB, 9.8 MiB) copied"},
	    {1073741823, "1073741823 bytes (1.1 GB, 1.0 GiB) copied"},
	    {1099511627775ULL, "1099511627775 bytes (1.1 TB, 1.0 TiB) copied"},
	};
	char buf[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dd_format_xfer(buf, sizeof(buf), cases[i].bytes, 1000000000, false);
		*strstr(buf, " copied") = '\0';
		strcat(buf, " copied");
		assert_string_equal(buf, cases[i].text);
	}
}

static void expect_xfer(uint64_t bytes, uint64_t ns, bool progress, const char *want)
{
	char buf[256];

	dd_format_xfer(buf, sizeof(buf), bytes, ns, progress);
	assert_string_equal(buf, want);
}

static void test_xfer_lines(void **state)
{
	(void)state;
	expect_xfer(0, 45154, false, "0 bytes copied, 4.5154e-05 s, 0.0 kB/s");
	expect_xfer(1, 122489, false, "1 byte copied, 0.000122489 s, 8.2 kB/s");
	expect_xfer(999, 115315, false, "999 bytes copied, 0.000115315 s, 8.7 MB/s");
	expect_xfer(1024, 224368, false,
		    "1024 bytes (1.0 kB, 1.0 KiB) copied, 0.000224368 s, 4.6 MB/s");
	expect_xfer(196608, 381000, false,
		    "196608 bytes (197 kB, 192 KiB) copied, 0.000381 s, 516 MB/s");
	expect_xfer(3951425, 4032430, false,
		    "3951425 bytes (4.0 MB, 3.8 MiB) copied, 0.00403243 s, 980 MB/s");
	expect_xfer(1000, 1000000000, false, "1000 bytes (1.0 kB) copied, 1 s, 1.0 kB/s");
	expect_xfer(5, 0, false, "5 bytes copied, 0 s, Infinity B/s");
	expect_xfer(1073741824, 2400000000ULL, true,
		    "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 2 s, 447 MB/s");
}

static void test_records(void **state)
{
	struct dd_counts c = {3, 1, 2, 0, 0};
	char buf[128];

	(void)state;
	dd_format_records(buf, sizeof(buf), &c);
	assert_string_equal(buf, "3+1 records in\n2+0 records out\n");
}

static void test_latency_line(void **state)
{
	struct striped_percentiles p = {300, 966000, 1200000, 2686000, 11524000, 1234567890};
	char buf[256];

	(void)state;
	dd_format_latency(buf, sizeof(buf), "writes to", "rados://striped/x", &p);
	assert_string_equal(buf, "writes to rados://striped/x: 300 calls, p50 966 us, "
				 "p99 2.69 ms, p99.9 11.5 ms, max 1.23 s");
	/* three digits that round up to 1000 go to the next unit */
	p = (struct striped_percentiles){2, 999, 999, 999499, 999500, 2000000000000ull};
	dd_format_latency(buf, sizeof(buf), "reads from", "rados://p/y", &p);
	assert_string_equal(buf, "reads from rados://p/y: 2 calls, p50 0.999 us, p99 999 us, "
				 "p99.9 1 ms, max 2000 s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain_and_suffixes),
	    cmocka_unit_test(test_products),
	    cmocka_unit_test(test_overflow),
	    cmocka_unit_test(test_bad_numbers),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_block_sizes_and_counts),
	    cmocka_unit_test(test_repeated_last_wins),
	    cmocka_unit_test(test_bad_operands),
	    cmocka_unit_test(test_conflicts),
	    cmocka_unit_test(test_layout_and_cluster),
	    cmocka_unit_test(test_rados_paths),
	    cmocka_unit_test(test_help_version),
	    cmocka_unit_test(test_human_sizes),
	    cmocka_unit_test(test_xfer_lines),
	    cmocka_unit_test(test_records),
	    cmocka_unit_test(test_latency_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
