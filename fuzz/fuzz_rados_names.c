// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for names: rados://POOL/NAME and rados://POOL[/PREFIX]
 * as both commands take them (tools/common/tool_args.c, and the `striped`
 * command's operands in tools/cli/cli_args.c), and object names from a pool's
 * listing split into a file's name and object number by the library's one
 * split, striped_object_name_split(), as `striped check` and
 * striped_list_next() split them. The input is strings separated by NUL
 * bytes.
 * Properties, besides no crash or undefined behaviour:
 * - a rados:// string parsed is put back together from its pool and name;
 *   its pool is not empty, holds no '/' and fits; a refusal says why in a
 *   line; any pool and name put together parse back to themselves;
 * - an operand's pool is the line's (-p), or a usage error naming both;
 * - the split keeps its documented contract (include/striped.h): a name
 *   is split exactly when it is "NAME.%016llx" (a name of one byte at
 *   least, a dot, 16 lowercase hex digits), into the length of NAME and a
 *   number that striped_object_name() writes back as the same name; any
 *   other is -EINVAL with objectno left alone; any file name and number
 *   written split back to themselves.
 *
 * Seeds: fuzz/corpus/fuzz_rados_names/ (names from a pool's listing and the
 * commands' manuals); dictionary: fuzz/fuzz_rados_names.dict.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <striped.h>

#include "cli_args.h"
#include "fuzz_argv.h"

#define MAX_STRINGS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One line, unless what it quotes (s, or the line's pool) has a newline itself. */
static void check_refused(int r, const char *err, const char *s, const char *pool)
{
	size_t len = strnlen(err, 512);
	bool nl = strchr(s, '\n') || (pool && strchr(pool, '\n'));

	if (r != -EINVAL || len == 0 || len == 512 || (!nl && memchr(err, '\n', len)))
		abort();
}

static void check_url(const char *s, enum tool_rados_form form)
{
	struct tool_rados u;
	char err[512] = "", back[8192];
	int r = tool_parse_rados(s, form, &u, err, sizeof(err));

	if (r) {
		check_refused(r, err, s, NULL);
		return;
	}
	if (!tool_is_rados(s) || !u.pool[0] || strchr(u.pool, '/') ||
	    strnlen(u.pool, sizeof(u.pool)) == sizeof(u.pool) ||
	    (u.name[0] && (u.name < s || u.name > s + strlen(s))) ||
	    (form == TOOL_RADOS_FILE && !u.name[0]))
		abort();
	snprintf(back, sizeof(back), "rados://%s%s%s", u.pool,
		 u.name[0] || s[strlen(s) - 1] == '/' ? "/" : "", u.name);
	if (strlen(s) < sizeof(back) - 1 && strcmp(back, s))
		abort();
}

/* An operand under -p pool (or none): the line's pool, or a usage error. */
static void check_operands(const char *s, const char *pool)
{
	struct cli_args a;
	char err[512];
	int r;

	for (int location = 0; location < 2; location++) {
		memset(&a, 0, sizeof(a));
		a.pool = pool;
		err[0] = '\0';
		r = location ? cli_take_location(&a, s, err, sizeof(err))
			     : cli_take_file(&a, s, err, sizeof(err));
		if (r) {
			check_refused(r, err, s, pool);
			continue;
		}
		if (pool && strcmp(a.pool, pool))
			abort();
		if (!location && (!a.file || !*a.file))
			abort();
		if (!a.pool && tool_is_rados(s))
			abort();
	}
}

/* The header's words, checked apart from the library's code: "NAME.%016llx". */
static bool is_object_name(const char *s, size_t len)
{
	return len >= 18 && s[len - 17] == '.' && strspn(s + len - 16, "0123456789abcdef") == 16;
}

static void check_split(const char *s)
{
	const uint64_t untouched = 0x5a5a5a5a5a5a5a5aULL;
	uint64_t no = untouched;
	ssize_t r = striped_object_name_split(s, &no);
	size_t len = strlen(s);
	char *name, *back;

	if (!is_object_name(s, len)) {
		if (r != -EINVAL || no != untouched)
			abort();
		return;
	}
	if (r != (ssize_t)(len - 17))
		abort();
	name = strndup(s, (size_t)r);
	back = malloc(len + 1);
	if (name && back &&
	    (striped_object_name(name, no, back, len + 1) != (int)len || strcmp(back, s)))
		abort();
	free(name);
	free(back);
}

/* Any pool and file put together parse back; any name and number written split back. */
static void check_round_trips(const char *pool_in, const char *name, uint64_t objectno)
{
	char pool[TOOL_POOL_MAX], url[8192], err[512];
	struct tool_rados u;
	size_t n = 0;
	char *oid;
	ssize_t len;
	uint64_t no;

	for (const char *p = pool_in; *p && n < sizeof(pool) - 1; p++)
		if (*p != '/')
			pool[n++] = *p;
	pool[n] = '\0';
	if (n && *name &&
	    snprintf(url, sizeof(url), "rados://%s/%s", pool, name) < (int)sizeof(url)) {
		if (tool_parse_rados(url, TOOL_RADOS_FILE, &u, err, sizeof(err)) ||
		    strcmp(u.pool, pool) || strcmp(u.name, name))
			abort();
	}
	if (!*name)
		return;
	oid = malloc(strlen(name) + 18);
	if (!oid)
		return;
	striped_object_name(name, objectno, oid, strlen(name) + 18);
	len = striped_object_name_split(oid, &no);
	if (len != (ssize_t)strlen(name) || no != objectno)
		abort();
	free(oid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *s[MAX_STRINGS + 1];
	int n = fuzz_split(data, size, &copy, s, MAX_STRINGS);
	uint64_t objectno = 0;

	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		check_url(s[i], TOOL_RADOS_FILE);
		check_url(s[i], TOOL_RADOS_PREFIX);
		check_operands(s[i], NULL);
		check_operands(s[i], i ? s[i - 1] : "striped");
		check_split(s[i]);
	}
	for (size_t i = 0; i < 8 && i < size; i++)
		objectno = objectno << 8 | data[size - 1 - i];
	check_round_trips(s[0], n > 1 ? s[1] : "", objectno);
	free(copy);
	return 0;
}
