// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped ls [-l] [POOL | rados://POOL[/PREFIX]]: the striped files of a
 * pool, one per line (-l: SIZE<TAB>NAME), as `rados ls` lists objects. It
 * walks the pool once (striped_list_*), so it takes as long as listing
 * every object of the pool (or of its namespace). striped-ls is this
 * subcommand under its old name.
 */
#include <string.h>

#include "cli.h"

static int ls_run(struct cli *c)
{
	struct striped_list *it = NULL;
	const char *name;
	size_t plen = strlen(c->a.prefix);
	uint64_t size;
	int r = striped_list_open(c->io, &it);

	if (cli_json(c))
		json_array_begin(&c->json, NULL);
	bool long_list = cli_given(&c->a, 'l');

	while (!r && !(r = striped_list_next(it, &name, &size)) && name) {
		if (strncmp(name, c->a.prefix, plen))
			continue;
		if (cli_json(c)) {
			json_object_begin(&c->json, NULL);
			json_string(&c->json, "name", name);
			json_u64(&c->json, "size", size);
			json_object_end(&c->json);
		} else if (long_list) {
			printf("%llu\t%s\n", (unsigned long long)size, name);
		} else {
			printf("%s\n", name);
		}
	}
	striped_list_close(it);
	if (r)
		return cli_fail(c, r, "listing");
	if (cli_json(c)) {
		json_array_end(&c->json);
		json_end(&c->json);
	}
	return 0;
}

static int ls_operands(struct cli_args *a, char **ops, int n, char *err, size_t errlen)
{
	return n ? cli_take_location(a, ops[0], err, errlen) : 0;
}

static const struct cli_option ls_options[] = {
    {'l', true, "long", NULL, "SIZE<TAB>NAME"},
    {0},
};

CLI_COMMAND(ls_command) = {
    .name = "ls",
    .alias = "list",
    .synopsis = "ls [-l] [POOL | rados://POOL[/PREFIX]]",
    .about = "List the striped files of the pool (either library's), one name a line;\n"
	     "-l: SIZE<TAB>NAME. rados://POOL/PREFIX: the names that start with PREFIX.\n"
	     "It walks every object of the pool (or namespace).",
    .options = ls_options,
    .min = 0,
    .max = 1,
    .query = true,
    .operands = ls_operands,
    .run = ls_run,
};
