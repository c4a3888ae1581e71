// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The public calls on a handle's life: open and close, its settings and
 * statistics, stat, truncate; and remove by name. Each checks its
 * arguments here, at the boundary, then makes one call of the handle
 * (modes/file.c), or of remove.c for a remove (no handle).
 */
#include <errno.h>
#include <string.h>

#include "api.h"
#include "completion.h"
#include "conf.h"
#include "entries.h"
#include "file.h"
#include "layout.h"
#include "name.h"

static int check_create_layout(rados_ioctx_t io, const struct striped_layout *l)
{
	int r = layout_validate(l);

	if (r)
		return r;
	if (l->object_size > conf_u64(io, "osd_max_object_size", 128ull << 20))
		return -EFBIG;
	return 0;
}

int api_check_open(rados_ioctx_t io, const char *name, int flags,
		   const struct striped_layout *layout, struct striped_file **out)
{
	struct striped_layout def = STRIPED_LAYOUT_DEFAULT_INIT;
	int r;

	if (!io || !out || (flags & ~(STRIPED_CREATE | STRIPED_EXCL | STRIPED_BUFFERED)) ||
	    ((flags & STRIPED_EXCL) && !(flags & STRIPED_CREATE)))
		return -EINVAL;
	r = name_check(io, name);
	if (!r && (flags & STRIPED_CREATE))
		r = check_create_layout(io, layout ? layout : &def);
	return r;
}

/*
 * A create's index entries go out before the head's operation and are
 * awaited after it (index/entries.h): no round trip more. The open of a
 * file that was there sends them too (it cannot know before): they are
 * what the index holds already.
 */
int api_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
	     struct striped_file **out)
{
	struct index_update *u = NULL;
	int r = api_check_open(io, name, flags, layout, out), r2;

	if (!r && (flags & STRIPED_CREATE))
		r = index_update_begin(io, name, true, &u);
	if (r)
		return r;
	r = file_open(io, name, flags, layout, out);
	r2 = index_update_end(u, r);
	if (!r && r2) { /* a file no listing would show: say so */
		(void)file_close(*out);
		*out = NULL;
		r = r2;
	}
	return r;
}

int striped_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
		 struct striped_file **out)
{
	return api_open(io, name, flags, layout, out);
}

int striped_close2(struct striped_file *f)
{
	return f ? file_close(f) : 0;
}

void striped_close(struct striped_file *f)
{
	if (f)
		(void)file_close(f);
}

/* ---- settings and statistics ---- */

int striped_file_set_buffer(struct striped_file *f, const struct striped_buffer_config *cfg,
			    size_t cfg_size)
{
	return f ? file_set_buffer(f, cfg, cfg_size) : -EINVAL;
}

int striped_file_set_throttle(struct striped_file *f, uint32_t max_ops, uint64_t max_bytes)
{
	if (!f || !max_ops || !max_bytes)
		return -EINVAL;
	file_set_throttle(f, max_ops, max_bytes);
	return 0;
}

int striped_file_set_lease(struct striped_file *f, unsigned int seconds)
{
	if (!f || seconds < STRIPED_LEASE_MIN_SECONDS || seconds > STRIPED_LEASE_MAX_SECONDS)
		return -EINVAL;
	file_set_lease(f, seconds);
	return 0;
}

int striped_file_stats(struct striped_file *f, struct striped_io_stats *st, size_t st_size)
{
	struct striped_io_stats copy;

	if (!f || !st)
		return -EINVAL;
	file_stats(f, &copy);
	if (st_size > sizeof(copy))
		st_size = sizeof(copy);
	memcpy(st, &copy, st_size);
	return 0;
}

int striped_file_latency(struct striped_file *f, struct striped_latency *lat, size_t lat_size)
{
	struct striped_latency copy;

	if (!f || !lat)
		return -EINVAL;
	file_latency(f, &copy);
	memcpy(lat, &copy, lat_size < sizeof(copy) ? lat_size : sizeof(copy));
	return 0;
}

/* ---- stat ---- */

int striped_aio_stat(struct striped_file *f, struct striped_completion *c, uint64_t *size)
{
	if (!f || !c || !size)
		return -EINVAL;
	return file_aio_stat(f, c, size);
}

int striped_stat(struct striped_file *f, uint64_t *size, struct striped_layout *layout)
{
	return f ? file_stat(f, size, layout) : -EINVAL;
}

int striped_fstat(struct striped_file *f, struct striped_stat *st, size_t st_size)
{
	struct striped_stat full = {0};
	int r;

	if (!f || !st || st_size < sizeof(st->size))
		return -EINVAL;
	r = file_fstat(f, &full);
	if (r)
		return r;
	memcpy(st, &full, st_size < sizeof(full) ? st_size : sizeof(full));
	return 0;
}

/* ---- truncate and remove ---- */

int api_truncate(struct striped_file *f, uint64_t size)
{
	/* Its own call would never end while we wait for the file's calls. */
	if (completion_in_callback())
		return -EDEADLK;
	return file_truncate(f, size);
}

int striped_truncate(struct striped_file *f, uint64_t size)
{
	return f ? api_truncate(f, size) : -EINVAL;
}

int striped_remove(rados_ioctx_t io, const char *name)
{
	return api_remove(io, name);
}
