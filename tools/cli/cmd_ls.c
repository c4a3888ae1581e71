// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped ls [-l] [-d DELIM] [POOL | rados://POOL[/PREFIX]]: the striped
 * files of a pool, one per line (-l: SIZE<TAB>NAME), as `rados ls` lists
 * objects (striped_list_open2()): from the pool's namespace index when it
 * has one (the cost of the directories listed; names alone, without -l),
 * else from a walk of every object of the pool (or of its namespace).
 * striped-ls is this subcommand under its old name.
 *
 * -d DELIM lists one level below PREFIX, as S3's ListObjectsV2 with a
 * delimiter: a name whose rest after PREFIX holds DELIM shows once as its
 * common prefix, up to and with the first DELIM ("dir/"), the way a
 * directory holds its files. The library rolls names up for "/" (with an
 * index it reads one directory); another delimiter is rolled up here: the
 * listing comes sorted by name, so all names under one common prefix come
 * together and a prefix shows once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct ls {
	struct cli *c;
	const char *delimiter; /* NULL: every name */
	bool long_list;
	char *last_prefix; /* the common prefix shown last */
};

/* A common prefix: "PRE<TAB>dir/" with -l (as `aws s3 ls` shows one), else "dir/". */
static int show_prefix(struct ls *l, const char *name, size_t len)
{
	char *p;

	if (l->last_prefix && strlen(l->last_prefix) == len && !strncmp(l->last_prefix, name, len))
		return 0;
	p = strndup(name, len);
	if (!p)
		return -ENOMEM;
	free(l->last_prefix);
	l->last_prefix = p;
	if (cli_json(l->c)) {
		json_object_begin(&l->c->json, NULL);
		json_string(&l->c->json, "prefix", p);
		json_object_end(&l->c->json);
	} else {
		printf(l->long_list ? "PRE\t%s\n" : "%s\n", p);
	}
	return 0;
}

static void show_file(struct ls *l, const char *name, uint64_t size)
{
	if (cli_json(l->c)) {
		json_object_begin(&l->c->json, NULL);
		json_string(&l->c->json, "name", name);
		json_u64(&l->c->json, "size", size);
		json_object_end(&l->c->json);
	} else if (l->long_list) {
		printf("%llu\t%s\n", (unsigned long long)size, name);
	} else {
		printf("%s\n", name);
	}
}

/* One listed file: shown, shown as its common prefix, or not under PREFIX. */
static int show(struct ls *l, const char *name, uint64_t size)
{
	size_t plen = strlen(l->c->a.prefix);
	const char *under;

	if (strncmp(name, l->c->a.prefix, plen))
		return 0;
	under = l->delimiter ? strstr(name + plen, l->delimiter) : NULL;
	if (under)
		return show_prefix(l, name, (size_t)(under - name) + strlen(l->delimiter));
	show_file(l, name, size);
	return 0;
}

/* Names alone when an index lists them and no size is shown: no head read. */
static unsigned int list_flags(struct ls *l)
{
	struct striped_index_info info;

	if (l->long_list || cli_json(l->c) ||
	    striped_index_stat(l->c->io, 0, &info, sizeof(info)) ||
	    info.state != STRIPED_INDEX_READY)
		return 0;
	return STRIPED_LIST_NAMES_ONLY;
}

static int ls_run(struct cli *c)
{
	struct ls l = {.c = c, .delimiter = cli_given(&c->a, 'd'),
		       .long_list = cli_given(&c->a, 'l') != NULL};
	bool slash = l.delimiter && !strcmp(l.delimiter, "/");
	struct striped_list_query q = {c->a.prefix, slash ? "/" : NULL, NULL, list_flags(&l)};
	struct striped_list *it = NULL;
	struct striped_list_entry e;
	int r = striped_list_open2(c->io, &q, sizeof(q), &it);

	if (cli_json(c))
		json_array_begin(&c->json, NULL);
	while (!r && !(r = striped_list_next2(it, &e, sizeof(e))) && e.name)
		r = e.is_prefix ? show_prefix(&l, e.name, strlen(e.name)) : show(&l, e.name, e.size);
	striped_list_close(it);
	free(l.last_prefix);
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
	const char *delimiter = cli_given(a, 'd');

	if (delimiter && !*delimiter)
		return cli_usage_error(err, errlen, "ls: -d: an empty delimiter");
	return n ? cli_take_location(a, ops[0], err, errlen) : 0;
}

static const struct cli_option ls_options[] = {
    {'l', true, "long", NULL, "SIZE<TAB>NAME"},
    {'d', true, "delimiter", "DELIM", "one level: a name with DELIM past PREFIX shows as its common prefix"},
    {0},
};

CLI_COMMAND(ls_command) = {
    .name = "ls",
    .alias = "list",
    .synopsis = "ls [-l] [-d DELIM] [POOL | rados://POOL[/PREFIX]]",
    .about = "List the striped files of the pool (either library's), one name a line,\n"
	     "sorted; -l: SIZE<TAB>NAME. rados://POOL/PREFIX: the names that start with\n"
	     "PREFIX. -d /: one level below PREFIX, a deeper name shown once as its\n"
	     "common prefix (\"dir/\"; -l: PRE<TAB>dir/), as a directory listing.\n"
	     "It reads the pool's index (striped index create), or walks every object.",
    .options = ls_options,
    .min = 0,
    .max = 1,
    .query = true,
    .operands = ls_operands,
    .run = ls_run,
};
