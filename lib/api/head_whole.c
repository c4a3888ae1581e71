// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A small file made or removed whole by name, one operation on its head:
 * made (striped_head_create()) with the file's metadata, its bytes, its
 * lock's xattr as a lock no one holds leaves it, and the caller's xattrs:
 * no handle, nothing to lock (no one can know the file before it exists),
 * nothing to watch; removed (striped_head_remove()) if it still is as the
 * caller read it, its lock held by no one.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "appends.h"
#include "entries.h"
#include "head.h"
#include "holder.h"
#include "layout.h"
#include "meta.h"
#include "name.h"

/*
 * What one operation carries at most: an OSD refuses a request above
 * osd_max_write_size (90 MiB by default; -EMSGSIZE), and a request's count
 * of operations is 16 bits.
 */
#define CREATE_BYTES_MAX (64ull << 20)
#define CREATE_XATTRS_MAX 1024

/* The xattrs' names and values checked; *bytes what they add to the operation. */
static int check_xattrs(const struct striped_xattr_value *x, size_t n, uint64_t *bytes)
{
	*bytes = 0;
	if (n > CREATE_XATTRS_MAX)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		int r = api_check_xattr_name(x[i].name);

		if (r)
			return r;
		if (!x[i].value && x[i].len)
			return -EINVAL;
		*bytes += strlen(x[i].name) + (uint64_t)x[i].len;
	}
	return 0;
}

/* The layout striped_open() gives a new file on io's pool when the caller gives none. */
static int pool_default_layout(rados_ioctx_t io, struct striped_layout *l)
{
	uint64_t width = 0;
	int r = rados_ioctx_pool_required_alignment2(io, &width);

	if (r < 0)
		return r;
	appends_default_layout(width, l);
	return 0;
}

/* The head as made, as striped_head_read() would give it (but its mtime), h_size of it. */
static void head_as_made(const struct head_meta *m, struct striped_head *h, size_t h_size)
{
	struct striped_head made = {.size = m->size, .layout = m->layout,
				    .reserved = m->reserved, .id = m->id, .holder = m->held};

	memcpy(h, &made, h_size < sizeof(made) ? h_size : sizeof(made));
}

/* The checks of striped_head_replace()'s and striped_head_remove()'s head as read. */
static bool head_given_valid(const struct striped_head *h, size_t h_size)
{
	/* 0.8's struct, whatever later versions add after it */
	return h && h_size >= offsetof(struct striped_head, id) + sizeof(h->id) &&
	       !layout_validate(&h->layout);
}

/* striped_head_create2(), h filled when not NULL; held by client id held when not 0. */
static int create_whole(rados_ioctx_t io, const char *name, const struct striped_layout *layout,
			const void *buf, size_t len, const struct striped_xattr_value *xattrs,
			size_t nxattrs, struct striped_head *h, size_t h_size, uint64_t held)
{
	struct striped_file *unused;
	struct striped_layout l;
	struct index_update *u;
	struct head_meta m;
	uint64_t xattr_bytes = 0;
	char *oid;
	int r, r2;

	if (!io || (!buf && len) || (!xattrs && nxattrs) || (h && h_size < sizeof(uint64_t)))
		return -EINVAL;
	r = api_check_open(io, name, STRIPED_CREATE | STRIPED_EXCL, layout, &unused);
	if (!r)
		r = check_xattrs(xattrs, nxattrs, &xattr_bytes);
	if (!r && layout)
		l = *layout;
	else if (!r)
		r = pool_default_layout(io, &l);
	if (r)
		return r;
	if (len > l.stripe_unit || len + xattr_bytes > CREATE_BYTES_MAX)
		return -EFBIG;
	r = name_oid(io, name, &oid);
	if (r)
		return r;
	meta_head_new_whole(&m, &l, head_new_id(), len);
	meta_head_set_held(&m, held);
	r = index_update_begin(io, name, true, &u);
	if (!r) {
		r = head_create_whole(io, oid, &m, buf, xattrs, nxattrs);
		r2 = index_update_end(u, r);
		r = r ? r : r2;
	}
	free(oid);
	if (!r && h)
		head_as_made(&m, h, h_size);
	return r;
}

int striped_head_create2(rados_ioctx_t io, const char *name, const struct striped_layout *layout,
			 const void *buf, size_t len, const struct striped_xattr_value *xattrs,
			 size_t nxattrs, struct striped_head *h, size_t h_size)
{
	return create_whole(io, name, layout, buf, len, xattrs, nxattrs, h, h_size, 0);
}

int striped_head_take(rados_ioctx_t io, const char *name, const struct striped_layout *layout,
		      const struct striped_xattr_value *xattrs, size_t nxattrs,
		      struct striped_holder *holder, struct striped_head *h, size_t h_size)
{
	if (!holder || !h || h_size < offsetof(struct striped_head, holder) + sizeof(h->holder))
		return -EINVAL;
	return create_whole(io, name, layout, NULL, 0, xattrs, nxattrs, h, h_size,
			    holder_id(holder));
}

int striped_head_create(rados_ioctx_t io, const char *name, const struct striped_layout *layout,
			const void *buf, size_t len, const struct striped_xattr_value *xattrs,
			size_t nxattrs)
{
	return create_whole(io, name, layout, buf, len, xattrs, nxattrs, NULL, 0, 0);
}

int striped_head_replace(rados_ioctx_t io, const char *name, struct striped_head *h,
			 size_t h_size, const void *buf, size_t len,
			 const struct striped_xattr_value *xattrs, size_t nxattrs)
{
	struct striped_file *unused;
	struct head_meta m;
	uint64_t xattr_bytes = 0;
	char *oid;
	int r;

	if (!io || !head_given_valid(h, h_size) || (!buf && len) || (!xattrs && nxattrs))
		return -EINVAL;
	r = api_check_open(io, name, 0, NULL, &unused);
	if (!r)
		r = check_xattrs(xattrs, nxattrs, &xattr_bytes);
	if (r)
		return r;
	if (len > h->layout.stripe_unit || len + xattr_bytes > CREATE_BYTES_MAX)
		return -EFBIG;
	meta_head_as_read(&m, &h->layout, h->size, h->id, h->reserved);
	if (h_size >= offsetof(struct striped_head, holder) + sizeof(h->holder))
		meta_head_set_held(&m, h->holder); /* its holder's write-back: still its */
	if (head_meta_end(&m) > h->layout.stripe_unit)
		return -EINVAL; /* not a file of its head alone */
	r = name_oid(io, name, &oid);
	if (r)
		return r;
	r = head_replace_as_read(io, oid, &m, buf, len, xattrs, nxattrs);
	free(oid);
	if (!r)
		h->size = len;
	if (!r && h_size >= offsetof(struct striped_head, holder) + sizeof(h->holder))
		h->holder = 0;
	return r;
}

int striped_head_remove(rados_ioctx_t io, const char *name, const struct striped_head *h,
			size_t h_size)
{
	struct index_update *u;
	struct head_meta m;
	char *oid;
	int r, r2;

	if (!io || !head_given_valid(h, h_size))
		return -EINVAL;
	r = name_oid(io, name, &oid);
	if (r)
		return r;
	meta_head_as_read(&m, &h->layout, h->size, h->id, h->reserved);
	r = index_update_begin(io, name, false, &u);
	if (!r) {
		r = head_remove_as_read(io, oid, &m);
		r2 = index_update_end(u, r);
		r = r ? r : r2;
	}
	free(oid);
	return r;
}
