// SPDX-License-Identifier: LGPL-2.1-or-later
/* The open files (ofile.h): each node's file part, and the list of them. */
#include <stdlib.h>

#include "clock.h"
#include "ofile.h"

/* Every open file: its own lock, taken inside no other. */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ofile list_head = {.prev = &list_head, .next = &list_head};

static void list_add(struct ofile *of)
{
	pthread_mutex_lock(&list_lock);
	of->next = list_head.next;
	of->prev = &list_head;
	list_head.next->prev = of;
	list_head.next = of;
	pthread_mutex_unlock(&list_lock);
}

/* of off the list (list_lock held); once only. */
static void list_unlink(struct ofile *of)
{
	of->prev->next = of->next;
	of->next->prev = of->prev;
	of->prev = of->next = of;
}

struct ofile *ofile_new(struct node *n, struct striped_file *f, bool buffered, struct draft *d)
{
	struct ofile *of = calloc(1, sizeof(*of));

	if (!of)
		return NULL;
	of->f = f;
	of->buffered = buffered;
	of->draft = d;
	of->n = n;
	list_add(of);
	n->file.of = of;
	atomic_store(&n->file.written, false);
	return of;
}

void ofile_free(struct node *n)
{
	struct ofile *of = n->file.of;

	n->file.of = NULL;
	pthread_mutex_lock(&list_lock);
	list_unlink(of); /* a node the unmount took is off it already */
	pthread_mutex_unlock(&list_lock);
	free(of);
}

void ofile_set_handle(struct ofile *of, struct striped_file *f)
{
	of->f = f;
}

struct draft *ofile_take_draft(struct ofile *of)
{
	struct draft *d = of->draft;

	of->draft = NULL;
	return d;
}

void ofile_set_attrs_due(struct ofile *of, bool due)
{
	of->attrs_due = due;
}

void ofile_opened(struct node *n)
{
	n->file.opens++;
}

int ofile_closed(struct node *n)
{
	return --n->file.opens;
}

void ofile_note_change(struct node *n)
{
	int64_t now = clock_wall_ns();

	atomic_store(&n->file.mtime_ns, now);
	atomic_store(&n->file.ctime_ns, now);
	atomic_store(&n->file.written, true);
	node_changed(n);
}

void ofile_set_mtime(struct node *n, const struct timespec *ts)
{
	atomic_store(&n->file.mtime_ns, clock_ns_of_ts(ts));
	ofile_note_attr_change(n);
}

void ofile_note_attr_change(struct node *n)
{
	atomic_store(&n->file.ctime_ns, clock_wall_ns());
}

struct timespec ofile_ctime(const struct node *n)
{
	int64_t m = atomic_load(&n->file.mtime_ns), c = atomic_load(&n->file.ctime_ns);

	return clock_ts_of_ns(c > m ? c : m);
}

struct timespec ofile_mtime(const struct node *n)
{
	return clock_ts_of_ns(atomic_load(&n->file.mtime_ns));
}

bool ofile_written(const struct node *n)
{
	return atomic_load(&n->file.written);
}

void ofile_clear_written(struct node *n)
{
	atomic_store(&n->file.written, false);
}

void ofile_mark_draft(struct node *n, bool draft)
{
	atomic_store(&n->file.draft, draft);
}

bool ofile_is_draft(const struct node *n)
{
	return atomic_load(&n->file.draft);
}

void ofile_mark_unlinked(struct node *n, uint64_t id)
{
	n->file.unlinked = true;
	n->file.unlinked_id = id;
}

bool ofile_take_unlinked(struct node *n, uint64_t *id)
{
	bool was = n->file.unlinked;

	*id = n->file.unlinked_id;
	n->file.unlinked = false;
	return was;
}

void ofile_set_ino_due(struct node *n, bool due)
{
	n->file.ino_due = due;
}

bool ofile_ino_due(const struct node *n)
{
	return n->file.ino_due;
}

struct ofile *ofile_next_to_close(void)
{
	struct ofile *of;

	pthread_mutex_lock(&list_lock);
	of = list_head.next == &list_head ? NULL : list_head.next;
	if (of)
		list_unlink(of);
	pthread_mutex_unlock(&list_lock);
	return of;
}
