// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd's mapped input blocks (see dd_map.h). The registry is a fixed
 * array the SIGBUS handler reads with atomic loads only: the main thread
 * fills an entry before anyone can touch its pages, and empties it only
 * after the write that used them completed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dd_map.h"

struct map_entry {
	atomic_uintptr_t lo, hi; /* [lo, hi): the mapping; 0, 0 when free */
	atomic_int lost;
};

static struct map_entry *entries;
static unsigned int nentries;
static uintptr_t page_size;
static struct sigaction previous;
static atomic_int lease_wanted;
static int lease_wake_fd = -1;

/*
 * A page of a mapped block vanished: zeros take the place of the rest of
 * the block from that page on (so the thread that touched it, maybe
 * librados', goes on, and a file cut short costs one signal per block, not
 * one per page) and the block is marked lost. Anything else goes back to
 * the action SIGBUS had before, which the retried access then meets.
 */
static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t addr = (uintptr_t)si->si_addr;
	unsigned int i;

	(void)sig;
	(void)ctx;
	for (i = 0; i < nentries; i++) {
		struct map_entry *e = &entries[i];
		uintptr_t page = addr & ~(page_size - 1), hi = atomic_load(&e->hi);

		if (addr < atomic_load(&e->lo) || addr >= hi)
			continue;
		if (mmap((void *)page, hi - page, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			break;
		atomic_store(&e->lost, 1);
		return;
	}
	sigaction(SIGBUS, &previous, NULL);
}

int dd_map_setup(unsigned int blocks)
{
	struct sigaction act;

	if (entries)
		return nentries >= blocks ? 0 : -EBUSY;
	entries = calloc(blocks, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	nentries = blocks;
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	memset(&act, 0, sizeof(act));
	act.sa_sigaction = on_sigbus;
	act.sa_flags = SA_SIGINFO;
	sigemptyset(&act.sa_mask);
	if (sigaction(SIGBUS, &act, &previous) < 0)
		return -errno;
	return 0;
}

static int free_entry(void)
{
	unsigned int i;

	for (i = 0; i < nentries; i++)
		if (!atomic_load(&entries[i].hi))
			return (int)i;
	return -EBUSY;
}

int dd_map_block(int fd, uint64_t off, size_t len, struct dd_map *m)
{
	uint64_t start = off & ~(uint64_t)(page_size - 1);
	size_t lead = (size_t)(off - start);
	struct map_entry *e;
	int i = free_entry();
	void *p;

	if (i < 0)
		return i;
	if (!len || len > SIZE_MAX - lead)
		return -EINVAL;
	p = mmap(NULL, len + lead, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, (off_t)start);
	if (p == MAP_FAILED)
		return -errno;
	m->base = p;
	m->maplen = len + lead;
	m->data = m->base + lead;
	m->entry = (unsigned int)i;
	e = &entries[i];
	atomic_store(&e->lost, 0);
	atomic_store(&e->lo, (uintptr_t)p);
	atomic_store(&e->hi, (uintptr_t)p + m->maplen);
	return 0;
}

bool dd_map_lost(const struct dd_map *m)
{
	return atomic_load(&entries[m->entry].lost) != 0;
}

void dd_map_release(struct dd_map *m)
{
	struct map_entry *e = &entries[m->entry];

	atomic_store(&e->hi, 0);
	atomic_store(&e->lo, 0);
	munmap(m->base, m->maplen);
	m->base = m->data = NULL;
	m->maplen = 0;
}

/* The kernel tells the lease holder with SIGIO that another process waits. */
static void on_lease_break(int sig)
{
	uint64_t one = 1;
	int saved = errno;

	(void)sig;
	atomic_store(&lease_wanted, 1);
	if (write(lease_wake_fd, &one, sizeof(one)) < 0) {
		/* the main loop also wakes up on its own */
	}
	errno = saved;
}

int dd_map_lease(int fd, int wake_fd)
{
	struct sigaction act, old;
	int r;

	memset(&act, 0, sizeof(act));
	act.sa_handler = on_lease_break;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	lease_wake_fd = wake_fd;
	if (sigaction(SIGIO, &act, &old) < 0)
		return -errno;
	if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0)
		return 0;
	r = -errno;
	sigaction(SIGIO, &old, NULL);
	return r;
}

bool dd_map_lease_wanted(void)
{
	return atomic_load(&lease_wanted) != 0;
}

void dd_map_lease_end(int fd)
{
	fcntl(fd, F_SETLEASE, F_UNLCK);
}
