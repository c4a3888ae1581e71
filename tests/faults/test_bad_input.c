// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bad input through the public API: every refusal with its exact errno, and
 * the edge values that must still work. The pure cases always run; the ones
 * that need an I/O context run against the cluster named by CEPH_CONF and
 * STRIPED_TEST_POOL and are skipped without one.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rados/librados.h>

#include "../cluster_check.h"
#include "striped.h"

#define K64 65536ull
#define MiB (1ull << 20)
#define U32 (1ull << 32)

static rados_t cluster;
static rados_ioctx_t io;
static const char *skip_reason;

static void need_cluster(void)
{
	if (!io) {
		printf("skipped: %s\n", skip_reason);
		skip();
	}
}

static void name_for(char *buf, size_t len, const char *what)
{
	static unsigned int seq;

	snprintf(buf, len, "bad-%s-%ld-%u", what, (long)getpid(), seq++);
}

/* ---- layouts ---- */

static int validate(uint64_t su, uint64_t sc, uint64_t os)
{
	struct striped_layout l = {su, sc, os};

	return striped_layout_validate(&l);
}

static void test_layout_invalid(void **state)
{
	(void)state;
	assert_int_equal(striped_layout_validate(NULL), -EINVAL);
	assert_int_equal(validate(0, 1, K64), -EINVAL);	     /* no stripe unit */
	assert_int_equal(validate(1000, 1, 64000), -EINVAL); /* not 64K-aligned */
	assert_int_equal(validate(K64 + 4096, 1, 2 * (K64 + 4096)), -EINVAL);
	assert_int_equal(validate(K64, 0, K64), -EINVAL);	  /* no objects per set */
	assert_int_equal(validate(K64, 1, 0), -EINVAL);		  /* no object size */
	assert_int_equal(validate(2 * K64, 1, K64), -EINVAL);	  /* object < unit */
	assert_int_equal(validate(2 * K64, 1, 3 * K64), -EINVAL); /* not a multiple */
	assert_int_equal(validate(U32, 1, U32), -EINVAL);	  /* 32-bit fields */
	assert_int_equal(validate(K64, 1, U32), -EINVAL);
	assert_int_equal(validate(K64, U32, K64), -EINVAL);
	assert_int_equal(validate(UINT64_MAX, UINT64_MAX, UINT64_MAX), -EINVAL);
	assert_int_equal(validate(U32 + K64, 1, U32 + K64), -EINVAL); /* wraps to 64K in 32 bits */
}

static void test_layout_edges_valid(void **state)
{
	struct striped_layout def = STRIPED_LAYOUT_DEFAULT_INIT;

	(void)state;
	assert_int_equal(striped_layout_validate(&def), 0);
	assert_int_equal(validate(K64, 1, K64), 0);
	assert_int_equal(validate(K64, UINT32_MAX, K64), 0);
	assert_int_equal(validate(U32 - K64, 1, U32 - K64), 0);
	assert_int_equal(validate(K64, 3, U32 - K64), 0);
}

/* ---- mapping ---- */

static void test_map_bad(void **state)
{
	struct striped_layout l = {K64, 4, MiB}, bad = {1000, 1, 1000};
	struct striped_extent ext[4];

	(void)state;
	assert_int_equal(striped_layout_map(NULL, 0, 1, ext, 4), -EINVAL);
	assert_int_equal(striped_layout_map(&bad, 0, 1, ext, 4), -EINVAL);
	assert_int_equal(striped_layout_map(&l, 0, 1, NULL, 1), -EINVAL);
	assert_int_equal(striped_layout_map(&l, UINT64_MAX, 1, ext, 4), -EOVERFLOW);
	assert_int_equal(striped_layout_map(&l, 1ull << 63, 1ull << 63, ext, 4), -EOVERFLOW);
	assert_int_equal(striped_layout_map(&l, 1, UINT64_MAX, ext, 4), -EOVERFLOW);
	/* counting only, and empty ranges anywhere */
	assert_int_equal(striped_layout_map(&l, 0, 4 * K64, NULL, 0), 4);
	assert_int_equal(striped_layout_map(&l, UINT64_MAX, 0, ext, 4), 0);
	assert_int_equal(striped_layout_map(&l, 0, 0, NULL, 0), 0);
}

