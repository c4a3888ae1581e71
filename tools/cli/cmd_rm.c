// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped rm NAME: remove a file (striped_remove(): every object up to its
 * size and mark by name, the head last, under its exclusive lock). It says
 * what it removes before it begins.
 */
#include <inttypes.h>

#include "cli.h"

static int rm_run(struct cli *c)
{
	struct striped_head h;
	uint64_t count = 0;
	char human[32];
	int r = striped_head_read(c->io, c->a.file, &h, sizeof(h));

	if (r)
		return cli_fail(c, r, "rm %s", c->a.file);
	striped_layout_object_count(&h.layout, h.size > h.reserved ? h.size : h.reserved, &count);
	fmt_size(h.size, human);
	cli_say(c,
		"Removing %s: %" PRIu64 " bytes (%s) in at most %" PRIu64 " objects, the head last",
		c->a.file, h.size, human, count);
	r = striped_remove(c->io, c->a.file);
	return r ? cli_fail(c, r, "rm %s", c->a.file) : 0;
}

CLI_COMMAND(rm_command) = {
    .name = "rm",
    .alias = "remove",
    .synopsis = "rm NAME",
    .about = "Remove a file: every object up to its size and mark, the head last, under\n"
	     "its exclusive lock (holders asked to let go; a silent one fenced).",
    .min = 1,
    .max = 1,
    .operands = cli_operand_file,
    .run = rm_run,
};
