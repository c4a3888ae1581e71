// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fault_client: the C side of the faults suite (tests/faults/run-faults.sh).
 * Each command drives libstriped through one fault the driver script sets up
 * on its own sandbox cluster, checks the exact errno and how long the call
 * took, and prints one line per check ("ok: ..." or "FAIL: ...").
 *
 *   fault_client [OPTIONS] COMMAND ARGS...
 *   options: --id ID (client.ID, default admin)  --keyring PATH
 *            --timeout S (striped_cluster_set_op_timeout; default 0 = none)
 *            --slack S (how late a timed-out call may return; default 2)
 *   write POOL NAME SIZE SEED     create NAME (64K x 4 / 1M) holding the pattern
 *   verify POOL NAME SIZE SEED    NAME holds exactly SIZE bytes of the pattern
 *   rm POOL NAME                  striped_remove
 *   pause POOL                    calls under `osd pause` give -ETIMEDOUT in time,
 *                                 then succeed after `osd unpause` (needs --timeout)
 *   full POOL NAME SIZE SEED ERR  the pool is full (ERR: ENOSPC or EDQUOT): growing
 *                                 writes and creates fail with ERR at once and
 *                                 leave the size alone, NAME reads back intact,
 *                                 NAME-victim can be removed (needs --timeout,
 *                                 as a guard against hangs)
 *   perm-ro POOL NAME SIZE SEED   a client with osd 'allow r': reads work, every
 *                                 change gives -EPERM and NAME is unchanged
 *   perm-none POOL NAME           a client without osd caps on POOL: -EPERM
 *   stress POOL ROUNDS [CHUNK SC [OPS]]  many concurrent extending aio writes
 *                                 (48 of CHUNK bytes, default 100003, on 64K x SC
 *                                 objects, throttle OPS): every call succeeds
 *                                 and every byte lands in place
 *   fork-siblings POOL NAME       this process connects, then forks a holder
 *                                 (stopped once it holds NAME-CASE), a breaker
 *                                 (truncate, remove) and maybe a live sibling,
 *                                 per case: one address shared (rados_connect
 *                                 after the fork) gives -ENOTUNIQ and no
 *                                 blocklist; striped_cluster_connect gives
 *                                 each its own, and the holder alone is fenced
 *   sibling ROLE POOL NAME [SEED [SIZE]]  one of fork-siblings' processes (holder,
 *                                 watcher, breaker), connected with
 *                                 striped_cluster_connect, its commands read
 *                                 from stdin ("write", "truncate", "remove",
 *                                 "own", "exit"), one answer line each
 *   part-holder, part-break, part-verify POOL NAME SEED  a holder cut off from
 *                                 the network (run-faults.sh: partition)
 *   check-prefix OUT SRC BS BLOCKS  OUT (a striped file read back after its
 *                                 writer was killed) is a prefix of SRC with
 *                                 holes as zeros: every byte is SRC's or 0, its
 *                                 size is a multiple of BS and below size -
 *                                 BLOCKS * BS every byte is SRC's
 *
 * Exit: 0 all checks passed, 1 a check failed, 2 usage or setup error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rados/librados.h>

#include "striped.h"

#define MiB (1ull << 20)
#define K64 65536ull

static const struct striped_layout test_layout = {K64, 4, MiB};

static struct {
	const char *id;
	const char *keyring;
	unsigned int timeout;
	double slack;
} opt = {"admin", NULL, 0, 2.0};

static int failures;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		failures++;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("fault_client: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *err_name(long r)
{
	static char buf[64];

	switch (r) {
	case -EPERM:
		return "-EPERM";
	case -ENOENT:
		return "-ENOENT";
	case -EACCES:
		return "-EACCES";
	case -ENOSPC:
		return "-ENOSPC";
	case -EDQUOT:
		return "-EDQUOT";
	case -ETIMEDOUT:
		return "-ETIMEDOUT";
	case -EINVAL:
		return "-EINVAL";
	case -ENODATA:
		return "-ENODATA";
	case -EBUSY:
		return "-EBUSY";
	case -ENOTUNIQ:
		return "-ENOTUNIQ";
	case -ESHUTDOWN:
		return "-EBLOCKLISTED";
	}
	snprintf(buf, sizeof(buf), "%ld", r);
	return buf;
}

/* ---- the pattern (same formula as tests/cluster_fixture.h) ---- */

static uint8_t pattern_byte(uint64_t seed, uint64_t pos)
{
	uint64_t x = (pos / 8 + 1) * 0x9e3779b97f4a7c15ull ^ seed;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	return (uint8_t)(x >> (8 * (pos % 8)));
}

static void pattern_fill(uint8_t *buf, size_t len, uint64_t seed, uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern_byte(seed, off + i);
}

static long long pattern_check(const uint8_t *buf, size_t len, uint64_t seed, uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pattern_byte(seed, off + i))
			return (long long)i;
	return -1;
}

static void *xmalloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	if (!p)
		die("out of memory");
	return p;
}

static uint64_t parse_u64(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("bad number: %s", s);
	return v;
}

/* ---- the cluster ---- */

struct conn {
	rados_t rados;
	rados_ioctx_t io;
};

/* How a connection is made: rados_connect() in this thread, or striped_cluster_connect(). */
enum connect_how { CONNECT_PLAIN, CONNECT_OWN_THREAD };

static int conn_open_how(struct conn *cn, const char *pool, enum connect_how how)
{
	char name[256];
	int r;

	snprintf(name, sizeof(name), "client.%s", opt.id);
	r = rados_create2(&cn->rados, "ceph", name, 0);
	if (r < 0)
		return r;
	r = rados_conf_read_file(cn->rados, NULL);
	if (!r && opt.keyring)
		r = rados_conf_set(cn->rados, "keyring", opt.keyring);
	if (!r)
		r = rados_conf_set(cn->rados, "client_mount_timeout", "15");
	if (!r && opt.timeout)
		r = striped_cluster_set_op_timeout(cn->rados, opt.timeout);
	if (!r)
		r = how == CONNECT_PLAIN ? rados_connect(cn->rados)
					 : striped_cluster_connect(cn->rados);
	if (!r)
		r = rados_ioctx_create(cn->rados, pool, &cn->io);
	if (r < 0)
		rados_shutdown(cn->rados);
	return r;
}

static int conn_open(struct conn *cn, const char *pool)
{
	return conn_open_how(cn, pool, CONNECT_PLAIN);
}

static void conn_open_or_die(struct conn *cn, const char *pool)
{
	int r = conn_open(cn, pool);

	if (r < 0)
		die("cannot connect as client.%s to pool %s: %s", opt.id, pool, strerror(-r));
}

static void conn_close(struct conn *cn)
{
	rados_ioctx_destroy(cn->io);
	rados_shutdown(cn->rados);
}

static int mon_cmd(struct conn *cn, const char *json)
{
	const char *cmd[] = {json};
	char *outbuf = NULL, *outs = NULL;
	size_t outlen = 0, outslen = 0;
	int r = rados_mon_command(cn->rados, cmd, 1, "", 0, &outbuf, &outlen, &outs, &outslen);

	rados_buffer_free(outbuf);
	rados_buffer_free(outs);
	return r;
}

