// SPDX-License-Identifier: LGPL-2.1-or-later
/* libstriped handles as the mount opens them (handle.h). */
#include <errno.h>

#include "handle.h"

static int open_or_create(struct mount *m, const char *path, bool create, bool excl, int mode,
			  struct striped_file **f, bool *created)
{
	int r;

	*created = false;
	if (create) {
		r = striped_open(m->io, path, mode | STRIPED_CREATE | STRIPED_EXCL, &m->o.layout, f);
		*created = !r;
		if (r != -EEXIST || excl)
			return r;
	}
	r = striped_open(m->io, path, mode, NULL, f);
	if (r == -ENOENT && create) /* removed meanwhile */
		r = striped_open(m->io, path, mode | STRIPED_CREATE, &m->o.layout, f);
	return r;
}

int handle_open(struct mount *m, const char *path, bool create, bool excl, bool buffered,
		struct striped_file **f, bool *created)
{
	struct striped_buffer_config cfg = STRIPED_BUFFER_CONFIG_INIT;
	int r = open_or_create(m, path, create, excl, buffered ? STRIPED_BUFFERED : 0, f, created);

	if (!r && buffered) {
		cfg.window = m->o.window;
		cfg.readahead_max = m->o.window / 2;
		r = striped_file_set_buffer(*f, &cfg, sizeof(cfg));
	}
	if (r) {
		striped_close(*f);
		*f = NULL;
	}
	return r;
}
