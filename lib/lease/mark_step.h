/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mark_step.c: how far ahead the high-water mark is raised (pure) */
#ifndef STRIPED_MARK_STEP_H
#define STRIPED_MARK_STEP_H

#include <stdint.h>

#define MARK_STEP_MIN (4ull << 20)
#define MARK_STEP_MAX (256ull << 20)

/*
 * Where to raise the high-water mark for a write ending at end: ahead by
 * as much again as the file holds, at least MARK_STEP_MIN and at most
 * MARK_STEP_MAX (UINT64_MAX at most).
 */
uint64_t mark_target(uint64_t end);

#endif /* STRIPED_MARK_STEP_H */