/* Is `r` the expected errno, returned after `secs` within the op timeout? */
static void check_timed_out(const char *what, long r, double secs)
{
	double lo = (double)opt.timeout - 0.5, hi = (double)opt.timeout + opt.slack;

	check(r == -ETIMEDOUT && secs >= lo && secs <= hi,
	      "%s under pause: %s after %.2f s (want -ETIMEDOUT within %.1f..%.1f s)", what,
	      err_name(r), secs, lo, hi);
}

/* ---- write / verify / rm ---- */

static int write_file(struct conn *cn, const char *name, uint64_t size, uint64_t seed)
{
	struct striped_file *f;
	uint8_t *buf = xmalloc(size);
	ssize_t n;
	int r;

	pattern_fill(buf, size, seed, 0);
	r = striped_open(cn->io, name, STRIPED_CREATE | STRIPED_EXCL, &test_layout, &f);
	if (r < 0) {
		free(buf);
		return r;
	}
	n = striped_write(f, buf, size, 0);
	striped_close(f);
	free(buf);
	return n < 0 ? (int)n : 0;
}

/* Read NAME whole and check it against the pattern; logs one line. */
static void verify_file(struct conn *cn, const char *name, uint64_t size, uint64_t seed,
			const char *when)
{
	struct striped_file *f = NULL;
	uint8_t *buf = xmalloc(size + 1);
	uint64_t got = 0;
	long long bad = -2;
	ssize_t n = 0;
	int r;

	r = striped_open(cn->io, name, 0, NULL, &f);
	if (!r)
		r = striped_stat(f, &got, NULL);
	if (!r) {
		n = striped_read(f, buf, size + 1, 0);
		if (n >= 0)
			bad = pattern_check(buf, (size_t)n, seed, 0);
	}
	check(!r && n == (ssize_t)size && got == size && bad == -1,
	      "%s: %s reads back %zd of %" PRIu64
	      " bytes intact (open/stat %s, first bad byte %lld)",
	      when, name, n, size, err_name(r), bad);
	striped_close(f);
	free(buf);
}

static int cmd_write(int argc, char **argv)
{
	struct conn cn;
	int r;

	if (argc != 4)
		die("usage: write POOL NAME SIZE SEED");
	conn_open_or_die(&cn, argv[0]);
	r = write_file(&cn, argv[1], parse_u64(argv[2]), parse_u64(argv[3]));
	check(r == 0, "write %s (%s bytes): %s", argv[1], argv[2], err_name(r));
	conn_close(&cn);
	return 0;
}

static int cmd_verify(int argc, char **argv)
{
	struct conn cn;

	if (argc != 4)
		die("usage: verify POOL NAME SIZE SEED");
	conn_open_or_die(&cn, argv[0]);
	verify_file(&cn, argv[1], parse_u64(argv[2]), parse_u64(argv[3]), "verify");
	conn_close(&cn);
	return 0;
}

static int cmd_rm(int argc, char **argv)
{
	struct conn cn;
	int r;

	if (argc != 2)
		die("usage: rm POOL NAME");
	conn_open_or_die(&cn, argv[0]);
	r = striped_remove(cn.io, argv[1]);
	check(r == 0, "remove %s: %s", argv[1], err_name(r));
	conn_close(&cn);
	return 0;
}

/* ---- pause ---- */

struct cb_count {
	pthread_mutex_t lock;
	int calls;
	ssize_t result_in_cb;
	double at; /* when the callback ran */
};

static void count_cb(struct striped_completion *c, void *arg)
{
	struct cb_count *n = arg;

	pthread_mutex_lock(&n->lock);
	n->calls++;
	n->result_in_cb = striped_completion_result(c);
	n->at = now();
	pthread_mutex_unlock(&n->lock);
}

/*
 * Three asynchronous calls, one after another: each times out once, its
 * callback runs once. The truncate before them let go of the shared lease,
 * and the header lets an aio submitter wait while the lease is taken back
 * (one timed-out round trip each here), so each is timed from its own
 * submission.
 */
static void pause_aio(struct striped_file *f, uint8_t *buf, uint64_t size)
{
	struct cb_count n[3];
	struct striped_completion *c[3] = {NULL, NULL, NULL};
	uint8_t *rbuf = xmalloc(size);
	uint64_t st_size = 0;
	double t0[3];
	int r[3];

	for (int i = 0; i < 3; i++) {
		pthread_mutex_init(&n[i].lock, NULL);
		n[i].calls = 0;
		n[i].result_in_cb = 1;
		if (striped_completion_create(count_cb, &n[i], &c[i]))
			die("striped_completion_create failed");
	}
	t0[0] = now();
	r[0] = striped_aio_write(f, c[0], buf, size, 0);
	t0[1] = now();
	r[1] = striped_aio_read(f, c[1], rbuf, size, 0);
	t0[2] = now();
	r[2] = striped_aio_stat(f, c[2], &st_size);
	for (int i = 0; i < 3; i++) {
		static const char *const what[] = {"aio_write", "aio_read", "aio_stat"};
		ssize_t res;
		int calls;

		if (r[i]) {
			check(false, "%s under pause: refused at submit with %s", what[i],
			      err_name(r[i]));
			continue;
		}
		striped_completion_wait(c[i]);
		res = striped_completion_result(c[i]);
		pthread_mutex_lock(&n[i].lock);
		calls = n[i].calls;
		pthread_mutex_unlock(&n[i].lock);
		check_timed_out(what[i], res, n[i].at - t0[i]);
		check(calls == 1 && n[i].result_in_cb == res,
		      "%s under pause: callback ran %d time(s), saw %s", what[i], calls,
		      err_name(n[i].result_in_cb));
	}
	for (int i = 0; i < 3; i++) {
		striped_completion_release(c[i]);
		pthread_mutex_destroy(&n[i].lock);
	}
	free(rbuf);
}

/*
 * A completion released while its call is in flight; close must wait for
 * it, not hang: one op timeout for the call, then one more for letting go
 * of the lock and the watch (sent together, both waited for, so nothing of
 * the file is in flight once close returns).
 */
static void pause_release_then_close(struct striped_file *f, uint8_t *buf, uint64_t size)
{
	static struct cb_count n = {PTHREAD_MUTEX_INITIALIZER, 0, 1, 0};
	struct striped_completion *c;
	double t0 = now(), secs;
	int r;

	if (striped_completion_create(count_cb, &n, &c))
		die("striped_completion_create failed");
	r = striped_aio_write(f, c, buf, size, 0);
	striped_completion_release(c);
	striped_close(f);
	secs = now() - t0;
	check(r == 0 && n.calls == 1 && n.result_in_cb == -ETIMEDOUT &&
		  secs <= 2.0 * opt.timeout + opt.slack,
	      "released in-flight aio_write under pause: close returned after %.2f s, callback "
	      "ran %d time(s) with %s",
	      secs, n.calls, err_name(n.result_in_cb));
}

