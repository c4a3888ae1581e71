// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Handover and fencing: how a client that needs the lock a handle holds gets
 * it (librbd's exclusive lock protocol, on libradosstriper's lock).
 *
 * Holders of libstriped's shared lock watch the head and answer a notify at
 * once with their cookie; they let go of the lock when no call of theirs is
 * in flight (lease.c). So the client that wants the lock:
 * 1. tries to take it; if that fails,
 * 2. asks every watcher to let go (notify) and reads who answered;
 * 3. waits for those that answered, trying again every few milliseconds;
 * 4. fences a libstriped holder that did not answer two rounds in a row:
 *    blocklists its address, waits for the OSD map that carries the
 *    blocklist, and only then breaks its lock. OSDs refuse every operation
 *    a blocklisted client sends afterwards, so a holder that was paused,
 *    not dead, cannot land a queued write into what the breaker does next.
 *    An address another client has too (ours, or that of another holder or
 *    watcher: processes forked after librados was used) is never
 *    blocklisted: the caller gets -ENOTUNIQ, and nothing is broken.
 * A lock of our own client that no open handle of this process has (its
 * close could not unlock: the cluster was paused) is broken without fencing:
 * our own later operations cannot be overtaken by its.
 * libradosstriper's holders take the lock for one call and do not watch:
 * they are waited for, never fenced, and so are other exclusive holders.
 * Breaking without fencing is an opt-in (striped_cluster_set_lock_break())
 * for applications that know no other client can be alive.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "cookie.h"
#include "handover.h"
#include "head.h"
#include "lease.h"
#include "name.h"
#include "rados_cxx.h"

/*
 * How long a watcher has to answer: a live client answers in milliseconds.
 * OSDs count a notify's timeout in whole seconds. A killed client's watch
 * lingers until the OSD drops it (osd_client_watch_timeout, 30 s), and each
 * notify waits this long for it meanwhile.
 */
#define NOTIFY_TIMEOUT_MS 1000
/* Ask again this often while holders that answered are still busy. */
#define ASK_INTERVAL_NS (1000 * NS_PER_MS)
/* Try the lock this often between asking. */
#define POLL_US 10000
/* Give up with -EBUSY after this long: holders that answer but stay busy, or foreign ones. */
#define WAIT_BUSY_NS (20000 * NS_PER_MS)
#define WAIT_FOREIGN_NS (2000 * NS_PER_MS)

/* ---- the lock-break policy of a cluster handle ---- */

struct break_policy {
	rados_t cluster;
	uint64_t instance; /* tells a new connection at a reused address apart */
	int how;
	struct break_policy *next;
};

static pthread_mutex_t policy_lock = PTHREAD_MUTEX_INITIALIZER;
static struct break_policy *policies;

/* In the child of a fork(): the lock may have been copied held by another thread. */
static void policies_forked(void)
{
	pthread_mutex_init(&policy_lock, NULL);
}

static void policies_watch_forks(void)
{
	pthread_atfork(NULL, NULL, policies_forked);
}

int handover_set_policy(rados_t cluster, int how)
{
	static pthread_once_t forks_watched = PTHREAD_ONCE_INIT;
	struct break_policy *p;
	uint64_t instance;

	pthread_once(&forks_watched, policies_watch_forks);
	instance = rados_get_instance_id(cluster);
	if (!instance)
		return -ENOTCONN;
	pthread_mutex_lock(&policy_lock);
	for (p = policies; p && p->cluster != cluster; p = p->next)
		;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (p) {
			p->next = policies;
			policies = p;
		}
	}
	if (p) {
		p->cluster = cluster;
		p->instance = instance;
		p->how = how;
	}
	pthread_mutex_unlock(&policy_lock);
	return p ? 0 : -ENOMEM;
}

/* Whether this cluster handle may break a silent holder's lock without fencing it. */
static int handover_policy(rados_t cluster)
{
	uint64_t instance = rados_get_instance_id(cluster);
	int how = STRIPED_LOCK_BREAK_FENCE;

	pthread_mutex_lock(&policy_lock);
	for (struct break_policy *p = policies; p; p = p->next)
		if (p->cluster == cluster && p->instance == instance)
			how = p->how;
	pthread_mutex_unlock(&policy_lock);
	return how;
}

/* ---- fencing ---- */

/* "client.4123": 4123, the global id librados lists watchers by; -1 if none. */
static int64_t client_id(const char *client)
{
	char *end;
	long long id;

	if (strncmp(client, "client.", 7))
		return -1;
	id = strtoll(client + 7, &end, 10);
	return *end || end == client + 7 ? -1 : id;
}

/*
 * Whether the holder's address is its own alone, so that blocklisting it
 * fences no one else: not our address, nor that of another client holding
 * the lock or watching the head (a watcher that answers is alive).
 * Processes forked after librados was used share one address when they
 * connect with rados_connect() (striped.h, striped_cluster_connect()).
 * 0, -ENOTUNIQ when it is shared, or the error that kept us from knowing.
 */
static int address_alone(rados_ioctx_t io, const char *oid, const struct locker *holder,
			 const struct locker *lockers, size_t nlockers)
{
	int64_t holder_id = client_id(holder->client);
	struct watcher *w = NULL;
	char *mine = NULL;
	ssize_t nw;
	int r = rados_getaddrs(rados_ioctx_get_cluster(io), &mine);

	if (r < 0)
		return r;
	if (addr_shared(holder->addr, mine))
		r = -ENOTUNIQ;
	rados_buffer_free(mine);
	for (size_t i = 0; i < nlockers && !r; i++)
		if (strcmp(lockers[i].client, holder->client) &&
		    addr_shared(holder->addr, lockers[i].addr))
			r = -ENOTUNIQ;
	if (r)
		return r;
	nw = head_watchers(io, oid, &w);
	if (nw < 0)
		return (int)nw;
	for (ssize_t i = 0; i < nw && !r; i++)
		if (w[i].id != holder_id && addr_shared(holder->addr, w[i].addr))
			r = -ENOTUNIQ;
	free(w);
	return r;
}

