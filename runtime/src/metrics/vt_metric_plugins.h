/* SPDX-License-Identifier: BSD-3-Clause */
/* The metric sources of counter plugins (VampirTrace and Score-P interfaces). */
#ifndef VT_METRIC_PLUGINS_H
#define VT_METRIC_PLUGINS_H

#include "metrics/vt_metric.h"

/* Loads the plugins VT_PLUGIN_CNTR_METRICS and SCOREP_METRIC_PLUGINS name; the list of their
 * sources (NULL: none). wtime is the clock handed to asynchronous plugins. */
struct vt_metric_source *vt_metric_plugins_load(uint64_t (*wtime)(void));

#endif
