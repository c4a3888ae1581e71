// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every call that waits on the cluster returns -ETIMEDOUT, never hangs,
 * when the OSDs of its file's placement groups stop answering, with an op
 * timeout set (striped_cluster_set_op_timeout(), 2 s here): every OSD of
 * the cluster is stopped (SIGSTOP; their pids are the ones scripts/cluster
 * records) while each call runs in a thread of its own, on
 * a file and handle of its own, all started together. Three phases, as a
 * handle's lock may be when the OSDs stop: held (a long lease), let go of
 * (idle past its lease), and being let go of (the idler's unlock in
 * flight when the calls start, so they wait behind it).
 *
 * The OSDs are continued (SIGCONT) after each phase, also when a check
 * failed: by the test, and by a guard process forked before librados is
 * used, which continues them when the test dies however it dies (its pipe
 * from the test closes). Each phase ends once the cluster is healthy again
 * (every PG active+clean, a probe object written, read and removed), and
 * the files are removed, so later tests find the cluster as it was.
 *
 * It runs only on a cluster of its own (tests/faults/timeouts.sh starts one and
 * sets STRIPED_TIMEOUTS_OWN_CLUSTER): never one others share. What it
 * asserts is the result (-ETIMEDOUT), that every call returns while the
 * OSDs are still stopped (they stay so up to STOP_MAX_NS), and that none
 * waits the op timeout three times over (CHAINED_NS): a call that waits
 * for another's round trip and then sends its own waits it twice, and
 * calls sharing a handle that did so queued up (measured before the fix:
 * up to 21 s for 2 s, ten calls on one handle). Each call's time is
 * printed against the op timeout + 1 s, not asserted (a loaded host would
 * fail that for no fault of the library; they take 2.0 s here).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "cluster_fixture.h"
#include "striped.h"

#define KiB 1024ull
#define MiB (1ull << 20)
#define NS 1000000000ull
#define MS 1000000ull
#define OP_TIMEOUT_S 2
/* What the calls keep to (printed): the op timeout + 1 s. */
#define BOUND_NS ((OP_TIMEOUT_S + 1) * NS)
/* A call that took this long waited for the op timeout over and over (see above). */
#define CHAINED_NS (3 * OP_TIMEOUT_S * NS)
/* How long the OSDs stay stopped at most: a call not back by then hangs. */
#define STOP_MAX_NS (30 * NS)
#define MAX_OSDS 16
#define FILE_SIZE (2 * MiB)

/* 64 KiB units over 2 objects of 256 KiB: a small file spans a few PGs. */
static const struct striped_layout layout = {64 * KiB, 2, 256 * KiB};

/* ---- the OSDs: stopped and continued, by the pids scripts/cluster records ---- */

static pid_t osd_pids[MAX_OSDS];
static int nosds;
static int guard_fd = -1;
static pid_t guard_pid;

static bool is_osd(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	if (!fgets(comm, sizeof(comm), fp))
		comm[0] = 0;
	fclose(fp);
	return !strcmp(comm, "ceph-osd\n");
}

