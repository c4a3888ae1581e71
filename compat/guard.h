// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Nothing thrown inside crosses libradosstriper's API, either way.
 * In: every call of the C and C++ API runs in guard(), which turns an
 * exception into an errno. Out: a callback called from C (libstriped's
 * completion callbacks, the callbacks thread's jobs) is declared noexcept,
 * and what it computes that may throw (a result's translation into a
 * bufferlist) runs in guard() too, so a throw left over ends the process at
 * the boundary instead of unwinding through C frames.
 */
#ifndef COMPAT_GUARD_H
#define COMPAT_GUARD_H

#include <cerrno>
#include <exception>
#include <new>

namespace compat
{

template <typename F> int guard(F call) noexcept
{
	try {
		return call();
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

} // namespace compat

#endif
