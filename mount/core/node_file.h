/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A node's open-file part: the state fs/open.c, fs/drafts.c and fs/io.c
 * keep for a file open on this mount (node.h embeds it; layers.conf names
 * who writes it). Each field says what guards it.
 */
#ifndef MOUNT_NODE_FILE_H
#define MOUNT_NODE_FILE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct ofile;

struct node_file {
	/* under the node's lock */
	struct ofile *of; /* the open file (its handle, or its draft); NULL while closed */
	int opens;	  /* opens of it on this mount, a head_open's too */
	bool unlinked;	  /* unlinked here while open: removed on RADOS at its last close */
	uint64_t unlinked_id; /* the file's striper.id then: remove that file only */
	bool ino_due;	      /* made through a handle here: its close stores mount.ino */
	/* atomic: write completions set them, and must not wait for the lock */
	atomic_bool written;	  /* data changed since the last close: store mtime */
	_Atomic int64_t mtime_ns; /* while open and written: of the last change */
	_Atomic int64_t ctime_ns; /* of the last change here, data or attributes */
	atomic_bool draft;	  /* it holds a draft (core/draft.h): not on RADOS yet */
};

/* Whether the file was unlinked here while open (the node's lock held). */
static inline bool node_file_unlinked(const struct node_file *f)
{
	return f->unlinked;
}

#endif /* MOUNT_NODE_FILE_H */
