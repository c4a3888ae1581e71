// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Striped files: open/create, stat, truncate, remove, the synchronous
 * wrappers, and the head object's metadata round trips. The data path is in
 * io.c; this file holds the few synchronous rados_* calls (metadata, locks).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "striped_i.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* libradosstriper's exclusive lock is held this long at most, so a crashed truncate frees it. */
#define LOCK_SECONDS 60

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

/* ---- bookkeeping shared with io.c ---- */

void file_call_begin(struct striped_file *f)
{
	pthread_mutex_lock(&f->calls_lock);
	f->calls_in_flight++;
	pthread_mutex_unlock(&f->calls_lock);
}

/* Called as the call's result is set, before its callback and waiters. */
void file_account_call(struct striped_file *f, const struct striped_io_stats *call)
{
	pthread_mutex_lock(&f->calls_lock);
	f->stats.calls++;
	f->stats.ops += call->ops;
	f->stats.bytes += call->bytes;
	f->stats.throttle_waits += call->throttle_waits;
	f->stats.latency_ns += call->latency_ns;
	pthread_mutex_unlock(&f->calls_lock);
}

/* Called after the call's callback has returned: only now may close go on. */
void file_call_end(void *file, const struct striped_io_stats *call)
{
	struct striped_file *f = file;

	(void)call;
	pthread_mutex_lock(&f->calls_lock);
	if (--f->calls_in_flight == 0)
		pthread_cond_broadcast(&f->calls_cond);
	pthread_mutex_unlock(&f->calls_lock);
}

void file_note_op_begin(struct striped_file *f)
{
	pthread_mutex_lock(&f->calls_lock);
	if (++f->ops_in_flight > f->stats.max_in_flight)
		f->stats.max_in_flight = f->ops_in_flight;
	pthread_mutex_unlock(&f->calls_lock);
}

void file_note_op_end(struct striped_file *f)
{
	pthread_mutex_lock(&f->calls_lock);
	f->ops_in_flight--;
	pthread_mutex_unlock(&f->calls_lock);
}

static void size_store_locked(struct striped_file *f, uint64_t size)
{
	f->known_size = size;
}

/* A size seen after a successful grow: keep the larger of what we know. */
void file_learn_size(struct striped_file *f, uint64_t size)
{
	pthread_mutex_lock(&f->size_lock);
	if (size > f->known_size)
		size_store_locked(f, size);
	pthread_mutex_unlock(&f->size_lock);
}

/* A size just read from the head object: it is the truth, even if smaller. */
void file_set_size(struct striped_file *f, uint64_t size)
{
	pthread_mutex_lock(&f->size_lock);
	size_store_locked(f, size);
	pthread_mutex_unlock(&f->size_lock);
}

