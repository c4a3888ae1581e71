// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * badread.so: an LD_PRELOAD test helper that makes chosen reads of one file
 * fail with EIO, so striped-dd and GNU dd can be run against the same bad
 * input (tests/dd/dd-local.sh).
 *
 *   BADREAD_FILE=SUFFIX   the file: its /proc/self/fd path ends in SUFFIX
 *                         ("pipe:" matches any pipe)
 *   BADREAD_RANGES=OFF:LEN,...   the bad bytes
 *
 * A file that can seek (regular file, block device) fails every read that
 * overlaps a bad range, whole, with nothing read: read(2), pread(2),
 * readv(2) and libaio reads (io_getevents() rewrites their results to
 * -EIO). A pipe is read in order: a read that would reach a bad range stops
 * short before it; a read starting in one fails and consumes the whole
 * range, as a tape drive skips a bad record.
 *
 *   BADREAD_SHRINK=N:LEN   the file shrinks to LEN bytes right after its
 *                          Nth mmap() (counted from 1) mapped its pages:
 *                          a file truncated under striped-dd's mapped
 *                          input blocks, at a known moment
 *   BADREAD_SHRINK_BY=child   another process does it (a forked child, not
 *                          waited for), as a user's truncate(1) would;
 *                          by default the process itself does, at once
 *   BADREAD_NOLEASE=1      fcntl(F_SETLEASE) succeeds without taking a
 *                          lease: a lease the kernel has broken after its
 *                          lease-break-time, so truncation goes through
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_RANGES 64
#define MAX_FDS 1024

struct range {
	long long off, len;
};

static struct range ranges[MAX_RANGES];
static int nranges = -1;
static const char *suffix;
static long long pipe_pos[MAX_FDS];

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_readv)(int, const struct iovec *, int);
static int (*real_getevents)(io_context_t, long, long, struct io_event *, struct timespec *);

static void setup(void)
{
	const char *s = getenv("BADREAD_RANGES");
	char *end;

	if (nranges >= 0)
		return;
	real_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	real_pread = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
	real_readv = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "readv");
	real_getevents =
	    (int (*)(io_context_t, long, long, struct io_event *, struct timespec *))dlvsym(
		RTLD_NEXT, "io_getevents", "LIBAIO_0.4");
	suffix = getenv("BADREAD_FILE");
	nranges = 0;
	while (s && *s && nranges < MAX_RANGES) {
		ranges[nranges].off = strtoll(s, &end, 0);
		if (*end != ':')
			break;
		ranges[nranges].len = strtoll(end + 1, &end, 0);
		nranges++;
		if (*end != ',')
			break;
		s = end + 1;
	}
}

/* The path of fd, from /proc/self/fd; its length, or -1. */
static ssize_t fd_path(int fd, char *path, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, size - 1);
	if (n >= 0)
		path[n] = '\0';
	return n;
}

static bool is_bad_file(int fd)
{
	char path[4096];
	ssize_t n;
	size_t sl;

	if (!suffix || !*suffix || fd < 0)
		return false;
	n = fd_path(fd, path, sizeof(path));
	if (n < 0)
		return false;
	sl = strlen(suffix);
	if (!strcmp(suffix, "pipe:"))
		return !strncmp(path, "pipe:", 5);
	return (size_t)n >= sl && !strcmp(path + n - sl, suffix);
}

static bool seekable(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode));
}

/* Reads at or past the end of the file still see it (dd would loop forever). */
static bool overlaps_in(int fd, long long off, long long len)
{
	struct stat st;
	int i;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && off >= st.st_size)
		return false;
	for (i = 0; i < nranges; i++)
		if (len > 0 && off < ranges[i].off + ranges[i].len && ranges[i].off < off + len)
			return true;
	return false;
}

/* The first bad range ending after pos, or NULL. */
static const struct range *next_range(long long pos)
{
	const struct range *best = NULL;
	int i;

	for (i = 0; i < nranges; i++)
		if (ranges[i].off + ranges[i].len > pos && (!best || ranges[i].off < best->off))
			best = &ranges[i];
	return best;
}

static ssize_t eio(void)
{
	errno = EIO;
	return -1;
}

static ssize_t pipe_read(int fd, void *buf, size_t len)
{
	long long *pos = &pipe_pos[fd];
	const struct range *r = next_range(*pos);
	char junk[4096];
	ssize_t n;

	if (r && r->off <= *pos) {
		while (*pos < r->off + r->len) {
			long long want = r->off + r->len - *pos;

			n = real_read(fd, junk, want < (long long)sizeof(junk) ? (size_t)want
									  : sizeof(junk));
			if (n <= 0)
				break;
			*pos += n;
		}
		return eio();
	}
	if (r && (long long)len > r->off - *pos)
		len = (size_t)(r->off - *pos);
	n = real_read(fd, buf, len);
	if (n > 0)
		*pos += n;
	return n;
}

