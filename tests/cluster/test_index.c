// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The namespace index (striped_index_*, striped_list_open2()) on the
 * sandbox cluster: made from a walk, kept by every kind of create and
 * remove, read by listings that say exactly what the walk says (prefix,
 * one level, continuation) for the files there; another connection that
 * learns of it within STRIPED_INDEX_NOTICE_S; files of writers that do not
 * know it found and mended by check and repair, entries whose file is gone
 * left out of listings with sizes; an erasure-coded pool with its index in
 * a replicated pool; a creator killed mid-create leaves no file unlisted;
 * bad input refused, a damaged entry an error, never a wrong listing. Each
 * test works in a namespace of its own.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "cluster_fixture.h"
#include "striped.h"

static struct cluster cl;

static rados_ioctx_t namespace_io(rados_t rados, const char *pool, const char *ns)
{
	rados_ioctx_t io;

	assert_int_equal(rados_ioctx_create(rados, pool, &io), 0);
	rados_ioctx_set_namespace(io, ns);
	return io;
}

static void make(rados_ioctx_t io, const char *name)
{
	assert_int_equal(striped_head_create(io, name, NULL, name, strlen(name), NULL, 0), 0);
}

/* A listing, one line per entry ("name size" or "name/ PRE"), into buf. */
static void listing(rados_ioctx_t io, const char *prefix, const char *delim, const char *after,
		    unsigned flags, char *buf, size_t cap, int *indexed)
{
	struct striped_list_query q = {prefix, delim, after, flags};
	struct striped_list_entry e;
	struct striped_list *it;
	size_t at = 0;

	assert_int_equal(striped_list_open2(io, &q, sizeof(q), &it), 0);
	if (indexed)
		*indexed = striped_list_is_indexed(it);
	buf[0] = 0;
	for (;;) {
		assert_int_equal(striped_list_next2(it, &e, sizeof(e)), 0);
		if (!e.name)
			break;
		at += (size_t)snprintf(buf + at, cap - at, "%s %s\n", e.name,
				       e.is_prefix ? "PRE" : "file");
		assert_true(at < cap);
	}
	striped_list_close(it);
}

/* The index's listing and the walk's, the same for this query. */
static void same_as_walk(rados_ioctx_t io, const char *prefix, const char *delim, const char *after)
{
	static char a[65536], b[65536];
	int indexed = -1, walked = -1;

	listing(io, prefix, delim, after, 0, a, sizeof(a), &indexed);
	listing(io, prefix, delim, after, STRIPED_LIST_NO_INDEX, b, sizeof(b), &walked);
	assert_int_equal(indexed, 1);
	assert_int_equal(walked, 0);
	if (strcmp(a, b))
		fail_msg("prefix '%s' delimiter %s after '%s':\nindex:\n%swalk:\n%s", prefix,
			 delim ? delim : "none", after ? after : "", a, b);
}

static const char *const tree[] = {
    "top", "a/x", "a/b/c1", "a/b/c2", "a/b-x", "a/b0", "a/b/deep/er/f", "d/", "d/in", "z z/q", "a/b/",
};
#define TREE (sizeof(tree) / sizeof(tree[0]))

static void queries_match_walk(rados_ioctx_t io)
{
	static const char *const prefixes[] = {"", "a/", "a/b", "a/b/", "d/", "zz", "a/b/deep/"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		same_as_walk(io, prefixes[i], NULL, NULL);
		same_as_walk(io, prefixes[i], "/", NULL);
	}
	/* a continuation from every kind of place: a file, a directory, past the end */
	for (size_t i = 0; i < TREE; i++) {
		same_as_walk(io, "", NULL, tree[i]);
		same_as_walk(io, "", "/", tree[i]);
		same_as_walk(io, "a/", "/", tree[i]);
	}
	same_as_walk(io, "", NULL, "a/b/c");
	same_as_walk(io, "a/", "/", "a/b/");
}

