/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* excl.c: an exclusive section (truncate, remove): the lock, renewed while it lasts */
#ifndef STRIPED_EXCL_H
#define STRIPED_EXCL_H

#include "cls_lock.h"
#include "cookie.h"

/* How long an exclusive section's lock lasts unless renewed (it is, while it runs). */
#define EXCL_SECONDS 30

struct excl {
	rados_ioctx_t io;
	const char *oid;
	char cookie[COOKIE_MAX];
	uint64_t granted_ns;
	bool lost;
};

int excl_begin(struct excl *x, rados_ioctx_t io, const char *oid);
int excl_keep(void *excl);
/* The section is over with result r: let go of the lock. */
void excl_end(struct excl *x, int r);
int excl_set_size(struct excl *x, uint64_t old, uint64_t size);
int excl_remove_head(struct excl *x);

#endif /* STRIPED_EXCL_H */
