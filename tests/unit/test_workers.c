// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The workers meta_aio's calls run on (lib/api/workers.c), without librados:
 * calls that wait for one another all run at once (none is queued behind
 * another), and a worker left idle takes the next call.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "workers.h"

#define NWORK 4

struct job {
	struct work work; /* first: run() gets it back */
	struct rendezvous *rv;
	pthread_t ran_on;
};

struct rendezvous {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int started, ended;
	bool wait_for_all; /* each job waits until all have started */
};

static void job_run(struct work *w)
{
	struct job *j = (struct job *)w;
	struct rendezvous *rv = j->rv;
	struct timespec until;

	j->ran_on = pthread_self();
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&rv->lock);
	rv->started++;
	pthread_cond_broadcast(&rv->cond);
	while (rv->wait_for_all && rv->started < NWORK)
		if (pthread_cond_timedwait(&rv->cond, &rv->lock, &until) == ETIMEDOUT)
			break;
	rv->ended++;
	pthread_cond_broadcast(&rv->cond);
	pthread_mutex_unlock(&rv->lock);
}

/* Wait until n jobs ended (10 s at most); the number that did. */
static int wait_ended(struct rendezvous *rv, int n)
{
	struct timespec until;
	int ended;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&rv->lock);
	while (rv->ended < n)
		if (pthread_cond_timedwait(&rv->cond, &rv->lock, &until) == ETIMEDOUT)
			break;
	ended = rv->ended;
	pthread_mutex_unlock(&rv->lock);
	return ended;
}

/* Jobs that each wait for all the others to start: they ran side by side. */
static void test_never_queued_behind_another(void **state)
{
	struct rendezvous rv = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, true};
	struct job jobs[NWORK];

	(void)state;
	for (int i = 0; i < NWORK; i++) {
		jobs[i].rv = &rv;
		assert_int_equal(workers_run(&jobs[i].work, job_run), 0);
	}
	assert_int_equal(wait_ended(&rv, NWORK), NWORK);
	assert_int_equal(rv.started, NWORK);
}

/* One call after another: the worker the first left idle runs the second. */
static void test_idle_worker_takes_the_next(void **state)
{
	struct rendezvous rv = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, false};
	struct job a = {.rv = &rv}, b = {.rv = &rv};
	struct timespec pause = {0, 50 * 1000 * 1000};

	(void)state;
	assert_int_equal(workers_run(&a.work, job_run), 0);
	assert_int_equal(wait_ended(&rv, 1), 1);
	nanosleep(&pause, NULL); /* a's worker back waiting */
	assert_int_equal(workers_run(&b.work, job_run), 0);
	assert_int_equal(wait_ended(&rv, 2), 2);
	assert_true(pthread_equal(a.ran_on, b.ran_on));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    /* First, while one worker at most is there to be reused. */
	    cmocka_unit_test(test_idle_worker_takes_the_next),
	    cmocka_unit_test(test_never_queued_behind_another),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
