// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The process's one clock: CLOCK_MONOTONIC, which no setting of the time
 * moves, so a lease's idle time, a handover's wait, a block's age and a
 * call's latency are all measured alike.
 */
#include <time.h>

#include "clock.h"

uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}
