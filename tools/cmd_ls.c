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

int cmd_ls(struct cli *c)
{
	struct striped_list *it;
	const char *name;
	size_t plen = strlen(c->a.prefix);
	uint64_t size;
	int r = striped_list_open(c->io, &it);

	if (cli_json(c))
		json_array_begin(&c->json, NULL);
	while (!r && !(r = striped_list_next(it, &name, &size)) && name) {
		if (strncmp(name, c->a.prefix, plen))
			continue;
		if (cli_json(c)) {
			json_object_begin(&c->json, NULL);
			json_string(&c->json, "name", name);
			json_u64(&c->json, "size", size);
			json_object_end(&c->json);
		} else if (c->a.long_list) {
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
