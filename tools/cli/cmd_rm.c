// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped rm [--force] NAME: remove a file (striped_remove(): every object
 * up to its size and mark by name, the head last, under its exclusive
 * lock). It says what it removes before it begins. A file still held once
 * striped_remove() has waited for its holders (-EBUSY) is held by a client
 * that is not libstriped's and does not let go: libradosstriper's locks
 * never expire and its clients do not watch, so one that died keeps its
 * lock for good. --force then breaks each libradosstriper holder's lock,
 * fenced (its address blocklisted first, as `lock break` does), and
 * removes the file again; without it, the failure names the holder.
 */
#include <errno.h>
#include <inttypes.h>

#include "cli.h"

/*
 * Break every libradosstriper holder's lock, fenced. 0 when one was
 * broken (or went meanwhile); -EBUSY when there was none; an error of
 * striped_lock_break(), with *addr the address it could not blocklist.
 */
static int break_holders(struct cli *c, char *addr, size_t len)
{
	struct cli_locker l[CLI_LOCKERS_MAX];
	int n = cli_lockers(c, c->a.file, l, CLI_LOCKERS_MAX), r = -EBUSY;
	char who[400];

	for (int i = 0; i < n && (r == 0 || r == -EBUSY); i++) {
		if (l[i].owner != STRIPED_LOCKER_LIBRADOSSTRIPER)
			continue;
		cli_locker_text(&l[i], who, sizeof(who));
		cli_say(c,
			"Breaking the lock of %s on %s, held past the wait (a libradosstriper "
			"client that died), after blocklisting its address %s",
			who, c->a.file, l[i].address);
		snprintf(addr, len, "%s", l[i].address);
		r = striped_lock_break(c->io, c->a.file, l[i].client, l[i].cookie,
				       STRIPED_LOCK_BREAK_FENCE);
		if (r == -ENOENT) /* let go of meanwhile */
			r = 0;
	}
	return n < 0 ? n : r;
}

/* The failure of a remove: a busy file's holder named, and what to do about it. */
static int rm_failed(struct cli *c, int r, const char *addr)
{
	char who[400];

	if (r == -EACCES && *addr)
		return cli_fail(c, r,
				"rm --force %s: this client may not blocklist %s (it needs mon "
				"'profile rbd')",
				c->a.file, addr);
	if (r == -EBUSY && cli_holder_text(c, c->a.file, who, sizeof(who)))
		return cli_fail(c, r,
				"rm %s: held by %s; a dead libradosstriper client's lock goes "
				"with `%s rm --force`",
				c->a.file, who, c->prog);
	return cli_fail(c, r, "rm %s", c->a.file);
}

static int rm_run(struct cli *c)
{
	struct striped_head h;
	uint64_t count = 0;
	char human[32], addr[160] = "";
	int r = striped_head_read(c->io, c->a.file, &h, sizeof(h));

	if (r)
		return cli_fail(c, r, "rm %s", c->a.file);
	striped_layout_object_count(&h.layout, h.size > h.reserved ? h.size : h.reserved, &count);
	fmt_size(h.size, human);
	cli_say(c,
		"Removing %s: %" PRIu64 " bytes (%s) in at most %" PRIu64 " objects, the head last",
		c->a.file, h.size, human, count);
	r = striped_remove(c->io, c->a.file);
	if (r == -EBUSY && cli_given(&c->a, 'f')) {
		r = break_holders(c, addr, sizeof(addr));
		if (!r)
			r = striped_remove(c->io, c->a.file);
	}
	return r ? rm_failed(c, r, addr) : 0;
}

static const struct cli_option rm_options[] = {
    {'f', true, "force", NULL,
     "break a libradosstriper holder's lock (fenced) if it does not let go"},
    {0},
};

CLI_COMMAND(rm_command) = {
    .name = "rm",
    .alias = "remove",
    .synopsis = "rm [--force] NAME",
    .about = "Remove a file: every object up to its size and mark, the head last, under\n"
	     "its exclusive lock (holders asked to let go; a silent one fenced).\n"
	     "--force: a libradosstriper holder still there after the wait (a client\n"
	     "that died: its locks never expire) is fenced and its lock broken.",
    .options = rm_options,
    .min = 1,
    .max = 1,
    .operands = cli_operand_file,
    .run = rm_run,
};
