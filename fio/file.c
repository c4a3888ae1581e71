// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fio-libstriped: fio files as striped files. The fio file name is the
 * striped file's name in the job's pool. With FIO_DISKLESSIO fio leaves the
 * file's size and layout to the engine: setup() does what fio's own layout
 * step does for regular files, once, in fio's main thread, one job after the
 * other (create_serialize), so jobs sharing a file never race its truncate.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/*
 * Where the job's I/O to file number i ends, as fio's setup_files() works it
 * out next: filesize= (its upper bound for a range), else size= shared out
 * over the files (the first ones one block larger when it does not divide),
 * after the file's start offset. 0 when the job names no size.
 */
static uint64_t job_end(struct thread_data *td, struct fio_file *f, unsigned int i)
{
	struct thread_options *o = &td->o;
	unsigned long long bs = td_min_bs(td);
	uint64_t share, extra;

	if (o->file_size_high)
		return o->file_size_high;
	if (!o->size || !o->nr_files)
		return 0;
	share = o->size / o->nr_files;
	extra = bs ? (o->size - share * o->nr_files) / bs : 0;
	if (i < extra)
		share += bs;
	return get_start_offset(td, f) + share;
}

/* May this job create files? Not under fio --readonly or allow_file_create=0. */
static bool may_create(struct thread_data *td)
{
	return !read_only && td->o.allow_create;
}

/* Open name, creating it with the job's layout when allowed; -ENOENT otherwise. */
static int open_striped(struct thread_data *td, const char *name, int flags,
			struct striped_file **sf)
{
	struct sfio_data *sd = td->io_ops_data;

	if (may_create(td))
		flags |= STRIPED_CREATE;
	return striped_open(sd->io, name, flags, &sd->layout, sf);
}

/*
 * fio's layout step for one file: create it if missing and grow it to the
 * job's end if smaller (a hole, costing at most stripe_count operations), so
 * reads find the whole range; never shrink it. Tells fio the size.
 */
static int lay_out_file(struct thread_data *td, struct fio_file *f, unsigned int i)
{
	struct striped_file *sf;
	uint64_t size, end;
	int r;

	r = open_striped(td, f->file_name, 0, &sf);
	if (r == -ENOENT) { /* not ours to create: fio reports the missing size */
		f->real_file_size = 0;
		return 0;
	}
	if (r < 0)
		return r;
	r = striped_stat(sf, &size, NULL);
	if (r < 0)
		goto out;
	f->real_file_size = size;
	end = job_end(td, f, i);
	/* As fio extends an existing regular file even with allow_file_create=0. */
	if (end > size && !read_only) {
		r = striped_truncate(sf, end);
		if (r < 0)
			goto out;
		f->real_file_size = end;
	}
out:
	striped_close(sf);
	return r;
}

int sfio_size_files(struct thread_data *td)
{
	struct fio_file *f;
	unsigned int i;
	int r;

	for (i = 0; i < td->o.nr_files; i++) {
		f = td->files[i];
		r = lay_out_file(td, f, i);
		if (r < 0) {
			log_err(SFIO_NAME ": cannot lay out %s\n", f->file_name);
			sfio_fail(td, -r, "layout");
			return 1;
		}
	}
	return 0;
}

int sfio_open_file(struct thread_data *td, struct fio_file *f)
{
	struct sfio_file *file;
	int r;

	file = calloc(1, sizeof(*file));
	if (!file) {
		sfio_fail(td, ENOMEM, "calloc");
		return 1;
	}
	/*
	 * Created here only when unlink_each_loop removed it since setup().
	 * fio's direct=0 (its default) is the page cache's write-behind and
	 * readahead: libstriped's buffered mode.
	 */
	r = open_striped(td, f->file_name, td->o.odirect ? 0 : STRIPED_BUFFERED, &file->sf);
	if (r < 0) {
		free(file);
		log_err(SFIO_NAME ": cannot open %s\n", f->file_name);
		sfio_fail(td, -r, "striped_open");
		return 1;
	}
	FILE_SET_ENG_DATA(f, file);
	return 0;
}

/* Wait for the file's calls in flight to complete. */
static void wait_file(struct sfio_data *sd, struct sfio_file *file)
{
	pthread_mutex_lock(&sd->lock);
	while (file->calls)
		pthread_cond_wait(&sd->cond, &sd->lock);
	pthread_mutex_unlock(&sd->lock);
}

int sfio_close_file(struct thread_data *td, struct fio_file *f)
{
	struct sfio_file *file = FILE_ENG_DATA(f);
	int r;

	if (!file)
		return 0;
	/* Their callbacks still count down on *file. */
	wait_file(td->io_ops_data, file);
	/* Buffered: the window lands now, and a write-behind that failed is the job's error. */
	r = striped_close2(file->sf);
	free(file);
	FILE_SET_ENG_DATA(f, NULL);
	if (r < 0) {
		log_err(SFIO_NAME ": closing %s: %s\n", f->file_name, strerror(-r));
		sfio_fail(td, -r, "striped_close2");
		return 1;
	}
	return 0;
}

/* fio's unlink=1 asks before and after closing: the second finds nothing. */
int sfio_unlink_file(struct thread_data *td, struct fio_file *f)
{
	struct sfio_data *sd = td->io_ops_data;
	struct sfio_file *file = FILE_ENG_DATA(f);
	int r;

	if (!sd)
		return 0;
	/* A write still in flight would bring objects back after the removal. */
	if (file)
		wait_file(sd, file);
	r = striped_remove(sd->io, f->file_name);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		log_err(SFIO_NAME ": cannot remove %s: %s\n", f->file_name, strerror(-r));
	return -r;
}