ssize_t read(int fd, void *buf, size_t len)
{
	off_t cur;

	setup();
	if (!nranges || !is_bad_file(fd))
		return real_read(fd, buf, len);
	if (!seekable(fd))
		return fd < MAX_FDS ? pipe_read(fd, buf, len) : real_read(fd, buf, len);
	cur = lseek(fd, 0, SEEK_CUR);
	if (cur >= 0 && overlaps_in(fd, cur, (long long)len))
		return eio();
	return real_read(fd, buf, len);
}

/* pread() is pread64() here (_FILE_OFFSET_BITS=64), as in the programs tested. */
ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	setup();
	if (nranges && is_bad_file(fd) && overlaps_in(fd, off, (long long)len))
		return eio();
	return real_pread(fd, buf, len, off);
}

ssize_t readv(int fd, const struct iovec *iov, int n)
{
	long long len = 0;
	off_t cur;
	int i;

	setup();
	if (!nranges || !is_bad_file(fd) || !seekable(fd))
		return real_readv(fd, iov, n);
	for (i = 0; i < n; i++)
		len += (long long)iov[i].iov_len;
	cur = lseek(fd, 0, SEEK_CUR);
	if (cur >= 0 && overlaps_in(fd, cur, len))
		return eio();
	return real_readv(fd, iov, n);
}

int io_getevents(io_context_t ctx, long min_nr, long nr, struct io_event *ev,
		 struct timespec *timeout)
{
	int n, i;

	setup();
	n = real_getevents(ctx, min_nr, nr, ev, timeout);
	for (i = 0; i < n && nranges; i++) {
		struct iocb *cb = ev[i].obj;

		if (cb->aio_lio_opcode != IO_CMD_PREAD || (long)ev[i].res < 0 ||
		    !is_bad_file(cb->aio_fildes))
			continue;
		if (overlaps_in(cb->aio_fildes, cb->u.c.offset, (long long)cb->u.c.nbytes))
			ev[i].res = (unsigned long)-EIO;
	}
	return n;
}

/*
 * mmap() goes to the system call itself: dlsym() may allocate, and an
 * allocation may mmap(). Only the environment is read here, for the same
 * reason.
 */
static void *map_then_shrink(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static int maps_seen;
	const char *spec = getenv("BADREAD_SHRINK");
	void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	char path[4096], *end;
	const char *by_child;
	long long nth, to;

	if (p == MAP_FAILED || fd < 0 || !spec)
		return p;
	suffix = getenv("BADREAD_FILE");
	if (!is_bad_file(fd))
		return p;
	nth = strtoll(spec, &end, 0);
	to = *end == ':' ? strtoll(end + 1, NULL, 0) : 0;
	if (++maps_seen != nth || fd_path(fd, path, sizeof(path)) <= 0)
		return p;
	by_child = getenv("BADREAD_SHRINK_BY");
	if (by_child && !strcmp(by_child, "child")) {
		pid_t pid = fork();

		if (pid < 0)
			perror("badread: fork");
		if (pid != 0)
			return p;
		/* the child: waits here while the parent holds a lease */
		_exit(truncate(path, to) < 0 ? 1 : 0);
	}
	if (truncate(path, to) < 0)
		perror("badread: truncate");
	return p;
}

/*
 * fcntl() goes to the system call, but for F_SETLEASE under
 * BADREAD_NOLEASE. Under _FILE_OFFSET_BITS=64 fcntl() is fcntl64(); a
 * caller built without it calls fcntl, the same call on 64-bit hosts.
 */
static int fcntl_call(int fd, int cmd, unsigned long arg)
{
	const char *nolease = getenv("BADREAD_NOLEASE");

	if (cmd == F_SETLEASE && nolease && !strcmp(nolease, "1"))
		return 0;
	return (int)syscall(SYS_fcntl, fd, cmd, arg);
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	unsigned long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return fcntl_call(fd, cmd, arg);
}

/* the same function under the name "fcntl" */
int fcntl_plain(int fd, int cmd, ...) __asm__("fcntl") __attribute__((alias("fcntl64")));

/* mmap() is mmap64() here (_FILE_OFFSET_BITS=64); a caller built without it calls mmap. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return map_then_shrink(addr, len, prot, flags, fd, off);
}

void *mmap_plain(void *addr, size_t len, int prot, int flags, int fd, off_t off) __asm__("mmap");
void *mmap_plain(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return map_then_shrink(addr, len, prot, flags, fd, off);
}
