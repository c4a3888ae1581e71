// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A small file's remove without the exclusive lock (lib/lease/head.c,
 * head_remove_unheld()), on the sandbox cluster: the head goes only when
 * nothing but it can hold the file's bytes and no one holds the lock, and
 * the removing operation itself refuses a head that changed after it was
 * read (another client's lock, a new size), so a remove racing a writer
 * never deletes what it did not read. Two independent connections.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cluster_fixture.h"
#include "head.h"
#include "meta.h"
#include "rados_cxx.h"
#include "xattrs.h"

#define SU (64u << 10)

static struct cluster a, b; /* two clients */
static char oid[96];

static void lock_req_of(struct lock_req *req, const char *cookie)
{
	*req = (struct lock_req){STRIPER_LOCK_NAME, LOCK_SHARED, cookie, STRIPER_SHARED_TAG,
				 "test_head_remove", 0, 0};
}

/* A new file's head, as libstriped creates one, with size; its lock let go of unless kept. */
static void make_head(uint64_t size, bool keep_lock)
{
	struct striped_layout l = {.stripe_unit = SU, .stripe_count = 1, .object_size = 4 * SU};
	struct head_meta m;
	struct lock_req req;
	char v[32];

	rados_remove(a.io, oid);
	meta_head_new(&m, &l, 7);
	lock_req_of(&req, "maker");
	assert_int_equal(head_create_locked(a.io, oid, &m, &req), 0);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)size);
	assert_int_equal(rados_setxattr(a.io, oid, XATTR_SIZE, v, strlen(v)), 0);
	if (!keep_lock)
		assert_int_equal(head_unlock(a.io, oid, "maker"), 0);
}

static bool head_there(void)
{
	uint64_t size;
	time_t mtime;

	return rados_stat(a.io, oid, &size, &mtime) == 0;
}

static void test_small_unheld_goes(void **state)
{
	(void)state;
	make_head(SU, false);
	assert_int_equal(head_remove_unheld(a.io, oid), 0);
	assert_false(head_there());
	assert_int_equal(head_remove_unheld(a.io, oid), -ENOENT);
}

static void test_held_stays(void **state)
{
	struct lock_req req;
	struct locker l;
	bool excl;

	(void)state;
	make_head(100, true); /* the maker still holds it */
	assert_int_equal(head_remove_unheld(b.io, oid), -EAGAIN);
	assert_true(head_there());
	assert_int_equal(head_lockers(a.io, oid, &l, 1, &excl, NULL), 1);
	assert_int_equal(head_unlock(a.io, oid, "maker"), 0);
	/* another client's shared lock: the same */
	lock_req_of(&req, "other");
	assert_int_equal(head_lock(b.io, oid, &req), 0);
	assert_int_equal(head_remove_unheld(a.io, oid), -EAGAIN);
	assert_true(head_there());
	assert_int_equal(head_unlock(b.io, oid, "other"), 0);
	assert_int_equal(head_remove_unheld(a.io, oid), 0);
	assert_false(head_there());
}

static void test_bytes_past_head_stay(void **state)
{
	(void)state;
	make_head(SU + 1, false); /* its second stripe unit is in another object */
	assert_int_equal(head_remove_unheld(a.io, oid), -EAGAIN);
	assert_true(head_there());
	make_head(10, false);
	assert_int_equal(rados_setxattr(a.io, oid, XATTR_RESERVED, "200000", 6), 0);
	assert_int_equal(head_remove_unheld(a.io, oid), -EAGAIN);
	assert_true(head_there());
	make_head(10, false);
	assert_int_equal(rados_setxattr(a.io, oid, XATTR_REGION_PREFIX "0000000000000001", "", 0), 0);
	assert_int_equal(head_remove_unheld(a.io, oid), -EAGAIN);
	assert_true(head_there());
	assert_int_equal(rados_remove(a.io, oid), 0);
}

/* The remove's own operation checks what was read: b's changes in between make it refuse. */
static void test_changed_after_read_stays(void **state)
{
	char lock[512];
	struct head_meta m;
	struct lock_req req;
	ssize_t n;

	(void)state;
	make_head(100, false);
	assert_int_equal(head_read_meta(a.io, oid, &m), 0);
	n = head_getxattr(a.io, oid, XATTR_LOCK, lock, sizeof(lock));
	assert_true(n > 0 && n <= (ssize_t)sizeof(lock));
	lock_req_of(&req, "other");
	assert_int_equal(head_lock(b.io, oid, &req), 0);
	assert_int_equal(remove_if_unchanged(a.io, oid, &m, lock, (size_t)n, 0), -ECANCELED);
	assert_true(head_there());
	assert_int_equal(head_unlock(b.io, oid, "other"), 0);
	n = head_getxattr(a.io, oid, XATTR_LOCK, lock, sizeof(lock));
	assert_true(n > 0);
	assert_int_equal(rados_setxattr(b.io, oid, XATTR_SIZE, "5000", 4), 0); /* b wrote more */
	assert_int_equal(remove_if_unchanged(a.io, oid, &m, lock, (size_t)n, 0), -ECANCELED);
	assert_true(head_there());
	head_meta_free(&m);
	assert_int_equal(head_read_meta(a.io, oid, &m), 0);
	assert_int_equal(remove_if_unchanged(a.io, oid, &m, lock, (size_t)n, 0), 0);
	assert_false(head_there());
	head_meta_free(&m);
}

/* Not a striped file, a damaged one, one never locked: refused, left as it is. */
static void test_others_stay(void **state)
{
	(void)state;
	rados_remove(a.io, oid);
	assert_int_equal(rados_write_full(a.io, oid, "data", 4), 0);
	assert_int_equal(head_remove_unheld(a.io, oid), -ENODATA);
	assert_true(head_there());
	make_head(100, false);
	assert_int_equal(rados_setxattr(a.io, oid, XATTR_SIZE, "x1", 2), 0);
	assert_int_equal(head_remove_unheld(a.io, oid), -EUCLEAN);
	assert_true(head_there());
	make_head(100, false);
	assert_int_equal(rados_rmxattr(a.io, oid, XATTR_LOCK), 0); /* as a head nobody locked */
	assert_int_equal(head_remove_unheld(a.io, oid), -EAGAIN);
	assert_true(head_there());
	assert_int_equal(rados_remove(a.io, oid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_unheld_goes),
		cmocka_unit_test(test_held_stays),
		cmocka_unit_test(test_bytes_past_head_stay),
		cmocka_unit_test(test_changed_after_read_stays),
		cmocka_unit_test(test_others_stay),
	};
	int r;

	cluster_connect_as(&a, "client.admin", 60);
	cluster_connect_as(&b, "client.admin", 60);
	snprintf(oid, sizeof(oid), "test_head_remove.%d.0000000000000000", (int)getpid());
	r = cmocka_run_group_tests(tests, NULL, NULL);
	rados_remove(a.io, oid);
	rados_ioctx_destroy(a.io);
	rados_ioctx_destroy(b.io);
	rados_shutdown(a.rados);
	rados_shutdown(b.rados);
	return r;
}
