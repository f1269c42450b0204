/* SPDX-License-Identifier: BSD-3-Clause */
/* The metric source of getrusage fields (VT_RUSAGE). */
#ifndef VT_METRIC_RUSAGE_H
#define VT_METRIC_RUSAGE_H

#include "metrics/vt_metric.h"

/* The fields VT_RUSAGE knows, in their order (for vt-info --metrics). */
struct vt_rusage_field {
	const char *name, *unit, *description;
	bool accumulated; /* else an absolute value */
};
const struct vt_rusage_field *vt_metric_rusage_fields(size_t *n);

/* The source of the fields VT_RUSAGE names, or NULL (none, or a bad value: one line). */
struct vt_metric_source *vt_metric_rusage_load(uint64_t (*wtime)(void));

#endif
