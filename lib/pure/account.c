// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A file's statistics over its lifetime: calls, operations, bytes, the
 * most operations in flight at once, throttle waits, and the latency of
 * reads and writes (latency.c's histograms). Counted with relaxed atomics
 * from any thread, librados callbacks' included, so nothing here waits; a
 * reader while calls run may see one field a call ahead of another.
 */
#include <string.h>

#include "account.h"

void account_init(struct io_account *a)
{
	memset(a, 0, sizeof(*a));
}

void account_op_begin(struct io_account *a)
{
	u64_atomic_max(&a->max_in_flight,
		       atomic_fetch_add_explicit(&a->ops_in_flight, 1, memory_order_relaxed) + 1);
}

void account_op_end(struct io_account *a)
{
	atomic_fetch_sub_explicit(&a->ops_in_flight, 1, memory_order_relaxed);
}

static void add(u64_atomic *counter, uint64_t v)
{
	atomic_fetch_add_explicit(counter, v, memory_order_relaxed);
}

void account_call(struct io_account *a, const struct striped_io_stats *call, enum account_kind kind)
{
	add(&a->calls, 1);
	add(&a->ops, call->ops);
	add(&a->bytes, call->bytes);
	add(&a->throttle_waits, call->throttle_waits);
	add(&a->latency_ns, call->latency_ns);
	if (kind == ACCOUNT_READ)
		latency_record(&a->read_latency, call->latency_ns);
	else if (kind == ACCOUNT_WRITE)
		latency_record(&a->write_latency, call->latency_ns);
}

static uint64_t get(u64_atomic *counter)
{
	return atomic_load_explicit(counter, memory_order_relaxed);
}

void account_read(struct io_account *a, struct striped_io_stats *out)
{
	*out = (struct striped_io_stats){
	    .calls = get(&a->calls),
	    .ops = get(&a->ops),
	    .max_in_flight = get(&a->max_in_flight),
	    .bytes = get(&a->bytes),
	    .throttle_waits = get(&a->throttle_waits),
	    .latency_ns = get(&a->latency_ns),
	};
}

void account_latency(struct io_account *a, struct striped_latency *out)
{
	latency_read(&a->read_latency, &out->read);
	latency_read(&a->write_latency, &out->write);
}
