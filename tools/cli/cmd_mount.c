// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped mount rados://POOL[/NAMESPACE] MOUNTPOINT [-f] [-o OPTIONS]: runs
 * striped-mount (mount/, the FUSE daemon; also what /etc/fstab's
 * fuse.striped-mount runs through mount.fuse3), with the line's connection
 * options (-c, --id, --name, --keyring) turned into its -o options. The
 * daemon is found beside this program, else on PATH.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define MOUNT_PROG "striped-mount"

static const struct cli_option mount_options[] = {
    {'o', true, "options", "OPTIONS",
     "striped-mount's options (striped-mount(8)), comma-separated"},
    {'f', true, "foreground", NULL, "stay in the foreground"},
    {0},
};

static int mount_operands(struct cli_args *a, char **ops, int n, char *err, size_t errlen)
{
	if (!tool_is_rados(ops[0]))
		return cli_usage_error(err, errlen, "%s: want rados://POOL[/NAMESPACE]", ops[0]);
	a->files = ops;
	a->nfiles = n;
	return 0;
}

/* "-o" and its value: the user's options, then the connection's. */
static char *mount_opt_string(const struct cli *c)
{
	const struct tool_conn *k = &c->a.conn;
	const char *user = cli_given(&c->a, 'o');
	char *s = NULL;
	int r = asprintf(&s, "%s%s%s%s%s%s%s%s%s", user ? user : "default_permissions",
			 k->conf ? ",conf=" : "", k->conf ? k->conf : "", k->id ? ",id=" : "",
			 k->id ? k->id : "", k->name ? ",name=" : "", k->name ? k->name : "",
			 k->keyring ? ",keyring=" : "", k->keyring ? k->keyring : "");

	return r < 0 ? NULL : s;
}

/* Where `meson install` puts striped-mount (sbin: not in a user's PATH on Debian). */
#ifndef STRIPED_SBINDIR
#define STRIPED_SBINDIR "/usr/sbin"
#endif

/* striped-mount beside this program (build tree, install), in the installed
 * sbindir (striped in bin), else PATH's. */
static void exec_mount(char **argv)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - sizeof(MOUNT_PROG) - 16);

	if (n > 0) {
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			strcpy(slash + 1, MOUNT_PROG);
			execv(self, argv);
			/* the build tree keeps it in mount/, beside tools/ */
			strcpy(slash + 1, "../mount/" MOUNT_PROG);
			execv(self, argv);
		}
	}
	execv(STRIPED_SBINDIR "/" MOUNT_PROG, argv);
	execvp(MOUNT_PROG, argv);
}

static int mount_run(struct cli *c)
{
	char *opts = mount_opt_string(c);
	char *argv[8];
	int i = 0;

	if (!opts)
		return cli_fail(c, -ENOMEM, "mount");
	argv[i++] = MOUNT_PROG;
	argv[i++] = c->a.files[0];
	argv[i++] = c->a.files[1];
	if (cli_given(&c->a, 'f'))
		argv[i++] = "-f";
	argv[i++] = "-o";
	argv[i++] = opts;
	argv[i] = NULL;
	exec_mount(argv);
	cli_fail(c, -errno, "cannot run %s", MOUNT_PROG);
	free(opts);
	return 1;
}

CLI_COMMAND(mount_command) = {
    .name = "mount",
    .synopsis = "mount rados://POOL[/NAMESPACE] MOUNTPOINT [-f] [-o OPTIONS]",
    .about = "Mount the pool's striped files as a file system (FUSE: striped-mount(8));\n"
	     "fusermount3 -u MOUNTPOINT unmounts.",
    .options = mount_options,
    .min = 2,
    .max = 2,
    .offline = true,
    .operands = mount_operands,
    .run = mount_run,
};