/* $STRIPED_CLUSTER_DIR/pid/osd.*.pid, or beside CEPH_CONF (scripts/cluster's layout). */
static void read_osd_pids(void)
{
	const char *dir = getenv("STRIPED_CLUSTER_DIR");
	char conf[4096], piddir[4200];
	struct dirent *e;
	DIR *d;

	snprintf(conf, sizeof(conf), "%s", getenv("CEPH_CONF"));
	snprintf(piddir, sizeof(piddir), "%s/pid", dir && *dir ? dir : dirname(conf));
	d = opendir(piddir);
	while (d && (e = readdir(d)) && nosds < MAX_OSDS) {
		char path[4500];
		FILE *fp;
		int pid;

		if (strncmp(e->d_name, "osd.", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", piddir, e->d_name);
		fp = fopen(path, "r");
		if (fp && fscanf(fp, "%d", &pid) == 1 && is_osd(pid))
			osd_pids[nosds++] = pid;
		if (fp)
			fclose(fp);
	}
	if (d)
		closedir(d);
	if (!nosds) {
		char why[4400];

		snprintf(why, sizeof(why), "no running OSD recorded in %s: not scripts/cluster's",
			 piddir);
		cluster_skip(why);
	}
}

static void osds_signal(int sig)
{
	for (int i = 0; i < nosds; i++)
		if (is_osd(osd_pids[i]))
			kill(osd_pids[i], sig);
}

/* Whether every thread of pid is stopped ('T' in /proc/PID/task/TID/stat). */
static bool all_stopped(pid_t pid)
{
	char path[64];
	struct dirent *e;
	bool stopped = true;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && stopped && (e = readdir(d))) {
		char stat[384], buf[512] = "";
		const char *paren;
		FILE *fp;

		if (e->d_name[0] == '.')
			continue;
		snprintf(stat, sizeof(stat), "%s/%s/stat", path, e->d_name);
		fp = fopen(stat, "r");
		if (fp && !fgets(buf, sizeof(buf), fp))
			buf[0] = 0;
		if (fp)
			fclose(fp);
		paren = strrchr(buf, ')');
		stopped = !paren || paren[1] != ' ' || paren[2] == 'T' || paren[2] == 't';
	}
	if (d)
		closedir(d);
	return stopped;
}

/*
 * SIGSTOP, then wait until every thread of every OSD stopped: kill()
 * returns before a busy process is stopped, and a call started meanwhile
 * could still be answered.
 */
static void osds_stop(void)
{
	uint64_t until = realtime_ns() + 5 * NS;

	osds_signal(SIGSTOP);
	for (int i = 0; i < nosds && realtime_ns() < until; i++)
		while (!all_stopped(osd_pids[i]) && realtime_ns() < until)
			usleep(1000);
}

/*
 * Forked before librados starts a thread: waits for the test's end (its
 * pipe closes, whatever killed the test) and continues the OSDs.
 */
static void guard_start(void)
{
	int p[2];
	char c;

	if (pipe2(p, O_CLOEXEC))
		fail_msg("pipe2: %s", strerror(errno));
	guard_pid = fork();
	if (guard_pid < 0)
		fail_msg("fork: %s", strerror(errno));
	if (guard_pid == 0) {
		close(p[1]);
		while (read(p[0], &c, 1) > 0)
			;
		osds_signal(SIGCONT);
		_exit(0);
	}
	close(p[0]);
	guard_fd = p[1];
}

static void guard_stop(void)
{
	close(guard_fd);
	waitpid(guard_pid, NULL, 0);
}

/* ---- the cluster healthy again ---- */

static int pgs_clean(rados_t r)
{
	const char *cmd[] = {"{\"prefix\": \"pg stat\", \"format\": \"json\"}"};
	char *out = NULL, *outs = NULL;
	size_t outlen = 0, outslen = 0;
	unsigned long long total = 0, clean = 0;
	int ret = rados_mon_command(r, cmd, 1, "", 0, &out, &outlen, &outs, &outslen);
	const char *p;

	if (!ret && out) {
		p = strstr(out, "\"num_pgs\":");
		if (p)
			total = strtoull(p + 10, NULL, 10);
		p = strstr(out, "\"active+clean\",\"num\":");
		if (p)
			clean = strtoull(p + 21, NULL, 10);
	}
	rados_buffer_free(out);
	rados_buffer_free(outs);
	return !ret && total && clean == total;
}

/* Every PG active+clean and a probe object round-trips, within 60 s. */
static void wait_healthy(void)
{
	uint64_t until = realtime_ns() + 60 * NS;
	char probe[64], back[8];

	snprintf(probe, sizeof(probe), "t-timeouts-probe-%d", (int)getpid());
	while (realtime_ns() < until) {
		if (pgs_clean(cl.rados) && rados_write_full(cl.io, probe, "probe", 5) == 0 &&
		    rados_read(cl.io, probe, back, sizeof(back), 0) == 5 &&
		    rados_remove(cl.io, probe) == 0)
			return;
		usleep(200000);
	}
	fail_msg("the cluster is not healthy 60 s after the OSDs were continued");
}

/* ---- the calls ---- */

/* One call under test, on its own file and handle, in its own thread. */
struct tctx {
	const struct tcase *tc;
	struct striped_file *f;
	char name[64];
	uint8_t *buf;
	long result;
	uint64_t began_ns, ended_ns; /* the call's span, unless the case sets its own */
	bool spanned;		     /* it did */
	bool done;
	pthread_t th;
};

struct tcase {
	const char *what;
	int open_flags; /* a handle opened beforehand with these (-1: none) */
	long (*call)(struct tctx *t);
	bool any_result;       /* close: only the time counts (it returns void, or 0) */
	uint32_t throttle_ops; /* the handle's throttle, when not 0 */
	bool shared;	       /* on the one handle several calls share, not one of its own */
};

static rados_t tcl; /* the client under test: op timeout set */
static rados_ioctx_t tio;

static long aio_wait(struct striped_completion *c, int r)
{
	long res = r;

	if (!r) {
		striped_completion_wait(c);
		res = striped_completion_result(c);
	}
	striped_completion_release(c);
	return res;
}

static struct striped_completion *completion(void)
{
	struct striped_completion *c;

	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	return c;
}

static long c_open(struct tctx *t)
{
	struct striped_file *f = NULL;
	long r = striped_open(tio, t->name, 0, NULL, &f);

	striped_close(f);
	return r;
}

static long c_create(struct tctx *t)
{
	struct striped_file *f = NULL;
	long r;

	strcat(t->name, "-new");
	r = striped_open(tio, t->name, STRIPED_CREATE, &layout, &f);
	striped_close(f);
	return r;
}

static long c_stat(struct tctx *t)
{
	uint64_t size;

	return striped_stat(t->f, &size, NULL);
}

static long c_fstat(struct tctx *t)
{
	struct striped_stat st;

	return striped_fstat(t->f, &st, sizeof(st));
}

static long c_read(struct tctx *t)
{
	return striped_read(t->f, t->buf, MiB, 0);
}

static long c_write(struct tctx *t)
{
	return striped_write(t->f, t->buf, MiB, 0);
}

static long c_write_grow(struct tctx *t)
{
	return striped_write(t->f, t->buf, MiB, FILE_SIZE);
}

/* 4 MiB through a throttle of 2 operations: the call waits behind its own. */
static long c_write_throttled(struct tctx *t)
{
	return striped_write(t->f, t->buf, 4 * MiB, 0);
}

static uint64_t mono_ns(void);

/* A write whose throttle another call of the handle holds, all of it: timed alone. */
static long c_write_behind(struct tctx *t)
{
	struct striped_completion *c = completion();
	int r = striped_aio_write(t->f, c, t->buf, 2 * MiB, 0);
	long res;

	usleep(200000);
	t->began_ns = mono_ns();
	res = striped_write(t->f, t->buf + 2 * MiB, 64 * KiB, 0);
	t->ended_ns = mono_ns();
	t->spanned = true;
	aio_wait(c, r);
	return res;
}

static long c_aio_write(struct tctx *t)
{
	struct striped_completion *c = completion();

	return aio_wait(c, striped_aio_write(t->f, c, t->buf, MiB, 0));
}

static long c_aio_read(struct tctx *t)
{
	struct striped_completion *c = completion();

	return aio_wait(c, striped_aio_read(t->f, c, t->buf, MiB, 0));
}

static long c_aio_stat(struct tctx *t)
{
	struct striped_completion *c = completion();
	static uint64_t size;

	return aio_wait(c, striped_aio_stat(t->f, c, &size));
}

static long c_truncate(struct tctx *t)
{
	return striped_truncate(t->f, MiB);
}

static long c_remove(struct tctx *t)
{
	return striped_remove(tio, t->name);
}

static long c_close(struct tctx *t)
{
	long r = striped_close2(t->f);

	t->f = NULL;
	return r;
}

/* A buffered handle's flush: its window goes out, and its write-behind's error comes back. */
static long c_flush(struct tctx *t)
{
	return striped_flush(t->f);
}

static long c_aio_flush(struct tctx *t)
{
	struct striped_completion *c = completion();

	return aio_wait(c, striped_aio_flush(t->f, c));
}

static long c_setxattr(struct tctx *t)
{
	return striped_setxattr(t->f, "user.a", "b", 1);
}

static long c_getxattr(struct tctx *t)
{
	char v[8];

	return striped_getxattr(t->f, "user.a", v, sizeof(v));
}

static long c_rmxattr(struct tctx *t)
{
	return striped_rmxattr(t->f, "user.a");
}

static long c_getxattrs(struct tctx *t)
{
	struct striped_xattrs *it = NULL;
	long r = striped_getxattrs(t->f, &it);

	striped_getxattrs_end(it);
	return r;
}

static long c_append(struct tctx *t)
{
	return striped_append(t->f, t->buf, 64 * KiB);
}

static long c_discard(struct tctx *t)
{
	return striped_discard(t->f, 0, MiB);
}

static long c_head_read(struct tctx *t)
{
	struct striped_head h;

	return striped_head_read(tio, t->name, &h, sizeof(h));
}

static long c_lockers(struct tctx *t)
{
	struct striped_lockers *it = NULL;
	long r = striped_lockers_open(tio, t->name, &it);

	striped_lockers_close(it);
	return r;
}

static long c_aio_open(struct tctx *t)
{
	struct striped_completion *c = completion();
	struct striped_file *f = NULL;
	long r = aio_wait(c, striped_aio_open(tio, c, t->name, 0, NULL, &f));

	striped_close(f);
	return r;
}

static long c_aio_remove(struct tctx *t)
{
	struct striped_completion *c = completion();

	return aio_wait(c, striped_aio_remove(tio, c, t->name));
}

static const struct tcase cases[] = {
    {.what = "open", .open_flags = -1, .call = c_open},
    {.what = "open (create)", .open_flags = -1, .call = c_create},
    {.what = "aio_open", .open_flags = -1, .call = c_aio_open},
    {.what = "stat", .open_flags = 0, .call = c_stat},
    {.what = "fstat", .open_flags = 0, .call = c_fstat},
    {.what = "read", .open_flags = 0, .call = c_read},
    {.what = "write", .open_flags = 0, .call = c_write},
    {.what = "write (growing)", .open_flags = 0, .call = c_write_grow},
    {.what = "write (throttle of 2 operations)",
     .open_flags = 0,
     .call = c_write_throttled,
     .throttle_ops = 2},
    {.what = "write behind an aio_write holding the throttle",
     .open_flags = 0,
     .call = c_write_behind,
     .throttle_ops = 2},
    {.what = "aio_write", .open_flags = 0, .call = c_aio_write},
    {.what = "aio_read", .open_flags = 0, .call = c_aio_read},
    {.what = "aio_stat", .open_flags = 0, .call = c_aio_stat},
    {.what = "truncate", .open_flags = 0, .call = c_truncate},
    {.what = "remove", .open_flags = -1, .call = c_remove},
    {.what = "aio_remove", .open_flags = -1, .call = c_aio_remove},
    {.what = "close", .open_flags = 0, .call = c_close, .any_result = true},
    {.what = "flush (buffered)", .open_flags = STRIPED_BUFFERED, .call = c_flush},
    {.what = "aio_flush (buffered)", .open_flags = STRIPED_BUFFERED, .call = c_aio_flush},
    {.what = "close (buffered)", .open_flags = STRIPED_BUFFERED, .call = c_close},
    {.what = "setxattr", .open_flags = 0, .call = c_setxattr},
    {.what = "getxattr", .open_flags = 0, .call = c_getxattr},
    {.what = "rmxattr", .open_flags = 0, .call = c_rmxattr},
    {.what = "getxattrs", .open_flags = 0, .call = c_getxattrs},
    {.what = "append", .open_flags = 0, .call = c_append},
    {.what = "discard", .open_flags = 0, .call = c_discard},
    {.what = "head_read", .open_flags = -1, .call = c_head_read},
    {.what = "lockers_open", .open_flags = -1, .call = c_lockers},
    /* Calls together on one handle: they wait for each other's lock round trips. */
    {.what = "shared handle: stat", .open_flags = 0, .call = c_stat, .shared = true},
    {.what = "shared handle: read", .open_flags = 0, .call = c_read, .shared = true},
    {.what = "shared handle: write", .open_flags = 0, .call = c_write, .shared = true},
    {.what = "shared handle: aio_write", .open_flags = 0, .call = c_aio_write, .shared = true},
    {.what = "shared handle: setxattr", .open_flags = 0, .call = c_setxattr, .shared = true},
    {.what = "shared handle: append", .open_flags = 0, .call = c_append, .shared = true},
    {.what = "shared handle: discard", .open_flags = 0, .call = c_discard, .shared = true},
    {.what = "shared handle: truncate", .open_flags = 0, .call = c_truncate, .shared = true},
    {.what = "shared handle: fstat", .open_flags = 0, .call = c_fstat, .shared = true},
    {.what = "shared handle: getxattr", .open_flags = 0, .call = c_getxattr, .shared = true},
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* ---- a phase: prepare every case, stop the OSDs, run the calls together ---- */

static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static bool go;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

static void *call_main(void *arg)
{
	struct tctx *t = arg;

	pthread_mutex_lock(&go_lock);
	while (!go)
		pthread_cond_wait(&go_cond, &go_lock);
	pthread_mutex_unlock(&go_lock);
	uint64_t began_ns = mono_ns();
	long result = t->tc->call(t);
	uint64_t ended_ns = mono_ns();

	t->result = result;
	if (!t->spanned) {
		t->began_ns = began_ns;
		t->ended_ns = ended_ns;
	}
	pthread_mutex_lock(&go_lock);
	t->done = true;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
	return NULL;
}

/* A file written through the other client, with an xattr. */
static void make_file(struct tctx *t)
{
	struct striped_file *f;

	unique_name(t->name, sizeof(t->name), "timeouts");
	assert_int_equal(striped_open(cl.io, t->name, STRIPED_CREATE | STRIPED_EXCL, &layout, &f),
			 0);
	assert_int_equal(striped_write(f, t->buf, FILE_SIZE, 0), (ssize_t)FILE_SIZE);
	assert_int_equal(striped_setxattr(f, "user.a", "b", 1), 0);
	striped_close(f);
}

/* The case's file and handle (or the shared one, opened last: the idler lets go of it first). */
static void prepare(struct tctx *t, const struct tcase *tc, unsigned lease_s,
		    struct striped_file *shared)
{
	struct striped_buffer_config bc = STRIPED_BUFFER_CONFIG_INIT;

	memset(t, 0, sizeof(*t));
	t->tc = tc;
	t->buf = malloc(4 * MiB + 64 * KiB);
	assert_non_null(t->buf);
	pattern_fill(t->buf, 4 * MiB + 64 * KiB, 3, 0);
	if (tc->shared) {
		t->f = shared;
		return;
	}
	make_file(t);
	if (tc->open_flags < 0)
		return;
	assert_int_equal(striped_open(tio, t->name, tc->open_flags, NULL, &t->f), 0);
	assert_int_equal(striped_file_set_lease(t->f, lease_s), 0);
	if (tc->throttle_ops)
		assert_int_equal(striped_file_set_throttle(t->f, tc->throttle_ops, 1ull << 30), 0);
	if (tc->open_flags & STRIPED_BUFFERED) {
		/* Kept in the window until the call sends it. */
		bc.dirty_age_ms = 60000;
		assert_int_equal(striped_file_set_buffer(t->f, &bc, sizeof(bc)), 0);
		assert_int_equal(striped_write(t->f, t->buf, 64 * KiB, 0), (ssize_t)(64 * KiB));
	}
}

/* A call of each handle now, the shared one first: the idler lets go of it one lease from now. */
static void touch(struct tctx *t, struct striped_file *shared)
{
	uint64_t size;

	assert_int_equal(striped_stat(shared, &size, NULL), 0);
	for (size_t i = 0; i < NCASES; i++)
		if (t[i].f && !t[i].tc->shared)
			assert_int_equal(striped_stat(t[i].f, &size, NULL), 0);
}

/* Until every call returned, or the OSDs have been stopped for STOP_MAX_NS. */
static void wait_calls(struct tctx *t, uint64_t stopped_ns)
{
	struct timespec until;
	uint64_t left = stopped_ns + STOP_MAX_NS - mono_ns();
	size_t done;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(left / NS) + 1;
	pthread_mutex_lock(&go_lock);
	for (;;) {
		done = 0;
		for (size_t i = 0; i < NCASES; i++)
			done += t[i].done;
		if (done == NCASES || mono_ns() > stopped_ns + STOP_MAX_NS)
			break;
		pthread_cond_timedwait(&go_cond, &go_lock, &until);
	}
	pthread_mutex_unlock(&go_lock);
}

/*
 * One line per call; the number of calls that hung, did not return
 * -ETIMEDOUT, or waited the op timeout over and over. A time past the op
 * timeout + 1 s is said, not counted.
 */
static int report(const char *phase, struct tctx *t)
{
	uint64_t slowest = 0;
	int bad = 0, over = 0;

	for (size_t i = 0; i < NCASES; i++) {
		const struct tcase *tc = t[i].tc;
		uint64_t took = t[i].ended_ns - t[i].began_ns;
		bool wrong = (t[i].done && !tc->any_result && t[i].result != -ETIMEDOUT) ||
			     took > CHAINED_NS;

		if (!t[i].done) {
			print_message("%s: %s: still waiting %.1f s after the OSDs stopped: BAD\n",
				      phase, tc->what, (double)STOP_MAX_NS / NS);
			bad++;
			continue;
		}
		if (took > slowest)
			slowest = took;
		over += took > BOUND_NS;
		print_message(
		    "%s: %s: %s after %.2f s%s%s\n", phase, tc->what,
		    t[i].result < 0 ? strerror((int)-t[i].result) : "done", (double)took / NS,
		    took > BOUND_NS ? " (past the op timeout + 1 s)" : "", wrong ? ": BAD" : "");
		bad += wrong;
	}
	print_message("%s: slowest call %.2f s; %d of %zu past the op timeout (%d s) + 1 s\n",
		      phase, (double)slowest / NS, over, NCASES, OP_TIMEOUT_S);
	return bad;
}

/* name and suffix removed, or not there. */
static void remove_gone(const char *name, const char *suffix)
{
	char full[80];
	int r;

	snprintf(full, sizeof(full), "%s%s", name, suffix);
	r = striped_remove(tio, full);
	if (r && r != -ENOENT)
		fail_msg("remove %s after the OSDs came back: %s", full, strerror(-r));
}

/*
 * After the OSDs came back: every handle closed, every file removed by the
 * client under test. A lock it could not let go of while the OSDs were
 * stopped is left over, and its own remove breaks it at once; another
 * client's would fence it (striped.h), and the next phase with it.
 */
static void clean_up(struct tctx *t)
{
	for (size_t i = 0; i < NCASES; i++) {
		if (!t[i].tc->shared) {
			striped_close(t[i].f);
			remove_gone(t[i].name, "");
			remove_gone(t[i].name, "-new");
		}
		free(t[i].buf);
	}
}

/*
 * Prepare every case, wait idle_ns, stop the OSDs, wait start_ns, start
 * every call at once; continue the OSDs once all returned (or the bound
 * and 2 s more passed), and wait for the cluster's health before checking.
 */
static void run_phase(const char *phase, unsigned lease_s, uint64_t idle_ns, uint64_t start_ns)
{
	static struct tctx t[NCASES];
	struct tctx shared = {.buf = malloc(FILE_SIZE)};
	uint64_t stopped_ns;
	int bad;

	assert_non_null(shared.buf);
	for (size_t i = 0; i < NCASES; i++)
		prepare(&t[i], &cases[i], lease_s, NULL);
	make_file(&shared);
	assert_int_equal(striped_open(tio, shared.name, 0, NULL, &shared.f), 0);
	assert_int_equal(striped_file_set_lease(shared.f, lease_s), 0);
	for (size_t i = 0; i < NCASES; i++)
		if (cases[i].shared)
			t[i].f = shared.f;
	go = false;
	for (size_t i = 0; i < NCASES; i++)
		assert_int_equal(pthread_create(&t[i].th, NULL, call_main, &t[i]), 0);
	touch(t, shared.f);
	usleep((useconds_t)(idle_ns / 1000));
	osds_stop();
	stopped_ns = mono_ns();
	usleep((useconds_t)(start_ns / 1000));
	pthread_mutex_lock(&go_lock);
	go = true;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
	wait_calls(t, stopped_ns);
	osds_signal(SIGCONT);
	bad = report(phase, t);
	for (size_t i = 0; i < NCASES; i++)
		pthread_join(t[i].th, NULL);
	wait_healthy();
	clean_up(t);
	striped_close(shared.f);
	shared.f = NULL;
	assert_int_equal(striped_remove(tio, shared.name), 0);
	free(shared.buf);
	if (bad)
		fail_msg("%s: %d of %zu calls hung, did not return -ETIMEDOUT, or waited %d s or "
			 "more",
			 phase, bad, NCASES, 3 * OP_TIMEOUT_S);
}

/* Each handle holds its lock (a lease of 60 s) when the OSDs stop. */
static void test_lock_held(void **state)
{
	(void)state;
	run_phase("held", 60, 0, 0);
}

/* Each handle let go of its lock (idle past its lease of 1 s) before the OSDs stopped. */
static void test_lock_let_go(void **state)
{
	(void)state;
	run_phase("let go", 1, 1500 * MS, 0);
}

/*
 * The OSDs stop just before the idler lets go of each handle's lock (1 s
 * after its last call), and the calls start while its unlock waits.
 */
static void test_lock_being_let_go(void **state)
{
	(void)state;
	run_phase("being let go", 1, 850 * MS, 450 * MS);
}

static int group_setup(void **state)
{
	int r;

	if (!getenv("STRIPED_TIMEOUTS_OWN_CLUSTER")) {
		fprintf(stderr, "test_timeouts stops every OSD of its cluster: it runs on one of "
				"its own, through tests/faults/timeouts.sh\n");
		exit(SKIP_EXIT);
	}
	cluster_skip_unless_configured();
	read_osd_pids();
	guard_start(); /* before librados starts its threads */
	cluster_group_setup(state);
	r = rados_create2(&tcl, "ceph", "client.admin", 0);
	if (!r)
		r = rados_conf_read_file(tcl, NULL);
	if (!r)
		r = striped_cluster_set_op_timeout(tcl, OP_TIMEOUT_S);
	if (!r)
		r = striped_cluster_connect(tcl);
	if (!r)
		r = rados_ioctx_create(tcl, cl.pool, &tio);
	if (r)
		fail_msg("connect with an op timeout: %s", strerror(-r));
	return 0;
}

static int group_teardown(void **state)
{
	osds_signal(SIGCONT);
	rados_ioctx_destroy(tio);
	rados_shutdown(tcl);
	cluster_group_teardown(state);
	guard_stop();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lock_held),
	    cmocka_unit_test(test_lock_let_go),
	    cmocka_unit_test(test_lock_being_let_go),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
