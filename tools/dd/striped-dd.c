// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd: GNU dd where either side (or both) may be a striped file,
 * rados://POOL/NAME. Local files go through libaio, striped files through
 * libstriped's asynchronous calls, with iodepth blocks in flight.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dd_args.h"
#include "dd_copy.h"
#include "dd_io.h"
#include "dd_report.h"
#include "dd_signal.h"
#include "dd_verify.h"

#define PROG "striped-dd"

static const char usage_text[] =
    "Usage: " PROG " [OPERAND]...\n"
    "  or:  " PROG " --help | --version\n"
    "Copy a file as GNU dd does; either side may be a striped file rados://POOL/NAME.\n"
    "\n"
    "  bs=BYTES        read and write up to BYTES bytes at a time (default: 512)\n"
    "  ibs=BYTES       read up to BYTES bytes at a time\n"
    "  obs=BYTES       write BYTES bytes at a time\n"
    "  count=N         copy only N input blocks (N bytes if N ends in B)\n"
    "  skip=N          skip N ibs-sized input blocks (bytes if N ends in B); iseek=N\n"
    "  seek=N          skip N obs-sized output blocks (bytes if N ends in B); oseek=N\n"
    "  if=FILE         read from FILE (- or absent: standard input)\n"
    "  of=FILE         write to FILE (- or absent: standard output)\n"
    "  conv=CONVS      notrunc, nocreat, excl, fsync, fdatasync, sparse, sync (pad\n"
    "                  input records to ibs with NULs), noerror (go on after read errors)\n"
    "  iflag=FLAGS     direct, fullblock, count_bytes, skip_bytes, dsync, sync, noatime, ...\n"
    "  oflag=FLAGS     direct, seek_bytes, dsync, sync, append, ...\n"
    "  status=LEVEL    none, noxfer, progress, or json (one JSON object on stdout)\n"
    "\n"
    "Striped files:\n"
    "  stripe_unit=BYTES stripe_count=N object_size=BYTES\n"
    "                  layout of a file striped-dd creates (default 4M/1/4M)\n"
    "  conf=PATH       ceph.conf (default: $CEPH_CONF, then Ceph's search path)\n"
    "  id=ID | name=TYPE.ID   client identity (default: client.admin); keyring=PATH\n"
    "  ns=NAMESPACE    the RADOS namespace of the striped input and output\n"
    "                  (default: the pool's default namespace)\n"
    "  op_timeout=SECONDS     rados_osd_op_timeout and rados_mon_op_timeout\n"
    "  iodepth=N       blocks in flight (default 4)\n"
    "  oflag=direct, oflag=dsync, oflag=sync on a striped output: each block is\n"
    "                  acknowledged (durable) before the next is sent, so ONE block\n"
    "                  is in flight whatever iodepth= says; for throughput leave them\n"
    "                  out and raise iodepth= (acknowledged writes are durable)\n"
    "  iflag=direct on a striped input: always so (librados has no client cache);\n"
    "                  noatime, nofollow, nonblock, noctty, append (and iflag=dsync,\n"
    "                  sync) are refused on a striped side\n"
    "  verify=yes      read the output back and compare it with the input\n"
    "\n"
    "N and BYTES may be followed by c=1, w=2, b=512, kB=1000, K=1024, MB=1000*1000,\n"
    "M=1024*1024, and so on for G, T, P, E, Z, Y, or be products such as 2x4K.\n"
    "A repeated operand: the last one wins; conv=, iflag= and oflag= accumulate.\n"
    "SIGUSR1 prints the statistics and the copy goes on; SIGINT waits for the\n"
    "blocks in flight, prints the summary and exits (130).\n"
    "See striped-dd(1).\n";