static int cmd_pause(int argc, char **argv)
{
	const uint64_t size = 4 * MiB;
	char name[64], name2[80];
	struct striped_file *f = NULL, *g = NULL;
	uint8_t *buf, *rbuf;
	struct conn cn;
	double t0;
	long r;

	if (argc != 1 || !opt.timeout)
		die("usage: --timeout S pause POOL");
	conn_open_or_die(&cn, argv[0]);
	snprintf(name, sizeof(name), "pause-%ld", (long)getpid());
	snprintf(name2, sizeof(name2), "%s-new", name);
	buf = xmalloc(size + MiB);
	rbuf = xmalloc(size + MiB);
	pattern_fill(buf, size + MiB, 7, 0);

	r = striped_open(cn.io, name, STRIPED_CREATE | STRIPED_EXCL, &test_layout, &f);
	if (!r)
		r = striped_write(f, buf, size, 0);
	check(r == (long)size, "write %s before the pause: %s", name, err_name(r));
	if (r != (long)size)
		goto out;

	r = mon_cmd(&cn, "{\"prefix\": \"osd pause\"}");
	if (!r)
		r = rados_wait_for_latest_osdmap(cn.rados);
	check(r == 0, "osd pause: %s", err_name(r));
	if (r)
		goto unpause;

	t0 = now();
	r = striped_write(f, buf, size, 0);
	check_timed_out("write (overwrite)", r, now() - t0);
	t0 = now();
	r = striped_write(f, buf + size, MiB, size);
	check_timed_out("write (extend)", r, now() - t0);
	t0 = now();
	r = striped_read(f, rbuf, size, 0);
	check_timed_out("read", r, now() - t0);
	t0 = now();
	r = striped_truncate(f, MiB);
	check_timed_out("truncate", r, now() - t0);
	pause_aio(f, buf, size);
	t0 = now();
	r = striped_open(cn.io, name2, STRIPED_CREATE | STRIPED_EXCL, &test_layout, &g);
	check_timed_out("open (create)", r, now() - t0);
	if (!r)
		striped_close(g);
	t0 = now();
	r = striped_remove(cn.io, name);
	check_timed_out("remove", r, now() - t0);
	pause_release_then_close(f, buf, size);
	f = NULL;

unpause:
	r = mon_cmd(&cn, "{\"prefix\": \"osd unpause\"}");
	if (!r)
		r = rados_wait_for_latest_osdmap(cn.rados);
	check(r == 0, "osd unpause: %s", err_name(r));

	/* The same calls now succeed; nothing sent during the pause did harm. */
	r = striped_open(cn.io, name, 0, NULL, &f);
	check(r == 0, "open %s after unpause: %s", name, err_name(r));
	if (r)
		goto out;
	r = striped_write(f, buf + size, MiB, size);
	check(r == (long)MiB, "write (extend) after unpause: %s", err_name(r));
	striped_close(f);
	f = NULL;
	verify_file(&cn, name, size + MiB, 7, "after unpause");
	r = striped_open(cn.io, name2, STRIPED_CREATE, &test_layout, &g);
	check(r == 0, "open (create) after unpause: %s", err_name(r));
	striped_close(g);
	r = striped_remove(cn.io, name2);
	check(r == 0, "remove %s after unpause: %s", name2, err_name(r));
	/*
	 * The handle closed under pause could not unlock: its lock is left
	 * over, and this client's remove breaks it at once (no handle of ours
	 * has it), without fencing itself.
	 */
	t0 = now();
	r = striped_remove(cn.io, name);
	check(r == 0 && now() - t0 < 10,
	      "remove %s after unpause (%.1f s, the closed-under-pause lock broken): %s", name,
	      now() - t0, err_name(r));
out:
	striped_close(f);
	free(buf);
	free(rbuf);
	conn_close(&cn);
	return 0;
}

/* ---- full pool ---- */

/*
 * The pool is full (quota or full ratio): growing writes and creates fail at
 * once with the pool's error and leave the size alone, an overwrite in place
 * may go through (Ceph lets FULL_TRY writes that do not grow an object
 * pass), the data already there reads back intact, and a file can still be
 * removed to make room (lib/striped_i.h promises both through
 * LIBRADOS_OPERATION_FULL_TRY). The op timeout only keeps a regression from
 * hanging the suite.
 */
static int cmd_full(int argc, char **argv)
{
	struct striped_file *f = NULL, *g = NULL;
	char name2[300], victim[300];
	struct conn cn;
	uint64_t size, seed, st_size = 0;
	uint8_t *buf;
	long want, r;
	double t0;

	if (argc != 5 || !opt.timeout)
		die("usage: --timeout S full POOL NAME SIZE SEED ENOSPC|EDQUOT");
	size = parse_u64(argv[2]);
	seed = parse_u64(argv[3]);
	if (!strcmp(argv[4], "ENOSPC"))
		want = -ENOSPC;
	else if (!strcmp(argv[4], "EDQUOT"))
		want = -EDQUOT;
	else
		die("want ENOSPC or EDQUOT, not %s", argv[4]);
	conn_open_or_die(&cn, argv[0]);
	snprintf(name2, sizeof(name2), "%s-new", argv[1]);
	snprintf(victim, sizeof(victim), "%s-victim", argv[1]);
	buf = xmalloc(size + MiB);
	pattern_fill(buf, size + MiB, seed + 1, 0);

	r = striped_open(cn.io, argv[1], 0, NULL, &f);
	check(r == 0, "open %s on the full pool: %s", argv[1], err_name(r));
	if (r)
		goto out;
	/* the same bytes in place: Ceph may let it through (no growth) */
	pattern_fill(buf, MiB, seed, 0);
	t0 = now();
	r = striped_write(f, buf, MiB, 0);
	check(r == (long)MiB || r == want,
	      "overwrite in place on the full pool: %s after %.2f s (want %lu or %s)", err_name(r),
	      now() - t0, (unsigned long)MiB, err_name(want));
	t0 = now();
	r = striped_write(f, buf, MiB, size);
	check(r == want, "extending write on the full pool: %s after %.2f s (want %s)", err_name(r),
	      now() - t0, err_name(want));
	r = striped_stat(f, &st_size, NULL);
	check(r == 0 && st_size == size,
	      "size after the refused extending write: %" PRIu64 " (want %" PRIu64 ", stat %s)",
	      st_size, size, err_name(r));
	t0 = now();
	r = striped_open(cn.io, name2, STRIPED_CREATE | STRIPED_EXCL, &test_layout, &g);
	check(r == want, "create on the full pool: %s after %.2f s (want %s)", err_name(r),
	      now() - t0, err_name(want));
	if (!r)
		striped_close(g);
	striped_close(f);
	f = NULL;
	if (st_size != size) {
		/* put the size back so the data check below still means something */
		r = striped_open(cn.io, argv[1], 0, NULL, &f);
		if (!r)
			r = striped_truncate(f, size);
		printf("note: truncated back to %" PRIu64 ": %s\n", size, err_name(r));
		striped_close(f);
		f = NULL;
	}
	verify_file(&cn, argv[1], size, seed, "on the full pool");
	t0 = now();
	r = striped_remove(cn.io, victim);
	check(r == 0, "remove %s on the full pool: %s after %.2f s (want 0: deletes go through)",
	      victim, err_name(r), now() - t0);
out:
	striped_close(f);
	free(buf);
	conn_close(&cn);
	return 0;
}

