/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files unlinked here while open here: POSIX keeps such a file readable
 * and writable until its last close, and RADOS cannot rename an object out
 * of the way (NFS clients rename it to .nfsXXXX). So it stays on RADOS
 * under its name until its last close here, which removes it; this mount
 * no longer shows the name meanwhile (other clients do). A file this mount
 * makes under that name meanwhile removes it first: its descriptors then
 * get ESTALE, as a file another client removed. Each is removed only while
 * it is the same file (its striper.id).
 */
#ifndef MOUNT_UNLINKED_H
#define MOUNT_UNLINKED_H

#include <stdbool.h>
#include <stdint.h>

#include "mount.h"

/* path (file id) unlinked while open here: hidden from this mount until removed. */
int unlinked_add(struct mount *m, const char *path, uint64_t id);

/* Whether path names a file unlinked here while open (this mount shows no such name). */
bool unlinked_is(struct mount *m, const char *path);

/* Before this mount makes path: a file unlinked here under it removed now. 0 or an error. */
int unlinked_claim(struct mount *m, const char *path);

/* The last close here of the file unlinked as path (id): it goes from RADOS now. */
void unlinked_closed(struct mount *m, const char *path, uint64_t id);

#endif /* MOUNT_UNLINKED_H */