static void test_map_last_byte(void **state)
{
	struct striped_layout l = {K64, 4, MiB};
	struct striped_extent ext[2];
	uint64_t back;

	(void)state;
	/* The very last addressable byte maps and maps back. */
	assert_int_equal(striped_layout_map(&l, UINT64_MAX - 1, 1, ext, 2), 1);
	assert_int_equal(ext[0].length, 1);
	/* block 2^48 - 1 is unit 3 of stripe 2^46 - 1: object set 2^42 - 1, 16th unit */
	assert_int_equal(ext[0].objectno, (1ull << 44) - 1);
	assert_int_equal(ext[0].offset, MiB - 2);
	assert_int_equal(striped_layout_unmap(&l, ext[0].objectno, ext[0].offset, &back), 0);
	assert_int_equal(back, UINT64_MAX - 1);
}

static void test_unmap_bad(void **state)
{
	struct striped_layout l = {K64, 4, MiB}, bad = {0, 0, 0};
	uint64_t off;

	(void)state;
	assert_int_equal(striped_layout_unmap(&l, 0, 0, NULL), -EINVAL);
	assert_int_equal(striped_layout_unmap(&bad, 0, 0, &off), -EINVAL);
	assert_int_equal(striped_layout_unmap(NULL, 0, 0, &off), -EINVAL);
	assert_int_equal(striped_layout_unmap(&l, 0, MiB, &off), -EINVAL);
	assert_int_equal(striped_layout_unmap(&l, 0, UINT64_MAX, &off), -EINVAL);
	assert_int_equal(striped_layout_unmap(&l, UINT64_MAX, 0, &off), -EOVERFLOW);
	assert_int_equal(striped_layout_unmap(&l, UINT64_MAX / 8, 0, &off), -EOVERFLOW);
}

static void test_object_count_and_size_bad(void **state)
{
	struct striped_layout l = {K64, 4, MiB}, bad = {K64, 1, 1000};
	uint64_t n, sz;

	(void)state;
	assert_int_equal(striped_layout_object_count(&l, 1, NULL), -EINVAL);
	assert_int_equal(striped_layout_object_count(&bad, 1, &n), -EINVAL);
	assert_int_equal(striped_layout_object_count(NULL, 1, &n), -EINVAL);
	assert_int_equal(striped_layout_object_size(&l, 0, 1, NULL), -EINVAL);
	assert_int_equal(striped_layout_object_size(&bad, 0, 1, &sz), -EINVAL);
	/* the largest file: counts without overflow */
	assert_int_equal(striped_layout_object_count(&l, UINT64_MAX, &n), 0);
	assert_int_equal(n, UINT64_MAX / (4 * MiB) * 4 + 4);
	assert_int_equal(striped_layout_object_size(&l, UINT64_MAX, UINT64_MAX, &sz), 0);
	assert_true(sz <= MiB);
	assert_int_equal(striped_layout_object_size(&l, 0, 0, &sz), 0);
	assert_int_equal(sz, 0);
}

static void test_object_name_bad(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(striped_object_name(NULL, 0, buf, sizeof(buf)), -EINVAL);
	/* as snprintf: the needed length, even when it does not fit */
	assert_int_equal(striped_object_name("f", 0, NULL, 0), 18);
	assert_int_equal(striped_object_name("f", 0, buf, 5), 18);
	assert_int_equal(striped_object_name("f", UINT64_MAX, buf, sizeof(buf)), 18);
	assert_string_equal(buf, "f.ffffffffffffffff");
	assert_int_equal(striped_object_name("", 1, buf, sizeof(buf)), 17);
}

/* ---- handles that are NULL or were never used ---- */