/* ---- capabilities ---- */

static int cmd_perm_ro(int argc, char **argv)
{
	struct striped_file *f = NULL, *g = NULL;
	char name2[300];
	struct conn cn;
	uint64_t size, seed;
	uint8_t *buf;
	long r;

	if (argc != 4)
		die("usage: perm-ro POOL NAME SIZE SEED");
	size = parse_u64(argv[2]);
	seed = parse_u64(argv[3]);
	conn_open_or_die(&cn, argv[0]);
	snprintf(name2, sizeof(name2), "%s-new", argv[1]);
	buf = xmalloc(size + MiB);
	pattern_fill(buf, size + MiB, seed + 1, 0);
	verify_file(&cn, argv[1], size, seed, "read-only client");
	r = striped_open(cn.io, argv[1], 0, NULL, &f);
	if (r)
		goto out;
	r = striped_write(f, buf, MiB, 0);
	check(r == -EPERM, "read-only client: overwrite: %s (want -EPERM)", err_name(r));
	r = striped_write(f, buf, MiB, size);
	check(r == -EPERM, "read-only client: extending write: %s (want -EPERM)", err_name(r));
	r = striped_truncate(f, 0);
	check(r == -EPERM, "read-only client: truncate: %s (want -EPERM)", err_name(r));
	/* O_CREAT semantics would open it (nothing to create); we only note it */
	r = striped_open(cn.io, argv[1], STRIPED_CREATE, NULL, &g);
	printf("note: read-only client: open of an existing file with STRIPED_CREATE: %s\n",
	       err_name(r));
	striped_close(g);
	g = NULL;
	r = striped_open(cn.io, name2, STRIPED_CREATE, &test_layout, &g);
	check(r == -EPERM, "read-only client: create: %s (want -EPERM)", err_name(r));
	striped_close(g);
	r = striped_remove(cn.io, argv[1]);
	check(r == -EPERM, "read-only client: remove: %s (want -EPERM)", err_name(r));
	striped_close(f);
	f = NULL;
	verify_file(&cn, argv[1], size, seed, "read-only client, after the refused changes");
out:
	striped_close(f);
	free(buf);
	conn_close(&cn);
	return 0;
}

static int cmd_perm_none(int argc, char **argv)
{
	struct striped_file *f = NULL;
	struct conn cn;
	long r;

	if (argc != 2)
		die("usage: perm-none POOL NAME");
	conn_open_or_die(&cn, argv[0]);
	r = striped_open(cn.io, argv[1], 0, NULL, &f);
	check(r == -EPERM, "client without caps on the pool: open: %s (want -EPERM)", err_name(r));
	striped_close(f);
	f = NULL;
	r = striped_open(cn.io, argv[1], STRIPED_CREATE, &test_layout, &f);
	check(r == -EPERM, "client without caps on the pool: create: %s (want -EPERM)",
	      err_name(r));
	striped_close(f);
	r = striped_remove(cn.io, argv[1]);
	check(r == -EPERM, "client without caps on the pool: remove: %s (want -EPERM)",
	      err_name(r));
	conn_close(&cn);
	return 0;
}

/* ---- concurrent extending writes ---- */

#define STRESS_CALLS 48

static int cmd_stress(int argc, char **argv)
{
	struct striped_layout l = {K64, 4, 256 * 1024};
	struct striped_completion *c[STRESS_CALLS];
	size_t chunk = 100003, total;
	uint32_t throttle_ops = 0;
	uint8_t *buf, *rbuf;
	uint64_t rounds;
	int bad_calls = 0, bad_rounds = 0;
	struct conn cn;

	if (argc != 2 && argc != 4 && argc != 5)
		die("usage: stress POOL ROUNDS [CHUNK STRIPE_COUNT [THROTTLE_OPS]]");
	rounds = parse_u64(argv[1]);
	if (argc >= 4) {
		chunk = parse_u64(argv[2]);
		l.stripe_count = parse_u64(argv[3]);
		l.object_size = MiB;
	}
	if (argc == 5)
		throttle_ops = (uint32_t)parse_u64(argv[4]);
	total = (size_t)STRESS_CALLS * chunk;
	conn_open_or_die(&cn, argv[0]);
	buf = xmalloc(total);
	rbuf = xmalloc(total);
	for (uint64_t round = 0; round < rounds; round++) {
		struct striped_file *f;
		char name[64];
		ssize_t n;
		long long bad;
		int r;

		snprintf(name, sizeof(name), "stress-%ld-%" PRIu64, (long)getpid(), round);
		pattern_fill(buf, total, round + 11, 0);
		r = striped_open(cn.io, name, STRIPED_CREATE | STRIPED_EXCL, &l, &f);
		if (r) {
			check(false, "stress round %" PRIu64 ": create: %s", round, err_name(r));
			break;
		}
		if (throttle_ops)
			striped_file_set_throttle(f, throttle_ops, 64 * MiB);
		for (int i = 0; i < STRESS_CALLS; i++) {
			if (striped_completion_create(NULL, NULL, &c[i]))
				die("striped_completion_create failed");
			r = striped_aio_write(f, c[i], buf + (size_t)i * chunk, chunk,
					      (uint64_t)i * chunk);
			if (r)
				die("striped_aio_write refused: %s", err_name(r));
		}
		for (int i = 0; i < STRESS_CALLS; i++) {
			striped_completion_wait(c[i]);
			n = striped_completion_result(c[i]);
			if (n != (ssize_t)chunk) {
				if (bad_calls++ < 5)
					printf("note: round %" PRIu64 " call %d at %zu: %s\n",
					       round, i, (size_t)i * chunk, err_name(n));
			}
			striped_completion_release(c[i]);
		}
		striped_close(f);
		r = striped_open(cn.io, name, 0, NULL, &f);
		n = r ? r : striped_read(f, rbuf, total, 0);
		bad = n == (ssize_t)total ? pattern_check(rbuf, total, round + 11, 0) : -2;
		if (n != (ssize_t)total || bad != -1) {
			if (bad_rounds++ < 5)
				printf("note: round %" PRIu64
				       ": read back %s, first bad byte %lld\n",
				       round, err_name(n), bad);
		}
		striped_close(f);
		striped_remove(cn.io, name);
	}
	check(bad_calls == 0, "stress: %" PRIu64 " x %d concurrent extending aio writes: %d failed",
	      rounds, STRESS_CALLS, bad_calls);
	check(bad_rounds == 0,
	      "stress: %" PRIu64 " files read back: %d differ from what was written", rounds,
	      bad_rounds);
	free(buf);
	free(rbuf);
	conn_close(&cn);
	return 0;
}

