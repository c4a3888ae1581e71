// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The mark's step: a growing write past the high-water mark raises it far
 * ahead, as much again as the file holds (within bounds), so a file
 * growing from nothing raises it once per doubling and then once per
 * MARK_STEP_MAX, never once per call; what it costs is only how far
 * remove and truncate clean by name. Pure: unit-tested.
 */
#include "mark_step.h"

uint64_t mark_target(uint64_t end)
{
	uint64_t step = end < MARK_STEP_MIN ? MARK_STEP_MIN : end > MARK_STEP_MAX ? MARK_STEP_MAX : end;

	return end > UINT64_MAX - step ? UINT64_MAX : end + step;
}
