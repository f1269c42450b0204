/* SPDX-License-Identifier: BSD-3-Clause */
/* OpenMP in vtcc: LLVM's libomp (OMPT) linked in place of GCC's libgomp, or libgomp kept. */
#ifndef VTCC_OMP_H
#define VTCC_OMP_H

#include "vtcc_util.h"

#include <stdbool.h>

/* The OpenMP runtime of a GCC link (-vt:openmp-runtime, VT_OPENMP_RUNTIME). */
enum vtcc_omp_runtime {
	VTCC_OMP_LIBOMP,  /* LLVM's libomp in place of libgomp (default when vt has it) */
	VTCC_OMP_LIBGOMP, /* GCC's libgomp, as gcc links it: no OpenMP events */
};

/* The runtime VALUE names ("libomp" or "libgomp"); dies with one line naming WHAT (the
 * option or the variable) and the valid values otherwise. */
enum vtcc_omp_runtime vtcc_omp_parse(const char *what, const char *value);

/* What a link of these arguments does with OpenMP, decided by vtcc_omp_decide. */
struct vtcc_omp_link {
	bool openmp;	 /* the link asks gcc for libgomp (-fopenmp, -lgomp, ...) */
	bool use_libomp; /* vtcc puts libomp in its place */
	const char *why; /* openmp && !use_libomp: why libgomp stays */
};

/*
 * Decides for a link step of the user's arguments USER (response files read) with a GCC
 * (gnu) or Clang driver: clang -fopenmp links libomp by itself; gcc, g++ and gfortran get
 * libomp unless the runtime chosen is libgomp, vt was built without libomp, the link is
 * static (there is no static libomp) or uses OpenACC (-fopenacc: libomp has no GOACC_*).
 */
struct vtcc_omp_link vtcc_omp_decide(const struct vtcc_argv *user, bool gnu,
				     enum vtcc_omp_runtime rt);

/* The link flags of a decision: -L to vt's libgomp.so (a linker script naming libomp, in
 * GOMPDIR) and the run path of libomp's folder, so the program finds it without
 * LD_LIBRARY_PATH. Nothing unless use_libomp. */
void vtcc_omp_link_flags(const struct vtcc_omp_link *l, const char *gompdir, struct vtcc_argv *out);

/* LLVM's libomp.so that vt links and vtrun preloads ("" when vt was built without it). */
const char *vtcc_omp_libomp(void);

#endif