/* ---- a killed writer's file ---- */

static const uint8_t *map_file(const char *path, size_t *len)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		die("%s: %s", path, strerror(errno));
	*len = (size_t)st.st_size;
	if (!*len) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		die("mmap %s: %s", path, strerror(errno));
	return p;
}

static int cmd_check_prefix(int argc, char **argv)
{
	const uint8_t *out, *src;
	size_t olen, slen, first_diff, garbage = 0, zeros = 0, exact_below;
	uint64_t bs, blocks;

	if (argc != 4)
		die("usage: check-prefix OUT SRC BS BLOCKS");
	out = map_file(argv[0], &olen);
	src = map_file(argv[1], &slen);
	bs = parse_u64(argv[2]);
	blocks = parse_u64(argv[3]);
	if (!bs)
		die("BS must be > 0");
	check(olen <= slen, "size %zu is at most the %zu bytes written", olen, slen);
	check(olen % bs == 0, "size %zu is a whole number of %" PRIu64 "-byte blocks", olen, bs);
	for (first_diff = 0; first_diff < olen && first_diff < slen; first_diff++)
		if (out[first_diff] != src[first_diff])
			break;
	for (size_t i = first_diff; i < olen && i < slen; i++) {
		if (out[i] == src[i])
			continue;
		if (out[i])
			garbage++;
		else
			zeros++;
	}
	exact_below = olen > blocks * bs ? olen - blocks * bs : 0;
	check(garbage == 0, "no garbage: %zu bytes are neither the data nor zero (%zu zero-filled)",
	      garbage, zeros);
	check(first_diff >= exact_below,
	      "every byte below %zu (size - %" PRIu64 " blocks in flight) is the data (first "
	      "difference at %zu)",
	      exact_below, blocks, first_diff);
	printf("info: size %zu, data prefix %zu bytes, %zu zero bytes past it\n", olen, first_diff,
	       zeros);
	return 0;
}

/* ---- forked siblings: one client address for many processes ---- */

/*
 * A forked child of this process, driven through two pipes: it reads
 * one-word commands and answers one line each ("addr ADDR", "ready",
 * "RESULT SECONDS"). It never touches the parent's connection, and ends
 * with _exit(): librados' state copied from the parent is left alone.
 */
struct sibling {
	pid_t pid;
	int fd;	 /* its answers */
	int cmd; /* our commands */
	char addr[320];
};

struct sibling_io {
	FILE *out;
	FILE *cmds;
};

