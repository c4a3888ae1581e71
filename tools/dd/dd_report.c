// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * GNU dd's statistics lines. dd_human() follows gnulib's human_readable()
 * (the integer path when the scaling is exact, long double otherwise) so
 * that every rounding matches coreutils 9.1 in the C locale.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <striped.h>

#include "dd_report.h"

static const char power_letter[] = {0, 'K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y', 'R', 'Q'};
#define EXPONENT_MAX ((int)sizeof(power_letter) - 1)

struct human_state {
	uint64_t amt;
	int tenths;
	int rounding; /* 0 exact, 1 < .05, 2 == .05, 3 > .05 of a tenth */
	int exponent;
};

/* Integer path: scale by base while it fits, keeping tenths and rounding. */
static char *human_integer(struct human_state *h, unsigned int base, char *p)
{
	h->exponent = 0;
	if (base <= h->amt) {
		do {
			unsigned int r10 =
			    (unsigned int)(h->amt % base) * 10 + (unsigned int)h->tenths;
			unsigned int r2 = (r10 % base) * 2 + (unsigned int)(h->rounding >> 1);

			h->amt /= base;
			h->tenths = (int)(r10 / base);
			h->rounding = r2 < base ? (r2 + (unsigned int)h->rounding) != 0
						: 2 + (base < r2 + (unsigned int)h->rounding);
			h->exponent++;
		} while (base <= h->amt && h->exponent < EXPONENT_MAX);
		if (h->amt < 10) {
			if (2 < h->rounding + (h->tenths & 1)) {
				h->tenths++;
				h->rounding = 0;
				if (h->tenths == 10) {
					h->amt++;
					h->tenths = 0;
				}
			}
			if (h->amt < 10) {
				*--p = (char)('0' + h->tenths);
				*--p = '.';
				h->tenths = h->rounding = 0;
			}
		}
	}
	if (5 < h->tenths + (0 < h->rounding + (int)(h->amt & 1))) {
		h->amt++;
		if (h->amt == base && h->exponent < EXPONENT_MAX) {
			h->exponent++;
			*--p = '0';
			*--p = '.';
			h->amt = 1;
		}
	}
	do {
		*--p = (char)('0' + h->amt % 10);
	} while ((h->amt /= 10) != 0);
	return p;
}

/* Floating path: always at least one power of base, as gnulib does. */
static char *human_float(struct human_state *h, unsigned int base, long double damt, char *p)
{
	char tmp[DD_HUMAN_LEN];
	long double e = 1;
	size_t n;

	h->exponent = 0;
	do {
		e *= base;
		h->exponent++;
	} while (e * base <= damt && h->exponent < EXPONENT_MAX);
	damt /= e;
	snprintf(tmp, sizeof(tmp), "%.1Lf", damt);
	n = strlen(tmp);
	if (1 + 2 + (base == 1000) < n) {
		snprintf(tmp, sizeof(tmp), "%.0Lf", damt * 10 / 10);
		n = strlen(tmp);
	}
	p -= n;
	memcpy(p, tmp, n);
	return p;
}

char *dd_human(uint64_t n, char *buf, bool iec, uint64_t from, uint64_t to)
{
	unsigned int base = iec ? 1024 : 1000;
	struct human_state h = {0, 0, 0, 0};
	char *psuffix = buf + DD_HUMAN_LEN - 8;
	char *p = psuffix;

	if (to <= from && from % to == 0 && !__builtin_mul_overflow(n, from / to, &h.amt)) {
		p = human_integer(&h, base, p);
	} else if (to > from && from != 0 && to % from == 0) {
		uint64_t divisor = to / from, r10 = (n % divisor) * 10, r2 = (r10 % divisor) * 2;

		h.amt = n / divisor;
		h.tenths = (int)(r10 / divisor);
		h.rounding = r2 < divisor ? 0 < r2 : 2 + (divisor < r2);
		p = human_integer(&h, base, p);
	} else {
		p = human_float(&h, base, n * ((long double)from / (long double)to), p);
	}
	*psuffix++ = ' ';
	if (h.exponent)
		*psuffix++ = !iec && h.exponent == 1 ? 'k' : power_letter[h.exponent];
	if (iec && h.exponent)
		*psuffix++ = 'i';
	*psuffix++ = 'B';
	*psuffix = '\0';
	return p;
}

static bool lacks_prefix(const char *s)
{
	return s[strlen(s) - 2] == ' ';
}

int dd_format_xfer(char *buf, size_t len, uint64_t bytes, uint64_t elapsed_ns, bool progress)
{
	char hbuf[3][DD_HUMAN_LEN + 2], tbuf[64];
	const char *si = dd_human(bytes, hbuf[0], false, 1, 1);
	const char *iec = dd_human(bytes, hbuf[1], true, 1, 1);
	char *rate;
	double secs = (double)elapsed_ns / DD_NS_PER_S;

	if (elapsed_ns) {
		rate = dd_human(bytes, hbuf[2], false, DD_NS_PER_S, elapsed_ns);
		strcat(rate, "/s");
	} else {
		secs = 0;
		rate = strcpy(hbuf[2], "Infinity B/s");
	}
	snprintf(tbuf, sizeof(tbuf), progress ? "%.0f s" : "%g s", secs);
	if (lacks_prefix(si))
		return snprintf(buf, len, "%" PRIu64 " %s copied, %s, %s", bytes,
				bytes == 1 ? "byte" : "bytes", tbuf, rate);
	if (lacks_prefix(iec))
		return snprintf(buf, len, "%" PRIu64 " bytes (%s) copied, %s, %s", bytes, si, tbuf,
				rate);
	return snprintf(buf, len, "%" PRIu64 " bytes (%s, %s) copied, %s, %s", bytes, si, iec, tbuf,
			rate);
}

int dd_format_records(char *buf, size_t len, const struct dd_counts *c)
{
	return snprintf(buf, len,
			"%" PRIu64 "+%" PRIu64 " records in\n%" PRIu64 "+%" PRIu64 " records out\n",
			c->in_full, c->in_partial, c->out_full, c->out_partial);
}

/* A latency with three significant digits, in the unit that keeps it below 1000 (but s). */
static const char *latency_text(uint64_t ns, char *buf, size_t len)
{
	/* where three digits round up to 1000 of a unit, the next unit begins */
	if (ns < 999500)
		snprintf(buf, len, "%.3g us", (double)ns / 1e3);
	else if (ns < 999500000)
		snprintf(buf, len, "%.3g ms", (double)ns / 1e6);
	else
		snprintf(buf, len, ns < 999500000000ull ? "%.3g s" : "%.0f s", (double)ns / 1e9);
	return buf;
}

int dd_format_latency(char *buf, size_t len, const char *what, const char *label,
		      const struct striped_percentiles *p)
{
	char t[4][32];

	return snprintf(buf, len, "%s %s: %" PRIu64 " calls, p50 %s, p99 %s, p99.9 %s, max %s",
			what, label, p->calls, latency_text(p->p50_ns, t[0], sizeof(t[0])),
			latency_text(p->p99_ns, t[1], sizeof(t[1])),
			latency_text(p->p999_ns, t[2], sizeof(t[2])),
			latency_text(p->max_ns, t[3], sizeof(t[3])));
}

void dd_print_stats(FILE *f, const struct dd_counts *c, uint64_t elapsed_ns, bool xfer)
{
	char buf[512];

	dd_format_records(buf, sizeof(buf), c);
	fputs(buf, f);
	if (!xfer)
		return;
	dd_format_xfer(buf, sizeof(buf), c->bytes, elapsed_ns, false);
	fprintf(f, "%s\n", buf);
}
