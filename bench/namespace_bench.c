// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Case "namespace" of bench/run: what the namespace index saves a listing
 * and what it costs a writer.
 *
 * usage: namespace_bench fill POOL --objects N --files M
 *        namespace_bench churn POOL --files K [--ns NS] --indexed 0|1
 *
 * fill: N empty objects "big/f%08u.0000000000000000" in the default
 * namespace, FILL_DEPTH in flight. Named as heads, they are one directory
 * of N names to the index, while to a walk they make the pool N objects
 * big; empty raw objects are the cheapest way to both. Then M real striped
 * files "d100/f%03u" of 4 KiB (striped_head_create()): the small directory
 * whose listing is timed. Prints one JSON line.
 *
 * churn: K files "churn/f%06u" of 4 KiB made one after another with
 * striped_head_create(), then removed one after another with
 * striped_remove(), in namespace NS of POOL: a writer's cost of keeping the
 * index, against a namespace that has none. --indexed says which NS must
 * be, so that a run that measured the wrong one fails rather than reports
 * a ratio near 1. Prints two JSON lines, op "create" and op "remove".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <striped.h>

#define FILL_DEPTH 128
#define FILE_BYTES 4096

struct opts {
	const char *cmd, *pool, *ns;
	unsigned objects, files;
	int indexed; /* churn: -1 until given */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait for the write of a slot (if any), keep the first error, free the slot. */
static int slot_drain(rados_completion_t *c, int r)
{
	int rr;

	if (!*c)
		return r;
	rados_aio_wait_for_complete(*c);
	rr = rados_aio_get_return_value(*c);
	rados_aio_release(*c);
	*c = NULL;
	return r ? r : rr;
}

/*
 * FILL_DEPTH writes kept in flight: slot i % FILL_DEPTH is drained just
 * before it is used again, so one slow write delays only its own slot.
 */
static int fill_objects(rados_ioctx_t io, unsigned n)
{
	rados_completion_t c[FILL_DEPTH] = {0};
	char oid[64];
	int r = 0;

	for (unsigned i = 0; i < n + FILL_DEPTH; i++) {
		rados_completion_t *s = &c[i % FILL_DEPTH];

		r = slot_drain(s, r);
		if (i >= n || r)
			continue;
		snprintf(oid, sizeof(oid), "big/f%08u.0000000000000000", i);
		r = rados_aio_create_completion2(NULL, NULL, s);
		if (r)
			continue;
		r = rados_aio_write_full(io, oid, *s, "", 0);
		if (r) {
			rados_aio_release(*s);
			*s = NULL;
		}
	}
	return r;
}

static int create_files(rados_ioctx_t io, const char *fmt, unsigned n)
{
	char buf[FILE_BYTES], name[64];

	memset(buf, 'n', sizeof(buf));
	for (unsigned i = 0; i < n; i++) {
		int r;

		snprintf(name, sizeof(name), fmt, i);
		r = striped_head_create(io, name, NULL, buf, sizeof(buf), NULL, 0);
		if (r) {
			fprintf(stderr, "namespace_bench: create %s: %s\n", name, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* The first n files of fmt removed; stops at the first error unless best_effort. */
static int remove_files(rados_ioctx_t io, const char *fmt, unsigned n, int best_effort)
{
	char name[64];
	int first = 0;

	for (unsigned i = 0; i < n; i++) {
		int r;

		snprintf(name, sizeof(name), fmt, i);
		r = striped_remove(io, name);
		if (r && !best_effort) {
			fprintf(stderr, "namespace_bench: remove %s: %s\n", name, strerror(-r));
			return r;
		}
		if (r && !first)
			first = r;
	}
	return first;
}

static int run_fill(rados_ioctx_t io, const struct opts *o)
{
	double t0 = now(), t1;
	int r = fill_objects(io, o->objects);

	if (r) {
		fprintf(stderr, "namespace_bench: fill: %s\n", strerror(-r));
		return 1;
	}
	t1 = now();
	if (create_files(io, "d100/f%03u", o->files))
		return 1;
	printf("{\"system\": \"fill\", \"op\": \"fill\", \"objects\": %u, \"files\": %u, "
	       "\"seconds\": %.6f, \"objects_per_s\": %.1f, \"files_seconds\": %.6f}\n",
	       o->objects, o->files, t1 - t0, (double)o->objects / (t1 - t0), now() - t1);
	return 0;
}

static void print_rate(const struct opts *o, const char *op, double secs)
{
	printf("{\"system\": \"%s\", \"op\": \"%s\", \"namespace\": \"%s\", \"files\": %u, "
	       "\"bytes_each\": %d, \"seconds\": %.6f, \"per_s\": %.1f}\n",
	       o->indexed ? "indexed" : "unindexed", op, o->ns, o->files, FILE_BYTES, secs,
	       (double)o->files / secs);
}

/* Whether io's namespace has a ready index, as a listing would read it. */
static int is_indexed(rados_ioctx_t io)
{
	struct striped_index_info info;
	int r = striped_index_stat(io, 0, &info, sizeof(info));

	return r < 0 ? r : info.state == STRIPED_INDEX_READY;
}

static int run_churn(rados_ioctx_t io, const struct opts *o)
{
	const char *fmt = "churn/f%06u";
	double t0, t1, t2;
	int r = is_indexed(io);

	if (r != o->indexed) {
		fprintf(stderr, "namespace_bench: namespace \"%s\": index %s, expected %s\n", o->ns,
			r < 0 ? strerror(-r) : r ? "ready" : "none or not ready",
			o->indexed ? "ready" : "none");
		return 1;
	}
	t0 = now();
	if (create_files(io, fmt, o->files)) {
		/* a later repetition would find them: -EEXIST */
		remove_files(io, fmt, o->files, 1);
		return 1;
	}
	t1 = now();
	if (remove_files(io, fmt, o->files, 0)) {
		remove_files(io, fmt, o->files, 1);
		return 1;
	}
	t2 = now();
	print_rate(o, "create", t1 - t0);
	print_rate(o, "remove", t2 - t1);
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	if (argc < 3)
		return -1;
	o->cmd = argv[1];
	o->pool = argv[2];
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--objects"))
			o->objects = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--files"))
			o->files = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--ns"))
			o->ns = argv[i + 1];
		else if (!strcmp(argv[i], "--indexed"))
			o->indexed = atoi(argv[i + 1]) != 0;
		else
			return -1;
	}
	if (!strcmp(o->cmd, "fill"))
		return 0;
	if (!strcmp(o->cmd, "churn") && o->files && o->indexed >= 0)
		return 0;
	return -1;
}

int main(int argc, char **argv)
{
	struct opts o = {.ns = "", .objects = 0, .files = 100, .indexed = -1};
	rados_t rados;
	rados_ioctx_t io;
	int rc;

	if (parse(argc, argv, &o)) {
		fprintf(stderr,
			"usage: namespace_bench fill POOL --objects N --files M\n"
			"       namespace_bench churn POOL --files K [--ns NS] --indexed 0|1\n");
		return 2;
	}
	if (rados_create2(&rados, "ceph", "client.admin", 0) || rados_conf_read_file(rados, NULL) ||
	    rados_connect(rados)) {
		fprintf(stderr, "namespace_bench: cannot connect (CEPH_CONF?)\n");
		return 1;
	}
	if (rados_ioctx_create(rados, o.pool, &io)) {
		fprintf(stderr, "namespace_bench: no pool %s\n", o.pool);
		rados_shutdown(rados);
		return 1;
	}
	rados_ioctx_set_namespace(io, o.ns);
	rc = strcmp(o.cmd, "fill") ? run_churn(io, &o) : run_fill(io, &o);
	rados_ioctx_destroy(io);
	rados_shutdown(rados);
	return rc;
}
