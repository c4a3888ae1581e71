/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One libradosstriper client, stock or the drop-in (whichever
 * libradosstriper.so.1 is loaded), running steps given on the command line
 * in order, one striper for all of them, for the mixed-client tests:
 *
 *   write:NAME:OFF:LEN:BS:SEED         synchronous writes of BS bytes
 *   awrite:NAME:OFF:LEN:BS:DEPTH:SEED  aio writes, DEPTH in flight
 *   verify:NAME:OFF:LEN:SEED           read back and compare (holes: SEED 0 = zeros)
 *   size:NAME:SIZE                     stat gives SIZE
 *   rm:NAME                            remove (0 expected)
 *   sleep:MS                           keep the striper, idle
 *
 * Sizes take K, M, G. Each step prints "STEP: result"; the exit status is 1
 * at the first step that fails. CEPH_CONF and STRIPED_TEST_POOL name the
 * cluster.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rados/librados.h>
#include <radosstriper/libradosstriper.h>

static rados_striper_t st;

static uint64_t size_arg(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	switch (*end) {
	case 'K':
		return v << 10;
	case 'M':
		return v << 20;
	case 'G':
		return v << 30;
	}
	return v;
}

/* The byte a writer with seed puts at file offset pos; seed 0 is a hole. */
static char pattern(uint64_t seed, uint64_t pos)
{
	if (!seed)
		return 0;
	uint64_t x = (pos >> 3) * 0x9e3779b97f4a7c15ull ^ seed * 0xbf58476d1ce4e5b9ull;
	return (char)((x >> 29) + pos);
}

static char *pattern_buf(uint64_t seed, uint64_t off, uint64_t len)
{
	char *b = malloc(len ? len : 1);

	for (uint64_t i = 0; i < len; i++)
		b[i] = pattern(seed, off + i);
	return b;
}

static int do_write(char **f)
{
	uint64_t off = size_arg(f[2]), len = size_arg(f[3]), bs = size_arg(f[4]),
		 seed = size_arg(f[5]);
	char *b = pattern_buf(seed, off, len);
	int r = 0;

	for (uint64_t done = 0; done < len && !r; done += bs) {
		uint64_t n = len - done < bs ? len - done : bs;
		r = rados_striper_write(st, f[1], b + done, n, off + done);
	}
	free(b);
	return r;
}

static int do_awrite(char **f)
{
	uint64_t off = size_arg(f[2]), len = size_arg(f[3]), bs = size_arg(f[4]),
		 depth = size_arg(f[5]), seed = size_arg(f[6]);
	uint64_t calls = (len + bs - 1) / bs;
	char *b = pattern_buf(seed, off, len);
	rados_completion_t *c = calloc(calls, sizeof(*c));
	int r = 0;

	for (uint64_t i = 0; i < calls; i++) {
		if (i >= depth) {
			rados_aio_wait_for_complete(c[i - depth]);
			if (!r)
				r = rados_aio_get_return_value(c[i - depth]);
		}
		uint64_t n = len - i * bs < bs ? len - i * bs : bs;
		rados_aio_create_completion2(NULL, NULL, &c[i]);
		int s = rados_striper_aio_write(st, f[1], c[i], b + i * bs, n, off + i * bs);
		if (s && !r)
			r = s;
	}
	rados_striper_aio_flush(st);
	for (uint64_t i = 0; i < calls; i++) {
		if (!r && rados_aio_is_complete(c[i]))
			r = rados_aio_get_return_value(c[i]);
		rados_aio_release(c[i]);
	}
	free(c);
	free(b);
	return r;
}

static int do_verify(char **f)
{
	uint64_t off = size_arg(f[2]), len = size_arg(f[3]), seed = size_arg(f[4]);
	char *b = malloc(len ? len : 1);
	int r = rados_striper_read(st, f[1], b, len, off);

	if (r >= 0 && (uint64_t)r != len) {
		printf("# read %d bytes of %llu\n", r, (unsigned long long)len);
		r = -EIO;
	}
	for (uint64_t i = 0; r >= 0 && i < len; i++) {
		if (b[i] != pattern(seed, off + i)) {
			printf("# first difference at offset %llu\n", (unsigned long long)(off + i));
			r = -EILSEQ;
		}
	}
	free(b);
	return r < 0 ? r : 0;
}

static int do_size(char **f)
{
	uint64_t size, want = size_arg(f[2]);
	time_t mtime;
	int r = rados_striper_stat(st, f[1], &size, &mtime);

	if (!r && size != want) {
		printf("# size %llu\n", (unsigned long long)size);
		r = -EIO;
	}
	return r;
}

static int run(char *step)
{
	char *f[8] = {0};
	int n = 0;

	for (char *p = strtok(step, ":"); p && n < 8; p = strtok(NULL, ":"))
		f[n++] = p;
	if (!strcmp(f[0], "write") && n == 6)
		return do_write(f);
	if (!strcmp(f[0], "awrite") && n == 7)
		return do_awrite(f);
	if (!strcmp(f[0], "verify") && n == 5)
		return do_verify(f);
	if (!strcmp(f[0], "size") && n == 3)
		return do_size(f);
	if (!strcmp(f[0], "rm") && n == 2)
		return rados_striper_remove(st, f[1]);
	if (!strcmp(f[0], "sleep") && n == 2)
		return usleep((useconds_t)size_arg(f[1]) * 1000);
	fprintf(stderr, "striper_client: bad step\n");
	exit(2);
}

int main(int argc, char **argv)
{
	rados_t cluster;
	rados_ioctx_t io;
	Dl_info info;

	if (rados_create(&cluster, NULL) || rados_conf_read_file(cluster, getenv("CEPH_CONF")) ||
	    rados_connect(cluster) || rados_ioctx_create(cluster, getenv("STRIPED_TEST_POOL"), &io) ||
	    rados_striper_create(io, &st)) {
		fprintf(stderr, "striper_client: cannot connect to the cluster\n");
		return 1;
	}
	if (dladdr((void *)rados_striper_create, &info) && info.dli_fname)
		fprintf(stderr, "striper_client: library %s\n", info.dli_fname);
	int status = 0;
	for (int i = 1; i < argc && !status; i++) {
		char step[512];
		snprintf(step, sizeof(step), "%s", argv[i]);
		int r = run(step);
		printf("%s: %d\n", argv[i], r);
		fflush(stdout);
		status = r != 0;
	}
	rados_striper_destroy(st);
	rados_ioctx_destroy(io);
	rados_shutdown(cluster);
	return status;
}
