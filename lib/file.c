// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Striped files: open/create and close, a handle's settings and statistics,
 * stat, truncate and remove. The data calls are in data.c, dispatched once
 * on the handle's mode (direct.c, buffered/); the calls of a handle in
 * calls.c, the lease and the size in lease.c and size.c, the head object's
 * round trips in head.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buffered/buffered.h"
#include "calls.h"
#include "completion.h"
#include "conf.h"
#include "excl.h"
#include "file.h"
#include "head.h"
#include "io.h"
#include "lease.h"
#include "name.h"
#include "rados_cxx.h"
#include "size.h"
#include "throttle.h"

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

/* ---- open and close ---- */

static void file_free(struct striped_file *f)
{
	f->mode->free(f);
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

/* The lease's last reference is gone (lease.c). */
static void file_release(struct lease *ls)
{
	file_free((struct striped_file *)((char *)ls - offsetof(struct striped_file, lease)));
}

static struct striped_file *file_alloc(rados_ioctx_t io, const char *name)
{
	struct striped_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->name = strdup(name);
	f->head_oid = name_head_oid(name);
	if (!f->name || !f->head_oid)
		goto err_names;
	if (calls_init(&f->calls, &f->lease))
		goto err_names;
	if (throttle_init(&f->throttle, 0, 0))
		goto err_calls;
	f->io = io;
	f->mode = &direct_mode;
	f->objecter_ops_limit = conf_objecter_limit(io, "objecter_inflight_ops", 1024);
	f->objecter_bytes_limit =
	    conf_objecter_limit(io, "objecter_inflight_op_bytes", 100ull << 20);
	account_init(&f->account);
	return f;

err_calls:
	calls_destroy(&f->calls);
err_names:
	free(f->head_oid);
	free(f->name);
	free(f);
	return NULL;
}

/* What the engine gets for the handle's calls. */
static void file_set_target(struct striped_file *f)
{
	struct io_target t = {
	    .io = f->io,
	    .name = f->name,
	    .head_oid = f->head_oid,
	    .layout = &f->layout,
	    .throttle = &f->throttle,
	    .account = &f->account,
	    .lease = &f->lease,
	    .appends = f->appends,
	    .stripe_width = f->stripe_width,
	    .always_copy = conf_has_op_timeout(f->io),
	};

	calls_set_target(&f->calls, &t);
}

/*
 * An erasure-coded pool's stripe width (0 for a replicated pool); without
 * overwrites it takes only aligned appends, which the handle then checks
 * (io_appends.c). Read from the client's OSD map: no round trip.
 */
static int pool_stripes(rados_ioctx_t io, struct striped_file *f)
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

/*
 * A new file's layout when the caller gives none: libradosstriper's (4 MiB
 * stripe units and objects), its units cut to whole stripes of an erasure-
 * coded pool (a 64 KiB multiple of the stripe width, at most 4 MiB where one
 * fits), so that writes of whole units never start inside a stripe.
 */
static void default_layout(const struct striped_file *f, struct striped_layout *l)
{
	struct striped_layout def = STRIPED_LAYOUT_DEFAULT_INIT;
	uint64_t unit = appends_aligned_unit(def.stripe_unit, f->stripe_width);

	*l = def;
	if (unit && unit <= def.stripe_unit) {
		l->stripe_unit = unit;
		l->object_size = unit;
	}
}

static int check_create_layout(rados_ioctx_t io, const struct striped_layout *l)
{
	int r = striped_layout_validate(l);

	if (r)
		return r;
	if (l->object_size > conf_u64(io, "osd_max_object_size", 128ull << 20))
		return -EFBIG;
	return 0;
}

/* What striped_open() refuses before any round trip. */
int file_check_open(rados_ioctx_t io, const char *name, int flags,
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

int striped_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
		 struct striped_file **out)
{
	struct striped_layout def;
	struct striped_file *f;
	int r = file_check_open(io, name, flags, layout, out);

	if (r)
		return r;
	f = file_alloc(io, name);
	if (!f)
		return -ENOMEM;
	r = pool_stripes(io, f);
	default_layout(f, &def);
	if (!r)
		r = lease_open(&f->lease, io, f->head_oid, flags, layout ? layout : &def,
			       file_release);
	if (r) {
		file_free(f);
		return r;
	}
	f->layout = f->lease.layout;
	file_set_target(f);
	{
		uint64_t ops = 256, bytes = f->objecter_bytes_limit / 4 * 3;

		striped_file_set_throttle(f, (uint32_t)ops, bytes ? bytes : UINT64_MAX);
	}
	if (flags & STRIPED_BUFFERED) {
		/* A close deferred from a callback is finished by the mode's own thread. */
		r = buffered_open(f, striped_close);
		if (r) {
			striped_close(f);
			return r;
		}
	}
	*out = f;
	return 0;
}

/* Operations and lock round trips of the handle that timed out (the cluster did not answer). */
static uint64_t file_timeouts(struct striped_file *f)
{
	return throttle_timeouts(&f->throttle) + lease_timeouts(&f->lease);
}

int striped_close2(struct striped_file *f)
{
	uint64_t seen;
	int r;

	if (!f)
		return 0;
	seen = file_timeouts(f);
	/* What the mode holds cannot be waited for here: its own thread sends it and closes. */
	if (completion_in_callback() && f->mode->close_later(f))
		return 0;
	r = f->mode->close(f);
	if (completion_in_callback()) {
		/*
		 * The callback's own call is still in flight, so waiting would
		 * never end: the file goes when its last call has ended.
		 */
		lease_stop(&f->lease);
		lease_put(&f->lease);
		return 0;
	}
	calls_wait(&f->calls);
	/*
	 * Others may truncate or remove once close returns. When the cluster
	 * did not answer while close waited (its window, its calls, a lock
	 * round trip timed out), letting go is not waited for: close takes
	 * the op timeout once, not twice.
	 */
	lease_close(&f->lease, file_timeouts(f) != seen);
	lease_put(&f->lease);
	return r;
}

void striped_close(struct striped_file *f)
{
	(void)striped_close2(f);
}

/* ---- settings and statistics ---- */

int striped_file_set_buffer(struct striped_file *f, const struct striped_buffer_config *cfg,
			    size_t cfg_size)
{
	return f ? f->mode->configure(f, cfg, cfg_size) : -EINVAL;
}

int striped_file_set_throttle(struct striped_file *f, uint32_t max_ops, uint64_t max_bytes)
{
	uint64_t ops_cap, bytes_cap;

	if (!f || !max_ops || !max_bytes)
		return -EINVAL;
	/* Leave librados a quarter of its own budget so it never has to block. */
	ops_cap = f->objecter_ops_limit / 4 * 3;
	bytes_cap = f->objecter_bytes_limit / 4 * 3;
	if (max_ops > ops_cap)
		max_ops = (uint32_t)ops_cap;
	if (max_bytes > bytes_cap)
		max_bytes = bytes_cap;
	throttle_set(&f->throttle, max_ops, max_bytes);
	return 0;
}

int striped_file_set_lease(struct striped_file *f, unsigned int seconds)
{
	if (!f || seconds < STRIPED_LEASE_MIN_SECONDS || seconds > STRIPED_LEASE_MAX_SECONDS)
		return -EINVAL;
	lease_set_idle(&f->lease, seconds);
	return 0;
}

int striped_file_stats(struct striped_file *f, struct striped_io_stats *st, size_t st_size)
{
	struct striped_io_stats copy;

	if (!f || !st)
		return -EINVAL;
	account_read(&f->account, &copy);
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
	account_latency(&f->account, &copy);
	memcpy(lat, &copy, lat_size < sizeof(copy) ? lat_size : sizeof(copy));
	return 0;
}

/* ---- stat ---- */

int striped_aio_stat(struct striped_file *f, struct striped_completion *c, uint64_t *size)
{
	struct io_req req = {.op = IO_STAT, .size = size};

	if (!f || !c || !size)
		return -EINVAL;
	return calls_start(&f->calls, c, &req);
}

int striped_stat(struct striped_file *f, uint64_t *size, struct striped_layout *layout)
{
	uint64_t stored;
	struct io_req req = {.op = IO_STAT, .size = &stored};
	ssize_t r;

	if (!f)
		return -EINVAL;
	r = calls_run(&f->calls, &req);
	if (r)
		return (int)r;
	if (size)
		*size = f->mode->size(f, stored);
	if (layout)
		*layout = f->layout;
	return 0;
}

/* ---- head round trips as calls ---- */

ssize_t file_head_call(struct striped_file *f, file_head_fn fn, void *arg, unsigned lease_flags)
{
	struct io_target t;
	uint64_t epoch;
	ssize_t r = calls_enter(&f->calls, false, &t);

	if (r)
		return r;
	r = lease_enter(&f->lease, lease_flags, &epoch);
	if (!r) {
		r = fn(f, arg);
		if (r == -ENOENT || (r >= 0 && !lease_covered(&f->lease, epoch)))
			r = -ESTALE;
		if (r == -ETIMEDOUT)
			lease_timed_out(&f->lease); /* calls waiting on the head give up */
		lease_exit(&f->lease);
	}
	calls_leave(&f->calls, t.tag);
	return r;
}

static ssize_t fstat_fn(struct striped_file *f, void *arg)
{
	struct striped_stat *st = arg;
	int r = head_stat_time(f->io, f->head_oid, &st->size, &st->mtime);

	if (r == -ENODATA)
		return -ESTALE; /* no size: the name holds something else now */
	if (!r)
		size_learn(&f->lease, st->size);
	return r;
}

int striped_fstat(struct striped_file *f, struct striped_stat *st, size_t st_size)
{
	struct striped_stat full = {0};
	ssize_t r;

	if (!f || !st || st_size < sizeof(st->size))
		return -EINVAL;
	r = file_head_call(f, fstat_fn, &full, 0);
	if (r)
		return (int)r;
	full.size = f->mode->size(f, full.size);
	full.layout = f->layout;
	memcpy(st, &full, st_size < sizeof(full) ? st_size : sizeof(full));
	return 0;
}

/* ---- truncate and remove ---- */

/*
 * Growing clears bytes an older writer may have left past the old end (one
 * that sent data before the size, as libstriped before 0.2 did), but only in
 * the old end's object set: the cost stays at most stripe_count operations
 * however far the file grows.
 */
static uint64_t grow_clean_end(const struct striped_layout *l, uint64_t old, uint64_t size)
{
	uint64_t period = l->stripe_count * l->object_size;
	uint64_t set_end = old / period * period;

	if (set_end > UINT64_MAX - period)
		return size;
	set_end += period;
	return size < set_end ? size : set_end;
}

/*
 * Under the exclusive lock: objects first, size last, fenced by the lock.
 * Bytes past the old size up to the mark come only from writes that did not
 * succeed (or crashed) since the last truncate: they are cleaned with the
 * rest, whether the file shrinks or grows over them, and the mark comes
 * down to the new size with it (excl_set_size).
 */
static int truncate_locked(struct excl *x, const char *name, const struct lease *ls, uint64_t size)
{
	const struct striped_layout *l = &ls->layout;
	struct head_meta m;
	uint64_t old, keep, upto;
	int r = head_read_meta(x->io, x->oid, &m);

	if (r)
		return r;
	/* Removed and created again since the handle took its lock: not this handle's file. */
	if (!meta_same_file(&m, l, ls->id)) {
		head_meta_free(&m);
		return -ESTALE;
	}
	old = m.size;
	keep = size < old ? size : old;
	upto = size > old ? grow_clean_end(l, old, size) : old;
	if (head_meta_end(&m) > upto)
		upto = head_meta_end(&m);
	/* A crash in between leaves a size whose missing bytes read as zeros. */
	if (upto > keep && !(STRIPED_THRASH_DEFECT == 3 && size < old)) /* 3: nothing cut */
		r = io_clean_objects(x->io, name, l, keep, upto, &m, NULL, 0, excl_keep, x);
	if (!r)
		r = excl_set_size(x, old, size);
	head_meta_free(&m);
	return r;
}

/*
 * Before the exclusive lock is asked for: a head that is damaged, no
 * striped file or another file now is refused at once, with nothing written
 * and no holder asked to let go (or fenced). Checked again under the lock.
 */
static int head_precheck(rados_ioctx_t io, const char *oid, const struct lease *ls)
{
	struct head_meta m;
	int r = head_read_meta(io, oid, &m);

	if (r)
		return r;
	if (ls && !meta_same_file(&m, &ls->layout, ls->id))
		r = -ESTALE;
	head_meta_free(&m);
	return r;
}

int striped_truncate(struct striped_file *f, uint64_t size)
{
	uint64_t seen;
	struct excl x;
	int r;

	if (!f)
		return -EINVAL;
	/* Its own call would never end while we wait for the file's calls. */
	if (completion_in_callback())
		return -EDEADLK;
	seen = file_timeouts(f);
	/*
	 * What the mode holds (the window's bytes) is older than the truncate:
	 * it lands first, and no write enters the window until the lock is ours
	 * again (a write acknowledged meanwhile would land after the truncates
	 * of others that begin once it returned).
	 */
	calls_copies_hold(&f->calls);
	r = f->mode->drain(f);
	if (r) {
		calls_copies_resume(&f->calls);
		return r;
	}
	calls_gate_close(&f->calls);
	/* Our shared lock would keep our own exclusive lock out. */
	lease_release(&f->lease, false);
	/*
	 * What it waited for (the calls in flight, the idler letting go) timed
	 * out, the cluster does not answer: so does the truncate, at once,
	 * rather than wait the op timeout again.
	 */
	if (file_timeouts(f) != seen) {
		r = -ETIMEDOUT;
		goto out;
	}
	r = head_precheck(f->io, f->head_oid, &f->lease);
	if (!r)
		r = excl_begin(&x, f->io, f->head_oid);
	if (r == -ENOENT || r == -ENODATA)
		r = -ESTALE;
	if (!r) {
		r = truncate_locked(&x, f->name, &f->lease, size);
		excl_end(&x, r);
	}
	/*
	 * Back to the shared lock; it re-reads the size. After a timeout that
	 * would be one more: the next call takes it back, or says why not.
	 */
	if (r != -ETIMEDOUT)
		lease_reacquire(&f->lease);
out:
	/* Calls waiting at the gate give up too: they have waited the op timeout. */
	if (r == -ETIMEDOUT)
		lease_timed_out(&f->lease);
	calls_gate_open(&f->calls);
	calls_copies_resume(&f->calls);
	return r;
}

int striped_remove(rados_ioctx_t io, const char *name)
{
	struct head_meta m;
	struct excl x;
	char *oid;
	int r;

	r = name_oid(io, name, &oid);
	if (r)
		return r;
	r = head_precheck(io, oid, NULL);
	if (!r)
		r = excl_begin(&x, io, oid);
	if (r)
		goto out;
	r = head_read_meta(io, oid, &m);
	if (!r) {
		r = io_clean_objects(io, name, &m.layout, 0, head_meta_end(&m), &m, NULL, 0,
				     excl_keep, &x);
		head_meta_free(&m);
	}
	if (!r)
		r = excl_remove_head(&x); /* the lock goes with it */
	if (r)
		excl_end(&x, r);
out:
	free(oid);
	return r;
}
