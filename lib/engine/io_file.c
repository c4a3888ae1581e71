// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the engine keeps of an open file: its names, its layout, the pool's
 * rules (an erasure-coded pool's stripe width, whether it takes only
 * aligned appends), and the parts the engine's calls run on: the lease
 * (the lock and the watch), the size and mark and the regions (reset from
 * the head each time the lease takes the lock), the throttle, the
 * statistics, the handle's calls. The handle (modes/file.c) owns it and
 * counts the references; the engine holds them for its own work through
 * the owner's hooks (a call in flight, the lease's idler).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "appends.h"
#include "conf.h"
#include "io_file.h"
#include "layout.h"
#include "meta.h"

/* Everything but the lease: what an open that failed leaves, or the end of io_file_free(). */
static void free_parts(struct io_file *f)
{
	regions_destroy(&f->regions);
	size_destroy(&f->size);
	if (f->appends) {
		io_appends_destroy(f->appends);
		free(f->appends);
	}
	throttle_destroy(&f->throttle);
	calls_destroy(&f->calls);
	free(f->head_oid);
	free(f->name);
	free(f);
}

void io_file_free(struct io_file *f)
{
	lease_destroy(&f->lease);
	free_parts(f);
}

/* The object's name of object 0 of file name (free() it), or NULL without memory. */
static char *head_oid_of(const char *name)
{
	size_t len = strlen(name) + OBJECT_SUFFIX_LEN + 1;
	char *oid = malloc(len);

	if (oid)
		layout_object_name(name, 0, oid, len);
	return oid;
}

static struct io_file *file_alloc(rados_ioctx_t io, const char *name, const struct io_owner *owner)
{
	struct io_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->name = strdup(name);
	f->head_oid = head_oid_of(name);
	if (!f->name || !f->head_oid)
		goto err_names;
	if (calls_init(&f->calls))
		goto err_names;
	if (throttle_init(&f->throttle, 0, 0))
		goto err_calls;
	if (size_init(&f->size, io, f->head_oid))
		goto err_throttle;
	if (regions_init(&f->regions, io, f->head_oid))
		goto err_size;
	f->io = io;
	f->owner = *owner;
	f->objecter_ops_limit = conf_objecter_limit(io, "objecter_inflight_ops", 1024);
	f->objecter_bytes_limit =
	    conf_objecter_limit(io, "objecter_inflight_op_bytes", 100ull << 20);
	account_init(&f->account);
	return f;

err_size:
	size_destroy(&f->size);
err_throttle:
	throttle_destroy(&f->throttle);
err_calls:
	calls_destroy(&f->calls);
err_names:
	free(f->head_oid);
	free(f->name);
	free(f);
	return NULL;
}

/* The lease took the lock (lease.c, under its lock): the size, mark and regions it read. */
static void file_granted(void *arg, struct head_meta *m)
{
	struct io_file *f = arg;
	size_t n;
	uint64_t *regions = head_meta_take_regions(m, &n);

	size_reset(&f->size, m->size, head_meta_end(m));
	regions_reset(&f->regions, regions, n);
}

/* The lease's idler works on it: the handle stays (the owner's references). */
static void file_hold(void *arg)
{
	struct io_file *f = arg;

	f->owner.hold(f->owner.arg);
}

static void file_drop(void *arg)
{
	struct io_file *f = arg;

	f->owner.drop(f->owner.arg); /* may free f */
}

/*
 * An erasure-coded pool's stripe width (0 for a replicated pool); without
 * overwrites it takes only aligned appends, which the handle then checks
 * (io_appends.c). Read from the client's OSD map: no round trip.
 */
