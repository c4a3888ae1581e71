// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The file's shared state and its one owner: the lock lease an open handle
 * holds on the head object, the file's identity and layout, and the size
 * this handle knows the file has at least.
 *
 * Protocol (libradosstriper's, so the two libraries exclude each other):
 * readers and writers hold the cls lock "striper.lock" SHARED with tag "Tag";
 * truncate and remove hold it EXCLUSIVE. libradosstriper takes its shared
 * lock per call and forever (no duration); libstriped takes it once per
 * handle for a lease of `seconds`, renews it while calls are in flight, and
 * lets it lapse when the handle is idle, so an idle handle blocks truncate
 * and remove by others for one lease at most. A handle whose lease lapsed
 * takes it again before its next call and checks the file is the same one
 * (identity and layout); the size it knew is then re-read, since a truncate
 * may have run meanwhile.
 *
 * While the lease is held no truncate or remove can run, so the size can
 * only grow: known_size is a lower bound and a write that ends below it
 * needs no size update.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "striped_i.h"

#define NS 1000000000ull

static const char *const lease_description = "libstriped";

static void shared_req(const struct lease *ls, struct lock_req *req, uint8_t flags)
{
	*req = (struct lock_req){STRIPER_LOCK_NAME, LOCK_SHARED,  ls->cookie,
				 STRIPER_SHARED_TAG, lease_description, ls->seconds,
				 flags};
}

static uint64_t lease_ns(const struct lease *ls)
{
	return (uint64_t)ls->seconds * NS;
}

/* ---- the renewer: one thread for the process, renewing busy leases ---- */

static pthread_mutex_t renewer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t renewer_cond = PTHREAD_COND_INITIALIZER;
static struct lease *renewer_list;
static bool renewer_running;

static void lease_renew_async(struct lease *ls);

/*
 * Renew when half the lease is gone and the handle is busy: a call in
 * flight, or one begun within the last half lease. An idle handle's lease
 * lapses, within a lease and a half of its last call.
 */
static bool wants_renewal(struct lease *ls, uint64_t now)
{
	bool busy = ls->active > 0 || now - ls->used_ns < lease_ns(ls) / 2;

	return ls->held && !ls->lost && !ls->renewing && busy &&
	       now - ls->granted_ns >= lease_ns(ls) / 2;
}

static void *renewer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&renewer_lock);
	for (;;) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&renewer_cond, &renewer_lock, &until);
		for (struct lease *ls = renewer_list; ls; ls = ls->next) {
			bool go;

			pthread_mutex_lock(&ls->lock);
			go = wants_renewal(ls, striped_now_ns());
			if (go) {
				ls->renewing = true;
				ls->refs++; /* dropped by the renewal's end */
			}
			pthread_mutex_unlock(&ls->lock);
			/* Sending does not wait for the reply. */
			if (go)
				lease_renew_async(ls);
		}
	}
	return NULL;
}

/*
 * Start the renewer if it is not running: before a handle takes its lock, so
 * a process that cannot start a thread fails the open (-EAGAIN) instead of
 * holding leases nobody renews; a later open tries again.
 */
static int renewer_ensure(void)
{
	pthread_attr_t attr;
	pthread_t th;
	int r = 0;

	pthread_mutex_lock(&renewer_lock);
	if (!renewer_running) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		r = -pthread_create(&th, &attr, renewer_main, NULL);
		pthread_attr_destroy(&attr);
		renewer_running = r == 0;
	}
	pthread_mutex_unlock(&renewer_lock);
	return r;
}

static void renewer_add(struct lease *ls)
{
	pthread_mutex_lock(&renewer_lock);
	ls->next = renewer_list;
	renewer_list = ls;
	pthread_mutex_unlock(&renewer_lock);
}

static void renewer_remove(struct lease *ls)
{
	pthread_mutex_lock(&renewer_lock);
	for (struct lease **p = &renewer_list; *p; p = &(*p)->next)
		if (*p == ls) {
			*p = ls->next;
			break;
		}
	pthread_mutex_unlock(&renewer_lock);
}

/* ---- renewal ---- */

struct renewal {
	struct lease *ls;
	uint64_t sent_ns;
	rados_completion_t rc;
};

