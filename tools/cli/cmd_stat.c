// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped stat NAME: what a file's head says (size, layout, high-water
 * mark, id, mtime) and who holds its lock, read without taking the lock:
 * it works on a file a dead client left locked.
 */
#include <inttypes.h>

#include "cli.h"

static void layout_json(struct json *j, const struct striped_layout *l)
{
	json_object_begin(j, "layout");
	json_u64(j, "stripe_unit", l->stripe_unit);
	json_u64(j, "stripe_count", l->stripe_count);
	json_u64(j, "object_size", l->object_size);
	json_object_end(j);
}

static void stat_json(struct cli *c, const struct striped_head *h, const struct cli_locker *l,
		      int n)
{
	struct json *j = &c->json;

	json_object_begin(j, NULL);
	json_string(j, "name", c->a.file);
	json_u64(j, "size", h->size);
	layout_json(j, &h->layout);
	json_object_begin(j, "mtime");
	json_u64(j, "tv_sec", (uint64_t)h->mtime.tv_sec);
	json_u64(j, "tv_nsec", (uint64_t)h->mtime.tv_nsec);
	json_object_end(j);
	json_u64(j, "reserved", h->reserved);
	json_u64(j, "id", h->id);
	cli_lockers_json(j, "lockers", l, n);
	json_object_end(j);
	json_end(j);
}

/* "300000 (293 KiB)" */
static const char *size_text(uint64_t v, char buf[64])
{
	char human[32];

	fmt_size(v, human);
	snprintf(buf, 64, v < 1024 ? "%" PRIu64 : "%" PRIu64 " (%s)", v, human);
	return buf;
}

static void stat_plain(const struct cli *c, const struct striped_head *h,
		       const struct cli_locker *l, int n)
{
	uint64_t count = 0, to_mark = 0;
	char a[64], b[64], when[64];

	striped_layout_object_count(&h->layout, h->size, &count);
	striped_layout_object_count(&h->layout, h->reserved, &to_mark);
	fmt_time(&h->mtime, when);
	printf("name: %s\n", c->a.file);
	printf("size: %s in %" PRIu64 " objects\n", size_text(h->size, a), count);
	printf("layout: stripe_unit %" PRIu64 ", stripe_count %" PRIu64 ", object_size %" PRIu64
	       "\n",
	       h->layout.stripe_unit, h->layout.stripe_count, h->layout.object_size);
	if (!h->reserved)
		printf("mark: none (striper.reserved unset: a libradosstriper file, or "
		       "libstriped's before 0.5)\n");
	else if (h->reserved > h->size)
		printf("mark: %s, %" PRIu64 " objects (striper.reserved): objects past the size "
		       "up to it may hold bytes of writes that failed or were in flight when "
		       "their client died; `striped check` finds them\n",
		       size_text(h->reserved, b), to_mark);
	else
		printf("mark: %s (striper.reserved): nothing can lie past the size\n",
		       size_text(h->reserved, b));
	printf("id: %" PRIu64 "%s\n", h->id, h->id ? "" : " (none: libradosstriper made it)");
	printf("mtime: %s\n", when);
	if (!n) {
		printf("lock: not held\n");
		return;
	}
	printf("lock: %s, %d holder%s\n", l[0].exclusive ? "exclusive" : "shared", n,
	       n > 1 ? "s" : "");
	for (int i = 0; i < n; i++)
		printf("  %s  %s  cookie %s  %s\n", l[i].client, l[i].address, l[i].cookie,
		       cli_owner_name(l[i].owner));
}

static int stat_run(struct cli *c)
{
	struct cli_locker l[CLI_LOCKERS_MAX];
	struct striped_head h;
	int n, r = striped_head_read(c->io, c->a.file, &h, sizeof(h));

	if (r)
		return cli_fail(c, r, "stat %s", c->a.file);
	n = cli_lockers(c, c->a.file, l, CLI_LOCKERS_MAX);
	if (n < 0)
		return cli_fail(c, n, "stat %s: its lock", c->a.file);
	if (cli_json(c))
		stat_json(c, &h, l, n);
	else
		stat_plain(c, &h, l, n);
	return 0;
}

CLI_COMMAND(stat_command) = {
    .name = "stat",
    .synopsis = "stat NAME",
    .about = "Size, layout, high-water mark (striper.reserved), id, mtime and lock\n"
	     "holders of a file, read without taking its lock.",
    .min = 1,
    .max = 1,
    .query = true,
    .operands = cli_operand_file,
    .run = stat_run,
};