struct dd_run {
	struct dd_args a;
	struct dd_cluster cl;
	struct dd_end in, out;
	struct dd_result res;
	struct dd_error e;
	bool copied;
	int verify; /* -1 not run, 0 equal, 1 differs */
	uint64_t diff;
	/* The striped sides' calls as libstriped timed them when the copy ended (0 calls: none) */
	struct striped_percentiles reads, writes;
};

/*
 * Every error is one line: control characters from the command line (a
 * newline inside an operand) are shown escaped, as GNU dd quotes them.
 */
static void print_error(const char *msg)
{
	fputs(PROG ": ", stderr);
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		if (*p == '\n')
			fputs("\\n", stderr);
		else if (*p == '\t')
			fputs("\\t", stderr);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(stderr, "\\%03o", *p);
		else
			fputc(*p, stderr);
	}
	fputc('\n', stderr);
}

/*
 * The latency of the striped sides' calls (one a block), from the library's
 * histograms, read before verify= reads the files again.
 */
static void note_latency(struct dd_run *run)
{
	struct striped_latency l;

	if (run->in.sf && !striped_file_latency(run->in.sf, &l, sizeof(l)))
		run->reads = l.read;
	if (run->out.sf && !striped_file_latency(run->out.sf, &l, sizeof(l)))
		run->writes = l.write;
}

static void print_latency(const char *what, const struct dd_end *end,
			  const struct striped_percentiles *p)
{
	char buf[8400];

	if (!p->calls)
		return;
	dd_format_latency(buf, sizeof(buf), what, end->label, p);
	fprintf(stderr, "%s\n", buf);
}

/* dd's summary; after its transfer line, a line per striped side with its calls' latency. */
static void print_summary(const struct dd_run *run)
{
	bool xfer = run->a.status != DD_STATUS_NOXFER;

	if (run->a.status == DD_STATUS_NONE || run->a.status == DD_STATUS_JSON)
		return;
	dd_print_stats(stderr, &run->res.counts, run->res.elapsed_ns, xfer);
	if (xfer) {
		print_latency("reads from", &run->in, &run->reads);
		print_latency("writes to", &run->out, &run->writes);
	}
}

