// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operators' calls (since 0.6) against the sandbox cluster: a file's
 * head read by name (the mark included) and told apart from a foreign or
 * damaged one, its xattrs and lock holders read without a lock, a holder's
 * lock broken with and without fencing, and the repair of orphans: past
 * the size up to the mark, past the mark, a tail past the size in the last
 * object, objects a libradosstriper remove left without a head, all while
 * a writer keeps writing, and never on a damaged head; and (since 0.7) a
 * small file read by name in one operation, without a lock; (since 0.8)
 * one made whole, and one removed as it was read, by name in one operation;
 * (since 0.9) one taken empty and filled whole as made, and read whole with
 * its xattrs in one operation; (since 0.9) one taken now and written back
 * when another client reads it.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <cmocka.h>
#include <radosstriper/libradosstriper.h>

#include "cluster_fixture.h"
#include "striped.h"

#define KiB 1024ull
#define MiB (1ull << 20)
/* An h_size short of struct striped_head as 0.8 had it (up to its id). */
#define SHORT_OF_0_8 (offsetof(struct striped_head, id) + sizeof(uint64_t) - 1)
#define UUID_COOKIE "1b4e28ba-2fa1-11d2-883f-0016d3cca427"

/* 64 KiB units over 2 objects of 128 KiB: an object set holds 256 KiB. */
static const struct striped_layout small = {64 * KiB, 2, 128 * KiB};

/* A new file of len pattern bytes; its handle stays open when keep is given. */
static void make_file(rados_ioctx_t io, const char *name, uint64_t len, uint64_t seed,
		      struct striped_file **keep)
{
	struct striped_file *f;
	uint8_t *buf = malloc(len + 1);

	assert_non_null(buf);
	pattern_fill(buf, len, seed, 0);
	assert_int_equal(striped_open(io, name, STRIPED_CREATE | STRIPED_EXCL, &small, &f), 0);
	assert_int_equal(striped_write(f, buf, len, 0), (ssize_t)len);
	free(buf);
	if (keep)
		*keep = f;
	else
		striped_close(f);
}

/* The file reads back as the pattern, len bytes of it. */
static void assert_pattern(rados_ioctx_t io, const char *name, uint64_t len, uint64_t seed)
{
	struct striped_file *f;
	uint8_t *buf = malloc(len + 1);
	uint64_t size;

	assert_non_null(buf);
	assert_int_equal(striped_open(io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, len);
	assert_int_equal(striped_read(f, buf, len + 1, 0), (ssize_t)len);
	assert_int_equal(pattern_check(buf, len, seed, 0), -1);
	striped_close(f);
	free(buf);
}

static int object_size(rados_ioctx_t io, const char *name, uint64_t objectno, uint64_t *size)
{
	char oid[256];
	time_t mtime;

	striped_object_name(name, objectno, oid, sizeof(oid));
	return rados_stat(io, oid, size, &mtime);
}

static void put_object(rados_ioctx_t io, const char *name, uint64_t objectno, uint64_t off,
		       size_t len)
{
	char oid[256], junk[4096];

	assert_true(len <= sizeof(junk));
	memset(junk, 'X', len);
	striped_object_name(name, objectno, oid, sizeof(oid));
	assert_int_equal(rados_write(io, oid, junk, len, off), 0);
}

static void remove_all(rados_ioctx_t io, const char *name)
{
	int r = striped_remove(io, name);

	assert_true(r == 0 || r == -ENOENT);
}

static void test_head_read(void **state)
{
	struct striped_head h;
	struct striped_head only_size;
	char name[64], head[96];

	(void)state;
	unique_name(name, sizeof(name), "ops-head");
	make_file(cl.io, name, 300000, 1, NULL);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(h.size, 300000);
	assert_memory_equal(&h.layout, &small, sizeof(small));
	/* The first growing write raised the mark far ahead of the size. */
	assert_true(h.reserved >= 300000 + 4 * MiB);
	assert_true(h.id != 0);
	assert_true(h.mtime.tv_sec > 1700000000);
	/* Only as much as the caller knows of is written. */
	memset(&only_size, 0xab, sizeof(only_size));
	assert_int_equal(striped_head_read(cl.io, name, &only_size, sizeof(uint64_t)), 0);
	assert_int_equal(only_size.size, 300000);
	assert_int_equal(only_size.layout.stripe_unit, 0xababababababababull);
	assert_int_equal(striped_head_read(cl.io, name, NULL, sizeof(h)), -EINVAL);
	assert_int_equal(striped_head_read(cl.io, "", &h, sizeof(h)), -EINVAL);
	assert_int_equal(striped_head_read(cl.io, name, &h, 4), -EINVAL);

	/* Damaged metadata is -EUCLEAN: not a number, missing, an invalid layout. */
	striped_object_name(name, 0, head, sizeof(head));
	assert_int_equal(rados_setxattr(cl.io, head, "striper.size", "12x", 3), 0);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), -EUCLEAN);
	assert_int_equal(rados_setxattr(cl.io, head, "striper.size", "300000", 6), 0);
	assert_int_equal(rados_rmxattr(cl.io, head, "striper.layout.object_size"), 0);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), -EUCLEAN);
	assert_int_equal(rados_setxattr(cl.io, head, "striper.layout.object_size", "1000", 4), 0);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), -EUCLEAN);
	assert_int_equal(rados_remove(cl.io, head), 0);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), -ENOENT);
	/* An object of that name with no striper metadata is no striped file. */
	assert_int_equal(rados_write_full(cl.io, head, "plain", 5), 0);
	assert_int_equal(rados_setxattr(cl.io, head, "user.x", "1", 1), 0);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), -ENODATA);
	assert_int_equal(rados_remove(cl.io, head), 0);
	for (uint64_t objectno = 1; objectno <= 2; objectno++) {
		striped_object_name(name, objectno, head, sizeof(head));
		assert_int_equal(rados_remove(cl.io, head), 0);
	}
	assert_int_equal(count_objects(cl.io, name), 0);
}

static void test_head_getxattrs(void **state)
{
	struct striped_xattrs *it;
	struct striped_file *f;
	const char *key;
	const void *value;
	size_t len;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "ops-xattrs");
	make_file(cl.io, name, 1000, 2, &f);
	assert_int_equal(striped_setxattr(f, "user.a", "v1", 2), 0);
	/* Read while the handle holds the lock: no lock is needed to read. */
	assert_int_equal(striped_head_getxattrs(cl.io, name, &it), 0);
	assert_int_equal(striped_getxattrs_next(it, &key, &value, &len), 0);
	assert_string_equal(key, "user.a");
	assert_int_equal(len, 2);
	assert_memory_equal(value, "v1", 2);
	/* The libraries' own (layout, size, id, mark, the lock) are not shown. */
	assert_int_equal(striped_getxattrs_next(it, &key, &value, &len), 0);
	assert_null(key);
	striped_getxattrs_end(it);
	striped_close(f);
	assert_int_equal(striped_head_getxattrs(cl.io, "ops-no-such-file", &it), -ENOENT);
	assert_int_equal(striped_head_getxattrs(cl.io, name, NULL), -EINVAL);
	remove_all(cl.io, name);
}

