/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A transcript of libradosstriper's C API: the same calls, made on whichever
 * libradosstriper.so.1 the dynamic linker loads (stock, or libstriped's
 * drop-in through LD_LIBRARY_PATH), each printed as one line "step: result".
 * compare.py runs it on both and compares the two transcripts line by line.
 * Only what both libraries survive is called here: bad input that crashes
 * stock libradosstriper is bad_input.c's, run on the drop-in alone.
 *
 * usage: transcript_c POOL PREFIX      (CEPH_CONF names the cluster)
 * Every file it makes is named PREFIX-..., and removed before it exits.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rados/librados.h>
#include <radosstriper/libradosstriper.h>

static rados_ioctx_t io;
static rados_striper_t st;
static const char *prefix;

static const char *fname(const char *name)
{
	static char buf[8][256];
	static int next;
	char *b = buf[next++ % 8];

	snprintf(b, 256, "%s-%s", prefix, name);
	return b;
}

static void out(const char *step, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", step);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static uint64_t fnv(const char *p, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static void fill(char *buf, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(seed + i * 131 + (i >> 9));
}

static int all_zero(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/* One read, printed with the bytes' hash. */
static void read_step(const char *step, const char *name, size_t len, uint64_t off)
{
	char *buf = malloc(len ? len : 1);
	int r = rados_striper_read(st, fname(name), buf, len, off);

	if (r > 0)
		out(step, "%d hash %016llx", r, (unsigned long long)fnv(buf, (size_t)r));
	else
		out(step, "%d", r);
	free(buf);
}

static void stat_step(const char *step, const char *name)
{
	uint64_t size = 12345;
	time_t mtime = 0;
	int r = rados_striper_stat(st, fname(name), &size, &mtime);

	if (r)
		out(step, "%d", r);
	else
		out(step, "0 size %llu mtime %s", (unsigned long long)size,
		    mtime > 1000000000 ? "set" : "unset");
}

/* ---- aio ---- */

struct cb_count {
	pthread_mutex_t lock;
	int calls;
};

static void count_cb(rados_completion_t c, void *arg)
{
	struct cb_count *n = arg;

	(void)c;
	pthread_mutex_lock(&n->lock);
	n->calls++;
	pthread_mutex_unlock(&n->lock);
}

/* Wait as a program would, and print the result and how often the callback ran. */
static void aio_finish(const char *step, int started, rados_completion_t c, struct cb_count *n,
		       const char *data, size_t len)
{
	if (started) {
		out(step, "start %d", started);
		rados_aio_release(c);
		return;
	}
	rados_aio_wait_for_complete_and_cb(c);
	int r = rados_aio_get_return_value(c);
	if (data && r > 0)
		out(step, "start 0 result %d complete %d callbacks %d hash %016llx", r,
		    rados_aio_is_complete(c), n->calls,
		    (unsigned long long)fnv(data, (size_t)r < len ? (size_t)r : len));
	else
		out(step, "start 0 result %d complete %d callbacks %d", r, rados_aio_is_complete(c),
		    n->calls);
	rados_aio_release(c);
}

#define AIO(step, call, data, len)                                                                 \
	do {                                                                                       \
		struct cb_count n = {PTHREAD_MUTEX_INITIALIZER, 0};                                \
		rados_completion_t c;                                                              \
		rados_aio_create_completion2(&n, count_cb, &c);                                    \
		aio_finish(step, call, c, &n, data, len);                                          \
	} while (0)

static void layouts(void)
{
	out("layout su 0", "%d", rados_striper_set_object_layout_stripe_unit(st, 0));
	out("layout su 1000", "%d", rados_striper_set_object_layout_stripe_unit(st, 1000));
	out("layout sc 0", "%d", rados_striper_set_object_layout_stripe_count(st, 0));
	out("layout os 0", "%d", rados_striper_set_object_layout_object_size(st, 0));
	out("layout os 100000", "%d", rados_striper_set_object_layout_object_size(st, 100000));
	out("layout os 64K < su 4M", "%d", rados_striper_set_object_layout_object_size(st, 65536));
	out("layout su 64K", "%d", rados_striper_set_object_layout_stripe_unit(st, 65536));
	out("layout sc 3", "%d", rados_striper_set_object_layout_stripe_count(st, 3));
	out("layout os 192K", "%d", rados_striper_set_object_layout_object_size(st, 196608));
	out("layout os 128K", "%d", rados_striper_set_object_layout_object_size(st, 131072));
}

/* The layout set above lands in the files the striper creates: object 5 exists, 6 does not. */
static void layout_applies(void)
{
	char *buf = malloc(1 << 20);
	uint64_t psize;
	time_t pmtime;
	char oid[300];

	fill(buf, 1 << 20, 7);
	out("layout write 1M", "%d", rados_striper_write(st, fname("layout"), buf, 1 << 20, 0));
	for (int i = 5; i <= 8; i++) {
		snprintf(oid, sizeof(oid), "%s.%016x", fname("layout"), i);
		int r = rados_stat(io, oid, &psize, &pmtime);
		char step[64];
		snprintf(step, sizeof(step), "layout object %d", i);
		out(step, "%d size %llu", r, r ? 0ull : (unsigned long long)psize);
	}
	char got[32] = "";
	int r = rados_striper_getxattr(st, fname("layout"), "striper.layout.stripe_count", got,
				       sizeof(got) - 1);
	out("layout getxattr stripe_count", "%d %s", r, r > 0 ? got : "");
	read_step("layout read", "layout", 1 << 20, 0);
	out("layout remove", "%d", rados_striper_remove(st, fname("layout")));
	for (int i = 0; i <= 6; i++) {
		snprintf(oid, sizeof(oid), "%s.%016x", fname("layout"), i);
		char step[64];
		snprintf(step, sizeof(step), "layout object %d after remove", i);
		out(step, "%d", rados_stat(io, oid, &psize, &pmtime));
	}
	free(buf);
}

static void missing(void)
{
	char buf[16];
	rados_xattrs_iter_t it;

	stat_step("missing stat", "missing");
	read_step("missing read", "missing", 16, 0);
	out("missing trunc", "%d", rados_striper_trunc(st, fname("missing"), 10));
	out("missing getxattr", "%d", rados_striper_getxattr(st, fname("missing"), "user.a", buf, 16));
	out("missing rmxattr", "%d", rados_striper_rmxattr(st, fname("missing"), "user.a"));
	out("missing getxattrs", "%d", rados_striper_getxattrs(st, fname("missing"), &it));
	AIO("missing aio_read", rados_striper_aio_read(st, fname("missing"), c, buf, 16, 0), NULL, 0);
	uint64_t size;
	time_t mtime;
	AIO("missing aio_stat", rados_striper_aio_stat(st, fname("missing"), c, &size, &mtime), NULL,
	    0);
}

static void data(void)
{
	enum { LEN = 300000 };
	char *buf = malloc(LEN), *rb = malloc(2 * LEN);

	fill(buf, LEN, 1);
	out("write 300000 at 0", "%d", rados_striper_write(st, fname("data"), buf, LEN, 0));
	stat_step("stat after first write", "data");
	read_step("read all", "data", LEN, 0);
	read_step("read past end", "data", 100, LEN + 10);
	read_step("read across end", "data", 1000, LEN - 100);
	read_step("read at end", "data", 1000, LEN);
	read_step("read 0 bytes", "data", 0, 0);
	out("write 1000 at 5M", "%d", rados_striper_write(st, fname("data"), buf, 1000, 5 << 20));
	stat_step("stat after hole", "data");
	int r = rados_striper_read(st, fname("data"), rb, 2 * LEN, 1 << 20);
	out("read in hole", "%d zeros %d", r, r > 0 ? all_zero(rb, (size_t)r) : -1);
	out("trunc down 1000", "%d", rados_striper_trunc(st, fname("data"), 1000));
	stat_step("stat after trunc down", "data");
	read_step("read after trunc down", "data", LEN, 0);
	out("trunc up 200000", "%d", rados_striper_trunc(st, fname("data"), 200000));
	stat_step("stat after trunc up", "data");
	r = rados_striper_read(st, fname("data"), rb, LEN, 0);
	out("read after trunc up", "%d head %016llx rest zeros %d", r,
	    (unsigned long long)fnv(rb, 1000), r > 1000 ? all_zero(rb + 1000, (size_t)r - 1000) : -1);
	out("append 5000", "%d", rados_striper_append(st, fname("data"), buf, 5000));
	stat_step("stat after append", "data");
	read_step("read appended", "data", 5000, 200000);
	out("write_full 7000", "%d", rados_striper_write_full(st, fname("data"), buf + 1, 7000));
	stat_step("stat after write_full", "data");
	read_step("read after write_full", "data", LEN, 0);
	out("append to new file", "%d", rados_striper_append(st, fname("appended"), buf, 3000));
	stat_step("stat new appended", "appended");
	out("write_full new file", "%d", rados_striper_write_full(st, fname("full"), buf, 3000));
	stat_step("stat new write_full", "full");
	out("write 0 bytes at 100 of new file", "%d",
	    rados_striper_write(st, fname("empty"), buf, 0, 100));
	stat_step("stat after 0-byte write", "empty");
	out("remove appended", "%d", rados_striper_remove(st, fname("appended")));
	out("remove full", "%d", rados_striper_remove(st, fname("full")));
	out("remove empty", "%d", rados_striper_remove(st, fname("empty")));
	free(buf);
	free(rb);
}

static void xattrs(void)
{
	char buf[64];
	rados_xattrs_iter_t it;
	const char *name, *val;
	size_t len;

	out("setxattr user.a", "%d", rados_striper_setxattr(st, fname("data"), "user.a", "alpha", 5));
	out("setxattr user.b", "%d", rados_striper_setxattr(st, fname("data"), "user.b", "", 0));
	int r = rados_striper_getxattr(st, fname("data"), "user.a", buf, sizeof(buf));
	out("getxattr user.a", "%d %.*s", r, r > 0 ? r : 0, buf);
	out("getxattr user.a short", "%d",
	    rados_striper_getxattr(st, fname("data"), "user.a", buf, 3));
	out("getxattr user.a len 0", "%d",
	    rados_striper_getxattr(st, fname("data"), "user.a", buf, 0));
	out("getxattr user.b", "%d", rados_striper_getxattr(st, fname("data"), "user.b", buf, 64));
	out("getxattr missing name", "%d",
	    rados_striper_getxattr(st, fname("data"), "user.none", buf, 64));
	r = rados_striper_getxattr(st, fname("data"), "striper.size", buf, sizeof(buf));
	out("getxattr striper.size", "%d %.*s", r, r > 0 ? r : 0, buf);
	r = rados_striper_getxattrs(st, fname("data"), &it);
	out("getxattrs", "%d", r);
	while (!r) {
		r = rados_striper_getxattrs_next(it, &name, &val, &len);
		if (r || !name) {
			out("getxattrs end", "%d name %s val %s len %zu", r, name ? name : "NULL",
			    val ? "set" : "NULL", len);
			break;
		}
		out("getxattrs next", "%s=%.*s", name, (int)len, val);
	}
	if (!r)
		rados_striper_getxattrs_end(it);
	out("rmxattr user.a", "%d", rados_striper_rmxattr(st, fname("data"), "user.a"));
	out("rmxattr user.a again", "%d", rados_striper_rmxattr(st, fname("data"), "user.a"));
	out("getxattr removed", "%d", rados_striper_getxattr(st, fname("data"), "user.a", buf, 64));

	/* The striper's own xattrs, and xattrs of a file that does not exist. */
	out("setxattr striper.size", "%d",
	    rados_striper_setxattr(st, fname("data"), "striper.size", "99", 2));
	stat_step("stat after setxattr striper.size", "data");
	out("setxattr on a missing file", "%d",
	    rados_striper_setxattr(st, fname("bare"), "user.a", "v", 1));
	stat_step("stat after setxattr on a missing file", "bare");
	char head[300];
	snprintf(head, sizeof(head), "%s.%016x", fname("bare"), 0);
	out("head object left by it, removed", "%d", rados_remove(io, head));
}

static void aio(void)
{
	enum { LEN = 400000 };
	char *buf = malloc(LEN), *rb = malloc(LEN);
	uint64_t size = 0;
	time_t mtime = 0;

	fill(buf, LEN, 3);
	AIO("aio_write 400000", rados_striper_aio_write(st, fname("aio"), c, buf, LEN, 0), NULL, 0);
	memset(rb, 0, LEN);
	AIO("aio_read 400000", rados_striper_aio_read(st, fname("aio"), c, rb, LEN, 0), rb, LEN);
	AIO("aio_read past end", rados_striper_aio_read(st, fname("aio"), c, rb, 10, LEN + 5), NULL,
	    0);
	AIO("aio_stat", rados_striper_aio_stat(st, fname("aio"), c, &size, &mtime), NULL, 0);
	out("aio_stat values", "size %llu mtime %s", (unsigned long long)size,
	    mtime > 1000000000 ? "set" : "unset");
	AIO("aio_append 1000", rados_striper_aio_append(st, fname("aio"), c, buf + 5, 1000), NULL, 0);
	stat_step("stat after aio_append", "aio");
	AIO("aio_write_full 2000", rados_striper_aio_write_full(st, fname("aio"), c, buf + 9, 2000),
	    NULL, 0);
	stat_step("stat after aio_write_full", "aio");
	read_step("read after aio_write_full", "aio", LEN, 0);
	AIO("aio_write_full new file",
	    rados_striper_aio_write_full(st, fname("aiofull"), c, buf, 2000), NULL, 0);
	stat_step("stat aio_write_full new file", "aiofull");
	AIO("aio_append new file", rados_striper_aio_append(st, fname("aioappend"), c, buf, 2000),
	    NULL, 0);
	stat_step("stat aio_append new file", "aioappend");

	/* Many in flight at once, then one flush. */
	enum { N = 32, PIECE = 65536 };
	char *big = malloc((size_t)N * PIECE);
	rados_completion_t cs[N];
	fill(big, (size_t)N * PIECE, 11);
	int started = 0;
	for (int i = 0; i < N; i++) {
		rados_aio_create_completion2(NULL, NULL, &cs[i]);
		started += rados_striper_aio_write(st, fname("many"), cs[i], big + (size_t)i * PIECE,
						   PIECE, (uint64_t)i * PIECE) == 0;
	}
	rados_striper_aio_flush(st);
	int complete = 0, ok = 0;
	for (int i = 0; i < N; i++) {
		complete += rados_aio_is_complete(cs[i]);
		ok += rados_aio_get_return_value(cs[i]) == 0;
		rados_aio_release(cs[i]);
	}
	out("32 aio_write then aio_flush", "started %d complete %d ok %d", started, complete, ok);
	stat_step("stat after many", "many");
	char *back = malloc((size_t)N * PIECE);
	int r = rados_striper_read(st, fname("many"), back, (size_t)N * PIECE, 0);
	out("read many", "%d same %d", r, r == N * PIECE && !memcmp(back, big, (size_t)N * PIECE));
	free(back);
	free(big);

	AIO("aio_remove many", rados_striper_aio_remove(st, fname("many"), c), NULL, 0);
	stat_step("stat after aio_remove", "many");
	AIO("aio_remove missing", rados_striper_aio_remove(st, fname("many"), c), NULL, 0);
	out("remove aio", "%d", rados_striper_remove(st, fname("aio")));
	out("remove aiofull", "%d", rados_striper_remove(st, fname("aiofull")));
	out("remove aioappend", "%d", rados_striper_remove(st, fname("aioappend")));
	free(buf);
	free(rb);
}

static void multi(void)
{
	rados_striper_multi_completion_t mc;
	struct cb_count n = {PTHREAD_MUTEX_INITIALIZER, 0};

	out("multi create", "%d",
	    rados_striper_multi_aio_create_completion(&n, count_cb, count_cb, &mc));
	out("multi is_complete", "%d", rados_striper_multi_aio_is_complete(mc));
	out("multi is_safe", "%d", rados_striper_multi_aio_is_safe(mc));
	out("multi is_complete_and_cb", "%d", rados_striper_multi_aio_is_complete_and_cb(mc));
	out("multi get_return_value", "%d", rados_striper_multi_aio_get_return_value(mc));
	rados_striper_multi_aio_release(mc);
	out("multi callbacks", "%d", n.calls);
}

static const char *which_library(void)
{
	Dl_info info;

	if (!dladdr((void *)rados_striper_create, &info) || !info.dli_fname)
		return "unknown";
	return info.dli_fname;
}

int main(int argc, char **argv)
{
	rados_t cluster;

	if (argc != 3) {
		fprintf(stderr, "usage: transcript_c POOL PREFIX\n");
		return 2;
	}
	prefix = argv[2];
	if (rados_create(&cluster, NULL) || rados_conf_read_file(cluster, getenv("CEPH_CONF")) ||
	    rados_connect(cluster) || rados_ioctx_create(cluster, argv[1], &io)) {
		fprintf(stderr, "transcript_c: cannot connect to the cluster\n");
		return 1;
	}
	fprintf(stderr, "transcript_c: library %s\n", which_library());
	out("create", "%d", rados_striper_create(io, &st));
	missing();
	data();
	xattrs();
	aio();
	multi();
	layouts();
	layout_applies();
	out("remove data", "%d", rados_striper_remove(st, fname("data")));
	stat_step("stat removed", "data");
	out("remove removed", "%d", rados_striper_remove(st, fname("data")));
	stat_step("stat removed twice", "data");
	rados_striper_destroy(st);
	rados_ioctx_destroy(io);
	rados_shutdown(cluster);
	return 0;
}
