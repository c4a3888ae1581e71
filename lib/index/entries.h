/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * entries.c: what a writer does to the index. A create sends its entry,
 * and its directories' entries up to the root, before the head's own
 * operation and waits for them after it: both in flight at once, so the
 * create costs no round trip more; a remove sends the entry's removal
 * beside the head's and puts the entry back if the file stayed. A listing
 * that meets an entry whose file is gone (a creator that died between the
 * two) leaves it out.
 */
#ifndef STRIPED_INDEX_ENTRIES_H
#define STRIPED_INDEX_ENTRIES_H

#include "striped_i.h"

struct index_update;

/*
 * The entries of a file named name sent (a create), or its entry's removal
 * (a remove); *u is NULL when io has no index. Errors: of the record's
 * read; -ENOMEM.
 */
int index_update_begin(rados_ioctx_t io, const char *name, bool create, struct index_update **u);
/*
 * Wait for u's operations and free u (NULL: 0). head_result is the head's
 * operation's: a remove whose file stayed (anything but 0 and -ENOENT) puts
 * its entry back; a create that made or found its file (0, -EEXIST) retries
 * once what failed. Returns the first error of the index, after that.
 */
int index_update_end(struct index_update *u, int head_result);

/*
 * A directory's marker removed (name ends in '/'): the directory leaves its
 * parent's index too when nothing is left in it. 0 when io has no index.
 */
int index_prune_dir(rados_ioctx_t io, const char *name);

/* Forget the directories' entries written lately: the next creates send them again. */
void index_forget_dirs(void);

#endif /* STRIPED_INDEX_ENTRIES_H */
