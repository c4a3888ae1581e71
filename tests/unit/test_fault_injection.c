// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fault injection into the engine: librados is replaced (-Wl,--wrap) by a
 * fake whose "OSD" completes operations on its own finisher thread, as
 * librados does, and fails the ones a test picks. Checks: a call whose one
 * object operation fails returns that error only after every other operation
 * has completed; a failed submission stops the call cleanly; nothing leaks;
 * no condition wait ever happens on the finisher (callback) thread.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "completion.h"
#include "decimal.h"
#include "file.h"
#include "head.h"
#include "io.h"
#include "meta.h"
#include "place.h"

/* ---- the fake ---- */

#define MAX_READS 64

struct fake_op {
	size_t writes;
	int nreads;
	struct {
		char *buf;
		uint64_t len;
		size_t *bytes_read;
		int *prval;
	} reads[MAX_READS];
};

struct fake_comp {
	rados_callback_t cb;
	void *arg;
	int ret;
	int done;
	uint64_t objectno;
	bool is_size_op;
	struct fake_comp *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t finisher;
	bool stop;
	struct fake_comp *queue;
	/* what the test asks for */
	long fail_object; /* object whose data op fails (-1: none) */
	int fail_errno;
	int fail_submit_at;	 /* n-th data submission returns an error (0: never) */
	int cas_conflicts;	 /* size CAS answers -ECANCELED this many times */
	const char *stored_size; /* what aio_getxattr reports */
	/* what happened */
	int submitted, completed, data_submitted;
	int ops_created, ops_released, comps_created, comps_released;
	int waits_on_finisher;
	int stats;			  /* rados_aio_stat()s made */
	long existing_object;		  /* the one object a stat finds (-1: none) */
	int watch_errno;		  /* what head_watch() answers */
	int unlocks_waited, unlocks_sent; /* head_unlock(), head_unlock_nowait() */
} fake = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

int __real_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (pthread_equal(pthread_self(), fake.finisher))
		__atomic_add_fetch(&fake.waits_on_finisher, 1, __ATOMIC_SEQ_CST);
	return __real_pthread_cond_wait(c, m);
}

static uint64_t oid_objectno(const char *oid)
{
	const char *dot = strrchr(oid, '.');

	return dot ? strtoull(dot + 1, NULL, 16) : 0;
}

/* The "OSD": answer queued operations, failures first, the rest in reverse order. */
static void *finisher_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&fake.lock);
	while (!fake.stop) {
		struct fake_comp *batch, *c, *failing = NULL, *rest = NULL, *next;

		if (!fake.queue) {
			__real_pthread_cond_wait(&fake.cond, &fake.lock);
			continue;
		}
		pthread_mutex_unlock(&fake.lock);
		usleep(2000); /* let the submitter send the whole call */
		pthread_mutex_lock(&fake.lock);
		batch = fake.queue;
		fake.queue = NULL;
		pthread_mutex_unlock(&fake.lock);
		for (c = batch; c;
		     c = next) { /* the queue is newest first: rest keeps reverse order */
			next = c->next;
			struct fake_comp **list = c->ret < 0 ? &failing : &rest;

			c->next = *list;
			*list = c;
		}
		for (int pass = 0; pass < 2; pass++)
			for (c = pass ? rest : failing; c; c = next) {
				next = c->next;
				__atomic_add_fetch(&fake.completed, 1, __ATOMIC_SEQ_CST);
				/* A waited-for completion may be freed once done is set. */
				if (c->cb)
					c->cb(c, c->arg);
				else
					__atomic_store_n(&c->done, 1, __ATOMIC_SEQ_CST);
			}
		pthread_mutex_lock(&fake.lock);
	}
	pthread_mutex_unlock(&fake.lock);
	return NULL;
}

static void queue_comp(struct fake_comp *c)
{
	pthread_mutex_lock(&fake.lock);
	fake.submitted++;
	c->next = fake.queue;
	fake.queue = c;
	pthread_cond_signal(&fake.cond);
	pthread_mutex_unlock(&fake.lock);
}

/* librados, as the engine sees it */

rados_t __wrap_rados_ioctx_get_cluster(rados_ioctx_t io);
rados_t __wrap_rados_ioctx_get_cluster(rados_ioctx_t io)
{
	(void)io;
	return NULL;
}