static void sib_say(struct sibling_io *sio, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sib_say(struct sibling_io *sio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(sio->out, fmt, ap);
	va_end(ap);
	fputc('\n', sio->out);
	fflush(sio->out);
}

/* The next command; "" when the parent is gone. */
static const char *sib_wait(struct sibling_io *sio, char *buf, size_t len)
{
	if (!fgets(buf, (int)len, sio->cmds))
		return "";
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void say_addr(struct sibling_io *sio, struct conn *cn)
{
	char *addrs = NULL;

	if (rados_getaddrs(cn->rados, &addrs) == 0) {
		sib_say(sio, "addr %s", addrs);
		rados_buffer_free(addrs);
	} else {
		sib_say(sio, "addr ?");
	}
}

/*
 * The holder: holds NAME (1 MiB of seed, then a hole up to size when it is
 * larger: objects for a remove to walk), then waits; on "write", writes
 * 1 MiB of seed + 1 at 0.
 */
static void sib_holder(struct sibling_io *sio, struct conn *cn, const char *name, uint64_t seed,
		       uint64_t size)
{
	uint8_t *buf = xmalloc(MiB);
	struct striped_file *f;
	char cmd[32];
	double t0;
	long r;
	int t;

	pattern_fill(buf, MiB, seed, 0);
	r = striped_open(cn->io, name, STRIPED_CREATE | STRIPED_EXCL, &test_layout, &f);
	if (!r)
		r = striped_write(f, buf, MiB, 0);
	if (r == (long)MiB && size > MiB && (t = striped_truncate(f, size)))
		r = t;
	if (r != (long)MiB) {
		sib_say(sio, "failed %s", err_name(r));
		striped_close(f);
		free(buf);
		return;
	}
	striped_file_set_lease(f, STRIPED_LEASE_MAX_SECONDS);
	sib_say(sio, "ready");
	while (*sib_wait(sio, cmd, sizeof(cmd))) {
		if (strcmp(cmd, "write"))
			break;
		pattern_fill(buf, MiB, seed + 1, 0);
		t0 = now();
		r = striped_write(f, buf, MiB, 0);
		sib_say(sio, "%ld %.2f", r, now() - t0);
	}
	striped_close(f);
	free(buf);
}

/* A live sibling: NAME open (so it answers a notify), until told to go. */
static void sib_watcher(struct sibling_io *sio, struct conn *cn, const char *name)
{
	struct striped_file *f;
	char cmd[32];
	int r = striped_open(cn->io, name, 0, NULL, &f);

	if (r) {
		sib_say(sio, "failed %s", err_name(r));
		return;
	}
	sib_say(sio, "ready");
	sib_wait(sio, cmd, sizeof(cmd));
	striped_close(f);
}

/*
 * The breaker: "truncate" truncates NAME to 0, "remove" removes it, "own"
 * writes and removes a file of its own (its connection still works: it did
 * not fence itself); each answers "RESULT SECONDS".
 */
static void sib_breaker(struct sibling_io *sio, struct conn *cn, const char *name)
{
	char cmd[32], probe[300];
	const char *c;

	snprintf(probe, sizeof(probe), "%s-own", name);
	sib_say(sio, "ready");
	while (*(c = sib_wait(sio, cmd, sizeof(cmd)))) {
		struct striped_file *f = NULL;
		double t0 = now();
		int r;

		if (!strcmp(c, "truncate")) {
			r = striped_open(cn->io, name, 0, NULL, &f);
			if (!r)
				r = striped_truncate(f, 0);
			striped_close(f);
		} else if (!strcmp(c, "remove")) {
			r = striped_remove(cn->io, name);
		} else if (!strcmp(c, "own")) {
			r = write_file(cn, probe, MiB, 5);
			if (!r)
				r = striped_remove(cn->io, probe);
		} else {
			break;
		}
		sib_say(sio, "%d %.2f", r, now() - t0);
	}
}

enum sibling_role { SIB_HOLDER, SIB_WATCHER, SIB_BREAKER };

static void sib_main(struct sibling_io *sio, enum sibling_role role, enum connect_how how,
		     const char *pool, const char *name, uint64_t seed, uint64_t size)
{
	struct conn cn;
	int r = conn_open_how(&cn, pool, how);

	if (r) {
		sib_say(sio, "addr ?");
		sib_say(sio, "failed connect %s", err_name(r));
		return;
	}
	say_addr(sio, &cn);
	if (role == SIB_HOLDER)
		sib_holder(sio, &cn, name, seed, size);
	else if (role == SIB_WATCHER)
		sib_watcher(sio, &cn, name);
	else
		sib_breaker(sio, &cn, name);
	conn_close(&cn);
}

/*
 * Its next line, or "" when it ended (or said nothing for 120 s: killed).
 * Read a byte at a time, never buffered ahead of what poll() sees.
 */
static const char *sib_line(struct sibling *s, char *buf, size_t len)
{
	struct pollfd pfd = {s->fd, POLLIN, 0};
	size_t n = 0;

	while (n + 1 < len) {
		char ch;

		if (poll(&pfd, 1, 120000) <= 0) {
			kill(s->pid, SIGKILL);
			break;
		}
		if (read(s->fd, &ch, 1) != 1 || ch == '\n')
			break;
		buf[n++] = ch;
	}
	buf[n] = '\0';
	return buf;
}

static void sib_start(struct sibling *s, enum sibling_role role, enum connect_how how,
		      const char *pool, const char *name, uint64_t seed)
{
	int up[2], down[2];
	char line[320];

	if (pipe(up) || pipe(down))
		die("pipe: %s", strerror(errno));
	fflush(NULL);
	s->pid = fork();
	if (s->pid < 0)
		die("fork: %s", strerror(errno));
	if (s->pid == 0) {
		struct sibling_io sio;

		close(up[0]);
		close(down[1]);
		sio.out = fdopen(up[1], "w");
		sio.cmds = fdopen(down[0], "r");
		sib_main(&sio, role, how, pool, name, seed, 0);
		fflush(sio.out);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	s->fd = up[0];
	s->cmd = down[1];
	sib_line(s, line, sizeof(line));
	snprintf(s->addr, sizeof(s->addr), "%s", strncmp(line, "addr ", 5) ? "?" : line + 5);
}

static void sib_send(struct sibling *s, const char *cmd)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "%s\n", cmd);

	if (write(s->cmd, line, (size_t)n) != n)
		printf("note: sibling %ld did not take '%s'\n", (long)s->pid, cmd);
}

/* A "RESULT SECONDS" answer; false if it said something else. */
static bool sib_result(struct sibling *s, long *r, double *secs)
{
	char line[320];

	return sscanf(sib_line(s, line, sizeof(line)), "%ld %lf", r, secs) == 2;
}

static void sib_end(struct sibling *s)
{
	int status;

	sib_send(s, "exit");
	close(s->cmd);
	kill(s->pid, SIGCONT);
	if (waitpid(s->pid, &status, 0) == s->pid && !(WIFEXITED(status) && !WEXITSTATUS(status)))
		printf("note: sibling %ld ended with status %#x\n", (long)s->pid, status);
	close(s->fd);
}

/* Whether the cluster's blocklist holds addr (the OSD map's, through the monitor). */
static int blocklisted(struct conn *cn, const char *addr)
{
	const char *cmd[] = {"{\"prefix\": \"osd blocklist ls\", \"format\": \"json\"}"};
	char *outbuf = NULL, *outs = NULL, quoted[300];
	size_t outlen = 0, outslen = 0;
	int r = rados_mon_command(cn->rados, cmd, 1, "", 0, &outbuf, &outlen, &outs, &outslen);

	snprintf(quoted, sizeof(quoted), "\"%s\"", addr);
	if (r == 0)
		r = outbuf && memmem(outbuf, outlen, quoted, strlen(quoted)) ? 1 : 0;
	rados_buffer_free(outbuf);
	rados_buffer_free(outs);
	return r;
}

/* Whether this connection still reaches the OSDs (a blocklisted one gets -EBLOCKLISTED). */
static int conn_alive(struct conn *cn, const char *name)
{
	struct striped_file *f;
	int r = striped_open(cn->io, name, STRIPED_CREATE | STRIPED_EXCL, &test_layout, &f);

	if (r)
		return r;
	striped_close(f);
	return striped_remove(cn->io, name);
}

static bool stopped(pid_t pid)
{
	int status;

	return kill(pid, SIGSTOP) == 0 && waitpid(pid, &status, WUNTRACED) == pid &&
	       WIFSTOPPED(status);
}

/* How many of NAME's first n objects exist. */
static int objects_left(struct conn *cn, const char *name, int n)
{
	char oid[300];
	int left = 0;

	for (int i = 0; i < n; i++) {
		uint64_t size;
		time_t mtime;

		striped_object_name(name, (uint64_t)i, oid, sizeof(oid));
		left += rados_stat(cn->io, oid, &size, &mtime) == 0;
	}
	return left;
}

static const char *how_name(enum connect_how how)
{
	return how == CONNECT_PLAIN ? "rados_connect" : "striped_cluster_connect";
}

/*
 * One case: this process used librados, then forked a holder A (stopped
 * once it holds NAME), a breaker B that truncates and removes NAME, and
 * maybe a live sibling C with NAME open, connected as A is. If A's address
 * is B's or C's, nothing may be blocklisted and B gets -ENOTUNIQ; else A
 * alone is fenced. Either way no one else loses its connection.
 */
static void fork_case(struct conn *p, const char *p_addr, const char *pool, const char *name,
		      enum connect_how holder_how, enum connect_how breaker_how, bool live)
{
	struct sibling a, b, c;
	bool shared;
	long tr = 1, rm = 1, own = 1, wr = 1;
	double t_tr = 0, t_rm = 0, t_wr = 0, secs;
	char line[320], probe[320];
	uint64_t seed = 61;
	int bl_a, bl_b, r;

	printf("info: case %s: holder %s, breaker %s%s\n", name, how_name(holder_how),
	       how_name(breaker_how), live ? ", a live sibling connected as the holder" : "");
	sib_start(&a, SIB_HOLDER, holder_how, pool, name, seed);
	if (strcmp(sib_line(&a, line, sizeof(line)), "ready")) {
		check(false, "%s: holder ready: %s", name, line);
		sib_end(&a);
		return;
	}
	if (live) {
		sib_start(&c, SIB_WATCHER, holder_how, pool, name, 0);
		check(!strcmp(sib_line(&c, line, sizeof(line)), "ready"), "%s: live sibling: %s",
		      name, line);
	}
	sib_start(&b, SIB_BREAKER, breaker_how, pool, name, 0);
	check(!strcmp(sib_line(&b, line, sizeof(line)), "ready"), "%s: breaker ready: %s", name,
	      line);
	shared = !strcmp(a.addr, b.addr) || (live && !strcmp(a.addr, c.addr));
	printf("info: %s: addresses: parent %s, holder %s, breaker %s%s%s\n", name, p_addr, a.addr,
	       b.addr, live ? ", sibling " : "", live ? c.addr : "");
	if (holder_how == CONNECT_OWN_THREAD)
		check(strcmp(a.addr, p_addr) && strcmp(a.addr, b.addr),
		      "%s: striped_cluster_connect gave the holder an address of its own", name);
	if (breaker_how == CONNECT_OWN_THREAD)
		check(strcmp(b.addr, p_addr),
		      "%s: striped_cluster_connect gave the breaker an address of its own", name);
	check(stopped(a.pid), "%s: holder stopped (SIGSTOP)", name);
	sib_send(&b, "truncate");
	sib_send(&b, "remove");
	sib_send(&b, "own");
	if (!sib_result(&b, &tr, &t_tr) || !sib_result(&b, &rm, &t_rm) ||
	    !sib_result(&b, &own, &secs))
		check(false, "%s: breaker answered", name);
	bl_a = blocklisted(p, a.addr);
	bl_b = blocklisted(p, b.addr);
	kill(a.pid, SIGCONT);
	sib_send(&a, "write");
	if (!sib_result(&a, &wr, &t_wr))
		check(false, "%s: holder answered its write after SIGCONT", name);
	snprintf(probe, sizeof(probe), "%s-parent", name);
	r = conn_alive(p, probe);
	check(own == 0, "%s: the breaker's own connection works after: %s", name, err_name(own));
	check(r == 0, "%s: the parent's connection (it used librados before the forks) works: %s",
	      name, err_name(r));
	if (shared) {
		check(tr == -ENOTUNIQ && rm == -ENOTUNIQ,
		      "%s: the holder's address is another live client's: truncate %s (%.2f s), "
		      "remove %s (%.2f s) (want -ENOTUNIQ)",
		      name, err_name(tr), t_tr, err_name(rm), t_rm);
		check(bl_a == 0, "%s: the shared address is not blocklisted (%d)", name, bl_a);
		check(wr == (long)MiB,
		      "%s: the stopped holder, continued, still writes: %s (it was never fenced)",
		      name, err_name(wr));
		sib_end(&a);
		verify_file(p, name, MiB, seed + 1, "after the refused break");
		secs = now();
		r = striped_remove(p->io, name);
		check(r == 0, "%s: remove once the holder closed: %s (%.2f s)", name, err_name(r),
		      now() - secs);
	} else {
		check(tr == 0 && rm == 0,
		      "%s: the stopped holder fenced: truncate %s (%.2f s), remove %s (%.2f s)",
		      name, err_name(tr), t_tr, err_name(rm), t_rm);
		check(bl_a == 1 && bl_b == 0,
		      "%s: the holder's address is blocklisted (%d), the breaker's not (%d)", name,
		      bl_a, bl_b);
		check(wr < 0 && t_wr < 30,
		      "%s: the fenced holder's write after SIGCONT: %s after %.2f s (an error)",
		      name, err_name(wr), t_wr);
		sib_end(&a);
		r = objects_left(p, name, 4);
		check(r == 0,
		      "%s: no object of the removed file after the fenced holder's write (%d left)",
		      name, r);
	}
	if (live)
		sib_end(&c);
	sib_end(&b);
}

/*
 * sibling holder|watcher|breaker POOL NAME [SEED [SIZE]]: one sibling of
 * fork-siblings, connected with striped_cluster_connect, driven through
 * stdin and stdout by a script.
 */
static int cmd_sibling(int argc, char **argv)
{
	static const char *const roles[] = {"holder", "watcher", "breaker"};
	struct sibling_io sio = {stdout, stdin};

	if (argc < 3 || argc > 5)
		die("usage: sibling holder|watcher|breaker POOL NAME [SEED [SIZE]]");
	for (int i = 0; i < 3; i++)
		if (!strcmp(argv[0], roles[i])) {
			sib_main(&sio, (enum sibling_role)i, CONNECT_OWN_THREAD, argv[1], argv[2],
				 argc >= 4 ? parse_u64(argv[3]) : 0,
				 argc == 5 ? parse_u64(argv[4]) : 0);
			return 0;
		}
	die("unknown role %s", argv[0]);
}

/*
 * fork-siblings POOL NAME: this process connects first (rados_connect),
 * then each case forks its siblings (see fork_case): both connected with
 * rados_connect (one address: the breaker's own), the breaker with
 * striped_cluster_connect but a live sibling sharing the holder's, and
 * both with striped_cluster_connect (fenced as usual).
 */
static int cmd_fork_siblings(int argc, char **argv)
{
	static const struct {
		const char *suffix;
		enum connect_how holder, breaker;
		bool live;
	} cases[] = {
	    {"self", CONNECT_PLAIN, CONNECT_PLAIN, false},
	    {"sibling", CONNECT_PLAIN, CONNECT_OWN_THREAD, true},
	    {"own", CONNECT_OWN_THREAD, CONNECT_OWN_THREAD, false},
	};
	char name[300], *addrs = NULL, p_addr[256] = "?";
	struct conn p;

	if (argc != 2)
		die("usage: fork-siblings POOL NAME");
	conn_open_or_die(&p, argv[0]);
	if (rados_getaddrs(p.rados, &addrs) == 0) {
		snprintf(p_addr, sizeof(p_addr), "%s", addrs);
		rados_buffer_free(addrs);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "%s-%s", argv[1], cases[i].suffix);
		fork_case(&p, p_addr, argv[0], name, cases[i].holder, cases[i].breaker,
			  cases[i].live);
	}
	conn_close(&p);
	return 0;
}

