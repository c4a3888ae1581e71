// SPDX-License-Identifier: LGPL-2.1-or-later
/* Nothing thrown inside crosses libradosstriper's API: exceptions become errnos. */
#ifndef COMPAT_GUARD_H
#define COMPAT_GUARD_H

#include <cerrno>
#include <exception>
#include <new>

namespace compat
{

template <typename F> int guard(F call)
{
	try {
		return call();
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (const std::exception &) {
		return -EIO;
	}
}

} // namespace compat

#endif