int __wrap_rados_conf_get(rados_t cluster, const char *option, char *buf, size_t len);
int __wrap_rados_conf_get(rados_t cluster, const char *option, char *buf, size_t len)
{
	(void)cluster, (void)option, (void)buf, (void)len;
	return -ENOENT; /* the engine's defaults apply */
}

int __wrap_rados_ioctx_pool_requires_alignment2(rados_ioctx_t io, int *req);
int __wrap_rados_ioctx_pool_requires_alignment2(rados_ioctx_t io, int *req)
{
	(void)io;
	*req = 0;
	return 0;
}

int __wrap_rados_ioctx_pool_required_alignment2(rados_ioctx_t io, uint64_t *alignment);
int __wrap_rados_ioctx_pool_required_alignment2(rados_ioctx_t io, uint64_t *alignment)
{
	(void)io;
	*alignment = 0; /* a replicated pool */
	return 0;
}

/* A pool without a namespace index: the faults here are the engine's. */
int __wrap_index_place_get(rados_ioctx_t io, struct index_place *p);
int __wrap_index_place_get(rados_ioctx_t io, struct index_place *p)
{
	memset(p, 0, sizeof(*p));
	p->io = p->iio = io;
	return 0;
}

rados_write_op_t __wrap_rados_create_write_op(void);
rados_write_op_t __wrap_rados_create_write_op(void)
{
	__atomic_add_fetch(&fake.ops_created, 1, __ATOMIC_SEQ_CST);
	return calloc(1, sizeof(struct fake_op));
}

rados_read_op_t __wrap_rados_create_read_op(void);
rados_read_op_t __wrap_rados_create_read_op(void)
{
	__atomic_add_fetch(&fake.ops_created, 1, __ATOMIC_SEQ_CST);
	return calloc(1, sizeof(struct fake_op));
}

void __wrap_rados_release_write_op(rados_write_op_t op);
void __wrap_rados_release_write_op(rados_write_op_t op)
{
	__atomic_add_fetch(&fake.ops_released, 1, __ATOMIC_SEQ_CST);
	free(op);
}

void __wrap_rados_release_read_op(rados_read_op_t op);
void __wrap_rados_release_read_op(rados_read_op_t op)
{
	__atomic_add_fetch(&fake.ops_released, 1, __ATOMIC_SEQ_CST);
	free(op);
}

void __wrap_rados_write_op_create(rados_write_op_t op, int exclusive, const char *category);
void __wrap_rados_write_op_create(rados_write_op_t op, int exclusive, const char *category)
{
	(void)op, (void)exclusive, (void)category;
}

void __wrap_rados_write_op_setxattr(rados_write_op_t op, const char *name, const char *value,
				    size_t len);
void __wrap_rados_write_op_setxattr(rados_write_op_t op, const char *name, const char *value,
				    size_t len)
{
	(void)op, (void)name, (void)value, (void)len;
}

/* Cleanup operations (truncate, remove) are built on the fake op: nothing to record. */
void __wrap_rados_write_op_assert_exists(rados_write_op_t op);
void __wrap_rados_write_op_assert_exists(rados_write_op_t op)
{
	(void)op;
}

void __wrap_rados_write_op_remove(rados_write_op_t op);
void __wrap_rados_write_op_remove(rados_write_op_t op)
{
	(void)op;
}

void __wrap_rados_write_op_truncate(rados_write_op_t op, uint64_t offset);
void __wrap_rados_write_op_truncate(rados_write_op_t op, uint64_t offset)
{
	(void)op, (void)offset;
}

/* A write to oid is sent: it fails as the test arranged, or is queued. */
static int fake_write_submit(rados_completion_t comp, const char *oid)
{
	struct fake_comp *c = comp;

	c->objectno = oid_objectno(oid);
	if (fake.fail_submit_at && ++fake.data_submitted == fake.fail_submit_at)
		return -ENOMEM;
	c->ret = (long)c->objectno == fake.fail_object ? fake.fail_errno : 0;
	queue_comp(c);
	return 0;
}

/* Object writes (rados_cxx.cc, librados' C++ API) are faked as a whole. */
struct obj_write *__wrap_obj_write_new(int op_flags);
struct obj_write *__wrap_obj_write_new(int op_flags)
{
	(void)op_flags;
	__atomic_add_fetch(&fake.ops_created, 1, __ATOMIC_SEQ_CST);
	return calloc(1, sizeof(struct fake_op));
}

