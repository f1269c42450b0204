/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --compare: two traces' profiles side by side (a trace and its vt-sim what-if). */
#ifndef VT_PROF_COMPARE_H
#define VT_PROF_COMPARE_H

/* Runs `vt-profile --compare [-n N] A.otf2 B.otf2` (argv[0] is "--compare"); the exit code. */
int vt_prof_compare_main(int argc, char **argv);

#endif
