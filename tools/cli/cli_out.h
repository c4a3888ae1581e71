/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the operators' command prints: JSON (one document per query, field
 * names as in the C structs) and a few things people read (sizes, times).
 * Pure: it writes to the FILE it is given.
 */
#ifndef CLI_OUT_H
#define CLI_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define JSON_DEPTH_MAX 16

/* A JSON document written as it goes: values in objects take a key, in arrays NULL. */
struct json {
	FILE *f;   /* where values are written: the document in memory, or out */
	FILE *out; /* where the whole document goes at json_end() */
	char *doc; /* the document so far (open_memstream) */
	size_t len;
	bool pretty;
	int depth;
	bool has_items[JSON_DEPTH_MAX]; /* whether the open object or array has one already */
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_bool(struct json *j, const char *key, bool v);
void json_string(struct json *j, const char *key, const char *s);
/* Any bytes: valid UTF-8 as it is, other bytes as \u00XX (their Latin-1 reading). */
void json_bytes(struct json *j, const char *key, const void *s, size_t len);
/* Ends the document with a newline and writes it out whole. */
void json_end(struct json *j);
/* Drops a document not ended (a command that failed prints none); accepts an ended one. */
void json_discard(struct json *j);

/* "293 KiB" for 300000: binary units, one decimal below 10; bytes alone below 1 KiB. */
void fmt_size(uint64_t bytes, char buf[32]);
/* "2026-11-25 16:17:01.123456789 +0000", in local time. */
void fmt_time(const struct timespec *t, char buf[64]);

#endif /* CLI_OUT_H */
