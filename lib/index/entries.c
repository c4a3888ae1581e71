// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The writers' side of the index (entries.h). A directory's entry is
 * written with every create below it, so no directory is ever missing
 * above a listed file, whatever the order the operations land in. A
 * directory stays in its parent's index once its last file goes, as a
 * directory of a file system does, until its marker is removed (the
 * mount's rmdir) while it is empty.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "dirread.h"
#include "entries.h"
#include "place.h"

/*
 * The directories' entries this process wrote lately: a create below a
 * directory it made a file in less than DIR_KNOWN_NS ago sends its own
 * entry alone, not one more for each directory above it. A directory's entry
 * goes only with its marker while it is empty (index_prune_dir(), which
 * forgets them all here); another client's prune meanwhile races a create in
 * it, cached or not (the entry sent beside can land first), and
 * striped_index_check() finds the file such a race leaves without its
 * directory.
 */
#define DIR_KNOWN_SLOTS 4096
#define DIR_KNOWN_NS (STRIPED_INDEX_NOTICE_S * 1000000000ull)

struct dir_known {
	uint64_t hash, at;
	char *what; /* the object and the key, to tell two of one hash apart */
};

static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dir_known known[DIR_KNOWN_SLOTS];

static char *known_what(const char *oid, const char *key, size_t key_len, uint64_t *hash,
			uint64_t scope)
{
	size_t ol = strlen(oid);
	char *w = malloc(ol + key_len + 2);

	if (!w)
		return NULL;
	memcpy(w, oid, ol);
	w[ol] = '\n';
	memcpy(w + ol + 1, key, key_len);
	w[ol + 1 + key_len] = 0;
	*hash = scope ^ nsindex_shard(w, ol + 1 + key_len, UINT32_MAX);
	return w;
}

static bool dir_is_known(const char *oid, const char *key, size_t key_len, uint64_t scope)
{
	uint64_t h;
	char *w = known_what(oid, key, key_len, &h, scope);
	struct dir_known *k = &known[h % DIR_KNOWN_SLOTS];
	bool yes;

	if (!w)
		return false;
	pthread_mutex_lock(&known_lock);
	yes = k->what && k->hash == h && !strcmp(k->what, w) && clock_now_ns() - k->at < DIR_KNOWN_NS;
	pthread_mutex_unlock(&known_lock);
	free(w);
	return yes;
}

static void dir_now_known(const char *oid, const char *key, size_t key_len, uint64_t scope)
{
	uint64_t h;
	char *w = known_what(oid, key, key_len, &h, scope);
	struct dir_known *k = &known[h % DIR_KNOWN_SLOTS];

	if (!w)
		return;
	pthread_mutex_lock(&known_lock);
	free(k->what);
	*k = (struct dir_known){.hash = h, .at = clock_now_ns(), .what = w};
	pthread_mutex_unlock(&known_lock);
}

void index_forget_dirs(void)
{
	pthread_mutex_lock(&known_lock);
	for (size_t i = 0; i < DIR_KNOWN_SLOTS; i++) {
		free(known[i].what);
		known[i] = (struct dir_known){0};
	}
	pthread_mutex_unlock(&known_lock);
}

/* One operation on one index object: set or remove one key. */
struct entry_op {
	char *oid;
	const char *key;
	size_t key_len;
	const char *value;
	rados_completion_t rc;
	bool sent;
};

struct index_update {
	struct index_place place;
	bool create;
	size_t n;
	struct entry_op ops[];
};

/* Directories above name: its own, each one's parent, the root last. */
static size_t depth_of(const char *name)
{
	size_t n = 0;

	for (const char *s = name; *s; s++)
		n += *s == '/';
	/* a marker "a/" is the key "/" of "a/", and "a/" the key of the root */
	return n;
}

static int op_fill(struct index_update *u, struct entry_op *op, const char *dir, size_t dir_len,
		   const char *key, size_t key_len, const char *value)
{
	op->oid = nsindex_object(u->place.data_pool,
				 nsindex_shard(key, key_len, u->place.rec.shards), dir, dir_len);
	op->key = key;
	op->key_len = key_len;
	op->value = value;
	return op->oid ? 0 : -ENOMEM;
}

static int op_send(struct index_update *u, struct entry_op *op, bool set)
{
	rados_write_op_t w = rados_create_write_op();
	size_t vlen = strlen(op->value);
	int r;

	if (!w)
		return -ENOMEM;
	if (set)
		rados_write_op_omap_set2(w, &op->key, &op->value, &op->key_len, &vlen, 1);
	else
		rados_write_op_omap_rm_keys2(w, &op->key, &op->key_len, 1);
	r = rados_aio_create_completion2(NULL, NULL, &op->rc);
	if (!r) {
		r = rados_aio_write_op_operate(w, u->place.iio, op->rc, op->oid, NULL, 0);
		if (r)
			rados_aio_release(op->rc);
	}
	rados_release_write_op(w);
	op->sent = !r;
	return r;
}

/* Every op of the update: the entry, then each directory's in its parent. */
static int update_fill(struct index_update *u, const char *name)
{
	size_t dir_len, parent_len;
	const char *key;
	int r;

	nsindex_split(name, &dir_len, &key);
	r = op_fill(u, &u->ops[u->n++], name, dir_len, key, strlen(key), NSINDEX_FILE);
	if (!u->create)
		return r;
	while (!r && dir_len) {
		struct entry_op *op = &u->ops[u->n];

		nsindex_parent(name, dir_len, &parent_len);
		r = op_fill(u, op, name, parent_len, name + parent_len, dir_len - parent_len,
			    NSINDEX_DIR);
		if (!r && dir_is_known(op->oid, op->key, op->key_len, u->place.scope)) {
			free(op->oid); /* and so every directory above it */
			op->oid = NULL;
			break;
		}
		u->n += !r;
		dir_len = parent_len;
	}
	return r;
}

static int wait_op(struct entry_op *op)
{
	int r;

	if (!op->sent)
		return 0;
	rados_aio_wait_for_complete(op->rc);
	r = rados_aio_get_return_value(op->rc);
	rados_aio_release(op->rc);
	op->sent = false;
	return r;
}

static void update_free(struct index_update *u)
{
	for (size_t i = 0; i < u->n; i++) {
		wait_op(&u->ops[i]);
		free(u->ops[i].oid);
	}
	index_place_put(&u->place);
	free(u);
}

static struct index_update *update_alloc(const struct index_place *p, bool create, size_t nops)
{
	struct index_update *u = calloc(1, sizeof(*u) + nops * sizeof(u->ops[0]));

	if (u) {
		u->place = *p;
		u->create = create;
	}
	return u;
}

/* Send u's ops (sets for a create, removals else); u freed on failure. */
static int update_send(struct index_update *u)
{
	int r = 0;

	for (size_t i = 0; !r && i < u->n; i++)
		r = op_send(u, &u->ops[i], u->create);
	if (r)
		update_free(u);
	return r;
}

int index_update_begin(rados_ioctx_t io, const char *name, bool create, struct index_update **u)
{
	struct index_place p;
	int r = index_place_get(io, &p);

	*u = NULL;
	if (r || p.rec.state == NSINDEX_NONE)
		return r;
	*u = update_alloc(&p, create, depth_of(name) + 1);
	if (!*u) {
		index_place_put(&p);
		return -ENOMEM;
	}
	r = update_fill(*u, name);
	if (r)
		update_free(*u);
	else
		r = update_send(*u);
	if (r)
		*u = NULL;
	return r;
}

/* Send again, and wait for, what failed (or, put_back, every op as a set). */
static int resend(struct index_update *u, const int *results, bool put_back)
{
	int first = 0;

	for (size_t i = 0; i < u->n; i++) {
		int r = 0;

		if (put_back || results[i])
			r = op_send(u, &u->ops[i], true);
		if (!r)
			r = wait_op(&u->ops[i]);
		if (r && !first)
			first = r;
	}
	return first;
}

int index_update_end(struct index_update *u, int head_result)
{
	int first = 0, *results;

	if (!u)
		return 0;
	results = calloc(u->n, sizeof(*results));
	if (!results) {
		update_free(u);
		return -ENOMEM;
	}
	for (size_t i = 0; i < u->n; i++) {
		results[i] = wait_op(&u->ops[i]);
		if (!u->create && results[i] == -ENOENT)
			results[i] = 0; /* a key out of a shard that is not there: out already */
		if (results[i] && !first)
			first = results[i];
	}
	if (u->create && first && (head_result == 0 || head_result == -EEXIST))
		first = resend(u, results, false);
	else if (!u->create && head_result && head_result != -ENOENT)
		first = resend(u, results, true); /* the file stayed: so does its entry */
	for (size_t i = 1; u->create && !first && i < u->n; i++)
		dir_now_known(u->ops[i].oid, u->ops[i].key, u->ops[i].key_len, u->place.scope);
	free(results);
	update_free(u);
	return first;
}

/* Directory name[0..dir_len) out of its parent's index; p goes with the update. */
static int dir_entry_remove(struct index_place *p, const char *name, size_t dir_len)
{
	struct index_update *u = update_alloc(p, false, 1);
	size_t parent_len;
	int r;

	if (!u) {
		index_place_put(p);
		return -ENOMEM;
	}
	nsindex_parent(name, dir_len, &parent_len);
	r = op_fill(u, &u->ops[u->n++], name, parent_len, name + parent_len, dir_len - parent_len,
		    NSINDEX_DIR);
	if (r) {
		update_free(u);
		return r;
	}
	r = update_send(u);
	return r ? r : index_update_end(u, 0);
}

int index_prune_dir(rados_ioctx_t io, const char *name)
{
	size_t dir_len = strlen(name);
	struct index_place p;
	bool empty = false;
	int r;

	if (!dir_len || name[dir_len - 1] != '/')
		return -EINVAL;
	r = index_place_get(io, &p);
	if (r || p.rec.state == NSINDEX_NONE)
		return r;
	r = index_dir_is_empty(&p, name, dir_len, &empty);
	if (r || !empty) {
		index_place_put(&p);
		return r;
	}
	index_forget_dirs();
	return dir_entry_remove(&p, name, dir_len);
}
