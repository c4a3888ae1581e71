// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The mount's sorted names (mount/core/names.c) against a brute-force
 * oracle: random sets of names over a small alphabet (so that components
 * collide, siblings sort between "x" and "x/", markers "d/" appear), and
 * every directory's children, subdirectory count, emptiness and existence
 * computed by scanning every name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "names.h"

#define MAX_NAMES 64
#define NAME_LEN 8

/* A random name over "ab-/" (no leading or doubled slash; a marker ends with one). */
static void random_name(unsigned int *seed, char *s)
{
	static const char alphabet[] = "ab-/";
	int len = 1 + rand_r(seed) % (NAME_LEN - 1);

	for (int i = 0; i < len; i++) {
		char c = alphabet[rand_r(seed) % 4];

		if (c == '/' && (i == 0 || s[i - 1] == '/'))
			c = 'a';
		s[i] = c;
	}
	s[len] = 0;
}

/* The component of name right below dir ("" the root), or 0 when name is not below it. */
static size_t below(const char *name, const char *dir, const char **rest)
{
	size_t dl = strlen(dir);

	if (dl && (strncmp(name, dir, dl) || name[dl] != '/'))
		return 0;
	*rest = name + (dl ? dl + 1 : 0);
	return 1;
}

/* The oracle: is name/comp a child of dir, and is it a directory. */
static int oracle_has(char names[][NAME_LEN + 1], int n, const char *dir, const char *comp,
		      int *is_dir)
{
	size_t cl = strlen(comp);
	int found = 0;

	*is_dir = 0;
	for (int i = 0; i < n; i++) {
		const char *rest;

		if (!below(names[i], dir, &rest) || strncmp(rest, comp, cl) ||
		    (rest[cl] && rest[cl] != '/'))
			continue;
		found = 1;
		*is_dir |= rest[cl] == '/';
	}
	return found;
}

/* The oracle's count of distinct non-empty first components below dir. */
static long oracle_children(char names[][NAME_LEN + 1], int n, const char *dir, long *dirs)
{
	char seen[MAX_NAMES][NAME_LEN + 1];
	long k = 0;

	*dirs = 0;
	for (int i = 0; i < n; i++) {
		const char *rest, *slash;
		size_t len;
		int dup = 0;

		if (!below(names[i], dir, &rest))
			continue;
		slash = strchr(rest, '/');
		len = slash ? (size_t)(slash - rest) : strlen(rest);
		if (!len)
			continue;
		for (long j = 0; j < k; j++)
			dup |= strlen(seen[j]) == len && !memcmp(seen[j], rest, len);
		if (dup)
			continue;
		memcpy(seen[k], rest, len);
		seen[k][len] = 0;
		int is_dir;
		oracle_has(names, n, dir, seen[k], &is_dir);
		*dirs += is_dir;
		k++;
	}
	return k;
}

static int oracle_has_children(char names[][NAME_LEN + 1], int n, const char *dir)
{
	for (int i = 0; i < n; i++) {
		const char *rest;

		if (below(names[i], dir, &rest) && *rest)
			return 1;
	}
	return 0;
}

/* Every directory the names make (each prefix ending before a slash), and the root. */
static void check_dir(struct names *s, char names[][NAME_LEN + 1], int n, const char *dir)
{
	struct dentry *d = NULL;
	long dirs, want_dirs, want = oracle_children(names, n, dir, &want_dirs);
	long got = names_children(s, dir, &d);

	assert_int_equal(got, want);
	for (long i = 0; i < got; i++) {
		int is_dir;

		assert_true(oracle_has(names, n, dir, d[i].name, &is_dir));
		assert_int_equal(d[i].is_dir, is_dir);
		if (i)
			assert_true(strcmp(d[i - 1].name, d[i].name) < 0); /* sorted, each once */
	}
	dentries_free(d, got);
	dirs = names_subdirs(s, dir);
	assert_int_equal(dirs, want_dirs);
	assert_int_equal(names_has_children(s, dir), oracle_has_children(names, n, dir));
}

static void test_against_oracle(void **state)
{
	(void)state;
	for (unsigned int seed = 1; seed <= 400; seed++) {
		char names[MAX_NAMES][NAME_LEN + 1];
		unsigned int r = seed;
		int n = 1 + rand_r(&r) % MAX_NAMES;
		struct names s;

		names_init(&s);
		for (int i = 0; i < n; i++) {
			random_name(&r, names[i]);
			assert_int_equal(names_add(&s, names[i]), 0);
		}
		for (size_t i = 1; i < s.n; i++)
			assert_true(strcmp(s.v[i - 1], s.v[i]) < 0);
		check_dir(&s, names, n, "");
		for (int i = 0; i < n; i++) {
			char dir[NAME_LEN + 1];

			strcpy(dir, names[i]);
			for (char *slash; (slash = strrchr(dir, '/'));) {
				*slash = 0;
				if (*dir) {
					check_dir(&s, names, n, dir);
					assert_true(names_is_dir(&s, dir));
				}
			}
		}
		names_clear(&s);
	}
}

