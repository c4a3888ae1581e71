// SPDX-License-Identifier: LGPL-2.1-or-later
/* Directory listings (dirlist.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dirlist.h"
#include "drafts.h"
#include "heads.h"

struct dirlist {
	char *path;
	struct dentry *d;
	long n;
	struct mattr *attrs; /* READDIRPLUS: read at its first call */
	int *rv;
};

void dirlist_free(struct dirlist *h)
{
	if (!h)
		return;
	dentries_free(h->d, h->n);
	free(h->attrs);
	free(h->rv);
	free(h->path);
	free(h);
}

int dirlist_open(struct mount *m, struct node *n, struct dirlist **out)
{
	struct dirlist *h = calloc(1, sizeof(*h));
	int r = -ENOMEM;

	if (!h || !(h->path = node_path(&m->nodes, n)))
		goto fail;
	r = listing_refresh_dir(&m->listing, m->io, h->path, m->o.cache_time);
	if (r)
		goto fail;
	h->n = listing_children(&m->listing, h->path, &h->d);
	if (h->n < 0) {
		r = (int)h->n;
		h->n = 0;
		goto fail;
	}
	*out = h;
	return 0;
fail:
	dirlist_free(h);
	return r;
}

long dirlist_count(const struct dirlist *h)
{
	return h->n;
}

const char *dirlist_name(const struct dirlist *h, long i)
{
	return h->d[i].name;
}

bool dirlist_is_dir(const struct dirlist *h, long i)
{
	return h->d[i].is_dir;
}

/* The full name of entry i: "DIR/NAME", with a slash after for a directory's marker. */
static char *entry_name(const struct dirlist *h, long i, bool marker)
{
	size_t dl = strlen(h->path), nl = strlen(h->d[i].name);
	char *s = malloc(dl + nl + 3), *p = s;

	if (!s)
		return NULL;
	memcpy(p, h->path, dl);
	p += dl;
	if (dl)
		*p++ = '/';
	memcpy(p, h->d[i].name, nl);
	p += nl;
	if (marker)
		*p++ = '/';
	*p = 0;
	return s;
}

char *dirlist_path(const struct dirlist *h, long i)
{
	return entry_name(h, i, false);
}

/* Entry i settled after the reads: a directory without a marker, a draft, links. */
static void settle_entry(struct mount *m, struct dirlist *h, long i, const char *name)
{
	char *path;
	long dirs;

	if (h->d[i].is_dir) {
		if (h->rv[i]) { /* no marker: the defaults */
			memset(&h->attrs[i], 0, sizeof(h->attrs[i]));
			h->rv[i] = 0;
		}
		path = entry_name(h, i, false);
		dirs = path ? listing_subdirs(&m->listing, path) : -ENOMEM;
		h->attrs[i].nlink = dirs < 0 ? 2 : 2 + (uint32_t)dirs;
		/* not listed yet (an index lists a directory at a time): 1, "not counted", as btrfs says */
		if (path && !listing_knows_dir(&m->listing, path))
			h->attrs[i].nlink = 1;
		free(path);
	} else if ((h->rv[i] == 0 || h->rv[i] == -ENOENT) && drafts_attrs_at(m, name, &h->attrs[i])) {
		/* a draft: not on RADOS yet, or its name taken there, empty, until it is written */
		h->rv[i] = 0;
	}
}

/* Every entry's head (a directory's: its marker) read, all in flight together. */
static int read_attrs(struct mount *m, struct dirlist *h)
{
	char **names = calloc((size_t)h->n + 1, sizeof(*names));
	int r = -ENOMEM;

	h->attrs = calloc((size_t)h->n + 1, sizeof(*h->attrs));
	h->rv = calloc((size_t)h->n + 1, sizeof(*h->rv));
	if (!names || !h->attrs || !h->rv)
		goto out;
	for (long i = 0; i < h->n; i++)
		if (!(names[i] = entry_name(h, i, h->d[i].is_dir)))
			goto out;
	r = heads_read_many(m->io, (const char *const *)names, (size_t)h->n, h->attrs, h->rv);
	for (long i = 0; !r && i < h->n; i++)
		settle_entry(m, h, i, names[i]);
out:
	for (long i = 0; names && i < h->n; i++)
		free(names[i]);
	free(names);
	if (r) {
		free(h->attrs);
		free(h->rv);
		h->attrs = NULL;
		h->rv = NULL;
	}
	return r;
}

int dirlist_read_attrs(struct mount *m, struct dirlist *h)
{
	return h->attrs ? 0 : read_attrs(m, h);
}

int dirlist_attr(const struct dirlist *h, long i, struct mattr *a)
{
	*a = h->attrs[i];
	return h->rv[i];
}
