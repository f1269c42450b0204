/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim --explain-waits: how much of the run each wait-state pattern explains, by replay. */
/*
 * The waits are those vt-profile --critical-path finds (its reading, critpath.c, on
 * libvtprof's model), each with the location whose late event ended it. Per pattern, the
 * waits are grouped per delay (the delaying location and the time it arrived, where all the
 * waits of one collective or the one of a message end); the delay's balance is the shortest
 * of its waits (in a collective, what the latest arrival kept the others waiting beyond the
 * second latest: more would not end it earlier). That much is taken out of the delaying
 * location's computation (time outside MPI calls) between its latest synchronisation point
 * and the arrival, latest first, and the trace is replayed (replay.c, no simulator) with
 * those gaps shortened: the replay moves everything that depended on them. The run's new
 * length is the prediction; what the pattern explains is how much shorter it is than the run
 * replayed as recorded.
 */
#include "vts.h"

#include "report.h"
#include "vtr_out.h"
#include "waits.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct plan {
	uint64_t waits, wait_ticks, delays, planned;
	struct vts_cut **cuts; /* per location */
	size_t *ncuts, *capcuts;
	bool replayed;
	struct vts_replay_result res;
};

struct explain {
	struct vtr_trace *tr;
	struct plan p[VT_WAIT_PATTERNS];
};

static int by_delay(const void *pa, const void *pb)
{
	const struct vt_prof_cp_wait *a = pa, *b = pb;
	if (a->pattern != b->pattern)
		return a->pattern < b->pattern ? -1 : 1;
	if (a->delayer != b->delayer)
		return a->delayer < b->delayer ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

static int by_time(const void *pa, const void *pb)
{
	const struct vts_cut *a = pa, *b = pb;
	return (a->o > b->o) - (a->o < b->o);
}

static void cut_add(struct plan *p, uint32_t loc, uint64_t o, uint64_t amount)
{
	if (p->ncuts[loc] == p->capcuts[loc]) {
		p->capcuts[loc] = p->capcuts[loc] ? 2 * p->capcuts[loc] : 16;
		p->cuts[loc] = vtr_xrealloc(p->cuts[loc], p->capcuts[loc], sizeof(**p->cuts));
	}
	p->cuts[loc][p->ncuts[loc]++] = (struct vts_cut){o, amount};
}

/* The latest synchronisation point of a line before e, else its first event. */
static uint64_t sync_before(const struct vt_prof_cp_line *l, uint64_t e)
{
	size_t lo = 0, hi = l->nsync;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->sync[mid] < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? l->sync[lo - 1] : l->first;
}

/* Takes up to want ticks out of the delaying line's computation between its latest
 * synchronisation before e and e, from the segments that end by e, latest first; taken:
 * per segment, what earlier delays of the pattern took. Returns what it found. */
static uint64_t balance(struct plan *p, const struct vt_prof_cp_found *f, uint32_t d, uint64_t e,
			uint64_t want, uint64_t *taken)
{
	const struct vt_prof_cp_line *l = &f->lines[d];
	uint64_t s = sync_before(l, e), left = want;
	size_t lo = 0, hi = l->n; /* idx: the entries at or before e */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->time[mid] <= e)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo >= 2 ? lo - 2 : SIZE_MAX; i != SIZE_MAX && left; i--) {
		uint64_t a = l->time[i], b = l->time[i + 1];
		if (b <= s)
			break;
		if (a < s)
			a = s;
		/* Earlier delays of the pattern whose interval held this segment began at the
		 * same synchronisation point: what they took is from the same part. */
		if (b > a + taken[i] && !f->in_mpi(f, l->path[i])) {
			uint64_t free_ = b - a - taken[i], take = free_ < left ? free_ : left;
			if (take) {
				taken[i] += take;
				cut_add(p, d, l->time[i + 1], take);
				left -= take;
			}
		}
		if (!i)
			break;
	}
	return want - left;
}