void __wrap_obj_write_free(struct obj_write *w);
void __wrap_obj_write_free(struct obj_write *w)
{
	__atomic_add_fetch(&fake.ops_released, 1, __ATOMIC_SEQ_CST);
	free(w);
}

int __wrap_obj_write_add(struct obj_write *w, const char *buf, size_t len, uint64_t obj_off,
			 bool zero_copy);
int __wrap_obj_write_add(struct obj_write *w, const char *buf, size_t len, uint64_t obj_off,
			 bool zero_copy)
{
	(void)buf, (void)len, (void)obj_off, (void)zero_copy;
	((struct fake_op *)w)->writes++;
	return 0;
}

int __wrap_obj_write_send(struct obj_write *w, rados_ioctx_t io, const char *oid,
			  rados_completion_t comp, uint64_t object_size, int flags);
int __wrap_obj_write_send(struct obj_write *w, rados_ioctx_t io, const char *oid,
			  rados_completion_t comp, uint64_t object_size, int flags)
{
	(void)w, (void)io, (void)object_size, (void)flags;
	return fake_write_submit(comp, oid);
}

void __wrap_rados_read_op_read(rados_read_op_t op, uint64_t off, size_t len, char *buf,
			       size_t *bytes_read, int *prval);
void __wrap_rados_read_op_read(rados_read_op_t op, uint64_t off, size_t len, char *buf,
			       size_t *bytes_read, int *prval)
{
	struct fake_op *o = (struct fake_op *)op;

	(void)off;
	assert_true(o->nreads < MAX_READS);
	o->reads[o->nreads].buf = buf;
	o->reads[o->nreads].len = len;
	o->reads[o->nreads].bytes_read = bytes_read;
	o->reads[o->nreads].prval = prval;
	o->nreads++;
}

int __wrap_rados_write_op_operate(rados_write_op_t op, rados_ioctx_t io, const char *oid,
				  time_t *mtime, int flags);
int __wrap_rados_write_op_operate(rados_write_op_t op, rados_ioctx_t io, const char *oid,
				  time_t *mtime, int flags)
{
	(void)op, (void)io, (void)oid, (void)mtime, (void)flags;
	return 0; /* the head is created */
}

