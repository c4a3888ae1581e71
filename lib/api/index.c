// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The namespace index as a whole: made from one walk, dropped, described,
 * checked against a walk and mended (striped.h). The record is written
 * before the walk, and the walk waits STRIPED_INDEX_NOTICE_S, so that every
 * file made during the build is indexed by its writer or found by the
 * walk; a remove during the build may leave an entry without its file,
 * which listings with sizes leave out and a check finds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "build.h"
#include "entries.h"
#include "name.h"
#include "place.h"

/* ---- the index objects of a place: a walk of the index pool ---- */

struct oids {
	const struct index_place *p;
	char **v;
	size_t n, cap;
};

static int keep_index_object(void *arg, const char *oid)
{
	struct oids *o = arg;
	size_t off;

	if (!index_object_dir(o->p, oid, &off))
		return 0;
	return api_names_push(&o->v, &o->n, &o->cap, strdup(oid));
}

static int index_objects(const struct index_place *p, struct oids *o)
{
	memset(o, 0, sizeof(*o));
	o->p = p;
	return api_objects_walk(p->iio, 0, keep_index_object, o);
}

/* ---- create and drop ---- */

/* The pool the index objects go to: it must exist and keep omap (not EC). */
static int check_index_pool(rados_ioctx_t io, const char *pool)
{
	rados_ioctx_t iio;
	int requires = 0;
	int r = rados_ioctx_create(rados_ioctx_get_cluster(io), pool, &iio);

	if (r < 0)
		return r;
	r = rados_ioctx_pool_requires_alignment2(iio, &requires);
	rados_ioctx_destroy(iio);
	return r < 0 ? r : requires ? -EOPNOTSUPP : 0;
}

static int build_from_walk(rados_ioctx_t io)
{
	struct index_place p;
	char **names = NULL;
	size_t n = 0;
	int r = index_place_get_fresh(io, &p);

	if (r)
		return r;
	r = api_walk_files(io, &names, &n);
	if (!r)
		r = index_build(&p, names, n);
	api_names_free(names, n);
	index_place_put(&p);
	return r;
}

static int remove_objects(rados_ioctx_t io, const struct nsindex_record *rec)
{
	struct index_place p;
	struct oids o;
	int r = index_place_open(io, rec, &p);

	if (r)
		return r;
	r = index_objects(&p, &o);
	if (!r)
		r = index_objects_remove(&p, o.v, o.n);
	api_names_free(o.v, o.n);
	index_place_put(&p);
	return r;
}

int striped_index_create(rados_ioctx_t io, const char *index_pool, uint32_t shards)
{
	struct nsindex_record rec = {.state = NSINDEX_BUILDING}, now;
	int r;

	if (!io || shards > STRIPED_INDEX_SHARDS_MAX)
		return -EINVAL;
	rec.shards = shards ? shards : STRIPED_INDEX_SHARDS_DEFAULT;
	if (index_pool) {
		if (!*index_pool || strlen(index_pool) >= sizeof(rec.pool))
			return -EINVAL;
		strcpy(rec.pool, index_pool);
	} else if ((r = rados_ioctx_get_pool_name(io, rec.pool, sizeof(rec.pool))) < 0) {
		return r;
	}
	r = index_record_get_fresh(io, &now);
	if (r)
		return r;
	if (now.state != NSINDEX_NONE)
		return -EEXIST;
	r = check_index_pool(io, rec.pool);
	if (!r)
		r = index_record_store(io, &rec);
	if (r)
		return r;
	sleep(STRIPED_INDEX_NOTICE_S + 1); /* every writer now keeps it */
	r = build_from_walk(io);
	rec.state = NSINDEX_READY;
	if (!r)
		r = index_record_store(io, &rec);
	if (r) { /* no half index: writers stop keeping it, listings never read it */
		(void)index_record_store(io, &(struct nsindex_record){.state = NSINDEX_NONE});
		(void)remove_objects(io, &rec);
	}
	return r;
}

int striped_index_drop(rados_ioctx_t io)
{
	struct nsindex_record rec;
	int r;

	if (!io)
		return -EINVAL;
	r = index_record_get_fresh(io, &rec);
	if (r)
		return r;
	if (rec.state == NSINDEX_NONE)
		return -ENOENT;
	r = index_record_store(io, &(struct nsindex_record){.state = NSINDEX_NONE});
	if (r)
		return r;
	sleep(STRIPED_INDEX_NOTICE_S + 1); /* no writer adds to it any more */
	return remove_objects(io, &rec);
}

/* ---- stat ---- */

static int count_objects(rados_ioctx_t io, struct striped_index_info *info)
{
	struct index_place p;
	struct oids o;
	int r = index_place_get(io, &p);

	if (r)
		return r;
	r = index_objects(&p, &o);
	info->objects = o.n;
	for (size_t i = 0; !r && i < o.n; i++) {
		uint64_t keys;

		r = index_object_read(&p, o.v[i], NULL, NULL, &keys);
		info->entries += keys;
	}
	api_names_free(o.v, o.n);
	index_place_put(&p);
	return r;
}

