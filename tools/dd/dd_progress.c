// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * striped-dd's output while the copy runs. Only the copy's own thread
 * prints (never a librados callback), so the progress line's length needs
 * no lock. The words are GNU dd's.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dd_progress.h"

uint64_t dd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * DD_NS_PER_S + (uint64_t)ts.tv_nsec;
}

void dd_progress_start(struct dd_progress *p, enum dd_status status)
{
	p->status = status;
	p->start_ns = dd_now_ns();
	p->next_ns = p->start_ns + DD_NS_PER_S;
	p->len = 0;
}

uint64_t dd_progress_elapsed(const struct dd_progress *p)
{
	return dd_now_ns() - p->start_ns;
}

void dd_progress_line(struct dd_progress *p, uint64_t bytes)
{
	uint64_t now = dd_now_ns();
	char line[256];
	int len;

	if (p->status != DD_STATUS_PROGRESS || now < p->next_ns)
		return;
	len = dd_format_xfer(line, sizeof(line), bytes, now - p->start_ns, true);
	fprintf(stderr, "\r%s", line);
	if (len < p->len) /* the longer line before it is wiped */
		fprintf(stderr, "%*s", p->len - len, "");
	p->len = len;
	fflush(stderr);
	while (p->next_ns <= now)
		p->next_ns += DD_NS_PER_S;
}

int dd_progress_wait_ms(const struct dd_progress *p)
{
	uint64_t now;

	if (p->status != DD_STATUS_PROGRESS)
		return -1;
	now = dd_now_ns();
	return now >= p->next_ns ? 0 : (int)((p->next_ns - now + 999999) / 1000000);
}

void dd_progress_end_line(struct dd_progress *p)
{
	if (p->len > 0) {
		fputc('\n', stderr);
		p->len = 0;
	}
}

void dd_progress_stats(struct dd_progress *p, const struct dd_counts *n)
{
	if (p->status == DD_STATUS_NONE || p->status == DD_STATUS_JSON)
		return;
	dd_progress_end_line(p);
	dd_print_stats(stderr, n, dd_progress_elapsed(p), p->status != DD_STATUS_NOXFER);
}

/* GNU dd warns once, when a read returns data after a short one: the copy knows when. */
void dd_progress_warn_partial(struct dd_progress *p, ssize_t nread)
{
	if (p->status == DD_STATUS_NONE)
		return;
	dd_progress_end_line(p);
	fprintf(stderr, "striped-dd: warning: partial read (%zd byte%s); suggest iflag=fullblock\n",
		nread, nread == 1 ? "" : "s");
}

void dd_progress_read_error(struct dd_progress *p, const char *label, int err)
{
	if (p->status == DD_STATUS_NONE)
		return;
	dd_progress_end_line(p);
	fprintf(stderr, "striped-dd: error reading '%s': %s\n", label, strerror(-err));
}
