/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* direct.c: the direct mode, each data call one call of the engine. */
#ifndef STRIPED_DIRECT_H
#define STRIPED_DIRECT_H

#include "mode.h"

extern const struct file_mode direct_mode;

#endif /* STRIPED_DIRECT_H */
