/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* completion.c: aggregation of one call's parts (pure, no librados) */
#ifndef STRIPED_COMPLETION_H
#define STRIPED_COMPLETION_H

#include "striped_i.h"

/*
 * Run once when the last part of a call has finished, before the user's
 * callback: turns the parts' outcome into the call's result.
 */
typedef ssize_t (*call_finish_fn)(struct striped_completion *c, int first_error);
/* Run last, after the callback and the waiters: the owner of the call lets go of it. */
/* After a call's callback has returned; tag is what the owner gave the call. */
typedef void (*call_release_fn)(void *owner, uint64_t tag);

struct striped_completion {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned refs;	  /* caller's reference + one while a call runs */
	unsigned pending; /* parts not finished, + 1 while still submitting */
	bool started;
	bool result_ready; /* set before the callback runs */
	bool done;	   /* set after it returned */
	int first_error;
	ssize_t result;
	striped_callback_t cb;
	void *cb_arg;

	call_finish_fn finish;
	void *call;    /* the call's own state, for finish (which frees it) */
	ssize_t value; /* without finish: the result when no part failed */
	call_release_fn release;
	void *owner;
	uint64_t owner_tag;

	uint64_t in_flight;
	struct striped_io_stats stats;
	uint64_t start_ns;
};

/*
 * The public completion calls (include/striped.h says what each does), by
 * the names lib/ calls them: striped_completion_*() are the doors of
 * api/completion.c into these.
 */
int completion_create(striped_callback_t cb, void *arg, struct striped_completion **out);
int completion_wait(struct striped_completion *c);
int completion_is_complete(struct striped_completion *c);
ssize_t completion_result(struct striped_completion *c);
void completion_release(struct striped_completion *c);
int completion_stats(struct striped_completion *c, struct striped_io_stats *st, size_t st_size);

int completion_start(struct striped_completion *c, call_finish_fn finish, void *call,
		     call_release_fn release, void *owner, uint64_t owner_tag);
void completion_part_begin(struct striped_completion *c);
void completion_part_landed(struct striped_completion *c);
void completion_part_end(struct striped_completion *c, int result);
void completion_submit_end(struct striped_completion *c, int error);
/* The first error of the parts ended so far, 0 if none: a long call sends no more after one. */
int completion_first_error(struct striped_completion *c);
void completion_add_throttle_wait(struct striped_completion *c);
void completion_count_op(struct striped_completion *c);
void completion_wait_begin(struct striped_completion *c);
bool completion_in_callback(void);
/* Whether a call was ever started on c (a completion serves one call only). */
bool completion_used(struct striped_completion *c);
/* Undo completion_start() of a call refused before any part of it began. */
void completion_abandon(struct striped_completion *c);
/* Start c and complete it at once with result (bytes or -errno), its callback run here. */
int completion_complete_now(struct striped_completion *c, ssize_t result);

#endif /* STRIPED_COMPLETION_H */