static void test_add_remove_contains(void **state)
{
	struct names s;
	char **v = NULL;
	long k;

	(void)state;
	names_init(&s);
	assert_int_equal(names_add(&s, "b"), 0);
	assert_int_equal(names_add(&s, "a/x"), 0);
	assert_int_equal(names_add(&s, "a/y"), 0);
	assert_int_equal(names_add(&s, "a/x"), 0); /* there: once */
	assert_int_equal(s.n, 3);
	assert_true(names_contains(&s, "a/x"));
	assert_false(names_contains(&s, "a"));
	assert_true(names_is_dir(&s, "a"));
	assert_false(names_is_dir(&s, "b"));
	k = names_with_prefix(&s, "a/", &v);
	assert_int_equal(k, 2);
	assert_string_equal(v[0], "a/x");
	assert_string_equal(v[1], "a/y");
	for (long i = 0; i < k; i++)
		free(v[i]);
	free(v);
	names_remove(&s, "a/x");
	names_remove(&s, "missing");
	assert_false(names_contains(&s, "a/x"));
	assert_int_equal(s.n, 2);
	names_clear(&s);
	assert_int_equal(s.n, 0);
}

static void test_marker_only_directory(void **state)
{
	struct names s;

	(void)state;
	names_init(&s);
	assert_int_equal(names_add(&s, "d/"), 0); /* mkdir d: its marker alone */
	assert_true(names_is_dir(&s, "d"));
	assert_false(names_has_children(&s, "d"));
	assert_int_equal(names_subdirs(&s, ""), 1);
	assert_int_equal(names_subdirs(&s, "d"), 0);
	names_clear(&s);
}

/*
 * The oracle of names_replace(): does a refresh of dir (one level or all)
 * that found fresh[0..m) replace name? One level, a name below a
 * subdirectory goes when the refresh did not find that subdirectory.
 */
static int oracle_replaced(const char *name, const char *dir, int one_level,
			   char fresh[][NAME_LEN + 1], int m)
{
	const char *rest, *slash;

	if (!below(name, dir, &rest) || !*rest)
		return 0;
	slash = strchr(rest, '/');
	if (!one_level || !slash || !slash[1])
		return 1;
	for (int j = 0; j < m; j++) /* the subdirectory "dir/sub/" found */
		if (strlen(fresh[j]) == (size_t)(slash + 1 - name) &&
		    !strncmp(fresh[j], name, (size_t)(slash + 1 - name)))
			return 0;
	return 1;
}

/* A refresh of each directory, one level and all: what it replaced gone, what it got there, the rest kept. */
static void test_replace_against_oracle(void **state)
{
	static const char *const dirs[] = {"", "a", "a/b", "b-", "a/a"};
	unsigned int seed = 7;

	(void)state;
	for (int round = 0; round < 400; round++) {
		char before[MAX_NAMES][NAME_LEN + 1], fresh[MAX_NAMES][NAME_LEN + 1];
		const char *dir = dirs[round % 5];
		int one_level = round % 2, n = 1 + rand_r(&seed) % MAX_NAMES, m = 0;
		struct names s, got;

		names_init(&s);
		names_init(&got);
		for (int i = 0; i < n; i++) {
			random_name(&seed, before[i]);
			assert_int_equal(names_add(&s, before[i]), 0);
		}
		for (int i = 0; i < MAX_NAMES && m < 8; i++) { /* what a listing of dir could bring */
			random_name(&seed, fresh[m]);
			if (oracle_replaced(fresh[m], dir, one_level, NULL, 0) &&
			    (!one_level || !strchr(fresh[m] + strlen(dir) + !!*dir, '/') ||
			     !strchr(fresh[m] + strlen(dir) + !!*dir, '/')[1]))
				assert_int_equal(names_add(&got, fresh[m++]), 0);
		}
		assert_int_equal(names_replace(&s, dir, one_level, &got), 0);
		assert_int_equal(got.n, 0);
		for (int i = 0; i < n; i++) {
			int listed = 0;

			for (int j = 0; j < m; j++)
				listed |= !strcmp(fresh[j], before[i]);
			if (oracle_replaced(before[i], dir, one_level, fresh, m) && !listed)
				assert_false(names_contains(&s, before[i]));
			else
				assert_true(names_contains(&s, before[i]));
		}
		for (int j = 0; j < m; j++)
			assert_true(names_contains(&s, fresh[j]));
		for (size_t i = 1; i < s.n; i++)
			assert_true(strcmp(s.v[i - 1], s.v[i]) < 0);
		names_clear(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_oracle),
		cmocka_unit_test(test_add_remove_contains),
		cmocka_unit_test(test_marker_only_directory),
		cmocka_unit_test(test_replace_against_oracle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
