// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped truncate NAME SIZE: set a file's size through an open handle
 * (striped_truncate(): under the exclusive lock, taken from the holders by
 * handover, a silent one fenced). It says what it does before it begins.
 */
#include <inttypes.h>

#include "cli.h"

int cmd_truncate(struct cli *c)
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
