// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A lock holder for test_handover, run as its own process (its own cluster
 * connection) so the test can stop it (SIGSTOP), continue it and kill it.
 *
 * usage: lock_holder NAME SEED MODE
 *   hold   open NAME, write 1 MiB of the pattern, print "ready", then idle
 *          with the handle open until killed (its lock stays held for 1 h);
 *   pause  open NAME, submit 16 aio writes of 16 MiB of the pattern (layout
 *          1 MiB x 4, 4 MiB objects), stop itself (SIGSTOP) right after the
 *          second submit, as a GC pause or a frozen VM would; once continued,
 *          wait for every call and print one line per call:
 *          "call I RESULT DONE_NS" (DONE_NS: CLOCK_REALTIME at completion;
 *          a call refused when made has that refusal as its RESULT).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster_fixture.h"
#include "striped.h"

#define MiB (1ull << 20)
#define CALLS 16
#define CALL_LEN (16 * MiB)

struct call {
	int index;
	uint64_t done_ns;
};

/* Completion callback: only record when. */
static void call_done(struct striped_completion *c, void *arg)
{
	struct call *call = arg;

	(void)c;
	call->done_ns = realtime_ns();
}

static int hold(struct striped_file *f, uint64_t seed)
{
	uint8_t *buf = malloc(MiB);

	pattern_fill(buf, MiB, seed, 0);
	if (striped_write(f, buf, MiB, 0) != (ssize_t)MiB)
		return 1;
	striped_file_set_lease(f, STRIPED_LEASE_MAX_SECONDS);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

static int pause_mid_write(struct striped_file *f, uint64_t seed)
{
	struct striped_completion *c[CALLS];
	static struct call calls[CALLS];
	uint8_t *buf = malloc(CALLS * CALL_LEN);
	int refused[CALLS];

	if (!buf)
		return 1;
	pattern_fill(buf, CALLS * CALL_LEN, seed, 0);
	for (int i = 0; i < CALLS; i++) {
		calls[i].index = i;
		if (striped_completion_create(call_done, &calls[i], &c[i]))
			return 1;
		/*
		 * Refused at once (the handle may learn of the break before a
		 * later call is made): that is the call's result, as a
		 * completion's failure would be.
		 */
		refused[i] = striped_aio_write(f, c[i], buf + (uint64_t)i * CALL_LEN, CALL_LEN,
					       (uint64_t)i * CALL_LEN);
		if (refused[i]) {
			calls[i].done_ns = realtime_ns();
			striped_completion_release(c[i]);
		}
		if (i == 1)
			raise(SIGSTOP);
	}
	for (int i = 0; i < CALLS; i++) {
		ssize_t r = refused[i];

		if (!r) {
			striped_completion_wait(c[i]);
			r = striped_completion_result(c[i]);
			striped_completion_release(c[i]);
		}
		printf("call %d %zd %llu\n", i, r, (unsigned long long)calls[i].done_ns);
	}
	fflush(stdout);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	struct striped_layout l = {MiB, 4, 4 * MiB};
	struct striped_file *f;
	struct cluster c;
	uint64_t seed;

	if (argc != 4) {
		fprintf(stderr, "usage: lock_holder NAME SEED hold|pause\n");
		return 2;
	}
	seed = strtoull(argv[2], NULL, 10);
	/* A stale call must end, not hang the test: every op fails after 60 s. */
	cluster_connect_as(&c, "client.admin", 60);
	if (striped_open(c.io, argv[1], STRIPED_CREATE, &l, &f)) {
		fprintf(stderr, "lock_holder: cannot open %s\n", argv[1]);
		return 1;
	}
	if (!strcmp(argv[3], "hold"))
		return hold(f, seed);
	if (!strcmp(argv[3], "pause"))
		return pause_mid_write(f, seed);
	return 2;
}