int __wrap_rados_aio_create_completion2(void *arg, rados_callback_t cb, rados_completion_t *pc);
int __wrap_rados_aio_create_completion2(void *arg, rados_callback_t cb, rados_completion_t *pc)
{
	struct fake_comp *c = calloc(1, sizeof(*c));

	c->cb = cb;
	c->arg = arg;
	*pc = c;
	__atomic_add_fetch(&fake.comps_created, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void __wrap_rados_aio_release(rados_completion_t c);
void __wrap_rados_aio_release(rados_completion_t c)
{
	__atomic_add_fetch(&fake.comps_released, 1, __ATOMIC_SEQ_CST);
	free(c);
}

int __wrap_rados_aio_get_return_value(rados_completion_t c);
int __wrap_rados_aio_get_return_value(rados_completion_t c)
{
	return ((struct fake_comp *)c)->ret;
}

int __wrap_rados_aio_write_op_operate(rados_write_op_t op, rados_ioctx_t io,
				      rados_completion_t comp, const char *oid, time_t *mtime,
				      int flags);
int __wrap_rados_aio_write_op_operate(rados_write_op_t op, rados_ioctx_t io,
				      rados_completion_t comp, const char *oid, time_t *mtime,
				      int flags)
{
	(void)op, (void)io, (void)mtime, (void)flags;
	return fake_write_submit(comp, oid);
}

int __wrap_rados_aio_read_op_operate(rados_read_op_t op, rados_ioctx_t io, rados_completion_t comp,
				     const char *oid, int flags);
int __wrap_rados_aio_read_op_operate(rados_read_op_t op, rados_ioctx_t io, rados_completion_t comp,
				     const char *oid, int flags)
{
	struct fake_op *o = (struct fake_op *)op;
	struct fake_comp *c = comp;

	(void)io, (void)flags;
	c->objectno = oid_objectno(oid);
	if ((long)c->objectno == fake.fail_object) {
		c->ret = fake.fail_errno;
	} else {
		/* Objects hold half of what is asked: the rest must read as zeros. */
		for (int i = 0; i < o->nreads; i++) {
			memset(o->reads[i].buf, 0x5a, o->reads[i].len / 2);
			*o->reads[i].bytes_read = o->reads[i].len / 2;
			*o->reads[i].prval = 0;
		}
	}
	queue_comp(c);
	return 0;
}

/* The size update (size_cas.cc, librados' C++ API) is faked as a whole. */
int __wrap_size_cas_send(rados_ioctx_t io, const char *oid, rados_completion_t comp,
			 const char *xattr, uint64_t want, int flags);
int __wrap_size_cas_send(rados_ioctx_t io, const char *oid, rados_completion_t comp,
			 const char *xattr, uint64_t want, int flags)
{
	struct fake_comp *c = comp;

	(void)io, (void)xattr, (void)want, (void)flags;
	c->objectno = oid_objectno(oid);
	c->is_size_op = true;
	/* A larger size already stored: the operation is cancelled, which is fine. */
	c->ret = fake.cas_conflicts > 0 ? -ECANCELED : 0;
	if (fake.cas_conflicts > 0)
		fake.cas_conflicts--;
	queue_comp(c);
	return 0;
}

/* A stat finds fake.existing_object only (or fails as fake.fail_object does). */
int __wrap_rados_aio_stat(rados_ioctx_t io, const char *oid, rados_completion_t comp,
			  uint64_t *psize, time_t *pmtime);
int __wrap_rados_aio_stat(rados_ioctx_t io, const char *oid, rados_completion_t comp,
			  uint64_t *psize, time_t *pmtime)
{
	struct fake_comp *c = comp;

	(void)io, (void)pmtime;
	c->objectno = oid_objectno(oid);
	c->ret = (long)c->objectno == fake.existing_object ? 0 : -ENOENT;
	if ((long)c->objectno == fake.fail_object)
		c->ret = fake.fail_errno;
	*psize = c->ret ? 0 : 65536;
	__atomic_add_fetch(&fake.stats, 1, __ATOMIC_SEQ_CST);
	queue_comp(c);
	return 0;
}

int __wrap_rados_aio_wait_for_complete(rados_completion_t c);
int __wrap_rados_aio_wait_for_complete(rados_completion_t c)
{
	while (!__atomic_load_n(&((struct fake_comp *)c)->done, __ATOMIC_SEQ_CST))
		usleep(100);
	return 0;
}

/* The head object (head.c) is faked as a whole: a striped file that is there. */
static struct striped_layout fake_layout;
/* The file's identity: a lock taken back (after an idle release) finds the same file. */
static uint64_t fake_id;

int __wrap_head_create_locked(rados_ioctx_t io, const char *oid, const struct head_meta *m,
			      const struct lock_req *req);
int __wrap_head_create_locked(rados_ioctx_t io, const char *oid, const struct head_meta *m,
			      const struct lock_req *req)
{
	(void)io, (void)oid, (void)req;
	fake_layout = m->layout;
	fake_id = m->id;
	return 0;
}

int __wrap_head_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req);
int __wrap_head_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req)
{
	(void)io, (void)oid, (void)req;
	return 0;
}

int __wrap_head_lock_as_read(rados_ioctx_t io, const char *oid, const struct lock_req *req,
			     const struct head_meta *m);
int __wrap_head_lock_as_read(rados_ioctx_t io, const char *oid, const struct lock_req *req,
			     const struct head_meta *m)
{
	(void)io, (void)oid, (void)req, (void)m;
	return 0;
}

/* The watch is faked too: no notify ever comes, and it never breaks. */
int __wrap_head_watch(rados_ioctx_t wio, const char *oid, rados_watchcb2_t heard,
		      rados_watcherrcb_t lost, void *arg, uint64_t *handle);
int __wrap_head_watch(rados_ioctx_t wio, const char *oid, rados_watchcb2_t heard,
		      rados_watcherrcb_t lost, void *arg, uint64_t *handle)
{
	(void)wio, (void)oid, (void)heard, (void)lost, (void)arg;
	*handle = 1;
	return fake.watch_errno;
}

int __wrap_head_watch_ioctx(rados_ioctx_t io, rados_ioctx_t *wio);
int __wrap_head_watch_ioctx(rados_ioctx_t io, rados_ioctx_t *wio)
{
	*wio = io;
	return 0;
}

void __wrap_head_watch_ioctx_destroy(rados_ioctx_t wio);
void __wrap_head_watch_ioctx_destroy(rados_ioctx_t wio)
{
	(void)wio;
}

