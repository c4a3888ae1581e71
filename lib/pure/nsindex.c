// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The namespace index's names and record (nsindex.h). The record is text a
 * person can read with `rados getxattr`: "striped-index 1 STATE SHARDS POOL".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "nsindex.h"

#define RECORD_MAGIC "striped-index 1 "

static const char *const state_names[] = {"none", "building", "ready"};

void nsindex_split(const char *name, size_t *dir_len, const char **key)
{
	const char *slash = strrchr(name, '/');

	*dir_len = slash ? (size_t)(slash - name) + 1 : 0;
	*key = name[*dir_len] ? name + *dir_len : NSINDEX_MARKER_KEY;
}

void nsindex_parent(const char *dir, size_t dir_len, size_t *parent_len)
{
	size_t i = dir_len - 1; /* dir's own '/' */

	while (i > 0 && dir[i - 1] != '/')
		i--;
	*parent_len = i;
}

/* FNV-1a: stable across hosts and versions, as the shard of a key must be. */
uint32_t nsindex_shard(const char *key, size_t key_len, uint32_t shards)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < key_len; i++) {
		h ^= (unsigned char)key[i];
		h *= 0x100000001b3ull;
	}
	return (uint32_t)(h % shards);
}

char *nsindex_object(int64_t data_pool, uint32_t shard, const char *dir, size_t dir_len)
{
	char head[64];
	int n = snprintf(head, sizeof(head), "striped.dir.%lld.%u.", (long long)data_pool, shard);
	char *oid = malloc((size_t)n + dir_len + 1);

	if (oid) {
		memcpy(oid, head, (size_t)n);
		memcpy(oid + n, dir, dir_len);
		oid[(size_t)n + dir_len] = 0;
	}
	return oid;
}

int nsindex_record_format(const struct nsindex_record *rec, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, RECORD_MAGIC "%s %u %s", state_names[rec->state], rec->shards,
			 rec->pool);

	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : n;
}

/* The next space-separated word of s[*at..len): its start and length. */
static size_t next_word(const char *s, size_t len, size_t *at, const char **word)
{
	size_t start = *at, end = start;

	while (end < len && s[end] != ' ')
		end++;
	*word = s + start;
	*at = end < len ? end + 1 : end;
	return end - start;
}

int nsindex_record_parse(const char *buf, size_t len, struct nsindex_record *rec)
{
	size_t magic = strlen(RECORD_MAGIC), at = magic, n;
	const char *w;
	uint64_t shards;
	int state = -1;

	memset(rec, 0, sizeof(*rec));
	if (len < magic || memcmp(buf, RECORD_MAGIC, magic))
		return -EINVAL;
	n = next_word(buf, len, &at, &w);
	for (int i = 0; i < 3; i++)
		if (n == strlen(state_names[i]) && !memcmp(w, state_names[i], n))
			state = i;
	if (state < 0)
		return -EINVAL;
	n = next_word(buf, len, &at, &w);
	if (decimal_parse(w, n, &shards) || !shards || shards > NSINDEX_SHARDS_MAX)
		return -EINVAL;
	n = len - at; /* the pool's name: the rest, spaces and all */
	if (!n || n >= sizeof(rec->pool) || memchr(buf + at, 0, n))
		return -EINVAL;
	memcpy(rec->pool, buf + at, n);
	rec->state = (enum nsindex_state)state;
	rec->shards = (uint32_t)shards;
	return 0;
}
