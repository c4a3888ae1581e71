// SPDX-License-Identifier: LGPL-2.1-or-later
/* Pure handover helpers of lib/meta.c: whose lock a cookie is, who answered, whose address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "addr.h"
#include "cookie.h"
#include "mark_step.h"
#include "meta.h"

static void test_cookie_is_ours(void **state)
{
	char c[COOKIE_MAX];

	(void)state;
	cookie_new(c);
	assert_true(cookie_is_ours(c));
	/* libradosstriper's cookies are UUIDs; an exclusive probe's are anything. */
	assert_false(cookie_is_ours("1b4e28ba-2fa1-11d2-883f-0016d3cca427"));
	assert_false(cookie_is_ours("trunc"));
	assert_false(cookie_is_ours(""));
	assert_false(cookie_is_ours("striped"));
}

static void test_two_cookies_differ(void **state)
{
	char a[COOKIE_MAX], b[COOKIE_MAX];

	(void)state;
	cookie_new(a);
	cookie_new(b);
	assert_string_not_equal(a, b);
}

static void test_cookie_answered(void **state)
{
	static const char answers[] = "striped-1-0-a\0\0striped-22-1-b\0striped-3";
	size_t len = sizeof(answers) - 1; /* the last one without its NUL */

	(void)state;
	assert_true(cookie_answered(answers, len, "striped-1-0-a"));
	assert_true(cookie_answered(answers, len, "striped-22-1-b"));
	assert_true(cookie_answered(answers, len, "striped-3"));
	/* Only whole answers count: a prefix or an extension is someone else. */
	assert_false(cookie_answered(answers, len, "striped-1-0"));
	assert_false(cookie_answered(answers, len, "striped-1-0-ab"));
	/* An empty answer (a watcher that holds nothing) matches no holder. */
	assert_false(cookie_answered("\0", 1, "striped-1-0-a"));
	assert_false(cookie_answered(NULL, 0, "striped-1-0-a"));
}

/* Whose a lock holder is: libstriped's cookie, libradosstriper's UUID with its tags, or neither. */
static void test_locker_owner(void **state)
{
	static const char uuid[] = "1b4e28ba-2fa1-11d2-883f-0016d3cca427";
	char c[COOKIE_MAX];

	(void)state;
	cookie_new(c);
	assert_int_equal(cookie_owner(c, "Tag", false), STRIPED_LOCKER_LIBSTRIPED);
	assert_int_equal(cookie_owner(c, "", true), STRIPED_LOCKER_LIBSTRIPED);
	assert_int_equal(cookie_owner(uuid, "Tag", false), STRIPED_LOCKER_LIBRADOSSTRIPER);
	assert_int_equal(cookie_owner(uuid, "", true), STRIPED_LOCKER_LIBRADOSSTRIPER);
	assert_int_equal(cookie_owner("1B4E28BA-2FA1-11D2-883F-0016D3CCA427", "Tag", false),
			 STRIPED_LOCKER_LIBRADOSSTRIPER);
	/* libradosstriper's tags only: shared "Tag", exclusive "". */
	assert_int_equal(cookie_owner(uuid, "", false), STRIPED_LOCKER_OTHER);
	assert_int_equal(cookie_owner(uuid, "Tag", true), STRIPED_LOCKER_OTHER);
	assert_int_equal(cookie_owner(uuid, "mine", false), STRIPED_LOCKER_OTHER);
	/* A UUID's shape, not anything like it. */
	assert_int_equal(cookie_owner("1b4e28ba-2fa1-11d2-883f-0016d3cca42", "Tag", false),
			 STRIPED_LOCKER_OTHER);
	assert_int_equal(cookie_owner("1b4e28ba-2fa1-11d2-883f-0016d3cca4270", "Tag", false),
			 STRIPED_LOCKER_OTHER);
	assert_int_equal(cookie_owner("1b4e28ba_2fa1-11d2-883f-0016d3cca427", "Tag", false),
			 STRIPED_LOCKER_OTHER);
	assert_int_equal(cookie_owner("1b4e28bg-2fa1-11d2-883f-0016d3cca427", "Tag", false),
			 STRIPED_LOCKER_OTHER);
	assert_int_equal(cookie_owner("by-hand", "Tag", false), STRIPED_LOCKER_OTHER);
	assert_int_equal(cookie_owner("", "", true), STRIPED_LOCKER_OTHER);
}

/* One blocklist entry fences every client of an address: which strings name the same one. */
static void test_addr_shared(void **state)
{
	static const struct {
		const char *a, *b;
		bool shared;
	} cases[] = {
	    {"127.0.0.1:0/3490100637", "127.0.0.1:0/3490100637", true},
	    /* Forked siblings: same IP and port, another nonce only when connected apart. */
	    {"127.0.0.1:0/3490100637", "127.0.0.1:0/3490100638", false},
	    {"127.0.0.1:0/349010063", "127.0.0.1:0/3490100637", false},
	    {"127.0.0.1:0/1", "127.0.0.2:0/1", false},
	    /* Vectors, and the type left out. */
	    {"[v2:10.0.0.1:0/77,v1:10.0.0.1:0/77]", "10.0.0.1:0/77", true},
	    {"any:10.0.0.1:0/77", "[v1:10.0.0.1:0/77]", true},
	    {"v2:10.0.0.1:0/77", "[v2:10.0.0.2:0/5,v1:10.0.0.1:0/77]", true},
	    {"[v2:10.0.0.1:0/77,v1:10.0.0.1:0/77]", "10.0.0.1:0/78", false},
	    /* IPv6, lone and in a vector. */
	    {"[::1]:0/9", "[v2:[::1]:0/9,v1:[::1]:0/9]", true},
	    {"[::1]:0/9", "[v2:[::1]:0/8]", false},
	    {"[::1]:0/9", "[::2]:0/9", false},
	    /* Nothing in common with nothing. */
	    {"", "127.0.0.1:0/1", false},
	    {"[]", "[]", false},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (addr_shared(cases[i].a, cases[i].b) != cases[i].shared ||
		    addr_shared(cases[i].b, cases[i].a) != cases[i].shared)
			fail_msg("'%s' and '%s': want %s", cases[i].a, cases[i].b,
				 cases[i].shared ? "shared" : "not shared");
	}
}

/* The mark moves ahead in steps: doubling from 4 MiB, then 256 MiB at a time, never wrapping. */
static void test_mark_steps(void **state)
{
	uint64_t end = 0, raises = 0;

	(void)state;
	assert_int_equal(mark_target(4096), 4096 + MARK_STEP_MIN);
	assert_int_equal(mark_target(64ull << 20), 128ull << 20);
	assert_int_equal(mark_target(1ull << 30), (1ull << 30) + MARK_STEP_MAX);
	assert_int_equal(mark_target(UINT64_MAX - 5), UINT64_MAX);
	/* 4 KiB calls growing a file to 1 GiB raise it 11 times, not 262144. */
	for (uint64_t mark = 0, e = 4096; e <= (1ull << 30); e += 4096) {
		if (e > mark) {
			mark = mark_target(e);
			raises++;
		}
		end = e;
	}
	assert_int_equal(end, 1ull << 30);
	assert_true(raises <= 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cookie_is_ours),
	    cmocka_unit_test(test_two_cookies_differ),
	    cmocka_unit_test(test_cookie_answered),
	    cmocka_unit_test(test_locker_owner),
	    cmocka_unit_test(test_addr_shared),
	    cmocka_unit_test(test_mark_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