static void test_null_handles(void **state)
{
	struct striped_io_stats st;
	uint64_t size;
	char buf[8];

	(void)state;
	assert_int_equal(striped_cluster_set_op_timeout(NULL, 5), -EINVAL);
	assert_int_equal(striped_cluster_connect(NULL), -EINVAL);
	assert_int_equal(striped_completion_create(NULL, NULL, NULL), -EINVAL);
	assert_int_equal(striped_completion_wait(NULL), -EINVAL);
	assert_int_equal(striped_completion_is_complete(NULL), 0);
	assert_int_equal(striped_completion_result(NULL), -EINVAL);
	assert_int_equal(striped_completion_stats(NULL, &st, sizeof(st)), -EINVAL);
	striped_completion_release(NULL);
	striped_close(NULL);
	assert_int_equal(striped_open(NULL, "x", STRIPED_CREATE, NULL, NULL), -EINVAL);
	assert_int_equal(striped_remove(NULL, "x"), -EINVAL);
	assert_int_equal(striped_stat(NULL, &size, NULL), -EINVAL);
	assert_int_equal(striped_write(NULL, buf, 1, 0), -EINVAL);
	assert_int_equal(striped_read(NULL, buf, 1, 0), -EINVAL);
	assert_int_equal(striped_truncate(NULL, 0), -EINVAL);
	assert_int_equal(striped_file_set_throttle(NULL, 1, 1), -EINVAL);
	assert_int_equal(striped_file_stats(NULL, &st, sizeof(st)), -EINVAL);
	assert_int_equal(striped_aio_write(NULL, NULL, buf, 1, 0), -EINVAL);
	assert_int_equal(striped_aio_read(NULL, NULL, buf, 1, 0), -EINVAL);
	assert_int_equal(striped_aio_stat(NULL, NULL, &size), -EINVAL);
	assert_int_equal(striped_flush(NULL), -EINVAL);
	assert_int_equal(striped_aio_flush(NULL, NULL), -EINVAL);
	assert_int_equal(striped_fstat(NULL, NULL, 0), -EINVAL);
	assert_int_equal(striped_setxattr(NULL, "user.a", buf, 1), -EINVAL);
	assert_int_equal(striped_getxattr(NULL, "user.a", buf, 1), -EINVAL);
	assert_int_equal(striped_rmxattr(NULL, "user.a"), -EINVAL);
	assert_int_equal(striped_getxattrs(NULL, NULL), -EINVAL);
	assert_int_equal(striped_getxattrs_next(NULL, NULL, NULL, NULL), -EINVAL);
	striped_getxattrs_end(NULL);
	assert_int_equal(striped_append(NULL, buf, 1), -EINVAL);
	assert_int_equal(striped_write_full(NULL, buf, 1), -EINVAL);
	assert_int_equal(striped_writev(NULL, NULL, 0, 0), -EINVAL);
	assert_int_equal(striped_readv(NULL, NULL, 0, 0), -EINVAL);
	assert_int_equal(striped_aio_writev(NULL, NULL, NULL, 0, 0), -EINVAL);
	assert_int_equal(striped_aio_readv(NULL, NULL, NULL, 0, 0), -EINVAL);
	assert_int_equal(striped_discard(NULL, 0, 1), -EINVAL);
	assert_int_equal(striped_aio_discard(NULL, NULL, 0, 1), -EINVAL);
	assert_int_equal(striped_aio_open(NULL, NULL, "x", 0, NULL, NULL), -EINVAL);
	assert_int_equal(striped_aio_truncate(NULL, NULL, 0), -EINVAL);
	assert_int_equal(striped_aio_remove(NULL, NULL, "x"), -EINVAL);
	assert_int_equal(striped_aio_append(NULL, NULL, buf, 1), -EINVAL);
	assert_int_equal(striped_list_open(NULL, NULL), -EINVAL);
	assert_int_equal(striped_list_next(NULL, NULL, NULL), -EINVAL);
	striped_list_close(NULL);
}

static void test_unused_completion(void **state)
{
	struct striped_completion *c;
	struct striped_io_stats st;

	(void)state;
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_completion_wait(c), -EINVAL);
	assert_int_equal(striped_completion_is_complete(c), 0);
	assert_int_equal(striped_completion_result(c), -EINPROGRESS);
	assert_int_equal(striped_completion_stats(c, NULL, sizeof(st)), -EINVAL);
	striped_completion_release(c);
}

static void test_version(void **state)
{
	int major = -1, minor = -1, patch = -1;
	char want[32];

	(void)state;
	snprintf(want, sizeof(want), "%d.%d.%d", STRIPED_VERSION_MAJOR, STRIPED_VERSION_MINOR,
		 STRIPED_VERSION_PATCH);
	assert_string_equal(striped_version(NULL, NULL, NULL), want);
	assert_string_equal(striped_version(&major, &minor, &patch), want);
	assert_int_equal(major, STRIPED_VERSION_MAJOR);
	assert_int_equal(minor, STRIPED_VERSION_MINOR);
	assert_int_equal(patch, STRIPED_VERSION_PATCH);
}

/* ---- open and remove: names, flags, layouts, heads that are not ours ---- */

