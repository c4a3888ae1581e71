/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* decimal.c: unsigned 64-bit numbers as ASCII decimal (pure) */
#ifndef STRIPED_DECIMAL_H
#define STRIPED_DECIMAL_H

#include "striped_i.h"

/* Longest decimal uint64 plus NUL. */
#define DECIMAL_MAX 21

/* 0 and *out, or -EINVAL: not digits only (one trailing NUL aside), empty, or past 2^64 - 1. */
int decimal_parse(const char *s, size_t len, uint64_t *out);
/* The length written (without the NUL). */
int decimal_format(uint64_t v, char buf[DECIMAL_MAX]);

#endif /* STRIPED_DECIMAL_H */
