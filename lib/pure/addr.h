/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* addr.c: client addresses, as librados prints them, compared (pure) */
#ifndef STRIPED_ADDR_H
#define STRIPED_ADDR_H

#include <stdbool.h>

/*
 * Whether two client addresses, as librados prints them (a lone
 * "127.0.0.1:0/3490100637" or a vector "[v2:...,v1:...]"), have an entity
 * address in common (IP, port and nonce; v1, v2 or any alike): one
 * blocklist entry would fence both.
 */
bool addr_shared(const char *a, const char *b);

#endif /* STRIPED_ADDR_H */
