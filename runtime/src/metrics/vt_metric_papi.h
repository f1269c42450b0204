/* SPDX-License-Identifier: BSD-3-Clause */
/* The metric source of PAPI events (VT_METRICS). */
#ifndef VT_METRIC_PAPI_H
#define VT_METRIC_PAPI_H

#include "metrics/vt_metric.h"

/* The source of the events VT_METRICS names that can be counted here, or NULL (none; each
 * event that cannot be counted gets one line). */
struct vt_metric_source *vt_metric_papi_load(uint64_t (*wtime)(void));

#endif