void __wrap_head_unwatch(rados_ioctx_t wio, uint64_t handle);
void __wrap_head_unwatch(rados_ioctx_t wio, uint64_t handle)
{
	(void)wio, (void)handle;
}

void __wrap_head_unwatch_and_destroy(rados_ioctx_t wio, uint64_t handle);
void __wrap_head_unwatch_and_destroy(rados_ioctx_t wio, uint64_t handle)
{
	(void)wio, (void)handle;
}

void __wrap_head_unwatch_unlock(rados_ioctx_t wio, uint64_t handle, rados_ioctx_t io,
				const char *oid, const char *cookie);
void __wrap_head_unwatch_unlock(rados_ioctx_t wio, uint64_t handle, rados_ioctx_t io,
				const char *oid, const char *cookie)
{
	(void)wio, (void)handle, (void)io, (void)oid, (void)cookie;
}

int __wrap_head_unlock(rados_ioctx_t io, const char *oid, const char *cookie);
int __wrap_head_unlock(rados_ioctx_t io, const char *oid, const char *cookie)
{
	(void)io, (void)oid, (void)cookie;
	fake.unlocks_waited++;
	return 0;
}

void __wrap_head_unlock_nowait(rados_ioctx_t io, const char *oid, const char *cookie);
void __wrap_head_unlock_nowait(rados_ioctx_t io, const char *oid, const char *cookie)
{
	(void)io, (void)oid, (void)cookie;
	fake.unlocks_sent++;
}

int __wrap_head_read_meta(rados_ioctx_t io, const char *oid, struct head_meta *m);
int __wrap_head_read_meta(rados_ioctx_t io, const char *oid, struct head_meta *m)
{
	(void)io, (void)oid;
	memset(m, 0, sizeof(*m));
	m->layout = fake_layout;
	m->id = fake_id;
	m->found = HEAD_META_REQUIRED;
	return decimal_parse(fake.stored_size, strlen(fake.stored_size), &m->size);
}

int __wrap_head_get_size_aio(rados_ioctx_t io, const char *oid, rados_completion_t rc, char *buf,
			     size_t len);
int __wrap_head_get_size_aio(rados_ioctx_t io, const char *oid, rados_completion_t rc, char *buf,
			     size_t len)
{
	size_t n = strlen(fake.stored_size);

	(void)io, (void)oid;
	memcpy(buf, fake.stored_size, n < len ? n : len);
	((struct fake_comp *)rc)->ret = (int)n;
	queue_comp(rc);
	return 0;
}

/* ---- the tests ---- */

#define FAKE_IO ((rados_ioctx_t)0x1)
#define MiB (1ull << 20)

struct cb_check {
	int calls;
	int completed_at_callback;
	int submitted_at_callback;
};

static void check_cb(struct striped_completion *c, void *arg)
{
	struct cb_check *k = arg;

	(void)c;
	k->calls++;
	k->completed_at_callback = __atomic_load_n(&fake.completed, __ATOMIC_SEQ_CST);
	k->submitted_at_callback = fake.submitted;
}

static void reset_fake(void)
{
	fake.fail_object = -1;
	fake.fail_errno = 0;
	fake.fail_submit_at = 0;
	fake.cas_conflicts = 0;
	fake.stored_size = "0";
	fake.submitted = fake.completed = fake.data_submitted = 0;
	fake.ops_created = fake.ops_released = fake.comps_created = fake.comps_released = 0;
	fake.waits_on_finisher = 0;
	fake.stats = 0;
	fake.existing_object = -1;
	fake.watch_errno = 0;
	fake.unlocks_waited = fake.unlocks_sent = 0;
}

static void assert_nothing_leaked(void)
{
	assert_int_equal(fake.ops_created, fake.ops_released);
	assert_int_equal(fake.comps_created, fake.comps_released);
	assert_int_equal(fake.waits_on_finisher, 0);
}

static struct striped_file *open_wide(void)
{
	struct striped_layout l = {65536, 16, MiB};
	struct striped_file *f;

	assert_int_equal(striped_open(FAKE_IO, "f", STRIPED_CREATE, &l, &f), 0);
	return f;
}