static void striped_stats(struct dd_run *run, uint64_t *ops, uint64_t *max_in_flight)
{
	struct dd_end *ends[2] = {&run->in, &run->out};
	struct striped_io_stats st;
	int i;

	*ops = *max_in_flight = 0;
	for (i = 0; i < 2; i++) {
		if (!ends[i]->sf || striped_file_stats(ends[i]->sf, &st, sizeof(st)))
			continue;
		*ops += st.ops;
		if (st.max_in_flight > *max_in_flight)
			*max_in_flight = st.max_in_flight;
	}
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* "KEY": {calls and percentiles in seconds}, or null when the side made no calls. */
static void json_latency(const char *key, const struct striped_percentiles *p)
{
	printf("\"%s\": ", key);
	if (!p->calls) {
		printf("null, ");
		return;
	}
	printf("{\"calls\": %" PRIu64 ", \"p50\": %.6f, \"p90\": %.6f, \"p99\": %.6f, "
	       "\"p999\": %.6f, \"max\": %.6f}, ",
	       p->calls, (double)p->p50_ns / 1e9, (double)p->p90_ns / 1e9, (double)p->p99_ns / 1e9,
	       (double)p->p999_ns / 1e9, (double)p->max_ns / 1e9);
}

static void print_json(struct dd_run *run)
{
	struct dd_result *r = &run->res;
	double secs = (double)r->elapsed_ns / 1e9;
	uint64_t ops, mif;

	striped_stats(run, &ops, &mif);
	printf("{\"bytes\": %" PRIu64 ", \"seconds\": %.9f, \"bytes_per_second\": %.0f, ",
	       r->counts.bytes, secs, secs > 0 ? (double)r->counts.bytes / secs : 0.0);
	printf("\"records_in_full\": %" PRIu64 ", \"records_in_partial\": %" PRIu64
	       ", \"records_out_full\": %" PRIu64 ", \"records_out_partial\": %" PRIu64 ", ",
	       r->counts.in_full, r->counts.in_partial, r->counts.out_full, r->counts.out_partial);
	printf("\"blocks\": %" PRIu64 ", ", r->blocks);
	/* a block's call on the striped side: its write, else its read */
	json_latency("block_latency_seconds", run->writes.calls ? &run->writes : &run->reads);
	json_latency("read_latency_seconds", &run->reads);
	json_latency("write_latency_seconds", &run->writes);
	printf("\"object_ops\": %" PRIu64 ", \"max_in_flight\": %" PRIu64 ", \"iodepth\": %u, ",
	       ops, mif, run->a.iodepth);
	printf("\"read_errors\": %" PRIu64 ", ", r->read_errors);
	printf("\"verify\": %s, \"error\": ",
	       run->verify < 0 ? "null" : (run->verify ? "\"differ\"" : "\"ok\""));
	if (run->e.code)
		json_string(run->e.msg);
	else
		printf("null");
	printf("}\n");
	fflush(stdout);
}

static int open_and_copy(struct dd_run *run)
{
	bool hashes = run->a.verify;
	int r;

	if (run->a.status == DD_STATUS_JSON &&
	    (!run->a.out.path || !strcmp(run->a.out.path, "-"))) {
		dd_error_set(&run->e, -EINVAL,
			     "status=json: needs of= (standard output carries the JSON)");
		return -EINVAL;
	}
	r = dd_end_open_input(&run->in, &run->cl, &run->a, &run->e);
	if (r >= 0)
		r = dd_end_open_output(&run->out, &run->cl, &run->a, &run->e);
	if (r < 0)
		return r;
	hashes = hashes && !dd_end_rereadable(&run->in);
	run->copied = true;
	r = dd_copy(&run->a, &run->in, &run->out, hashes, &run->res, &run->e);
	dd_end_set_std_offset(&run->out, run->res.counts.bytes);
	if (r >= 0)
		r = dd_end_finish_output(&run->out, &run->a, &run->e);
	return r;
}

static void report_error(const struct dd_run *run)
{
	if (run->e.code)
		print_error(run->e.msg);
}

static int run_copy(struct dd_run *run)
{
	int r;

	run->verify = -1;
	r = open_and_copy(run);
	note_latency(run);
	if (r < 0)
		report_error(run);
	if (run->copied && run->res.started)
		print_summary(run);
	if (r >= 0 && run->a.verify && !dd_signal_interrupted()) {
		run->verify = dd_verify(&run->in, &run->out, &run->res, &run->diff, &run->e);
		if (run->verify < 0) {
			r = run->verify;
			run->verify = -1;
			report_error(run);
		} else if (run->verify) {
			fprintf(stderr, PROG ": verify: first difference at byte %" PRIu64 "\n",
				run->diff);
		}
	}
	if (run->a.status == DD_STATUS_JSON && run->copied)
		print_json(run);
	return r < 0 || run->verify == 1 ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct dd_run run;
	char err[8192];
	int r;

	memset(&run, 0, sizeof(run));
	run.in.fd = run.out.fd = -1;
	r = dd_parse_args(argc, argv, &run.a, err, sizeof(err));
	if (r == DD_ARGS_HELP) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (r == DD_ARGS_VERSION) {
		printf(PROG " (libstriped) %s\n", striped_version(NULL, NULL, NULL));
		return 0;
	}
	if (r < 0) {
		print_error(err);
		return 1;
	}
	dd_signal_install();
	r = run_copy(&run);
	dd_result_free(&run.res);
	dd_end_close(&run.in);
	dd_end_close(&run.out);
	dd_cluster_shutdown(&run.cl);
	dd_args_free(&run.a);
	if (dd_signal_interrupted()) {
		/* what was written is acknowledged and the summary is out */
		dd_signal_reraise();
		return 130;
	}
	return r;
}
