// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped xattr get|set|rm|ls: a file's extended attributes, kept on its
 * head object as libradosstriper keeps them. get and ls read them in one
 * round trip without a lock (striped_head_getxattrs()); set and rm open the
 * file, as the library's calls need, and say what they change first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void value_json(struct json *j, const char *key, const void *value, size_t len)
{
	json_object_begin(j, NULL);
	json_string(j, "name", key);
	json_u64(j, "len", len);
	json_bytes(j, "value", value, len);
	json_object_end(j);
}

/* get: the value as it is (a newline after it on a terminal); ls (list): the names. */
static int xattr_read(struct cli *c, bool list)
{
	struct striped_xattrs *it;
	const char *key;
	const void *value;
	size_t len;
	bool found = false;
	int r = striped_head_getxattrs(c->io, c->a.file, &it);

	if (r)
		return cli_fail(c, r, "%s %s", c->a.cmd->name, c->a.file);
	if (cli_json(c) && list)
		json_array_begin(&c->json, NULL);
	while (!striped_getxattrs_next(it, &key, &value, &len) && key) {
		if (list && cli_json(c)) {
			value_json(&c->json, key, value, len);
		} else if (list) {
			printf("%s\n", key);
		} else if (!strcmp(key, c->a.key)) {
			found = true;
			if (cli_json(c))
				value_json(&c->json, key, value, len);
			else if (fwrite(value, 1, len, stdout) == len && isatty(STDOUT_FILENO))
				putchar('\n');
		}
	}
	striped_getxattrs_end(it);
	if (!list && !found)
		return cli_fail(c, -ENODATA, "xattr get %s %s", c->a.file, c->a.key);
	if (cli_json(c) && list)
		json_array_end(&c->json);
	if (cli_json(c))
		json_end(&c->json);
	return 0;
}

/* All of standard input: the value of `xattr set NAME KEY` without VALUE. */
static int read_stdin(char **buf, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *b = malloc(cap), *more;

	while (b && (got = fread(b + n, 1, cap - n, stdin)) > 0) {
		n += got;
		if (n == cap) {
			more = realloc(b, cap *= 2);
			if (!more)
				free(b);
			b = more;
		}
	}
	if (!b)
		return -ENOMEM;
	if (ferror(stdin)) {
		free(b);
		return -EIO;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* set (a value from the line or standard input), or rm. */
static int xattr_change(struct cli *c, bool set)
{
	const char *what = c->a.cmd->name;
	struct striped_file *f;
	char *input = NULL;
	size_t len = c->a.value ? strlen(c->a.value) : 0;
	int r = 0;

	if (set && !c->a.value)
		r = read_stdin(&input, &len);
	if (r)
		return cli_fail(c, r, "%s %s %s: standard input", what, c->a.file, c->a.key);
	if (set)
		cli_say(c, "Setting extended attribute %s of %s (%zu bytes)", c->a.key, c->a.file,
			len);
	else
		cli_say(c, "Removing extended attribute %s of %s", c->a.key, c->a.file);
	r = striped_open(c->io, c->a.file, 0, NULL, &f);
	if (!r) {
		r = set ? striped_setxattr(f, c->a.key, input ? input : c->a.value, len)
			: striped_rmxattr(f, c->a.key);
		striped_close(f);
	}
	free(input);
	return r ? cli_fail(c, r, "%s %s %s", what, c->a.file, c->a.key) : 0;
}

static int xattr_get_run(struct cli *c)
{
	return xattr_read(c, false);
}

static int xattr_ls_run(struct cli *c)
{
	return xattr_read(c, true);
}

static int xattr_set_run(struct cli *c)
{
	return xattr_change(c, true);
}

static int xattr_rm_run(struct cli *c)
{
	return xattr_change(c, false);
}

CLI_COMMAND(xattr_get_command) = {
    .name = "xattr get",
    .synopsis = "xattr get NAME KEY",
    .about = "Print the value of a file's extended attribute, read without a lock.",
    .min = 2,
    .max = 2,
    .query = true,
    .operands = cli_operand_file_key,
    .run = xattr_get_run,
};

CLI_COMMAND(xattr_set_command) = {
    .name = "xattr set",
    .synopsis = "xattr set NAME KEY [VALUE]   (no VALUE: read from standard input)",
    .about = "Set a file's extended attribute (striper.* names are the libraries').",
    .min = 2,
    .max = 3,
    .operands = cli_operand_file_key,
    .run = xattr_set_run,
};

CLI_COMMAND(xattr_rm_command) = {
    .name = "xattr rm",
    .synopsis = "xattr rm NAME KEY",
    .about = "Remove a file's extended attribute.",
    .min = 2,
    .max = 2,
    .operands = cli_operand_file_key,
    .run = xattr_rm_run,
};

CLI_COMMAND(xattr_ls_command) = {
    .name = "xattr ls",
    .synopsis = "xattr ls NAME",
    .about = "List a file's extended attributes, read without a lock.",
    .min = 1,
    .max = 1,
    .query = true,
    .operands = cli_operand_file,
    .run = xattr_ls_run,
};
