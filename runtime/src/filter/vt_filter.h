/* SPDX-License-Identifier: BSD-3-Clause */
/* The runtime filter: VampirTrace's filter files (region name patterns and call limits). */
#ifndef VT_FILTER_H
#define VT_FILTER_H

#include "base/vt_subsystem.h"

#include <stdbool.h>

/*
 * Reads a filter file (the syntax: filter/vt_filter_spec.h). LIMIT -1: unlimited, 0: never
 * record, N: record the first N calls (per process). Returns 0, or -1 after one error line
 * naming the file and line.
 */
int vt_filter_load(const char *path);

bool vt_filter_active(void);

/* The call limit for a region name: -1 when no rule matches. */
long vt_filter_limit(const char *name);

void vt_filter_free(void);

/* The module's part in the phases of a run (lifecycle/vt_core.c runs them). */
extern const struct vt_subsystem vt_filter_subsystem;

#endif