/*
 * With STRIPED_LOCK_BREAK_FENCE, blocklist the holder's address (its whole
 * client instance, as librbd does) and wait until our OSD map carries it;
 * then break its lock. The blocklist lasts the cluster's default
 * (mon_osd_blocklist_default_expire): the fenced application must reconnect.
 * An address another client also has (of the lockers listed, or the
 * head's watchers, or ours) is not blocklisted: -ENOTUNIQ, nothing changed.
 */
static int break_holder(rados_ioctx_t io, const char *oid, const struct locker *l,
			const struct locker *lockers, size_t nlockers, int how)
{
	rados_t cluster = rados_ioctx_get_cluster(io);
	int r = 0;

	if (how == STRIPED_LOCK_BREAK_FENCE) {
		char addr[sizeof(l->addr)];

		r = address_alone(io, oid, l, lockers, nlockers);
		memcpy(addr, l->addr, sizeof(addr));
		if (!r)
			r = rados_blocklist_add(cluster, addr, 0);
		if (!r)
			r = rados_wait_for_latest_osdmap(cluster);
	}
	return r ? r : head_break_lock(io, oid, l);
}

/* An operator's break: the holder as listed now, so its address is the one it has. */
int handover_break(rados_ioctx_t io, const char *name, const char *client, const char *cookie,
		   int how)
{
	struct locker l[LOCKERS_MAX];
	bool exclusive;
	ssize_t n;
	char *oid;
	int r = name_oid(io, name, &oid);

	if (r)
		return r;
	n = head_lockers(io, oid, l, LOCKERS_MAX, &exclusive, NULL);
	r = n < 0 ? (int)n : -ENOENT;
	for (ssize_t i = 0; i < n; i++) {
		if (!strcmp(l[i].client, client) && !strcmp(l[i].cookie, cookie)) {
			r = break_holder(io, oid, &l[i], l, (size_t)n, how);
			break;
		}
	}
	free(oid);
	return r;
}

/* ---- asking ---- */

struct asking {
	uint64_t start_ns, next_ask_ns;
	bool any_ours; /* some holder is libstriped's: it answers or gets fenced, so wait longer */
	char self[64];	   /* "client.<our instance>": never fenced */
	/* libstriped holders that did not answer the last round */
	char silent[LOCKERS_MAX][sizeof(((struct locker *)0)->cookie)];
	size_t nsilent;
};

static bool was_silent(const struct asking *a, const char *cookie)
{
	for (size_t i = 0; i < a->nsilent; i++)
		if (!strcmp(a->silent[i], cookie))
			return true;
	return false;
}

/*
 * One round: list the holders, ask them all, fence the libstriped holders
 * that were silent in this round and the one before.
 */
static int ask_round(rados_ioctx_t io, const char *oid, struct asking *a)
{
	struct locker l[LOCKERS_MAX];
	char silent[LOCKERS_MAX][sizeof(l[0].cookie)];
	size_t nsilent = 0, len = 0;
	char *answered = NULL;
	bool exclusive;
	ssize_t n = head_lockers(io, oid, l, LOCKERS_MAX, &exclusive, NULL);
	int r;

	if (n <= 0 || exclusive)
		return n < 0 ? (int)n : 0; /* gone, or another truncate: just wait */
	r = head_notify_release(io, oid, NOTIFY_TIMEOUT_MS, &answered, &len);
	if (r)
		return r;
	for (ssize_t i = 0; i < n && !r; i++) {
		if (!cookie_is_ours(l[i].cookie))
			continue;
		/* Our own client: a handle of ours answers; a lock no handle has is left over. */
		if (!strcmp(l[i].client, a->self)) {
			if (!lease_cookie_open(l[i].cookie))
				r = head_break_lock(io, oid, &l[i]);
			continue;
		}
		a->any_ours = true;
		if (cookie_answered(answered, len, l[i].cookie))
			continue;
		if (was_silent(a, l[i].cookie))
			r = break_holder(io, oid, &l[i], l, (size_t)n,
					 handover_policy(rados_ioctx_get_cluster(io)));
		else
			strcpy(silent[nsilent++], l[i].cookie);
	}
	free(answered);
	memcpy(a->silent, silent, sizeof(silent[0]) * nsilent);
	a->nsilent = nsilent;
	return r;
}

int handover_lock(rados_ioctx_t io, const char *oid, const struct lock_req *req)
{
	struct asking a = {.start_ns = clock_now_ns()};
	int r;

	snprintf(a.self, sizeof(a.self), "client.%llu",
		 (unsigned long long)rados_get_instance_id(rados_ioctx_get_cluster(io)));
	for (;;) {
		uint64_t now, waited;

		r = head_lock(io, oid, req);
		if (r != -EBUSY)
			return r;
		now = clock_now_ns();
		waited = now - a.start_ns;
		if (waited > (a.any_ours ? WAIT_BUSY_NS : WAIT_FOREIGN_NS))
			return -EBUSY;
		if (now >= a.next_ask_ns) {
			r = ask_round(io, oid, &a);
			if (r)
				return r;
			/* A silent holder is asked again at once: the second silence fences it. */
			a.next_ask_ns = a.nsilent ? 0 : clock_now_ns() + ASK_INTERVAL_NS;
			continue;
		}
		usleep(POLL_US);
	}
}
