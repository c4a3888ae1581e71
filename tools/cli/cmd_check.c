// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped check [--repair] [NAME...]: find the orphans of the pool's (or
 * namespace's) striped files. RADOS keeps no index, so it lists every
 * object, groups the names NAME.%016llx by NAME, and reads each group's
 * head (striped_head_read(), no lock):
 * - a file: its objects that hold bytes past its size (stat'ed: those of
 *   the size's object set and past it), up to its mark or past it;
 * - no head: every object of the group (a remove that stopped at the size,
 *   as libradosstriper's does, left them);
 * - a head with corrupt metadata: reported, never touched;
 * - an object of that name that is no striped file: not ours, skipped.
 * --repair hands each group's orphans to striped_repair(): a file's under
 * its exclusive lock, never a byte within its size. Objects without a head
 * are kept in a pool that RBD, CephFS or RGW use: RBD names its data
 * objects the same way.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* How many objects of a group the plain report names; JSON names them all. */
#define SHOWN_OBJECTS 10

struct entry {
	char *name; /* the file's */
	uint64_t objectno;
};

/* One object that holds bytes past its file's size. */
struct orphan {
	uint64_t objectno;
	uint64_t size;	/* the object's bytes */
	uint64_t keep;	/* how many of them lie within the file's size */
	bool past_mark; /* past the mark too: truncate and remove do not find it by name */
};

struct check {
	struct cli *c;
	struct entry *e;
	size_t n, cap;
	uint64_t objects, files, groups_with_orphans, orphans, orphan_bytes, corrupt;
	uint64_t repaired, failed;
	bool *named_seen;   /* check NAME...: which names had objects */
	bool repair;	    /* --repair */
	bool keep_headless; /* the pool is another application's too */
	char keep_why[64];
};

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : x->objectno < y->objectno ? -1 : x->objectno > y->objectno;
}

/* check NAME...: whether the group is asked for (and remember it was there). */
static bool wanted(struct check *k, const char *name, size_t len)
{
	if (!k->c->a.nfiles)
		return true;
	for (int i = 0; i < k->c->a.nfiles; i++) {
		const char *f = k->c->a.files[i];

		if (strlen(f) == len && !strncmp(f, name, len)) {
			k->named_seen[i] = true;
			return true;
		}
	}
	return false;
}

static int add_entry(struct check *k, const char *oid, size_t len, uint64_t objectno)
{
	char *name;

	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 1024;
		struct entry *more = realloc(k->e, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		k->e = more;
		k->cap = cap;
	}
	name = strndup(oid, len);
	if (!name)
		return -ENOMEM;
	k->e[k->n++] = (struct entry){name, objectno};
	return 0;
}

/* The walk's function: count every object, keep the striped files' asked for. */
static int see_object(void *arg, const char *oid)
{
	struct check *k = arg;
	uint64_t objectno;
	ssize_t len = striped_object_name_split(oid, &objectno);

	k->objects++;
	if (len > 0 && wanted(k, oid, (size_t)len))
		return add_entry(k, oid, (size_t)len, objectno);
	return 0;
}

/* Every object of the pool (namespace): the striped files' kept, sorted by file and number. */
static int list_objects(struct check *k)
{
	int r = striped_objects_walk(k->c->io, 0, see_object, k);

	if (r)
		return r;
	if (k->n > 1) /* k->e is NULL when nothing was kept */
		qsort(k->e, k->n, sizeof(k->e[0]), entry_cmp);
	return 0;
}

/* Headless objects look like RBD's data objects: kept in a pool another application uses. */
static void pool_applications(struct check *k)
{
	static const char *const others[] = {"rbd", "cephfs", "rgw"};
	char apps[1024];
	size_t len = sizeof(apps);

	if (rados_application_list(k->c->io, apps, &len) < 0)
		return;
	for (size_t at = 0; at < len && apps[at];) {
		for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
			if (!strcmp(apps + at, others[i])) {
				k->keep_headless = true;
				snprintf(k->keep_why, sizeof(k->keep_why), "%s", others[i]);
			}
		at += strlen(apps + at) + 1;
	}
}

static int object_bytes(struct check *k, const char *name, uint64_t objectno, uint64_t *size)
{
	char oid[4096];
	time_t mtime;

	striped_object_name(name, objectno, oid, sizeof(oid));
	return rados_stat(k->c->io, oid, size, &mtime);
}

/*
 * A file's objects that hold bytes past its size. Only the objects not
 * whole within the size are stat'ed: those of its size's object set and
 * past it.
 */
static int past_size(struct check *k, const char *name, const struct striped_head *h,
		     const uint64_t *nos, size_t n, struct orphan *out, size_t *found)
{
	uint64_t end = h->reserved > h->size ? h->reserved : h->size;

	*found = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t keep, at_mark, have;
		int r;

		striped_layout_object_size(&h->layout, nos[i], h->size, &keep);
		if (keep == h->layout.object_size)
			continue;
		r = object_bytes(k, name, nos[i], &have);
		if (r == -ENOENT) /* gone since the listing */
			continue;
		if (r)
			return r;
		if (have <= keep && (keep || nos[i] == 0))
			continue;
		striped_layout_object_size(&h->layout, nos[i], end, &at_mark);
		out[(*found)++] = (struct orphan){nos[i], have, keep, at_mark == 0};
	}
	return 0;
}

