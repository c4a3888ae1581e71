// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The drop-in's pure parts, without a cluster: the queue of gathered aio
 * writes (compat/write_runs.h) and the cache of open handles
 * (compat/handle_cache.h). Completions here are only names (never called).
 */
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../compat/handle_cache.h"
#include "../../compat/striper.h"
#include "../../compat/write_runs.h"

/* Last: cmocka's fail() macro would break the C++ headers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
extern "C" {
#include <cmocka.h>
}

using compat::Handle;
using compat::HandleCache;
using compat::WriteGather;
using compat::WriteRun;

namespace
{

rados_completion_t name_of(uintptr_t n)
{
	return reinterpret_cast<rados_completion_t>(n);
}

ceph::bufferlist bytes(size_t len)
{
	ceph::bufferlist bl;

	bl.append_zero(len);
	return bl;
}

/* A write of len bytes at off, as aio_write_gathered() adds it: joined, or a run of its own. */
void add(WriteGather &g, uintptr_t c, uint64_t off, size_t len)
{
	ceph::bufferlist data = bytes(len);

	if (g.join(name_of(c), data, off))
		return;
	auto run = std::make_unique<WriteRun>();
	run->off = off;
	run->members.push_back(name_of(c));
	run->data.claim_append(data);
	g.queue(std::move(run));
}

/* Every run that may go now, in order. */
std::vector<std::unique_ptr<WriteRun>> sendable(WriteGather &g, uint64_t now)
{
	std::vector<std::unique_ptr<WriteRun>> runs;

	g.pump(now);
	while (auto run = g.next_to_send())
		runs.push_back(std::move(run));
	return runs;
}

} // namespace

/* Contiguous writes join one run; a gap, or a run at RUN_MAX, starts another. */
static void test_contiguous_writes_join(void **)
{
	WriteGather g;

	add(g, 1, 0, 4096);
	add(g, 2, 4096, 4096);
	add(g, 3, 65536, 4096); /* a gap */
	add(g, 4, 69632, compat::RUN_MAX - 4096);
	add(g, 5, 69632 + compat::RUN_MAX - 4096, 1); /* past RUN_MAX: its own */
	g.flush_begin();
	auto runs = sendable(g, 0);
	assert_int_equal(runs.size(), 3);
	assert_int_equal(runs[0]->off, 0);
	assert_int_equal(runs[0]->members.size(), 2);
	assert_int_equal(runs[0]->data.length(), 8192);
	assert_int_equal(runs[1]->off, 65536);
	assert_int_equal(runs[1]->members.size(), 2);
	assert_int_equal(runs[1]->data.length(), compat::RUN_MAX);
	assert_int_equal(runs[2]->members.size(), 1);
}

/*
 * The last run waits for as many writes as the run target (one at first),
 * or until its time is up; those before it go at once.
 */
static void test_last_run_waits_for_target_or_time(void **)
{
	WriteGather g;

	add(g, 1, 0, 4096);
	auto first = sendable(g, 0); /* target 1: the first write goes alone */
	assert_int_equal(first.size(), 1);
	/* Two writes in flight when it lands: the next run waits for two. */
	add(g, 2, 4096, 4096);
	add(g, 3, 8192, 4096);
	assert_int_equal(sendable(g, 0).size(), 0); /* at its target, but a run is out */
	g.over(first[0].get());
	add(g, 4, 65536, 4096); /* a run of one behind a run of two */
	add(g, 5, 1 << 20, 4096);
	/* All but the last go; the last waits while runs are out. */
	auto runs = sendable(g, 0);
	assert_int_equal(runs.size(), 2);
	assert_int_equal(runs[1]->off, 65536);
	assert_null(g.time_last(100, 50)); /* runs are out: no timer yet */
	g.over(runs[0].get());
	g.over(runs[1].get());
	const WriteRun *last = g.time_last(100, 50);
	assert_non_null(last);
	assert_int_equal(last->due_ns, 150);
	assert_null(g.time_last(120, 50)); /* timed once */
	assert_int_equal(sendable(g, 149).size(), 0);
	assert_int_equal(sendable(g, 150).size(), 1); /* its time is up */
}

/*
 * A run that lands sets the target to the writes then in flight (its own
 * included); a run that waited alone its whole time sets it to as many as it got.
 */
static void test_timer_learns_target(void **)
{
	WriteGather g;

	add(g, 1, 0, 4096);
	auto first = sendable(g, 0);
	add(g, 2, 4096, 4096);
	add(g, 3, 8192, 4096);
	g.over(first[0].get()); /* three in flight: the next run waits for three */
	assert_int_equal(sendable(g, 0).size(), 0);
	const WriteRun *due = g.time_last(10, 5);
	assert_non_null(due);
	assert_int_equal(sendable(g, 14).size(), 0);
	g.timer_due(due->gen); /* it got two: the target is two */
	auto learnt = sendable(g, 14);
	assert_int_equal(learnt.size(), 1);
	assert_int_equal(learnt[0]->members.size(), 2);
}

