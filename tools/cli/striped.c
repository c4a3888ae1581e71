// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped: the operators' command, in the manner of rbd and rados:
 *
 *   striped [-p POOL] [-N NS] [-c CONF] [--id ID] [--keyring PATH]
 *           [--format plain|json|json-pretty] SUBCOMMAND [ARGS]
 *
 * ls, stat, rm, truncate, xattr get|set|rm|ls, lock ls|break, check
 * [--repair], each in its cmd_*.c; see cli.c and striped(8).
 */
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main("striped", false, argc, argv);
}
