/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nsindex.c: the namespace index's names and record, pure. A file "a/b/c"
 * is the key "c" in the index of directory "a/b/", which is the key "b/"
 * in the index of "a/", which is "a/" in the root's (""). A name ending in
 * '/' (a directory's marker, as the mount makes one) is the key "/" in its
 * own directory's index: no file's or directory's key can be "/". A
 * directory's keys are cut into shards by a hash of the key, each shard
 * one object's omap, so that no object passes the OSDs' large-omap warning.
 */
#ifndef STRIPED_NSINDEX_H
#define STRIPED_NSINDEX_H

#include "striped_i.h"

/* The key of a directory's own marker in its index. */
#define NSINDEX_MARKER_KEY "/"
/* The object, in the data pool's namespace, that says whether and where the index is. */
#define NSINDEX_RECORD_OID "striped.index"
#define NSINDEX_RECORD_XATTR "striped.index"
#define NSINDEX_SHARDS_DEFAULT STRIPED_INDEX_SHARDS_DEFAULT
#define NSINDEX_SHARDS_MAX STRIPED_INDEX_SHARDS_MAX
/* Entry values: what a key names. */
#define NSINDEX_FILE "f"
#define NSINDEX_DIR "d"

enum nsindex_state {
	NSINDEX_NONE,	  /* no index: listings walk the pool */
	NSINDEX_BUILDING, /* writers keep it; listings walk until it is ready */
	NSINDEX_READY,	  /* writers keep it; listings read it */
};

struct nsindex_record {
	enum nsindex_state state;
	uint32_t shards;
	char pool[128]; /* the pool of the index objects: the data pool, or a replicated one */
};

/*
 * Where name's entry goes: *dir_len bytes of name are its directory (up to
 * and including its last '/'; 0 for the root), the rest its key, or
 * NSINDEX_MARKER_KEY when name ends in '/'. *key points into name or at a
 * constant.
 */
void nsindex_split(const char *name, size_t *dir_len, const char **key);

/*
 * The parent of directory dir[0..dir_len) (dir_len > 0, dir ends in '/'):
 * *parent_len bytes of dir, and the directory's key there (dir's last
 * component with its '/'), which starts at dir + *parent_len.
 */
void nsindex_parent(const char *dir, size_t dir_len, size_t *parent_len);

/* The shard of a key among shards (1 .. NSINDEX_SHARDS_MAX). */
uint32_t nsindex_shard(const char *key, size_t key_len, uint32_t shards);

/*
 * The object of a directory's shard: "striped.dir.POOLID.SHARD.DIR".
 * Malloc'd, NULL without memory.
 */
char *nsindex_object(int64_t data_pool, uint32_t shard, const char *dir, size_t dir_len);

/* The record as stored, into buf (cap bytes): its length, or -ENAMETOOLONG. */
int nsindex_record_format(const struct nsindex_record *rec, char *buf, size_t cap);
/* A stored record read: 0, or -EINVAL for anything but a record this version wrote. */
int nsindex_record_parse(const char *buf, size_t len, struct nsindex_record *rec);

#endif /* STRIPED_NSINDEX_H */