static uint64_t max_name_len(void)
{
	char buf[32];

	assert_int_equal(rados_conf_get(cluster, "osd_max_object_name_len", buf, sizeof(buf)), 0);
	return strtoull(buf, NULL, 10);
}

static void test_open_bad_arguments(void **state)
{
	struct striped_layout l = {K64, 1, K64};
	struct striped_file *f = NULL;
	char name[64];

	(void)state;
	need_cluster();
	name_for(name, sizeof(name), "args");
	assert_int_equal(striped_open(io, NULL, STRIPED_CREATE, NULL, &f), -EINVAL);
	assert_int_equal(striped_open(io, "", STRIPED_CREATE, NULL, &f), -EINVAL);
	assert_int_equal(striped_open(io, name, STRIPED_CREATE, NULL, NULL), -EINVAL);
	/* 0x8 is the first flag no version defines (0x4 is STRIPED_BUFFERED) */
	assert_int_equal(striped_open(io, name, 0x8, NULL, &f), -EINVAL);
	assert_int_equal(striped_open(io, name, STRIPED_CREATE | 0x8, NULL, &f), -EINVAL);
	assert_int_equal(striped_open(io, name, -1, NULL, &f), -EINVAL);
	assert_int_equal(striped_open(io, name, STRIPED_EXCL, NULL, &f), -EINVAL);
	l.stripe_unit = 1000;
	assert_int_equal(striped_open(io, name, STRIPED_CREATE, &l, &f), -EINVAL);
	/* object_size above the cluster's osd_max_object_size (128 MiB) */
	l.stripe_unit = K64;
	l.object_size = 256 * MiB;
	assert_int_equal(striped_open(io, name, STRIPED_CREATE, &l, &f), -EFBIG);
	assert_int_equal(striped_open(io, name, 0, NULL, &f), -ENOENT);
	assert_int_equal(striped_remove(io, name), -ENOENT);
	assert_int_equal(striped_remove(io, NULL), -EINVAL);
	assert_int_equal(striped_remove(io, ""), -EINVAL);
	assert_null(f);
}

static void test_name_length(void **state)
{
	uint64_t max;
	size_t fit;
	char *name, prefix[32];
	int plen;
	struct striped_file *f = NULL;

	(void)state;
	need_cluster();
	max = max_name_len();
	/* "NAME" + ".%016llx": the longest name whose object names still fit */
	fit = (size_t)max - 17;
	plen = snprintf(prefix, sizeof(prefix), "bad-len-%ld-", (long)getpid());
	name = malloc(max + 2);
	assert_non_null(name);
	if (!name)
		return;
	memset(name, 'n', max + 1);
	memcpy(name, prefix, (size_t)plen);
	name[fit + 1] = '\0';
	assert_int_equal(striped_open(io, name, STRIPED_CREATE, NULL, &f), -ENAMETOOLONG);
	assert_int_equal(striped_remove(io, name), -ENAMETOOLONG);
	name[fit] = '\0';
	assert_int_equal(striped_open(io, name, STRIPED_CREATE | STRIPED_EXCL, NULL, &f), 0);
	assert_int_equal(striped_write(f, "x", 1, 5 * MiB), 1);
	striped_close(f);
	assert_int_equal(striped_remove(io, name), 0);
	free(name);
	/* a megabyte-long name is refused before anything is sent */
	name = malloc(MiB + 1);
	assert_non_null(name);
	if (!name)
		return;
	memset(name, 'm', MiB);
	name[MiB] = '\0';
	assert_int_equal(striped_open(io, name, STRIPED_CREATE, NULL, &f), -ENAMETOOLONG);
	free(name);
}

static void test_exclusive_on_existing(void **state)
{
	struct striped_file *f = NULL, *g = NULL;
	char name[64];

	(void)state;
	need_cluster();
	name_for(name, sizeof(name), "excl");
	assert_int_equal(striped_open(io, name, STRIPED_CREATE | STRIPED_EXCL, NULL, &f), 0);
	assert_int_equal(striped_open(io, name, STRIPED_CREATE | STRIPED_EXCL, NULL, &g), -EEXIST);
	assert_null(g);
	striped_close(f);
	assert_int_equal(striped_remove(io, name), 0);
	assert_int_equal(striped_remove(io, name), -ENOENT);
}

/* ---- data calls ---- */