/* Write 1 MiB over 16 objects (+1 size update) and return the call's result. */
static ssize_t write_16(struct striped_file *f, struct cb_check *k, struct striped_io_stats *st)
{
	static char buf[MiB];
	struct striped_completion *c;
	ssize_t r;

	assert_int_equal(striped_completion_create(check_cb, k, &c), 0);
	assert_int_equal(striped_aio_write(f, c, buf, MiB, 0), 0);
	assert_int_equal(striped_completion_wait(c), 0);
	r = striped_completion_result(c);
	striped_completion_stats(c, st, sizeof(*st));
	striped_completion_release(c);
	return r;
}

static void test_one_op_fails_others_awaited(void **state)
{
	struct cb_check k = {0};
	struct striped_io_stats st;
	struct striped_file *f;

	(void)state;
	reset_fake();
	fake.fail_object = 5;
	fake.fail_errno = -EIO;
	f = open_wide();
	assert_int_equal(write_16(f, &k, &st), -EIO);
	assert_int_equal(k.calls, 1);
	/* 16 data operations, the size update beside them and the mark's raise before. */
	assert_int_equal(k.submitted_at_callback, 18);
	/* The failure was answered first; the callback came only after all 18. */
	assert_int_equal(k.completed_at_callback, 18);
	assert_int_equal(st.ops, 18);
	striped_close(f);
	assert_nothing_leaked();
}

static void test_throttle_waits_in_submitter_only(void **state)
{
	struct cb_check k = {0};
	struct striped_io_stats st;
	struct striped_file *f;

	(void)state;
	reset_fake();
	f = open_wide();
	assert_int_equal(striped_file_set_throttle(f, 2, 64 * MiB), 0);
	assert_int_equal(write_16(f, &k, &st), (ssize_t)MiB);
	assert_true(st.throttle_waits >= 7);
	assert_true(st.max_in_flight <= 3); /* 2 data operations and the size update */
	assert_int_equal(k.completed_at_callback, 18);
	striped_close(f);
	assert_nothing_leaked();
}

static void test_submit_failure_stops_call(void **state)
{
	struct cb_check k = {0};
	struct striped_io_stats st;
	struct striped_file *f;

	(void)state;
	reset_fake();
	fake.fail_submit_at = 3;
	f = open_wide();
	assert_int_equal(write_16(f, &k, &st), -ENOMEM);
	/* The mark's raise, the size update and two data operations went out and were waited for. */
	assert_int_equal(k.submitted_at_callback, 4);
	assert_int_equal(k.completed_at_callback, 4);
	striped_close(f);
	assert_nothing_leaked();
}

static void test_read_fault_and_zero_fill(void **state)
{
	static char buf[MiB];
	struct striped_file *f;

	(void)state;
	reset_fake();
	fake.stored_size = "1048576";
	f = open_wide();
	memset(buf, 0xff, sizeof(buf));
	/* Short objects: the second half of every 64 KiB piece reads as zeros. */
	assert_int_equal(striped_read(f, buf, MiB, 0), (ssize_t)MiB);
	for (size_t i = 0; i < MiB; i++)
		if (buf[i] != ((i % 65536) < 32768 ? 0x5a : 0))
			fail_msg("byte %zu is %#x", i, (unsigned char)buf[i]);
	fake.fail_object = 9;
	fake.fail_errno = -EIO;
	assert_int_equal(striped_read(f, buf, MiB, 0), -EIO);
	striped_close(f);
	assert_nothing_leaked();
}

static void test_size_update_cancelled_is_success(void **state)
{
	static char buf[MiB];
	struct cb_check k = {0};
	struct striped_io_stats st;
	struct striped_file *f;

	(void)state;
	reset_fake();
	/* Another writer stored a larger mark and size first: one operation each, no retry. */
	fake.cas_conflicts = 2;
	f = open_wide();
	assert_int_equal(write_16(f, &k, &st), (ssize_t)MiB);
	assert_int_equal(k.submitted_at_callback, 16 + 2);
	assert_int_equal(st.ops, 16 + 2);
	/* The size it learned covers the write: an overwrite sends no update. */
	reset_fake();
	assert_int_equal(striped_write(f, buf, MiB, 0), (ssize_t)MiB);
	assert_int_equal(fake.submitted, 16);
	striped_close(f);
	assert_nothing_leaked();
}

/*
 * A cleanup whose operation failed (an OSD down past the op timeout) sends
 * no more: it does not walk the rest of the file only to wait for each.
 */