static int headless(struct check *k, const char *name, const uint64_t *nos, size_t n,
		    struct orphan *out, size_t *found)
{
	*found = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t have;
		int r = object_bytes(k, name, nos[i], &have);

		if (r == -ENOENT)
			continue;
		if (r)
			return r;
		out[(*found)++] = (struct orphan){nos[i], have, 0, false};
	}
	return 0;
}

/* ---- the report ---- */

static void orphans_json(struct json *j, const struct orphan *o, size_t n)
{
	json_array_begin(j, "objects");
	for (size_t i = 0; i < n; i++) {
		json_object_begin(j, NULL);
		json_u64(j, "objectno", o[i].objectno);
		json_u64(j, "size", o[i].size);
		json_u64(j, "keep", o[i].keep);
		json_bool(j, "past_mark", o[i].past_mark);
		json_object_end(j);
	}
	json_array_end(j);
}

static void orphan_plain(const char *name, const struct orphan *o)
{
	char oid[4096];

	striped_object_name(name, o->objectno, oid, sizeof(oid));
	printf("  %s  %" PRIu64 " bytes", oid, o->size);
	if (o->keep)
		printf(", %" PRIu64 " of them past the size", o->size - o->keep);
	printf("%s\n", o->past_mark ? " (past the mark: only a listing finds it)" : "");
}

/*
 * The objects past the mark come first: truncate and remove never find
 * them by name, so of a long list they are the ones an operator must see.
 */
static void orphans_plain(const char *name, const struct orphan *o, size_t n)
{
	size_t shown = 0;

	for (int past_mark = 1; past_mark >= 0; past_mark--)
		for (size_t i = 0; i < n && shown < SHOWN_OBJECTS; i++)
			if (o[i].past_mark == past_mark) {
				orphan_plain(name, &o[i]);
				shown++;
			}
	if (n > shown)
		printf("  ... and %zu more (--format json lists them all)\n", n - shown);
}

static void file_plain(struct check *k, const char *name, const struct striped_head *h,
		       const struct orphan *o, size_t n, const struct cli_locker *l, int nl)
{
	char who[400];

	printf("%s: %zu object%s with bytes past its size (%" PRIu64 ")", name, n, plural(n),
	       h->size);
	if (h->reserved > h->size)
		printf(", its mark is %" PRIu64, h->reserved);
	printf(":\n");
	orphans_plain(name, o, n);
	printf("  Left by writes that failed or were in flight when their client died.\n");
	if (nl > 0)
		cli_locker_text(&l[0], who, sizeof(who));
	if (nl > 0 && l[0].owner == STRIPED_LOCKER_LIBSTRIPED)
		printf("  Its lock is held by %s%s: a live writer may be writing them now;\n"
		       "  --repair asks the holders to let go first (a silent one is fenced).\n",
		       who, nl > 1 ? " and others" : "");
	else if (nl > 0)
		printf("  Its lock is held by %s%s: such a holder that stays is a client that\n"
		       "  died; --repair waits for it, then fails: break its lock first (`%s lock "
		       "break %s COOKIE`).\n",
		       who, nl > 1 ? " and others" : "", k->c->prog, name);
	if (k->repair)
		cli_say(k->c, "  Removing them under the file's exclusive lock, taken as truncate "
			      "takes it: no byte within its size changes.");
}

static void headless_plain(struct check *k, const char *name, const struct orphan *o, size_t n)
{
	printf("%s: %zu object%s without a head (%s.0000000000000000 is gone): a remove "
	       "stopped at the size, as `rados --striper rm` does, and left them:\n",
	       name, n, plural(n), name);
	orphans_plain(name, o, n);
	if (k->repair && k->keep_headless)
		printf("  Kept: the pool serves %s too, whose objects are named so.\n",
		       k->keep_why);
	else if (k->repair)
		cli_say(k->c, "  Removing them, each only if it did not change since its head "
			      "was found missing.");
}

/* One group's finding in JSON, without its closing brace (the repair's outcome follows). */
static void finding_json(struct check *k, const char *kind, const char *name)
{
	json_object_begin(&k->c->json, NULL);
	json_string(&k->c->json, "name", name);
	json_string(&k->c->json, "kind", kind);
}

