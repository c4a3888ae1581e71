// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Striped files: open/create, close, stat, truncate, remove, the synchronous
 * wrappers and argument checks. The data path is in io.c, the lease and the
 * size in lease.c, the head object's round trips in head.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "striped_i.h"

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

int striped_cluster_set_op_timeout(rados_t cluster, unsigned int seconds)
{
	static const char *const keys[] = {"rados_osd_op_timeout", "rados_mon_op_timeout"};
	char value[32];

	if (!cluster)
		return -EINVAL;
	snprintf(value, sizeof(value), "%u", seconds);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int r = rados_conf_set(cluster, keys[i], value);

		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- calls on a file: the gate, the references ---- */

/*
 * A call enters: it waits while the handle's own truncate runs (or, with
 * nowait, is refused), and holds a reference on the file until its end.
 * *gen is its flush generation, for file_call_leave().
 */
static int file_call_enter(struct striped_file *f, bool nowait, uint64_t *gen)
{
	int r = 0;

	pthread_mutex_lock(&f->calls_lock);
	while (f->gate_closed && !nowait)
		pthread_cond_wait(&f->calls_cond, &f->calls_lock);
	if (f->gate_closed) {
		r = -EAGAIN;
	} else {
		f->calls_in_flight++;
		*gen = flush_gens_enter(&f->gens);
	}
	pthread_mutex_unlock(&f->calls_lock);
	if (!r)
		lease_get(&f->lease);
	return r;
}

/* Flushes that waited for calls now ended are done (outside the lock: callbacks run). */
static void flushes_done(struct flush_waiter *w)
{
	struct flush_waiter *next;

	for (; w; w = next) {
		struct striped_completion *c = w->c;

		next = w->next;
		free(w);
		completion_submit_end(c, 0);
	}
}

static void file_call_leave(struct striped_file *f, uint64_t gen)
{
	struct flush_waiter *due;

	pthread_mutex_lock(&f->calls_lock);
	due = flush_gens_leave(&f->gens, gen);
	if (--f->calls_in_flight == 0)
		pthread_cond_broadcast(&f->calls_cond);
	pthread_mutex_unlock(&f->calls_lock);
	flushes_done(due);
	lease_put(&f->lease); /* may free f: the last thing done with it */
}

/* Called after the call's callback has returned: only now may close go on. */
static void file_call_end(void *file, uint64_t gen)
{
	file_call_leave(file, gen);
}

static void wait_calls_locked(struct striped_file *f)
{
	while (f->calls_in_flight)
		pthread_cond_wait(&f->calls_cond, &f->calls_lock);
}

/* The handle's own truncate: no call of the handle runs meanwhile. */
static void gate_close(struct striped_file *f)
{
	pthread_mutex_lock(&f->calls_lock);
	while (f->gate_closed)
		pthread_cond_wait(&f->calls_cond, &f->calls_lock);
	f->gate_closed = true;
	wait_calls_locked(f);
	pthread_mutex_unlock(&f->calls_lock);
}

static void gate_open(struct striped_file *f)
{
	pthread_mutex_lock(&f->calls_lock);
	f->gate_closed = false;
	pthread_cond_broadcast(&f->calls_cond);
	pthread_mutex_unlock(&f->calls_lock);
}

/* ---- cluster limits ---- */

static uint64_t conf_u64(rados_ioctx_t io, const char *key, uint64_t fallback)
{
	char buf[64];
	uint64_t v;

	if (rados_conf_get(rados_ioctx_get_cluster(io), key, buf, sizeof(buf)) < 0)
		return fallback;
	if (meta_parse_u64(buf, strlen(buf), &v))
		return fallback;
	return v;
}

static bool has_op_timeout(rados_ioctx_t io)
{
	char buf[64];

	if (rados_conf_get(rados_ioctx_get_cluster(io), "rados_osd_op_timeout", buf, sizeof(buf)) < 0)
		return true; /* unknown: assume the worst */
	return strtod(buf, NULL) != 0;
}

static char *head_oid(const char *name)
{
	size_t len = strlen(name) + OBJECT_SUFFIX_LEN + 1;
	char *oid = malloc(len);

	if (oid)
		striped_object_name(name, 0, oid, len);
	return oid;
}

/* ---- names ---- */

static int check_name(rados_ioctx_t io, const char *name)
{
	uint64_t max;

	if (!name || !*name)
		return -EINVAL;
	max = conf_u64(io, "osd_max_object_name_len", 2048);
	if (strlen(name) + OBJECT_SUFFIX_LEN > max)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- open and close ---- */

static void file_free(struct striped_file *f)
{
	buffer_free(f->buf);
	throttle_destroy(&f->throttle);
	flush_gens_destroy(&f->gens);
	pthread_cond_destroy(&f->calls_cond);
	pthread_mutex_destroy(&f->calls_lock);
	free(f->head_oid);
	free(f->name);
	free(f);
}

/* The lease's last reference is gone (lease.c). */
static void file_release(struct lease *ls)
{
	file_free((struct striped_file *)((char *)ls - offsetof(struct striped_file, lease)));
}

/* objecter_inflight_op_bytes and _ops of 0 mean "no limit" in Ceph. */
static uint64_t objecter_limit(rados_ioctx_t io, const char *key, uint64_t fallback)
{
	uint64_t v = conf_u64(io, key, fallback);

	return v ? v : UINT64_MAX;
}

static struct striped_file *file_alloc(rados_ioctx_t io, const char *name)
{
	struct striped_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->name = strdup(name);
	f->head_oid = head_oid(name);
	if (!f->name || !f->head_oid || flush_gens_init(&f->gens) ||
	    throttle_init(&f->throttle, 0, 0)) {
		flush_gens_destroy(&f->gens); /* safe when never made: f was zeroed */
		free(f->head_oid);
		free(f->name);
		free(f);
		return NULL;
	}
	f->io = io;
	f->objecter_ops_limit = objecter_limit(io, "objecter_inflight_ops", 1024);
	f->objecter_bytes_limit = objecter_limit(io, "objecter_inflight_op_bytes", 100ull << 20);
	pthread_mutex_init(&f->calls_lock, NULL);
	pthread_cond_init(&f->calls_cond, NULL);
	account_init(&f->account);
	return f;
}

static void file_set_target(struct striped_file *f)
{
	f->target = (struct io_target){
	    .io = f->io,
	    .name = f->name,
	    .head_oid = f->head_oid,
	    .layout = &f->layout,
	    .throttle = &f->throttle,
	    .account = &f->account,
	    .lease = &f->lease,
	    .release = file_call_end,
	    .owner = f,
	    .always_copy = has_op_timeout(f->io),
	};
}

/* Erasure-coded pools without overwrites only take aligned appends. */
static int pool_takes_overwrites(rados_ioctx_t io, struct striped_file *f)
{
	int req = 0;
	int r = rados_ioctx_pool_requires_alignment2(io, &req);

	if (r < 0)
		return r;
	f->aligned_appends_only = req != 0;
	return 0;
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
	r = check_name(io, name);
	if (!r && (flags & STRIPED_CREATE))
		r = check_create_layout(io, layout ? layout : &def);
	return r;
}

int striped_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
		 struct striped_file **out)
{
	struct striped_layout def = STRIPED_LAYOUT_DEFAULT_INIT;
	const struct striped_layout *l = layout ? layout : &def;
	struct striped_file *f;
	int r = file_check_open(io, name, flags, layout, out);

	if (r)
		return r;
	f = file_alloc(io, name);
	if (!f)
		return -ENOMEM;
	r = pool_takes_overwrites(io, f);
	if (!r)
		r = lease_open(&f->lease, io, f->head_oid, flags, l, file_release);
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
		r = buffer_open(f);
		if (r) {
			striped_close(f);
			return r;
		}
	}
	*out = f;
	return 0;
}

