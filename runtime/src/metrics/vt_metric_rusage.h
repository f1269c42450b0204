/* SPDX-License-Identifier: BSD-3-Clause */
/* The metric source of getrusage fields (VT_RUSAGE). */
#ifndef VT_METRIC_RUSAGE_H
#define VT_METRIC_RUSAGE_H

#include "vt_metric.h"

/* The source of the fields VT_RUSAGE names, or NULL (none, or a bad value: one line). */
struct vt_metric_source *vt_metric_rusage_load(uint64_t (*wtime)(void));

#endif
