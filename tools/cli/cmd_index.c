// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped index create|drop|status|check|repair [POOL | rados://POOL[/NS]]:
 * a pool's (a namespace's) index of names (striped_index_*()), so that
 * `striped ls`, the mount and Python list a directory at the cost of the
 * directory, not the pool. -N NS names the namespace too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char *state_name(int state)
{
	static const char *const names[] = {"none", "building", "ready"};

	return state >= 0 && state <= STRIPED_INDEX_READY ? names[state] : "unknown";
}

static const char *ns_of(const struct cli *c)
{
	return c->a.nspace && *c->a.nspace ? c->a.nspace : "(default)";
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int index_create_run(struct cli *c)
{
	const char *pool = cli_given(&c->a, 'i'), *shards_s = cli_given(&c->a, 's');
	unsigned long shards = shards_s ? strtoul(shards_s, NULL, 10) : 0;
	struct timespec t0;
	int r;

	cli_say(c,
		"Indexing pool %s, namespace %s, in pool %s: writers keep it from now; "
		"built from one walk after %d s",
		c->a.pool, ns_of(c), pool ? pool : c->a.pool, STRIPED_INDEX_NOTICE_S + 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = striped_index_create(c->io, pool, (uint32_t)shards);
	if (r == -EOPNOTSUPP)
		return cli_fail(c, r,
				"index create: pool %s keeps no omap (erasure-coded): name a "
				"replicated pool with --index-pool",
				pool ? pool : c->a.pool);
	if (r == -EEXIST)
		return cli_fail(c, r, "index create: pool %s, namespace %s, has one", c->a.pool,
				ns_of(c));
	if (r)
		return cli_fail(c, r, "index create");
	cli_say(c, "Index ready in %.1f s", seconds_since(&t0));
	return 0;
}

static int index_drop_run(struct cli *c)
{
	int r;

	cli_say(c, "Dropping the index of pool %s, namespace %s: listings walk the pool again",
		c->a.pool, ns_of(c));
	r = striped_index_drop(c->io);
	if (r == -ENOENT)
		return cli_fail(c, r, "index drop: pool %s, namespace %s, has no index", c->a.pool,
				ns_of(c));
	return r ? cli_fail(c, r, "index drop") : 0;
}

static int index_status_run(struct cli *c)
{
	struct striped_index_info info;
	bool count = cli_given(&c->a, 'C') != NULL;
	int r = striped_index_stat(c->io, count, &info, sizeof(info));

	if (r)
		return cli_fail(c, r, "index status");
	if (cli_json(c)) {
		json_object_begin(&c->json, NULL);
		json_string(&c->json, "state", state_name(info.state));
		if (info.state != STRIPED_INDEX_NONE) {
			json_string(&c->json, "index_pool", info.pool);
			json_u64(&c->json, "shards", info.shards);
		}
		if (count && info.state != STRIPED_INDEX_NONE) {
			json_u64(&c->json, "objects", info.objects);
			json_u64(&c->json, "entries", info.entries);
		}
		json_object_end(&c->json);
		json_end(&c->json);
		return 0;
	}
	printf("index: %s\n", state_name(info.state));
	if (info.state != STRIPED_INDEX_NONE)
		printf("index pool: %s\nshards per directory: %u\n", info.pool, info.shards);
	if (count && info.state != STRIPED_INDEX_NONE)
		printf("objects: %llu\nentries: %llu\n", (unsigned long long)info.objects,
		       (unsigned long long)info.entries);
	return 0;
}

static int show_difference(void *arg, const char *name, int kind)
{
	struct cli *c = arg;
	const char *what = kind == STRIPED_INDEX_MISSING ? "missing" : "stale";

	if (cli_json(c)) {
		json_object_begin(&c->json, NULL);
		json_string(&c->json, "name", name);
		json_string(&c->json, "difference", what);
		json_object_end(&c->json);
	} else {
		printf("%s\t%s\n", what, name);
	}
	return 0;
}

static int check_or_repair(struct cli *c, bool repair)
{
	const char *verb = repair ? "repair" : "check";
	int r;

	if (cli_json(c))
		json_array_begin(&c->json, NULL);
	r = striped_index_check(c->io, repair, show_difference, c);
	if (cli_json(c)) {
		json_array_end(&c->json);
		json_end(&c->json);
	}
	if (r == -ENOENT)
		return cli_fail(c, r, "index %s: pool %s, namespace %s, has no index", verb,
				c->a.pool, ns_of(c));
	if (r < 0)
		return cli_fail(c, r, "index %s", verb);
	if (!cli_json(c))
		fprintf(stderr, "%s: index %s: %d difference%s%s\n", c->prog, verb, r,
			r == 1 ? "" : "s", repair && r ? ", mended" : "");
	return r && !repair ? 1 : 0;
}

static int index_check_run(struct cli *c)
{
	return check_or_repair(c, false);
}

static int index_repair_run(struct cli *c)
{
	return check_or_repair(c, true);
}

/* POOL, or rados://POOL[/NS]: the path names the namespace (-N does too). */
static int index_operands(struct cli_args *a, char **ops, int n, char *err, size_t errlen)
{
	const char *shards = cli_given(a, 's');
	char *end;
	int r = n ? cli_take_location(a, ops[0], err, errlen) : 0;

	if (r)
		return r;
	if (a->prefix && *a->prefix) {
		if (a->nspace && strcmp(a->nspace, a->prefix))
			return cli_usage_error(err, errlen, "index: two namespaces: -N %s and %s",
					       a->nspace, a->prefix);
		a->nspace = a->prefix;
	}
	if (shards) {
		unsigned long v = strtoul(shards, &end, 10);

		if (!*shards || *end || !v || v > STRIPED_INDEX_SHARDS_MAX)
			return cli_usage_error(err, errlen, "index create: --shards: 1 to %d, not '%s'",
					       STRIPED_INDEX_SHARDS_MAX, shards);
	}
	return 0;
}

static const struct cli_option create_options[] = {
    {'i', true, "index-pool", "POOL", "the replicated pool of the index objects (an EC pool's)"},
    {'s', true, "shards", "N", "objects per directory (default 8): 150,000 x N names before the OSDs warn"},
    {0},
};

static const struct cli_option status_options[] = {
    {'C', false, "count", NULL, "count its objects and entries (reads the whole index)"},
    {0},
};

#define LOCATION "[POOL | rados://POOL[/NAMESPACE]]"

CLI_COMMAND(index_create_command) = {
    .name = "index create",
    .synopsis = "index create [--index-pool POOL] [--shards N] " LOCATION,
    .about = "Index the names of the pool's striped files, one index per directory,\n"
	     "so listings cost the directory, not the pool. Every libstriped writer keeps\n"
	     "it; files of other writers (stock libradosstriper): index check/repair.",
    .options = create_options,
    .max = 1,
    .operands = index_operands,
    .run = index_create_run,
};

CLI_COMMAND(index_drop_command) = {
    .name = "index drop",
    .synopsis = "index drop " LOCATION,
    .about = "Remove the pool's index: listings walk the pool again.",
    .max = 1,
    .operands = index_operands,
    .run = index_drop_run,
};

CLI_COMMAND(index_status_command) = {
    .name = "index status",
    .synopsis = "index status [--count] " LOCATION,
    .about = "Whether the pool has an index, where, how many shards; --count: its\n"
	     "objects and entries.",
    .options = status_options,
    .max = 1,
    .query = true,
    .operands = index_operands,
    .run = index_status_run,
};

CLI_COMMAND(index_check_command) = {
    .name = "index check",
    .synopsis = "index check " LOCATION,
    .about = "Compare the index with a walk of the pool: files it misses (\"missing\",\n"
	     "as stock libradosstriper makes them) and entries without a file (\"stale\").\n"
	     "Exit status 1 when there is a difference.",
    .max = 1,
    .query = true,
    .operands = index_operands,
    .run = index_check_run,
};

CLI_COMMAND(index_repair_command) = {
    .name = "index repair",
    .synopsis = "index repair " LOCATION,
    .about = "index check, and mend each difference found: run it once the last writer\n"
	     "that does not know the index (stock libradosstriper) is gone.",
    .max = 1,
    .query = true,
    .operands = index_operands,
    .run = index_repair_run,
};
