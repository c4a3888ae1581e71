// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An exclusive section: truncate and remove hold the file's lock exclusive
 * (libradosstriper's exclusive lock, tag ""), taken from the holders by
 * handover (handover.c), renewed while the objects are cleaned, and checked
 * by the section's last step (assert_locked) so a section whose lock was
 * lost changes nothing more.
 */
#include <errno.h>
#include <string.h>

#include "clock.h"
#include "cookie.h"
#include "excl.h"
#include "handover.h"
#include "head.h"
#include "meta.h"


static const char *const excl_description = "libstriped";

static void excl_req(const struct excl *x, struct lock_req *req, uint8_t flags)
{
	*req = (struct lock_req){STRIPER_LOCK_NAME,    LOCK_EXCLUSIVE,	     x->cookie,
				 STRIPER_EXCLUSIVE_TAG, excl_description, EXCL_SECONDS,
				 flags};
}

int excl_begin(struct excl *x, rados_ioctx_t io, const char *oid)
{
	struct lock_req req;

	memset(x, 0, sizeof(*x));
	x->io = io;
	x->oid = oid;
	cookie_new(x->cookie);
	x->granted_ns = clock_now_ns();
	excl_req(x, &req, 0);
	return handover_lock(io, oid, &req);
}

/* Between cleanup operations: renew once half the lock's time is gone. */
int excl_keep(void *arg)
{
	struct excl *x = arg;
	struct lock_req req;
	uint64_t sent = clock_now_ns();
	int r;

	if (x->lost)
		return -EBUSY;
	if (sent - x->granted_ns < (uint64_t)EXCL_SECONDS * NS_PER_SEC / 2)
		return 0;
	excl_req(x, &req, LOCK_FLAG_MUST_RENEW);
	r = head_lock(x->io, x->oid, &req);
	if (r) {
		/* Exclusion is gone: stop rather than cut a writer's data. */
		x->lost = true;
		return r == -ENOENT ? -EBUSY : r;
	}
	x->granted_ns = sent;
	return 0;
}

/* Not waited for when the section ended timed out: the caller would wait the op timeout again. */
void excl_end(struct excl *x, int r)
{
	if (r == -ETIMEDOUT)
		head_unlock_nowait(x->io, x->oid, x->cookie);
	else
		head_unlock(x->io, x->oid, x->cookie);
}

/* Fenced: assert_locked says -EBUSY when the lock is no longer ours. */
int excl_set_size(struct excl *x, uint64_t old, uint64_t size)
{
	struct lock_req req;

	excl_req(x, &req, 0);
	return head_set_size_fenced(x->io, x->oid, &req, old, size);
}

int excl_remove_head(struct excl *x)
{
	struct lock_req req;

	excl_req(x, &req, 0);
	return head_remove_fenced(x->io, x->oid, &req);
}