int striped_close2(struct striped_file *f)
{
	int r = 0;

	if (!f)
		return 0;
	if (f->buf && completion_in_callback()) {
		/* The window cannot be waited for here: the library's thread sends it and closes. */
		buffer_close_deferred(f->buf);
		return 0;
	}
	if (f->buf)
		r = buffer_close(f->buf);
	if (completion_in_callback()) {
		/*
		 * The callback's own call is still in flight, so waiting would
		 * never end: the file goes when its last call has ended.
		 */
		lease_stop(&f->lease);
		lease_put(&f->lease);
		return 0;
	}
	pthread_mutex_lock(&f->calls_lock);
	wait_calls_locked(f);
	pthread_mutex_unlock(&f->calls_lock);
	lease_close(&f->lease); /* others may truncate or remove once close returns */
	lease_put(&f->lease);
	return r;
}

void striped_close(struct striped_file *f)
{
	(void)striped_close2(f);
}

int striped_file_set_buffer(struct striped_file *f, const struct striped_buffer_config *cfg,
			    size_t cfg_size)
{
	struct striped_buffer_config checked;
	int r;

	if (!f || !f->buf)
		return -EINVAL;
	r = buffer_check_config(cfg, cfg_size, &checked);
	return r ? r : buffer_configure(f->buf, &checked);
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

/* ---- data calls ---- */

#define IO_FLAGS_KNOWN (STRIPED_IO_NOWAIT | STRIPED_IO_ZEROCOPY | IO_FADVISE_FLAGS)

static int check_io(struct striped_file *f, struct striped_completion *c, const void *buf,
		    size_t len, uint64_t off, int flags)
{
	if (!f || !c || (!buf && len) || len > SSIZE_MAX || (flags & ~IO_FLAGS_KNOWN))
		return -EINVAL;
	if ((uint64_t)len > UINT64_MAX - off)
		return -EOVERFLOW;
	return 0;
}

/* Pools that only take aligned appends (erasure coded without overwrites) refuse writes. */
static int writes_allowed(const struct striped_file *f)
{
	return f->aligned_appends_only ? -EOPNOTSUPP : 0;
}

static int check_write(struct striped_file *f, struct striped_completion *c, const void *buf,
		       size_t len, uint64_t off, int flags)
{
	int r = check_io(f, c, buf, len, off, flags);

	return r ? r : writes_allowed(f);
}

static int start_write(const struct io_target *t, struct striped_completion *c, char *buf,
		       size_t len, uint64_t off, int flags)
{
	return io_start_write(t, c, buf, len, off, flags);
}

/* Enter the file, start the call, and leave again if it did not start. */
int file_start_call(struct striped_file *f, file_start_fn start, struct striped_completion *c,
		    char *buf, size_t len, uint64_t off, int flags)
{
	struct io_target t = f->target; /* the engine keeps its own copy */
	int r = file_call_enter(f, flags & STRIPED_IO_NOWAIT, &t.tag);

	if (r)
		return r;
	t.drain = flags & IO_INTERNAL_DRAIN;
	r = start(&t, c, buf, len, off, flags & ~IO_INTERNAL_DRAIN);
	if (r)
		file_call_leave(f, t.tag);
	return r;
}

void file_flush_barrier(struct striped_file *f, struct striped_completion *c)
{
	struct flush_waiter *w = malloc(sizeof(*w));
	bool due = false;
	int r = -ENOMEM;

	if (w) {
		w->c = c;
		pthread_mutex_lock(&f->calls_lock);
		r = flush_gens_barrier(&f->gens, w, &due);
		pthread_mutex_unlock(&f->calls_lock);
	}
	if (r || due) {
		free(w);
		completion_submit_end(c, r);
	}
}

int striped_aio_flush(struct striped_file *f, struct striped_completion *c)
{
	int r;

	if (!f || !c)
		return -EINVAL;
	if (f->buf)
		return buffer_aio_flush(f->buf, c);
	r = completion_start(c, NULL, NULL, NULL, NULL, 0);
	if (!r)
		file_flush_barrier(f, c);
	return r;
}

int striped_flush(struct striped_file *f)
{
	struct striped_completion *c;
	int r;

	if (!f)
		return -EINVAL;
	r = striped_completion_create(NULL, NULL, &c);
	if (r)
		return r;
	r = striped_aio_flush(f, c);
	if (!r) {
		striped_completion_wait(c);
		r = (int)striped_completion_result(c);
	}
	striped_completion_release(c);
	return r;
}

/*
 * A buffered handle's aio write: into the window, then c completes at once
 * with what went there (c untouched when nothing did).
 */
static int buffered_aio_write(struct striped_file *f, struct striped_completion *c,
			      const struct io_mem *m, uint64_t len, uint64_t off, int flags)
{
	ssize_t n;

	if (completion_used(c))
		return -EBUSY;
	n = buffer_write(f->buf, m, len, off, flags);
	return n < 0 ? (int)n : completion_complete_now(c, n);
}

int striped_aio_write2(struct striped_file *f, struct striped_completion *c, const void *buf,
		       size_t len, uint64_t off, int flags)
{
	struct io_mem m;
	int r = check_write(f, c, buf, len, off, flags);

	if (r)
		return r;
	if (f->buf) {
		io_mem_buf(&m, (char *)buf, len);
		return buffered_aio_write(f, c, &m, len, off, flags);
	}
	return file_start_call(f, start_write, c, (char *)buf, len, off, flags);
}

int striped_aio_read2(struct striped_file *f, struct striped_completion *c, void *buf, size_t len,
		      uint64_t off, int flags)
{
	struct io_mem m;
	int r = check_io(f, c, buf, len, off, flags);

	if (r)
		return r;
	if (f->buf) {
		io_mem_buf(&m, buf, len);
		return buffer_aio_read(f->buf, c, &m, len, off, flags);
	}
	return file_start_call(f, io_start_read, c, buf, len, off, flags);
}

int striped_aio_write(struct striped_file *f, struct striped_completion *c, const void *buf,
		      size_t len, uint64_t off)
{
	return striped_aio_write2(f, c, buf, len, off, 0);
}

int striped_aio_read(struct striped_file *f, struct striped_completion *c, void *buf, size_t len,
		     uint64_t off)
{
	return striped_aio_read2(f, c, buf, len, off, 0);
}

static int start_stat(const struct io_target *t, struct striped_completion *c, char *buf,
		      size_t len, uint64_t off, int flags)
{
	(void)len;
	(void)off;
	(void)flags;
	return io_start_stat(t, c, (uint64_t *)(void *)buf);
}

int striped_aio_stat(struct striped_file *f, struct striped_completion *c, uint64_t *size)
{
	if (!f || !c || !size)
		return -EINVAL;
	return file_start_call(f, start_stat, c, (char *)size, 0, 0, 0);
}

/* Run an asynchronous call to its end in the calling thread. */
static ssize_t run_sync(struct striped_file *f, file_start_fn start, void *buf, size_t len,
			uint64_t off, int flags)
{
	struct striped_completion *c;
	ssize_t r = striped_completion_create(NULL, NULL, &c);

	if (r)
		return r;
	r = file_start_call(f, start, c, buf, len, off, flags);
	if (r == 0) {
		striped_completion_wait(c);
		r = striped_completion_result(c);
	}
	striped_completion_release(c);
	return r;
}

/* Past the window: the caller's buffer is ours until the call returns, so no copy. */
static ssize_t write_unbuffered(struct striped_file *f, const void *buf, size_t len, uint64_t off)
{
	return run_sync(f, start_write, (void *)buf, len, off, STRIPED_IO_ZEROCOPY);
}

ssize_t striped_write(struct striped_file *f, const void *buf, size_t len, uint64_t off)
{
	struct io_mem m;
	int r = check_write(f, (void *)1, buf, len, off, 0);

	if (r)
		return r;
	if (f->buf) {
		io_mem_buf(&m, (char *)buf, len);
		return buffer_write(f->buf, &m, len, off, 0);
	}
	return write_unbuffered(f, buf, len, off);
}

ssize_t striped_read(struct striped_file *f, void *buf, size_t len, uint64_t off)
{
	struct io_mem m;
	int r = check_io(f, (void *)1, buf, len, off, 0);

	if (r)
		return r;
	if (f->buf) {
		io_mem_buf(&m, buf, len);
		return buffer_read(f->buf, &m, len, off);
	}
	return run_sync(f, io_start_read, buf, len, off, 0);
}

int striped_stat(struct striped_file *f, uint64_t *size, struct striped_layout *layout)
{
	uint64_t sz;
	ssize_t r;

	if (!f)
		return -EINVAL;
	r = run_sync(f, start_stat, &sz, 0, 0, 0);
	if (r)
		return (int)r;
	if (size)
		*size = f->buf ? buffer_size_view(f->buf, sz) : sz;
	if (layout)
		*layout = f->layout;
	return 0;
}

/* ---- discard ---- */

static int start_discard(const struct io_target *t, struct striped_completion *c, char *buf,
			 size_t len, uint64_t off, int flags)
{
	(void)buf;
	return io_start_discard(t, c, len, off, flags);
}

/* A discard's range, as a call's: any length, but not past 2^64 - 1. */
static int check_discard(struct striped_file *f, uint64_t off, uint64_t len)
{
	if (!f)
		return -EINVAL;
	if (len > UINT64_MAX - off)
		return -EOVERFLOW;
	if (len > SIZE_MAX)
		return -EINVAL;
	return writes_allowed(f);
}

int striped_aio_discard(struct striped_file *f, struct striped_completion *c, uint64_t off,
			uint64_t len)
{
	int r = check_discard(f, off, len);

	if (!r && !c)
		r = -EINVAL;
	/* The window's bytes there are older: they land first (not waited for in a callback). */
	if (!r && f->buf)
		r = buffer_settle(f->buf, off, len, completion_in_callback());
	return r ? r : file_start_call(f, start_discard, c, NULL, (size_t)len, off, 0);
}

int striped_discard(struct striped_file *f, uint64_t off, uint64_t len)
{
	int r = check_discard(f, off, len);

	if (!r && f->buf)
		r = buffer_settle(f->buf, off, len, false);
	return r ? r : (int)run_sync(f, start_discard, NULL, (size_t)len, off, 0);
}

/* ---- vectored calls ---- */

/* What a vectored call hands through file_start_call()'s buffer argument. */
struct vec {
	const struct iovec *iov;
	int iovcnt;
};

/* The segments' total, or -EINVAL (bad array, NULL segment, above SSIZE_MAX). */
static ssize_t iov_total(const struct iovec *iov, int iovcnt)
{
	size_t total = 0;

	if (iovcnt < 0 || iovcnt > IOV_MAX || (!iov && iovcnt))
		return -EINVAL;
	for (int i = 0; i < iovcnt; i++) {
		if ((!iov[i].iov_base && iov[i].iov_len) || iov[i].iov_len > SSIZE_MAX - total)
			return -EINVAL;
		total += iov[i].iov_len;
	}
	return (ssize_t)total;
}

static int start_writev(const struct io_target *t, struct striped_completion *c, char *arg,
			size_t len, uint64_t off, int flags)
{
	const struct vec *v = (const struct vec *)(void *)arg;

	return io_start_writev(t, c, v->iov, v->iovcnt, len, off, flags);
}

static int start_readv(const struct io_target *t, struct striped_completion *c, char *arg,
		       size_t len, uint64_t off, int flags)
{
	const struct vec *v = (const struct vec *)(void *)arg;

	return io_start_readv(t, c, v->iov, v->iovcnt, len, off, flags);
}

/* Check a vectored call; *total is its length. */
static int check_vec(struct striped_file *f, struct striped_completion *c,
		     const struct iovec *iov, int iovcnt, uint64_t off, size_t *total)
{
	ssize_t n = iov_total(iov, iovcnt);

	if (n < 0)
		return (int)n;
	*total = (size_t)n;
	return check_io(f, c, (void *)1, *total, off, 0);
}

/* A buffered handle's vectored call, its segments seen as one range of memory. */
enum vec_kind { VEC_WRITE, VEC_READ, VEC_AIO_WRITE, VEC_AIO_READ };

static ssize_t buffered_vec(struct striped_file *f, enum vec_kind kind, struct striped_completion *c,
			    const struct iovec *iov, int iovcnt, size_t total, uint64_t off)
{
	struct io_mem m;
	ssize_t r = io_mem_iov(&m, iov, iovcnt);

	if (r)
		return r;
	switch (kind) {
	case VEC_WRITE:
		r = buffer_write(f->buf, &m, total, off, 0);
		break;
	case VEC_READ:
		r = buffer_read(f->buf, &m, total, off);
		break;
	case VEC_AIO_WRITE:
		r = buffered_aio_write(f, c, &m, total, off, 0);
		break;
	case VEC_AIO_READ:
		r = buffer_aio_read(f->buf, c, &m, total, off, 0);
		break;
	}
	io_mem_free(&m);
	return r;
}

int striped_aio_writev(struct striped_file *f, struct striped_completion *c,
		       const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct vec v = {iov, iovcnt};
	size_t total;
	int r = check_vec(f, c, iov, iovcnt, off, &total);

	if (!r)
		r = writes_allowed(f);
	if (!r && f->buf)
		return (int)buffered_vec(f, VEC_AIO_WRITE, c, iov, iovcnt, total, off);
	return r ? r : file_start_call(f, start_writev, c, (char *)&v, total, off, 0);
}

int striped_aio_readv(struct striped_file *f, struct striped_completion *c,
		      const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct vec v = {iov, iovcnt};
	size_t total;
	int r = check_vec(f, c, iov, iovcnt, off, &total);

	if (!r && f->buf)
		return (int)buffered_vec(f, VEC_AIO_READ, c, iov, iovcnt, total, off);
	return r ? r : file_start_call(f, start_readv, c, (char *)&v, total, off, 0);
}

ssize_t striped_writev(struct striped_file *f, const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct vec v = {iov, iovcnt};
	size_t total;
	int r = check_vec(f, (void *)1, iov, iovcnt, off, &total);

	if (!r)
		r = writes_allowed(f);
	if (!r && f->buf)
		return buffered_vec(f, VEC_WRITE, NULL, iov, iovcnt, total, off);
	return r ? r : run_sync(f, start_writev, &v, total, off, STRIPED_IO_ZEROCOPY);
}

ssize_t striped_readv(struct striped_file *f, const struct iovec *iov, int iovcnt, uint64_t off)
{
	struct vec v = {iov, iovcnt};
	size_t total;
	int r = check_vec(f, (void *)1, iov, iovcnt, off, &total);

	if (!r && f->buf)
		return buffered_vec(f, VEC_READ, NULL, iov, iovcnt, total, off);
	return r ? r : run_sync(f, start_readv, &v, total, off, 0);
}

/* ---- head round trips as calls: stat with time, xattrs ---- */

typedef ssize_t (*head_fn)(struct striped_file *f, void *arg);

/*
 * One round trip on the head as a call of the handle: inside the gate and
 * under the lease; -ESTALE when the head is gone or the lease was not held
 * throughout (a remove may have run). lease_flags: LEASE_CHANGES for a change.
 */
static ssize_t head_call(struct striped_file *f, head_fn fn, void *arg, unsigned lease_flags)
{
	uint64_t gen, epoch;
	ssize_t r = file_call_enter(f, false, &gen);

	if (r)
		return r;
	r = lease_enter(&f->lease, lease_flags, &epoch);
	if (!r) {
		r = fn(f, arg);
		if (r == -ENOENT || (r >= 0 && !lease_covered(&f->lease, epoch)))
			r = -ESTALE;
		lease_exit(&f->lease);
	}
	file_call_leave(f, gen);
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
	r = head_call(f, fstat_fn, &full, 0);
	if (r)
		return (int)r;
	if (f->buf)
		full.size = buffer_size_view(f->buf, full.size);
	full.layout = f->layout;
	memcpy(st, &full, st_size < sizeof(full) ? st_size : sizeof(full));
	return 0;
}

struct append_claim {
	uint64_t off, len;
};

static ssize_t append_reserve_fn(struct striped_file *f, void *arg)
{
	struct append_claim *a = arg;

	return size_append_reserve(&f->lease, a->len, &a->off);
}

ssize_t striped_append(struct striped_file *f, const void *buf, size_t len)
{
	struct append_claim a = {0, len};
	int r = check_write(f, (void *)1, buf, len, 0, 0);
	ssize_t n;

	if (r)
		return r;
	if (!len)
		return 0;
	/* The claim reads the stored size: the window's bytes must be in it. */
	if (f->buf && (r = buffer_drain(f->buf)))
		return r;
	n = head_call(f, append_reserve_fn, &a, LEASE_CHANGES);
	return n ? n : write_unbuffered(f, buf, len, a.off);
}

int striped_write_full(struct striped_file *f, const void *buf, size_t len)
{
	int r = check_write(f, (void *)1, buf, len, 0, 0);
	ssize_t n;

	if (r)
		return r;
	/* The size first: it fails early when others hold the file, and never shows it empty. */
	r = striped_truncate(f, len);
	if (r)
		return r;
	n = striped_write(f, buf, len, 0);
	return n < 0 ? (int)n : 0;
}

static int check_xattr_name(const char *name)
{
	if (!name || !*name)
		return -EINVAL;
	if (strlen(name) > STRIPED_XATTR_NAME_MAX)
		return -ENAMETOOLONG;
	return head_xattr_reserved(name) ? -EPERM : 0;
}

struct xattr_call {
	const char *name;
	void *value;
	size_t len;
	struct striped_xattrs *all;
};

static ssize_t setxattr_fn(struct striped_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_setxattr(f->io, f->head_oid, x->name, x->value, x->len);
}

static ssize_t getxattr_fn(struct striped_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_getxattr(f->io, f->head_oid, x->name, x->value, x->len);
}

static ssize_t rmxattr_fn(struct striped_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_rmxattr(f->io, f->head_oid, x->name);
}

static ssize_t getxattrs_fn(struct striped_file *f, void *arg)
{
	struct xattr_call *x = arg;

	return head_getxattrs(f->io, f->head_oid, &x->all);
}

int striped_setxattr(struct striped_file *f, const char *name, const void *value, size_t len)
{
	struct xattr_call x = {name, (void *)value, len, NULL};
	int r = check_xattr_name(name);

	if (!f || (!value && len))
		return -EINVAL;
	return r ? r : (int)head_call(f, setxattr_fn, &x, LEASE_CHANGES);
}

ssize_t striped_getxattr(struct striped_file *f, const char *name, void *value, size_t len)
{
	struct xattr_call x = {name, value, len, NULL};
	int r = check_xattr_name(name);
	ssize_t n;

	if (!f || (!value && len))
		return -EINVAL;
	if (r)
		return r;
	n = head_call(f, getxattr_fn, &x, 0);
	return n >= 0 && len && (size_t)n > len ? -ERANGE : n;
}

int striped_rmxattr(struct striped_file *f, const char *name)
{
	struct xattr_call x = {name, NULL, 0, NULL};
	int r = check_xattr_name(name);

	if (!f)
		return -EINVAL;
	return r ? r : (int)head_call(f, rmxattr_fn, &x, LEASE_CHANGES);
}

int striped_getxattrs(struct striped_file *f, struct striped_xattrs **it)
{
	struct xattr_call x = {NULL, NULL, 0, NULL};
	ssize_t r;

	if (!f || !it)
		return -EINVAL;
	r = head_call(f, getxattrs_fn, &x, 0);
	if (r && x.all)
		head_xattrs_free(x.all);
	if (!r)
		*it = x.all;
	return (int)r;
}

int striped_getxattrs_next(struct striped_xattrs *it, const char **name, const void **value,
			   size_t *len)
{
	if (!it || !name || !value || !len)
		return -EINVAL;
	if (it->next == it->n) {
		*name = NULL;
		*value = NULL;
		*len = 0;
		return 0;
	}
	*name = it->e[it->next].name;
	*value = it->e[it->next].value;
	*len = it->e[it->next].len;
	it->next++;
	return 0;
}

void striped_getxattrs_end(struct striped_xattrs *it)
{
	if (it)
		head_xattrs_free(it);
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
static int truncate_locked(struct excl *x, const char *name, const struct striped_layout *l,
			   uint64_t size)
{
	struct head_meta m;
	uint64_t old, keep, upto;
	int r = head_read_meta(x->io, x->oid, &m);

	if (r)
		return r;
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

int striped_truncate(struct striped_file *f, uint64_t size)
{
	struct excl x;
	int r;

	if (!f)
		return -EINVAL;
	/* Its own call would never end while we wait for the file's calls. */
	if (completion_in_callback())
		return -EDEADLK;
	/* The window's bytes are older than the truncate: they land first. */
	if (f->buf && (r = buffer_drain(f->buf)))
		return r;
	gate_close(f);
	/* Our shared lock would keep our own exclusive lock out. */
	lease_release(&f->lease, false);
	r = excl_begin(&x, f->io, f->head_oid);
	if (r == -ENOENT || r == -ENODATA)
		r = -ESTALE;
	if (!r) {
		r = truncate_locked(&x, f->name, &f->layout, size);
		excl_end(&x);
	}
	/*
	 * Back to the shared lock; it re-reads the size. After a timeout that
	 * would be one more: the next call takes it back, or says why not.
	 */
	if (r != -ETIMEDOUT)
		lease_reacquire(&f->lease);
	gate_open(f);
	return r;
}

int file_check_name(rados_ioctx_t io, const char *name)
{
	return io ? check_name(io, name) : -EINVAL;
}

int file_name_oid(rados_ioctx_t io, const char *name, char **oid)
{
	int r = file_check_name(io, name);

	if (r)
		return r;
	*oid = head_oid(name);
	return *oid ? 0 : -ENOMEM;
}

int striped_remove(rados_ioctx_t io, const char *name)
{
	struct head_meta m;
	struct excl x;
	char *oid;
	int r;

	r = file_name_oid(io, name, &oid);
	if (r)
		return r;
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
		excl_end(&x);
out:
	free(oid);
	return r;
}
