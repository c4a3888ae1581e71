// SPDX-License-Identifier: LGPL-2.1-or-later
/* Read-only opens of small files without a handle (headopen.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "clock.h"
#include "headopen.h"
#include "heads.h"
#include "open.h"

#define FH_HEAD 1u

/*
 * The largest file whose bytes a read-only open holds: a head_open holds
 * them while it is open, so many open at once cost at most this each.
 */
#define CACHE_MAX (64u << 10)

struct head_open {
	struct node *n;
	uint64_t id; /* the file's, at the open: another id is another file */
	/*
	 * The file's bytes as the open read them, beside its attributes (in
	 * the same round trip): the reads of the next cache_time are answered
	 * from them, as the attributes are, unless this mount changed the file
	 * since (the node's count of changes). A small file's open, read and
	 * read at the end: one round trip, where there were three.
	 */
	bool cached;
	char *data;
	uint64_t size;
	double at;
	uint64_t changes;
};

uint64_t headopen_fh_of_node(struct node *n)
{
	return (uint64_t)(uintptr_t)n;
}

uint64_t headopen_fh(struct head_open *ho)
{
	return (uint64_t)(uintptr_t)ho | FH_HEAD;
}

struct head_open *headopen_of(uint64_t fh)
{
	return fh & FH_HEAD ? (struct head_open *)(uintptr_t)(fh & ~(uint64_t)FH_HEAD) : NULL;
}

struct node *headopen_node(uint64_t fh)
{
	struct head_open *ho = headopen_of(fh);

	return ho ? ho->n : (struct node *)(uintptr_t)fh;
}

void headopen_free(struct head_open *ho)
{
	if (ho)
		free(ho->data);
	free(ho);
}

/* A head_open's reading of the bytes, made while its attributes are read. */
struct open_bytes {
	struct mount *m;
	const char *path;
	char *buf;
	size_t len;
	struct striped_head h;
	ssize_t r;
};

static void read_open_bytes(void *arg)
{
	struct open_bytes *b = arg;

	b->r = -EFBIG;
	if (b->len)
		b->r = striped_head_pread(b->m->io, b->path, &b->h, sizeof(b->h), b->buf, b->len, 0);
}

/* Keep what b read, when it is the file's bytes whole (the size as the attributes say). */
static void cache_open_bytes(struct head_open *ho, struct open_bytes *b, struct mattr *a,
			     double at, uint64_t changes)
{
	if (b->r < 0 || (uint64_t)b->r != b->h.size || b->h.id != a->id)
		return; /* grown since the lookup, or locked exclusive: each read reads */
	a->size = b->h.size; /* the GETATTR after the open says what the reads give */
	ho->cached = true;
	ho->data = b->buf;
	b->buf = NULL;
	ho->size = b->h.size;
	ho->at = at;
	ho->changes = changes;
}

/* n's head (and bytes) read for a head_open (n->lock held): true when it can be one. */
static bool read_for_open(struct mount *m, struct node *n, struct head_open *ho,
			  struct open_bytes *b)
{
	uint64_t changes = node_changes(n); /* before the read: a change during it makes it stale */
	double at = clock_age_now();
	struct mattr a;

	if (n->file.of || heads_read_beside(m->io, b->path, &a, read_open_bytes, b) ||
	    a.size > a.stripe_unit)
		return false;
	cache_open_bytes(ho, b, &a, at, changes);
	attr_cache_locked(n, &a, at, changes);
	attr_seen(n, &a);
	ho->n = n;
	ho->id = a.id;
	return true;
}

int headopen_try(struct mount *m, struct node *n, const char *path, int oflags,
		 struct head_open **out)
{
	struct open_bytes b = {.m = m, .path = path};
	struct head_open *ho;
	uint64_t seen;
	int r = 0;

	if ((oflags & O_ACCMODE) != O_RDONLY || (oflags & O_TRUNC) ||
	    !node_attr_size(&n->attr, &seen) || seen > OPEN_SMALL_READ)
		return 0;
	/* the size the lookup gave, or a page; a larger file's reads each read the head */
	b.len = seen > CACHE_MAX ? 0 : seen > 4096 ? (size_t)seen : 4096;
	ho = calloc(1, sizeof(*ho));
	b.buf = b.len ? malloc(b.len) : NULL;
	if (!ho || (b.len && !b.buf)) {
		free(b.buf);
		free(ho);
		return -ENOMEM;
	}
	node_lock(n);
	if (read_for_open(m, n, ho, &b)) {
		open_count_locked(m, n);
		*out = ho;
		ho = NULL;
		r = 1;
	}
	node_unlock(n);
	free(b.buf);
	headopen_free(ho);
	return r;
}

/* A read answered from the bytes the open read: false when they are stale. */
static bool cached_read(struct mount *m, const struct head_open *ho, char *buf, size_t size,
			uint64_t off, ssize_t *r)
{
	if (!ho->cached || clock_age_now() - ho->at >= m->o.cache_time ||
	    node_changes(ho->n) != ho->changes)
		return false;
	*r = off >= ho->size ? 0 : (ssize_t)(ho->size - off < size ? ho->size - off : size);
	if (*r)
		memcpy(buf, ho->data + off, (size_t)*r);
	return true;
}

/* A read from the head; *need_handle when the head alone cannot answer. */
static ssize_t head_read(struct mount *m, struct head_open *ho, char *buf, size_t size,
			 uint64_t off, bool *need_handle)
{
	char *path = node_path(&m->nodes, ho->n);
	struct striped_head h;
	ssize_t r;

	*need_handle = false;
	if (!path)
		return -ENOMEM;
	r = striped_head_pread(m->io, path, &h, sizeof(h), buf, size, off);
	free(path);
	if (r == -ENOENT || (r >= 0 && h.id != ho->id))
		return -ESTALE; /* removed, or made anew, since the open: as a handle's calls */
	*need_handle = r == -EBUSY || (r >= 0 && (size_t)r < size && off + (uint64_t)r < h.size);
	return r;
}

bool headopen_read(struct mount *m, struct head_open *ho, char *buf, size_t size, uint64_t off,
		   ssize_t *r)
{
	bool need_handle;

	if (open_has_file(ho->n))
		return false;
	if (cached_read(m, ho, buf, size, off, r))
		return true;
	*r = head_read(m, ho, buf, size, off, &need_handle);
	if (!need_handle)
		return true;
	*r = open_attach(m, ho->n);
	return *r != 0; /* attached: the read goes through the handle */
}
