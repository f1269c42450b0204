/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit test of threads/vt_omp_runtime.c: the line about an OpenMP runtime without OMPT. */
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "threads/vt_omp_runtime.h"
#include "unit.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What vt_omp_runtime_check() writes on stderr, into out (a file stands in for fd 2). */
static void check_output(char *out, size_t size)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);

	out[0] = '\0';
	if (!tmp || saved < 0)
		return;
	dup2(fileno(tmp), STDERR_FILENO);
	vt_omp_runtime_check();
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	size_t n = fread(out, 1, size - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	char out[4096];

	vt_log_level = VT_LOG_INFO;
	/* No OpenMP runtime in this process yet. */
	check_output(out, sizeof(out));
	CHECK(out[0] == '\0');

	/* GCC's libgomp, loaded later (dlopen) and found at the check: one warning. */
	if (!dlopen("libgomp.so.1", RTLD_NOW)) {
		fprintf(stderr, "libgomp.so.1: %s\n", dlerror());
		return 1;
	}
	vt_log_level = VT_LOG_NOTICE;
	check_output(out, sizeof(out));
	CHECK(lines(out) == 1);
	CHECK(strstr(out, "warning: OpenMP runtime ") != NULL);
	CHECK(strstr(out, "/libgomp.so.1 has no OMPT, so the trace has no OpenMP events") != NULL);
	CHECK(strstr(out, "vtrun") != NULL);

	/* Asked for (VT_OPENMP_RUNTIME=libgomp): an info line, not shown at level 1. */
	vt_cfg.openmp_runtime = VT_OPENMP_LIBGOMP;
	check_output(out, sizeof(out));
	CHECK(out[0] == '\0');
	vt_log_level = VT_LOG_INFO;
	check_output(out, sizeof(out));
	CHECK(lines(out) == 1 && strstr(out, "(VT_OPENMP_RUNTIME=libgomp)") != NULL);
	CHECK(strstr(out, "warning") == NULL);

	/* LLVM's libomp beside it, which never started the tool: an info line for it too. */
	vt_cfg.openmp_runtime = VT_OPENMP_LIBOMP;
	if (dlopen("libomp.so.5", RTLD_NOW)) {
		check_output(out, sizeof(out));
		CHECK(lines(out) == 2);
		CHECK(strstr(out, "libomp.so.5 never started vt's OMPT tool") != NULL);
		CHECK(strstr(out, "warning: OpenMP runtime ") != NULL);
	}

	/* Once a runtime started the tool, nothing at all. */
	vt_omp_tool_started();
	check_output(out, sizeof(out));
	CHECK(out[0] == '\0');
	return unit_done();
}
