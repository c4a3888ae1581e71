/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An open file: the state a node open on this mount has (its node's
 * file part, core/node_file.h, and the struct ofile it points to), and the
 * list of every open file (for the unmount). One libstriped handle per
 * node, shared by every open of it on this mount, or a draft (core/draft.h)
 * until the file is made. The opens, the handle and the draft are under
 * the node's lock; what data completions note (written, mtime) is atomic.
 * Only this file writes them; fs/open.c, fs/drafts.c and fs/io.c call it.
 */
#ifndef MOUNT_OFILE_H
#define MOUNT_OFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <striped.h>

#include "draft.h"
#include "node.h"

struct ofile {
	/*
	 * NULL while there is none: a draft (draft), or a file its flush
	 * made; opened when a call needs it (open_handle()).
	 */
	struct striped_file *f;
	bool buffered;
	struct draft *draft;
	/* the draft's handle made the file, then failed before its create's attributes were stored */
	bool attrs_due;
	struct node *n;
	struct ofile *prev, *next; /* every open file, for the unmount */
};

/* n's open file, with handle f or draft d; n->lock held, n has none. NULL: -ENOMEM. */
struct ofile *ofile_new(struct node *n, struct striped_file *f, bool buffered, struct draft *d);
/* n's open file gone (its handle and draft are the caller's); n->lock held. */
void ofile_free(struct node *n);

void ofile_set_handle(struct ofile *of, struct striped_file *f);
/* The draft, taken out of of (the caller frees it). */
struct draft *ofile_take_draft(struct ofile *of);
void ofile_set_attrs_due(struct ofile *of, bool due);

/* The opens of n (n->lock held): counted, and how many remain after a close. */
void ofile_opened(struct node *n);
int ofile_closed(struct node *n);

/* A change made here to n's data at this moment: stored as its mtime at the last close. */
void ofile_note_change(struct node *n);
/* utimens of an open file: the mtime its last close stores. */
void ofile_set_mtime(struct node *n, const struct timespec *ts);
struct timespec ofile_mtime(const struct node *n);
/* A chmod, chown or utimens here: the ctime the last close stores is that late at least. */
void ofile_note_attr_change(struct node *n);
/* The ctime the last close stores: the later of the mtime and the last change here. */
struct timespec ofile_ctime(const struct node *n);
bool ofile_written(const struct node *n);
void ofile_clear_written(struct node *n);

/* Whether n holds a draft, as a lookup by path asks (no lock). */
void ofile_mark_draft(struct node *n, bool draft);
bool ofile_is_draft(const struct node *n);

/* Unlinked here while open (n->lock held): id is the file's, removed at its last close. */
void ofile_mark_unlinked(struct node *n, uint64_t id);
/* Its last close here came (n->lock held): false when it was not unlinked, else *id. */
bool ofile_take_unlinked(struct node *n, uint64_t *id);

/* Made through a handle here (n->lock held): its last close stores its inode number. */
void ofile_set_ino_due(struct node *n, bool due);
bool ofile_ino_due(const struct node *n);

/* The next open file for the unmount, taken off the list (NULL: none left). */
struct ofile *ofile_next_to_close(void);

#endif /* MOUNT_OFILE_H */