/* ---- a holder cut off from the cluster ---- */

/*
 * The holder writes NAME-t and NAME-r, PART_WINDOW calls in flight, each
 * PART_CALL bytes of its pattern at an offset cycling over PART_SPAN, until
 * a call fails (or PART_SECONDS pass); the driver cuts its traffic off
 * meanwhile. Layout 1 MiB x 4, 4 MiB objects: PART_SPAN is 8 objects.
 */
#define PART_CALL (4 * MiB)
#define PART_SPAN (32 * MiB)
#define PART_WINDOW 4
#define PART_MAX_CALLS 4096
#define PART_SECONDS 120
#define PART_BREAKER_SIZE (16 * MiB)

static const struct striped_layout part_layout = {MiB, 4, 4 * MiB};

struct part_call {
	struct striped_completion *c;
	uint64_t start_ns;
	uint64_t done_ns;
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Completion callback: only record when. */
static void part_done(struct striped_completion *c, void *arg)
{
	(void)c;
	((struct part_call *)arg)->done_ns = realtime_ns();
}

static void part_name(char *buf, size_t len, const char *name, int file)
{
	snprintf(buf, len, "%s-%c", name, file ? 'r' : 't');
}

/* Call i's offset: calls alternate between the files, cycling over PART_SPAN. */
static uint64_t part_offset(int i)
{
	return (uint64_t)((uint64_t)(i / 2) * PART_CALL % PART_SPAN);
}

/* Wait for call i; its result. */
static ssize_t part_reap(struct part_call *calls, int i)
{
	striped_completion_wait(calls[i].c);
	return striped_completion_result(calls[i].c);
}

/*
 * part-holder POOL NAME SEED: prints "addr ADDR" and "ready" once both
 * files hold 8 MiB, then writes until a call fails; at the end one line per
 * call: "call I FILE OFFSET RESULT DONE_NS START_NS" (CLOCK_REALTIME at
 * completion and at submission).
 */
static int cmd_part_holder(int argc, char **argv)
{
	static struct part_call calls[PART_MAX_CALLS];
	struct striped_file *f[2] = {NULL, NULL};
	uint8_t *span = xmalloc(PART_SPAN);
	char name[300], *addrs = NULL;
	uint64_t seed;
	double t_end;
	bool stop = false;
	struct conn cn;
	int i = 0, r = 0;

	if (argc != 3)
		die("usage: part-holder POOL NAME SEED");
	seed = parse_u64(argv[2]);
	pattern_fill(span, PART_SPAN, seed, 0);
	if (conn_open_how(&cn, argv[0], CONNECT_OWN_THREAD))
		die("cannot connect");
	for (int k = 0; k < 2 && !r; k++) {
		part_name(name, sizeof(name), argv[1], k);
		r = striped_open(cn.io, name, STRIPED_CREATE | STRIPED_EXCL, &part_layout, &f[k]);
		if (!r && striped_write(f[k], span, 8 * MiB, 0) != (ssize_t)(8 * MiB))
			r = -EIO;
	}
	if (r)
		die("cannot write %s: %s", name, err_name(r));
	if (rados_getaddrs(cn.rados, &addrs) == 0) {
		printf("addr %s\n", addrs);
		rados_buffer_free(addrs);
	}
	printf("ready\n");
	fflush(stdout);
	t_end = now() + PART_SECONDS;
	for (; !stop && i < PART_MAX_CALLS && now() < t_end; i++) {
		uint64_t off = part_offset(i);

		if (i >= PART_WINDOW && part_reap(calls, i - PART_WINDOW) < 0)
			stop = true;
		if (striped_completion_create(part_done, &calls[i], &calls[i].c))
			die("striped_completion_create failed");
		calls[i].start_ns = realtime_ns();
		r = striped_aio_write(f[i % 2], calls[i].c, span + off, PART_CALL, off);
		if (r) {
			/* Refused at once: its result is the refusal. */
			calls[i].done_ns = realtime_ns();
			printf("call %d %d %" PRIu64 " %d %" PRIu64 " %" PRIu64 "\n", i, i % 2, off,
			       r, calls[i].done_ns, calls[i].start_ns);
			striped_completion_release(calls[i].c);
			calls[i].c = NULL;
			stop = true;
		}
	}
	for (int k = 0; k < i; k++) {
		ssize_t res;

		if (!calls[k].c)
			continue;
		res = part_reap(calls, k); /* before reading done_ns, which its callback sets */
		printf("call %d %d %" PRIu64 " %zd %" PRIu64 " %" PRIu64 "\n", k, k % 2,
		       part_offset(k), res, calls[k].done_ns, calls[k].start_ns);
		striped_completion_release(calls[k].c);
	}
	fflush(stdout);
	for (int k = 0; k < 2; k++)
		striped_close(f[k]);
	free(span);
	conn_close(&cn);
	return 0;
}

/*
 * part-break POOL NAME SEED: truncates NAME-t to 0 and writes
 * PART_BREAKER_SIZE bytes of SEED into it, removes NAME-r; one line each.
 */
static int cmd_part_break(int argc, char **argv)
{
	uint8_t *buf = xmalloc(PART_BREAKER_SIZE);
	struct striped_file *f = NULL;
	char name[300];
	struct conn cn;
	double t0;
	long r;

	if (argc != 3)
		die("usage: part-break POOL NAME SEED");
	pattern_fill(buf, PART_BREAKER_SIZE, parse_u64(argv[2]), 0);
	if (conn_open_how(&cn, argv[0], CONNECT_OWN_THREAD))
		die("cannot connect");
	part_name(name, sizeof(name), argv[1], 0);
	t0 = now();
	r = striped_open(cn.io, name, 0, NULL, &f);
	if (!r)
		r = striped_truncate(f, 0);
	check(r == 0, "truncate %s to 0: %s after %.2f s", name, err_name(r), now() - t0);
	if (!r)
		r = striped_write(f, buf, PART_BREAKER_SIZE, 0);
	check(r == (long)PART_BREAKER_SIZE, "write %s: %s", name, err_name(r));
	striped_close(f);
	part_name(name, sizeof(name), argv[1], 1);
	t0 = now();
	r = striped_remove(cn.io, name);
	check(r == 0, "remove %s: %s after %.2f s", name, err_name(r), now() - t0);
	free(buf);
	conn_close(&cn);
	return 0;
}

/*
 * part-verify POOL NAME SEED: NAME-t holds exactly the breaker's bytes and
 * no object past them, NAME-r is gone, no object of it left.
 */
static int cmd_part_verify(int argc, char **argv)
{
	const int objects = PART_SPAN / (4 * MiB);
	char name[300];
	struct conn cn;
	int left;

	if (argc != 3)
		die("usage: part-verify POOL NAME SEED");
	conn_open_or_die(&cn, argv[0]);
	part_name(name, sizeof(name), argv[1], 0);
	verify_file(&cn, name, PART_BREAKER_SIZE, parse_u64(argv[2]), "after the partition healed");
	left = objects_left(&cn, name, objects) - (int)(PART_BREAKER_SIZE / (4 * MiB));
	check(left == 0, "%s: %d objects past the breaker's %llu MiB", name, left,
	      (unsigned long long)(PART_BREAKER_SIZE / MiB));
	part_name(name, sizeof(name), argv[1], 1);
	left = objects_left(&cn, name, objects);
	check(left == 0, "%s: removed, %d of its objects left", name, left);
	conn_close(&cn);
	return 0;
}

/* ---- main ---- */

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
    {"write", cmd_write},
    {"verify", cmd_verify},
    {"rm", cmd_rm},
    {"pause", cmd_pause},
    {"full", cmd_full},
    {"perm-ro", cmd_perm_ro},
    {"perm-none", cmd_perm_none},
    {"stress", cmd_stress},
    {"check-prefix", cmd_check_prefix},
    {"fork-siblings", cmd_fork_siblings},
    {"sibling", cmd_sibling},
    {"part-holder", cmd_part_holder},
    {"part-break", cmd_part_break},
    {"part-verify", cmd_part_verify},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--id"))
			opt.id = argv[i + 1];
		else if (!strcmp(argv[i], "--keyring"))
			opt.keyring = argv[i + 1];
		else if (!strcmp(argv[i], "--timeout"))
			opt.timeout = (unsigned int)parse_u64(argv[i + 1]);
		else if (!strcmp(argv[i], "--slack"))
			opt.slack = strtod(argv[i + 1], NULL);
		else
			die("unknown option %s", argv[i]);
	}
	if (i >= argc)
		die("usage: fault_client [--id ID] [--keyring PATH] [--timeout S] [--slack S] "
		    "COMMAND ARGS...");
	for (const struct command *c = commands; c->name; c++) {
		if (strcmp(c->name, argv[i]))
			continue;
		c->fn(argc - i - 1, argv + i + 1);
		return failures ? 1 : 0;
	}
	die("unknown command %s", argv[i]);
}
