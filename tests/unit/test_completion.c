// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The aggregate completion and the throttle, without librados: parts end on
 * several threads in any order, the first error wins, the callback runs
 * exactly once before waiters wake, and releasing early is safe.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include "completion.h"
#include "flush.h"
#include "iov.h"
#include "throttle.h"

struct observed {
	pthread_mutex_t lock;
	int callbacks;
	ssize_t result_in_callback;
	bool waiter_saw_callback;
};

static void record_cb(struct striped_completion *c, void *arg)
{
	struct observed *o = arg;

	pthread_mutex_lock(&o->lock);
	o->callbacks++;
	o->result_in_callback = striped_completion_result(c);
	o->waiter_saw_callback = striped_completion_is_complete(c);
	pthread_mutex_unlock(&o->lock);
}

static ssize_t finish_bytes(struct striped_completion *c, int first_error)
{
	(void)c;
	return first_error ? first_error : 4096;
}

struct ender {
	struct striped_completion *c;
	int first, count, step;
	int fail_at;
};

static void *end_parts(void *arg)
{
	struct ender *e = arg;

	for (int i = e->first; i < e->count; i += e->step) {
		usleep((unsigned)(i % 3) * 200);
		completion_part_landed(e->c);
		completion_part_end(e->c, i == e->fail_at ? -EIO : 0);
	}
	return NULL;
}

