/* SPDX-License-Identifier: BSD-3-Clause */
/* The OMPT tool libvt offers OpenMP runtimes (vt_ompt.c): its part in the phases of a run. */
#ifndef VT_OMPT_H
#define VT_OMPT_H

#include "base/vt_subsystem.h"

/* Stops recording OpenMP events at finalize; the tool itself is found by the runtime
 * (ompt_start_tool). Built only where omp-tools.h is (VT_HAVE_OMPT). */
extern const struct vt_subsystem vt_ompt_subsystem;

#endif
