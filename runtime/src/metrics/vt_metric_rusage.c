/* SPDX-License-Identifier: BSD-3-Clause */
/* A metric source: getrusage fields of each thread (VT_RUSAGE), read with its events. */
#include "metrics/vt_metric_rusage.h"
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_log.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/*
 * Linux gives the fields per thread (RUSAGE_THREAD); maxrss is the process's peak either way.
 * A value is read at an event at most every VT_RUSAGE_INTV milliseconds (the service's
 * OPTIONAL kind with delta_t): getrusage is a system call, too dear for every event.
 */
static const struct vt_rusage_field fields[] = {
    {"utime", "us", "user CPU time of the thread", true},
    {"stime", "us", "system CPU time of the thread", true},
    {"maxrss", "KiB", "peak resident set size of the process", false},
    {"minflt", "#", "page faults without I/O", true},
    {"majflt", "#", "page faults with I/O", true},
    {"inblock", "#", "blocks read by the file system", true},
    {"oublock", "#", "blocks written by the file system", true},
    {"nvcsw", "#", "voluntary context switches", true},
    {"nivcsw", "#", "involuntary context switches", true},
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

const struct vt_rusage_field *vt_metric_rusage_fields(size_t *n)
{
	*n = N_FIELDS;
	return fields;
}

static uint64_t value_of(const struct rusage *ru, int32_t id)
{
	switch (id) {
	case 0:
		return (uint64_t)ru->ru_utime.tv_sec * 1000000 + (uint64_t)ru->ru_utime.tv_usec;
	case 1:
		return (uint64_t)ru->ru_stime.tv_sec * 1000000 + (uint64_t)ru->ru_stime.tv_usec;
	case 2:
		return (uint64_t)ru->ru_maxrss;
	case 3:
		return (uint64_t)ru->ru_minflt;
	case 4:
		return (uint64_t)ru->ru_majflt;
	case 5:
		return (uint64_t)ru->ru_inblock;
	case 6:
		return (uint64_t)ru->ru_oublock;
	case 7:
		return (uint64_t)ru->ru_nvcsw;
	default:
		return (uint64_t)ru->ru_nivcsw;
	}
}

static bool get_optional(int32_t id, uint64_t *value)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return false;
	*value = value_of(&ru, id);
	return true;
}

/* The counter's id is its field's index. */
static int32_t add(struct vt_metric_source *s, const struct vt_metric *m)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if (strcmp(m->name, fields[i].name) == 0)
			return (int32_t)i;
	return -1;
}

static const struct vt_metric_ops ops = {.add = add};

static struct {
	struct vt_metric_source source;
	struct vt_metric metrics[N_FIELDS];
} ru = {
    .source.name = "getrusage",
    .source.what = "rusage",
    .source.sync = VT_METRIC_OPTIONAL,
    .source.per = VT_METRIC_PER_THREAD,
    .source.ops = &ops,
    .source.get_optional = get_optional,
};

/* Field i is in VT_RUSAGE ("all", or names separated by ':'); -1 after the error line. */
static int parse(const char *spec, bool want[N_FIELDS])
{
	if (strcmp(spec, "all") == 0) {
		for (size_t i = 0; i < N_FIELDS; i++)
			want[i] = true;
		return 0;
	}
	char *copy = strdup(spec), *save = NULL;
	int rc = copy ? 0 : -1;
	for (char *tok = copy ? strtok_r(copy, ":", &save) : NULL; tok && rc == 0;
	     tok = strtok_r(NULL, ":", &save)) {
		size_t i = 0;
		while (i < N_FIELDS && strcmp(tok, fields[i].name) != 0)
			i++;
		if (i == N_FIELDS) {
			vt_error(
			    "VT_RUSAGE='%s': '%s' is not a field; expected all, or fields "
			    "separated by ':' of utime, stime, maxrss, minflt, majflt, inblock, "
			    "oublock, nvcsw, nivcsw; no rusage counters are recorded",
			    spec, tok);
			rc = -1;
		} else {
			want[i] = true;
		}
	}
	free(copy);
	return rc;
}

struct vt_metric_source *vt_metric_rusage_load(uint64_t (*wtime)(void))
{
	bool want[N_FIELDS] = {false};
	if (!vt_cfg.rusage || !*vt_cfg.rusage || parse(vt_cfg.rusage, want) < 0)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < N_FIELDS; i++) {
		if (!want[i])
			continue;
		struct vt_metric *m = &ru.metrics[n++];
		*m =
		    (struct vt_metric){.name = (char *)fields[i].name,
				       .unit = (char *)fields[i].unit,
				       .description = (char *)fields[i].description,
				       .mode = fields[i].accumulated ? OTF2_METRIC_ACCUMULATED_START
								     : OTF2_METRIC_ABSOLUTE_POINT,
				       .type = OTF2_TYPE_UINT64,
				       .base = OTF2_BASE_DECIMAL};
	}
	ru.source.metrics = ru.metrics;
	ru.source.n_metrics = n;
	/* Milliseconds in ticks of the trace's clock. */
	ru.source.delta_t = (uint64_t)vt_cfg.rusage_intv * vt_clock_resolution() / 1000;
	return n ? &ru.source : NULL;
}
