/* SPDX-License-Identifier: BSD-3-Clause */
/* Which OpenMP runtime the program has, and whether it started vt's OMPT tool: one line if not. */
#ifndef VT_OMP_RUNTIME_H
#define VT_OMP_RUNTIME_H

/* The OMPT tool (ompt_start_tool) says an OpenMP runtime started it; any thread, any time. */
void vt_omp_tool_started(void);

/*
 * At finalize: when an OpenMP runtime without OMPT (GCC's libgomp) is loaded and no runtime
 * started the tool, one warning names it and what to do (rebuild with vtcc, or vtrun), since
 * the trace then has no OpenMP events. A runtime with OMPT (libomp, libiomp5) that never
 * started the tool (no OpenMP construct ran, or OMP_TOOL=disabled) gets an info line.
 */
void vt_omp_runtime_check(void);

#endif