static void test_cleanup_stops_at_first_failure(void **state)
{
	struct striped_layout l = {65536, 1, 65536};
	struct head_meta m = {.layout = l, .id = 1, .size = 10000 * 65536ull};
	int r;

	(void)state;
	reset_fake();
	fake.fail_object = 3;
	fake.fail_errno = -ETIMEDOUT;
	/* 10000 objects to walk, io_clean_window() (768 here) in flight at once. */
	r = io_clean_objects(FAKE_IO, "f", &l, 0, 10000 * 65536ull, &m, NULL, 0, NULL, NULL, false);
	assert_int_equal(r, -ETIMEDOUT);
	if (fake.submitted > 3 * (int)io_clean_window(FAKE_IO))
		fail_msg("%d of 10000 cleanup operations sent after the first failed",
			 fake.submitted);
	assert_nothing_leaked();
}

/*
 * Objects past the stored size up to the mark are stat'ed first: only the
 * one there gets an operation (an operation on an object that is not there
 * is a write the OSD logs), and every stat is waited for.
 */
static void test_cleanup_probes_past_size(void **state)
{
	struct striped_layout l = {65536, 1, 65536};
	struct head_meta m = {.layout = l, .id = 1, .size = 4 * 65536ull};
	int r;

	(void)state;
	/*
	 * A mark of 300 objects: 4 within the size, 296 past it (more than one
	 * round of stats); a remove's (the head deleted next) sends the head nothing.
	 */
	for (int head_goes = 0; head_goes <= 1; head_goes++) {
		reset_fake();
		fake.existing_object = 50;
		r = io_clean_objects(FAKE_IO, "f", &l, 0, 300 * 65536ull, &m, NULL, 0, NULL, NULL,
				     head_goes);
		assert_int_equal(r, 0);
		assert_int_equal(fake.stats, 296);
		assert_int_equal(fake.submitted - fake.stats, (head_goes ? 3 : 4) + 1);
		assert_nothing_leaked();
	}
	/* A stat that fails fails the cleanup, after every stat sent was answered. */
	reset_fake();
	fake.fail_object = 7;
	fake.fail_errno = -ETIMEDOUT;
	r = io_clean_objects(FAKE_IO, "f", &l, 0, 300 * 65536ull, &m, NULL, 0, NULL, NULL, false);
	assert_int_equal(r, -ETIMEDOUT);
	assert_nothing_leaked();
}

/*
 * An open whose lock was taken but whose watch timed out (the OSD stopped
 * in between) lets go of the lock without waiting: waiting would take the
 * op timeout once more.
 */
static void test_open_watch_timeout_lets_go_unwaited(void **state)
{
	struct striped_file *f = open_wide();

	(void)state;
	striped_close(f);
	reset_fake();
	fake.watch_errno = -ETIMEDOUT;
	assert_int_equal(striped_open(FAKE_IO, "f", 0, NULL, &f), -ETIMEDOUT);
	assert_int_equal(fake.unlocks_waited, 0);
	assert_int_equal(fake.unlocks_sent, 1);
	/* Any other failure of the watch: the unlock is waited for, as before. */
	reset_fake();
	fake.watch_errno = -EIO;
	assert_int_equal(striped_open(FAKE_IO, "f", 0, NULL, &f), -EIO);
	assert_int_equal(fake.unlocks_waited, 1);
	assert_int_equal(fake.unlocks_sent, 0);
	assert_nothing_leaked();
}

static int setup(void **state)
{
	(void)state;
	reset_fake();
	return pthread_create(&fake.finisher, NULL, finisher_main, NULL);
}

static int teardown(void **state)
{
	(void)state;
	pthread_mutex_lock(&fake.lock);
	fake.stop = true;
	pthread_cond_signal(&fake.cond);
	pthread_mutex_unlock(&fake.lock);
	return pthread_join(fake.finisher, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_op_fails_others_awaited),
	    cmocka_unit_test(test_throttle_waits_in_submitter_only),
	    cmocka_unit_test(test_submit_failure_stops_call),
	    cmocka_unit_test(test_read_fault_and_zero_fill),
	    cmocka_unit_test(test_size_update_cancelled_is_success),
	    cmocka_unit_test(test_cleanup_stops_at_first_failure),
	    cmocka_unit_test(test_cleanup_probes_past_size),
	    cmocka_unit_test(test_open_watch_timeout_lets_go_unwaited),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
