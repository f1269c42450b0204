/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-export's Chrome trace-event writer (chrome.c). */
#ifndef VT_EXPORT_CHROME_H
#define VT_EXPORT_CHROME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vtr.h"

struct vt_export_options {
	bool window;	       /* only [from, to] (seconds after the clock's offset) */
	double from, to;       /* to < 0: the end */
	unsigned max_warnings; /* problems written one line each; the rest counted */
};

struct vt_export_counts {
	uint64_t events, slices, counters, flows, problems;
	uint64_t instants, spans; /* thread-model events: instants, team spans */
};

/* Streams the trace t (open) to out as Chrome trace-event JSON. 0, or -1 with err. */
int vt_export_chrome(struct vtr_trace *t, const struct vt_export_options *opt, FILE *out,
		     FILE *warn, struct vt_export_counts *counts, char *err, size_t errlen);

#endif
