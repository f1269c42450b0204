/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-report's Wait states and Critical path: vt-profile's --waits and --critical-path JSON. */
/*
 * The page shows what vt-profile --waits --format json and --critical-path --format json
 * give for the same trace: the two reports are run here (vt-profile's waits.c and critpath.c,
 * on libvtprof's model) into memory and embedded in the page as they are, so that the page
 * and vt-profile cannot differ. Each is one more merged reading of the trace; a trace
 * without a communicator (no MPI, no OpenMP team) has no wait to find and is not read again.
 */
#include "vt_report.h"

#include "report.h"

#include <stdlib.h>

static char *one(struct vt_report *r, bool critpath, char *err, size_t errlen)
{
	const struct vt_prof_options opt = {.format = VT_PROF_JSON};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	/* The unmatched messages are the reading's problems, which the page counts already. */
	FILE *warn = fopen("/dev/null", "w");
	if (!out || !warn) {
		snprintf(err, errlen, "cannot open a stream in memory");
		if (out)
			fclose(out);
		if (warn)
			fclose(warn);
		free(text);
		return NULL;
	}
	uint64_t problems = 0;
	int rc = critpath
		     ? vt_prof_report_critpath(r->prof, &opt, out, warn, &problems, err, errlen)
		     : vt_prof_report_waits(r->prof, &opt, out, warn, &problems, err, errlen);
	fclose(warn);
	if (fclose(out) != 0 && rc == 0) {
		snprintf(err, errlen, "cannot write a stream in memory");
		rc = -1;
	}
	if (rc != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int vt_report_waits(struct vt_report *r, char *err, size_t errlen)
{
	if (!r->t->ncomms)
		return 0;
	r->waits = one(r, false, err, errlen);
	if (!r->waits)
		return -1;
	r->critpath = one(r, true, err, errlen);
	return r->critpath ? 0 : -1;
}
