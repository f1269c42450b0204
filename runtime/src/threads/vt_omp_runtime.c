/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP runtimes loaded in the process, checked at finalize against the OMPT tool's start. */
#include "threads/vt_omp_runtime.h"

#include "base/vt_config.h"
#include "base/vt_log.h"

#include <link.h>
#include <stdbool.h>
#include <string.h>

/* The runtimes vt knows by their file names: LLVM's and Intel's have OMPT, GCC's has none. */
static const struct vt_omp_rt {
	const char *prefix; /* of the file name: libgomp.so.1, libomp.so.5, libiomp5.so */
	bool ompt;
} vt_omp_rts[] = {
    {"libgomp.so", false},
    {"libomp.so", true},
    {"libomp5.so", true},
    {"libiomp5.so", true},
};
#define VT_OMP_NRTS (sizeof(vt_omp_rts) / sizeof(vt_omp_rts[0]))

static struct {
	bool tool_started; /* atomic: set by the tool, read at finalize */
	/* What dl_iterate_phdr found: the first object of each runtime (its path). */
	const char *found[VT_OMP_NRTS];
} omp;

void vt_omp_tool_started(void)
{
	__atomic_store_n(&omp.tool_started, true, __ATOMIC_RELEASE);
}

static int vt_omp_scan(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	const char *path = info->dlpi_name;
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	if (!base || !*base)
		return 0;
	for (size_t i = 0; i < VT_OMP_NRTS; i++)
		if (!omp.found[i] &&
		    !strncmp(base, vt_omp_rts[i].prefix, strlen(vt_omp_rts[i].prefix)))
			omp.found[i] = path;
	return 0;
}

void vt_omp_runtime_check(void)
{
	if (__atomic_load_n(&omp.tool_started, __ATOMIC_ACQUIRE))
		return;
	dl_iterate_phdr(vt_omp_scan, NULL);
	for (size_t i = 0; i < VT_OMP_NRTS; i++) {
		if (!omp.found[i])
			continue;
		if (vt_omp_rts[i].ompt)
			vt_info(
			    "OpenMP runtime %s never started vt's OMPT tool (no OpenMP construct "
			    "ran, or OMP_TOOL=disabled): no OpenMP events",
			    omp.found[i]);
		else if (vt_cfg.openmp_runtime == VT_OPENMP_LIBGOMP)
			vt_info("OpenMP runtime %s has no OMPT (VT_OPENMP_RUNTIME=libgomp): no "
				"OpenMP events",
				omp.found[i]);
		else
			vt_warn(
			    "OpenMP runtime %s has no OMPT, so the trace has no OpenMP "
			    "events: link LLVM's libomp (vtcc, vtcxx, vtfort -fopenmp do, unless "
			    "given -vt:openmp-runtime libgomp) or run the program under vtrun",
			    omp.found[i]);
	}
}
