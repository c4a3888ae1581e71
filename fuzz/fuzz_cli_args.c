// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for the `striped` command's argument parser
 * (tools/cli/cli_args.c with every subcommand's operands, as the command links
 * them) and for its JSON output (tools/cli/cli_out.c), which prints what
 * comes from the cluster and the command line: names, cookies, addresses,
 * any bytes of an xattr. The input is an argument vector, arguments
 * separated by NUL bytes. Properties, besides no crash, leak or undefined
 * behaviour:
 * - cli_parse() gives 0 or -EINVAL; a refusal says why in one line (but
 *   for an argument that holds a newline itself, quoted as given);
 * - what it accepts is usable: a subcommand (or --version), options only of
 *   that subcommand, a file name that is not empty where one is taken, a
 *   pool named in an operand that fits, a truncate size within
 *   2^63 - 1, every pointer into the arguments or the struct itself;
 * - parsing the same line again gives the same answer (getopt's state is
 *   started over);
 * - every argument written as a JSON string (json_string, json_bytes)
 *   gives a valid JSON string: valid UTF-8, no raw control byte, escapes
 *   JSON knows.
 *
 * Seeds: fuzz/corpus/fuzz_cli_args/ (command lines of README and striped(8));
 * dictionary: fuzz/fuzz_cli_args.dict.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_out.h"
#include "fuzz_argv.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool within(const char *p, const char *lo, size_t len)
{
	return p >= lo && p <= lo + len;
}

static void check_accepted(const struct cli_args *a, const char *copy, size_t size)
{
	const struct cli_command *c = a->cmd;

	if (a->version)
		return;
	if (!c || a->format > CLI_FORMAT_JSON_PRETTY || a->ngiven > CLI_GIVEN_MAX)
		abort();
	/* --help anywhere: help about the subcommand, whatever else the line had */
	for (int i = 0; i < a->ngiven && strcmp(c->name, "help"); i++) {
		const struct cli_option *o = c->options;

		while (o && o->name && o->key != a->given[i].key)
			o++;
		if (!o || !o->name || !a->given[i].value)
			abort();
	}
	if (a->file && (!*a->file || !(within(a->file, copy, size) || a->file == a->pool_buf)))
		abort();
	/* ls POOL takes any name for a pool: what is no rados:// is not parsed as one */
	if (a->pool == a->pool_buf &&
	    (!a->pool_buf[0] || strnlen(a->pool_buf, TOOL_POOL_MAX) == TOOL_POOL_MAX))
		abort();
	if (a->pool && a->pool != a->pool_buf && !within(a->pool, copy, size))
		abort();
	if (!strcmp(c->name, "truncate") && a->size > INT64_MAX)
		abort();
	if (c->min > 0 && c->operands && strcmp(c->name, "check") && strcmp(c->name, "help") &&
	    !a->file)
		abort();
}

static void check_refused(int r, const char *err, bool nl)
{
	size_t len = strnlen(err, 512);

	if (r != -EINVAL || len == 0 || len == 512 || (!nl && memchr(err, '\n', len)))
		abort();
}

/* The UTF-8 sequence at s (n bytes left): its length, or 0 when it is not valid UTF-8. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80	     ? 1
		     : (s[0] & 0xe0) == 0xc0 ? 2
		     : (s[0] & 0xf0) == 0xe0 ? 3
		     : (s[0] & 0xf8) == 0xf0 ? 4
					     : 0;
	uint32_t cp;

	if (!len || len > n)
		return 0;
	cp = len == 1 ? s[0] : s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* doc is {"k":"..."}: the string is JSON's. */
static void check_json_string(const char *doc, size_t len)
{
	const unsigned char *s = (const unsigned char *)doc, *end = s + len;

	if (len < 8 || memcmp(s, "{\"k\":\"", 6) || memcmp(end - 2, "\"}", 2))
		abort();
	for (s += 6, end -= 2; s < end;) {
		size_t n;

		if (*s == '\\') {
			if (s + 1 >= end || !strchr("\"\\/bfnrtu", s[1]))
				abort();
			if (s[1] == 'u') {
				for (int i = 2; i < 6; i++)
					if (s + i >= end || !strchr("0123456789abcdefABCDEF", s[i]))
						abort();
				s += 6;
			} else {
				s += 2;
			}
			continue;
		}
		if (*s < 0x20 || *s == '"')
			abort();
		n = utf8_len(s, (size_t)(end - s));
		if (!n)
			abort();
		s += n;
	}
}

static void check_json(const char *arg, size_t len, bool bytes)
{
	struct json j;
	char *doc = NULL;
	size_t doc_len = 0;
	FILE *f = open_memstream(&doc, &doc_len);

	if (!f)
		return;
	json_init(&j, f, false);
	json_object_begin(&j, NULL);
	if (bytes)
		json_bytes(&j, "k", arg, len);
	else
		json_string(&j, "k", arg);
	json_object_end(&j);
	json_end(&j);
	fclose(f);
	/* json_end() adds a newline after the document */
	if (!doc_len || doc[doc_len - 1] != '\n')
		abort();
	check_json_string(doc, doc_len - 1);
	free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *argv[MAX_ARGS + 2] = {"striped"}, err[512], err2[512];
	int argc = 1 + fuzz_split(data, size, &copy, argv + 1, MAX_ARGS), r, r2;
	bool nl = memchr(data, '\n', size) != NULL;
	struct cli_args a, b;

	if (argc == 0)
		return 0;
	for (int i = 1; i < argc; i++)
		check_json(argv[i], strlen(argv[i]), false);
	check_json((const char *)data, size, true);

	err[0] = '\0';
	r = cli_parse(argc, argv, &a, err, sizeof(err));
	if (r == 0)
		check_accepted(&a, copy, size);
	else
		check_refused(r, err, nl);
	err2[0] = '\0';
	r2 = cli_parse(argc, argv, &b, err2, sizeof(err2));
	if (r2 != r || (r && strcmp(err, err2)) ||
	    (!r && (a.cmd != b.cmd || a.version != b.version || a.ngiven != b.ngiven)))
		abort();
	free(copy);
	return 0;
}