/* librados callback: record and return. */
static void renewal_done(rados_completion_t rc, void *arg)
{
	struct renewal *rn = arg;
	struct lease *ls = rn->ls;
	int r = rados_aio_get_return_value(rc);

	pthread_mutex_lock(&ls->lock);
	if (r == 0 && rn->sent_ns > ls->granted_ns)
		ls->granted_ns = rn->sent_ns;
	/* Our locker is gone (expired, broken) or the file is: the lease is lost. */
	else if (r == -ENOENT || r == -EBUSY || r == -ENODATA)
		ls->lost = true;
	ls->renewing = false;
	pthread_cond_broadcast(&ls->cond);
	pthread_mutex_unlock(&ls->lock);
	rados_aio_release(rc);
	free(rn);
	lease_put(ls);
}

/* Called with ls->renewing set and a reference taken; both are given back when done. */
static void lease_renew_async(struct lease *ls)
{
	struct renewal *rn = calloc(1, sizeof(*rn));
	struct lock_req req;
	int r = -ENOMEM;

	if (rn) {
		rn->ls = ls;
		rn->sent_ns = striped_now_ns();
		r = rados_aio_create_completion2(rn, renewal_done, &rn->rc);
		if (r == 0) {
			shared_req(ls, &req, LOCK_FLAG_MUST_RENEW);
			r = head_lock_aio(ls->io, ls->oid, &req, rn->rc);
			if (r)
				rados_aio_release(rn->rc);
		}
		if (r)
			free(rn);
	}
	if (r) {
		pthread_mutex_lock(&ls->lock);
		ls->renewing = false;
		pthread_cond_broadcast(&ls->cond);
		pthread_mutex_unlock(&ls->lock);
		lease_put(ls);
	}
}

static void wait_renewal_locked(struct lease *ls)
{
	while (ls->renewing)
		pthread_cond_wait(&ls->cond, &ls->lock);
}

/* ---- open, release ---- */

static int lease_init(struct lease *ls, rados_ioctx_t io, const char *oid)
{
	memset(ls, 0, sizeof(*ls));
	if (pthread_mutex_init(&ls->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&ls->cond, NULL)) {
		pthread_mutex_destroy(&ls->lock);
		return -ENOMEM;
	}
	ls->io = io;
	ls->oid = oid;
	ls->seconds = LEASE_SECONDS_DEFAULT;
	meta_new_cookie(ls->cookie);
	return 0;
}

/* Tells file instances apart: a file removed and created again gets another. Never 0. */
static uint64_t random_id(void)
{
	uint64_t id = 0;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = striped_now_ns() ^ ((uint64_t)getpid() << 40);
	return id ? id : 1;
}

/* Take the shared lock on an existing file, then read what it is. */
static int lock_and_read(struct lease *ls, uint8_t flags, struct head_meta *m)
{
	struct lock_req req;
	uint64_t sent = striped_now_ns();
	int r;

	shared_req(ls, &req, flags);
	r = head_lock(ls->io, ls->oid, &req);
	if (r)
		return r;
	r = head_read_meta(ls->io, ls->oid, m);
	if (r) {
		head_unlock(ls->io, ls->oid, ls->cookie);
		return r;
	}
	m->granted_ns = sent;
	return 0;
}

/*
 * A client whose caps do not let it write (so not lock) still reads: without
 * a lease, as libradosstriper's readers cannot at all. Its reads are not
 * excluded from a truncate by others; its writes fail with -EPERM anyway.
 */
static int open_unleased(struct lease *ls, struct head_meta *m)
{
	int r = head_read_meta(ls->io, ls->oid, m);

	if (r == 0)
		ls->unleased = true;
	return r;
}

/* Takes the regions out of m. */
static void lease_granted(struct lease *ls, struct head_meta *m)
{
	free(ls->regions);
	ls->regions = m->regions;
	ls->nregions = m->nregions;
	m->regions = NULL;
	m->nregions = 0;
	ls->granted_ns = m->granted_ns;
	ls->layout = m->layout;
	ls->id = m->id;
	ls->known_size = m->size;
	ls->held = true;
	ls->lost = false;
	ls->epoch++;
}