static void test_io_bad_arguments(void **state)
{
	struct striped_layout l = {K64, 4, MiB};
	struct striped_completion *c;
	struct striped_io_stats st[2];
	struct striped_file *f;
	uint64_t size = 1;
	char name[64], buf[16] = "0123456789abcde";

	(void)state;
	need_cluster();
	name_for(name, sizeof(name), "io");
	assert_int_equal(striped_open(io, name, STRIPED_CREATE | STRIPED_EXCL, &l, &f), 0);
	assert_int_equal(striped_write(f, NULL, 10, 0), -EINVAL);
	assert_int_equal(striped_read(f, NULL, 10, 0), -EINVAL);
	assert_int_equal(striped_write(f, buf, (size_t)SSIZE_MAX + 1, 0), -EINVAL);
	assert_int_equal(striped_read(f, buf, SIZE_MAX, 0), -EINVAL);
	assert_int_equal(striped_write(f, buf, 2, UINT64_MAX), -EOVERFLOW);
	assert_int_equal(striped_write(f, buf, 16, UINT64_MAX - 8), -EOVERFLOW);
	assert_int_equal(striped_read(f, buf, 16, UINT64_MAX - 8), -EOVERFLOW);
	assert_int_equal(striped_aio_write(f, NULL, buf, 1, 0), -EINVAL);
	assert_int_equal(striped_aio_read(f, NULL, buf, 1, 0), -EINVAL);
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_stat(f, c, NULL), -EINVAL);
	assert_int_equal(striped_aio_write(f, c, NULL, 1, 0), -EINVAL);
	assert_int_equal(striped_aio_write(f, c, buf, 1, UINT64_MAX), -EOVERFLOW);
	/* refused calls left c unused */
	assert_int_equal(striped_completion_wait(c), -EINVAL);
	assert_int_equal(striped_aio_write(f, c, buf, 10, 0), 0);
	assert_int_equal(striped_completion_wait(c), 0);
	assert_int_equal(striped_completion_result(c), 10);
	/* used once: refused, and the first result stays */
	assert_int_equal(striped_aio_write(f, c, buf, 5, 0), -EBUSY);
	assert_int_equal(striped_aio_read(f, c, buf, 5, 0), -EBUSY);
	assert_int_equal(striped_aio_stat(f, c, &size), -EBUSY);
	assert_int_equal(striped_completion_result(c), 10);
	/* a caller's struct larger than ours: only ours is written */
	memset(st, 0xab, sizeof(st));
	assert_int_equal(striped_completion_stats(c, &st[0], sizeof(st)), 0);
	assert_int_equal(st[0].calls, 1);
	assert_int_equal(((unsigned char *)&st[1])[0], 0xab);
	striped_completion_release(c);
	/* zero lengths, and reads at or past the end */
	assert_int_equal(striped_write(f, NULL, 0, 0), 0);
	assert_int_equal(striped_write(f, buf, 0, UINT64_MAX), 0);
	assert_int_equal(striped_read(f, buf, 0, 0), 0);
	assert_int_equal(striped_read(f, buf, 16, 10), 0);
	assert_int_equal(striped_read(f, buf, 16, UINT64_MAX - 16), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 10);
	assert_int_equal(striped_file_set_throttle(f, 0, MiB), -EINVAL);
	assert_int_equal(striped_file_set_throttle(f, 1, 0), -EINVAL);
	assert_int_equal(striped_file_set_throttle(f, UINT32_MAX, UINT64_MAX), 0);
	assert_int_equal(striped_file_stats(f, NULL, sizeof(st[0])), -EINVAL);
	striped_close(f);
	assert_int_equal(striped_remove(io, name), 0);
}