/* The holders, in the order cls_lock lists them, looked up by cookie. */
static bool find_locker(const char *name, const char *cookie, struct striped_locker *out,
			size_t *count)
{
	struct striped_lockers *it;
	struct striped_locker l;
	bool found = false;

	*count = 0;
	assert_int_equal(striped_lockers_open(cl.io, name, &it), 0);
	for (;;) {
		assert_int_equal(striped_lockers_next(it, &l, sizeof(l)), 0);
		if (!l.client)
			break;
		(*count)++;
		if (cookie && !strcmp(l.cookie, cookie)) {
			*out = l;
			out->client = strdup(l.client);
			out->cookie = strdup(l.cookie);
			out->address = strdup(l.address);
			out->tag = strdup(l.tag);
			found = true;
		}
	}
	striped_lockers_close(it);
	return found;
}

static void locker_free(struct striped_locker *l)
{
	free((char *)l->client);
	free((char *)l->cookie);
	free((char *)l->address);
	free((char *)l->tag);
}

/* Since 0.7: a small file's bytes and metadata read by name, in one operation, no lock. */
static void test_head_pread(void **state)
{
	uint8_t want[100000], buf[100008];
	struct striped_head h, meta;
	struct striped_file *f;
	char name[64], head[96];
	size_t n;

	(void)state;
	unique_name(name, sizeof(name), "ops-pread");
	striped_object_name(name, 0, head, sizeof(head));
	pattern_fill(want, sizeof(want), 21, 0);
	make_file(cl.io, name, 5000, 21, NULL);
	/* Whole, never past the size, and the metadata striped_head_read() gives. */
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 8192, 0), 5000);
	assert_memory_equal(buf, want, 5000);
	assert_int_equal(buf[5000], 0xee);
	assert_int_equal(striped_head_read(cl.io, name, &meta, sizeof(meta)), 0);
	assert_int_equal(h.size, 5000);
	assert_memory_equal(&h.layout, &small, sizeof(small));
	assert_int_equal(h.id, meta.id);
	assert_int_equal(h.reserved, meta.reserved);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 8192, 4096), 904);
	assert_memory_equal(buf, want + 4096, 904);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 10, 5000), 0);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), NULL, 0, 0), 0);
	assert_int_equal(h.size, 5000);
	/* Bytes past the size (a failed write's) stay unseen. */
	put_object(cl.io, name, 0, 5000, 3000);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 8192, 0), 5000);
	assert_memory_equal(buf, want, 5000);
	/* No lock was taken, none is left. */
	assert_false(find_locker(name, NULL, NULL, &n));
	assert_int_equal(n, 0);
	/* A size past the object's end (as libradosstriper stores the size first): zeros. */
	assert_int_equal(rados_trunc(cl.io, head, 5000), 0);
	assert_int_equal(rados_setxattr(cl.io, head, "striper.size", "9000", 4), 0);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 8192, 0), 8192);
	assert_memory_equal(buf, want, 5000);
	for (size_t i = 5000; i < 8192; i++)
		assert_int_equal(buf[i], 0);
	/* An open handle's shared lock is no obstacle; an exclusive holder is: -EBUSY. */
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 100, 0), 100);
	striped_close(f);
	assert_int_equal(rados_lock_exclusive(cl.io, head, "striper.lock", "by-hand", "", NULL, 0),
			 0);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 100, 0), -EBUSY);
	assert_int_equal(rados_unlock(cl.io, head, "striper.lock", "by-hand"), 0);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 100, 0), 100);
	remove_all(cl.io, name);

	/* A file larger than its stripe unit: the first unit, and the size says there is more. */
	make_file(cl.io, name, sizeof(want), 21, NULL);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, sizeof(buf), 0),
			 64 * KiB);
	assert_memory_equal(buf, want, 64 * KiB);
	assert_int_equal(h.size, sizeof(want));
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 10000, 60000), 5536);
	assert_memory_equal(buf, want + 60000, 5536);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 10, 64 * KiB), 0);

	/* Bad arguments and what is no striped file, as striped_head_read(). */
	assert_int_equal(striped_head_pread(cl.io, name, NULL, sizeof(h), buf, 10, 0), -EINVAL);
	assert_int_equal(striped_head_pread(cl.io, name, &h, 4, buf, 10, 0), -EINVAL);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), NULL, 10, 0), -EINVAL);
	assert_int_equal(
	    striped_head_pread(cl.io, name, &h, sizeof(h), buf, (size_t)SSIZE_MAX + 1, 0), -EINVAL);
	assert_int_equal(striped_head_pread(cl.io, "", &h, sizeof(h), buf, 10, 0), -EINVAL);
	assert_int_equal(rados_setxattr(cl.io, head, "striper.size", "12x", 3), 0);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 10, 0), -EUCLEAN);
	assert_int_equal(rados_setxattr(cl.io, head, "striper.size", "100000", 6), 0);
	remove_all(cl.io, name);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 10, 0), -ENOENT);
	assert_int_equal(rados_write_full(cl.io, head, "plain", 5), 0);
	assert_int_equal(striped_head_pread(cl.io, name, &h, sizeof(h), buf, 10, 0), -ENODATA);
	assert_int_equal(rados_remove(cl.io, head), 0);
}

/* The head's raw xattr name (the lock's), or -errno. */
static ssize_t head_xattr(const char *name, const char *key, char *buf, size_t len)
{
	char head[96];

	striped_object_name(name, 0, head, sizeof(head));
	return rados_getxattr(cl.io, head, key, buf, len);
}

static bool object_exists(const char *name)
{
	uint64_t size;

	return object_size(cl.io, name, 0, &size) == 0;
}

/* striped_head_create() refuses bad input before anything is made. */
/*
 * More than one operation carries (an OSD refuses a request above
 * osd_max_write_size, 90 MiB: -EMSGSIZE; 16 bits count its operations).
 */
static void assert_head_create_refuses_large(const char *name)
{
	const struct striped_layout big = {128 * MiB, 1, 128 * MiB}; /* osd_max_object_size */
	size_t nx = 1025;
	struct striped_xattr_value *x = calloc(nx, sizeof(*x));
	char *bytes = calloc(1, 100 * MiB); /* zero pages: never sent */

	assert_non_null(x);
	assert_non_null(bytes);
	for (size_t i = 0; i < nx; i++)
		x[i] = (struct striped_xattr_value){"user.a", "1", 1};
	assert_int_equal(striped_head_create(cl.io, name, &big, bytes, 100 * MiB, NULL, 0), -EFBIG);
	x[0] = (struct striped_xattr_value){"user.big", bytes, 100};
	assert_int_equal(striped_head_create(cl.io, name, &big, bytes, 64 * MiB - 100, x, 1),
			 -EFBIG); /* the bytes and the xattrs together */
	x[0] = (struct striped_xattr_value){"user.a", "1", 1};
	assert_int_equal(striped_head_create(cl.io, name, &small, "b", 1, x, nx), -E2BIG);
	free(bytes);
	free(x);
}