/* ---- the repair ---- */

/* One line for a repair that failed; a busy file's holders named. */
static void repair_failed(struct check *k, const char *name, int r, char *err, size_t len)
{
	char who[400] = "";
	bool held = r == -EBUSY && cli_holder_text(k->c, name, who, sizeof(who));

	snprintf(err, len, "%s", strerror(-r));
	k->failed++;
	if (held)
		cli_fail(k->c, r,
			 "check --repair %s: held by %s; a dead client's lock goes with `%s "
			 "lock break`",
			 name, who, k->c->prog);
	else
		cli_fail(k->c, r, "check --repair %s", name);
}

static void repair(struct check *k, const char *name, const struct orphan *o, size_t n)
{
	uint64_t *nos = malloc(n * sizeof(*nos));
	char err[256] = "";
	int r = nos ? 0 : -ENOMEM;

	for (size_t i = 0; nos && i < n; i++)
		nos[i] = o[i].objectno;
	if (!r)
		r = striped_repair(k->c->io, name, nos, n);
	free(nos);
	if (r)
		repair_failed(k, name, r, err, sizeof(err));
	else
		k->repaired++;
	if (cli_json(k->c)) {
		json_bool(&k->c->json, "repaired", r == 0);
		if (r)
			json_string(&k->c->json, "error", err);
	}
}

/* ---- one group of objects: NAME.%016llx for one NAME ---- */

static void count_orphans(struct check *k, const struct orphan *o, size_t n)
{
	k->groups_with_orphans++;
	k->orphans += n;
	for (size_t i = 0; i < n; i++)
		k->orphan_bytes += o[i].size - o[i].keep;
}

static int check_file(struct check *k, const char *name, const struct striped_head *h,
		      const uint64_t *nos, size_t n, struct orphan *o)
{
	struct cli_locker l[CLI_LOCKERS_MAX];
	size_t found;
	int nl, r = past_size(k, name, h, nos, n, o, &found);

	if (r || !found)
		return r;
	nl = cli_lockers(k->c, name, l, CLI_LOCKERS_MAX);
	if (nl < 0)
		return nl;
	count_orphans(k, o, found);
	if (cli_json(k->c)) {
		finding_json(k, "past_size", name);
		json_u64(&k->c->json, "size", h->size);
		json_u64(&k->c->json, "reserved", h->reserved);
		orphans_json(&k->c->json, o, found);
		cli_lockers_json(&k->c->json, "lockers", l, nl);
	} else {
		file_plain(k, name, h, o, found, l, nl);
	}
	if (k->repair)
		repair(k, name, o, found);
	if (cli_json(k->c))
		json_object_end(&k->c->json);
	return 0;
}

static int check_headless(struct check *k, const char *name, const uint64_t *nos, size_t n,
			  struct orphan *o)
{
	size_t found;
	int r = headless(k, name, nos, n, o, &found);

	if (r || !found)
		return r;
	count_orphans(k, o, found);
	if (cli_json(k->c)) {
		finding_json(k, "headless", name);
		orphans_json(&k->c->json, o, found);
	} else {
		headless_plain(k, name, o, found);
	}
	if (k->repair && !k->keep_headless)
		repair(k, name, o, found);
	else if (k->repair && cli_json(k->c))
		json_string(&k->c->json, "kept", k->keep_why);
	if (cli_json(k->c))
		json_object_end(&k->c->json);
	return 0;
}

static void report_corrupt(struct check *k, const char *name, size_t n, int r)
{
	k->corrupt++;
	if (cli_json(k->c)) {
		finding_json(k, "corrupt_head", name);
		json_string(&k->c->json, "error", strerror(-r));
		json_u64(&k->c->json, "objects", n);
		json_object_end(&k->c->json);
		return;
	}
	printf("%s: its head has corrupt metadata (%s): %zu object%s left as %s, never "
	       "repaired; `rados -p %s listxattr %s.0000000000000000` shows it\n",
	       name, strerror(-r), n, plural(n), n > 1 ? "they are" : "it is", k->c->a.pool, name);
}

/* A failure of the check itself (not of a repair): one line, and the check stops. */
static int check_group(struct check *k, const char *name, const uint64_t *nos, size_t n)
{
	struct striped_head h;
	struct orphan *o = calloc(n, sizeof(*o));
	int r = o ? striped_head_read(k->c->io, name, &h, sizeof(h)) : -ENOMEM;

	if (!r) {
		k->files++;
		r = check_file(k, name, &h, nos, n, o);
	} else if (r == -ENOENT) {
		r = check_headless(k, name, nos, n, o);
	} else if (r == -EUCLEAN) {
		report_corrupt(k, name, n, r);
		r = 0;
	} else if (r == -ENODATA) { /* an object so named that is no striped file */
		r = 0;
	}
	free(o);
	return r ? cli_fail(k->c, r, "check %s", name) : 0;
}