int striped_index_stat(rados_ioctx_t io, int count, struct striped_index_info *info,
		       size_t info_size)
{
	struct striped_index_info full = {0};
	struct nsindex_record rec;
	int r;

	if (!io || !info || info_size < sizeof(info->state))
		return -EINVAL;
	r = index_record_get_fresh(io, &rec);
	if (r)
		return r;
	full.state = (int)rec.state;
	full.shards = rec.shards;
	memcpy(full.pool, rec.pool, sizeof(full.pool));
	if (count && rec.state != NSINDEX_NONE)
		r = count_objects(io, &full);
	memcpy(info, &full, info_size < sizeof(full) ? info_size : sizeof(full));
	return r;
}

/* ---- check and repair ---- */

struct indexed {
	char **v; /* files' names (a marker's: "dir/") */
	size_t n, cap;
	struct indexed *dirs; /* directories' own names, "dir/" */
};

static int keep_name(struct indexed *x, const char *dir, const char *key)
{
	size_t dl = strlen(dir), kl = strcmp(key, NSINDEX_MARKER_KEY) ? strlen(key) : 0;
	char *name = malloc(dl + kl + 1);

	if (name) {
		memcpy(name, dir, dl);
		memcpy(name + dl, key, kl);
		name[dl + kl] = 0;
	}
	return api_names_push(&x->v, &x->n, &x->cap, name);
}

/* A file's key (or a marker) kept as its name, a directory's among the directories. */
static int keep_entry(void *arg, const char *dir, const char *key, bool is_dir)
{
	struct indexed *x = arg;

	return keep_name(is_dir ? x->dirs : x, dir, key);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int read_index(const struct index_place *p, struct indexed *x)
{
	struct oids o;
	int r = index_objects(p, &o);

	for (size_t i = 0; !r && i < o.n; i++) {
		uint64_t keys;

		r = index_object_read(p, o.v[i], keep_entry, x, &keys);
	}
	api_names_free(o.v, o.n);
	if (!r && x->n > 1)
		qsort(x->v, x->n, sizeof(x->v[0]), by_string);
	if (!r && x->dirs->n > 1)
		qsort(x->dirs->v, x->dirs->n, sizeof(char *), by_string);
	return r;
}

static bool has(const struct indexed *x, const char *name)
{
	return x->n && bsearch(&name, x->v, x->n, sizeof(char *), by_string);
}

/* Whether every directory above name is in its parent's index: else no listing reaches it. */
static bool reachable(const struct indexed *dirs, const char *name)
{
	char *copy = strdup(name), *slash;
	bool yes = copy != NULL;

	for (slash = copy ? strrchr(copy, '/') : NULL; yes && slash; slash = strrchr(copy, '/')) {
		if (slash[1]) /* the file's own directory first; a marker is its directory */
			slash[1] = 0;
		yes = has(dirs, copy);
		*slash = 0;
	}
	free(copy);
	return yes;
}

/* An entry's file is gone when its head is: asked again, as it may be new since the walk. */
static bool head_gone(rados_ioctx_t io, const char *name)
{
	char *oid;
	uint64_t size;
	time_t mtime;
	int r = name_oid(io, name, &oid);

	if (r)
		return false;
	r = rados_stat(io, oid, &size, &mtime);
	free(oid);
	return r == -ENOENT;
}

static int mend(rados_ioctx_t io, const char *name, bool add)
{
	struct index_update *u;
	int r = index_update_begin(io, name, add, &u);

	return r ? r : index_update_end(u, 0);
}

struct check {
	rados_ioctx_t io;
	int repair;
	striped_index_diff_fn fn;
	void *arg;
	int found;
};

static int differ(struct check *c, const char *name, int kind)
{
	int r;

	if (kind == STRIPED_INDEX_STALE && !head_gone(c->io, name))
		return 0;
	c->found++;
	r = c->fn ? c->fn(c->arg, name, kind) : 0;
	if (!r && c->repair)
		r = mend(c->io, name, kind == STRIPED_INDEX_MISSING);
	return r;
}

/* Both sorted: what one has and the other has not. */
static int compare(struct check *c, char **files, size_t nf, const struct indexed *x)
{
	size_t i = 0, j = 0;
	int r = 0;

	while (!r && (i < nf || j < x->n)) {
		int cmp = i == nf ? 1 : j == x->n ? -1 : strcmp(files[i], x->v[j]);

		if (cmp < 0)
			r = differ(c, files[i++], STRIPED_INDEX_MISSING);
		else if (cmp > 0)
			r = differ(c, x->v[j++], STRIPED_INDEX_STALE);
		else if (!reachable(x->dirs, files[i]))
			r = differ(c, files[i++], STRIPED_INDEX_MISSING), j++;
		else
			i++, j++;
	}
	return r;
}

int striped_index_check(rados_ioctx_t io, int repair, striped_index_diff_fn fn, void *arg)
{
	struct check c = {.io = io, .repair = repair, .fn = fn, .arg = arg};
	struct indexed dirs = {0}, x = {.dirs = &dirs};
	struct index_place p;
	char **files = NULL;
	size_t nf = 0;
	int r;

	if (!io)
		return -EINVAL;
	r = index_place_get_fresh(io, &p);
	if (r)
		return r;
	if (p.rec.state == NSINDEX_NONE)
		return -ENOENT;
	r = read_index(&p, &x);
	if (!r)
		r = api_walk_files(io, &files, &nf);
	if (!r && repair)
		index_forget_dirs(); /* a mended file's directories written again */
	if (!r)
		r = compare(&c, files, nf, &x);
	api_names_free(files, nf);
	api_names_free(x.v, x.n);
	api_names_free(dirs.v, dirs.n);
	index_place_put(&p);
	return r ? r : c.found;
}