static void assert_head_create_refuses(const char *name)
{
	const struct striped_xattr_value reserved[] = {{"striper.size", "1", 1}};
	const struct striped_xattr_value lock[] = {{"lock.striper.lock", "", 0}};
	const struct striped_xattr_value empty[] = {{"", "1", 1}};
	const struct striped_xattr_value novalue[] = {{"user.a", NULL, 1}};
	const struct striped_layout bad = {1000, 1, 1000};
	char buf[64 * KiB + 1] = {0}, longname[STRIPED_XATTR_NAME_MAX + 2];
	struct striped_xattr_value toolong[] = {{longname, "1", 1}};

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	assert_int_equal(striped_head_create(cl.io, name, &small, buf, sizeof(buf), NULL, 0), -EFBIG);
	assert_int_equal(striped_head_create(cl.io, name, &small, buf, 1, reserved, 1), -EPERM);
	assert_int_equal(striped_head_create(cl.io, name, &small, buf, 1, lock, 1), -EPERM);
	assert_int_equal(striped_head_create(cl.io, name, &small, buf, 1, empty, 1), -EINVAL);
	assert_int_equal(striped_head_create(cl.io, name, &small, buf, 1, novalue, 1), -EINVAL);
	assert_int_equal(striped_head_create(cl.io, name, &small, buf, 1, toolong, 1),
			 -ENAMETOOLONG);
	assert_int_equal(striped_head_create(cl.io, name, &small, NULL, 1, NULL, 0), -EINVAL);
	assert_int_equal(striped_head_create(cl.io, name, &small, buf, 1, NULL, 1), -EINVAL);
	assert_int_equal(striped_head_create(cl.io, name, &bad, buf, 1, NULL, 0), -EINVAL);
	assert_int_equal(striped_head_create(NULL, name, &small, buf, 1, NULL, 0), -EINVAL);
	assert_int_equal(striped_head_create(cl.io, "", &small, buf, 1, NULL, 0), -EINVAL);
	assert_head_create_refuses_large(name);
	assert_false(object_exists(name));
}

/*
 * Since 0.8: a small file made whole by name, in one operation: as a file a
 * handle made and closed (bytes, size, mark, an id, its lock's xattr the
 * same bytes), its xattrs with it; -EEXIST over anything there.
 */
static void test_head_create(void **state)
{
	const struct striped_xattr_value x[] = {{"user.a", "1", 1}, {"mount.mtime", "12.5", 4},
						{"user.empty", NULL, 0}};
	char name[64], other[64], la[128], lb[128], v[16];
	struct striped_head h, def;
	struct striped_file *f;
	rados_striper_t rs;
	uint8_t want[5000];
	ssize_t na, nb;
	size_t n;

	(void)state;
	unique_name(name, sizeof(name), "ops-hcreate");
	unique_name(other, sizeof(other), "ops-hcreate-handle");
	assert_head_create_refuses(name);
	pattern_fill(want, sizeof(want), 31, 0);
	make_file(cl.io, other, 5000, 31, NULL); /* a handle's: made, written, closed */
	assert_int_equal(striped_head_create(cl.io, name, &small, want, sizeof(want), x, 3), 0);
	/* Its lock's xattr as the handle's lock and unlock left the other's, held by no one. */
	na = head_xattr(name, "lock.striper.lock", la, sizeof(la));
	nb = head_xattr(other, "lock.striper.lock", lb, sizeof(lb));
	assert_true(na > 0);
	assert_int_equal(na, nb);
	assert_memory_equal(la, lb, (size_t)na);
	assert_false(find_locker(name, NULL, NULL, &n));
	assert_int_equal(n, 0);
	assert_pattern(cl.io, name, sizeof(want), 31);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(h.size, sizeof(want));
	assert_memory_equal(&h.layout, &small, sizeof(small));
	assert_int_not_equal(h.id, 0);
	/* As a new file of a handle: the mark at the first stripe unit. */
	assert_int_equal(striped_head_read(cl.io, other, &def, sizeof(def)), 0);
	assert_int_equal(h.reserved, def.reserved);
	assert_int_not_equal(h.id, def.id);
	/* The xattrs, as striped_getxattr() reads them. */
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_getxattr(f, "user.a", v, sizeof(v)), 1);
	assert_memory_equal(v, "1", 1);
	assert_int_equal(striped_getxattr(f, "mount.mtime", v, sizeof(v)), 4);
	assert_memory_equal(v, "12.5", 4);
	assert_int_equal(striped_getxattr(f, "user.empty", v, sizeof(v)), 0);
	striped_close(f);
	/* There already: -EEXIST, the file as it was. */
	assert_int_equal(striped_head_create(cl.io, name, &small, "new", 3, NULL, 0), -EEXIST);
	assert_pattern(cl.io, name, sizeof(want), 31);
	/* libradosstriper locks it and writes: its lock's xattr is one cls_lock reads. */
	assert_int_equal(rados_striper_create(cl.io, &rs), 0);
	assert_int_equal(rados_striper_write(rs, name, (const char *)want, 100, sizeof(want)), 0);
	rados_striper_destroy(rs);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(h.size, sizeof(want) + 100);
	assert_int_equal(striped_remove(cl.io, name), 0);
	assert_false(object_exists(name));
	remove_all(cl.io, other);

	/* Empty, the default layout (libradosstriper's, on this replicated pool). */
	assert_int_equal(striped_head_create(cl.io, name, NULL, NULL, 0, NULL, 0), 0);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(h.size, 0);
	assert_int_equal(h.layout.stripe_unit, 4 * MiB);
	assert_int_equal(h.layout.stripe_count, 1);
	assert_int_equal(h.layout.object_size, 4 * MiB);
	assert_int_equal(striped_remove(cl.io, name), 0);
	/* Over an object that is no striped file: -EEXIST, left as it is. */
	put_object(cl.io, name, 0, 0, 5);
	assert_int_equal(striped_head_create(cl.io, name, &small, "new", 3, NULL, 0), -EEXIST);
	assert_int_equal(head_xattr(name, "striper.size", v, sizeof(v)), -ENODATA);
	assert_int_equal(object_size(cl.io, name, 0, &h.size), 0);
	assert_int_equal(h.size, 5);
	striped_object_name(name, 0, la, sizeof(la));
	assert_int_equal(rados_remove(cl.io, la), 0);
}

/*
 * Since 0.8: a small file removed as it was read, in one operation: gone
 * when unchanged and unheld; left as it is (-ECANCELED) when changed, held,
 * or last held exclusive; refused (-EINVAL) when h says it does not live in
 * its head alone.
 */