static void test_index_kept_by_every_writer(void **state)
{
	char ns[64];
	rados_ioctx_t io;
	struct striped_index_info info;
	struct striped_file *f;
	struct striped_head h;

	(void)state;
	unique_name(ns, sizeof(ns), "index");
	io = namespace_io(cl.rados, cl.pool, ns);
	for (size_t i = 0; i < TREE / 2; i++) /* half before the index: the walk finds them */
		make(io, tree[i]);
	assert_int_equal(striped_index_stat(io, 0, &info, sizeof(info)), 0);
	assert_int_equal(info.state, STRIPED_INDEX_NONE);
	assert_int_equal(striped_index_create(io, NULL, 4), 0);
	assert_int_equal(striped_index_stat(io, 1, &info, sizeof(info)), 0);
	assert_int_equal(info.state, STRIPED_INDEX_READY);
	assert_int_equal(info.shards, 4);
	assert_string_equal(info.pool, cl.pool);
	assert_true(info.entries >= TREE / 2);
	for (size_t i = TREE / 2; i < TREE; i++) /* the rest after it: each create keeps it */
		make(io, tree[i]);
	queries_match_walk(io);

	/* an open that creates, a remove by name, a remove as read */
	assert_int_equal(striped_open(io, "a/b/opened", STRIPED_CREATE, NULL, &f), 0);
	striped_close(f);
	same_as_walk(io, "a/b/", "/", NULL);
	assert_int_equal(striped_remove(io, "a/x"), 0);
	assert_int_equal(striped_head_read(io, "top", &h, sizeof(h)), 0);
	assert_int_equal(striped_head_remove(io, "top", &h, sizeof(h)), 0);
	assert_int_equal(striped_remove(io, "a/b/opened"), 0);
	queries_match_walk(io);
	assert_int_equal(striped_index_check(io, 0, NULL, NULL), 0);

	/* a directory stays listed after its last file, until its marker goes while empty */
	assert_int_equal(striped_remove(io, "d/in"), 0);
	assert_int_equal(striped_remove(io, "d/"), 0);
	same_as_walk(io, "", "/", NULL);

	for (size_t i = 0; i < TREE; i++)
		(void)striped_remove(io, tree[i]);
	assert_int_equal(striped_index_drop(io), 0);
	assert_int_equal(striped_index_stat(io, 0, &info, sizeof(info)), 0);
	assert_int_equal(info.state, STRIPED_INDEX_NONE);
	assert_int_equal(striped_index_drop(io), -ENOENT);
	rados_ioctx_destroy(io);
}

/* Another client (its own connection) learns of the index within the notice it promises. */
static void test_index_noticed_by_another_client(void **state)
{
	struct cluster other;
	rados_ioctx_t io, oio;
	char ns[64];

	(void)state;
	cluster_connect(&other);
	unique_name(ns, sizeof(ns), "index-notice");
	io = namespace_io(cl.rados, cl.pool, ns);
	oio = namespace_io(other.rados, other.pool, ns);
	make(oio, "before/one"); /* the other client now knows there is no index */
	assert_int_equal(striped_index_create(io, NULL, 0), 0);
	make(oio, "after/two");
	same_as_walk(io, "", NULL, NULL);
	same_as_walk(io, "", "/", NULL);
	assert_int_equal(striped_index_check(io, 0, NULL, NULL), 0);
	assert_int_equal(striped_remove(oio, "before/one"), 0);
	assert_int_equal(striped_remove(oio, "after/two"), 0);
	assert_int_equal(striped_index_drop(io), 0);
	rados_ioctx_destroy(oio);
	rados_ioctx_destroy(io);
	cluster_disconnect(&other);
}

struct diffs {
	char seen[4096];
	size_t at;
};

static int note_diff(void *arg, const char *name, int kind)
{
	struct diffs *d = arg;

	d->at += (size_t)snprintf(d->seen + d->at, sizeof(d->seen) - d->at, "%s %s\n",
				  kind == STRIPED_INDEX_MISSING ? "missing" : "stale", name);
	return 0;
}

