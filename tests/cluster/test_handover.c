// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Lock handover and fencing across clients: each holder is its own process
 * (tests/cluster/lock_holder.c, tests/cluster/shared_writer.c) with its own connection,
 * stopped (SIGSTOP), continued and killed as a GC pause, a frozen VM or a
 * crash would; the client that truncates or removes is another connection,
 * and every check reads from a third, fresh one.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/wait.h>
#include <time.h>

#include <cmocka.h>
#include <radosstriper/libradosstriper.h>

#include "cluster_fixture.h"
#include "striped.h"

#define KiB 1024ull
#define MiB (1ull << 20)
#define PAUSE_FILE (256 * MiB) /* what lock_holder's pause mode writes */
#define NS 1000000000ull

/* b truncates and removes (may fence); nofence may not; fresh only checks. */
static struct cluster b, nofence, fresh;

static int group_setup(void **state)
{
	(void)state;
	cluster_connect_as(&b, "client.fencer", 0);
	cluster_connect_as(&nofence, "client.nofence", 0);
	cluster_connect(&fresh);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	cluster_disconnect(&b);
	cluster_disconnect(&nofence);
	cluster_disconnect(&fresh);
	return 0;
}

static double seconds_since(uint64_t t0)
{
	return (double)(realtime_ns() - t0) / 1e9;
}

/* Start a helper program with its stdout on *out. */
static pid_t spawn(const char *env, FILE **out, const char *name, uint64_t seed,
		   const char *mode)
{
	int fd;
	pid_t pid;

	assert_non_null(getenv(env));
	pid = spawn_helper(env, name, seed, mode, &fd);
	assert_true(pid >= 0);
	*out = fdopen(fd, "r");
	return pid;
}

/* A process holding name's lock, idle, with its handle open; "ready" read. */
static pid_t spawn_holder(const char *name, uint64_t seed, FILE **out)
{
	char line[64];
	pid_t pid = spawn("STRIPED_LOCK_HOLDER", out, name, seed, "hold");

	assert_non_null(fgets(line, sizeof(line), *out));
	assert_string_equal(line, "ready\n");
	return pid;
}

static void end_process(pid_t pid, FILE *out)
{
	int status;

	kill(pid, SIGKILL);
	kill(pid, SIGCONT);
	waitpid(pid, &status, 0);
	fclose(out);
}

static void read_range_is(struct striped_file *f, uint64_t off, uint64_t len, uint64_t seed,
			  bool zeros, const char *what)
{
	uint8_t *buf = malloc(16 * MiB);

	for (uint64_t at = off; at < off + len; at += 16 * MiB) {
		uint64_t n = off + len - at < 16 * MiB ? off + len - at : 16 * MiB;

		assert_int_equal(striped_read(f, buf, n, at), (ssize_t)n);
		/* Every stripe unit (1 MiB here) is checked. */
		for (uint64_t su = 0; su < n; su += MiB) {
			uint64_t k = n - su < MiB ? n - su : MiB;
			bool ok = true;

			for (uint64_t i = 0; i < k && ok; i++)
				ok = buf[su + i] == (zeros ? 0 : pattern_byte(seed, at + su + i));
			if (!ok)
				fail_msg("%s: stripe unit at %llu MiB is not what the breaker made",
					 what, (unsigned long long)((at + su) / MiB));
		}
	}
	free(buf);
}

/* ---- an idle holder hands over at once ---- */

static void test_idle_holder_hands_over(void **state)
{
	struct striped_file *f;
	char name[64];
	uint64_t t0, size;
	double t_trunc, t_rm;
	FILE *out;
	pid_t pid;

	(void)state;
	unique_name(name, sizeof(name), "idle-holder");
	pid = spawn_holder(name, 1, &out);
	assert_int_equal(striped_open(b.io, name, 0, NULL, &f), 0);
	t0 = realtime_ns();
	assert_int_equal(striped_truncate(f, 100 * KiB), 0);
	t_trunc = seconds_since(t0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, 100 * KiB);
	read_range_is(f, 0, 100 * KiB, 1, false, name);
	striped_close(f);
	end_process(pid, out);

	assert_int_equal(striped_remove(b.io, name), 0);
	/* Another file: the killed holder's watch lingers until the OSD times it out. */
	unique_name(name, sizeof(name), "idle-holder");
	pid = spawn_holder(name, 1, &out);
	t0 = realtime_ns();
	assert_int_equal(striped_remove(b.io, name), 0);
	t_rm = seconds_since(t0);
	end_process(pid, out);
	assert_int_equal(count_objects(b.io, name), 0);
	print_message("idle holder: truncate by another client %.3f s, remove %.3f s\n", t_trunc,
		      t_rm);
	/* Without handover these wait for the holder's lock to go: never, here. */
	assert_true(t_trunc < 2.0 && t_rm < 2.0);
}

