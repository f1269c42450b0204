/* SPDX-License-Identifier: BSD-3-Clause */
/* vtcc's OpenMP link: LLVM's libomp in place of GCC's libgomp, so that OMPT reports events. */
#include "vtcc_omp.h"
#include "vtcc_paths.h"

#include <stdlib.h>
#include <string.h>

/* Status for wrong use of vtcc itself (as in vtcc.c). */
#define VTCC_OMP_EXIT_USAGE 2

enum vtcc_omp_runtime vtcc_omp_parse(const char *what, const char *value)
{
	if (!strcmp(value, "libomp"))
		return VTCC_OMP_LIBOMP;
	if (!strcmp(value, "libgomp"))
		return VTCC_OMP_LIBGOMP;
	vtcc_die(VTCC_OMP_EXIT_USAGE,
		 "%s '%s': expected libomp (LLVM's, with OpenMP events) or "
		 "libgomp (GCC's, without)",
		 what, value);
}

const char *vtcc_omp_libomp(void)
{
	return VTCC_LIBOMP;
}

/* -ftree-parallelize-loops=N with N > 1 makes gcc link libgomp too. */
static bool vtcc_omp_autopar(const char *a)
{
	const char *p = "-ftree-parallelize-loops=";

	return !strncmp(a, p, strlen(p)) && atol(a + strlen(p)) > 1;
}

struct vtcc_omp_link vtcc_omp_decide(const struct vtcc_argv *user, bool gnu,
				     enum vtcc_omp_runtime rt)
{
	struct vtcc_omp_link l = {false, false, NULL};
	struct vtcc_argv scan = {0};
	bool omp = false, gomp = false, acc = false, is_static = false;

	for (size_t i = 0; i < user->n; i++) {
		const char *a = user->v[i];

		if (a[0] == '@' && vtcc_rsp_expand(a + 1, &scan, 1))
			continue;
		vtcc_argv_push(&scan, a);
	}
	for (size_t i = 0; i < scan.n; i++) {
		const char *a = scan.v[i];

		/* gcc takes the last of -fopenmp and -fno-openmp */
		if (!strcmp(a, "-fopenmp") || !strcmp(a, "-fno-openmp"))
			omp = a[2] == 'o';
		else if (!strcmp(a, "-lgomp") ||
			 (!strcmp(a, "-l") && i + 1 < scan.n && !strcmp(scan.v[i + 1], "gomp")))
			gomp = true;
		else if (vtcc_omp_autopar(a))
			gomp = true;
		else if (!strcmp(a, "-fopenacc"))
			acc = true;
		else if (!strcmp(a, "-static") || !strcmp(a, "-static-pie"))
			is_static = true;
	}
	free(scan.v);
	l.openmp = gnu && (omp || gomp || acc);
	if (!l.openmp)
		return l;
	if (rt == VTCC_OMP_LIBGOMP)
		l.why = "libgomp chosen (-vt:openmp-runtime or VT_OPENMP_RUNTIME)";
	else if (!*VTCC_LIBOMP)
		l.why = "vt was built without LLVM's libomp";
	else if (acc)
		l.why = "-fopenacc: OpenACC needs libgomp";
	else if (is_static)
		l.why = "a static link: libomp has no static library";
	l.use_libomp = !l.why;
	return l;
}

void vtcc_omp_link_flags(const struct vtcc_omp_link *l, const char *gompdir, struct vtcc_argv *out)
{
	if (!l->use_libomp)
		return;
	char *dir = vtcc_xstrdup(VTCC_LIBOMP);
	char *slash = strrchr(dir, '/');

	if (slash)
		*slash = '\0';
	/* -L applies to every -l of the link, wherever it stands, before the compiler's own
	 * folders: gcc's -lgomp finds vt's libgomp.so first. */
	vtcc_argv_push(out, vtcc_xasprintf("-L%s", gompdir));
	vtcc_argv_push(out, vtcc_xasprintf("-Wl,-rpath,%s", dir));
}
