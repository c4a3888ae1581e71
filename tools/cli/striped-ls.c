// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-ls: the old name of `striped ls`, kept so scripts keep working:
 *
 *   striped-ls [-l] [--conf PATH] [--id NAME] [--namespace NS] POOL|rados://POOL[/PREFIX]
 *
 * The same options, output and exit status, its messages under its own name.
 */
#include <stdlib.h>

#include "cli.h"

int main(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 2, sizeof(*args));
	int r;

	if (!args)
		return 1;
	args[0] = argv[0];
	args[1] = "ls";
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	r = cli_main("striped-ls", true, argc + 1, args);
	free(args);
	return r;
}