static void run_parts(int nparts, int fail_at, struct observed *o, ssize_t want)
{
	struct striped_completion *c;
	struct striped_io_stats st;
	struct ender e[4];
	pthread_t th[4];

	assert_int_equal(striped_completion_create(record_cb, o, &c), 0);
	assert_int_equal(completion_start(c, finish_bytes, NULL, NULL, NULL, 0), 0);
	assert_int_equal(completion_start(c, finish_bytes, NULL, NULL, NULL, 0), -EBUSY);
	for (int i = 0; i < nparts; i++)
		completion_part_begin(c);
	for (int t = 0; t < 4; t++) {
		e[t] = (struct ender){c, t, nparts, 4, fail_at};
		pthread_create(&th[t], NULL, end_parts, &e[t]);
	}
	/* Not complete while the submitter still holds its part. */
	usleep(2000);
	assert_int_equal(striped_completion_is_complete(c), 0);
	assert_int_equal(striped_completion_result(c), -EINPROGRESS);
	completion_submit_end(c, 0);
	assert_int_equal(striped_completion_wait(c), 0);
	pthread_mutex_lock(&o->lock);
	assert_int_equal(o->callbacks, 1);
	pthread_mutex_unlock(&o->lock);
	assert_int_equal(striped_completion_result(c), want);
	assert_int_equal(striped_completion_stats(c, &st, sizeof(st)), 0);
	assert_int_equal(st.ops, (uint64_t)nparts);
	assert_int_equal(st.calls, 1);
	assert_true(st.max_in_flight <= (uint64_t)nparts);
	for (int t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	striped_completion_release(c);
}

static void test_all_parts_success(void **state)
{
	struct observed o = {PTHREAD_MUTEX_INITIALIZER, 0, 0, false};

	(void)state;
	run_parts(16, -1, &o, 4096);
	/* The callback saw the result, and ran before the call counted as complete. */
	assert_int_equal(o.result_in_callback, 4096);
	assert_false(o.waiter_saw_callback);
}

static void test_one_part_fails(void **state)
{
	struct observed o = {PTHREAD_MUTEX_INITIALIZER, 0, 0, false};

	(void)state;
	run_parts(16, 7, &o, -EIO);
}

static void test_first_error_wins(void **state)
{
	struct striped_completion *c;

	(void)state;
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(completion_start(c, NULL, NULL, NULL, NULL, 0), 0);
	completion_part_begin(c);
	completion_part_begin(c);
	completion_part_landed(c);
	completion_part_end(c, -ENOSPC);
	completion_part_landed(c);
	completion_part_end(c, -EIO);
	completion_submit_end(c, -EPERM);
	striped_completion_wait(c);
	assert_int_equal(striped_completion_result(c), -ENOSPC);
	striped_completion_release(c);
}

static int released_owner_calls;

static void owner_release(void *owner, uint64_t tag)
{
	assert_int_equal(tag, 7);
	assert_ptr_equal(owner, &released_owner_calls);
	released_owner_calls++;
}

static void test_release_while_in_flight(void **state)
{
	struct observed o = {PTHREAD_MUTEX_INITIALIZER, 0, 0, false};
	struct striped_completion *c;

	(void)state;
	assert_int_equal(striped_completion_create(record_cb, &o, &c), 0);
	assert_int_equal(
	    completion_start(c, finish_bytes, NULL, owner_release, &released_owner_calls, 7), 0);
	completion_part_begin(c);
	completion_submit_end(c, 0);
	/* The caller lets go before the last part ends: freed by the part (ASan checks). */
	striped_completion_release(c);
	completion_part_landed(c);
	completion_part_end(c, 0);
	assert_int_equal(o.callbacks, 1);
	assert_int_equal(released_owner_calls, 1);
}

static void release_in_callback(struct striped_completion *c, void *arg)
{
	(*(int *)arg)++;
	striped_completion_release(c);
}

static void test_release_from_callback(void **state)
{
	struct striped_completion *c;
	int calls = 0;

	(void)state;
	assert_int_equal(striped_completion_create(release_in_callback, &calls, &c), 0);
	assert_int_equal(completion_start(c, NULL, NULL, NULL, NULL, 0), 0);
	completion_submit_end(c, 0); /* no parts: completes here, on this thread */
	assert_int_equal(calls, 1);
}

static void test_bad_arguments(void **state)
{
	struct striped_completion *c;
	struct striped_io_stats st;

	(void)state;
	assert_int_equal(striped_completion_create(NULL, NULL, NULL), -EINVAL);
	assert_int_equal(striped_completion_wait(NULL), -EINVAL);
	assert_int_equal(striped_completion_result(NULL), -EINVAL);
	assert_int_equal(striped_completion_is_complete(NULL), 0);
	assert_int_equal(striped_completion_stats(NULL, &st, sizeof(st)), -EINVAL);
	assert_int_equal(striped_completion_create(NULL, NULL, &c), 0);
	assert_int_equal(striped_completion_wait(c), -EINVAL);
	assert_int_equal(striped_completion_stats(c, NULL, 0), -EINVAL);
	/* A caller with an older, smaller struct gets only what it knows. */
	memset(&st, 0xee, sizeof(st));
	assert_int_equal(striped_completion_stats(c, &st, sizeof(uint64_t)), 0);
	assert_int_equal(st.calls, 0);
	assert_int_equal(st.ops, 0xeeeeeeeeeeeeeeeeull);
	striped_completion_release(c);
	striped_completion_release(NULL);
}

/* ---- throttle ---- */

struct getter {
	struct striped_throttle *t;
	uint64_t bytes;
	volatile bool got;
};

static void *blocking_get(void *arg)
{
	struct getter *g = arg;

	throttle_get(g->t, g->bytes);
	g->got = true;
	return NULL;
}

static void test_throttle_bounds(void **state)
{
	struct striped_throttle t;
	struct getter g;
	pthread_t th;

	(void)state;
	assert_int_equal(throttle_init(&t, 2, 100), 0);
	assert_true(throttle_try_get(&t, 60));
	assert_false(throttle_try_get(&t, 60)); /* bytes */
	assert_true(throttle_try_get(&t, 40));
	assert_false(throttle_try_get(&t, 0)); /* ops */
	g = (struct getter){&t, 50, false};
	pthread_create(&th, NULL, blocking_get, &g);
	usleep(20000);
	assert_false(g.got);
	throttle_put(&t, 60); /* as a callback would: frees the waiter */
	pthread_join(th, NULL);
	assert_true(g.got);
	throttle_put(&t, 40);
	throttle_put(&t, 50);
	/* Larger than the whole byte budget: goes alone. */
	assert_true(throttle_try_get(&t, 1000));
	assert_false(throttle_try_get(&t, 1));
	throttle_put(&t, 1000);
	/* A wider limit wakes and admits. */
	throttle_set(&t, 4, 1000);
	for (int i = 0; i < 4; i++)
		assert_true(throttle_try_get(&t, 10));
	assert_false(throttle_try_get(&t, 10));
	for (int i = 0; i < 4; i++)
		throttle_put(&t, 10);
	throttle_destroy(&t);
}

/*
 * An operation in flight times out while a call waits for room: the call
 * gives up with -ETIMEDOUT (it has waited the op timeout already) and takes
 * nothing; one that starts waiting after it waits as before.
 */
/* Whether `tickets` tickets were taken (as every waiter takes one before it waits). */
static bool throttle_has_waiter(struct striped_throttle *t, uint64_t tickets)
{
	bool r;

	pthread_mutex_lock(&t->lock);
	r = t->next_ticket >= tickets;
	pthread_mutex_unlock(&t->lock);
	return r;
}

struct timed_getter {
	struct striped_throttle *t;
	uint64_t bytes;
	int r;
};

static void *timed_get(void *arg)
{
	struct timed_getter *g = arg;

	g->r = throttle_get(g->t, g->bytes);
	return NULL;
}

static void test_throttle_waiter_gives_up_on_timeout(void **state)
{
	struct striped_throttle t;
	struct timed_getter g1, g2;
	pthread_t th1, th2;

	(void)state;
	assert_int_equal(throttle_init(&t, 1, 100), 0);
	assert_int_equal(throttle_get(&t, 10), 0); /* the operation in flight */
	g1 = (struct timed_getter){&t, 10, 1};
	assert_int_equal(pthread_create(&th1, NULL, timed_get, &g1), 0);
	while (!throttle_has_waiter(&t, 2)) /* g1 took its ticket: it waits */
		usleep(1000);
	/* Its callback: timed out, then its share given back. */
	throttle_timed_out(&t);
	throttle_put(&t, 10);
	pthread_join(th1, NULL);
	assert_int_equal(g1.r, -ETIMEDOUT);
	assert_int_equal(throttle_timeouts(&t), 1);
	/* g1 took nothing: the whole budget is there, and a new waiter is served. */
	assert_true(throttle_try_get(&t, 100));
	g2 = (struct timed_getter){&t, 10, 1};
	assert_int_equal(pthread_create(&th2, NULL, timed_get, &g2), 0);
	usleep(20000);
	throttle_put(&t, 100);
	pthread_join(th2, NULL);
	assert_int_equal(g2.r, 0);
	throttle_put(&t, 10);
	throttle_destroy(&t);
}

/* ---- the throttle serves waiters first come, first served ---- */

struct fifo_waiter {
	struct striped_throttle *t;
	uint64_t bytes;
	bool give_back; /* put the share back once recorded */
	int *order, *next;
	pthread_mutex_t *lock;
};

static void *fifo_waiter_main(void *arg)
{
	struct fifo_waiter *w = arg;

	throttle_get(w->t, w->bytes);
	pthread_mutex_lock(w->lock);
	w->order[(*w->next)++] = (int)w->bytes;
	pthread_mutex_unlock(w->lock);
	if (w->give_back)
		throttle_put(w->t, w->bytes);
	return NULL;
}

static int served(pthread_mutex_t *lock, const int *next)
{
	int n;

	pthread_mutex_lock(lock);
	n = *next;
	pthread_mutex_unlock(lock);
	return n;
}

static void test_throttle_fifo(void **state)
{
	struct striped_throttle t;
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	int order[8], next = 0;
	struct fifo_waiter big = {&t, 60, false, order, &next, &lock};
	struct fifo_waiter small[4];
	pthread_t th_big, th_small[4];

	(void)state;
	assert_int_equal(throttle_init(&t, 100, 100), 0);
	throttle_get(&t, 50); /* half the bytes are out */
	/* A large request waits for the 50 bytes; smaller ones that would fit come after it. */
	assert_int_equal(pthread_create(&th_big, NULL, fifo_waiter_main, &big), 0);
	usleep(50000);
	assert_false(throttle_try_get(&t, 1)); /* no overtaking a waiter, even with room */
	for (int i = 0; i < 4; i++) {
		/* 41 bytes fit beside the 50 out, but not beside the large one's 60. */
		small[i] = (struct fifo_waiter){&t, 41, true, order, &next, &lock};
		assert_int_equal(pthread_create(&th_small[i], NULL, fifo_waiter_main, &small[i]),
				 0);
	}
	usleep(100000);
	assert_int_equal(served(&lock, &next), 0); /* all still wait behind the large one */
	throttle_put(&t, 50);
	pthread_join(th_big, NULL);
	usleep(50000);
	/* The large one went first; the small ones cannot fit beside it, so nothing races here. */
	assert_int_equal(served(&lock, &next), 1);
	assert_int_equal(order[0], 60);
	throttle_put(&t, 60);
	for (int i = 0; i < 4; i++)
		pthread_join(th_small[i], NULL);
	assert_int_equal(next, 5);
	/* A reservation of many operations at once: all or nothing. */
	assert_true(throttle_try_get_many(&t, 5, 10));
	assert_false(throttle_try_get_many(&t, 96, 1)); /* 5 of 100 operations are out */
	throttle_put_many(&t, 5, 10);
	assert_true(throttle_try_get_many(&t, 50, 100));
	assert_false(throttle_try_get_many(&t, 51, 0));
	throttle_put_many(&t, 50, 100);
	throttle_destroy(&t);
}

/* ---- flush barriers (flush.c) ---- */

static size_t waiters_count(struct flush_waiter *w)
{
	size_t n = 0;

	for (; w; w = w->next)
		n++;
	return n;
}

/* A flush waits for the calls begun before it, not for those begun after. */
static void test_flush_waits_for_earlier_calls_only(void **state)
{
	struct flush_gens fg;
	struct flush_waiter w1, w2, *due;
	uint64_t a, b, c;
	bool now;

	(void)state;
	assert_int_equal(flush_gens_init(&fg), 0);
	assert_int_equal(flush_gens_barrier(&fg, &w1, &now), 0);
	assert_true(now); /* nothing in flight */
	a = flush_gens_enter(&fg);
	b = flush_gens_enter(&fg);
	assert_int_equal(flush_gens_barrier(&fg, &w1, &now), 0);
	assert_false(now);
	c = flush_gens_enter(&fg); /* after the flush */
	assert_null(flush_gens_leave(&fg, c));
	assert_null(flush_gens_leave(&fg, b));
	due = flush_gens_leave(&fg, a);
	assert_ptr_equal(due, &w1);
	assert_null(due->next);
	/* A second flush, with nothing begun since the first: due at once. */
	assert_int_equal(flush_gens_barrier(&fg, &w2, &now), 0);
	assert_true(now);
	flush_gens_destroy(&fg);
}

/* Flushes complete in order: a later one never before an earlier one. */
static void test_flush_order(void **state)
{
	struct flush_gens fg;
	struct flush_waiter w1, w2, *due;
	uint64_t a, b;
	bool now;

	(void)state;
	assert_int_equal(flush_gens_init(&fg), 0);
	a = flush_gens_enter(&fg);
	assert_int_equal(flush_gens_barrier(&fg, &w1, &now), 0);
	b = flush_gens_enter(&fg);
	assert_int_equal(flush_gens_barrier(&fg, &w2, &now), 0);
	assert_false(now);
	assert_null(flush_gens_leave(&fg, b)); /* w2 still waits for a, begun before it */
	due = flush_gens_leave(&fg, a);
	assert_int_equal(waiters_count(due), 2);
	assert_ptr_equal(due, &w1);
	assert_ptr_equal(due->next, &w2);
	flush_gens_destroy(&fg);
}

/* ---- the caller's memory as segments (iov.c) ---- */

/* Offsets map onto segments in order, empty segments hold nothing, zeroing spans them. */
static void test_io_mem_segments(void **state)
{
	char a[5], b[1], c[7];
	struct iovec iov[] = {{a, 5}, {NULL, 0}, {b, 1}, {c, 7}};
	struct io_mem m;
	uint64_t avail;

	(void)state;
	assert_int_equal(io_mem_iov(&m, iov, 4), 0);
	iov[0].iov_base = NULL; /* the array was copied */
	assert_ptr_equal(io_mem_at(&m, 0, &avail), a);
	assert_int_equal(avail, 5);
	assert_ptr_equal(io_mem_at(&m, 4, &avail), a + 4);
	assert_int_equal(avail, 1);
	assert_ptr_equal(io_mem_at(&m, 5, &avail), b); /* past the empty one */
	assert_int_equal(avail, 1);
	assert_ptr_equal(io_mem_at(&m, 8, &avail), c + 2);
	assert_int_equal(avail, 5);
	assert_int_equal(io_mem_pieces(&m, 0, 13), 3);
	assert_int_equal(io_mem_pieces(&m, 3, 4), 3);
	assert_int_equal(io_mem_pieces(&m, 6, 7), 1);
	memset(a, 1, 5), memset(b, 1, 1), memset(c, 1, 7);
	io_mem_zero(&m, 4, 4);
	assert_int_equal(a[3], 1);
	assert_int_equal(a[4] | b[0] | c[0] | c[1], 0);
	assert_int_equal(c[2], 1);
	io_mem_free(&m);
	/* One segment is a plain buffer. */
	assert_int_equal(io_mem_iov(&m, &iov[3], 1), 0);
	assert_ptr_equal(io_mem_at(&m, 6, &avail), c + 6);
	assert_int_equal(avail, 1);
	io_mem_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_parts_success),
	    cmocka_unit_test(test_one_part_fails),
	    cmocka_unit_test(test_first_error_wins),
	    cmocka_unit_test(test_release_while_in_flight),
	    cmocka_unit_test(test_release_from_callback),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_throttle_bounds),
	    cmocka_unit_test(test_throttle_fifo),
	    cmocka_unit_test(test_throttle_waiter_gives_up_on_timeout),
	    cmocka_unit_test(test_flush_waits_for_earlier_calls_only),
	    cmocka_unit_test(test_flush_order),
	    cmocka_unit_test(test_io_mem_segments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
