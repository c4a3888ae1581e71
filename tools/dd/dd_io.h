/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* striped-dd: the two sides of a copy and the cluster behind striped sides. */
#ifndef DD_IO_H
#define DD_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <striped.h>

#include "dd_args.h"

#define DD_ALIGN 4096	    /* buffer alignment for O_DIRECT */
#define DD_DIRECT_ALIGN 512 /* offsets and lengths O_DIRECT needs */

enum dd_end_kind {
	DD_END_AIO,	/* regular file or block device: libaio at offsets */
	DD_END_STREAM,	/* pipe, terminal, character device: plain read/write */
	DD_END_STRIPED, /* rados://POOL/NAME */
};

struct dd_end {
	enum dd_end_kind kind;
	const char *label; /* name for messages */
	int fd;		   /* local sides */
	bool own_fd;
	bool std;      /* stdin/stdout: keep the shell's file offset right */
	bool direct;   /* O_DIRECT currently set on fd */
	uint64_t base; /* absolute offset of the copy's first byte */
	struct striped_file *sf;
	rados_ioctx_t io;
};

struct dd_cluster {
	rados_t rados;
	bool connected;
};

/* An error: "<what>: <reason>", printed by the caller after "striped-dd: ". */
struct dd_error {
	int code; /* negative errno, 0 for none */
	char msg[8192]; /* room for the longest object name and its reason */
};

void dd_error_set(struct dd_error *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * strerror(-r) for a failed change to the striped file of end; -EPERM also
 * says what the key lacks: writing takes the file's lock, a class method
 * (cls_lock), so a key with osd 'allow rw' but no class access reads, never
 * writes; -EOPNOTSUPP on an erasure-coded pool without overwrites says what
 * such a pool takes (bs= a multiple of its stripe width, front to back).
 * The text stays valid until the thread's next call.
 */
const char *dd_change_strerror(const struct dd_end *end, int r);

/**
 * Connect as the rados CLI would: conf= or CEPH_CONF / default search path,
 * CEPH_ARGS, keyring=, id= or name=, op_timeout=.
 * @return 0 or a negative errno (e filled)
 */
int dd_cluster_connect(struct dd_cluster *cl, const struct dd_args *a, struct dd_error *e);
void dd_cluster_shutdown(struct dd_cluster *cl);

/** Open the input side (skip applied to base). */
int dd_end_open_input(struct dd_end *end, struct dd_cluster *cl, const struct dd_args *a,
		      struct dd_error *e);
/** Open (create, truncate) the output side (seek applied to base). */
int dd_end_open_output(struct dd_end *end, struct dd_cluster *cl, const struct dd_args *a,
		       struct dd_error *e);
/** Finish a local output: conv=fsync/fdatasync. */
int dd_end_finish_output(struct dd_end *end, const struct dd_args *a, struct dd_error *e);
/** Leave stdin/stdout's file offset after what was copied. */
void dd_end_set_std_offset(struct dd_end *end, uint64_t bytes);
void dd_end_close(struct dd_end *end);

/** Turn O_DIRECT off (for a tail that is not aligned), as GNU dd does. */
int dd_end_clear_direct(struct dd_end *end, struct dd_error *e);

/** Synchronous positional read (verify): short only at end of file. */
ssize_t dd_end_pread(struct dd_end *end, void *buf, size_t len, uint64_t off);

/** Whether the side can be read again at offsets (verify). */
bool dd_end_rereadable(const struct dd_end *end);

/** Read exactly len bytes unless end of file or a signal (stream input). */
ssize_t dd_read_full(int fd, void *buf, size_t len);
/** Read once, retrying EINTR unless a signal waits for the copy loop. */
ssize_t dd_read_once(int fd, void *buf, size_t len);
/** Write all len bytes (stream output); fewer only after SIGINT. */
ssize_t dd_write_full(int fd, const void *buf, size_t len);

#endif /* DD_IO_H */