/* ---- a busy holder hands over once its calls in flight complete ---- */

static void test_busy_holder_hands_over(void **state)
{
	struct striped_file *f;
	char name[64], line[16];
	uint64_t t0, size;
	double t_trunc[3], t_rm;
	FILE *out;
	pid_t pid;
	int status;

	(void)state;
	unique_name(name, sizeof(name), "busy-holder");
	pid = spawn("STRIPED_SHARED_WRITER", &out, name, 5, "30");
	assert_non_null(fgets(line, sizeof(line), out)); /* "ready": it writes from now on */
	usleep(300000);
	assert_int_equal(striped_open(b.io, name, 0, NULL, &f), 0);
	for (int i = 0; i < 3; i++) {
		t0 = realtime_ns();
		assert_int_equal(striped_truncate(f, 64 * KiB), 0);
		t_trunc[i] = seconds_since(t0);
		usleep(200000);
	}
	/* The writer goes on after each: the file grew again. */
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	striped_close(f);
	t0 = realtime_ns();
	assert_int_equal(striped_remove(b.io, name), 0);
	t_rm = seconds_since(t0);
	/* Its next call finds the file gone and it stops (exit 1), not killed. */
	waitpid(pid, &status, 0);
	fclose(out);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	assert_int_equal(count_objects(b.io, name), 0);
	print_message("busy holder: truncates %.3f %.3f %.3f s, remove %.3f s; size after: %llu\n",
		      t_trunc[0], t_trunc[1], t_trunc[2], t_rm, (unsigned long long)size);
	for (int i = 0; i < 3; i++)
		assert_true(t_trunc[i] < 5.0);
}

/* ---- a killed holder is fenced, then its lock broken ---- */

static void test_killed_holder_fenced(void **state)
{
	char name[64];
	uint64_t t0;
	double t_rm;
	FILE *out;
	pid_t pid;

	(void)state;
	unique_name(name, sizeof(name), "killed-holder");
	pid = spawn_holder(name, 2, &out);
	end_process(pid, out); /* SIGKILL: its lock stays, no one answers for it */
	t0 = realtime_ns();
	assert_int_equal(striped_remove(b.io, name), 0);
	t_rm = seconds_since(t0);
	assert_int_equal(count_objects(b.io, name), 0);
	print_message("killed holder: remove (asked twice, fenced, broken) %.3f s\n", t_rm);
}

/* ---- a paused holder resumes after another client broke its lock ---- */

