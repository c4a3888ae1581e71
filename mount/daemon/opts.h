/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* striped-mount's command line: the source, the mountpoint, -o options. */
#ifndef MOUNT_OPTS_H
#define MOUNT_OPTS_H

#include "mount.h"

/*
 * Parse argv (in args) into o and cmd; what libfuse takes stays in args.
 * @return 0 to go on; -1 done (help, version); 1 a failure, 2 a usage
 *         error (both said on stderr): the exit status
 */
int mount_parse(struct fuse_args *args, struct mount_opts *o, struct fuse_cmdline_opts *cmd);

#endif /* MOUNT_OPTS_H */
