// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Completing librados' own completions from outside librados.
 *
 * libradosstriper's aio calls take a rados_completion_t (a
 * librados::AioCompletion in C++) that the application created with
 * librados and waits on with librados' calls. librados has no public call
 * that completes one: stock libradosstriper, built inside Ceph, sets its
 * internal state. This does the same, on the layout of the librados this
 * process runs with, after checking that layout against librados itself
 * (completion_check()); where the check fails, aio calls are refused.
 */
#ifndef COMPAT_RADOS_COMPLETION_H
#define COMPAT_RADOS_COMPLETION_H

#include <string>

#include <rados/librados.h>

namespace compat
{

/*
 * Whether librados' completions can be completed here: 0, or -ENOTSUP with
 * why in *why. The check runs once per process, the first time it is asked
 * (io: an open I/O context, used for one completion that librados itself
 * completes, without a round trip to an OSD).
 */
int completion_check(rados_ioctx_t io, std::string *why = nullptr);

/* The result of completion_check(), or -ENOTSUP if it never ran. */
int completion_supported();

/* Take the reference a call in flight holds, as librados' own calls do. */
void completion_hold(rados_completion_t c);

/*
 * Complete c with rval: waiters wake, then the application's callbacks run
 * once, on the callback thread, and the call's reference is dropped. Never
 * blocks (safe in a librados or libstriped callback).
 */
void completion_finish(rados_completion_t c, int rval);

/* Drop the reference of completion_hold() for a call that never started. */
void completion_unhold(rados_completion_t c);

} // namespace compat

#endif