/* Stop A mid-write, let B do what it does, continue A; nothing of A's lands afterwards. */
static void pause_case(bool rewrite)
{
	struct striped_layout l = {MiB, 4, 4 * MiB};
	int ok_calls = 0, failed_calls = 0, status;
	struct striped_file *f;
	uint64_t t_break, size;
	char name[64], line[128];
	uint8_t *buf;
	FILE *out;
	pid_t pid;

	unique_name(name, sizeof(name), rewrite ? "pause-rewrite" : "pause-recreate");
	pid = spawn("STRIPED_LOCK_HOLDER", &out, name, 11, "pause");
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	assert_true(WIFSTOPPED(status));
	t_break = realtime_ns();
	if (rewrite) {
		assert_int_equal(striped_open(b.io, name, 0, NULL, &f), 0);
		assert_int_equal(striped_truncate(f, 0), 0);
		buf = malloc(16 * MiB);
		for (uint64_t off = 0; off < PAUSE_FILE; off += 16 * MiB) {
			pattern_fill(buf, 16 * MiB, 12, off);
			assert_int_equal(striped_write(f, buf, 16 * MiB, off), (ssize_t)(16 * MiB));
		}
		free(buf);
	} else {
		assert_int_equal(striped_remove(b.io, name), 0);
		assert_int_equal(striped_open(b.io, name, STRIPED_CREATE | STRIPED_EXCL, &l, &f), 0);
		assert_int_equal(striped_truncate(f, PAUSE_FILE), 0);
	}
	striped_close(f);
	print_message("%s: B done %.2f s after A stopped\n", name, seconds_since(t_break));
	kill(pid, SIGCONT);
	while (fgets(line, sizeof(line), out)) {
		unsigned long long done_ns;
		long long result;
		int i;

		assert_int_equal(sscanf(line, "call %d %lld %llu", &i, &result, &done_ns), 3);
		if (result < 0) {
			failed_calls++;
			continue;
		}
		ok_calls++;
		/*
		 * A stopped itself right after its second submit: calls 0 and 1
		 * may have landed before B broke the lock (their replies wait in
		 * the stopped process). Every later call was sent after the break
		 * and must fail.
		 */
		if (i >= 2)
			fail_msg("A's call %d, sent after B broke its lock, returned success", i);
		(void)done_ns;
	}
	waitpid(pid, &status, 0);
	fclose(out);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(ok_calls + failed_calls, 16);
	/* Give anything of A's still on the wire time to land, then read it all fresh. */
	sleep(2);
	assert_int_equal(striped_open(fresh.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, PAUSE_FILE);
	read_range_is(f, 0, PAUSE_FILE, 12, !rewrite, name);
	striped_close(f);
	print_message("%s: A's calls: %d succeeded before the break, %d failed\n", name, ok_calls,
		      failed_calls);
	assert_int_equal(striped_remove(b.io, name), 0);
}

static void test_paused_holder_then_remove_and_create(void **state)
{
	(void)state;
	pause_case(false);
}

static void test_paused_holder_then_truncate_and_rewrite(void **state)
{
	(void)state;
	pause_case(true);
}

/* ---- a client that may not blocklist does not break ---- */

static void test_no_blocklist_caps(void **state)
{
	struct striped_file *f;
	char name[64];
	uint64_t size;
	FILE *out;
	pid_t pid;

	(void)state;
	assert_int_equal(striped_cluster_set_lock_break(NULL, STRIPED_LOCK_BREAK_FENCE), -EINVAL);
	assert_int_equal(striped_cluster_set_lock_break(nofence.rados, 7), -EINVAL);
	unique_name(name, sizeof(name), "nofence");
	pid = spawn_holder(name, 3, &out);
	kill(pid, SIGSTOP); /* alive, but silent */
	assert_int_equal(striped_remove(nofence.io, name), -EACCES);
	assert_int_equal(striped_open(nofence.io, name, 0, NULL, &f), 0);
	assert_int_equal(striped_truncate(f, 0), -EACCES);
	/* Nothing changed. */
	assert_int_equal(striped_stat(f, &size, NULL), 0);
	assert_int_equal(size, MiB);
	read_range_is(f, 0, MiB, 3, false, name);
	striped_close(f);
	/* The explicit opt-in breaks without fencing. */
	assert_int_equal(striped_cluster_set_lock_break(nofence.rados, STRIPED_LOCK_BREAK_UNFENCED),
			 0);
	assert_int_equal(striped_remove(nofence.io, name), 0);
	assert_int_equal(striped_cluster_set_lock_break(nofence.rados, STRIPED_LOCK_BREAK_FENCE), 0);
	end_process(pid, out);
	assert_int_equal(count_objects(b.io, name), 0);
}

/* ---- libradosstriper cannot ask: an idle handle lets go by itself ---- */

static void test_radosstriper_remove_after_idle(void **state)
{
	struct striped_layout l = STRIPED_LAYOUT_DEFAULT_INIT;
	struct striped_file *f;
	struct cluster a;
	rados_striper_t rs;
	char name[64], buf[4096] = {1};
	uint64_t t0;
	double t_rm;
	int r;

	(void)state;
	cluster_connect(&a);
	unique_name(name, sizeof(name), "rs-idle");
	assert_int_equal(striped_open(a.io, name, STRIPED_CREATE | STRIPED_EXCL, &l, &f), 0);
	assert_int_equal(striped_write(f, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	assert_int_equal(rados_striper_create(b.io, &rs), 0);
	t0 = realtime_ns();
	while ((r = rados_striper_remove(rs, name)) == -EBUSY && seconds_since(t0) < 10)
		usleep(50000);
	t_rm = seconds_since(t0);
	assert_int_equal(r, 0);
	print_message("libradosstriper remove went through %.3f s after the handle's last call\n",
		      t_rm);
	assert_true(t_rm < 2.0);
	assert_int_equal(striped_write(f, buf, sizeof(buf), 0), -ESTALE);
	striped_close(f);
	rados_striper_destroy(rs);
	cluster_disconnect(&a);
	assert_int_equal(count_objects(b.io, name), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_idle_holder_hands_over),
	    cmocka_unit_test(test_busy_holder_hands_over),
	    cmocka_unit_test(test_killed_holder_fenced),
	    cmocka_unit_test(test_paused_holder_then_remove_and_create),
	    cmocka_unit_test(test_paused_holder_then_truncate_and_rewrite),
	    cmocka_unit_test(test_no_blocklist_caps),
	    cmocka_unit_test(test_radosstriper_remove_after_idle),
	};

	cluster_skip_unless_configured();
	/* STRIPED_TEST_FILTER=test_name (a glob) runs only those. */
	if (getenv("STRIPED_TEST_FILTER"))
		cmocka_set_test_filter(getenv("STRIPED_TEST_FILTER"));
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