static void test_head_remove_as_read(void **state)
{
	struct striped_head h, bad;
	struct striped_file *f;
	struct striped_layout bad_layout = {1000, 1, 1000};
	rados_striper_t rs;
	char name[64], head[96];
	uint8_t want[5000];

	(void)state;
	unique_name(name, sizeof(name), "ops-hremove");
	striped_object_name(name, 0, head, sizeof(head));
	pattern_fill(want, sizeof(want), 41, 0);
	/* a handle's file, unchanged: gone */
	make_file(cl.io, name, 5000, 41, NULL);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(striped_head_remove(cl.io, name, &h, sizeof(h)), 0);
	assert_false(object_exists(name));
	assert_int_equal(striped_head_remove(cl.io, name, &h, sizeof(h)), -ENOENT);
	/* changed since the read: left */
	assert_int_equal(striped_head_create(cl.io, name, &small, want, 5000, NULL, 0), 0);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(striped_open(cl.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_write(f, want, 10, 5000), 10);
	/* held (the handle's shared lock): left */
	assert_int_equal(striped_head_read(cl.io, name, &bad, sizeof(bad)), 0);
	assert_int_equal(striped_head_remove(cl.io, name, &bad, sizeof(bad)), -ECANCELED);
	striped_close(f);
	assert_int_equal(striped_head_remove(cl.io, name, &h, sizeof(h)), -ECANCELED);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(h.size, 5010);
	/* let go of: gone */
	assert_int_equal(striped_head_remove(cl.io, name, &bad, sizeof(bad)), 0);
	assert_false(object_exists(name));
	/* last held exclusive (as a truncate leaves it): left */
	make_file(cl.io, name, 5000, 41, NULL);
	assert_int_equal(rados_lock_exclusive(cl.io, head, "striper.lock", "by-hand", "", NULL, 0),
			 0);
	assert_int_equal(rados_unlock(cl.io, head, "striper.lock", "by-hand"), 0);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(striped_head_remove(cl.io, name, &h, sizeof(h)), -ECANCELED);
	assert_true(object_exists(name));
	remove_all(cl.io, name);
	/* larger than its head: refused, left */
	make_file(cl.io, name, 100000, 41, NULL);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(striped_head_remove(cl.io, name, &h, sizeof(h)), -EINVAL);
	assert_pattern(cl.io, name, 100000, 41);
	remove_all(cl.io, name);
	/* libradosstriper's (no id, no mark), its lock let go of: gone */
	assert_int_equal(rados_striper_create(cl.io, &rs), 0);
	assert_int_equal(rados_striper_write(rs, name, (const char *)want, 3000, 0), 0);
	rados_striper_destroy(rs);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(h.id, 0);
	assert_int_equal(striped_head_remove(cl.io, name, &h, sizeof(h)), 0);
	assert_false(object_exists(name));
	/* bad arguments */
	assert_int_equal(striped_head_remove(cl.io, name, NULL, sizeof(h)), -EINVAL);
	assert_int_equal(striped_head_remove(cl.io, name, &h, SHORT_OF_0_8), -EINVAL);
	assert_int_equal(striped_head_remove(NULL, name, &h, sizeof(h)), -EINVAL);
	assert_int_equal(striped_head_remove(cl.io, "", &h, sizeof(h)), -EINVAL);
	h.layout = bad_layout;
	assert_int_equal(striped_head_remove(cl.io, name, &h, sizeof(h)), -EINVAL);
}

/*
 * Since 0.9: a name taken empty (striped_head_create2(), the head as made)
 * and filled whole as made (striped_head_replace()): another connection
 * reads the empty file, then the bytes and xattrs whole; the fill is
 * refused (-ECANCELED, nothing written) when the file changed, is held or
 * was replaced by another; refused (-EINVAL, -EFBIG) on bad input.
 */
static void test_head_replace(void **state)
{
	struct cluster other = {0};
	struct striped_head h, seen, stale;
	struct striped_file *f;
	struct striped_xattr_value x[] = {{"user.tag", "v1", 2}};
	struct striped_xattrs *it = NULL;
	char name[64], got[8] = {0};
	uint8_t want[5000], back[5000];
	const char *k;
	const void *v;
	size_t vlen;
	int tags;

	(void)state;
	cluster_connect(&other);
	unique_name(name, sizeof(name), "ops-hreplace");
	pattern_fill(want, sizeof(want), 43, 0);
	assert_int_equal(striped_head_create2(cl.io, name, &small, NULL, 0, NULL, 0, &h, sizeof(h)),
			 0);
	assert_int_equal(striped_head_read(other.io, name, &seen, sizeof(seen)), 0);
	assert_int_equal(seen.size, 0);
	assert_int_equal(h.id, seen.id);
	assert_int_equal(h.reserved, seen.reserved);
	assert_memory_equal(&h.layout, &seen.layout, sizeof(h.layout));
	/* filled: the other connection reads it whole, the xattr with it */
	assert_int_equal(striped_head_replace(cl.io, name, &h, sizeof(h), want, sizeof(want), x, 1),
			 0);
	assert_int_equal(h.size, sizeof(want));
	assert_int_equal(striped_head_pread(other.io, name, &seen, sizeof(seen), back, sizeof(back),
					    0),
			 (ssize_t)sizeof(back));
	assert_memory_equal(back, want, sizeof(want));
	assert_int_equal(seen.size, sizeof(want));
	assert_int_equal(striped_open(other.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_getxattr(f, "user.tag", got, sizeof(got)), 2);
	assert_memory_equal(got, "v1", 2);
	/* held by the other connection's handle: refused, nothing written */
	assert_int_equal(striped_head_replace(cl.io, name, &h, sizeof(h), "zz", 2, NULL, 0),
			 -ECANCELED);
	assert_int_equal(striped_write(f, "ab", 2, 5000), 2);
	striped_close(f);
	/* changed since (the other's write): refused */
	stale = h;
	assert_int_equal(striped_head_replace(cl.io, name, &stale, sizeof(stale), "zz", 2, NULL, 0),
			 -ECANCELED);
	assert_int_equal(striped_head_read(other.io, name, &seen, sizeof(seen)), 0);
	assert_int_equal(seen.size, 5002);
	/* as read now: filled again, shorter */
	assert_int_equal(striped_head_replace(cl.io, name, &seen, sizeof(seen), "zz", 2, NULL, 0),
			 0);
	assert_int_equal(striped_head_pread(other.io, name, &seen, sizeof(seen), back, sizeof(back),
					    0),
			 2);
	assert_memory_equal(back, "zz", 2);
	/* removed and made again (another id): refused */
	assert_int_equal(striped_head_remove(other.io, name, &seen, sizeof(seen)), 0);
	assert_int_equal(striped_head_replace(cl.io, name, &seen, sizeof(seen), "zz", 2, NULL, 0),
			 -ENOENT);
	assert_int_equal(striped_head_create(other.io, name, &small, "new", 3, NULL, 0), 0);
	assert_int_equal(striped_head_replace(cl.io, name, &seen, sizeof(seen), "zz", 2, NULL, 0),
			 -ECANCELED);
	assert_int_equal(striped_head_pread(other.io, name, &seen, sizeof(seen), back, sizeof(back),
					    0),
			 3);
	assert_memory_equal(back, "new", 3);
	/* as the pread gave it: filled; then bytes, metadata and xattrs in one read (pread2) */
	assert_int_equal(striped_head_replace(cl.io, name, &seen, sizeof(seen), "with", 4, x, 1),
			 0);
	assert_int_equal(striped_head_pread2(other.io, name, &stale, sizeof(stale), back,
					     sizeof(back), 0, &it),
			 4);
	assert_memory_equal(back, "with", 4);
	assert_int_equal(stale.size, 4);
	tags = 0;
	while (!striped_getxattrs_next(it, &k, &v, &vlen) && k)
		tags += !strcmp(k, "user.tag") && vlen == 2 && !memcmp(v, "v1", 2);
	striped_getxattrs_end(it);
	assert_int_equal(tags, 1);
	it = NULL;
	assert_int_equal(striped_head_pread2(other.io, "ops-hreplace-none", &stale, sizeof(stale),
					     back, sizeof(back), 0, &it),
			 -ENOENT);
	assert_null(it);
	assert_int_equal(striped_head_pread2(other.io, name, &stale, sizeof(stale), back,
					     sizeof(back), 0, NULL),
			 4);
	assert_int_equal(striped_head_replace(cl.io, name, &stale, sizeof(stale), "new", 3, NULL, 0),
			 0);
	/* bad input: nothing written */
	assert_int_equal(striped_head_replace(cl.io, name, &seen, sizeof(seen), back,
					      small.stripe_unit + 1, NULL, 0),
			 -EFBIG);
	assert_int_equal(striped_head_replace(cl.io, name, NULL, sizeof(seen), "a", 1, NULL, 0),
			 -EINVAL);
	assert_int_equal(striped_head_replace(cl.io, name, &seen, SHORT_OF_0_8, "a", 1, NULL, 0),
			 -EINVAL);
	assert_int_equal(striped_head_replace(cl.io, name, &seen, sizeof(seen), NULL, 1, NULL, 0),
			 -EINVAL);
	assert_int_equal(striped_head_replace(cl.io, name, &seen, sizeof(seen), "a", 1, NULL, 1),
			 -EINVAL);
	assert_int_equal(striped_head_replace(NULL, name, &seen, sizeof(seen), "a", 1, NULL, 0),
			 -EINVAL);
	assert_int_equal(striped_head_create2(cl.io, name, &small, NULL, 0, NULL, 0, &h, 1),
			 -EINVAL);
	assert_int_equal(striped_head_create2(cl.io, name, &small, NULL, 0, NULL, 0, &h, sizeof(h)),
			 -EEXIST);
	assert_int_equal(striped_head_pread(other.io, name, &seen, sizeof(seen), back, sizeof(back),
					    0),
			 3);
	assert_memory_equal(back, "new", 3);
	assert_int_equal(striped_remove(cl.io, name), 0);
	cluster_disconnect(&other);
}

/* A holder for test_head_take(): the files it holds, written back when asked (or not). */
struct held {
	rados_ioctx_t io;
	const char *name;
	struct striped_head h;
	const uint8_t *bytes;
	size_t len;
	bool write_back; /* false: answers without writing (a holder that lost it) */
	atomic_int asked;
	int replaced;	 /* what its write-back returned */
};

static void held_asked(void *arg, const char *name)
{
	struct held *held = arg;

	atomic_fetch_add(&held->asked, 1);
	if (held->write_back && !strcmp(name, held->name))
		held->replaced = striped_head_replace(held->io, name, &held->h, sizeof(held->h),
						      held->bytes, held->len, NULL, 0);
}

/*
 * Since 0.9: a name taken now and written later (striped_head_take()):
 * another connection's read by name, pread and open each ask the holder,
 * which writes it back, and see its bytes; a holder that answers without
 * writing it back is asked a few times, then its mark is taken off and the
 * file read as RADOS has it (empty), and its late write-back is refused;
 * a holder that is gone is not waited for; bad input refused.
 */
static void test_head_take(void **state)
{
	struct cluster other = {0};
	struct held held = {.write_back = true};
	struct striped_holder *holder;
	struct striped_head seen;
	struct striped_file *f;
	char name[64], lost[80];
	uint8_t want[5000], back[5000];

	(void)state;
	cluster_connect(&other);
	unique_name(name, sizeof(name), "ops-htake");
	pattern_fill(want, sizeof(want), 47, 0);
	held.io = cl.io;
	held.name = name;
	held.bytes = want;
	held.len = sizeof(want);
	assert_int_equal(striped_holder_open(cl.io, held_asked, &held, &holder), 0);
	assert_int_equal(striped_head_take(cl.io, name, &small, NULL, 0, holder, &held.h,
					   sizeof(held.h)),
			 0);
	assert_int_not_equal(held.h.holder, 0);
	assert_int_equal(held.h.size, 0);
	/* read by name: written back first */
	assert_int_equal(striped_head_read(other.io, name, &seen, sizeof(seen)), 0);
	assert_int_equal(atomic_load(&held.asked), 1);
	assert_int_equal(held.replaced, 0);
	assert_int_equal(held.h.holder, 0);
	assert_int_equal(seen.size, sizeof(want));
	assert_int_equal(seen.holder, 0);
	assert_int_equal(striped_head_pread(other.io, name, &seen, sizeof(seen), back, sizeof(back),
					    0),
			 (ssize_t)sizeof(back));
	assert_memory_equal(back, want, sizeof(want));
	assert_int_equal(atomic_load(&held.asked), 1); /* held no more: not asked again */
	assert_int_equal(striped_remove(cl.io, name), 0);
	/* opened: written back first */
	assert_int_equal(striped_head_take(cl.io, name, &small, NULL, 0, holder, &held.h,
					   sizeof(held.h)),
			 0);
	assert_int_equal(striped_open(other.io, name, 0, NULL, &f), 0);
	assert_int_equal(atomic_load(&held.asked), 2);
	assert_int_equal(striped_read(f, back, sizeof(back), 0), (ssize_t)sizeof(back));
	assert_memory_equal(back, want, sizeof(want));
	striped_close(f);
	assert_int_equal(striped_remove(cl.io, name), 0);
	/* a holder that answers without writing it back: its mark taken off, its write refused */
	held.write_back = false;
	assert_int_equal(striped_head_take(cl.io, name, &small, NULL, 0, holder, &held.h,
					   sizeof(held.h)),
			 0);
	assert_int_equal(striped_head_pread(other.io, name, &seen, sizeof(seen), back, sizeof(back),
					    0),
			 0);
	assert_int_equal(seen.holder, 0);
	assert_int_equal(atomic_load(&held.asked), 5); /* asked three times */
	assert_int_equal(striped_head_replace(cl.io, name, &held.h, sizeof(held.h), want,
					      sizeof(want), NULL, 0),
			 -ECANCELED);
	assert_int_equal(striped_head_read(other.io, name, &seen, sizeof(seen)), 0);
	assert_int_equal(seen.size, 0);
	/* taken, and the name is taken: EEXIST for anyone, the holder too */
	assert_int_equal(striped_head_take(cl.io, name, &small, NULL, 0, holder, &held.h,
					   sizeof(held.h)),
			 -EEXIST);
	assert_int_equal(striped_remove(cl.io, name), 0);
	/* bad input */
	assert_int_equal(striped_head_take(cl.io, name, &small, NULL, 0, NULL, &held.h,
					   sizeof(held.h)),
			 -EINVAL);
	assert_int_equal(striped_head_take(cl.io, name, &small, NULL, 0, holder, &held.h,
					   offsetof(struct striped_head, holder)),
			 -EINVAL);
	assert_int_equal(striped_head_take(cl.io, name, &small, NULL, 0, holder, NULL, 0),
			 -EINVAL);
	assert_int_equal(striped_holder_open(cl.io, NULL, &held, &holder), -EINVAL);
	/* a holder gone: its files read as RADOS has them, without waiting */
	snprintf(lost, sizeof(lost), "%s-lost", name);
	assert_int_equal(striped_head_take(cl.io, lost, &small, NULL, 0, holder, &held.h,
					   sizeof(held.h)),
			 0);
	striped_holder_close(holder);
	assert_int_equal(striped_open(other.io, lost, 0, NULL, &f), 0);
	assert_int_equal(striped_read(f, back, sizeof(back), 0), 0);
	striped_close(f);
	assert_int_equal(atomic_load(&held.asked), 5);
	assert_int_equal(striped_head_read(cl.io, lost, &seen, sizeof(seen)), 0);
	assert_int_equal(seen.holder, 0);
	assert_int_equal(striped_remove(cl.io, lost), 0);
	cluster_disconnect(&other);
}

static void test_lockers(void **state)
{
	struct striped_lockers *it;
	struct striped_locker l, part;
	struct striped_file *f;
	char name[64], head[96], self[64], byte;
	size_t n;

	(void)state;
	unique_name(name, sizeof(name), "ops-lockers");
	striped_object_name(name, 0, head, sizeof(head));
	snprintf(self, sizeof(self), "client.%llu",
		 (unsigned long long)rados_get_instance_id(cl.rados));
	make_file(cl.io, name, 1000, 3, &f);
	striped_file_set_lease(f, STRIPED_LEASE_MAX_SECONDS);
	assert_int_equal(striped_read(f, &byte, 1, 0), 1); /* the lock is held */
	/* The handle's lock, then libradosstriper's (a UUID, "Tag"), then one by hand. */
	assert_int_equal(
	    rados_lock_shared(cl.io, head, "striper.lock", UUID_COOKIE, "Tag", "", NULL, 0), 0);
	assert_int_equal(
	    rados_lock_shared(cl.io, head, "striper.lock", "by-hand", "Tag", "", NULL, 0), 0);
	assert_true(find_locker(name, UUID_COOKIE, &l, &n));
	assert_int_equal(n, 3);
	assert_int_equal(l.owner, STRIPED_LOCKER_LIBRADOSSTRIPER);
	assert_int_equal(l.exclusive, 0);
	assert_string_equal(l.tag, "Tag");
	assert_string_equal(l.client, self);
	assert_true(strlen(l.address) > 0);
	locker_free(&l);
	assert_true(find_locker(name, "by-hand", &l, &n));
	assert_int_equal(l.owner, STRIPED_LOCKER_OTHER);
	locker_free(&l);

	/* The handle's own: its cookie is libstriped's. */
	assert_int_equal(striped_lockers_open(cl.io, name, &it), 0);
	for (;;) {
		assert_int_equal(striped_lockers_next(it, &l, sizeof(l)), 0);
		assert_non_null(l.client);
		if (l.owner == STRIPED_LOCKER_LIBSTRIPED)
			break;
	}
	assert_memory_equal(l.cookie, "striped-", 8);
	striped_lockers_close(it);
	/* A caller built with a smaller struct gets only what it knows of. */
	assert_int_equal(striped_lockers_open(cl.io, name, &it), 0);
	memset(&part, 0, sizeof(part));
	assert_int_equal(striped_lockers_next(it, &part, sizeof(part.client)), 0);
	assert_non_null(part.client);
	assert_null(part.cookie);
	assert_int_equal(striped_lockers_next(it, &part, 1), -EINVAL);
	striped_lockers_close(it);

	/* Breaking: unknown holders and bad arguments are refused. */
	assert_int_equal(
	    striped_lock_break(cl.io, name, self, "no-such-cookie", STRIPED_LOCK_BREAK_UNFENCED),
	    -ENOENT);
	assert_int_equal(
	    striped_lock_break(cl.io, name, "client.1", "by-hand", STRIPED_LOCK_BREAK_UNFENCED),
	    -ENOENT);
	assert_int_equal(striped_lock_break(cl.io, name, self, "by-hand", 7), -EINVAL);
	assert_int_equal(striped_lock_break(cl.io, "ops-no-such-file", self, "by-hand",
					    STRIPED_LOCK_BREAK_UNFENCED),
			 -ENOENT);
	assert_int_equal(
	    striped_lock_break(cl.io, name, self, "by-hand", STRIPED_LOCK_BREAK_UNFENCED), 0);
	assert_int_equal(
	    striped_lock_break(cl.io, name, self, UUID_COOKIE, STRIPED_LOCK_BREAK_UNFENCED), 0);
	assert_false(find_locker(name, UUID_COOKIE, &l, &n));
	assert_int_equal(n, 1);
	striped_close(f);
	assert_false(find_locker(name, NULL, &l, &n));
	assert_int_equal(n, 0);
	assert_int_equal(striped_lockers_open(cl.io, "ops-no-such-file", &it), -ENOENT);
	remove_all(cl.io, name);
}

/* ---- holders as librados names them: libstriped decodes cls_lock's reply itself ---- */

#define BIG (64 * KiB)

/* librados' listing, with buffers large enough for anything here. */
struct listing {
	ssize_t n;
	int exclusive;
	char tag[BIG], clients[BIG], cookies[BIG], addrs[BIG];
};

static void librados_lockers(const char *head, struct listing *a)
{
	size_t tl = sizeof(a->tag), cl_len = sizeof(a->clients), col = sizeof(a->cookies),
	       al = sizeof(a->addrs);

	a->n = rados_list_lockers(cl.io, head, "striper.lock", &a->exclusive, a->tag, &tl,
				  a->clients, &cl_len, a->cookies, &col, a->addrs, &al);
	assert_true(a->n >= 0);
}

/* The first `upto` holders, and the tag and kind, as libstriped lists them, equal librados'. */
static void assert_as_librados(const char *name, const char *head, size_t upto)
{
	struct listing *a = malloc(sizeof(*a));
	const char *client, *cookie, *addr;
	struct striped_lockers *it;
	struct striped_locker l;
	size_t n = 0;

	assert_non_null(a);
	librados_lockers(head, a);
	client = a->clients, cookie = a->cookies, addr = a->addrs;
	assert_int_equal(striped_lockers_open(cl.io, name, &it), 0);
	for (;; n++) {
		assert_int_equal(striped_lockers_next(it, &l, sizeof(l)), 0);
		if (!l.client)
			break;
		assert_true(n < (size_t)a->n);
		if (n < upto) {
			assert_string_equal(l.client, client);
			assert_string_equal(l.cookie, cookie);
			assert_string_equal(l.address, addr);
		}
		assert_int_equal(l.exclusive, a->exclusive);
		assert_int_equal(strncmp(l.tag, a->tag, 63), 0);
		client += strlen(client) + 1, cookie += strlen(cookie) + 1, addr += strlen(addr) + 1;
	}
	assert_int_equal(n, a->n < 64 ? (size_t)a->n : 64);
	striped_lockers_close(it);
	free(a);
}

/* cls_lock's lock request by hand: a cookie of any bytes, a NUL too (the C++ API takes one). */
static void lock_raw(const char *head, const char *cookie, size_t cookie_len)
{
	const char *strs[] = {"striper.lock", cookie, "Tag", ""};
	size_t lens[] = {12, cookie_len, 3, 0};
	char in[512], *at = in + 6;
	rados_write_op_t op = rados_create_write_op();
	uint32_t len;
	int prval = 0;

	*in = 1, in[1] = 1;
	for (int i = 0; i < 4; i++) {
		len = (uint32_t)lens[i]; /* little-endian, as this host */
		memcpy(at, &len, 4);
		memcpy(at + 4, strs[i], lens[i]);
		at += 4 + lens[i];
		if (i == 0)
			*at++ = 2; /* shared, after the name */
	}
	memset(at, 0, 9); /* no expiry (sec, nsec), no flags */
	at += 9;
	len = (uint32_t)(at - in - 6);
	memcpy(in + 2, &len, 4);
	rados_write_op_exec(op, "lock", "lock", in, (size_t)(at - in), &prval);
	assert_int_equal(rados_write_op_operate(op, cl.io, head, NULL, 0), 0);
	assert_int_equal(prval, 0);
	rados_release_write_op(op);
}

/* rados_list_lockers() into the buffers libstriped gave it before (64 B, 4, 8 and 8 KiB). */
static int old_buffers(const char *head)
{
	struct listing *a = malloc(sizeof(*a));
	size_t tag_len = 64, clients_len = 4096, cookies_len = 8192, addrs_len = 8192;
	int excl, r;

	assert_non_null(a);
	r = (int)rados_list_lockers(cl.io, head, "striper.lock", &excl, a->tag, &tag_len,
				    a->clients, &clients_len, a->cookies, &cookies_len, a->addrs,
				    &addrs_len);
	free(a);
	return r;
}

static void test_lockers_as_librados(void **state)
{
	char name[64], head[96], tag[101], cookie[64], self[64];
	struct striped_lockers *it;
	struct striped_locker l;
	struct striped_file *f;

	(void)state;
	unique_name(name, sizeof(name), "ops-lockinfo");
	striped_object_name(name, 0, head, sizeof(head));
	snprintf(self, sizeof(self), "client.%llu",
		 (unsigned long long)rados_get_instance_id(cl.rados));
	make_file(cl.io, name, 1000, 5, &f);
	striped_file_set_lease(f, STRIPED_LEASE_MAX_SECONDS);
	assert_int_equal(striped_write(f, "a", 1, 0), 1); /* the handle holds the lock */
	assert_int_equal(
	    rados_lock_shared(cl.io, head, "striper.lock", UUID_COOKIE, "Tag", "", NULL, 0), 0);
	assert_as_librados(name, head, SIZE_MAX);
	striped_close(f);
	assert_int_equal(rados_unlock(cl.io, head, "striper.lock", UUID_COOKIE), 0);

	/* Exclusive, tag "": libradosstriper's truncate and remove. */
	assert_int_equal(
	    rados_lock_exclusive(cl.io, head, "striper.lock", "by-hand", "", NULL, 0), 0);
	assert_as_librados(name, head, SIZE_MAX);
	assert_int_equal(rados_unlock(cl.io, head, "striper.lock", "by-hand"), 0);

	/*
	 * A tag longer than 63 bytes: rados_list_lockers() into libstriped's
	 * old 64-byte buffer said -ERANGE, so `striped stat` and truncate and
	 * remove (which list the holders to ask them) failed. Listed now.
	 */
	memset(tag, 't', sizeof(tag) - 1);
	tag[sizeof(tag) - 1] = '\0';
	assert_int_equal(rados_lock_shared(cl.io, head, "striper.lock", "long-tag", tag, "", NULL, 0),
			 0);
	assert_int_equal(old_buffers(head), -ERANGE);
	assert_as_librados(name, head, SIZE_MAX);
	assert_int_equal(rados_unlock(cl.io, head, "striper.lock", "long-tag"), 0);

	/* More holders than the old 8 KiB of cookies held: the first 64 listed. */
	for (int i = 0; i < 150; i++) {
		snprintf(cookie, sizeof(cookie), "many-%03d-%050d", i, 0);
		assert_int_equal(
		    rados_lock_shared(cl.io, head, "striper.lock", cookie, "Tag", "", NULL, 0), 0);
	}
	assert_int_equal(old_buffers(head), -ERANGE);
	assert_as_librados(name, head, SIZE_MAX);
	for (int i = 0; i < 150; i++) {
		snprintf(cookie, sizeof(cookie), "many-%03d-%050d", i, 0);
		assert_int_equal(rados_unlock(cl.io, head, "striper.lock", cookie), 0);
	}

	/*
	 * A cookie with a NUL byte: rados_list_lockers() copies it up to the
	 * NUL but steps over its whole length, so every later cookie of its
	 * list was read from the wrong place (the next holder named with
	 * another's cookie, or garbage). Each holder keeps its own now.
	 */
	lock_raw(head, "a\0zzzzzz", 8);
	assert_int_equal(
	    rados_lock_shared(cl.io, head, "striper.lock", "b-after", "Tag", "", NULL, 0), 0);
	assert_int_equal(striped_lockers_open(cl.io, name, &it), 0);
	assert_int_equal(striped_lockers_next(it, &l, sizeof(l)), 0);
	assert_string_equal(l.cookie, "a");
	assert_string_equal(l.client, self);
	assert_int_equal(striped_lockers_next(it, &l, sizeof(l)), 0);
	assert_string_equal(l.cookie, "b-after");
	assert_int_equal(striped_lockers_next(it, &l, sizeof(l)), 0);
	assert_null(l.client);
	striped_lockers_close(it);
	assert_int_equal(
	    striped_lock_break(cl.io, name, self, "b-after", STRIPED_LOCK_BREAK_UNFENCED), 0);
	/* The holder whose cookie has a NUL is not one a C string names: the head goes with it. */
	assert_int_equal(rados_remove(cl.io, head), 0);
	remove_all(cl.io, name);
}

/* Another client's lock, broken fenced: it is gone, and that client can write no more. */
static void test_lock_break_fenced(void **state)
{
	struct striped_lockers *it;
	struct striped_locker l;
	struct striped_file *f;
	struct cluster other;
	char name[64], client[64], cookie[128];
	size_t n;

	(void)state;
	unique_name(name, sizeof(name), "ops-fence");
	cluster_connect(&other);
	make_file(other.io, name, 1000, 4, &f);
	striped_file_set_lease(f, STRIPED_LEASE_MAX_SECONDS);
	assert_int_equal(striped_write(f, "a", 1, 0), 1);
	assert_int_equal(striped_lockers_open(cl.io, name, &it), 0);
	assert_int_equal(striped_lockers_next(it, &l, sizeof(l)), 0);
	assert_non_null(l.client);
	assert_int_equal(l.owner, STRIPED_LOCKER_LIBSTRIPED);
	snprintf(client, sizeof(client), "%s", l.client);
	snprintf(cookie, sizeof(cookie), "%s", l.cookie);
	striped_lockers_close(it);
	assert_int_equal(striped_lock_break(cl.io, name, client, cookie, STRIPED_LOCK_BREAK_FENCE),
			 0);
	assert_false(find_locker(name, NULL, &l, &n));
	assert_int_equal(n, 0);
	/* Its address is blocklisted: whatever it sends now is refused. */
	assert_int_equal(striped_write(f, "b", 1, 0), -ESHUTDOWN);
	striped_close(f);
	cluster_disconnect(&other);
	remove_all(cl.io, name);
}

/*
 * A new file's mark is its first stripe unit (those bytes live in the head
 * object): a first write within it sends its data and size, nothing before
 * them; the first write past it raises the mark far ahead.
 */
static void test_new_file_mark(void **state)
{
	struct striped_completion *c;
	struct striped_io_stats st;
	struct striped_head h;
	struct striped_file *f;
	char name[64], buf[4096] = {1};

	(void)state;
	unique_name(name, sizeof(name), "ops-newmark");
	assert_int_equal(striped_open(cl.io, name, STRIPED_CREATE | STRIPED_EXCL, &small, &f), 0);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(h.size, 0);
	assert_int_equal(h.reserved, small.stripe_unit);
	/* Its data and, beside it, its size: two operations, none before them. */
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_write(f, c, buf, sizeof(buf), 0), 0);
	assert_int_equal(striped_completion_wait(c), 0);
	assert_int_equal(striped_completion_result(c), (ssize_t)sizeof(buf));
	assert_int_equal(striped_completion_stats(c, &st, sizeof(st)), 0);
	assert_int_equal(st.ops, 2); /* 3 before: the mark's raise went first */
	striped_completion_release(c);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(h.size, sizeof(buf));
	assert_int_equal(h.reserved, small.stripe_unit); /* not raised */
	/* Past the first unit: raised far ahead (4 MiB past the end at least). */
	assert_int_equal(striped_write(f, buf, sizeof(buf), small.stripe_unit), (ssize_t)sizeof(buf));
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_true(h.reserved >= small.stripe_unit + sizeof(buf) + 4 * MiB);
	striped_close(f);
	assert_int_equal(striped_remove(cl.io, name), 0);
}

/* Orphans past the size: a tail in the size's object set, up to the mark, past it. */
static void test_repair_orphans(void **state)
{
	const uint64_t size = 300000; /* in object 2: 300000 - 256 KiB = 37856 bytes of it */
	uint64_t past_mark = 1000, within = 6, got, listed[] = {2, 6, 1000};
	struct striped_head h;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "ops-repair");
	make_file(cl.io, name, size, 5, NULL);
	assert_int_equal(object_size(cl.io, name, 2, &got), 0);
	assert_int_equal(got, 37856);
	put_object(cl.io, name, 2, 37856, 1000); /* bytes 300000.. of the file */
	put_object(cl.io, name, within, 0, 4096);
	put_object(cl.io, name, past_mark, 0, 4096);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_true(h.reserved > (within / 2 + 1) * 256 * KiB);
	assert_true(h.reserved < past_mark / 2 * 256 * KiB);

	/* By name alone: up to the mark, not past it. */
	assert_int_equal(striped_repair(cl.io, name, NULL, 0), 0);
	assert_int_equal(object_size(cl.io, name, 2, &got), 0);
	assert_int_equal(got, 37856);
	assert_int_equal(object_size(cl.io, name, within, &got), -ENOENT);
	assert_int_equal(object_size(cl.io, name, past_mark, &got), 0);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), 0);
	assert_int_equal(h.size, size);
	assert_int_equal(h.reserved, size); /* the mark came down to the size */
	/* With what a listing found: past the mark too. */
	put_object(cl.io, name, 2, 37856, 10);
	assert_int_equal(striped_repair(cl.io, name, listed, 3), 0);
	assert_int_equal(object_size(cl.io, name, past_mark, &got), -ENOENT);
	assert_int_equal(object_size(cl.io, name, 2, &got), 0);
	assert_int_equal(got, 37856);
	assert_pattern(cl.io, name, size, 5);
	assert_int_equal(striped_repair(cl.io, name, listed, 3), 0); /* nothing left: 0 */
	assert_int_equal(striped_repair(cl.io, name, NULL, 1), -EINVAL);
	assert_int_equal(striped_repair(cl.io, "", NULL, 0), -EINVAL);
	remove_all(cl.io, name);
}

