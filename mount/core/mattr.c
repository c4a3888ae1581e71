// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The mount's attributes decoded from a head's xattrs and encoded for one
 * (mattr.h). A head with no striper.* xattr is another application's
 * object (-ENODATA: never shown); one with some but not all, or values
 * that are not decimal numbers, is damaged (-EUCLEAN: the file answers EIO,
 * as libstriped refuses to open it). A mount.* value that cannot be read
 * is ignored: the mount's default shows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <striped.h>

#include "mattr.h"

int mattr_parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 20)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* "SECONDS.NANOSECONDS" */
static int parse_time(const char *s, size_t len, struct timespec *ts)
{
	const char *dot = memchr(s, '.', len);
	uint64_t sec, nsec;

	if (!dot || mattr_parse_u64(s, (size_t)(dot - s), &sec) ||
	    mattr_parse_u64(dot + 1, len - (size_t)(dot - s) - 1, &nsec) || nsec >= 1000000000 ||
	    sec > INT64_MAX)
		return -EINVAL;
	ts->tv_sec = (time_t)sec;
	ts->tv_nsec = (long)nsec;
	return 0;
}

/* One of the mount's own xattrs; a value it cannot read is ignored (the default shows). */
static void decode_mount_xattr(const char *name, const char *v, size_t len, struct mattr *a)
{
	uint64_t x;

	if (!strcmp(name, MATTR_MODE) && !mattr_parse_u64(v, len, &x) && x <= 0177777) {
		a->mode = (mode_t)x;
		a->has_mode = true;
	} else if (!strcmp(name, MATTR_UID) && !mattr_parse_u64(v, len, &x) && x <= UINT32_MAX) {
		a->uid = (uint32_t)x;
		a->has_uid = true;
	} else if (!strcmp(name, MATTR_GID) && !mattr_parse_u64(v, len, &x) && x <= UINT32_MAX) {
		a->gid = (uint32_t)x;
		a->has_gid = true;
	} else if (!strcmp(name, MATTR_MTIME)) {
		a->has_mtime = !parse_time(v, len, &a->mtime);
	} else if (!strcmp(name, MATTR_CTIME)) {
		a->has_ctime = !parse_time(v, len, &a->ctime);
	} else if (!strcmp(name, MATTR_ATIME)) {
		a->has_atime = !parse_time(v, len, &a->atime);
	} else if (!strcmp(name, MATTR_INO) && !mattr_parse_u64(v, len, &x) && x > 1) {
		a->ino = x;
		a->has_ino = true;
	}
}

static const char *const layout_names[] = {
    "striper.layout.stripe_unit",
    "striper.layout.stripe_count",
    "striper.layout.object_size",
};

int mattr_decode(size_t n, const char *const *names, const char *const *values, const size_t *lens,
		 time_t obj_mtime, struct mattr *a)
{
	uint64_t lay[3] = {0, 0, 0};
	int striper = 0, found = 0, bad = 0, have_size = 0;

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(names[i], "striper.", 8))
			striper = 1;
		if (!strcmp(names[i], "striper.size")) {
			have_size = 1;
			bad |= mattr_parse_u64(values[i], lens[i], &a->size) != 0;
		}
		if (!strcmp(names[i], "striper.id"))
			bad |= mattr_parse_u64(values[i], lens[i], &a->id) != 0;
		if (!strcmp(names[i], "striper.reserved"))
			bad |= mattr_parse_u64(values[i], lens[i], &a->reserved) != 0;
		if (!strcmp(names[i], "striper.held"))
			bad |= mattr_parse_u64(values[i], lens[i], &a->held) != 0;
		for (int k = 0; k < 3; k++)
			if (!strcmp(names[i], layout_names[k])) {
				found |= 1 << k;
				bad |= mattr_parse_u64(values[i], lens[i], &lay[k]) != 0;
			}
		if (!strncmp(names[i], "mount.", 6))
			decode_mount_xattr(names[i], values[i], lens[i], a);
	}
	if (!striper)
		return -ENODATA;
	struct striped_layout l = {lay[0], lay[1], lay[2]};
	if (bad || !have_size || found != 7 || striped_layout_validate(&l))
		return -EUCLEAN;
	a->stripe_unit = l.stripe_unit;
	a->layout = l;
	if (!a->has_mtime) {
		a->mtime.tv_sec = obj_mtime;
		a->mtime.tv_nsec = 0;
	}
	if (!a->has_ctime)
		a->ctime = a->mtime;
	if (!a->has_atime)
		a->atime = a->mtime;
	return 0;
}

/* One xattr's value: a number, or a time as SECONDS.NANOSECONDS. */
static void encode_u64(char *v, size_t len, uint64_t x)
{
	snprintf(v, len, "%" PRIu64, x);
}

static void encode_time(char *v, size_t len, const struct timespec *ts)
{
	snprintf(v, len, "%lld.%09ld", (long long)ts->tv_sec, ts->tv_nsec);
}

size_t mattr_xattrs(const struct mattr *a, struct mattr_xattrs *x)
{
	const bool has[MATTR_XATTRS] = {a->has_mode,  a->has_uid,   a->has_gid, a->has_mtime,
					a->has_ctime, a->has_atime, a->has_ino};
	const char *names[MATTR_XATTRS] = {MATTR_MODE,	MATTR_UID,   MATTR_GID, MATTR_MTIME,
					   MATTR_CTIME, MATTR_ATIME, MATTR_INO};
	const uint64_t numbers[3] = {(uint64_t)a->mode, a->uid, a->gid};
	const struct timespec *times[3] = {&a->mtime, &a->ctime, &a->atime};
	size_t n = 0;

	for (size_t i = 0; i < MATTR_XATTRS; i++) {
		char *v = x->values[n];
		size_t vlen = sizeof(x->values[n]);

		if (!has[i])
			continue;
		if (i < 3)
			encode_u64(v, vlen, numbers[i]);
		else if (i < 6)
			encode_time(v, vlen, times[i - 3]);
		else
			encode_u64(v, vlen, a->ino);
		x->x[n] = (struct striped_xattr_value){names[i], v, strlen(v)};
		n++;
	}
	return n;
}

uint64_t mattr_ino(const struct mattr *a)
{
	if (a->has_ino)
		return a->ino;
	return a->id > 1 ? a->id : 0;
}
