// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * capture: the fuzzers' seeds, as a running cluster gives them. Makes
 * striped files in a namespace of its own ("fuzz-capture") through
 * libstriped and libradosstriper, takes their lock in every shape the
 * libraries and operators take it, and writes what the cluster answers:
 *   OUTDIR/fuzz_head_xattrs/NAME  a head's xattrs, as getxattrs lists them
 *                                  (fuzz_head_xattrs' records)
 *   OUTDIR/fuzz_lock_info/NAME    cls_lock get_info replies, raw (a 0 byte first:
 *                                  fuzz_lock_info's reply side)
 *   OUTDIR/fuzz_rados_names/NAME  the namespace's object names, listed, and
 *                                  rados:// names of its files (NUL-separated)
 * then removes what it made.
 *
 * usage: CEPH_CONF=... capture POOL OUTDIR   (e.g. build-fuzz/fuzz/capture striped fuzz/corpus)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rados/librados.h>
#include <radosstriper/libradosstriper.h>

#include "striped.h"

#define NSPACE "fuzz-capture"
#define UUID_COOKIE "1b4e28ba-2fa1-11d2-883f-0016d3cca427"

static rados_ioctx_t io, io2; /* io2: another client, for holders of another name and address */
static const char *pool, *out;

static void die(const char *what, int r)
{
	fprintf(stderr, "capture: %s: %s\n", what, strerror(r < 0 ? -r : r));
	exit(1);
}

static void check(int r, const char *what)
{
	if (r < 0)
		die(what, r);
}

static void save(const char *target, const char *name, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", out, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		die(path, errno);
	printf("%s: %zu bytes\n", path, len);
}

static void head_of(const char *name, char *oid, size_t len)
{
	striped_object_name(name, 0, oid, len);
}

/* A head's xattrs as fuzz_head_xattrs reads them: u8 key length, key, u16 value length, value. */
static void save_head(const char *file, const char *seed)
{
	static unsigned char buf[1 << 16];
	rados_xattrs_iter_t it;
	const char *key, *val;
	size_t len, n = 0;
	char oid[256];

	head_of(file, oid, sizeof(oid));
	check(rados_getxattrs(io, oid, &it), "getxattrs");
	while (rados_getxattrs_next(it, &key, &val, &len) == 0 && key) {
		size_t klen = strlen(key);

		if (klen > 255 || len > 0xffff || n + 3 + klen + len > sizeof(buf))
			continue;
		buf[n++] = (unsigned char)klen;
		memcpy(buf + n, key, klen);
		n += klen;
		buf[n++] = (unsigned char)len;
		buf[n++] = (unsigned char)(len >> 8);
		memcpy(buf + n, val, len);
		n += len;
	}
	rados_getxattrs_end(it);
	save("fuzz_head_xattrs", seed, buf, n);
}

/* get_info of the head's lock, raw, behind fuzz_lock_info's mode byte (0: a reply). */
static void save_lock(const char *file, const char *seed)
{
	static const unsigned char req[] = {1,	 1,   16,  0,	0,   0,	  12,  0,   0,	 0,   's',
					    't', 'r', 'i', 'p', 'e', 'r', '.', 'l', 'o', 'c', 'k'};
	rados_read_op_t op = rados_create_read_op();
	char *reply = NULL, *buf, oid[256];
	size_t len = 0;
	int rval = 0;

	head_of(file, oid, sizeof(oid));
	rados_read_op_exec(op, "lock", "get_info", (const char *)req, sizeof(req), &reply, &len,
			   &rval);
	check(rados_read_op_operate(op, io, oid, 0), "get_info");
	check(rval, "get_info");
	rados_release_read_op(op);
	buf = malloc(len + 1);
	buf[0] = 0;
	memcpy(buf + 1, reply, len);
	save("fuzz_lock_info", seed, buf, len + 1);
	free(buf);
	rados_buffer_free(reply);
}

static struct striped_file *make(const char *name, const struct striped_layout *l, size_t len,
				 uint64_t off)
{
	struct striped_file *f;
	char *data = calloc(1, len + 1);

	striped_remove(io, name);
	check(striped_open(io, name, STRIPED_CREATE | STRIPED_EXCL, l, &f), name);
	if (len)
		check((int)striped_write(f, data, len, off), "write");
	free(data);
	return f;
}

/* cls_lock's lock request with a cookie of any bytes (a NUL in it). */
static void lock_raw(const char *oid, const char *cookie, size_t clen)
{
	unsigned char in[256], *at = in + 6;
	const char *strs[] = {"striper.lock", cookie, "Tag", ""};
	size_t lens[] = {12, clen, 3, 0};
	rados_write_op_t op = rados_create_write_op();
	int prval = 0;
	uint32_t n;

	in[0] = in[1] = 1;
	for (int i = 0; i < 4; i++) {
		n = (uint32_t)lens[i];
		memcpy(at, &n, 4);
		memcpy(at + 4, strs[i], lens[i]);
		at += 4 + lens[i];
		if (!i)
			*at++ = 2;
	}
	memset(at, 0, 9);
	at += 9;
	n = (uint32_t)(at - in - 6);
	memcpy(in + 2, &n, 4);
	rados_write_op_exec(op, "lock", "lock", (const char *)in, (size_t)(at - in), &prval);
	check(rados_write_op_operate(op, io, oid, NULL, 0), "lock");
	rados_release_write_op(op);
}

static void heads(void)
{
	const struct striped_layout small = {65536, 2, 131072}, wide = {65536, UINT32_MAX, 65536},
				    def = STRIPED_LAYOUT_DEFAULT_INIT;
	struct striped_file *f;
	rados_striper_t st;
	char oid[256];

	f = make("cap-empty", &def, 0, 0);
	striped_close(f);
	save_head("cap-empty", "created-empty");
	f = make("cap-small", &small, 300000, 0);
	check(striped_setxattr(f, "user.owner", "ann", 3), "setxattr");
	striped_close(f);
	save_head("cap-small", "written-300000-with-user-xattr");
	f = make("cap-trunc", &small, 300000, 0);
	check(striped_truncate(f, 1000), "truncate");
	striped_close(f);
	save_head("cap-trunc", "truncated-mark-at-size");
	f = make("cap-wide", &wide, 1000, 65536ull * 65536);
	striped_close(f);
	save_head("cap-wide", "widest-layout-region-registered");
	/* libradosstriper's own: no id, no mark */
	check(rados_striper_create(io, &st), "rados_striper_create");
	rados_striper_remove(st, "cap-stock");
	check(rados_striper_write(st, "cap-stock", "0123456789", 10, 0), "rados_striper_write");
	rados_striper_destroy(st);
	save_head("cap-stock", "libradosstriper-written");
	/* a head another program planted by hand: never locked */
	head_of("cap-planted", oid, sizeof(oid));
	check(rados_write_full(io, oid, "x", 1), "write_full");
	check(rados_setxattr(io, oid, "striper.layout.stripe_unit", "65536", 5), "setxattr");
	check(rados_setxattr(io, oid, "striper.layout.stripe_count", "1", 1), "setxattr");
	check(rados_setxattr(io, oid, "striper.layout.object_size", "65536", 5), "setxattr");
	check(rados_setxattr(io, oid, "striper.size", "1\0", 2), "setxattr");
	save_head("cap-planted", "planted-size-with-nul");
}

static void locks(void)
{
	const struct striped_layout small = {65536, 2, 131072};
	struct striped_file *f, *g;
	char oid[256], tag[101], cookie[80];

	head_of("cap-planted", oid, sizeof(oid));
	save_lock("cap-planted", "never-locked");
	save_lock("cap-small", "let-go-of");
	f = make("cap-lock", &small, 1000, 0);
	striped_file_set_lease(f, STRIPED_LEASE_MAX_SECONDS);
	save_lock("cap-lock", "one-libstriped-holder");
	check(striped_open(io2, "cap-lock", 0, NULL, &g), "open");
	striped_file_set_lease(g, STRIPED_LEASE_MAX_SECONDS);
	check((int)striped_write(g, "x", 1, 0), "write");
	head_of("cap-lock", oid, sizeof(oid));
	check(rados_lock_shared(io, oid, "striper.lock", UUID_COOKIE, "Tag", "", NULL, 0), "lock");
	check(rados_lock_shared(io, oid, "striper.lock", "by-hand", "Tag", "a holder", NULL, 0),
	      "lock");
	save_lock("cap-lock", "two-clients-libradosstriper-and-by-hand");
	striped_close(g);
	striped_close(f);
	rados_unlock(io, oid, "striper.lock", UUID_COOKIE);
	rados_unlock(io, oid, "striper.lock", "by-hand");
	check(rados_lock_exclusive(io, oid, "striper.lock", "by-hand", "", NULL, 0), "lock");
	save_lock("cap-lock", "exclusive");
	rados_unlock(io, oid, "striper.lock", "by-hand");
	save_lock("cap-lock", "let-go-of-exclusive");
	memset(tag, 't', sizeof(tag) - 1);
	tag[sizeof(tag) - 1] = '\0';
	check(rados_lock_shared(io, oid, "striper.lock", "long-tag", tag, "", NULL, 0), "lock");
	save_lock("cap-lock", "tag-of-100-bytes");
	rados_unlock(io, oid, "striper.lock", "long-tag");
	for (int i = 0; i < 10; i++) {
		snprintf(cookie, sizeof(cookie), "many-%02d-%050d", i, 0);
		check(rados_lock_shared(io, oid, "striper.lock", cookie, "Tag", "", NULL, 0),
		      "lock");
	}
	save_lock("cap-lock", "ten-holders");
	for (int i = 0; i < 10; i++) {
		snprintf(cookie, sizeof(cookie), "many-%02d-%050d", i, 0);
		rados_unlock(io, oid, "striper.lock", cookie);
	}
	lock_raw(oid, "a\0zzz", 5);
	check(rados_lock_shared(io, oid, "striper.lock", "b-after", "Tag", "", NULL, 0), "lock");
	save_lock("cap-lock", "cookie-with-nul");
	check(rados_lock_shared(io, oid, "striper.lock", "expires", "Tag", "",
				&(struct timeval){3600, 0}, 0),
	      "lock");
	save_lock("cap-lock", "holder-with-expiry");
}

static void names(void)
{
	static char buf[1 << 16];
	rados_list_ctx_t ctx;
	const char *oid;
	size_t n = 0;
	int i = 0;
	char seed[32];

	check(rados_nobjects_list_open(io, &ctx), "list");
	while (rados_nobjects_list_next(ctx, &oid, NULL, NULL) == 0) {
		n = (size_t)snprintf(buf, sizeof(buf), "%s%crados://%s/%.*s%crados://%s", oid, 0,
				     pool, (int)(strlen(oid) > 17 ? strlen(oid) - 17 : 0), oid, 0,
				     pool);
		snprintf(seed, sizeof(seed), "listed-%02d", i++);
		save("fuzz_rados_names", seed, buf, n);
	}
	rados_nobjects_list_close(ctx);
}

static void clean(void)
{
	rados_list_ctx_t ctx;
	const char *oid;

	if (rados_nobjects_list_open(io, &ctx) < 0)
		return;
	while (rados_nobjects_list_next(ctx, &oid, NULL, NULL) == 0)
		rados_remove(io, oid);
	rados_nobjects_list_close(ctx);
}

static rados_ioctx_t connect_one(void)
{
	rados_t cluster;
	rados_ioctx_t ctx;

	check(rados_create(&cluster, NULL), "rados_create");
	check(rados_conf_read_file(cluster, NULL), "conf");
	check(striped_cluster_connect(cluster), "connect");
	check(rados_ioctx_create(cluster, pool, &ctx), pool);
	rados_ioctx_set_namespace(ctx, NSPACE);
	return ctx;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: CEPH_CONF=... capture POOL OUTDIR\n");
		return 2;
	}
	pool = argv[1];
	out = argv[2];
	io = connect_one();
	io2 = connect_one();
	clean();
	heads();
	locks();
	names();
	clean();
	return 0;
}