/*
 * libradosstriper's remove cleans up to the size: the objects past it lose
 * their head. (It counts the objects with its own default layout, not the
 * file's: here it leaves object 1 as well.)
 */
static void test_repair_headless(void **state)
{
	uint64_t got, listed[] = {1, 5, 9};
	rados_striper_t striper;
	struct striped_head h;
	char name[64];

	(void)state;
	unique_name(name, sizeof(name), "ops-headless");
	make_file(cl.io, name, 100000, 6, NULL);
	put_object(cl.io, name, 5, 0, 100);
	put_object(cl.io, name, 9, 0, 100);
	assert_int_equal(rados_striper_create(cl.io, &striper), 0);
	assert_int_equal(rados_striper_remove(striper, name), 0);
	rados_striper_destroy(striper);
	assert_int_equal(striped_head_read(cl.io, name, &h, sizeof(h)), -ENOENT);
	assert_int_equal(object_size(cl.io, name, 5, &got), 0);
	assert_int_equal(striped_repair(cl.io, name, NULL, 0), -ENOENT);
	assert_int_equal(striped_repair(cl.io, name, listed, 3), 0);
	assert_int_equal(object_size(cl.io, name, 5, &got), -ENOENT);
	assert_int_equal(object_size(cl.io, name, 9, &got), -ENOENT);
	assert_int_equal(count_objects(cl.io, name), 0);

	/* Listed without a head, but the file came back meanwhile: its data stays. */
	make_file(cl.io, name, 1536 * KiB, 7, NULL); /* objects 0 .. 11, object 5 full */
	assert_int_equal(striped_repair(cl.io, name, listed, 3), 0);
	assert_int_equal(object_size(cl.io, name, 5, &got), 0);
	assert_int_equal(got, 128 * KiB);
	assert_pattern(cl.io, name, 1536 * KiB, 7);
	remove_all(cl.io, name);
}

