// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The drop-in's aio writes gathered into runs (compat/write_gather.cc):
 * contiguous aio writes made together reach RADOS as fewer, larger writes;
 * each completes only once its bytes can be read by another client; a call
 * made after them goes after them; aio_flush waits for them; a later write
 * over the same bytes wins, as with stock. And its aio reads gathered
 * (compat/read_gather.cc): contiguous aio reads made together reach RADOS as
 * fewer reads, each completes with its own bytes (zeros in holes, short or
 * none at the end of the file), sees every write acknowledged before it was
 * made, and reaches RADOS before a write made after it. Linked against the
 * drop-in; the bytes are read and written through a connection of their own
 * with plain librados, the RADOS operations counted by the client that sends
 * them (a connection of the test's own, whose counters its admin socket
 * gives).
 */
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include <rados/librados.hpp>
#include <radosstriper/libradosstriper.hpp>

#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
extern "C" {
#include <cmocka.h>
}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "../cluster_fixture.h"
#pragma GCC diagnostic pop

namespace
{

constexpr size_t OBJECT = 4u << 20; /* the layout: one object per 4 MiB */
constexpr size_t WRITE = 64u << 10; /* XrdCeph's aio writes */
constexpr int WRITES = 16;	    /* 1 MiB, in the second object */

/* Another client: it reads what landed. */
struct cluster reader;

/*
 * The client of the tests that count RADOS requests, on its own: its admin
 * socket tells how many reads and writes it sent (its Objecter's counters),
 * whatever other clients (another test's, on the same cluster) do meanwhile.
 */
struct cluster counted;
char counted_asok[108];

void connect_counted()
{
	counted.pool = getenv("STRIPED_TEST_POOL");
	snprintf(counted_asok, sizeof(counted_asok), "/tmp/striped-gather-%d.asok", (int)getpid());
	unlink(counted_asok);
	assert_int_equal(rados_create2(&counted.rados, "ceph", "client.admin", 0), 0);
	assert_int_equal(rados_conf_read_file(counted.rados, nullptr), 0);
	assert_int_equal(rados_conf_set(counted.rados, "admin_socket", counted_asok), 0);
	assert_int_equal(rados_connect(counted.rados), 0);
	assert_int_equal(rados_ioctx_create(counted.rados, counted.pool, &counted.io), 0);
}

/* A counter of the counted client's Objecter ("op_r": reads sent), from its admin socket. */
uint64_t objecter_counter(const char *counter)
{
	struct sockaddr_un addr = {};
	const char cmd[] = "{\"prefix\": \"perf dump\"}";
	uint32_t len_be = 0;
	std::string dump;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	addr.sun_family = AF_UNIX;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", counted_asok);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	/* The command with its NUL; the answer: its length (4 bytes, big-endian), then it. */
	assert_int_equal(write(fd, cmd, sizeof(cmd)), (ssize_t)sizeof(cmd));
	assert_int_equal(read(fd, &len_be, 4), 4);
	dump.resize(ntohl(len_be));
	for (size_t got = 0; got < dump.size();) {
		ssize_t n = read(fd, &dump[got], dump.size() - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
	close(fd);
	size_t at = dump.find("\"objecter\"");
	assert_true(at != std::string::npos);
	std::string key = std::string("\"") + counter + "\":";
	at = dump.find(key, at);
	assert_true(at != std::string::npos);
	return strtoull(dump.c_str() + at + key.size(), nullptr, 10);
}

int setup(void **state)
{
	cluster_group_setup(state);
	cluster_connect(&reader);
	connect_counted();
	return 0;
}

int teardown(void **state)
{
	cluster_disconnect(&counted);
	unlink(counted_asok);
	cluster_disconnect(&reader);
	return cluster_group_teardown(state);
}

rados_striper_t make_striper(rados_ioctx_t io = cl.io)
{
	rados_striper_t s;

	assert_int_equal(rados_striper_create(io, &s), 0);
	assert_int_equal(rados_striper_set_object_layout_stripe_unit(s, OBJECT), 0);
	assert_int_equal(rados_striper_set_object_layout_stripe_count(s, 1), 0);
	assert_int_equal(rados_striper_set_object_layout_object_size(s, OBJECT), 0);
	return s;
}

/*
 * The data writes the counted client sent: its requests with a write or
 * write_full in them (the size updates beside them, cmpxattr and setxattr,
 * are not counted, as the OSDs' op_w did not count them either).
 */
uint64_t data_writes_sent()
{
	return objecter_counter("osdop_write") + objecter_counter("osdop_writefull");
}

std::string object_of(const char *name, unsigned objectno)
{
	char suffix[32];

	snprintf(suffix, sizeof(suffix), ".%016x", objectno);
	return std::string(name) + suffix;
}

/* The bytes [off, off + len) of object objectno as the reader sees them, and its version. */
std::vector<uint8_t> read_object(const char *name, unsigned objectno, uint64_t off, size_t len,
				 uint64_t *version)
{
	std::vector<uint8_t> buf(len);
	int r =
	    rados_read(reader.io, object_of(name, objectno).c_str(), (char *)buf.data(), len, off);

	assert_int_equal(r, (int)len);
	if (version)
		*version = rados_get_last_version(reader.io);
	return buf;
}

/* WRITES aio writes of pattern seed, each WRITE long, end to end from off, all at once. */
std::vector<rados_completion_t> write_all(rados_striper_t s, const char *name, uint64_t seed,
					  uint64_t off, std::vector<uint8_t> *bytes)
{
	std::vector<rados_completion_t> cs(WRITES);

	bytes->resize(WRITES * WRITE);
	pattern_fill(bytes->data(), bytes->size(), seed, off);
	for (int i = 0; i < WRITES; i++) {
		assert_int_equal(rados_aio_create_completion2(nullptr, nullptr, &cs[i]), 0);
		assert_int_equal(rados_striper_aio_write(s, name, cs[i],
							 (const char *)bytes->data() + i * WRITE,
							 WRITE, off + i * WRITE),
				 0);
	}
	return cs;
}

void wait_all(std::vector<rados_completion_t> &cs)
{
	for (rados_completion_t c : cs) {
		rados_aio_wait_for_complete(c);
		assert_int_equal(rados_aio_get_return_value(c), 0);
		rados_aio_release(c);
	}
	cs.clear();
}

void remove_file(rados_striper_t s, const char *name)
{
	assert_int_equal(rados_striper_remove(s, name), 0);
	rados_striper_destroy(s);
}

void test_contiguous_writes_gather(void **)
{
	rados_striper_t s = make_striper(counted.io);
	char name[64];
	std::vector<uint8_t> bytes;

	unique_name(name, sizeof(name), "gather");
	/* The file made and its lock taken first, so only the writes count. */
	assert_int_equal(rados_striper_write(s, name, "x", 1, 0), 0);
	uint64_t before = data_writes_sent();
	auto cs = write_all(s, name, 1, OBJECT, &bytes);
	wait_all(cs);
	uint64_t served = data_writes_sent() - before;
	auto got = read_object(name, 1, 0, WRITES * WRITE, nullptr);
	assert_int_equal(pattern_check(got.data(), got.size(), 1, OBJECT), -1);
	/* One RADOS write each would be 16, and the size updates beside them more. */
	printf("# %d aio writes of 64 KiB: %llu RADOS writes\n", WRITES,
	       (unsigned long long)served);
	assert_true(served <= WRITES / 2);
	remove_file(s, name);
}

/* Each write, once complete, is there for another client, whatever the others' state. */
void test_completed_writes_have_landed(void **)
{
	rados_striper_t s = make_striper();
	char name[64];
	std::vector<uint8_t> bytes;

	unique_name(name, sizeof(name), "landed");
	auto cs = write_all(s, name, 2, OBJECT, &bytes);
	for (int i = 0; i < WRITES; i++) {
		rados_aio_wait_for_complete(cs[i]);
		assert_int_equal(rados_aio_get_return_value(cs[i]), 0);
		auto got = read_object(name, 1, i * WRITE, WRITE, nullptr);
		assert_int_equal(pattern_check(got.data(), WRITE, 2, OBJECT + i * WRITE), -1);
	}
	wait_all(cs);
	remove_file(s, name);
}

/* A write made after aio writes goes after them, though they were still gathering. */
void test_later_sync_write_goes_after(void **)
{
	rados_striper_t s = make_striper();
	char name[64];
	std::vector<uint8_t> bytes, last(WRITE);
	uint64_t at = OBJECT + (WRITES - 1) * WRITE;

	unique_name(name, sizeof(name), "after");
	auto cs = write_all(s, name, 3, OBJECT, &bytes);
	pattern_fill(last.data(), WRITE, 4, at);
	assert_int_equal(rados_striper_write(s, name, (const char *)last.data(), WRITE, at), 0);
	wait_all(cs);
	auto got = read_object(name, 1, 0, WRITES * WRITE, nullptr);
	assert_int_equal(pattern_check(got.data(), (WRITES - 1) * WRITE, 3, OBJECT), -1);
	assert_int_equal(pattern_check(got.data() + (WRITES - 1) * WRITE, WRITE, 4, at), -1);
	remove_file(s, name);
}

/* aio writes over the same bytes made one after the other: the later ones win. */
void test_later_aio_writes_win(void **)
{
	rados_striper_t s = make_striper();
	char name[64];
	std::vector<uint8_t> first, second;

	unique_name(name, sizeof(name), "overwrite");
	auto a = write_all(s, name, 5, OBJECT, &first);
	auto b = write_all(s, name, 6, OBJECT, &second);
	wait_all(a);
	wait_all(b);
	auto got = read_object(name, 1, 0, WRITES * WRITE, nullptr);
	assert_int_equal(pattern_check(got.data(), got.size(), 6, OBJECT), -1);
	remove_file(s, name);
}

/* A write that does not continue the run sends it; both land where they were aimed. */
void test_gaps_and_jumps(void **)
{
	rados_striper_t s = make_striper();
	char name[64];
	std::vector<rados_completion_t> cs;
	std::vector<uint8_t> bytes(WRITE);
	/* Objects 1 and 3, back and forth, and one hole in between. */
	const uint64_t offs[] = {OBJECT,
				 OBJECT + WRITE,
				 3 * OBJECT,
				 OBJECT + 2 * WRITE,
				 3 * OBJECT + WRITE,
				 OBJECT + 4 * WRITE};

	unique_name(name, sizeof(name), "jumps");
	for (uint64_t off : offs) {
		rados_completion_t c;
		pattern_fill(bytes.data(), WRITE, 7, off);
		assert_int_equal(rados_aio_create_completion2(nullptr, nullptr, &c), 0);
		assert_int_equal(
		    rados_striper_aio_write(s, name, c, (const char *)bytes.data(), WRITE, off), 0);
		cs.push_back(c);
	}
	wait_all(cs);
	for (uint64_t off : offs) {
		auto got =
		    read_object(name, (unsigned)(off / OBJECT), off % OBJECT, WRITE, nullptr);
		assert_int_equal(pattern_check(got.data(), WRITE, 7, off), -1);
	}
	std::vector<uint8_t> hole(WRITE);
	auto got = read_object(name, 1, 3 * WRITE, WRITE, nullptr);
	assert_memory_equal(got.data(), hole.data(), WRITE);
	uint64_t size;
	time_t mtime;
	assert_int_equal(rados_striper_stat(s, name, &size, &mtime), 0);
	assert_int_equal(size, 3 * OBJECT + 2 * WRITE);
	remove_file(s, name);
}

/* aio_flush returns once every aio write made before it completed, gathered or not. */
void test_flush_waits_for_gathered(void **)
{
	rados_striper_t s = make_striper();
	char name[64];
	std::vector<uint8_t> bytes;

	unique_name(name, sizeof(name), "flush");
	auto cs = write_all(s, name, 8, OBJECT, &bytes);
	rados_striper_aio_flush(s);
	for (rados_completion_t c : cs)
		assert_true(rados_aio_is_complete(c));
	wait_all(cs);
	remove_file(s, name);
}

/* XrdCeph's own call: the C++ API with a bufferlist per write. */
void test_cxx_bufferlists_gather(void **)
{
	librados::IoCtx io;
	libradosstriper::RadosStriper s;
	char name[64];
	std::vector<librados::AioCompletion *> cs;

	librados::IoCtx::from_rados_ioctx_t(counted.io, io);
	assert_int_equal(libradosstriper::RadosStriper::striper_create(io, &s), 0);
	assert_int_equal(s.set_object_layout_stripe_unit(OBJECT), 0);
	assert_int_equal(s.set_object_layout_stripe_count(1), 0);
	assert_int_equal(s.set_object_layout_object_size(OBJECT), 0);
	unique_name(name, sizeof(name), "cxx");
	assert_int_equal(s.write(name, ceph::bufferlist(), 0, 0), 0);
	uint64_t before = data_writes_sent();
	for (int i = 0; i < WRITES; i++) {
		std::vector<uint8_t> bytes(WRITE);
		ceph::bufferlist bl;
		pattern_fill(bytes.data(), WRITE, 9, OBJECT + i * WRITE);
		bl.append((const char *)bytes.data(), WRITE);
		cs.push_back(librados::Rados::aio_create_completion());
		assert_int_equal(s.aio_write(name, cs.back(), bl, WRITE, OBJECT + i * WRITE), 0);
	}
	for (auto *c : cs) {
		c->wait_for_complete();
		assert_int_equal(c->get_return_value(), 0);
		c->release();
	}
	uint64_t served = data_writes_sent() - before;
	auto got = read_object(name, 1, 0, WRITES * WRITE, nullptr);
	assert_int_equal(pattern_check(got.data(), got.size(), 9, OBJECT), -1);
	printf("# C++ API, %d aio writes of 64 KiB: %llu RADOS writes\n", WRITES,
	       (unsigned long long)served);
	assert_true(served <= WRITES / 2);
	assert_int_equal(s.remove(name), 0);
}

/*
 * On an erasure-coded pool without overwrites, which takes a file's writes
 * only in order, each where the one before ended: 1024 aio writes of 64 KiB
 * kept 32 in flight (XrdCeph's pattern with a deeper window), every one
 * taken, the file whole. Their runs reach libstriped in the order they
 * were made, whichever thread sends them.
 */
void test_ec_pool_takes_writes_in_order(void **)
{
	const char *pool = getenv("STRIPED_TEST_EC_POOL");
	constexpr int N = 1024, DEPTH = 32;
	rados_ioctx_t io;
	rados_striper_t s;
	char name[64];
	std::vector<uint8_t> bytes(N * WRITE), got(N * WRITE);
	std::vector<rados_completion_t> cs(N);

	if (!pool) {
		assert_false(cluster_required()); /* scripts/test's cluster has one */
		skip();
	}
	assert_int_equal(rados_ioctx_create(cl.rados, pool, &io), 0);
	assert_int_equal(rados_striper_create(io, &s), 0);
	/* Small objects: where they end is learned often, and a run that would wait for it is
	 * sent later, from another thread, while the runs after it are ready. */
	assert_int_equal(rados_striper_set_object_layout_stripe_unit(s, WRITE), 0);
	assert_int_equal(rados_striper_set_object_layout_stripe_count(s, 1), 0);
	assert_int_equal(rados_striper_set_object_layout_object_size(s, WRITE), 0);
	unique_name(name, sizeof(name), "ec");
	pattern_fill(bytes.data(), bytes.size(), 12, 0);
	for (int i = 0; i < N; i++) {
		if (i >= DEPTH) {
			rados_aio_wait_for_complete(cs[i - DEPTH]);
			assert_int_equal(rados_aio_get_return_value(cs[i - DEPTH]), 0);
		}
		assert_int_equal(rados_aio_create_completion2(nullptr, nullptr, &cs[i]), 0);
		assert_int_equal(rados_striper_aio_write(s, name, cs[i],
							 (const char *)bytes.data() + i * WRITE,
							 WRITE, (uint64_t)i * WRITE),
				 0);
	}
	for (int i = 0; i < N; i++) {
		rados_aio_wait_for_complete(cs[i]);
		assert_int_equal(rados_aio_get_return_value(cs[i]), 0);
		rados_aio_release(cs[i]);
	}
	assert_int_equal(rados_striper_read(s, name, (char *)got.data(), got.size(), 0),
			 (int)got.size());
	assert_int_equal(pattern_check(got.data(), got.size(), 12, 0), -1);
	assert_int_equal(rados_striper_remove(s, name), 0);
	rados_striper_destroy(s);
	rados_ioctx_destroy(io);
}

/* ---- reads ---- */

/* n aio reads of len each, end to end from off, all made at once into one buffer. */
struct Reads {
	std::vector<rados_completion_t> cs;
	std::vector<uint8_t> buf;
};

Reads read_all(rados_striper_t s, const char *name, uint64_t off, size_t len, int n)
{
	Reads rd;

	rd.cs.resize(n);
	rd.buf.assign((size_t)n * len, 0xee);
	for (int i = 0; i < n; i++) {
		assert_int_equal(rados_aio_create_completion2(nullptr, nullptr, &rd.cs[i]), 0);
		assert_int_equal(rados_striper_aio_read(s, name, rd.cs[i],
							(char *)rd.buf.data() + i * len, len,
							off + i * len),
				 0);
	}
	return rd;
}

/* Wait for them all; each one's result. */
std::vector<int> wait_reads(Reads *rd)
{
	std::vector<int> got;

	for (rados_completion_t c : rd->cs) {
		rados_aio_wait_for_complete(c);
		got.push_back(rados_aio_get_return_value(c));
		rados_aio_release(c);
	}
	rd->cs.clear();
	return got;
}

/* A file of WRITES * WRITE bytes of pattern seed in object 1 (from OBJECT), written and synced. */
rados_striper_t file_of_writes(char *name, size_t len, const char *what, uint64_t seed)
{
	rados_striper_t s = make_striper();
	std::vector<uint8_t> bytes(WRITES * WRITE);

	unique_name(name, len, what);
	pattern_fill(bytes.data(), bytes.size(), seed, OBJECT);
	assert_int_equal(rados_striper_write(s, name, (const char *)bytes.data(), bytes.size(),
					     OBJECT),
			 0);
	return s;
}

/*
 * reads aio reads of 64 KiB from off into got, window in flight, the next
 * made as the oldest completes (as XrdCeph reads): each returns WRITE, and
 * none completes before one made before it.
 */
void read_window(rados_striper_t s, const char *name, uint64_t off, int reads, int window,
		 uint8_t *got)
{
	std::vector<rados_completion_t> cs(reads);
	int made = 0;

	for (int done = 0; done < reads; done++) {
		for (; made < reads && made < done + window; made++) {
			assert_int_equal(rados_aio_create_completion2(nullptr, nullptr, &cs[made]), 0);
			assert_int_equal(rados_striper_aio_read(s, name, cs[made],
								(char *)got + made * WRITE, WRITE,
								off + (uint64_t)made * WRITE),
					 0);
		}
		rados_aio_wait_for_complete(cs[done]);
		assert_int_equal(rados_aio_get_return_value(cs[done]), (int)WRITE);
		for (int later = done + 1; later < made; later++)
			if (rados_aio_is_complete(cs[later]))
				assert_true(rados_aio_is_complete(cs[done]));
		rados_aio_release(cs[done]);
	}
}

/*
 * XrdCeph's reads: 64 KiB aio reads, 8 in flight, the next made as the
 * oldest completes, over 4 MiB: each has its bytes, in order. How many RADOS
 * reads they become is printed, not checked: it depends on how the host
 * schedules the application against the completions (35 of 64 were seen
 * with both cores busy, where 16 to 22 are usual); the check of the
 * gathering itself is test_reads_made_together_gather().
 */
void test_xrdceph_reads(void **)
{
	rados_striper_t s = make_striper(counted.io);
	char name[64];
	const int reads = 64, window = 8;
	std::vector<uint8_t> bytes(reads * WRITE), got(reads * WRITE, 0xee);

	unique_name(name, sizeof(name), "rgather");
	pattern_fill(bytes.data(), bytes.size(), 21, 0);
	assert_int_equal(rados_striper_write(s, name, (const char *)bytes.data(), bytes.size(), 0),
			 0);
	uint64_t before = objecter_counter("op_r");
	read_window(s, name, 0, reads, window, got.data());
	uint64_t served = objecter_counter("op_r") - before;
	assert_int_equal(pattern_check(got.data(), got.size(), 21, 0), -1);
	printf("# %d aio reads of 64 KiB, %d in flight: %llu RADOS reads\n", reads, window,
	       (unsigned long long)served);
	remove_file(s, name);
}

/*
 * The completions of every aio call on one connection (its stripers' too),
 * held: librados runs their callbacks one at a time, in the order the
 * operations completed, and the callback of the operation this makes waits
 * until release(). An operation on an object completes after those sent
 * before it on the same object.
 */
struct Hold {
	std::mutex lock;
	std::condition_variable changed;
	bool entered = false, released = false;
	rados_completion_t c = nullptr;
	char byte;

	static void callback(rados_completion_t, void *arg)
	{
		auto *h = static_cast<Hold *>(arg);
		std::unique_lock<std::mutex> l(h->lock);
		h->entered = true;
		h->changed.notify_all();
		h->changed.wait(l, [h] { return h->released; });
	}

	/* From the completion of a read of oid on io's connection: nothing completes till release(). */
	void hold_after(rados_ioctx_t io, const std::string &oid)
	{
		assert_int_equal(rados_aio_create_completion2(this, callback, &c), 0);
		assert_int_equal(rados_aio_read(io, oid.c_str(), c, &byte, 1, 0), 0);
	}

	void wait_held()
	{
		std::unique_lock<std::mutex> l(lock);
		changed.wait(l, [this] { return entered; });
	}

	void release()
	{
		{
			std::lock_guard<std::mutex> l(lock);
			released = true;
		}
		changed.notify_all();
	}

	~Hold()
	{
		if (c) {
			rados_aio_wait_for_complete_and_cb(c); /* out of callback() too */
			rados_aio_release(c);
		}
	}
};

/*
 * The gathering, whatever the scheduling: the reads' completions are held
 * (Hold), so that what the drop-in had together is known. 8 aio reads of
 * 64 KiB (each sent alone: nothing was learnt yet), then the first of them
 * completes while the other 7 are still out: the drop-in learns that 8 are
 * in flight, so a run waits for 4 (two runs out at once). Then 64 aio reads
 * of 64 KiB over the next object, made while those 7 are still out: the
 * drop-in sends them as 16 reads of 256 KiB. Sent one by one they would be
 * 64 (and a run that went after a time would be shorter, and the runs after
 * it too). Two more, short of a run, wait while runs are out (20 ms here,
 * 20 times the wait of a run with none out), and go once those are in.
 * Each has its bytes once released. Counted where they are sent: the
 * client's own count (its admin socket), not the OSDs', which counts other
 * clients' too.
 */
void test_reads_made_together_gather(void **)
{
	const int first = 8, batch = 64;
	std::vector<uint8_t> bytes(2 * OBJECT + 2 * WRITE);
	char name[64];

	rados_striper_t s = make_striper(counted.io);
	unique_name(name, sizeof(name), "rtogether");
	pattern_fill(bytes.data(), bytes.size(), 31, 0);
	assert_int_equal(rados_striper_write(s, name, (const char *)bytes.data(), bytes.size(), 0),
			 0);
	/* The file opened first: its open ends in callbacks of its own. */
	Reads open = read_all(s, name, 0, WRITE, 1);
	assert_int_equal(wait_reads(&open)[0], (int)WRITE);

	Hold until_first, after_first;
	until_first.hold_after(counted.io, object_of(name, 0));
	until_first.wait_held();
	Reads w0 = read_all(s, name, 0, WRITE, 1);
	after_first.hold_after(counted.io, object_of(name, 0)); /* after w0's, before the others' */
	Reads rest = read_all(s, name, WRITE, WRITE, first - 1);
	until_first.release();
	rados_aio_wait_for_complete(w0.cs[0]);
	assert_int_equal(rados_aio_get_return_value(w0.cs[0]), (int)WRITE);
	after_first.wait_held();

	uint64_t before = objecter_counter("op_r");
	Reads rd = read_all(s, name, OBJECT, WRITE, batch);
	uint64_t sent = objecter_counter("op_r") - before;
	/* Two more: short of a run, they wait while runs are out, however long. */
	Reads tail = read_all(s, name, 2 * OBJECT, WRITE, 2);
	usleep(20 * 1000);
	uint64_t tail_sent = objecter_counter("op_r") - before - sent;
	after_first.release();
	for (int r : wait_reads(&rest))
		assert_int_equal(r, (int)WRITE);
	for (int r : wait_reads(&rd))
		assert_int_equal(r, (int)WRITE);
	for (int r : wait_reads(&tail))
		assert_int_equal(r, (int)WRITE);
	uint64_t all_sent = objecter_counter("op_r") - before;
	assert_int_equal(pattern_check(w0.buf.data(), WRITE, 31, 0), -1);
	assert_int_equal(pattern_check(rest.buf.data(), rest.buf.size(), 31, WRITE), -1);
	assert_int_equal(pattern_check(rd.buf.data(), rd.buf.size(), 31, OBJECT), -1);
	assert_int_equal(pattern_check(tail.buf.data(), tail.buf.size(), 31, 2 * OBJECT), -1);
	wait_reads(&w0);
	printf("# %d aio reads of 64 KiB made while %d were out: %llu RADOS reads; 2 more: %llu "
	       "while runs were out, %llu after\n",
	       batch, first - 1, (unsigned long long)sent, (unsigned long long)tail_sent,
	       (unsigned long long)(all_sent - sent - tail_sent));
	assert_int_equal(sent, batch / (first / 2));
	assert_int_equal(tail_sent, 0);
	assert_int_equal(all_sent, sent + 1);
	remove_file(s, name);
}

/*
 * Reads gathered over a hole and past the end: each completes with its own
 * count, zeros in the hole, a short read at the end, 0 past it. The file:
 * 64 KiB of data, a 128 KiB hole, then data up to 40 KiB into the fifth
 * 64 KiB; eight reads of 64 KiB from its start.
 */
void test_reads_over_holes_and_end(void **)
{
	rados_striper_t s = make_striper();
	char name[64];
	std::vector<uint8_t> head(WRITE), tail(WRITE + 40960);
	const uint64_t tail_at = 3 * WRITE, size = tail_at + tail.size();

	unique_name(name, sizeof(name), "rholes");
	pattern_fill(head.data(), head.size(), 22, 0);
	pattern_fill(tail.data(), tail.size(), 22, tail_at);
	assert_int_equal(rados_striper_write(s, name, (const char *)head.data(), WRITE, 0), 0);
	assert_int_equal(rados_striper_write(s, name, (const char *)tail.data(), tail.size(),
					     tail_at),
			 0);
	for (int round = 0; round < 3; round++) {
		Reads rd = read_all(s, name, 0, WRITE, 8);
		std::vector<int> got = wait_reads(&rd);
		for (int i = 0; i < 8; i++) {
			uint64_t at = (uint64_t)i * WRITE;
			int want = at >= size ? 0 : (int)std::min<uint64_t>(WRITE, size - at);
			assert_int_equal(got[i], want);
		}
		const uint8_t *b = rd.buf.data();
		assert_int_equal(pattern_check(b, WRITE, 22, 0), -1);
		std::vector<uint8_t> zeros(2 * WRITE);
		assert_memory_equal(b + WRITE, zeros.data(), zeros.size());
		assert_int_equal(pattern_check(b + tail_at, tail.size(), 22, tail_at), -1);
	}
	remove_file(s, name);
}

/*
 * A read made after another client's write was acknowledged sees it, though
 * it gathers with a read made before that write.
 */
void test_read_sees_write_acknowledged_before(void **)
{
	char name[64];
	rados_striper_t s = file_of_writes(name, sizeof(name), "rsees", 23);
	std::vector<uint8_t> fresh(WRITE);

	std::vector<uint8_t> warm(WRITES * WRITE);
	for (int i = 0; i + 1 < WRITES; i++) {
		/* The drop-in learns that 8 are kept in flight: the next read waits for others. */
		read_window(s, name, OBJECT, WRITES, 8, warm.data());
		Reads first = read_all(s, name, OBJECT + i * WRITE, WRITE, 1);
		pattern_fill(fresh.data(), WRITE, 24 + i, OBJECT + (i + 1) * WRITE);
		assert_int_equal(rados_write(reader.io, object_of(name, 1).c_str(),
					     (const char *)fresh.data(), WRITE, (i + 1) * WRITE),
				 0);
		Reads second = read_all(s, name, OBJECT + (i + 1) * WRITE, WRITE, 1);
		assert_int_equal(wait_reads(&second)[0], (int)WRITE);
		assert_int_equal(
		    pattern_check(second.buf.data(), WRITE, 24 + i, OBJECT + (i + 1) * WRITE), -1);
		assert_int_equal(wait_reads(&first)[0], (int)WRITE);
	}
	remove_file(s, name);
}

/*
 * An aio read made before a write over the same bytes reaches RADOS before
 * it, gathering or not (stock sends it before its call returns): it reads
 * the bytes as they were.
 */
void test_read_goes_before_later_write(void **)
{
	char name[64];
	rados_striper_t s = file_of_writes(name, sizeof(name), "rbefore", 25);
	std::vector<uint8_t> later(WRITE);

	std::vector<uint8_t> warm(WRITES * WRITE);
	for (int i = 0; i < WRITES; i++) {
		/* As above: the read below gathers, waiting for others. */
		read_window(s, name, OBJECT, WRITES, 8, warm.data());
		Reads rd = read_all(s, name, OBJECT + i * WRITE, WRITE, 1);
		pattern_fill(later.data(), WRITE, 26 + i, OBJECT + i * WRITE);
		assert_int_equal(rados_striper_write(s, name, (const char *)later.data(), WRITE,
						     OBJECT + i * WRITE),
				 0);
		assert_int_equal(wait_reads(&rd)[0], (int)WRITE);
		assert_int_equal(pattern_check(rd.buf.data(), WRITE, 25, OBJECT + i * WRITE), -1);
	}
	remove_file(s, name);
}

/*
 * The file removed by another client while a striper keeps it open: every
 * one of a run's reads fails on its own (as the call, or as its
 * completion), none with bytes, and each completes.
 */
void test_each_read_gets_the_error(void **)
{
	char name[64];
	rados_striper_t s = file_of_writes(name, sizeof(name), "rerr", 29);
	rados_striper_t other = make_striper();
	std::vector<uint8_t> buf(WRITES * WRITE);

	read_window(s, name, OBJECT, WRITES, 8, buf.data()); /* open, 8 in flight learnt */
	assert_int_equal(rados_striper_remove(other, name), 0);
	std::vector<rados_completion_t> cs(WRITES);
	std::vector<int> started(WRITES);
	for (int i = 0; i < WRITES; i++) {
		assert_int_equal(rados_aio_create_completion2(nullptr, nullptr, &cs[i]), 0);
		started[i] = rados_striper_aio_read(s, name, cs[i], (char *)buf.data() + i * WRITE,
						    WRITE, OBJECT + (uint64_t)i * WRITE);
	}
	for (int i = 0; i < WRITES; i++) {
		int r = started[i];
		if (!r) {
			rados_aio_wait_for_complete(cs[i]);
			r = rados_aio_get_return_value(cs[i]);
		}
		printf("# read %d: %s %d\n", i, started[i] ? "call" : "completion", r);
		assert_true(r < 0);
		rados_aio_release(cs[i]);
	}
	rados_striper_destroy(other);
	rados_striper_destroy(s);
}

/*
 * The striper destroyed while its reads still gather: each completes, with
 * its bytes, and nothing is left behind (the ASan build's leak check).
 */
void test_destroy_with_reads_gathering(void **)
{
	char name[64];
	rados_striper_t s = file_of_writes(name, sizeof(name), "rdestroy", 30);
	std::vector<uint8_t> warm(WRITES * WRITE);

	read_window(s, name, OBJECT, WRITES, 8, warm.data()); /* the next reads gather */
	Reads rd = read_all(s, name, OBJECT, WRITE, WRITES);
	rados_striper_destroy(s);
	for (int r : wait_reads(&rd))
		assert_int_equal(r, (int)WRITE);
	assert_int_equal(pattern_check(rd.buf.data(), rd.buf.size(), 30, OBJECT), -1);
	rados_striper_t again = make_striper();
	remove_file(again, name);
}

/* XrdCeph's own call: the C++ API, a bufferlist per read, each as long as its bytes. */
void test_cxx_bufferlist_reads_gather(void **)
{
	librados::IoCtx io;
	libradosstriper::RadosStriper s;
	char name[64];
	std::vector<uint8_t> bytes(WRITES * WRITE - 1000);

	librados::IoCtx::from_rados_ioctx_t(cl.io, io);
	assert_int_equal(libradosstriper::RadosStriper::striper_create(io, &s), 0);
	unique_name(name, sizeof(name), "rcxx");
	pattern_fill(bytes.data(), bytes.size(), 27, 0);
	ceph::bufferlist data;
	data.append((const char *)bytes.data(), bytes.size());
	assert_int_equal(s.write(name, data, data.length(), 0), 0);
	for (int round = 0; round < 2; round++) {
		std::vector<librados::AioCompletion *> cs;
		std::vector<ceph::bufferlist> bls(WRITES);
		for (int i = 0; i < WRITES; i++) {
			cs.push_back(librados::Rados::aio_create_completion());
			assert_int_equal(s.aio_read(name, cs.back(), &bls[i], WRITE, i * WRITE), 0);
		}
		for (int i = 0; i < WRITES; i++) {
			cs[i]->wait_for_complete();
			int want = i + 1 < WRITES ? (int)WRITE : (int)WRITE - 1000;
			assert_int_equal(cs[i]->get_return_value(), want);
			assert_int_equal(bls[i].length(), want);
			assert_int_equal(pattern_check((const uint8_t *)bls[i].c_str(), want, 27,
						       (uint64_t)i * WRITE),
					 -1);
			cs[i]->release();
		}
	}
	assert_int_equal(s.remove(name), 0);
}

/* The same reads on an erasure-coded pool (reads there are whole stripes to the OSDs). */
void test_ec_pool_reads_gather(void **)
{
	const char *pool = getenv("STRIPED_TEST_EC_POOL");
	rados_ioctx_t io;
	rados_striper_t s;
	char name[64];
	std::vector<uint8_t> bytes(WRITES * WRITE - 4096);

	if (!pool) {
		assert_false(cluster_required()); /* scripts/test's cluster has one */
		skip();
	}
	assert_int_equal(rados_ioctx_create(cl.rados, pool, &io), 0);
	assert_int_equal(rados_striper_create(io, &s), 0);
	unique_name(name, sizeof(name), "rec");
	pattern_fill(bytes.data(), bytes.size(), 28, 0);
	assert_int_equal(rados_striper_write(s, name, (const char *)bytes.data(), bytes.size(), 0),
			 0);
	for (int round = 0; round < 2; round++) {
		Reads rd = read_all(s, name, 0, WRITE, WRITES + 2);
		std::vector<int> got = wait_reads(&rd);
		for (int i = 0; i < WRITES + 2; i++) {
			uint64_t at = (uint64_t)i * WRITE;
			int want = at >= bytes.size() ? 0
						      : (int)std::min<uint64_t>(WRITE, bytes.size() - at);
			assert_int_equal(got[i], want);
		}
		assert_int_equal(pattern_check(rd.buf.data(), bytes.size(), 28, 0), -1);
	}
	assert_int_equal(rados_striper_remove(s, name), 0);
	rados_striper_destroy(s);
	rados_ioctx_destroy(io);
}

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_contiguous_writes_gather),
	    cmocka_unit_test(test_completed_writes_have_landed),
	    cmocka_unit_test(test_later_sync_write_goes_after),
	    cmocka_unit_test(test_later_aio_writes_win),
	    cmocka_unit_test(test_gaps_and_jumps),
	    cmocka_unit_test(test_flush_waits_for_gathered),
	    cmocka_unit_test(test_cxx_bufferlists_gather),
	    cmocka_unit_test(test_ec_pool_takes_writes_in_order),
	    cmocka_unit_test(test_xrdceph_reads),
	    cmocka_unit_test(test_reads_made_together_gather),
	    cmocka_unit_test(test_reads_over_holes_and_end),
	    cmocka_unit_test(test_read_sees_write_acknowledged_before),
	    cmocka_unit_test(test_read_goes_before_later_write),
	    cmocka_unit_test(test_each_read_gets_the_error),
	    cmocka_unit_test(test_destroy_with_reads_gathering),
	    cmocka_unit_test(test_cxx_bufferlist_reads_gather),
	    cmocka_unit_test(test_ec_pool_reads_gather),
	};

	cluster_skip_unless_configured();
	return cmocka_run_group_tests(tests, setup, teardown);
}