int lease_open(struct lease *ls, rados_ioctx_t io, const char *oid, int flags,
	       const struct striped_layout *create_layout, void (*release)(struct lease *))
{
	struct head_meta m = {0};
	bool create_refused;
	int r = lease_init(ls, io, oid);

	if (r)
		return r;
	r = renewer_ensure();
	if (r)
		goto err;
	r = -ENOENT;
	if (flags & STRIPED_CREATE) {
		struct lock_req req;
		uint64_t sent = striped_now_ns();

		m.layout = *create_layout;
		m.id = random_id();
		shared_req(ls, &req, 0);
		/* One round trip: the head, its metadata and our lock together. */
		r = head_create_locked(io, oid, create_layout, m.id, &req);
		if (r == 0)
			m.granted_ns = sent;
		if (r == -EEXIST && (flags & STRIPED_EXCL))
			goto err;
	}
	create_refused = r == -EPERM;
	if (r == -ENOENT || r == -EEXIST || (create_refused && !(flags & STRIPED_EXCL)))
		r = lock_and_read(ls, 0, &m);
	if (r == -EPERM && !(flags & STRIPED_EXCL))
		r = open_unleased(ls, &m);
	/* Not allowed to create, and nothing there to read: say why. */
	if (r == -ENOENT && create_refused)
		r = -EPERM;
	if (r)
		goto err;
	lease_granted(ls, &m);
	ls->held = !ls->unleased;
	head_meta_free(&m);
	ls->refs = 1;
	ls->release = release;
	renewer_add(ls);
	return 0;
err:
	pthread_cond_destroy(&ls->cond);
	pthread_mutex_destroy(&ls->lock);
	return r;
}

/*
 * Let go of the lock: at close, waiting for the reply; before the handle's
 * own truncate, without (the exclusive lock request that follows goes to the
 * same object from the same client, so the OSD sees the unlock first).
 */
void lease_release(struct lease *ls, bool wait)
{
	bool held;

	pthread_mutex_lock(&ls->lock);
	wait_renewal_locked(ls);
	held = ls->held;
	ls->held = false;
	pthread_mutex_unlock(&ls->lock);
	if (held && wait)
		head_unlock(ls->io, ls->oid, ls->cookie);
	else if (held)
		head_unlock_nowait(ls->io, ls->oid, ls->cookie);
}

/* No renewal is sent for this lease any more once this returns. */
void lease_stop_renewing(struct lease *ls)
{
	renewer_remove(ls);
}

void lease_get(struct lease *ls)
{
	pthread_mutex_lock(&ls->lock);
	ls->refs++;
	pthread_mutex_unlock(&ls->lock);
}

/*
 * The last reference gone: the owner frees the file. This may run on a
 * librados callback thread (a file closed from a callback), where nothing
 * may wait, so a lock still held is let go of without waiting for the reply.
 */
void lease_put(struct lease *ls)
{
	bool last;

	pthread_mutex_lock(&ls->lock);
	last = --ls->refs == 0;
	pthread_mutex_unlock(&ls->lock);
	if (!last)
		return;
	if (ls->held)
		head_unlock_nowait(ls->io, ls->oid, ls->cookie);
	free(ls->regions);
	pthread_cond_destroy(&ls->cond);
	pthread_mutex_destroy(&ls->lock);
	ls->release(ls);
}

/* ---- calls ---- */

/*
 * Take the lock back after it lapsed (or was let go of) and check the file
 * is still the one this handle opened: -ESTALE if it was removed, or
 * removed and created again.
 */
int lease_reacquire(struct lease *ls)
{
	struct head_meta m;
	int r, tries = 0;

	/* A truncate or remove by another client is usually over in a moment. */
	while ((r = lock_and_read(ls, LOCK_FLAG_MAY_RENEW, &m)) == -EBUSY && tries++ < 20)
		usleep(100000);
	if (r == 0 && (m.id != ls->id || memcmp(&m.layout, &ls->layout, sizeof(m.layout)))) {
		head_unlock(ls->io, ls->oid, ls->cookie);
		head_meta_free(&m);
		r = -ESTALE;
	}
	pthread_mutex_lock(&ls->lock);
	if (r == 0)
		lease_granted(ls, &m);
	else
		ls->held = false;
	/* Removed, or removed and created again: this handle is done for good. */
	if (r == -ENOENT || r == -ENODATA || r == -ESTALE) {
		ls->stale = true;
		r = -ESTALE;
	}
	pthread_mutex_unlock(&ls->lock);
	return r;
}

/* Whether a call may start on the lease as it is: held, not lost, a quarter left at least. */
static bool usable_locked(const struct lease *ls, uint64_t now)
{
	return ls->held && !ls->lost && now - ls->granted_ns < lease_ns(ls) / 4 * 3;
}

/*
 * Before a call: make sure the lease will outlast it in all likelihood.
 * Taking it back is a round trip in the calling thread; with nowait the
 * call is refused with -EAGAIN instead.
 */