/* A damaged head: reported by the caller, never touched here. */
static void test_repair_corrupt(void **state)
{
	uint64_t got, listed[] = {7};
	char name[64], head[96], value[16];

	(void)state;
	unique_name(name, sizeof(name), "ops-corrupt");
	make_file(cl.io, name, 1000, 8, NULL);
	put_object(cl.io, name, 7, 0, 100);
	striped_object_name(name, 0, head, sizeof(head));
	assert_int_equal(rados_setxattr(cl.io, head, "striper.size", "x", 1), 0);
	assert_int_equal(striped_repair(cl.io, name, listed, 1), -EUCLEAN);
	assert_int_equal(object_size(cl.io, name, 7, &got), 0);
	assert_int_equal(rados_getxattr(cl.io, head, "striper.size", value, sizeof(value)), 1);
	assert_int_equal(object_size(cl.io, name, 0, &got), 0);
	assert_int_equal(got, 1000);
	assert_int_equal(rados_remove(cl.io, head), 0);
	assert_int_equal(striped_repair(cl.io, name, listed, 1), 0); /* headless now */
	assert_int_equal(count_objects(cl.io, name), 0);
}

struct writer {
	struct cluster c;
	char name[64];
	uint64_t seed, written;
	atomic_bool stop;
	int error;
};