static void on_found(void *user, const struct vt_prof_cp_found *f)
{
	struct explain *x = user;
	size_t nl = f->nlines;
	struct vt_prof_cp_wait *w = vtr_xcalloc(f->nwaits ? f->nwaits : 1, sizeof(*w));
	memcpy(w, f->waits, f->nwaits * sizeof(*w));
	qsort(w, f->nwaits, sizeof(*w), by_delay);
	uint64_t **taken = vtr_xcalloc(nl ? nl : 1, sizeof(*taken));
	for (size_t i = 0; i < f->nwaits;) {
		struct plan *p = &x->p[w[i].pattern];
		if (!p->cuts) {
			p->cuts = vtr_xcalloc(nl ? nl : 1, sizeof(*p->cuts));
			p->ncuts = vtr_xcalloc(nl ? nl : 1, sizeof(*p->ncuts));
			p->capcuts = vtr_xcalloc(nl ? nl : 1, sizeof(*p->capcuts));
			for (size_t k = 0; k < nl; k++) {
				free(taken[k]);
				taken[k] = NULL;
			}
		}
		/* One delay: its waits, the shortest of them. */
		size_t j = i;
		uint64_t shortest = UINT64_MAX;
		for (; j < f->nwaits && w[j].pattern == w[i].pattern &&
		       w[j].delayer == w[i].delayer && w[j].end == w[i].end;
		     j++) {
			uint64_t len = w[j].end - w[j].begin;
			p->waits++;
			p->wait_ticks += len;
			if (len < shortest)
				shortest = len;
		}
		uint32_t d = w[i].delayer;
		if (!taken[d])
			taken[d] = vtr_xcalloc(f->lines[d].n ? f->lines[d].n : 1, sizeof(**taken));
		p->delays++;
		p->planned += balance(p, f, d, w[i].end, shortest, taken[d]);
		i = j;
	}
	for (size_t k = 0; k < nl; k++)
		free(taken[k]);
	free(taken);
	free(w);
	/* Each location's cuts in time order, those of one event as one. */
	for (int pi = 0; pi < VT_WAIT_PATTERNS; pi++) {
		struct plan *p = &x->p[pi];
		for (size_t k = 0; p->cuts && k < nl; k++) {
			qsort(p->cuts[k], p->ncuts[k], sizeof(**p->cuts), by_time);
			size_t n = 0;
			for (size_t i = 0; i < p->ncuts[k]; i++) {
				if (n && p->cuts[k][n - 1].o == p->cuts[k][i].o)
					p->cuts[k][n - 1].amount += p->cuts[k][i].amount;
				else
					p->cuts[k][n++] = p->cuts[k][i];
			}
			p->ncuts[k] = n;
		}
	}
}

/* The run replayed: from the trace's start to the last event of any location (its end
 * would keep each location's time after its last event, which a balanced rank ends early). */
static uint64_t length(const struct vts_replay_result *r)
{
	return r->after.any ? r->after.last - r->after.first : 0;
}

static int replay(const char *in, struct vtr_trace *tr, const struct plan *p,
		  struct vts_replay_result *res)
{
	struct vts_spool spool;
	vts_spool_init(&spool, tr->nlocations);
	int rc = vts_replay(in, tr, NULL, 0, p ? (const struct vts_cut *const *)p->cuts : NULL,
			    p ? p->ncuts : NULL, &spool, res);
	vts_spool_free(&spool);
	return rc;
}

/* The patterns the critical path's waits have (the others are not replayed). */
static bool explained(int p)
{
	return p == VT_WAIT_LATE_SENDER || p == VT_WAIT_BARRIER || p == VT_WAIT_NXN ||
	       p == VT_WAIT_LATE_BCAST || p == VT_WAIT_EARLY_REDUCE;
}