/* key out of shard SHARD of directory dir's index, by hand (as a damaged index would lack it). */
static void remove_key(rados_ioctx_t io, int shard, const char *dir, const char *key)
{
	rados_write_op_t op = rados_create_write_op();
	size_t klen = strlen(key);
	char oid[256];

	snprintf(oid, sizeof(oid), "striped.dir.%lld.%d.%s", (long long)rados_ioctx_get_id(io), shard,
		 dir);
	rados_write_op_omap_rm_keys2(op, &key, &klen, 1);
	(void)rados_write_op_operate(op, io, oid, NULL, 0); /* -ENOENT: a shard never written */
	rados_release_write_op(op);
}

/*
 * A stock writer's file (a head written by hand as libradosstriper writes
 * one) is missing from the index, a head removed by hand leaves a stale
 * entry: listings with sizes leave it out, check finds both, repair mends.
 */
static void test_index_check_and_repair(void **state)
{
	struct diffs d = {0};
	char ns[64], buf[4096];
	rados_ioctx_t io;

	(void)state;
	unique_name(ns, sizeof(ns), "index-check");
	io = namespace_io(cl.rados, cl.pool, ns);
	assert_int_equal(striped_index_create(io, NULL, 2), 0);
	make(io, "dir/kept");
	make(io, "dir/gone");
	assert_int_equal(rados_remove(io, "dir/gone.0000000000000000"), 0);
	assert_int_equal(rados_write_full(io, "dir/stock.0000000000000000", "abc", 3), 0);
	assert_int_equal(rados_setxattr(io, "dir/stock.0000000000000000", "striper.size", "3", 1), 0);

	listing(io, "dir/", "/", NULL, 0, buf, sizeof(buf), NULL);
	assert_string_equal(buf, "dir/kept file\n");
	listing(io, "dir/", "/", NULL, STRIPED_LIST_NAMES_ONLY, buf, sizeof(buf), NULL);
	assert_string_equal(buf, "dir/gone file\ndir/kept file\n");

	assert_int_equal(striped_index_check(io, 0, note_diff, &d), 2);
	assert_string_equal(d.seen, "stale dir/gone\nmissing dir/stock\n");
	d.at = 0;
	assert_int_equal(striped_index_check(io, 1, note_diff, &d), 2);
	assert_int_equal(striped_index_check(io, 0, NULL, NULL), 0);
	same_as_walk(io, "dir/", "/", NULL);

	/* a directory's entry removed by hand: no listing reaches its files, which are missing */
	for (int shard = 0; shard < 2; shard++)
		remove_key(io, shard, "", "dir/");
	d.at = 0;
	assert_int_equal(striped_index_check(io, 1, note_diff, &d), 2);
	assert_string_equal(d.seen, "missing dir/kept\nmissing dir/stock\n");
	assert_int_equal(striped_index_check(io, 0, NULL, NULL), 0);
	same_as_walk(io, "", "/", NULL);
	assert_int_equal(striped_remove(io, "dir/kept"), 0);
	assert_int_equal(rados_remove(io, "dir/stock.0000000000000000"), 0); /* no layout: by hand */
	assert_int_equal(striped_index_drop(io), 0);
	rados_ioctx_destroy(io);
}

/* An erasure-coded pool keeps no omap: its index goes to a replicated pool. */
static void test_index_erasure_coded_pool(void **state)
{
	const char *pool = getenv("STRIPED_TEST_EC_POOL");
	struct striped_index_info info;
	char ns[64];
	rados_ioctx_t io;

	(void)state;
	if (!pool)
		skip();
	unique_name(ns, sizeof(ns), "index-ec");
	io = namespace_io(cl.rados, pool, ns);
	make(io, "e/one");
	assert_int_equal(striped_index_create(io, NULL, 0), -EOPNOTSUPP);
	assert_int_equal(striped_index_create(io, cl.pool, 0), 0);
	assert_int_equal(striped_index_stat(io, 1, &info, sizeof(info)), 0);
	assert_string_equal(info.pool, cl.pool);
	assert_int_equal(info.shards, STRIPED_INDEX_SHARDS_DEFAULT);
	make(io, "e/two");
	same_as_walk(io, "", NULL, NULL);
	same_as_walk(io, "e/", "/", NULL);
	assert_int_equal(striped_remove(io, "e/one"), 0);
	assert_int_equal(striped_remove(io, "e/two"), 0);
	same_as_walk(io, "e/", "/", NULL);
	assert_int_equal(striped_index_drop(io), 0);
	rados_ioctx_destroy(io);
}