/* Appends the pattern in calls of 16 KiB .. 1 MiB until told to stop. */
static void *write_on(void *arg)
{
	struct writer *w = arg;
	struct striped_file *f;
	uint8_t *buf = malloc(MiB);
	unsigned step = 0;

	if (!buf || striped_open(w->c.io, w->name, 0, NULL, &f)) {
		w->error = -EIO;
		free(buf);
		return NULL;
	}
	while (!atomic_load(&w->stop)) {
		size_t len = (16 * KiB) << (step++ % 7);
		ssize_t n;

		pattern_fill(buf, len, w->seed, w->written);
		n = striped_write(f, buf, len, w->written);
		if (n != (ssize_t)len) {
			w->error = n < 0 ? (int)n : -EIO;
			break;
		}
		w->written += len;
	}
	striped_close(f);
	free(buf);
	return NULL;
}

/* Repairs while a writer of another client appends: not a byte of it is lost. */
static void test_repair_live_writer(void **state)
{
	static struct writer w = {.seed = 9};
	uint64_t listed[] = {40, 41, 4000};
	pthread_t t;

	(void)state;
	unique_name(w.name, sizeof(w.name), "ops-live");
	make_file(cl.io, w.name, 0, w.seed, NULL);
	cluster_connect(&w.c);
	atomic_store(&w.stop, false);
	assert_int_equal(pthread_create(&t, NULL, write_on, &w), 0);
	for (int i = 0; i < 6; i++) {
		usleep(300000);
		assert_int_equal(striped_repair(cl.io, w.name, listed, 3), 0);
	}
	atomic_store(&w.stop, true);
	pthread_join(t, NULL);
	cluster_disconnect(&w.c);
	assert_int_equal(w.error, 0);
	assert_true(w.written > 2 * MiB);
	assert_pattern(cl.io, w.name, w.written, w.seed);
	remove_all(cl.io, w.name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_head_read), cmocka_unit_test(test_head_pread),	   cmocka_unit_test(test_head_getxattrs),
	    cmocka_unit_test(test_head_create), cmocka_unit_test(test_head_remove_as_read),
	    cmocka_unit_test(test_head_replace), cmocka_unit_test(test_head_take),
	    cmocka_unit_test(test_new_file_mark),
	    cmocka_unit_test(test_lockers),	   cmocka_unit_test(test_lockers_as_librados),
	    cmocka_unit_test(test_lock_break_fenced),
	    cmocka_unit_test(test_repair_orphans), cmocka_unit_test(test_repair_headless),
	    cmocka_unit_test(test_repair_corrupt), cmocka_unit_test(test_repair_live_writer),
	};

	cluster_skip_unless_configured();
	return cmocka_run_group_tests(tests, cluster_group_setup, cluster_group_teardown);
}
