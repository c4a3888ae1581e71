/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* handover.c: asking holders to let go, fencing those that do not answer */
#ifndef STRIPED_HANDOVER_H
#define STRIPED_HANDOVER_H

#include "meta.h"

/* Take the lock req describes, asking the holders to let go and fencing a silent one. */
int handover_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req);

#endif /* STRIPED_HANDOVER_H */