/* Flush, stat with time and xattrs (0.3): every bad argument a clear error. */
static void test_metadata_bad_arguments(void **state)
{
	char name[64], big[2 * STRIPED_XATTR_NAME_MAX], buf[8];
	struct striped_stat st[2];
	struct striped_completion *c;
	struct striped_xattrs *it;
	struct striped_file *f;
	const char *key;
	const void *val;
	size_t len;

	(void)state;
	need_cluster();
	name_for(name, sizeof(name), "meta");
	assert_int_equal(striped_open(io, name, STRIPED_CREATE | STRIPED_EXCL, NULL, &f), 0);
	/* flush */
	assert_int_equal(striped_aio_flush(f, NULL), -EINVAL);
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_flush(f, c), 0);
	assert_int_equal(striped_aio_flush(f, c), -EBUSY);
	assert_int_equal(striped_completion_wait(c), 0);
	striped_completion_release(c);
	/* fstat: sizes too small, and a caller's struct larger than ours */
	assert_int_equal(striped_fstat(f, NULL, sizeof(st[0])), -EINVAL);
	assert_int_equal(striped_fstat(f, st, 0), -EINVAL);
	assert_int_equal(striped_fstat(f, st, sizeof(uint64_t) - 1), -EINVAL);
	memset(st, 0xab, sizeof(st));
	assert_int_equal(striped_fstat(f, st, SIZE_MAX), 0);
	assert_int_equal(st[0].size, 0);
	assert_int_equal(((unsigned char *)&st[1])[0], 0xab);
	/* xattr names: NULL, empty, too long, reserved */
	assert_int_equal(striped_setxattr(f, NULL, buf, 1), -EINVAL);
	assert_int_equal(striped_setxattr(f, "", buf, 1), -EINVAL);
	assert_int_equal(striped_getxattr(f, NULL, buf, 1), -EINVAL);
	assert_int_equal(striped_rmxattr(f, ""), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(striped_setxattr(f, big, buf, 1), -ENAMETOOLONG);
	assert_int_equal(striped_getxattr(f, big, buf, 1), -ENAMETOOLONG);
	assert_int_equal(striped_rmxattr(f, big), -ENAMETOOLONG);
	assert_int_equal(striped_setxattr(f, "striper.size", "9", 1), -EPERM);
	assert_int_equal(striped_setxattr(f, "striper.anything", "9", 1), -EPERM);
	assert_int_equal(striped_getxattr(f, "striper.id", buf, sizeof(buf)), -EPERM);
	assert_int_equal(striped_rmxattr(f, "striper.layout.object_size"), -EPERM);
	assert_int_equal(striped_rmxattr(f, "lock.striper.lock"), -EPERM);
	/* discard: ranges past 2^64 - 1, no completion */
	assert_int_equal(striped_discard(f, UINT64_MAX, 1), -EOVERFLOW);
	assert_int_equal(striped_discard(f, 1, UINT64_MAX), -EOVERFLOW);
	assert_int_equal(striped_aio_discard(f, NULL, 0, 1), -EINVAL);
	assert_int_equal(striped_discard(f, UINT64_MAX, 0), 0);
	/* append and write_full: NULL data with a length, lengths above SSIZE_MAX */
	assert_int_equal(striped_append(f, NULL, 1), -EINVAL);
	assert_int_equal(striped_append(f, buf, (size_t)SSIZE_MAX + 1), -EINVAL);
	assert_int_equal(striped_write_full(f, NULL, 1), -EINVAL);
	assert_int_equal(striped_write_full(f, buf, SIZE_MAX), -EINVAL);
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_aio_append(f, c, NULL, 1), -EINVAL);
	assert_int_equal(striped_aio_append(f, c, buf, (size_t)SSIZE_MAX + 1), -EINVAL);
	assert_int_equal(striped_completion_wait(c), -EINVAL); /* refused: left unused */
	striped_completion_release(c);
	/* vectors: NULL arrays, counts out of range, NULL segments, totals too large, overflow */
	{
		struct iovec v[2] = {{buf, 4}, {buf, SSIZE_MAX}};
		struct striped_completion *cv;

		assert_int_equal(striped_writev(f, NULL, 1, 0), -EINVAL);
		assert_int_equal(striped_readv(f, v, -1, 0), -EINVAL);
		assert_int_equal(striped_readv(f, v, IOV_MAX + 1, 0), -EINVAL);
		assert_int_equal(striped_writev(f, v, 2, 0), -EINVAL); /* total above SSIZE_MAX */
		assert_int_equal(striped_writev(f, v, 1, UINT64_MAX - 2), -EOVERFLOW);
		v[0].iov_base = NULL;
		assert_int_equal(striped_writev(f, v, 1, 0), -EINVAL);
		assert_int_equal(striped_readv(f, v, 1, 0), -EINVAL);
		assert_int_equal(striped_completion_create(NULL, NULL, &cv), 0);
		assert_int_equal(striped_aio_writev(f, NULL, v, 1, 0), -EINVAL);
		assert_int_equal(striped_aio_readv(f, cv, v, 1, 0), -EINVAL);
		assert_int_equal(striped_completion_wait(cv), -EINVAL); /* left unused */
		striped_completion_release(cv);
	}
	/* xattr values: NULL with a length, a buffer too small */
	assert_int_equal(striped_setxattr(f, "user.a", NULL, 1), -EINVAL);
	assert_int_equal(striped_getxattr(f, "user.a", NULL, 1), -EINVAL);
	assert_int_equal(striped_setxattr(f, "user.a", "0123456789", 10), 0);
	assert_int_equal(striped_getxattr(f, "user.a", buf, sizeof(buf)), -ERANGE);
	assert_int_equal(striped_getxattr(f, "user.a", NULL, 0), 10);
	assert_int_equal(striped_getxattr(f, "user.missing", buf, sizeof(buf)), -ENODATA);
	/* the iterator */
	assert_int_equal(striped_getxattrs(f, NULL), -EINVAL);
	assert_int_equal(striped_getxattrs(f, &it), 0);
	assert_int_equal(striped_getxattrs_next(it, NULL, &val, &len), -EINVAL);
	assert_int_equal(striped_getxattrs_next(it, &key, NULL, &len), -EINVAL);
	assert_int_equal(striped_getxattrs_next(it, &key, &val, NULL), -EINVAL);
	striped_getxattrs_end(it);
	striped_close(f);
	assert_int_equal(striped_remove(io, name), 0);
}

