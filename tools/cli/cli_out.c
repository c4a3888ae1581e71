// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operators' command's output: a JSON writer, and the sizes and times
 * people read. A document is held in memory until it is whole, as Ceph's
 * JSONFormatter holds `rbd ls --format json`'s: output is valid JSON or
 * nothing (about 60 bytes a file for ls; check holds every object's name
 * anyway).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_out.h"

/*
 * The document is written into memory and reaches out at json_end(), so a
 * command that fails half-way (a listing cut short) prints no JSON rather
 * than a document left open. Without memory for that, it goes straight out.
 */
void json_init(struct json *j, FILE *out, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = pretty;
	j->f = open_memstream(&j->doc, &j->len);
	if (!j->f)
		j->f = out;
}

/* How many bytes of a valid UTF-8 sequence start at s (0: not one). */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	/* leading bytes: C2-DF, E0-EF, F0-F4; F5-FF never start a sequence */
	size_t n = s[0] >= 0xf0 ? (s[0] <= 0xf4 ? 4 : 0) : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (s[0] < 0x80)
		return 1;
	if (!n || n > left)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* no overlong 3- and 4-byte forms, no surrogates, nothing past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

static void put_string(FILE *f, const unsigned char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(s + i, len - i);

		if (n > 1) {
			fwrite(s + i, 1, n, f);
			i += n;
			continue;
		}
		if (s[i] == '"' || s[i] == '\\')
			fprintf(f, "\\%c", s[i]);
		else if (s[i] == '\n')
			fputs("\\n", f);
		else if (s[i] == '\t')
			fputs("\\t", f);
		else if (s[i] < 0x20 || s[i] >= 0x7f)
			fprintf(f, "\\u%04x", s[i]);
		else
			fputc(s[i], f);
		i++;
	}
	fputc('"', f);
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Before a value: the comma, the line and the key. */
static void value_begin(struct json *j, const char *key)
{
	if (j->depth > 0 && j->depth <= JSON_DEPTH_MAX) {
		if (j->has_items[j->depth - 1])
			fputc(',', j->f);
		j->has_items[j->depth - 1] = true;
		indent(j);
	}
	if (key) {
		put_string(j->f, (const unsigned char *)key, strlen(key));
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_nested(struct json *j, const char *key, char c)
{
	value_begin(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_DEPTH_MAX)
		j->has_items[j->depth] = false;
	j->depth++;
}

static void close_nested(struct json *j, char c)
{
	bool had = j->depth > 0 && j->depth <= JSON_DEPTH_MAX && j->has_items[j->depth - 1];

	j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
}

void json_object_begin(struct json *j, const char *key)
{
	open_nested(j, key, '{');
}

void json_object_end(struct json *j)
{
	close_nested(j, '}');
}

void json_array_begin(struct json *j, const char *key)
{
	open_nested(j, key, '[');
}

void json_array_end(struct json *j)
{
	close_nested(j, ']');
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	value_begin(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	value_begin(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_string(struct json *j, const char *key, const char *s)
{
	json_bytes(j, key, s, strlen(s));
}

void json_bytes(struct json *j, const char *key, const void *s, size_t len)
{
	value_begin(j, key);
	put_string(j->f, s, len);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	if (j->f == j->out)
		return;
	fflush(j->f);
	fwrite(j->doc, 1, j->len, j->out);
	json_discard(j);
	j->f = j->out; /* anything after the document follows it */
}

void json_discard(struct json *j)
{
	if (j->f && j->f != j->out)
		fclose(j->f);
	free(j->doc);
	j->doc = NULL;
	j->len = 0;
	j->f = j->out;
}

void fmt_size(uint64_t bytes, char buf[32])
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, 32, "%llu B", (unsigned long long)bytes);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, 32, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
}

void fmt_time(const struct timespec *t, char buf[64])
{
	struct tm tm;
	char date[32], zone[8];

	localtime_r(&t->tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, 64, "%s.%09ld %s", date, (long)t->tv_nsec, zone);
}