/* A run never goes while a run it overlaps is out: the later bytes must land last. */
static void test_overlapping_run_waits(void **)
{
	WriteGather g;

	add(g, 1, 0, 8192);
	g.flush_begin();
	auto out = sendable(g, 0);
	assert_int_equal(out.size(), 1);
	add(g, 2, 4096, 4096); /* over the run out */
	assert_int_equal(sendable(g, 0).size(), 0);
	assert_false(g.idle());
	g.over(out[0].get());
	auto next = sendable(g, 0);
	assert_int_equal(next.size(), 1);
	g.over(next[0].get());
	assert_true(g.idle());
}

/* One thread at a time hands the runs over. */
static void test_one_sender_at_a_time(void **)
{
	WriteGather g;

	assert_true(g.take_turn());
	assert_false(g.take_turn());
	g.give_turn();
	assert_true(g.take_turn());
}

/* A run moved to another handle's queue is out there, not here. */
static void test_adopted_run(void **)
{
	WriteGather from, to;

	add(from, 1, 0, 4096);
	auto runs = sendable(from, 0);
	from.forget(runs[0].get());
	to.adopt(runs[0].get());
	assert_true(from.idle());
	assert_false(to.idle());
	add(to, 2, 0, 4096); /* overlaps the adopted run: waits */
	to.flush_begin();
	assert_int_equal(sendable(to, 0).size(), 0);
	to.over(runs[0].get());
	assert_int_equal(sendable(to, 0).size(), 1);
}

namespace
{

/* A handle as the striper makes one: the cache's reference, no file. */
Handle *handle(const std::string &name, uint64_t used)
{
	auto *h = new Handle;

	h->key = compat::handle_key("", name.c_str());
	h->refs = 1;
	h->last_used_ns = used;
	return h;
}

void close_all(HandleCache &cache)
{
	for (auto &kv : cache.take_all())
		delete kv.second;
}

} // namespace

/* Keys keep namespaces apart; a kept handle is found by its key, a detached one no more. */
static void test_cache_keys(void **)
{
	HandleCache cache;
	Handle *h = handle("f", 0);

	assert_true(cache.keep(h));
	assert_ptr_equal(cache.find(compat::handle_key("", "f")), h);
	assert_null(cache.find(compat::handle_key("ns", "f")));
	h->refs++; /* a call holds it */
	assert_null(cache.detach(h)); /* the call's reference keeps it */
	assert_null(cache.find(h->key));
	assert_null(cache.detach(h)); /* once only */
	assert_int_equal(h->refs, 1);
	delete h;
}

/* Past 128 open, the least recently used idle ones go; a handle in use never does. */
static void test_cache_evicts_lru_idle(void **)
{
	HandleCache cache;
	std::vector<Handle *> evicted;
	Handle *busy = handle("busy", 0);

	busy->refs++;
	assert_true(cache.keep(busy));
	for (int i = 0; i < 130; i++)
		assert_true(cache.keep(handle("f" + std::to_string(i), 1000 + i)));
	cache.evict_idle(5000, &evicted);
	assert_int_equal(evicted.size(), 3); /* 131 open: down to 128, busy kept */
	assert_string_equal(evicted[0]->key.c_str() + 1, "f0");
	assert_string_equal(evicted[2]->key.c_str() + 1, "f2");
	for (Handle *e : evicted)
		delete e;
	assert_ptr_equal(cache.find(busy->key), busy);
	/* Within a second of that sweep, 128 open: nothing looked at. */
	evicted.clear();
	cache.evict_idle(6000, &evicted);
	assert_int_equal(evicted.size(), 0);
	/* A minute idle: every idle one goes at the next sweep, busy stays. */
	cache.evict_idle(5000 + 61ull * 1000 * 1000 * 1000, &evicted);
	assert_int_equal(evicted.size(), 127);
	for (Handle *e : evicted)
		delete e;
	busy->refs--;
	close_all(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contiguous_writes_join),
		cmocka_unit_test(test_last_run_waits_for_target_or_time),
		cmocka_unit_test(test_timer_learns_target),
		cmocka_unit_test(test_overlapping_run_waits),
		cmocka_unit_test(test_one_sender_at_a_time),
		cmocka_unit_test(test_adopted_run),
		cmocka_unit_test(test_cache_keys),
		cmocka_unit_test(test_cache_evicts_lru_idle),
	};

	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
