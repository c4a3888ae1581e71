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
#include <sys/mman.h>
#include <sys/stat.h>
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

static int conn_open(struct conn *cn, const char *pool)
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
		r = rados_connect(cn->rados);
	if (!r)
		r = rados_ioctx_create(cn->rados, pool, &cn->io);
	if (r < 0)
		rados_shutdown(cn->rados);
	return r;
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