static int check_groups(struct check *k)
{
	uint64_t *nos = malloc((k->n ? k->n : 1) * sizeof(*nos));
	int r = nos ? 0 : cli_fail(k->c, -ENOMEM, "check");

	for (size_t i = 0, j; !r && i < k->n; i = j) {
		for (j = i; j < k->n && !strcmp(k->e[j].name, k->e[i].name); j++)
			nos[j - i] = k->e[j].objectno;
		r = check_group(k, k->e[i].name, nos, j - i);
	}
	free(nos);
	return r;
}

static void summary(struct check *k)
{
	const struct cli_args *a = &k->c->a;
	char human[32];

	if (cli_json(k->c)) {
		json_u64(&k->c->json, "objects", k->objects);
		json_u64(&k->c->json, "files", k->files);
		json_u64(&k->c->json, "orphans", k->orphans);
		json_u64(&k->c->json, "orphan_bytes", k->orphan_bytes);
		json_u64(&k->c->json, "corrupt_heads", k->corrupt);
		return;
	}
	fmt_size(k->orphan_bytes, human);
	printf("Checked %" PRIu64 " objects of pool %s%s%s%s: %" PRIu64 " striped file%s.\n",
	       k->objects, a->pool, a->nspace ? " (namespace " : "", a->nspace ? a->nspace : "",
	       a->nspace ? ")" : "", k->files, plural(k->files));
	if (!k->groups_with_orphans)
		printf("No orphans.\n");
	else if (!k->repair)
		printf("%" PRIu64 " file%s with orphans: %" PRIu64 " object%s, %s past the size. "
		       "`%s check --repair` removes them.\n",
		       k->groups_with_orphans, plural(k->groups_with_orphans), k->orphans,
		       plural(k->orphans), human, k->c->prog);
	else
		printf("Removed the orphans of %" PRIu64 " of %" PRIu64 " file%s.\n", k->repaired,
		       k->groups_with_orphans, plural(k->groups_with_orphans));
	if (k->corrupt)
		printf("%" PRIu64 " head%s with corrupt metadata, left as %s.\n", k->corrupt,
		       plural(k->corrupt), k->corrupt > 1 ? "they are" : "it is");
}

/* check NAME... naming a file with no object at all: one line each. */
static int named_missing(struct check *k)
{
	int r = 0;

	for (int i = 0; i < k->c->a.nfiles; i++)
		if (!k->named_seen[i])
			r = cli_fail(k->c, -ENOENT, "check %s", k->c->a.files[i]);
	return r;
}

static int check_run(struct cli *c)
{
	struct check k = {.c = c, .repair = cli_given(&c->a, 'R')};
	int r;

	k.named_seen = calloc((size_t)c->a.nfiles + 1, sizeof(bool));
	if (!k.named_seen)
		return cli_fail(c, -ENOMEM, "check");
	pool_applications(&k);
	r = list_objects(&k);
	if (r)
		r = cli_fail(c, r, "check: listing the pool");
	if (!r && cli_json(c)) {
		json_object_begin(&c->json, NULL);
		json_string(&c->json, "pool", c->a.pool);
		json_string(&c->json, "namespace", c->a.nspace ? c->a.nspace : "");
		json_array_begin(&c->json, "findings");
	}
	if (!r)
		r = check_groups(&k);
	if (!r && cli_json(c))
		json_array_end(&c->json);
	if (!r)
		summary(&k);
	if (!r && cli_json(c)) {
		json_object_end(&c->json);
		json_end(&c->json);
	}
	if (!r)
		r = named_missing(&k);
	for (size_t i = 0; i < k.n; i++)
		free(k.e[i].name);
	free(k.e);
	free(k.named_seen);
	return r ? r : k.failed ? 1 : 0;
}

/* [NAME...]: only these files */
static int check_operands(struct cli_args *a, char **ops, int n, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	a->files = ops;
	a->nfiles = n;
	return 0;
}

static const struct cli_option check_options[] = {
    {'R', false, "repair", NULL, "remove the orphans found"},
    {0},
};

CLI_COMMAND(check_command) = {
    .name = "check",
    .synopsis = "check [--repair] [NAME...]",
    .about = "Find orphans: objects past a file's size (up to its mark, or past it),\n"
	     "objects whose head is missing, heads with corrupt metadata. --repair\n"
	     "removes the orphans: a file's under its exclusive lock, never a byte\n"
	     "within its size; a corrupt head is only reported.",
    .options = check_options,
    .min = 0,
    .max = -1,
    .query = true,
    .operands = check_operands,
    .run = check_run,
};
