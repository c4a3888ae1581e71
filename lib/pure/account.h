/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* account.c: a file's statistics over its lifetime, counted with atomics (pure) */
#ifndef STRIPED_ACCOUNT_H
#define STRIPED_ACCOUNT_H

#include "latency.h"

/* A file's statistics over its lifetime: atomics, counted without a lock. */
struct io_account {
	u64_atomic calls, ops, bytes, throttle_waits, latency_ns;
	u64_atomic ops_in_flight, max_in_flight;
	struct latency_hist read_latency, write_latency;
};

/* What a call was, for its latency: which histogram counts it (none for OTHER). */
enum account_kind { ACCOUNT_READ, ACCOUNT_WRITE, ACCOUNT_OTHER };

void account_init(struct io_account *a);
void account_op_begin(struct io_account *a);
void account_op_end(struct io_account *a);
void account_call(struct io_account *a, const struct striped_io_stats *call,
		  enum account_kind kind);
void account_read(struct io_account *a, struct striped_io_stats *out);
void account_latency(struct io_account *a, struct striped_latency *out);

#endif /* STRIPED_ACCOUNT_H */