/* A handle whose file was removed by someone else. */
static void test_removed_under_handle(void **state)
{
	struct striped_file *f;
	uint64_t size;
	char name[64], buf[8];

	(void)state;
	need_cluster();
	name_for(name, sizeof(name), "gone");
	assert_int_equal(striped_open(io, name, STRIPED_CREATE | STRIPED_EXCL, NULL, &f), 0);
	assert_int_equal(striped_write(f, "abcdefgh", 8, 0), 8);
	/* Held by an idle handle: it hands its lock over, and the file is removed for good. */
	assert_int_equal(striped_remove(io, name), 0);
	assert_int_equal(striped_stat(f, &size, NULL), -ESTALE);
	assert_int_equal(striped_read(f, buf, 8, 100), -ESTALE);
	assert_int_equal(striped_write(f, buf, 8, 0), -ESTALE);
	assert_int_equal(striped_truncate(f, 0), -ESTALE);
	striped_close(f);
}

static int setup_cluster(void **state)
{
	static char why[1400];
	const char *pool = getenv("STRIPED_TEST_POOL");
	int r;

	(void)state;
	skip_reason = cluster_missing(why, sizeof(why));
	if (skip_reason && cluster_required()) {
		fprintf(stderr, "%s (STRIPED_TEST_REQUIRE_CLUSTER=1)\n", skip_reason);
		return -1;
	}
	if (skip_reason)
		return 0;
	r = rados_create2(&cluster, "ceph", "client.admin", 0);
	if (!r)
		r = rados_conf_read_file(cluster, NULL);
	if (!r)
		r = rados_conf_set(cluster, "client_mount_timeout", "20");
	if (!r)
		r = striped_cluster_set_op_timeout(cluster, 60);
	if (!r)
		r = rados_connect(cluster);
	if (!r)
		r = rados_ioctx_create(cluster, pool, &io);
	if (r) {
		fprintf(stderr, "cannot reach the sandbox cluster: %s\n", strerror(-r));
		return -1;
	}
	return 0;
}

static int teardown_cluster(void **state)
{
	(void)state;
	if (io) {
		rados_ioctx_destroy(io);
		rados_shutdown(cluster);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layout_invalid),
	    cmocka_unit_test(test_layout_edges_valid),
	    cmocka_unit_test(test_map_bad),
	    cmocka_unit_test(test_map_last_byte),
	    cmocka_unit_test(test_unmap_bad),
	    cmocka_unit_test(test_object_count_and_size_bad),
	    cmocka_unit_test(test_object_name_bad),
	    cmocka_unit_test(test_null_handles),
	    cmocka_unit_test(test_unused_completion),
	    cmocka_unit_test(test_version),
	    cmocka_unit_test(test_open_bad_arguments),
	    cmocka_unit_test(test_name_length),
	    cmocka_unit_test(test_exclusive_on_existing),
	    cmocka_unit_test(test_io_bad_arguments),
	    cmocka_unit_test(test_metadata_bad_arguments),
	    cmocka_unit_test(test_removed_under_handle),
	};

	return cmocka_run_group_tests(tests, setup_cluster, teardown_cluster);
}
