/* SPDX-License-Identifier: BSD-3-Clause */
/* The readings' progress on a terminal's stderr: share of events read, rate, time left. */
#include "vtr_cli.h"
#include "vtr_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The clock is looked at once per this many events: at 3 to 10 M events/s every 7 to 20 ms,
 * one comparison per event in between (count() in vtr_read.c). */
#define CHECK_EVERY (UINT64_C(1) << 16)
/* A line at most this often once shown (seconds). */
#define INTERVAL 0.25

static struct {
	bool on;
	double after; /* seconds of reading before the first line */
	unsigned pass;
	uint64_t total;	    /* the definitions' event count, 0 where they count none */
	double first;	    /* when the tool's first reading began: the second counts from there */
	double start, next; /* this reading's beginning, the next line's earliest time */
	bool shown;	    /* a line is on the terminal */
} pg = {.after = 1.0};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void vtr_progress_setup(bool quiet)
{
	pg.on = !quiet && isatty(STDERR_FILENO);
	const char *e = getenv("VT_PROGRESS_AFTER");
	if (e && *e) {
		char *end;
		double v = strtod(e, &end);
		if (*end == '\0' && v >= 0 && v < 1e6)
			pg.after = v;
	}
}

void vtr_progress_clear(void)
{
	if (!pg.shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	pg.shown = false;
}

void vtr_progress_begin(struct reader *rd)
{
	rd->progress_at = UINT64_MAX;
	if (!pg.on)
		return;
	pg.pass++;
	pg.total = 0;
	for (size_t i = 0; i < rd->tr->nlocations; i++)
		if (!rd->tr->only || rd->tr->only[i])
			pg.total += rd->tr->locations[i].events;
	pg.start = now();
	if (pg.pass == 1)
		pg.first = pg.start;
	pg.next = pg.first + pg.after;
	rd->progress_at = CHECK_EVERY;
}

/* n, scaled to k or M, in buf. */
static const char *scaled(char *buf, size_t len, double n)
{
	if (n >= 1e6)
		snprintf(buf, len, "%.1f M ", n / 1e6);
	else if (n >= 1e3)
		snprintf(buf, len, "%.1f k ", n / 1e3);
	else
		snprintf(buf, len, "%.0f ", n);
	return buf;
}

void vtr_progress_tick(struct reader *rd)
{
	uint64_t done = rd->stats.events;
	rd->progress_at = done + CHECK_EVERY;
	double t = now();
	if (t < pg.next)
		return;
	pg.next = t + (pg.after < INTERVAL ? pg.after : INTERVAL);
	double secs = t - pg.start, rate = secs > 0 ? (double)done / secs : 0;
	char pass[32] = "", what[96], r[32];
	if (pg.pass > 1)
		snprintf(pass, sizeof(pass), "pass %u: ", pg.pass);
	if (pg.total && done <= pg.total) {
		char left[48] = "";
		if (rate > 0)
			snprintf(left, sizeof(left), ", %.0f s left",
				 (double)(pg.total - done) / rate);
		snprintf(what, sizeof(what), "%u%% of %" PRIu64 " events%s",
			 (unsigned)(done * 100 / pg.total), pg.total, left);
	} else {
		snprintf(what, sizeof(what), "%" PRIu64 " events", done);
	}
	fprintf(stderr, "\r%s: %sreading %s, %sevents/s\033[K", vtr_cli_tool, pass, what,
		scaled(r, sizeof(r), rate));
	fflush(stderr);
	pg.shown = true;
}
