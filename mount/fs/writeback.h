/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * New files kept in the daemon past their last close (-o writeback_time):
 * an O_EXCL create takes its name on RADOS at the open, marked held by
 * this mount (striped_head_take()); its bytes (a draft's), mode, owner and
 * times stay here after the close and go to RADOS in one operation when
 * writeback_time has passed, when another client reads or opens it
 * (libstriped asks this mount's holder), at an fsync, and at unmount. A
 * chmod, chown, utimens or rename meanwhile changes the draft. The daemon
 * killed loses what it held (the files stay, empty): at most
 * writeback_time of closes, never a file another client opened. Here: the
 * queue of kept files, the holder, and the thread that writes them back;
 * what keeping and writing back mean is fs/drafts.c's and fs/open.c's.
 */
#ifndef MOUNT_WRITEBACK_H
#define MOUNT_WRITEBACK_H

#include <stdbool.h>

#include "mount.h"

/*
 * Start holding (the holder's watch, the thread that writes back), *out
 * then the mount's write-back; *out NULL when writeback_time is 0. The
 * thread calls close_kept(m, n) for a kept file whose time came (its last
 * close, written back); write_asked(m, name) runs when a reader asks.
 */
int writeback_start(struct mount *m, int (*close_kept)(struct mount *m, struct node *n),
		    void (*write_asked)(struct mount *m, const char *name), struct writeback **out);
/* The holder new names are taken with; NULL without write-back. */
struct striped_holder *writeback_holder(struct mount *m);
/* n kept past its last close (n->lock held), held until close_kept() runs: false without write-back. */
bool writeback_keep(struct mount *m, struct node *n);
/* Before the unmount's close of every file: no more writing back in the background. */
void writeback_stop(struct writeback *wb);
/* After it: the holder goes (its files were written by then). NULL is ignored. */
void writeback_end(struct writeback *wb);

#endif /* MOUNT_WRITEBACK_H */
