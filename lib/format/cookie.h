/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cookie.c: the lock's cookies, ours and others', and who holds the lock by its cookie (pure) */
#ifndef STRIPED_COOKIE_H
#define STRIPED_COOKIE_H

#include "striped_i.h"

#define COOKIE_MAX 64

/* A lock cookie no other handle of any process uses. */
void cookie_new(char buf[COOKIE_MAX]);
/* Whether a lock cookie is libstriped's (its holders watch the head and answer). */
bool cookie_is_ours(const char *cookie);
/* Whose a holder of the lock is (STRIPED_LOCKER_*), from its cookie and the lock's tag. */
int cookie_owner(const char *cookie, const char *tag, bool exclusive);
/* Whether answered ('\0'-separated cookies, len bytes) holds cookie. */
bool cookie_answered(const char *answered, size_t len, const char *cookie);

#endif /* STRIPED_COOKIE_H */
