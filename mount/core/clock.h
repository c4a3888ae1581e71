/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mount's one clock, in two readings: how old something is (monotonic
 * seconds: ages of cached names and attributes, which a change of the wall
 * clock must not make young or old), and what time it is (the wall clock:
 * the times a file shows, which other clients read).
 */
#ifndef MOUNT_CLOCK_H
#define MOUNT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic seconds, for ages. */
double clock_age_now(void);

/* The wall clock, for a file's times. */
struct timespec clock_wall(void);

/* The wall clock in nanoseconds (one atomic word), and back. */
int64_t clock_wall_ns(void);
struct timespec clock_ts_of_ns(int64_t ns);
int64_t clock_ns_of_ts(const struct timespec *ts);

#endif /* MOUNT_CLOCK_H */
