// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The mount's node table (mount/core/node.c): counted references and the
 * kernel's lookups free a node only when both are gone; inode numbers
 * given by the file, kept, or given anew when taken; another file or kind
 * at a path is a new node; rename moves a directory's nodes below it;
 * unlink detaches. Run under ASan in CI, which catches a node used after
 * it was freed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "node.h"

static int setup(void **state)
{
	struct nodes *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	assert_int_equal(nodes_init(t), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	nodes_destroy(*state);
	free(*state);
	return 0;
}

static void test_refs_and_lookups(void **state)
{
	struct nodes *t = *state;
	struct node *n = node_make(t, "f", false, 0), *again;
	fuse_ino_t ino = n->ino;

	node_kernel_ref(t, n);
	node_put(t, n); /* the kernel's lookup keeps it */
	again = node_get(t, ino);
	assert_ptr_equal(again, n);
	node_forget(t, ino, 1); /* our reference keeps it */
	assert_ptr_equal(node_at(t, "f"), n);
	node_put(t, n);
	node_put(t, again);
	assert_null(node_get(t, ino)); /* neither: freed */
	assert_null(node_at(t, "f"));
}

static void test_ino_hints(void **state)
{
	struct nodes *t = *state;
	struct node *a = node_make(t, "a", false, 0x1234567890abcdefull);
	struct node *b = node_make(t, "b", false, 0x1234567890abcdefull); /* taken: another */
	struct node *c = node_make(t, "c", false, FUSE_ROOT_ID);	 /* the root's: never */

	assert_int_equal(a->ino, 0x1234567890abcdefull);
	assert_true(b->ino != a->ino && b->ino != FUSE_ROOT_ID);
	assert_true(c->ino != FUSE_ROOT_ID && c->ino != b->ino);
	assert_ptr_equal(node_make(t, "a", false, 0x1234567890abcdefull), a); /* the same file */
	node_put(t, a);
	node_put(t, a);
	node_put(t, b);
	node_put(t, c);
	assert_null(node_get(t, 0x1234567890abcdefull));
}

static void test_another_file_at_a_path(void **state)
{
	struct nodes *t = *state;
	struct node *old = node_make(t, "x", false, 100), *n;

	node_kernel_ref(t, old);
	node_put(t, old);
	n = node_make(t, "x", false, 200); /* another file of that name now: a new inode */
	assert_ptr_not_equal(n, old);
	assert_int_equal(n->ino, 200);
	assert_true(node_detached(t, old));
	node_put(t, n);
	n = node_make(t, "x", true, 0); /* a directory now */
	assert_true(n->is_dir);
	node_put(t, n);
	old = node_make(t, "y", false, 300);
	n = node_make(t, "y", false, 400); /* held by someone (an open): kept as it is */
	assert_ptr_equal(n, old);
	node_put(t, n);
	node_put(t, old);
	node_forget(t, 100, 1);
}

static void test_rename_and_detach(void **state)
{
	struct nodes *t = *state;
	struct node *d = node_make(t, "d", true, 0), *f = node_make(t, "d/f", false, 0);
	struct node *g = node_make(t, "d/e/g", false, 0), *other = node_make(t, "dd", false, 0);
	struct node *to = node_make(t, "e", false, 0);
	char *p;

	assert_int_equal(node_rename(t, "d", "e"), 0);
	assert_true(node_detached(t, to)); /* renamed over */
	p = node_path(t, f);
	assert_string_equal(p, "e/f");
	free(p);
	p = node_path(t, g);
	assert_string_equal(p, "e/e/g");
	free(p);
	p = node_path(t, other); /* "dd" is not below "d" */
	assert_string_equal(p, "dd");
	free(p);
	assert_ptr_equal(node_at(t, "e"), d);
	node_put(t, d);
	node_detach(t, "e/f");
	assert_null(node_at(t, "e/f"));
	p = node_path(t, f); /* a detached node keeps the path its handle names */
	assert_string_equal(p, "e/f");
	free(p);
	node_put(t, d);
	node_put(t, f);
	node_put(t, g);
	node_put(t, other);
	node_put(t, to);
	assert_null(node_at(t, "e"));
}

static bool is_file(const struct node *n)
{
	return !n->is_dir;
}

static void test_below(void **state)
{
	struct nodes *t = *state;
	struct node *made[4], *out[8];
	size_t k;

	made[0] = node_make(t, "p", true, 0);
	made[1] = node_make(t, "p/a", false, 0);
	made[2] = node_make(t, "p/s", true, 0);
	made[3] = node_make(t, "p/s/b", false, 0);
	k = node_below(t, "p", is_file, out, 8);
	assert_int_equal(k, 2);
	for (size_t i = 0; i < k; i++) {
		assert_false(out[i]->is_dir);
		node_put(t, out[i]);
	}
	assert_int_equal(node_below(t, "p", is_file, out, 1), 1); /* at most max */
	node_put(t, out[0]);
	for (int i = 0; i < 4; i++)
		node_put(t, made[i]);
	assert_null(node_at(t, "p/a"));
}

static void test_changes(void **state)
{
	struct nodes *t = *state;
	struct node *n = node_make(t, "c", false, 0);
	uint64_t before = node_changes(n);

	node_changed(n);
	assert_int_equal(node_changes(n), before + 1);
	node_detach(t, "c"); /* a detach is a change: older readings are stale */
	assert_int_equal(node_changes(n), before + 2);
	node_put(t, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refs_and_lookups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ino_hints, setup, teardown),
		cmocka_unit_test_setup_teardown(test_another_file_at_a_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rename_and_detach, setup, teardown),
		cmocka_unit_test_setup_teardown(test_below, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
