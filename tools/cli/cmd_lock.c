// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped lock ls NAME: who holds a file's lock, read without taking it;
 * striped lock break NAME COOKIE [CLIENT]: break one holder's lock, fenced
 * first unless --unfenced (striped_lock_break()), saying so before.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"

/* Column widths: the longest entry, or the title. */
static int width(const struct cli_locker *l, int n, size_t off, const char *title)
{
	size_t w = strlen(title);

	for (int i = 0; i < n; i++) {
		size_t k = strlen((const char *)&l[i] + off);

		if (k > w)
			w = k;
	}
	return (int)w;
}

#define WIDTH(field, title) width(l, n, offsetof(struct cli_locker, field), title)

static void lockers_plain(const struct cli *c, const struct cli_locker *l, int n)
{
	int wc = WIDTH(client, "Locker"), wk = WIDTH(cookie, "ID (cookie)");
	int wa = WIDTH(address, "Address");
	bool ours = false, theirs = false;

	if (!n) {
		printf("There is no lock on %s.\n", c->a.file);
		return;
	}
	printf("There %s %d %s lock%s on %s (tag \"%s\").\n", n > 1 ? "are" : "is", n,
	       l[0].exclusive ? "exclusive" : "shared", n > 1 ? "s" : "", c->a.file, l[0].tag);
	printf("%-*s  %-*s  %-*s  %s\n", wc, "Locker", wk, "ID (cookie)", wa, "Address", "Owner");
	for (int i = 0; i < n; i++) {
		printf("%-*s  %-*s  %-*s  %s\n", wc, l[i].client, wk, l[i].cookie, wa, l[i].address,
		       cli_owner_name(l[i].owner));
		ours |= l[i].owner == STRIPED_LOCKER_LIBSTRIPED;
		theirs |= l[i].owner != STRIPED_LOCKER_LIBSTRIPED;
	}
	/* What a reader needs to tell a live holder from a dead one. */
	if (ours)
		printf("libstriped holders are open files: they let go when a truncate, remove or\n"
		       "check --repair asks, and one that does not answer is fenced and broken.\n");
	if (theirs)
		printf("libradosstriper holds the lock for one call: a holder that stays is a\n"
		       "client that died. Break it: %s lock break %s COOKIE\n",
		       c->prog, c->a.file);
}

static int lock_ls_run(struct cli *c)
{
	struct cli_locker l[CLI_LOCKERS_MAX];
	int n = cli_lockers(c, c->a.file, l, CLI_LOCKERS_MAX);

	if (n < 0)
		return cli_fail(c, n, "lock ls %s", c->a.file);
	if (cli_json(c)) {
		cli_lockers_json(&c->json, NULL, l, n);
		json_end(&c->json);
	} else {
		lockers_plain(c, l, n);
	}
	return 0;
}

static int lock_break_run(struct cli *c)
{
	struct cli_locker l[CLI_LOCKERS_MAX];
	const struct cli_locker *which = NULL;
	int matches = 0, n = cli_lockers(c, c->a.file, l, CLI_LOCKERS_MAX), r;
	bool unfenced = cli_given(&c->a, 'U');
	char who[400];

	if (n < 0)
		return cli_fail(c, n, "lock break %s", c->a.file);
	for (int i = 0; i < n; i++) {
		if (strcmp(l[i].cookie, c->a.cookie) ||
		    (c->a.client && strcmp(l[i].client, c->a.client)))
			continue;
		which = &l[i];
		matches++;
	}
	if (!which)
		return cli_error(c, "lock break %s: no holder with cookie %s%s%s", c->a.file,
				 c->a.cookie, c->a.client ? " and client " : "",
				 c->a.client ? c->a.client : "");
	if (matches > 1)
		return cli_error(c, "lock break %s: %d clients hold cookie %s: name one", c->a.file,
				 matches, c->a.cookie);
	cli_locker_text(which, who, sizeof(who));
	if (unfenced)
		cli_say(c,
			"Breaking the lock of %s on %s without fencing it: if that client is "
			"alive, writes it has queued may still land",
			who, c->a.file);
	else
		cli_say(c,
			"Breaking the lock of %s on %s, after blocklisting its address %s so "
			"that it writes nothing more",
			who, c->a.file, which->address);
	r = striped_lock_break(c->io, c->a.file, which->client, which->cookie,
			       unfenced ? STRIPED_LOCK_BREAK_UNFENCED : STRIPED_LOCK_BREAK_FENCE);
	if (r == -EACCES && !unfenced)
		return cli_fail(c, r,
				"lock break %s: this client may not blocklist %s (it needs mon "
				"'profile rbd'; or --unfenced)",
				c->a.file, which->address);
	return r ? cli_fail(c, r, "lock break %s", c->a.file) : 0;
}

/* NAME COOKIE [CLIENT] */
static int lock_break_operands(struct cli_args *a, char **ops, int n, char *err, size_t errlen)
{
	a->cookie = ops[1];
	a->client = n == 3 ? ops[2] : NULL;
	return cli_take_file(a, ops[0], err, errlen);
}

CLI_COMMAND(lock_ls_command) = {
    .name = "lock ls",
    .synopsis = "lock ls NAME",
    .about = "List the holders of a file's lock: client, cookie, address, and whose\n"
	     "(libstriped, libradosstriper, or other).",
    .min = 1,
    .max = 1,
    .query = true,
    .operands = cli_operand_file,
    .run = lock_ls_run,
};

static const struct cli_option lock_break_options[] = {
    {'U', false, "unfenced", NULL, "break it without fencing the holder first"},
    {0},
};

CLI_COMMAND(lock_break_command) = {
    .name = "lock break",
    .synopsis = "lock break [--unfenced] NAME COOKIE [CLIENT]",
    .about = "Break one holder's lock, as `lock ls` names it (CLIENT: when two\n"
	     "holders share the cookie). Fenced first: its address is blocklisted\n"
	     "and the OSD map that carries it awaited, so a client that was only\n"
	     "paused writes nothing more. --unfenced breaks it alone.",
    .options = lock_break_options,
    .min = 2,
    .max = 3,
    .operands = lock_break_operands,
    .run = lock_break_run,
};