uint64_t file_known_size(struct striped_file *f)
{
	uint64_t size;

	pthread_mutex_lock(&f->size_lock);
	size = f->known_size;
	pthread_mutex_unlock(&f->size_lock);
	return size;
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

/* ---- the head object ---- */

static char *head_oid(const char *name)
{
	size_t len = strlen(name) + OBJECT_SUFFIX_LEN + 1;
	char *oid = malloc(len);

	if (oid)
		striped_object_name(name, 0, oid, len);
	return oid;
}

struct head_meta {
	struct striped_layout layout;
	uint64_t size;
	unsigned found; /* bit per xattr */
};

static int head_take_xattr(struct head_meta *m, const char *key, const char *val, size_t len)
{
	static const char *const keys[] = {XATTR_STRIPE_UNIT, XATTR_STRIPE_COUNT, XATTR_OBJECT_SIZE,
					   XATTR_SIZE};
	uint64_t *fields[] = {&m->layout.stripe_unit, &m->layout.stripe_count,
			      &m->layout.object_size, &m->size};
	size_t i;

	for (i = 0; i < 4; i++) {
		if (strcmp(key, keys[i]))
			continue;
		if (meta_parse_u64(val, len, fields[i]))
			return -EINVAL;
		m->found |= 1u << i;
	}
	return 0;
}

/* One round trip: the layout and size xattrs of the head object. */
static int head_read(rados_ioctx_t io, const char *oid, struct head_meta *m)
{
	rados_xattrs_iter_t it;
	int r;

	memset(m, 0, sizeof(*m));
	r = rados_getxattrs(io, oid, &it);
	if (r < 0)
		return r;
	for (;;) {
		const char *key, *val;
		size_t len;

		r = rados_getxattrs_next(it, &key, &val, &len);
		if (r < 0 || !key)
			break;
		r = head_take_xattr(m, key, val, len);
		if (r)
			break;
	}
	rados_getxattrs_end(it);
	if (r < 0)
		return r;
	if (m->found != 0xf)
		return -ENODATA;
	return striped_layout_validate(&m->layout);
}

/* One round trip: create the head exclusively with the layout and size 0. */
static int head_create(rados_ioctx_t io, const char *oid, const struct striped_layout *l)
{
	char su[DECIMAL_MAX], sc[DECIMAL_MAX], os[DECIMAL_MAX];
	rados_write_op_t op = rados_create_write_op();
	int r;

	if (!op)
		return -ENOMEM;
	meta_format_u64(l->stripe_unit, su);
	meta_format_u64(l->stripe_count, sc);
	meta_format_u64(l->object_size, os);
	rados_write_op_create(op, LIBRADOS_CREATE_EXCLUSIVE, NULL);
	rados_write_op_setxattr(op, XATTR_STRIPE_UNIT, su, strlen(su));
	rados_write_op_setxattr(op, XATTR_STRIPE_COUNT, sc, strlen(sc));
	rados_write_op_setxattr(op, XATTR_OBJECT_SIZE, os, strlen(os));
	rados_write_op_setxattr(op, XATTR_SIZE, "0", 1);
	r = rados_write_op_operate(op, io, oid, NULL, STRIPED_WRITE_FLAGS);
	rados_release_write_op(op);
	return r;
}

static int head_get_size(rados_ioctx_t io, const char *oid, uint64_t *size)
{
	char buf[64];
	int r = rados_getxattr(io, oid, XATTR_SIZE, buf, sizeof(buf));

	if (r == -ENODATA)
		return -ENOENT;
	if (r < 0)
		return r;
	if ((size_t)r > sizeof(buf) || meta_parse_u64(buf, (size_t)r, size))
		return -EINVAL;
	return 0;
}

static int head_write(rados_ioctx_t io, const char *oid, uint64_t size, bool remove)
{
	rados_write_op_t op = rados_create_write_op();
	char buf[DECIMAL_MAX];
	int r;

	if (!op)
		return -ENOMEM;
	if (remove) {
		rados_write_op_remove(op);
	} else {
		meta_format_u64(size, buf);
		rados_write_op_setxattr(op, XATTR_SIZE, buf, strlen(buf));
	}
	r = rados_write_op_operate(op, io, oid, NULL, STRIPED_WRITE_FLAGS);
	rados_release_write_op(op);
	return r;
}

static int head_set_size(rados_ioctx_t io, const char *oid, uint64_t size)
{
	return head_write(io, oid, size, false);
}

static int head_remove(rados_ioctx_t io, const char *oid)
{
	return head_write(io, oid, 0, true);
}

/*
 * libradosstriper's exclusive lock: writers of libradosstriper hold it
 * shared, so truncate and remove never race them.
 */
static void lock_cookie(char *buf, size_t len)
{
	static atomic_uint seq;

	snprintf(buf, len, "striped-%ld-%u-%llx", (long)getpid(), atomic_fetch_add(&seq, 1),
		 (unsigned long long)striped_now_ns());
}

/* One cls "lock" call on the head, able to pass a full cluster. */
static int head_lock_call(rados_ioctx_t io, const char *oid, const char *method, const char *in,
			  size_t in_len)
{
	rados_write_op_t op = rados_create_write_op();
	int prval = 0, r;

	if (!op)
		return -ENOMEM;
	rados_write_op_exec(op, "lock", method, in, in_len, &prval);
	r = rados_write_op_operate(op, io, oid, NULL, STRIPED_WRITE_FLAGS);
	rados_release_write_op(op);
	return r < 0 ? r : prval;
}

static int head_lock(rados_ioctx_t io, const char *oid, const char *cookie)
{
	char in[256];
	ssize_t n =
	    meta_encode_lock(in, sizeof(in), STRIPER_LOCK_NAME, cookie, "libstriped", LOCK_SECONDS);

	if (n < 0)
		return (int)n;
	return head_lock_call(io, oid, "lock", in, (size_t)n);
}

static void head_unlock(rados_ioctx_t io, const char *oid, const char *cookie)
{
	char in[256];
	ssize_t n = meta_encode_unlock(in, sizeof(in), STRIPER_LOCK_NAME, cookie);

	if (n >= 0)
		head_lock_call(io, oid, "unlock", in, (size_t)n);
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
	throttle_destroy(&f->throttle);
	pthread_cond_destroy(&f->calls_cond);
	pthread_mutex_destroy(&f->calls_lock);
	pthread_mutex_destroy(&f->size_lock);
	free(f->name);
	free(f);
}

static void default_throttle(struct striped_file *f, uint64_t *ops, uint64_t *bytes)
{
	*ops = 256;
	*bytes = f->objecter_bytes_limit / 4 * 3;
}

static struct striped_file *file_alloc(rados_ioctx_t io, const char *name,
				       const struct striped_layout *l, uint64_t size)
{
	struct striped_file *f = calloc(1, sizeof(*f));
	uint64_t ops, bytes;

	if (!f)
		return NULL;
	f->name = strdup(name);
	if (!f->name) {
		free(f);
		return NULL;
	}
	f->io = io;
	f->name_len = strlen(name);
	f->layout = *l;
	f->objecter_ops_limit = conf_u64(io, "objecter_inflight_ops", 1024);
	f->objecter_bytes_limit = conf_u64(io, "objecter_inflight_op_bytes", 100ull << 20);
	pthread_mutex_init(&f->size_lock, NULL);
	pthread_mutex_init(&f->calls_lock, NULL);
	pthread_cond_init(&f->calls_cond, NULL);
	size_store_locked(f, size);
	default_throttle(f, &ops, &bytes);
	throttle_init(&f->throttle, 0, 0);
	striped_file_set_throttle(f, (uint32_t)ops, bytes);
	return f;
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

int striped_open(rados_ioctx_t io, const char *name, int flags, const struct striped_layout *layout,
		 struct striped_file **out)
{
	struct striped_layout def = STRIPED_LAYOUT_DEFAULT_INIT;
	struct head_meta m = {0};
	struct striped_file *f;
	char *oid = NULL;
	int r;

	if (!io || !out || (flags & ~(STRIPED_CREATE | STRIPED_EXCL)) ||
	    ((flags & STRIPED_EXCL) && !(flags & STRIPED_CREATE)))
		return -EINVAL;
	r = check_name(io, name);
	if (r)
		return r;
	oid = head_oid(name);
	if (!oid)
		return -ENOMEM;

	r = -ENOENT;
	if (flags & STRIPED_CREATE) {
		const struct striped_layout *l = layout ? layout : &def;

		r = striped_layout_validate(l);
		if (r)
			goto out;
		if (l->object_size > conf_u64(io, "osd_max_object_size", 128ull << 20)) {
			r = -EFBIG;
			goto out;
		}
		r = head_create(io, oid, l);
		if (r == 0)
			m.layout = *l;
		if (r == -EEXIST && (flags & STRIPED_EXCL))
			goto out;
	}
	if (r == -ENOENT || r == -EEXIST)
		r = head_read(io, oid, &m);
	if (r)
		goto out;

	f = file_alloc(io, name, &m.layout, m.size);
	if (!f) {
		r = -ENOMEM;
		goto out;
	}
	r = pool_takes_overwrites(io, f);
	if (r) {
		file_free(f);
		goto out;
	}
	*out = f;
out:
	free(oid);
	return r;
}

void striped_close(struct striped_file *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->calls_lock);
	while (f->calls_in_flight)
		pthread_cond_wait(&f->calls_cond, &f->calls_lock);
	pthread_mutex_unlock(&f->calls_lock);
	file_free(f);
}

int striped_file_set_throttle(struct striped_file *f, uint32_t max_ops, uint64_t max_bytes)
{
	uint64_t ops_cap, bytes_cap;

	if (!f || !max_ops || !max_bytes)
		return -EINVAL;
	/* Leave librados a quarter of its own budget so it never has to block. */
	ops_cap = f->objecter_ops_limit / 4 * 3;
	bytes_cap = f->objecter_bytes_limit / 4 * 3;
	if (ops_cap && max_ops > ops_cap)
		max_ops = (uint32_t)ops_cap;
	if (bytes_cap && max_bytes > bytes_cap)
		max_bytes = bytes_cap;
	throttle_set(&f->throttle, max_ops, max_bytes);
	return 0;
}

int striped_file_stats(struct striped_file *f, struct striped_io_stats *st, size_t st_size)
{
	struct striped_io_stats copy;

	if (!f || !st)
		return -EINVAL;
	pthread_mutex_lock(&f->calls_lock);
	copy = f->stats;
	pthread_mutex_unlock(&f->calls_lock);
	if (st_size > sizeof(copy))
		st_size = sizeof(copy);
	memcpy(st, &copy, st_size);
	return 0;
}

/* ---- data calls ---- */

static int check_io(struct striped_file *f, struct striped_completion *c, const void *buf,
		    size_t len, uint64_t off)
{
	if (!f || !c || (!buf && len) || len > SSIZE_MAX)
		return -EINVAL;
	if ((uint64_t)len > UINT64_MAX - off)
		return -EOVERFLOW;
	return 0;
}

int striped_aio_write(struct striped_file *f, struct striped_completion *c, const void *buf,
		      size_t len, uint64_t off)
{
	int r = check_io(f, c, buf, len, off);

	if (r)
		return r;
	if (f->aligned_appends_only)
		return -EOPNOTSUPP;
	return io_start_write(f, c, buf, len, off);
}

int striped_aio_read(struct striped_file *f, struct striped_completion *c, void *buf, size_t len,
		     uint64_t off)
{
	uint64_t size;
	int r = check_io(f, c, buf, len, off);

	if (r)
		return r;
	size = file_known_size(f);
	/* Past what we know the file may have grown: ask (one more round trip). */
	if (off + len > size) {
		char *oid = head_oid(f->name);

		if (!oid)
			return -ENOMEM;
		r = head_get_size(f->io, oid, &size);
		free(oid);
		if (r)
			return r;
		file_set_size(f, size);
	}
	if (off >= size)
		len = 0;
	else if (len > size - off)
		len = (size_t)(size - off);
	return io_start_read(f, c, buf, len, off);
}

int striped_aio_stat(struct striped_file *f, struct striped_completion *c, uint64_t *size)
{
	if (!f || !c || !size)
		return -EINVAL;
	return io_start_stat(f, c, size);
}

/* Run an asynchronous call to its end in the calling thread. */
static ssize_t run_sync(int (*start)(struct striped_file *, struct striped_completion *, void *,
				     size_t, uint64_t),
			struct striped_file *f, void *buf, size_t len, uint64_t off)
{
	struct striped_completion *c;
	ssize_t r = striped_completion_create(NULL, NULL, &c);

	if (r)
		return r;
	r = start(f, c, buf, len, off);
	if (r == 0) {
		striped_completion_wait(c);
		r = striped_completion_result(c);
	}
	striped_completion_release(c);
	return r;
}

static int start_write_adapter(struct striped_file *f, struct striped_completion *c, void *buf,
			       size_t len, uint64_t off)
{
	return striped_aio_write(f, c, buf, len, off);
}

ssize_t striped_write(struct striped_file *f, const void *buf, size_t len, uint64_t off)
{
	if (!f)
		return -EINVAL;
	return run_sync(start_write_adapter, f, (void *)buf, len, off);
}

ssize_t striped_read(struct striped_file *f, void *buf, size_t len, uint64_t off)
{
	if (!f)
		return -EINVAL;
	return run_sync(striped_aio_read, f, buf, len, off);
}

int striped_stat(struct striped_file *f, uint64_t *size, struct striped_layout *layout)
{
	uint64_t sz;
	char *oid;
	int r;

	if (!f)
		return -EINVAL;
	oid = head_oid(f->name);
	if (!oid)
		return -ENOMEM;
	r = head_get_size(f->io, oid, &sz);
	free(oid);
	if (r)
		return r;
	file_set_size(f, sz);
	if (size)
		*size = sz;
	if (layout)
		*layout = f->layout;
	return 0;
}

/* ---- truncate and remove ---- */

/*
 * Growing clears bytes a crashed or refused write may have left past the old
 * end, but only in the old end's object set: the cost stays at most
 * stripe_count operations however far the file grows (a walk to the new end
 * would be one operation per object, 2^40 of them for a 2^63 byte size).
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

int striped_truncate(struct striped_file *f, uint64_t size)
{
	char cookie[64];
	uint64_t old;
	char *oid;
	int r;

	if (!f)
		return -EINVAL;
	oid = head_oid(f->name);
	if (!oid)
		return -ENOMEM;
	lock_cookie(cookie, sizeof(cookie));
	r = head_lock(f->io, oid, cookie);
	if (r)
		goto out;
	r = head_get_size(f->io, oid, &old);
	if (r)
		goto out_unlock;
	/*
	 * Objects first, size last: a crash in between leaves a size whose
	 * missing bytes read as zeros, never stale data inside the size.
	 */
	if (size < old)
		r = io_clean_objects(f->io, f->name, &f->layout, size, old);
	else if (size > old)
		r = io_clean_objects(f->io, f->name, &f->layout, old,
				     grow_clean_end(&f->layout, old, size));
	if (!r)
		r = head_set_size(f->io, oid, size);
	if (!r)
		file_set_size(f, size);
out_unlock:
	head_unlock(f->io, oid, cookie);
out:
	free(oid);
	return r;
}

int striped_remove(rados_ioctx_t io, const char *name)
{
	struct head_meta m;
	char cookie[64];
	char *oid;
	int r;

	if (!io)
		return -EINVAL;
	r = check_name(io, name);
	if (r)
		return r;
	oid = head_oid(name);
	if (!oid)
		return -ENOMEM;
	/* Check first: locking a missing object would create it. */
	r = head_read(io, oid, &m);
	if (r)
		goto out;
	lock_cookie(cookie, sizeof(cookie));
	r = head_lock(io, oid, cookie);
	if (r)
		goto out;
	r = head_get_size(io, oid, &m.size);
	if (!r)
		r = io_clean_objects(io, name, &m.layout, 0, m.size);
	if (!r)
		r = head_remove(io, oid); /* the lock goes with it */
	if (r)
		head_unlock(io, oid, cookie);
out:
	free(oid);
	return r;
}
