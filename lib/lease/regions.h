/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* regions.c: objects far out in a file, registered on the head */
#ifndef STRIPED_REGIONS_H
#define STRIPED_REGIONS_H

#include "lease.h"

int regions_register(struct lease *ls, const struct striped_layout *l, uint64_t off, uint64_t len,
		     bool nowait);

#endif /* STRIPED_REGIONS_H */
