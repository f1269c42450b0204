/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile's outputs: the text table, CSV and JSON. */
#ifndef VT_PROF_REPORT_H
#define VT_PROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile.h"

enum vt_prof_format { VT_PROF_TEXT, VT_PROF_CSV, VT_PROF_JSON };

enum vt_prof_sort { VT_PROF_SORT_EXCL, VT_PROF_SORT_INCL, VT_PROF_SORT_CALLS, VT_PROF_SORT_NAME };

struct vt_prof_options {
	enum vt_prof_format format;
	enum vt_prof_sort sort;
	size_t top; /* rows per table; 0 for all */
	bool per_location;
	bool samples; /* the sampled profiles instead of the regions' (samples.c) */
};

/* Writes the report to out; problems go to out too, except in CSV where they go to err. */
void vt_prof_report(const struct vt_prof_trace *tr, const struct vt_prof_options *opt, FILE *out,
		    FILE *err);

/* The sampled flat and call-path profiles (--samples). */
void vt_prof_report_samples(const struct vt_prof_trace *tr, const struct vt_prof_options *opt,
			    FILE *out);

/* Shared by the reports: JSON strings, CSV fields. */
void vt_prof_json_string(FILE *out, const char *s);
void vt_prof_csv_field(FILE *out, const char *s);

#endif
