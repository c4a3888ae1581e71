// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Damaged heads, planted with raw librados on files libstriped made (and
 * on heads made from scratch, as another program would leave them): each
 * xattr missing, emptied, cut short, huge, negative, not a number, or
 * inconsistent with the others; the id or the layout changed under an open
 * handle; the lock's own xattr garbled. For each, every call a program or
 * an operator makes must fail with the error include/striped.h promises
 * (-EUCLEAN for damaged metadata, -ENODATA for an object that is no
 * striped file, -ESTALE for a handle whose file is another one now) and
 * write nothing: each of the file's objects (the head and its data objects,
 * and those a write would make) keeps its data, its xattrs and its
 * version, byte for byte, after each call. The calls: open (plain, create,
 * exclusive create), remove, repair, head_read, head_getxattrs; on handles
 * opened before the damage (direct and buffered, their lease let go of):
 * read, write, a growing write, truncate, setxattr, fstat, flush and close;
 * and the commands `striped stat NAME` (exit 1, one line naming the error)
 * and `striped check [--repair]` (the damaged heads reported as
 * corrupt_head, nothing repaired). Heads that are damaged in no way a
 * reader can tell (a size cut to a smaller number, a size past the mark
 * as libradosstriper's writes leave it) are read as they say.
 *
 * Everything lives in a namespace of its own. STRIPED_CLI names the
 * `striped` command (meson sets it); without it the command's checks are
 * skipped.
 */
#include <errno.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "cluster_fixture.h"
#include "striped.h"

extern char **environ;

#define K64 65536ull
/* 64 KiB units over 2 objects of 128 KiB; SIZE bytes make objects 0, 1 and 2. */
static const struct striped_layout small = {K64, 2, 2 * K64};
#define SIZE 300000ull
/* The objects of a file watched for changes: its three, and those a write could make. */
#define WATCHED 8
#define MAX_EDITS 6

static struct cluster cl;
static char nspace[64];

/* One change to a head: key set to value (len bytes), or removed (value NULL). */
struct edit {
	const char *key;
	const char *value;
	size_t len; /* 0: strlen(value) */
};

struct damage {
	const char *what;
	struct edit e[MAX_EDITS];
	int by_name;   /* open, remove, repair, head_read: 0 when it is a valid head still */
	int on_handle; /* the calls of a handle opened before */
	bool corrupt;  /* `striped check` reports it as corrupt_head */
};

#define SU "striper.layout.stripe_unit"
#define SC "striper.layout.stripe_count"
#define OS "striper.layout.object_size"
#define SZ "striper.size"
#define ID "striper.id"
#define RS "striper.reserved"
#define GONE NULL
#define E(k, v)                                                                                    \
	{                                                                                          \
		.key = (k), .value = (v)                                                           \
	}
#define EN(k, v, n)                                                                                \
	{                                                                                          \
		.key = (k), .value = (v), .len = (n)                                               \
	}
/* A bad head: -EUCLEAN by name and on a handle. */
#define BAD(what_, ...)                                                                            \
	{                                                                                          \
		what_, {__VA_ARGS__}, -EUCLEAN, -EUCLEAN, true                                     \
	}

static char huge_value[64 * 1024];

static const struct damage damages[] = {
    /* every xattr missing */
    {"no striper xattrs",
     {E(SU, GONE), E(SC, GONE), E(OS, GONE), E(SZ, GONE), E(ID, GONE), E(RS, GONE)},
     -ENODATA,
     -ESTALE,
     false},
    BAD("stripe_unit missing", E(SU, GONE)),
    BAD("stripe_count missing", E(SC, GONE)),
    BAD("object_size missing", E(OS, GONE)),
    BAD("size missing", E(SZ, GONE)),
    /* truncated: empty, or cut to what is no valid layout */
    BAD("stripe_unit empty", E(SU, "")),
    BAD("stripe_count empty", E(SC, "")),
    BAD("object_size empty", E(OS, "")),
    BAD("size empty", E(SZ, "")),
    BAD("id empty", E(ID, "")),
    BAD("mark empty", E(RS, "")),
    BAD("stripe_unit cut short", E(SU, "6553")),
    BAD("object_size cut short", E(OS, "13107")),
    /* huge */
    BAD("stripe_unit past 2^64", E(SU, "99999999999999999999")),
    BAD("stripe_count past 2^32", E(SC, "4294967296")),
    BAD("object_size 2^40", E(OS, "1099511627776")),
    BAD("size past 2^64", E(SZ, "18446744073709551616")),
    BAD("size 64 KiB of digits", EN(SZ, huge_value, sizeof(huge_value))),
    BAD("id past 2^64", E(ID, "18446744073709551616")),
    BAD("mark 30 digits", E(RS, "123456789012345678901234567890")),
    /* negative */
    BAD("stripe_unit negative", E(SU, "-65536")),
    BAD("stripe_count negative", E(SC, "-1")),
    BAD("object_size negative", E(OS, "-131072")),
    BAD("size negative", E(SZ, "-1")),
    BAD("id negative", E(ID, "-5")),
    BAD("mark negative", E(RS, "-1")),
    /* not a decimal number as written */
    BAD("size with letters", E(SZ, "12abc")),
    BAD("size with a leading space", E(SZ, " 300000")),
    BAD("size with a plus sign", E(SZ, "+300000")),
    BAD("size in hex", E(SZ, "0x493e0")),
    BAD("size with a newline", E(SZ, "300000\n")),
    BAD("size with two NULs", EN(SZ, "300000\0\0", 8)),
    BAD("stripe_count with a NUL inside", EN(SC, "2\0002", 3)),
    /* inconsistent */
    BAD("object_size no multiple of stripe_unit", E(SU, "131072"), E(OS, "196608")),
    BAD("object_size below stripe_unit", E(SU, "262144")),
    BAD("stripe_count 0", E(SC, "0")),
    BAD("stripe_unit 0", E(SU, "0")),
    BAD("stripe_unit no multiple of 64 KiB", E(SU, "1000"), E(OS, "2000")),
    /* the file is another one now: valid by name, stale on a handle */
    {"id changed", {E(ID, "12345")}, 0, -ESTALE, false},
    {"id removed", {E(ID, GONE)}, 0, -ESTALE, false},
    {"layout changed", {E(SC, "4")}, 0, -ESTALE, false},
    /* the lock's own xattr, not cls_lock's encoding: the OSD refuses every lock */
    {"lock xattr garbled", {E("lock.striper.lock", "garbage")}, -EIO, -EIO, false},
};
#define NDAMAGES (sizeof(damages) / sizeof(damages[0]))

/* ---- what a file's objects hold, byte for byte ---- */

struct object_state {
	int exists; /* 0, or 1 */
	uint64_t size, version;
	char *data;  /* size bytes */
	char *attrs; /* every xattr: name NUL value-length value, in the order listed */
	size_t attrs_len;
};

struct file_state {
	struct object_state o[WATCHED];
};

static void object_read(const char *name, uint64_t objectno, struct object_state *s)
{
	char oid[256];
	rados_read_op_t op = rados_create_read_op();
	rados_xattrs_iter_t it;
	size_t got = 0;
	int stat_r = 0, read_r = 0, attrs_r = 0, r;
	char buf[SIZE];
	time_t mtime;

	memset(s, 0, sizeof(*s));
	striped_object_name(name, objectno, oid, sizeof(oid));
	rados_read_op_stat(op, &s->size, &mtime, &stat_r);
	rados_read_op_read(op, 0, sizeof(buf), buf, &got, &read_r);
	rados_read_op_getxattrs(op, &it, &attrs_r);
	r = rados_read_op_operate(op, cl.io, oid, 0);
	rados_release_read_op(op);
	if (r == -ENOENT)
		return;
	assert_int_equal(r, 0);
	assert_int_equal(stat_r, 0);
	s->exists = 1;
	s->version = rados_get_last_version(cl.io);
	s->data = malloc(got + 1);
	memcpy(s->data, buf, got);
	for (;;) {
		const char *key, *val;
		size_t len;
		uint32_t len32;

		assert_int_equal(rados_getxattrs_next(it, &key, &val, &len), 0);
		if (!key)
			break;
		len32 = (uint32_t)len;
		s->attrs = realloc(s->attrs, s->attrs_len + strlen(key) + 1 + 4 + len);
		memcpy(s->attrs + s->attrs_len, key, strlen(key) + 1);
		s->attrs_len += strlen(key) + 1;
		memcpy(s->attrs + s->attrs_len, &len32, 4);
		s->attrs_len += 4;
		if (len)
			memcpy(s->attrs + s->attrs_len, val, len);
		s->attrs_len += len;
	}
	rados_getxattrs_end(it);
}

static void file_read(const char *name, struct file_state *f)
{
	for (uint64_t i = 0; i < WATCHED; i++)
		object_read(name, i, &f->o[i]);
}

static void file_free(struct file_state *f)
{
	for (int i = 0; i < WATCHED; i++) {
		free(f->o[i].data);
		free(f->o[i].attrs);
	}
}

/* Nothing of the file changed since `before`: data, xattrs and version of every object. */
static void assert_unchanged(const char *name, const struct file_state *before, const char *call)
{
	struct file_state now;
	bool same = true;

	file_read(name, &now);
	for (int i = 0; i < WATCHED; i++) {
		const struct object_state *a = &before->o[i], *b = &now.o[i];

		if (a->exists != b->exists || a->size != b->size || a->version != b->version ||
		    a->attrs_len != b->attrs_len ||
		    (a->exists && memcmp(a->data, b->data, a->size)) ||
		    (a->attrs_len && memcmp(a->attrs, b->attrs, a->attrs_len))) {
			print_error("%s: %s changed object %d (exists %d->%d, size %llu->%llu, "
				    "version %llu->%llu)\n",
				    name, call, i, a->exists, b->exists,
				    (unsigned long long)a->size, (unsigned long long)b->size,
				    (unsigned long long)a->version, (unsigned long long)b->version);
			same = false;
		}
	}
	file_free(&now);
	assert_true(same);
}

/* r is want, and the file is as it was: one line saying which call when not. */
#define EXPECT(name, before, call, r, want)                                                        \
	do {                                                                                       \
		long long got_ = (long long)(r);                                                   \
		if (got_ != (want))                                                                \
			print_error("%s: %s returned %lld, want %d\n", name, call, got_, want);    \
		assert_int_equal(got_, want);                                                      \
		assert_unchanged(name, before, call);                                              \
	} while (0)

/* ---- planting ---- */

static void head_oid(const char *name, char *oid, size_t len)
{
	striped_object_name(name, 0, oid, len);
}

static void plant(const char *name, const struct damage *d)
{
	char oid[256];

	head_oid(name, oid, sizeof(oid));
	for (int i = 0; i < MAX_EDITS && d->e[i].key; i++) {
		const struct edit *e = &d->e[i];

		if (!e->value)
			assert_int_equal(rados_rmxattr(cl.io, oid, e->key), 0);
		else
			assert_int_equal(rados_setxattr(cl.io, oid, e->key, e->value,
							e->len ? e->len : strlen(e->value)),
					 0);
	}
}

static void make_file(const char *name)
{
	uint8_t *buf = malloc(SIZE);
	struct striped_file *f;

	pattern_fill(buf, SIZE, 7, 0);
	assert_int_equal(striped_open(cl.io, name, STRIPED_CREATE | STRIPED_EXCL, &small, &f), 0);
	assert_int_equal(striped_write(f, buf, SIZE, 0), (ssize_t)SIZE);
	assert_int_equal(striped_setxattr(f, "user.owner", "ann", 3), 0);
	striped_close(f);
	free(buf);
}

/* Whether anyone holds the file's lock. */
static bool held(const char *name)
{
	struct striped_lockers *it;
	struct striped_locker l;

	assert_int_equal(striped_lockers_open(cl.io, name, &it), 0);
	assert_int_equal(striped_lockers_next(it, &l, sizeof(l)), 0);
	striped_lockers_close(it);
	return l.client != NULL;
}

/* ---- the `striped` command ---- */

/* Runs `striped -p POOL -N NS args...`; its exit status, stdout into out (may be NULL). */
static int run_cli(char *out, size_t outlen, char *err, size_t errlen, ...)
{
	const char *cli = getenv("STRIPED_CLI");
	char *argv[16], out_path[] = "/tmp/striped-damaged-XXXXXX",
			err_path[] = "/tmp/striped-damaged-XXXXXX";
	int ofd = mkstemp(out_path), efd = mkstemp(err_path), argc = 0, status = -1;
	posix_spawn_file_actions_t fa;
	va_list ap;
	pid_t pid;
	char *s;

	assert_true(ofd >= 0 && efd >= 0);
	argv[argc++] = (char *)cli;
	argv[argc++] = "-p";
	argv[argc++] = (char *)cl.pool;
	argv[argc++] = "-N";
	argv[argc++] = nspace;
	va_start(ap, errlen);
	while ((s = va_arg(ap, char *)) && argc < 15)
		argv[argc++] = s;
	va_end(ap);
	argv[argc] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, ofd, 1);
	posix_spawn_file_actions_adddup2(&fa, efd, 2);
	assert_int_equal(posix_spawn(&pid, cli, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (out) {
		ssize_t n = pread(ofd, out, outlen - 1, 0);

		out[n > 0 ? n : 0] = '\0';
	}
	if (err) {
		ssize_t n = pread(efd, err, errlen - 1, 0);

		err[n > 0 ? n : 0] = '\0';
	}
	close(ofd);
	close(efd);
	unlink(out_path);
	unlink(err_path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* ---- the calls ---- */

/* Every call by name: each fails with want and changes nothing. */
static void calls_by_name(const char *name, int want)
{
	struct striped_file *f = NULL;
	struct striped_xattrs *x;
	struct striped_head h;
	struct file_state before;
	char err[512], line[600];

	file_read(name, &before);
	EXPECT(name, &before, "open", striped_open(cl.io, name, 0, NULL, &f), want);
	EXPECT(name, &before, "open(CREATE)", striped_open(cl.io, name, STRIPED_CREATE, &small, &f),
	       want);
	EXPECT(name, &before, "open(CREATE|EXCL)",
	       striped_open(cl.io, name, STRIPED_CREATE | STRIPED_EXCL, &small, &f), -EEXIST);
	EXPECT(name, &before, "open(BUFFERED)",
	       striped_open(cl.io, name, STRIPED_BUFFERED, NULL, &f), want);
	assert_null(f);
	EXPECT(name, &before, "remove", striped_remove(cl.io, name), want);
	EXPECT(name, &before, "repair", striped_repair(cl.io, name, NULL, 0), want);
	if (want != -EIO) { /* the lock's xattr alone is garbled: the metadata reads fine */
		EXPECT(name, &before, "head_read", striped_head_read(cl.io, name, &h, sizeof(h)),
		       want);
		EXPECT(name, &before, "head_getxattrs", striped_head_getxattrs(cl.io, name, &x),
		       want);
	}
	if (getenv("STRIPED_CLI")) {
		/* stat: exit 1, one line "striped: stat NAME: <strerror>" (the lock's, when it
		 * fails) */
		snprintf(line, sizeof(line), "striped: stat %s: %s%s\n", name,
			 want == -EIO ? "its lock: " : "", strerror(-want));
		EXPECT(name, &before, "striped stat",
		       run_cli(NULL, 0, err, sizeof(err), "stat", name, NULL), 1);
		if (strcmp(err, line))
			print_error("striped stat said: %s", err);
		assert_string_equal(err, line);
		EXPECT(name, &before, "striped rm",
		       run_cli(NULL, 0, err, sizeof(err), "rm", name, NULL), 1);
	}
	file_free(&before);
}

/* A handle of the file, opened before its head was damaged and let go of since. */
struct handle {
	struct striped_file *direct, *buffered;
};

static void open_handles(const char *name, struct handle *h)
{
	char byte;

	assert_int_equal(striped_open(cl.io, name, 0, NULL, &h->direct), 0);
	assert_int_equal(striped_open(cl.io, name, STRIPED_BUFFERED, NULL, &h->buffered), 0);
	assert_int_equal(striped_read(h->direct, &byte, 1, 0), 1);
	assert_int_equal(striped_read(h->buffered, &byte, 1, 0), 1);
}

static void calls_on_handles(const char *name, struct handle *h, int want)
{
	struct file_state before;
	struct striped_stat st;
	char buf[1000];
	ssize_t r;

	memset(buf, 'w', sizeof(buf));
	file_read(name, &before);
	EXPECT(name, &before, "read", striped_read(h->direct, buf, sizeof(buf), 0), want);
	EXPECT(name, &before, "write", striped_write(h->direct, buf, 10, 100), want);
	EXPECT(name, &before, "growing write", striped_write(h->direct, buf, sizeof(buf), SIZE),
	       want);
	EXPECT(name, &before, "truncate", striped_truncate(h->direct, 1000), want);
	EXPECT(name, &before, "setxattr", striped_setxattr(h->direct, "user.k", "v", 1), want);
	EXPECT(name, &before, "fstat", striped_fstat(h->direct, &st, sizeof(st)), want);
	EXPECT(name, &before, "buffered read", striped_read(h->buffered, buf, sizeof(buf), 0),
	       want);
	/* A buffered write may be taken into the window; its flush must then fail. */
	r = striped_write(h->buffered, buf, sizeof(buf), 0);
	if (r != want)
		assert_int_equal(r, sizeof(buf));
	assert_unchanged(name, &before, "buffered write");
	EXPECT(name, &before, "buffered flush", striped_flush(h->buffered), r == want ? 0 : want);
	EXPECT(name, &before, "direct close", striped_close2(h->direct), 0);
	r = striped_close2(h->buffered);
	if (r)
		assert_int_equal(r, want);
	assert_unchanged(name, &before, "buffered close");
	file_free(&before);
}

/* ---- the tests ---- */

static void file_name(char *buf, size_t len, size_t i)
{
	snprintf(buf, len, "damaged-%zu", i);
}

/*
 * Every kind of damage, each on a file of its own: handles opened first,
 * let go of, then the damage planted, then every call.
 */
static void test_damaged_heads(void **state)
{
	struct handle h[NDAMAGES];
	char name[64];
	int waited = 0;

	(void)state;
	memset(huge_value, '9', sizeof(huge_value));
	for (size_t i = 0; i < NDAMAGES; i++) {
		file_name(name, sizeof(name), i);
		make_file(name);
		open_handles(name, &h[i]);
		striped_file_set_lease(h[i].direct, STRIPED_LEASE_MIN_SECONDS);
		striped_file_set_lease(h[i].buffered, STRIPED_LEASE_MIN_SECONDS);
	}
	/* Their leases lapse after a second without calls: nobody holds a lock then. */
	for (size_t i = 0; i < NDAMAGES; i++) {
		file_name(name, sizeof(name), i);
		while (held(name) && waited++ < 100)
			usleep(100 * 1000);
		assert_false(held(name));
	}
	for (size_t i = 0; i < NDAMAGES; i++) {
		file_name(name, sizeof(name), i);
		plant(name, &damages[i]);
	}
	for (size_t i = 0; i < NDAMAGES; i++) {
		file_name(name, sizeof(name), i);
		print_message("%-40s by name %d, on a handle %d\n", damages[i].what,
			      damages[i].by_name, damages[i].on_handle);
		calls_on_handles(name, &h[i], damages[i].on_handle);
		if (damages[i].by_name)
			calls_by_name(name, damages[i].by_name);
	}
}

/*
 * `striped check` over them all: each damaged head reported as
 * corrupt_head, none repaired by --repair, nothing written.
 */
static void test_check(void **state)
{
	static char out[256 * 1024];
	struct file_state before[NDAMAGES];
	char name[64], pattern[128];
	size_t corrupt = 0;

	(void)state;
	if (!getenv("STRIPED_CLI"))
		skip();
	for (size_t i = 0; i < NDAMAGES; i++) {
		file_name(name, sizeof(name), i);
		file_read(name, &before[i]);
	}
	for (int repair = 0; repair < 2; repair++) {
		assert_int_equal(run_cli(out, sizeof(out), NULL, 0, "check", "--format", "json",
					 repair ? "--repair" : NULL, NULL),
				 0);
		for (size_t i = 0; i < NDAMAGES; i++) {
			bool reported;

			file_name(name, sizeof(name), i);
			snprintf(pattern, sizeof(pattern),
				 "{\"name\":\"%s\",\"kind\":\"corrupt_head\"", name);
			reported = strstr(out, pattern) != NULL;
			if (reported != damages[i].corrupt)
				print_error("check: %s (%s) %s\n", name, damages[i].what,
					    reported ? "reported" : "not reported");
			assert_int_equal(reported, damages[i].corrupt);
			corrupt += reported;
			/* A head still valid (another id or layout) is a file check may repair. */
			if (damages[i].by_name)
				assert_unchanged(name, &before[i],
						 repair ? "check --repair" : "check");
		}
	}
	snprintf(pattern, sizeof(pattern), "\"corrupt_heads\":%zu", corrupt / 2);
	assert_non_null(strstr(out, pattern));
	for (size_t i = 0; i < NDAMAGES; i++)
		file_free(&before[i]);
}

/* Damage no reader can tell from a valid head: read as it says. */
static void test_undetectable(void **state)
{
	static const struct damage accepted[] = {
	    /* libradosstriper's writes raise the size, never the mark: a valid state */
	    {"size past the mark", {E(SZ, "9999999")}, 0, 0, false},
	    {"mark removed", {E(RS, GONE)}, 0, 0, false},
	    {"size cut to a smaller number", {E(SZ, "30000")}, 0, 0, false},
	};
	struct striped_file *f;
	uint64_t sizes[] = {9999999, SIZE, 30000}, size;
	char name[64], byte;

	(void)state;
	for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
		snprintf(name, sizeof(name), "accepted-%zu", i);
		make_file(name);
		plant(name, &accepted[i]);
		assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
		assert_int_equal(striped_stat(f, &size, NULL), 0);
		assert_int_equal(size, sizes[i]);
		assert_int_equal(striped_read(f, &byte, 1, 0), 1);
		assert_int_equal(byte, (char)pattern_byte(7, 0));
		striped_close(f);
		assert_int_equal(striped_remove(cl.io, name), 0);
		assert_int_equal(count_objects(cl.io, name), 0);
	}
}

/*
 * Heads made from scratch by another program (never a libstriped file, so
 * no lock xattr either): refused, and still not locked afterwards.
 */
static void test_planted_from_scratch(void **state)
{
	static const struct {
		const char *what, *su, *sc, *os, *size;
		int want;
	} cases[] = {
	    {"plain object", NULL, NULL, NULL, NULL, -ENODATA},
	    {"no size", "65536", "1", "65536", NULL, -EUCLEAN},
	    {"no layout", NULL, NULL, NULL, "10", -EUCLEAN},
	    {"stripe_unit 1000", "1000", "1", "65536", "10", -EUCLEAN},
	    {"stripe_count 0", "65536", "0", "65536", "10", -EUCLEAN},
	    {"size 12abc", "65536", "1", "65536", "12abc", -EUCLEAN},
	    {"size -1", "65536", "1", "65536", "-1", -EUCLEAN},
	    {"size past 2^64", "65536", "1", "65536", "99999999999999999999", -EUCLEAN},
	};
	const char *keys[] = {SU, SC, OS, SZ};
	char name[64], oid[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *vals[] = {cases[i].su, cases[i].sc, cases[i].os, cases[i].size};

		snprintf(name, sizeof(name), "scratch-%zu", i);
		head_oid(name, oid, sizeof(oid));
		assert_int_equal(rados_write_full(cl.io, oid, "data", 4), 0);
		for (int k = 0; k < 4; k++)
			if (vals[k])
				assert_int_equal(
				    rados_setxattr(cl.io, oid, keys[k], vals[k], strlen(vals[k])),
				    0);
		print_message("%-40s by name %d\n", cases[i].what, cases[i].want);
		calls_by_name(name, cases[i].want);
	}
}

static int setup(void **state)
{
	(void)state;
	cluster_connect(&cl);
	snprintf(nspace, sizeof(nspace), "damaged-%ld", (long)getpid());
	rados_ioctx_set_namespace(cl.io, nspace);
	return 0;
}

/* The namespace goes, whatever its objects are. */
static int teardown(void **state)
{
	rados_list_ctx_t ctx;
	const char *oid;

	(void)state;
	if (rados_nobjects_list_open(cl.io, &ctx) == 0) {
		while (rados_nobjects_list_next(ctx, &oid, NULL, NULL) == 0)
			rados_remove(cl.io, oid);
		rados_nobjects_list_close(ctx);
	}
	cluster_disconnect(&cl);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_damaged_heads),
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_undetectable),
	    cmocka_unit_test(test_planted_from_scratch),
	};

	cluster_skip_unless_configured();
	return cmocka_run_group_tests(tests, setup, teardown);
}
