/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the three benchmark programs share: the command line, the connection,
 * a pool of in-flight slots refilled from completion callbacks, the timed
 * loop and the one-line JSON report. Each program supplies how to submit one
 * block and what a finished slot tells it.
 */
#ifndef BENCH_H
#define BENCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rados/librados.h>

enum bench_op {
	BENCH_WRITE,
	BENCH_READ,
	BENCH_RANDWRITE,
	BENCH_RANDREAD,
	BENCH_REMOVE,
	BENCH_APPEND, /* bs bytes at the end of the file (object), total / bs times */
	BENCH_CREATE, /* create the file, empty, and nothing else */
};

/* bench_parse_flags() */
#define BENCH_NO_POOL 0x1 /* the program needs no pool (cephfs_bench) */

struct bench_opts {
	const char *system; /* label in the report */
	const char *pool;
	const char *conf;
	const char *name; /* file name, or prefix of raw object names */
	enum bench_op op;
	uint64_t bs;	/* bytes per call */
	uint64_t total; /* bytes moved by the run */
	uint64_t span;	/* random ops: offsets in [0, span) */
	uint32_t depth; /* calls in flight */
	uint64_t stripe_unit, stripe_count, object_size;
	uint32_t throttle_ops; /* libstriped: 0 keeps the default */
	bool sync;	       /* one synchronous call at a time (depth 1) */
	bool zero_copy;	       /* writes send the slot's buffer itself, not a copy */
	bool existing;	       /* open the file without creating it: it must exist */
	bool with_size;	       /* raw sync append: a size update on a second object too */
	bool batch;	       /* depth calls at a time, all completed before the next ones */
	uint64_t seed;
	uint64_t offset; /* sequential ops start here (a region of a shared file) */
	double start_at; /* wall clock (s since the epoch) the timed loop waits for; 0: none */
	const char *fs;	 /* CephFS file system (cephfs_bench); NULL: the default one */
	bool buffered;	 /* the client's own buffering: STRIPED_BUFFERED, no O_DIRECT, rbd_cache */
	uint64_t window; /* --buffered: its size (0: the client's default) */
};

/* The in-flight slots: a completion callback hands its slot back here. */
struct bench_slots {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t *free;
	uint32_t nfree, depth;
	int first_error;
};

struct bench_result {
	uint64_t calls, bytes;
	double seconds, cpu_user, cpu_sys;
	double submit_seconds;	     /* spent inside the submit calls (the caller's thread) */
	uint64_t obj_ops;	     /* RADOS operations issued, when known */
	uint64_t max_in_flight;	     /* most RADOS operations in flight in one call, when known */
	uint64_t file_max_in_flight; /* most in flight over the whole run, when known */
	uint64_t throttle_waits;
	double t_start, t_end; /* wall clock of the timed loop (s since the epoch) */
	uint64_t rss_max_kib;  /* the process's peak resident memory */
	/* Per call, submission to completion as the program saw it (ns); sorted after the run. */
	uint64_t *lat_ns;
	uint64_t nlat;
	/* The library's own percentiles of the calls (libstriped: striped_file_latency), if any. */
	bool lib_lat;
	uint64_t lib_p50_ns, lib_p99_ns, lib_p999_ns;
};

struct bench;

/* What one program does with a slot. */
struct bench_engine {
	/* Start a call on slot for [off, off + len); 0 or a negative errno. */
	int (*submit)(struct bench *b, uint32_t slot, uint64_t off, uint64_t len);
	/* The call on slot has completed: collect and free its completion. */
	void (*reap)(struct bench *b, uint32_t slot);
	/* Optional: one synchronous call (for --sync). */
	int (*sync_call)(struct bench *b, uint32_t slot, uint64_t off, uint64_t len);
	/* Optional: inside the timed run, after the last call (a buffered writer's flush). */
	int (*finish)(struct bench *b);
};

struct bench {
	struct bench_opts o;
	rados_t cluster;
	rados_ioctx_t io;
	struct bench_slots slots;
	char **bufs; /* one buffer of bs bytes per slot */
	bool *busy;
	uint64_t *submitted_ns; /* per slot: when its call went out (0: none to time) */
	struct bench_result res;
	void *priv; /* the program's own state */
};

/* rados_zc.cc: rados_aio_write() without the copy (buf is referenced until completion). */
int rados_zc_aio_write(rados_ioctx_t io, const char *oid, rados_completion_t c, const char *buf,
		       size_t len, uint64_t off);

int bench_parse(struct bench_opts *o, int argc, char **argv, const char *system);
int bench_parse_flags(struct bench_opts *o, int argc, char **argv, const char *system,
		      unsigned int flags);
int bench_setup(struct bench *b);
/* The slots and their buffers only, no connection (a program of its own client). */
int bench_setup_buffers(struct bench *b);
void bench_teardown(struct bench *b);
int bench_run(struct bench *b, const struct bench_engine *e);
void bench_report(const struct bench *b);

/* Called from a completion callback: never blocks beyond the short lock; times the call. */
void bench_slot_done(struct bench *b, uint32_t slot, int result);

/* The raw object name of object objectno: "NAME.%016llx", as libstriped's. */
void bench_object_name(const char *name, uint64_t objectno, char *buf, size_t len);

int bench_fail(const char *what, int err);

#endif /* BENCH_H */
