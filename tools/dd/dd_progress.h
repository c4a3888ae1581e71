/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * striped-dd: what the copy prints on stderr while it runs, as status=
 * asks: status=progress's line (rewritten in place once a second), the
 * statistics SIGUSR1 asks for, and the copy's warnings and passed-over read
 * errors. Whatever is printed while the progress line holds the terminal
 * starts on a fresh line, as GNU dd's does. Also the clock the copy's times
 * come from. dd_report.h formats the lines; this part decides when they go
 * out.
 */
#ifndef DD_PROGRESS_H
#define DD_PROGRESS_H

#include <stdint.h>
#include <sys/types.h>

#include "dd_args.h"
#include "dd_report.h"

struct dd_progress {
	enum dd_status status;
	uint64_t start_ns; /* when the copy began */
	uint64_t next_ns;  /* when the next progress line is due */
	int len;	   /* the progress line's length on the terminal, 0 for none */
};

/** Monotonic clock in ns. */
uint64_t dd_now_ns(void);

/** The copy begins now; its first progress line is due a second later. */
void dd_progress_start(struct dd_progress *p, enum dd_status status);

/** ns since the copy began. */
uint64_t dd_progress_elapsed(const struct dd_progress *p);

/** status=progress: the line for bytes written, if one is due now. */
void dd_progress_line(struct dd_progress *p, uint64_t bytes);

/* Once a pass of the copy's loop: inline, so that without status=progress it costs a compare. */
static inline void dd_progress_tick(struct dd_progress *p, uint64_t bytes)
{
	if (p->status == DD_STATUS_PROGRESS)
		dd_progress_line(p, bytes);
}

/** How long the copy may sleep before the next line is due (ms, 0: now), -1: no line. */
int dd_progress_wait_ms(const struct dd_progress *p);

/** End the progress line, if one is on the terminal, so what follows starts afresh. */
void dd_progress_end_line(struct dd_progress *p);

/** dd's statistics (SIGUSR1, a read error passed over), unless status=none or json. */
void dd_progress_stats(struct dd_progress *p, const struct dd_counts *n);

/** GNU dd's warning that a read came back short (of nread bytes), unless status=none. */
void dd_progress_warn_partial(struct dd_progress *p, ssize_t nread);

/** conv=noerror: the read error of label passed over, unless status=none. */
void dd_progress_read_error(struct dd_progress *p, const char *label, int err);

#endif /* DD_PROGRESS_H */
