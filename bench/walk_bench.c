// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pool walk: rados_nobjects_list_next() (one placement group after
 * another, as libstriped walked before 0.9) against striped_objects_walk()
 * at several numbers of slices at once, taking turns repetition by
 * repetition on the same pool, so the ratios hold on a noisy host.
 *
 * usage: walk_bench POOL [--fill N] [--reps R] [--parallel P,P,...] [--ns NS]
 *   --fill N   first make the namespace hold N objects "w-%08u" (empty,
 *              64 at once; those already there are kept)
 *   --ns NS    the namespace walked (default: walk-bench)
 * Prints one line per walk: "walk <kind> <parallel> <objects> <seconds>
 * <names/s>", then the medians.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <striped.h>

#define MAX_KINDS 16
#define MAX_REPS 32

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fill(rados_ioctx_t io, unsigned n)
{
	rados_completion_t c[64];
	char oid[32];

	for (unsigned done = 0; done < n;) {
		unsigned batch = n - done < 64 ? n - done : 64;
		int r = 0;

		for (unsigned i = 0; i < batch; i++) {
			snprintf(oid, sizeof(oid), "w-%08u", done + i);
			rados_aio_create_completion2(NULL, NULL, &c[i]);
			rados_aio_write_full(io, oid, c[i], "", 0);
		}
		for (unsigned i = 0; i < batch; i++) {
			rados_aio_wait_for_complete(c[i]);
			if (rados_aio_get_return_value(c[i]) < 0)
				r = rados_aio_get_return_value(c[i]);
			rados_aio_release(c[i]);
		}
		if (r)
			return r;
		done += batch;
	}
	return 0;
}

static long count_one_by_one(rados_ioctx_t io)
{
	rados_list_ctx_t ctx;
	const char *oid;
	long n = 0;
	int r = rados_nobjects_list_open(io, &ctx);

	if (r < 0)
		return r;
	while (!(r = rados_nobjects_list_next(ctx, &oid, NULL, NULL)))
		n++;
	rados_nobjects_list_close(ctx);
	return r == -ENOENT ? n : r;
}

static int count(void *arg, const char *oid)
{
	(void)oid;
	++*(long *)arg;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned parallel[MAX_KINDS] = {0}, kinds = 1, reps = 3, to_fill = 0;
	double secs[MAX_KINDS][MAX_REPS];
	const char *ns = "walk-bench";
	long objects = 0;
	rados_t rados;
	rados_ioctx_t io;

	if (argc < 2) {
		fprintf(stderr, "usage: walk_bench POOL [--fill N] [--reps R] [--parallel P,...] [--ns NS]\n");
		return 2;
	}
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--fill"))
			to_fill = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--reps"))
			reps = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--ns"))
			ns = argv[i + 1];
		else if (!strcmp(argv[i], "--parallel"))
			for (char *s = argv[i + 1]; *s && kinds < MAX_KINDS; s += *s == ',')
				parallel[kinds++] = (unsigned)strtoul(s, &s, 10);
		else {
			fprintf(stderr, "walk_bench: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (!reps || reps > MAX_REPS) {
		fprintf(stderr, "walk_bench: --reps 1 to %d\n", MAX_REPS);
		return 2;
	}
	if (kinds == 1)
		parallel[kinds++] = STRIPED_WALK_PARALLEL;
	if (rados_create2(&rados, "ceph", "client.admin", 0) || rados_conf_read_file(rados, NULL) ||
	    rados_connect(rados) || rados_ioctx_create(rados, argv[1], &io)) {
		fprintf(stderr, "walk_bench: cannot reach pool %s\n", argv[1]);
		return 1;
	}
	rados_ioctx_set_namespace(io, ns);
	if (to_fill && fill(io, to_fill)) {
		fprintf(stderr, "walk_bench: fill failed\n");
		return 1;
	}
	/* kind 0: the walk one PG after another; others: the parallel walk. */
	for (unsigned rep = 0; rep < reps; rep++)
		for (unsigned k = 0; k < kinds; k++) {
			long n = 0;
			double t0 = now();
			int r = k ? striped_objects_walk(io, parallel[k], count, &n) : 0;

			if (!k)
				n = count_one_by_one(io);
			secs[k][rep] = now() - t0;
			if (r || n < 0) {
				fprintf(stderr, "walk_bench: walk failed: %s\n", strerror(r ? -r : (int)-n));
				return 1;
			}
			objects = n;
			printf("walk %s %u %ld %.3f %.0f\n", k ? "parallel" : "one-by-one", parallel[k], n,
			       secs[k][rep], (double)n / secs[k][rep]);
			fflush(stdout);
		}
	for (unsigned k = 0; k < kinds; k++) {
		qsort(secs[k], reps, sizeof(double), cmp_double);
		printf("median %s %u: %.3f s, %.0f names/s, %.2fx one-by-one\n",
		       k ? "parallel" : "one-by-one", parallel[k], secs[k][reps / 2],
		       (double)objects / secs[k][reps / 2], secs[0][reps / 2] / secs[k][reps / 2]);
	}
	rados_ioctx_destroy(io);
	rados_shutdown(rados);
	return 0;
}
