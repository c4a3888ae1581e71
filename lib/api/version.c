// SPDX-License-Identifier: LGPL-2.1-or-later
/* The library's version, for a run-time check against the header's (STRIPED_VERSION_*). */
#include "striped.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char *striped_version(int *major, int *minor, int *patch)
{
	if (major)
		*major = STRIPED_VERSION_MAJOR;
	if (minor)
		*minor = STRIPED_VERSION_MINOR;
	if (patch)
		*patch = STRIPED_VERSION_PATCH;
	return STR(STRIPED_VERSION_MAJOR) "." STR(STRIPED_VERSION_MINOR) "." STR(
	    STRIPED_VERSION_PATCH);
}