/* Names listed a page at a time, each page from where the last ended: all, once, in order. */
static void test_index_continuation_pages(void **state)
{
	static char all[65536], paged[65536];
	char ns[64], name[64], last[256] = "";
	rados_ioctx_t io;
	size_t at = 0;

	(void)state;
	unique_name(ns, sizeof(ns), "index-pages");
	io = namespace_io(cl.rados, cl.pool, ns);
	assert_int_equal(striped_index_create(io, NULL, 3), 0);
	for (unsigned i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "p/%u/%s%u", i % 4, i % 2 ? "f" : "g/h", i);
		make(io, name);
	}
	listing(io, "p/", NULL, NULL, STRIPED_LIST_NAMES_ONLY, all, sizeof(all), NULL);
	for (;;) { /* pages of 7 */
		struct striped_list_query q = {"p/", NULL, last[0] ? last : NULL, 0};
		struct striped_list_entry e;
		struct striped_list *it;
		int n = 0;

		assert_int_equal(striped_list_open2(io, &q, sizeof(q), &it), 0);
		while (n < 7 && !striped_list_next2(it, &e, sizeof(e)) && e.name) {
			at += (size_t)snprintf(paged + at, sizeof(paged) - at, "%s file\n", e.name);
			snprintf(last, sizeof(last), "%s", e.name);
			n++;
		}
		striped_list_close(it);
		if (n < 7)
			break;
	}
	assert_string_equal(paged, all);
	same_as_walk(io, "p/", NULL, NULL);
	for (unsigned i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "p/%u/%s%u", i % 4, i % 2 ? "f" : "g/h", i);
		assert_int_equal(striped_remove(io, name), 0);
	}
	assert_int_equal(striped_index_drop(io), 0);
	rados_ioctx_destroy(io);
}

static int count_missing(void *arg, const char *name, int kind)
{
	(void)name;
	*(int *)arg += kind == STRIPED_INDEX_MISSING;
	return 0;
}

/* Every file of io's namespace removed (the walk's listing: stale entries aside). */
static void remove_all(rados_ioctx_t io)
{
	struct striped_list_query q = {NULL, NULL, NULL, STRIPED_LIST_NO_INDEX | STRIPED_LIST_NAMES_ONLY};
	struct striped_list_entry e;
	struct striped_list *it;

	assert_int_equal(striped_list_open2(io, &q, sizeof(q), &it), 0);
	while (!striped_list_next2(it, &e, sizeof(e)) && e.name)
		assert_int_equal(striped_remove(io, e.name), 0);
	striped_list_close(it);
}

/*
 * Creators killed at any point (their own processes and connections): an
 * entry without its file may stay, and the listing with sizes leaves it
 * out; a file the index misses can be left only by a creator killed
 * between its entry's send and its head's (striped.h, operators.md: what
 * check finds, repair mends), at most one a creator. After a repair, none, and the
 * listing is the walk's.
 */
static void test_index_killed_creators(void **state)
{
	char ns[64], seed[16], line[16];
	rados_ioctx_t io;
	int missing = 0;

	(void)state;
	if (!getenv("STRIPED_INDEX_CREATOR"))
		skip();
	unique_name(ns, sizeof(ns), "index-kill");
	io = namespace_io(cl.rados, cl.pool, ns);
	assert_int_equal(striped_index_create(io, NULL, 0), 0);
	for (unsigned k = 0; k < 8; k++) {
		int fd;
		pid_t pid;

		snprintf(seed, sizeof(seed), "%u", k);
		pid = spawn_helper("STRIPED_INDEX_CREATOR", ns, k, "create", &fd);
		assert_true(pid > 0);
		assert_true(read(fd, line, sizeof(line)) > 0); /* "ready": it creates now */
		usleep(100000 + 37000 * k);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(fd);
	}
	assert_true(striped_index_check(io, 0, count_missing, &missing) >= 0);
	assert_true(missing <= 8);
	if (missing) {
		print_message("# %d file(s) of a killed creator unindexed: repaired\n", missing);
		int repaired = 0;

		assert_true(striped_index_check(io, 1, count_missing, &repaired) >= 0);
		assert_int_equal(repaired, missing);
		missing = 0;
		assert_true(striped_index_check(io, 0, count_missing, &missing) >= 0);
		assert_int_equal(missing, 0);
	}
	same_as_walk(io, "", NULL, NULL);
	remove_all(io);
	assert_int_equal(striped_index_drop(io), 0);
	rados_ioctx_destroy(io);
}

