// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped truncate NAME SIZE: set a file's size through an open handle
 * (striped_truncate(): under the exclusive lock, taken from the holders by
 * handover, a silent one fenced). It says what it does before it begins.
 */
#include <errno.h>
#include <inttypes.h>

#include "cli.h"

static int truncate_run(struct cli *c)
{
	struct striped_file *f;
	struct striped_head h;
	uint64_t to = c->a.size;
	int r = striped_head_read(c->io, c->a.file, &h, sizeof(h));

	if (r)
		return cli_fail(c, r, "truncate %s", c->a.file);
	if (to < h.size)
		cli_say(c,
			"Truncating %s from %" PRIu64 " to %" PRIu64 " bytes: the %" PRIu64
			" bytes past it are removed",
			c->a.file, h.size, to, h.size - to);
	else
		cli_say(c,
			"Setting the size of %s from %" PRIu64 " to %" PRIu64
			" bytes (what it gains reads as zeros)",
			c->a.file, h.size, to);
	r = striped_open(c->io, c->a.file, 0, NULL, &f);
	if (r)
		return cli_fail(c, r, "truncate %s", c->a.file);
	r = striped_truncate(f, to);
	striped_close(f);
	return r ? cli_fail(c, r, "truncate %s", c->a.file) : 0;
}

/* The size once: an operand, or -s's value; read as dd reads a number. */
static int truncate_operands(struct cli_args *a, char **ops, int n, char *err, size_t errlen)
{
	const char *size = cli_given(a, 's');
	int r;

	if ((n == 2) == (size != NULL))
		return cli_usage_error(err, errlen, "usage: striped %s",
				       "truncate NAME SIZE | truncate -s SIZE NAME");
	if (n == 2)
		size = ops[1];
	r = tool_parse_number(size, &a->size);
	if (r == -EOVERFLOW)
		return cli_usage_error(err, errlen, "truncate: size '%s' past 2^63-1", size);
	if (r)
		return cli_usage_error(err, errlen, "truncate: invalid size '%s'", size);
	return cli_take_file(a, ops[0], err, errlen);
}

static const struct cli_option truncate_options[] = {
    {'s', true, "size", "SIZE", "the new size (instead of the operand)"},
    {0},
};

CLI_COMMAND(truncate_command) = {
    .name = "truncate",
    .synopsis = "truncate NAME SIZE | truncate -s SIZE NAME",
    .about = "Set a file's size (SIZE as dd reads it: K, M, G, T, P, E or KiB, MiB...\n"
	     "1024^n; KB, MB, GB... 1000^n). Shrinking removes what lies past the new\n"
	     "size; growing reads as zeros.",
    .options = truncate_options,
    .min = 1,
    .max = 2,
    .operands = truncate_operands,
    .run = truncate_run,
};