int lease_enter(struct lease *ls, bool nowait, uint64_t *epoch)
{
	int r = 0;

	pthread_mutex_lock(&ls->lock);
	while (!ls->unleased && !usable_locked(ls, striped_now_ns())) {
		if (ls->stale) {
			r = -ESTALE;
			break;
		}
		if (nowait) {
			r = -EAGAIN;
			break;
		}
		if (ls->acquiring || ls->renewing) {
			pthread_cond_wait(&ls->cond, &ls->lock);
			continue;
		}
		ls->acquiring = true;
		pthread_mutex_unlock(&ls->lock);
		r = lease_reacquire(ls);
		pthread_mutex_lock(&ls->lock);
		ls->acquiring = false;
		pthread_cond_broadcast(&ls->cond);
		if (r)
			break;
	}
	if (!r) {
		ls->active++;
		ls->used_ns = striped_now_ns();
		*epoch = ls->epoch;
	}
	pthread_mutex_unlock(&ls->lock);
	return r;
}

void lease_exit(struct lease *ls)
{
	pthread_mutex_lock(&ls->lock);
	ls->active--;
	pthread_mutex_unlock(&ls->lock);
}

/*
 * At a call's end: was the lease held all along since the call started?
 * If not, a truncate or remove may have run while its operations were in
 * flight, and the call cannot claim success.
 */
bool lease_covered(struct lease *ls, uint64_t epoch)
{
	bool ok;

	pthread_mutex_lock(&ls->lock);
	ok = ls->unleased || (ls->held && !ls->lost && ls->epoch == epoch &&
			      striped_now_ns() - ls->granted_ns < lease_ns(ls));
	pthread_mutex_unlock(&ls->lock);
	return ok;
}

int lease_set_seconds(struct lease *ls, uint32_t seconds)
{
	struct lock_req req;
	uint64_t sent;
	int r;

	pthread_mutex_lock(&ls->lock);
	wait_renewal_locked(ls);
	ls->seconds = seconds;
	ls->renewing = true; /* keeps the renewer away while we renew */
	pthread_mutex_unlock(&ls->lock);
	/* Renew now so the new duration holds from here on. */
	sent = striped_now_ns();
	shared_req(ls, &req, LOCK_FLAG_MUST_RENEW);
	r = head_lock(ls->io, ls->oid, &req);
	pthread_mutex_lock(&ls->lock);
	if (r == 0)
		ls->granted_ns = sent;
	else
		ls->lost = true; /* the next call takes it back, or says why not */
	ls->renewing = false;
	pthread_cond_broadcast(&ls->cond);
	pthread_mutex_unlock(&ls->lock);
	return 0;
}

/* ---- the size ---- */

uint64_t lease_known_size(struct lease *ls)
{
	uint64_t size;

	pthread_mutex_lock(&ls->lock);
	size = ls->known_size;
	pthread_mutex_unlock(&ls->lock);
	return size;
}

static void learn_size_locked(struct lease *ls, uint64_t size)
{
	if (size > ls->known_size)
		ls->known_size = size;
}

/* A size seen after a successful grow: keep the larger of what we know. */
void lease_learn_size(struct lease *ls, uint64_t size)
{
	pthread_mutex_lock(&ls->lock);
	learn_size_locked(ls, size);
	pthread_mutex_unlock(&ls->lock);
}

/*
 * Grow the stored size to at least `end` before any byte past the old size
 * is sent (libradosstriper's order): data then never exists past the size,
 * so a crash leaves at worst zeros inside the size, and nothing a later
 * extension could expose or a remove could miss.
 * @return 1 when an update was sent, 0 when none was needed, or -errno
 */
int lease_grow(struct lease *ls, uint64_t end)
{
	rados_completion_t rc;
	int r;

	if (lease_known_size(ls) >= end)
		return 0;
	r = rados_aio_create_completion2(NULL, NULL, &rc);
	if (r)
		return r;
	r = size_cas_send(ls->io, ls->oid, rc, end, STRIPED_WRITE_FLAGS);
	if (r == 0) {
		rados_aio_wait_for_complete(rc);
		r = rados_aio_get_return_value(rc);
	}
	rados_aio_release(rc);
	if (r >= 0 || r == -ECANCELED) {
		lease_learn_size(ls, end);
		r = 1;
	}
	return r;
}

/* ---- size updates shared by growing writes ---- */

/*
 * While one size update is in flight, growing writes that need more than it
 * stores wait together in size_next, and one update for the furthest end among
 * them goes out when it lands. Sequential writes in flight together then
 * cost about one head operation between them instead of one each, and still
 * no byte goes out before a size covering it is stored.
 */

