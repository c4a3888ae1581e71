/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* striped-dd: GNU dd 9.1's transfer statistics, byte for byte. Pure. */
#ifndef DD_REPORT_H
#define DD_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DD_NS_PER_S 1000000000ULL

/* Longest human-readable number with its unit, NUL included. */
#define DD_HUMAN_LEN 80

struct dd_counts {
	uint64_t in_full, in_partial;
	uint64_t out_full, out_partial;
	uint64_t bytes; /* bytes written */
};

/**
 * gnulib human_readable() with dd's options (autoscale, round to nearest,
 * space before unit, SI, "B"): n * from / to, in powers of 1000 or 1024.
 * @param buf DD_HUMAN_LEN bytes
 * @return the start of the string inside buf
 */
char *dd_human(uint64_t n, char *buf, bool iec, uint64_t from, uint64_t to);

/**
 * dd's last summary line, without '\r' or '\n': "X bytes (Y, Z) copied, S s, R/s".
 * @param progress use whole seconds ("%.0f s") as status=progress does
 * @return the length snprintf would have written
 */
int dd_format_xfer(char *buf, size_t len, uint64_t bytes, uint64_t elapsed_ns, bool progress);

/** "N+M records in\nN+M records out\n" */
int dd_format_records(char *buf, size_t len, const struct dd_counts *c);

struct striped_percentiles;

/**
 * striped-dd's own line after dd's, for a striped side: "writes to LABEL:
 * N calls, p50 X, p99 Y, p99.9 Z, max W" (what: "writes to" or "reads
 * from"; times in us, ms or s with three significant digits).
 * @return the length snprintf would have written
 */
int dd_format_latency(char *buf, size_t len, const char *what, const char *label,
		      const struct striped_percentiles *p);

/**
 * dd's statistics on f: the records lines, then (xfer) the transfer line,
 * as GNU dd prints them at the end and on SIGUSR1.
 */
void dd_print_stats(FILE *f, const struct dd_counts *c, uint64_t elapsed_ns, bool xfer);

#endif /* DD_REPORT_H */
