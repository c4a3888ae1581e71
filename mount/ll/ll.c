// SPDX-License-Identifier: LGPL-2.1-or-later
/* The FUSE handlers, all of them (ll.h). */
#include "ll.h"

void ll_init(struct fuse_lowlevel_ops *ops)
{
	ll_file_init(ops);
	ll_name_init(ops);
	ll_attr_init(ops);
	ll_dir_init(ops);
}