static void size_update_send(struct lease *ls, uint64_t want);

/*
 * The update of ls->size_now is over: the next group's update goes out, then
 * the waiters of this one hear the result. Not ls after that: the waiters'
 * calls are what keep it alive.
 */
static void size_update_finish(struct lease *ls, int r)
{
	struct size_group done, next = {0};

	pthread_mutex_lock(&ls->lock);
	done = ls->size_now;
	if (r >= 0)
		learn_size_locked(ls, done.want);
	if (ls->size_next.waiters) {
		next = ls->size_next;
		next.waiters->sent_update = true;
		ls->size_now = next;
		ls->size_next = (struct size_group){0};
	} else {
		ls->size_sending = false;
		ls->size_now = (struct size_group){0};
	}
	pthread_mutex_unlock(&ls->lock);
	if (next.waiters)
		size_update_send(ls, next.want);
	while (done.waiters) {
		struct size_waiter *w = done.waiters;

		done.waiters = w->next;
		w->stored(w, r < 0 ? r : 0);
	}
}

/* librados callback: -ECANCELED means the size already covered it. */
static void size_update_landed(rados_completion_t rc, void *arg)
{
	int r = rados_aio_get_return_value(rc);

	rados_aio_release(rc);
	size_update_finish(arg, r == -ECANCELED ? 0 : r);
}

static void size_update_send(struct lease *ls, uint64_t want)
{
	rados_completion_t rc;
	int r = rados_aio_create_completion2(ls, size_update_landed, &rc);

	if (!r) {
		r = size_cas_send(ls->io, ls->oid, rc, want, STRIPED_WRITE_FLAGS);
		if (r)
			rados_aio_release(rc);
	}
	if (r)
		size_update_finish(ls, r);
}

/*
 * Let w go once a size of at least w->want is stored: at once when the
 * handle knows one is, with the update in flight when that one covers it,
 * else with the next. Never waits.
 */
void lease_grow_async(struct lease *ls, struct size_waiter *w)
{
	bool send = false;

	w->sent_update = false;
	w->next = NULL;
	pthread_mutex_lock(&ls->lock);
	if (w->want <= ls->known_size) {
		pthread_mutex_unlock(&ls->lock);
		w->stored(w, 0);
		return;
	}
	if (!ls->size_sending) {
		ls->size_sending = true;
		w->sent_update = true;
		ls->size_now = (struct size_group){w->want, w};
		send = true;
	} else if (w->want <= ls->size_now.want) {
		w->next = ls->size_now.waiters;
		ls->size_now.waiters = w;
	} else {
		w->next = ls->size_next.waiters;
		ls->size_next.waiters = w;
		if (w->want > ls->size_next.want)
			ls->size_next.want = w->want;
	}
	pthread_mutex_unlock(&ls->lock);
	if (send)
		size_update_send(ls, w->want);
}

/* The stored size, read now. */
static int stored_size(struct lease *ls, uint64_t *size)
{
	int r = head_get_size(ls->io, ls->oid, size);

	if (r == -ENOENT || r == -ENODATA)
		return -ESTALE;
	return r == -ERANGE ? -EINVAL : r;
}

/*
 * Claim [size, size + len) for an append: the size moves from what it is to
 * len more in one compare-and-set, so two appenders that both use this never
 * get the same range; the loser reads the new size and tries again. The
 * first guess is the size this handle knows, right when it appends alone.
 */
int lease_append_reserve(struct lease *ls, uint64_t len, uint64_t *off)
{
	uint64_t size = lease_known_size(ls);
	int r;

	for (;;) {
		if (len > UINT64_MAX - size)
			return -EFBIG;
		r = size_cas_eq(ls->io, ls->oid, size, size + len, STRIPED_WRITE_FLAGS);
		if (r != -ECANCELED)
			break;
		r = stored_size(ls, &size);
		if (r)
			return r;
	}
	if (r == -ENOENT)
		return -ESTALE;
	if (r)
		return r;
	lease_learn_size(ls, size + len);
	*off = size;
	return 0;
}

/* ---- regions far out in the file ---- */

