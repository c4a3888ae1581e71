/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clock.c: the process's one clock, monotonic, in nanoseconds */
#ifndef STRIPED_CLOCK_H
#define STRIPED_CLOCK_H

#include <stdint.h>

#define NS_PER_MS 1000000ull
#define NS_PER_SEC 1000000000ull

/* CLOCK_MONOTONIC, in nanoseconds: what every timeout, age and latency is measured on. */
uint64_t clock_now_ns(void);

#endif /* STRIPED_CLOCK_H */
