// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The lock's cookies: ours are "striped-PID-SEQ-NS", unique to a handle of
 * any process, and tell a holder that watches the head and answers a
 * notify (libstriped's) from libradosstriper's (a UUID, tag "Tag" shared or
 * "" exclusive) and anyone else's; a notify's answers are the cookies of
 * the holders that answered. Pure.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "cookie.h"
#include "meta.h"

/* Every libstriped lock cookie starts so; libradosstriper's are UUIDs. */
#define COOKIE_PREFIX "striped-"

/* A lock cookie no other handle of any process uses. */
void cookie_new(char buf[COOKIE_MAX])
{
	static atomic_uint seq;

	snprintf(buf, COOKIE_MAX, COOKIE_PREFIX "%ld-%u-%llx", (long)getpid(),
		 atomic_fetch_add(&seq, 1), (unsigned long long)clock_now_ns());
}

bool cookie_is_ours(const char *cookie)
{
	return !strncmp(cookie, COOKIE_PREFIX, strlen(COOKIE_PREFIX));
}

/* libradosstriper's cookies: a UUID as Ceph prints it, 8-4-4-4-12 hex digits. */
static bool is_uuid(const char *s)
{
	static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

	for (size_t i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] == '-' ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	return s[sizeof(shape) - 1] == '\0';
}

int cookie_owner(const char *cookie, const char *tag, bool exclusive)
{
	if (cookie_is_ours(cookie))
		return STRIPED_LOCKER_LIBSTRIPED;
	/* Its shared lockers use "Tag", its exclusive ones (truncate, remove) "". */
	if (is_uuid(cookie) && !strcmp(tag, exclusive ? STRIPER_EXCLUSIVE_TAG : STRIPER_SHARED_TAG))
		return STRIPED_LOCKER_LIBRADOSSTRIPER;
	return STRIPED_LOCKER_OTHER;
}

bool cookie_answered(const char *answered, size_t len, const char *cookie)
{
	size_t want = strlen(cookie);

	for (size_t at = 0; at < len;) {
		const char *one = answered + at;
		size_t n = strnlen(one, len - at);

		if (n == want && !memcmp(one, cookie, n))
			return true;
		at += n + 1;
	}
	return false;
}