static bool region_known_locked(const struct lease *ls, uint64_t r)
{
	size_t lo = 0, hi = ls->nregions;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ls->regions[mid] == r)
			return true;
		if (ls->regions[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Keep the cache sorted: merge the newly registered (sorted) regions in. */
static int regions_add_locked(struct lease *ls, const uint64_t *add, size_t n)
{
	uint64_t *all = malloc((ls->nregions + n) * sizeof(*all));
	size_t i = 0, j = 0, k = 0;

	if (!all)
		return -ENOMEM;
	while (i < ls->nregions || j < n)
		all[k++] = j == n || (i < ls->nregions && ls->regions[i] < add[j]) ? ls->regions[i++]
										   : add[j++];
	free(ls->regions);
	ls->regions = all;
	ls->nregions = k;
	return 0;
}

/*
 * Before a write sends data to objects past the first REGION_WALK_OBJECTS:
 * register their regions on the head (one round trip, once per region per
 * handle), so remove and truncate find those objects by name.
 */
int lease_register(struct lease *ls, const struct striped_layout *l, uint64_t off, uint64_t len,
		   bool nowait)
{
	uint64_t period = l->stripe_count * l->object_size, first_obj, last_obj;
	uint64_t want[64];
	size_t n = 0;
	int r;

	if (!len)
		return 0;
	/* Every object of the object sets the write touches (a superset, cheap to compute). */
	first_obj = off / period * l->stripe_count;
	last_obj = (off + len - 1) / period * l->stripe_count + l->stripe_count - 1;
	if (last_obj < REGION_WALK_OBJECTS)
		return 0;
	if (first_obj < REGION_WALK_OBJECTS)
		first_obj = REGION_WALK_OBJECTS;
	pthread_mutex_lock(&ls->lock);
	for (uint64_t reg = first_obj / REGION_OBJECTS; reg <= last_obj / REGION_OBJECTS; reg++) {
		if (region_known_locked(ls, reg))
			continue;
		if (n == sizeof(want) / sizeof(want[0])) {
			pthread_mutex_unlock(&ls->lock);
			return -EFBIG; /* one call over 64 regions (256k objects): split it */
		}
		want[n++] = reg;
	}
	pthread_mutex_unlock(&ls->lock);
	if (!n)
		return 0;
	if (nowait)
		return -EAGAIN;
	r = head_register_regions(ls->io, ls->oid, want, n);
	if (r)
		return r == -ENOENT ? -ESTALE : r;
	pthread_mutex_lock(&ls->lock);
	r = regions_add_locked(ls, want, n);
	pthread_mutex_unlock(&ls->lock);
	return r;
}

/* ---- exclusive sections ---- */

static void excl_req(const struct excl *x, struct lock_req *req, uint8_t flags)
{
	*req = (struct lock_req){STRIPER_LOCK_NAME,    LOCK_EXCLUSIVE,	     x->cookie,
				 STRIPER_EXCLUSIVE_TAG, lease_description, LEASE_SECONDS_DEFAULT,
				 flags};
}

int excl_begin(struct excl *x, rados_ioctx_t io, const char *oid)
{
	struct lock_req req;

	memset(x, 0, sizeof(*x));
	x->io = io;
	x->oid = oid;
	meta_new_cookie(x->cookie);
	x->granted_ns = striped_now_ns();
	excl_req(x, &req, 0);
	return head_lock(io, oid, &req);
}

/* Between cleanup operations: renew once half the lock's time is gone. */
int excl_keep(void *arg)
{
	struct excl *x = arg;
	struct lock_req req;
	uint64_t sent = striped_now_ns();
	int r;

	if (x->lost)
		return -EBUSY;
	if (sent - x->granted_ns < (uint64_t)LEASE_SECONDS_DEFAULT * NS / 2)
		return 0;
	excl_req(x, &req, LOCK_FLAG_MUST_RENEW);
	r = head_lock(x->io, x->oid, &req);
	if (r) {
		/* Exclusion is gone: stop rather than cut a writer's data. */
		x->lost = true;
		return r == -ENOENT ? -EBUSY : r;
	}
	x->granted_ns = sent;
	return 0;
}

void excl_end(struct excl *x)
{
	head_unlock(x->io, x->oid, x->cookie);
}

/* Fenced: assert_locked says -EBUSY when the lock is no longer ours. */
int excl_set_size(struct excl *x, uint64_t old, uint64_t size)
{
	struct lock_req req;

	excl_req(x, &req, 0);
	return head_set_size_fenced(x->io, x->oid, &req, old, size);
}

int excl_remove_head(struct excl *x)
{
	struct lock_req req;

	excl_req(x, &req, 0);
	return head_remove_fenced(x->io, x->oid, &req);
}
