// SPDX-License-Identifier: LGPL-2.1-or-later
/* Holders of files made now and written later (striped.h; lease/holder.c does the work). */
#include <errno.h>

#include "api.h"
#include "holder.h"

int striped_holder_open(rados_ioctx_t io, void (*asked)(void *arg, const char *name), void *arg,
			struct striped_holder **out)
{
	if (!io || !asked || !out)
		return -EINVAL;
	return holder_open(io, asked, arg, out);
}

void striped_holder_close(struct striped_holder *h)
{
	holder_close(h);
}