static int pool_stripes(rados_ioctx_t io, struct io_file *f)
{
	uint64_t width = 0;
	int appends_only = 0;
	int r = rados_ioctx_pool_requires_alignment2(io, &appends_only);

	if (!r)
		r = rados_ioctx_pool_required_alignment2(io, &width);
	if (r < 0)
		return r;
	f->stripe_width = width;
	if (!appends_only)
		return 0;
	f->appends = malloc(sizeof(*f->appends));
	if (!f->appends)
		return -ENOMEM;
	r = io_appends_init(f->appends, width);
	if (r) {
		free(f->appends);
		f->appends = NULL;
	}
	return r;
}

int io_file_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
		 const struct io_owner *owner, struct io_file **out)
{
	struct striped_layout def;
	struct io_file *f = file_alloc(io, name, owner);
	uint64_t bytes;
	int r;

	if (!f)
		return -ENOMEM;
	r = pool_stripes(io, f);
	appends_default_layout(f->stripe_width, &def);
	if (!r)
		r = lease_open(&f->lease, io, f->head_oid, flags, layout ? layout : &def,
			       &(struct lease_owner){file_granted, file_hold, file_drop, f});
	if (r) {
		free_parts(f);
		return r;
	}
	f->layout = *lease_layout(&f->lease);
	f->always_copy = conf_has_op_timeout(io);
	bytes = f->objecter_bytes_limit / 4 * 3;
	io_file_set_throttle(f, 256, bytes ? bytes : UINT64_MAX);
	*out = f;
	return 0;
}

void io_file_close(struct io_file *f, uint64_t timeouts_seen)
{
	calls_wait(f);
	lease_close(&f->lease, io_file_timeouts(f) != timeouts_seen);
}

uint64_t io_file_timeouts(struct io_file *f)
{
	return throttle_timeouts(&f->throttle) + lease_timeouts(&f->lease) +
	       size_timeouts(&f->size);
}

void io_file_stop(struct io_file *f)
{
	lease_stop(&f->lease);
}

const struct striped_layout *io_file_layout(const struct io_file *f)
{
	return &f->layout;
}

/* ---- settings and statistics ---- */

void io_file_set_throttle(struct io_file *f, uint32_t max_ops, uint64_t max_bytes)
{
	/* Leave librados a quarter of its own budget so it never has to block. */
	uint64_t ops_cap = f->objecter_ops_limit / 4 * 3;
	uint64_t bytes_cap = f->objecter_bytes_limit / 4 * 3;

	if (max_ops > ops_cap)
		max_ops = (uint32_t)ops_cap;
	if (max_bytes > bytes_cap)
		max_bytes = bytes_cap;
	throttle_set(&f->throttle, max_ops, max_bytes);
}

uint64_t io_file_max_bytes(struct io_file *f)
{
	return throttle_max_bytes(&f->throttle);
}

void io_file_set_idle(struct io_file *f, uint32_t seconds)
{
	lease_set_idle(&f->lease, seconds);
}

void io_file_stats(struct io_file *f, struct striped_io_stats *st)
{
	account_read(&f->account, st);
}

void io_file_latency(struct io_file *f, struct striped_latency *lat)
{
	account_latency(&f->account, lat);
}

void io_file_on_asked(struct io_file *f, void (*asked)(void *arg), void *arg)
{
	lease_on_asked(&f->lease, asked, arg);
}

bool io_file_appends_only(const struct io_file *f)
{
	return f->appends != NULL;
}

uint64_t io_file_size_known(struct io_file *f)
{
	return size_known(&f->size);
}

/* ---- a call the mode answers itself ---- */

int io_file_enter(struct io_file *f, bool changes, bool nowait, uint64_t *epoch)
{
	return lease_enter(&f->lease, (changes ? LEASE_CHANGES : 0) | (nowait ? LEASE_NOWAIT : 0),
			   epoch);
}

void io_file_exit(struct io_file *f)
{
	lease_exit(&f->lease);
}

uint64_t io_file_granted_ns(struct io_file *f)
{
	return lease_granted_ns(&f->lease);
}

int io_file_confirm(struct io_file *f)
{
	return lease_confirm(&f->lease);
}