/* Bad input refused with a clear error, a damaged entry an error: never a wrong listing. */
static void test_index_bad_input(void **state)
{
	struct striped_list_query q = {NULL, "x", NULL, 0};
	struct striped_index_info info;
	struct striped_list *it = (void *)1;
	const char *key = "bad", *val = "?";
	size_t klen = 3, vlen = 1;
	char ns[64], oid[128];
	rados_ioctx_t io;
	rados_write_op_t op;

	(void)state;
	unique_name(ns, sizeof(ns), "index-bad");
	io = namespace_io(cl.rados, cl.pool, ns);
	assert_int_equal(striped_index_create(NULL, NULL, 0), -EINVAL);
	assert_int_equal(striped_index_create(io, NULL, STRIPED_INDEX_SHARDS_MAX + 1), -EINVAL);
	assert_int_equal(striped_index_create(io, "", 0), -EINVAL);
	assert_int_equal(striped_index_create(io, "no-such-pool", 0), -ENOENT);
	assert_int_equal(striped_index_stat(io, 0, &info, sizeof(info)), 0);
	assert_int_equal(info.state, STRIPED_INDEX_NONE);
	assert_int_equal(striped_index_drop(io), -ENOENT);
	assert_int_equal(striped_index_check(io, 0, NULL, NULL), -ENOENT);
	assert_int_equal(striped_list_open2(io, &q, sizeof(q), &it), -EINVAL);
	assert_null(it);
	q.delimiter = NULL;
	q.flags = 0x100;
	assert_int_equal(striped_list_open2(io, &q, sizeof(q), &it), -EINVAL);

	assert_int_equal(striped_index_create(io, NULL, 1), 0);
	assert_int_equal(striped_index_create(io, NULL, 1), -EEXIST);
	make(io, "ok");
	/* an entry this version does not know, in the root's one shard */
	snprintf(oid, sizeof(oid), "striped.dir.%lld.0.", (long long)rados_ioctx_get_id(io));
	op = rados_create_write_op();
	rados_write_op_omap_set2(op, &key, &val, &klen, &vlen, 1);
	assert_int_equal(rados_write_op_operate(op, io, oid, NULL, 0), 0);
	rados_release_write_op(op);
	q.flags = 0;
	assert_int_equal(striped_list_open2(io, &q, sizeof(q), &it), -EUCLEAN);
	assert_int_equal(striped_index_check(io, 0, NULL, NULL), -EUCLEAN);
	/* a record this version cannot read */
	assert_int_equal(rados_setxattr(io, "striped.index", "striped.index", "striped-index 9", 15), 0);
	assert_int_equal(striped_index_stat(io, 0, &info, sizeof(info)), -EUCLEAN);
	assert_int_equal(rados_remove(io, "striped.index"), 0);
	assert_int_equal(rados_remove(io, oid), 0);
	assert_int_equal(striped_remove(io, "ok"), 0);
	rados_ioctx_destroy(io);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_index_kept_by_every_writer),
	    cmocka_unit_test(test_index_noticed_by_another_client),
	    cmocka_unit_test(test_index_check_and_repair),
	    cmocka_unit_test(test_index_erasure_coded_pool),
	    cmocka_unit_test(test_index_continuation_pages),
	    cmocka_unit_test(test_index_killed_creators),
	    cmocka_unit_test(test_index_bad_input),
	};
	int r;

	cluster_connect(&cl);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	cluster_disconnect(&cl);
	return r;
}
