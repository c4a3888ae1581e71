// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A transcript of libradosstriper's C++ API (libradosstriper::RadosStriper),
 * as transcript_c.c is of its C API: one line "step: result" per call, on
 * whichever libradosstriper.so.1 is loaded; compare.py compares stock's and
 * the drop-in's.
 *
 * usage: transcript_cxx POOL PREFIX      (CEPH_CONF names the cluster)
 */
#include <dlfcn.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <rados/librados.hpp>
#include <radosstriper/libradosstriper.hpp>

namespace
{

std::string prefix;

std::string fname(const char *name)
{
	return prefix + "-" + name;
}

void out(const char *step, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", step);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

uint64_t fnv(const char *p, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

/* len bytes of a pattern, in pieces of piece bytes: a bufferlist of many buffers. */
ceph::bufferlist pattern(size_t len, size_t piece, unsigned seed)
{
	ceph::bufferlist bl;
	std::string s(len, '\0');

	for (size_t i = 0; i < len; i++)
		s[i] = (char)(seed + i * 131 + (i >> 9));
	for (size_t off = 0; off < len; off += piece)
		bl.append(s.data() + off, (unsigned)std::min(piece, len - off));
	return bl;
}

std::string hash(ceph::bufferlist &bl)
{
	char b[32];

	snprintf(b, sizeof(b), "%016llx",
		 (unsigned long long)fnv(bl.length() ? bl.c_str() : "", bl.length()));
	return b;
}

void read_step(libradosstriper::RadosStriper &s, const char *step, const char *name, size_t len,
	       uint64_t off)
{
	ceph::bufferlist bl;
	int r = s.read(fname(name), &bl, len, off);

	out(step, "%d length %u hash %s", r, bl.length(), r >= 0 ? hash(bl).c_str() : "-");
}

void stat_step(libradosstriper::RadosStriper &s, const char *step, const char *name)
{
	uint64_t size = 12345;
	time_t mtime = 0;
	struct timespec ts = {0, 0};
	int r = s.stat(fname(name), &size, &mtime);
	int r2 = s.stat2(fname(name), &size, &ts);

	if (r || r2)
		out(step, "%d %d", r, r2);
	else
		out(step, "0 0 size %llu mtime %s stat2 mtime %s", (unsigned long long)size,
		    mtime > 1000000000 ? "set" : "unset",
		    ts.tv_sec == mtime ? "same" : "differs");
}

struct counter {
	int calls = 0;
};

void count_cb(librados::completion_t, void *arg)
{
	static_cast<counter *>(arg)->calls++;
}

/* Start with start(c), wait as a program would, print the result. */
template <typename F> void aio_step(const char *step, F start)
{
	counter n;
	librados::AioCompletion *c = librados::Rados::aio_create_completion(&n, count_cb);
	int r = start(c);

	if (r) {
		out(step, "start %d", r);
	} else {
		c->wait_for_complete_and_cb();
		out(step, "start 0 result %d complete %d callbacks %d", c->get_return_value(),
		    c->is_complete(), n.calls);
	}
	c->release();
}

void copies(librados::IoCtx &io)
{
	libradosstriper::RadosStriper a;
	out("create", "%d", libradosstriper::RadosStriper::striper_create(io, &a));
	out("set su 64K", "%d", a.set_object_layout_stripe_unit(65536));
	out("set sc 2", "%d", a.set_object_layout_stripe_count(2));
	out("set os 128K", "%d", a.set_object_layout_object_size(131072));
	{
		libradosstriper::RadosStriper b(a), c;
		c = b;
		libradosstriper::RadosStriper &same = c; /* clang warns on `c = c` */
		c = same;
		ceph::bufferlist bl = pattern(300000, 300000, 5);
		out("copy write", "%d", c.write(fname("copies"), bl, bl.length(), 0));
	}
	/* a's layout, set before the copies were made, is the copies' too: 2 objects per set. */
	uint64_t psize;
	time_t pmtime;
	out("layout object 1 of copy's file", "%d",
	    io.stat(fname("copies") + ".0000000000000001", &psize, &pmtime));
	out("layout object 1 size", "%llu", (unsigned long long)psize);
	rados_striper_t cs;
	libradosstriper::RadosStriper::to_rados_striper_t(a, &cs);
	char buf[16];
	out("C handle of a C++ striper read", "%d",
	    rados_striper_read(cs, fname("copies").c_str(), buf, sizeof(buf), 0));
	rados_striper_destroy(cs);
	stat_step(a, "stat through a after the copies went", "copies");
	out("remove copies", "%d", a.remove(fname("copies")));
}

void data(libradosstriper::RadosStriper &s)
{
	ceph::bufferlist many = pattern(250000, 4096, 1);
	out("write fragmented 250000", "%d", s.write(fname("data"), many, many.length(), 0));
	stat_step(s, "stat after first write", "data");
	read_step(s, "read all", "data", 250000, 0);
	read_step(s, "read more than the file", "data", 1 << 20, 0);
	read_step(s, "read past end", "data", 100, 300000);
	read_step(s, "read 0", "data", 0, 0);
	ceph::bufferlist part = pattern(10000, 10000, 2);
	out("write prefix of a bufferlist", "%d", s.write(fname("data"), part, 5000, 1000000));
	stat_step(s, "stat after prefix write", "data");
	ceph::bufferlist ap = pattern(3000, 1000, 3);
	out("append 2000 of 3000", "%d", s.append(fname("data"), ap, 2000));
	stat_step(s, "stat after append", "data");
	read_step(s, "read appended", "data", 2000, 1005000);
	ceph::bufferlist full = pattern(7777, 7777, 4);
	out("write_full", "%d", s.write_full(fname("data"), full));
	stat_step(s, "stat after write_full", "data");
	read_step(s, "read after write_full", "data", 100000, 0);
	out("trunc 100", "%d", s.trunc(fname("data"), 100));
	stat_step(s, "stat after trunc", "data");
}

void xattrs(libradosstriper::RadosStriper &s)
{
	ceph::bufferlist v;
	v.append("value-one");
	out("setxattr", "%d", s.setxattr(fname("data"), "user.one", v));
	ceph::bufferlist got;
	int r = s.getxattr(fname("data"), "user.one", got);
	out("getxattr", "%d %s", r, got.to_str().c_str());
	std::map<std::string, ceph::bufferlist> attrs;
	r = s.getxattrs(fname("data"), attrs);
	out("getxattrs", "%d count %zu", r, attrs.size());
	for (auto &kv : attrs)
		out("getxattrs entry", "%s=%s", kv.first.c_str(), kv.second.to_str().c_str());
	out("rmxattr", "%d", s.rmxattr(fname("data"), "user.one"));
	got.clear();
	out("getxattr removed", "%d", s.getxattr(fname("data"), "user.one", got));
	out("getxattr missing file", "%d", s.getxattr(fname("nofile"), "user.one", got));
}

void aio(libradosstriper::RadosStriper &s)
{
	ceph::bufferlist bl = pattern(500000, 65536, 9);
	aio_step("aio_write", [&](librados::AioCompletion *c) {
		return s.aio_write(fname("aio"), c, bl, bl.length(), 0);
	});
	ceph::bufferlist rb;
	aio_step("aio_read", [&](librados::AioCompletion *c) {
		return s.aio_read(fname("aio"), c, &rb, 600000, 0);
	});
	out("aio_read data", "length %u hash %s", rb.length(), hash(rb).c_str());
	uint64_t size = 0;
	time_t mtime = 0;
	struct timespec ts = {0, 0};
	aio_step("aio_stat", [&](librados::AioCompletion *c) {
		return s.aio_stat(fname("aio"), c, &size, &mtime);
	});
	out("aio_stat values", "size %llu mtime %s", (unsigned long long)size,
	    mtime > 1000000000 ? "set" : "unset");
	aio_step("aio_stat2", [&](librados::AioCompletion *c) {
		return s.aio_stat2(fname("aio"), c, &size, &ts);
	});
	out("aio_stat2 values", "size %llu mtime %s", (unsigned long long)size,
	    ts.tv_sec == mtime ? "same" : "differs");
	ceph::bufferlist ap = pattern(4000, 4000, 1);
	aio_step("aio_append", [&](librados::AioCompletion *c) {
		return s.aio_append(fname("aio"), c, ap, ap.length());
	});
	stat_step(s, "stat after aio_append", "aio");
	ceph::bufferlist full = pattern(1234, 1234, 1);
	aio_step("aio_write_full", [&](librados::AioCompletion *c) {
		return s.aio_write_full(fname("aio"), c, full);
	});
	stat_step(s, "stat after aio_write_full", "aio");
	out("aio_flush", "%d", s.aio_flush());
	aio_step("aio_remove flags", [&](librados::AioCompletion *c) {
		return s.aio_remove(fname("aio"), c, 0);
	});
	stat_step(s, "stat after aio_remove", "aio");
	aio_step("aio_read missing", [&](librados::AioCompletion *c) {
		return s.aio_read(fname("aio"), c, &rb, 10, 0);
	});
}

void multi()
{
	counter n;
	libradosstriper::MultiAioCompletion *m =
		libradosstriper::RadosStriper::multi_aio_create_completion();
	out("multi is_complete", "%d", m->is_complete());
	out("multi is_complete_and_cb", "%d", m->is_complete_and_cb());
	m->wait_for_complete();
	m->wait_for_complete_and_cb();
	out("multi return", "%d", m->get_return_value());
	out("multi set callback", "%d", m->set_complete_callback(&n, count_cb));
	out("multi is_complete_and_cb with callback", "%d", m->is_complete_and_cb());
	out("multi callbacks", "%d", n.calls);
	delete m; /* not release(): stock's frees its implementation twice */
}

const char *which_library()
{
	Dl_info info;

	if (!dladdr((void *)rados_striper_create, &info) || !info.dli_fname)
		return "unknown";
	return info.dli_fname;
}

} // namespace

int main(int argc, char **argv)
{
	librados::Rados cluster;
	librados::IoCtx io;

	if (argc != 3) {
		fprintf(stderr, "usage: transcript_cxx POOL PREFIX\n");
		return 2;
	}
	prefix = argv[2];
	if (cluster.init(nullptr) || cluster.conf_read_file(getenv("CEPH_CONF")) ||
	    cluster.connect() || cluster.ioctx_create(argv[1], io)) {
		fprintf(stderr, "transcript_cxx: cannot connect to the cluster\n");
		return 1;
	}
	fprintf(stderr, "transcript_cxx: library %s\n", which_library());
	copies(io);
	{
		libradosstriper::RadosStriper s;
		libradosstriper::RadosStriper::striper_create(io, &s);
		data(s);
		xattrs(s);
		aio(s);
		out("remove data", "%d", s.remove(fname("data"), 0));
		stat_step(s, "stat removed", "data");
	}
	multi();
	io.close();
	cluster.shutdown();
	return 0;
}