static void report_text(FILE *out, const char *in, const struct vtr_trace *tr, uint64_t base,
			const struct explain *x)
{
	double s = tr->resolution ? 1.0 / (double)tr->resolution : 1.0;
	fprintf(out,
		"vt-sim: the wait states of %s, replayed with the delaying computation "
		"balanced\nrun: %.6f s to its last event (the trace: %.6f s)\n\n",
		in, (double)base * s, (double)tr->length * s);
	fprintf(out, "%-24s %7s %12s %7s %12s %13s %12s %8s\n", "pattern", "waits", "waiting (s)",
		"delays", "balanced (s)", "predicted (s)", "shorter (s)", "of run");
	for (int i = 0; i < VT_WAIT_PATTERNS; i++) {
		const struct plan *p = &x->p[i];
		if (!explained(i))
			continue;
		fprintf(out, "%-24s %7" PRIu64 " %12.6f %7" PRIu64, vt_prof_wait_names[i], p->waits,
			(double)p->wait_ticks * s, p->delays);
		if (!p->replayed) {
			fprintf(out, " %12s %13s %12s %8s\n", "-", "-", "-", "-");
			continue;
		}
		uint64_t shorter = base > length(&p->res) ? base - length(&p->res) : 0;
		fprintf(out, " %12.6f %13.6f %12.6f %7.2f%%\n", (double)p->res.cut * s,
			(double)length(&p->res) * s, (double)shorter * s,
			base ? 100.0 * (double)shorter / (double)base : 0);
	}
	fputs("\n(Wrong Order, Late Receiver and OpenMP barrier waits are not replayed; "
	      "see docs/sim.md.)\n",
	      out);
}

static void report_json(FILE *out, const char *in, const struct vtr_trace *tr, uint64_t base,
			const struct explain *x)
{
	fputs("{\n  \"trace\": ", out);
	vtr_json_string(out, in);
	fprintf(out,
		",\n  \"timer_resolution\": %" PRIu64 ",\n  \"length_ticks\": %" PRIu64
		",\n  \"run_ticks\": %" PRIu64 ",\n  \"patterns\": [",
		tr->resolution, tr->length, base);
	bool first = true;
	for (int i = 0; i < VT_WAIT_PATTERNS; i++) {
		const struct plan *p = &x->p[i];
		if (!explained(i))
			continue;
		uint64_t predicted = p->replayed ? length(&p->res) : base;
		fprintf(out,
			"%s\n    {\"pattern\": \"%s\", \"name\": \"%s\", \"waits\": %" PRIu64
			", \"wait_ticks\": %" PRIu64 ", \"delays\": %" PRIu64
			", \"planned_ticks\": %" PRIu64 ", \"balanced_ticks\": %" PRIu64
			", \"predicted_ticks\": %" PRIu64 ", \"shorter_ticks\": %" PRIu64 "}",
			first ? "" : ",", vt_prof_wait_keys[i], vt_prof_wait_names[i], p->waits,
			p->wait_ticks, p->delays, p->planned, p->replayed ? p->res.cut : 0,
			predicted, base > predicted ? base - predicted : 0);
		first = false;
	}
	fputs("\n  ]\n}\n", out);
}

int vts_explain(const char *in, struct vtr_trace *tr, bool json, FILE *out)
{
	struct explain x = {.tr = tr};
	char err[512];
	uint64_t problems = 0;
	if (vt_prof_critpath_waits(tr, stderr, on_found, &x, &problems, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s: %s\n", vts_prog, in, err);
		return 1;
	}
	struct vts_replay_result base;
	int rc = replay(in, tr, NULL, &base) < 0 ? 1 : 0;
	for (int i = 0; i < VT_WAIT_PATTERNS && rc == 0; i++) {
		struct plan *p = &x.p[i];
		if (!explained(i) || !p->waits)
			continue;
		if (replay(in, tr, p, &p->res) < 0)
			rc = 1;
		else
			p->replayed = true;
	}
	if (rc == 0) {
		if (json)
			report_json(out, in, tr, length(&base), &x);
		else
			report_text(out, in, tr, length(&base), &x);
		vts_result_free(&base);
	}
	for (int i = 0; i < VT_WAIT_PATTERNS; i++) {
		struct plan *p = &x.p[i];
		for (size_t k = 0; p->cuts && k < tr->nlocations; k++)
			free(p->cuts[k]);
		free(p->cuts);
		free(p->ncuts);
		free(p->capcuts);
		if (p->replayed)
			vts_result_free(&p->res);
	}
	if (rc == 0 && problems)
		fprintf(stderr,
			"%s: warning: %s: %" PRIu64 " unmatched message(s) or collective(s), "
			"their waits unknown\n",
			vts_prog, in, problems);
	return rc;
}
