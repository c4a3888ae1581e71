// SPDX-License-Identifier: LGPL-2.1-or-later
/* The mount's clock (clock.h): monotonic for ages, the wall for file times. */
#include "clock.h"

double clock_age_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct timespec clock_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

int64_t clock_ns_of_ts(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

int64_t clock_wall_ns(void)
{
	struct timespec ts = clock_wall();

	return clock_ns_of_ts(&ts);
}

struct timespec clock_ts_of_ns(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};

	return ts;
}
