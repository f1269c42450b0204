/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile-mpi --waits, --critical-path and --mpi on N processes: the exchanges over MPI. */
#include "cpath_split.h"
#include "mpi_stats.h"
#include "vtr_cli.h"
#include "waits_split.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* Whether any process says yes. */
static bool any(bool mine)
{
	int in = mine, out = 0;
	MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return out != 0;
}

static uint64_t sum(uint64_t mine)
{
	unsigned long long in = mine, out = 0;
	MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	return out;
}

/* Whether any process failed; the failure told once: process 0's, else each failed one's. */
static bool failed(bool bad, const char *path, const char *err)
{
	int me, first = bad;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Bcast(&first, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (bad && (me == 0 || !first))
		fprintf(stderr, "vt-profile: %s: %s\n", path, err);
	return any(bad);
}

/* Byte counts of MPI calls are ints: more than 2 GiB in one exchange ends the tool. */
static int bytes_of(size_t n, size_t size)
{
	if (n > (size_t)INT_MAX / size) {
		fprintf(stderr,
			"vt-profile: more than %d bytes of records for one process; use "
			"more processes\n",
			INT_MAX);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return (int)(n * size);
}

static int *displs_of(const int *counts, int n, size_t *total)
{
	int *d = vtr_xcalloc((size_t)n + 1, sizeof(int));
	size_t t = 0;
	for (int i = 0; i < n; i++) {
		d[i] = bytes_of(t, 1);
		t += (size_t)counts[i];
	}
	bytes_of(t, 1);
	*total = t;
	return d;
}

/* Every process's items (size bytes each) to every process: its own, and *n of all. */
static void *allgather(const void *mine, size_t n, size_t size, int nprocs, size_t *counts)
{
	int c = bytes_of(n, size);
	int *cs = vtr_xcalloc((size_t)nprocs, sizeof(int));
	MPI_Allgather(&c, 1, MPI_INT, cs, 1, MPI_INT, MPI_COMM_WORLD);
	size_t total;
	int *d = displs_of(cs, nprocs, &total);
	char *all = vtr_xcalloc(total + 1, 1);
	MPI_Allgatherv(mine, c, MPI_BYTE, all, cs, d, MPI_BYTE, MPI_COMM_WORLD);
	for (int i = 0; i < nprocs; i++)
		counts[i] = (size_t)cs[i] / size;
	free(cs);
	free(d);
	return all;
}

/* Items (size bytes) to the processes dest[i] says, freed once packed (the exchange holds
 * two copies at most); what comes here, *got of them. */
static void *alltoall(void *items, size_t n, size_t size, const uint32_t *dest, int nprocs,
		      size_t *got)
{
	int *sc = vtr_xcalloc((size_t)nprocs, sizeof(int));
	int *rc = vtr_xcalloc((size_t)nprocs, sizeof(int));
	size_t *fill = vtr_xcalloc((size_t)nprocs + 1, sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		sc[dest[i]] = bytes_of((size_t)sc[dest[i]] / size + 1, size);
	size_t stotal, rtotal;
	int *sd = displs_of(sc, nprocs, &stotal);
	char *out = vtr_xcalloc(stotal + 1, 1);
	for (size_t i = 0; i < n; i++) {
		memcpy(out + sd[dest[i]] + fill[dest[i]], (const char *)items + i * size, size);
		fill[dest[i]] += size;
	}
	free(items);
	MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
	int *rd = displs_of(rc, nprocs, &rtotal);
	char *in = vtr_xcalloc(rtotal + 1, 1);
	MPI_Alltoallv(out, sc, sd, MPI_BYTE, in, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
	*got = rtotal / size;
	free(sc);
	free(rc);
	free(sd);
	free(rd);
	free(fill);
	free(out);
	return in;
}

/* Every process's items (size bytes each) at process 0: there all of them (*total bytes, its
 * own first; counts[i]: process i's bytes), elsewhere an empty buffer. */
static void *gather0(const void *mine, size_t n, size_t size, int nprocs, int **counts,
		     size_t *total)
{
	int me, bytes = bytes_of(n, size);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	int *cs = vtr_xcalloc((size_t)nprocs, sizeof(int));
	MPI_Gather(&bytes, 1, MPI_INT, cs, 1, MPI_INT, 0, MPI_COMM_WORLD);
	*total = 0;
	int *d = me ? NULL : displs_of(cs, nprocs, total);
	char *got = vtr_xcalloc(*total + 1, 1);
	MPI_Gatherv(mine, bytes, MPI_BYTE, got, cs, d, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(d);
	*counts = cs;
	return got;
}

/* --mpi after the reading: every process's sums added up at process 0, which prints them;
 * the exit status (every process's). */
static int mpi_report(struct vt_prof_mpi_stats *m, struct waits *w, const struct vt_prof_trace *tr,
		      const struct vt_prof_options *opt, int nprocs)
{
	int me, status = 0, *cs;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	size_t np, total;
	const struct vt_prof_mpi_pair *mine = vt_prof_mpi_pairs(m, &np);
	struct vt_prof_mpi_pair *pairs = gather0(mine, np, sizeof(*mine), nprocs, &cs, &total);
	/* Process 0's own are in already. */
	for (size_t i = (size_t)cs[0] / sizeof(*pairs); i < total / sizeof(*pairs); i++)
		vt_prof_mpi_add_pair(m, &pairs[i]);
	free(pairs);
	free(cs);
	struct vt_prof_mpi_kind *kinds =
	    gather0(vt_prof_mpi_kinds(m), VT_PROF_MPI_KINDS, sizeof(*kinds), nprocs, &cs, &total);
	for (size_t i = VT_PROF_MPI_KINDS; i < total / sizeof(*kinds); i++)
		vt_prof_mpi_add_kind(m, i % VT_PROF_MPI_KINDS, &kinds[i]);
	free(kinds);
	free(cs);
	uint64_t problems = sum(*vt_prof_waits_problems(w));
	uint64_t stack = sum(vt_prof_waits_stack_problems(w));
	if (!me) {
		vt_prof_mpi_print(m, tr, opt, stdout, problems);
		status = problems + stack ? 1 : 0;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "vt-profile: cannot write the report: %s\n",
				strerror(errno));
			status = 2;
		}
	}
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return status;
}

/* The exchanges while the processes read (waits_split.h): the records since the last one to
 * their owners; the next bound, the least every process proposes: its time now and a span
 * that would have brought about window records from it in the last one. */
struct exchange {
	struct vt_prof_wsplit *sp;
	struct waits *w;
	int nprocs;
	uint64_t window, span, rounds, records;
};

static long long clamp(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (long long)v;
}

static uint64_t unclamp(long long v)
{
	return v == INT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static void exchange(void *user, uint64_t now)
{
	struct exchange *x = user;
	size_t nm, nc, gm, gc;
	struct vt_prof_wmsg *m = vt_prof_wsplit_take_msgs(x->sp, &nm);
	struct vt_prof_wcoll *c = vt_prof_wsplit_take_colls(x->sp, &nc);
	uint32_t *dest = vtr_xcalloc((nm > nc ? nm : nc) + 1, sizeof(*dest));
	for (size_t i = 0; i < nm; i++)
		dest[i] = vt_prof_wsplit_msg_dest(x->sp, &m[i]);
	struct vt_prof_wmsg *inm = alltoall(m, nm, sizeof(*m), dest, x->nprocs, &gm);
	for (size_t i = 0; i < nc; i++)
		dest[i] = vt_prof_wsplit_coll_dest(x->sp, &c[i]);
	struct vt_prof_wcoll *inc = alltoall(c, nc, sizeof(*c), dest, x->nprocs, &gc);
	free(dest);
	uint64_t n = nm + nc;
	x->records += n;
	x->rounds++;
	if (n > x->window)
		x->span = (uint64_t)((unsigned __int128)x->span * x->window / n);
	else if (2 * n < x->window && x->span < UINT64_MAX / 4)
		x->span *= 2;
	if (!x->span)
		x->span = 1;
	/* Every process has read up to the least of their times now (the watermark); the next
	 * bound. As signed values (MPICH's MPI_MIN of unsigned 64-bit values gave the largest):
	 * INT64_MAX for a process that has read everything. */
	long long mine[2] = {clamp(now),
			     clamp(now > UINT64_MAX - x->span ? UINT64_MAX : now + x->span)},
		  least[2];
	MPI_Allreduce(mine, least, 2, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
	vt_prof_wsplit_ingest(x->sp, x->w, inm, gm, inc, gc, unclamp(least[0]));
	free(inm);
	free(inc);
	vt_prof_wsplit_set_bound(x->sp, unclamp(least[1]));
}

/* One step of --critical-path in rounds: make's items (about window at a time) to their
 * processes, handed to take there, until no process has more. */
typedef struct vt_prof_cpitem *(*cp_make)(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
					  uint32_t **dest);
typedef void (*cp_take)(struct vt_prof_cpsplit *cs, const struct vt_prof_cpitem *x, size_t n);

static void cp_rounds(struct vt_prof_cpsplit *cs, size_t window, int nprocs, cp_make make,
		      cp_take take)
{
	for (;;) {
		size_t n, got;
		uint32_t *dest;
		struct vt_prof_cpitem *x = make(cs, window, &n, &dest);
		struct vt_prof_cpitem *in = alltoall(x, n, sizeof(*x), dest, nprocs, &got);
		free(dest);
		take(cs, in, got);
		free(in);
		if (!any(n > 0))
			return;
	}
}

static struct vt_prof_cpitem *no_spans(struct vt_prof_cpsplit *cs, size_t max, size_t *n,
				       uint32_t **dest)
{
	(void)cs;
	(void)max;
	*n = 0;
	*dest = vtr_xcalloc(1, sizeof(**dest));
	return vtr_xcalloc(1, sizeof(struct vt_prof_cpitem));
}

static void no_summary(struct vt_prof_cpsplit *cs, const struct vt_prof_cpitem *x, size_t n)
{
	(void)cs;
	(void)x;
	(void)n;
}

/* --critical-path after the reading (cpath_split.h): its rounds; process 0 prints. */
static int critpath_rounds(struct vt_prof_cpsplit *cs, const struct vt_prof_trace *tr,
			   const struct vt_prof_options *opt, const struct vt_prof_paths *paths,
			   const uint32_t *map, uint64_t problems, int nprocs)
{
	int me;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	size_t window = opt->window ? opt->window : VT_PROF_WINDOW;
	/* 1. Synchronisation points and waits to the waiters' processes. */
	cp_rounds(cs, window, nprocs, vt_prof_cpsplit_found, vt_prof_cpsplit_take_found);
	vt_prof_cpsplit_globalize(cs, map);
	/* 2. The waiters' tallies to the delayers' processes: the delay costs. */
	cp_rounds(cs, window, nprocs, vt_prof_cpsplit_tallies, vt_prof_cpsplit_costs);
	/* 3. Every line's ends and every wait to process 0, which walks the path. */
	cp_rounds(cs, window, nprocs, vt_prof_cpsplit_summary,
		  me ? no_summary : vt_prof_cpsplit_take_summary);
	uint64_t length = 0;
	size_t followed = 0;
	if (!me)
		vt_prof_cpsplit_walk(cs, &length, &followed);
	/* 4. The spans to their locations' processes; the sums to process 0. */
	cp_rounds(cs, window, nprocs, me ? no_spans : vt_prof_cpsplit_span_out,
		  vt_prof_cpsplit_spans);
	size_t n, got;
	struct vt_prof_cp_sum *sums = vt_prof_cpsplit_sums(cs, &n);
	struct vt_prof_cp_sum *copy = vtr_xcalloc(n + 1, sizeof(*copy));
	memcpy(copy, sums, n * sizeof(*copy));
	uint32_t *dest = vtr_xcalloc(n + 1, sizeof(*dest));
	struct vt_prof_cp_sum *all = alltoall(copy, n, sizeof(*copy), dest, nprocs, &got);
	free(dest);
	int status = 0;
	if (!me) {
		size_t ncosts;
		n = vt_prof_cpsplit_merge(all, got, &ncosts);
		vt_prof_critpath_print(tr, opt, stdout, paths, all, ncosts, all + ncosts,
				       n - ncosts, length, followed, problems);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "vt-profile: cannot write the report: %s\n",
				strerror(errno));
			status = 2;
		}
	}
	free(all);
	return status;
}

int vt_prof_waits_mpi(const char *path, const struct vt_prof_options *opt)
{
	int me, nprocs;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (me)
		vtr_progress_setup(true); /* one progress line: process 0's */
	struct vt_prof_trace tr = {.path = path};
	struct vtr_trace *t = vtr_xcalloc(1, sizeof(*t));
	tr.layer = t;
	int status = 2;
	bool bad = vtr_open(t, path) < 0;
	if (failed(bad, path, t->err)) {
		if (!bad)
			vtr_close(t);
		free(t);
		return status;
	}
	tr.timer_resolution = t->resolution;
	struct vt_prof_wsplit *sp = vt_prof_wsplit_new(t, (uint32_t)me, (uint32_t)nprocs);
	t->only = vt_prof_wsplit_share(sp);
	t->no_match = true;
	struct waits *w = vt_prof_waits_new(t, stderr, sp);
	struct vt_prof_cpsplit *cp = opt->critpath ? vt_prof_cpsplit_new(t, sp, w) : NULL;
	struct vt_prof_mpi_stats *mpi = opt->mpi ? vt_prof_mpi_new(t) : NULL;
	if (mpi) /* --mpi: the matched messages and collectives as the owners compute them */
		vt_prof_wsplit_on_cp(sp, vt_prof_mpi_split_callbacks(), mpi);

	/* 1. Each process reads its share, the records going to their owners as it goes; the
	 * first exchange at its first event, the span to the next one a 256th of the trace. */
	struct exchange x = {.sp = sp,
			     .w = w,
			     .nprocs = nprocs,
			     .window = opt->window ? opt->window : VT_PROF_WINDOW,
			     .span = t->length / 256};
	vt_prof_wsplit_on_round(sp, exchange, &x, x.window);
	bad = (cp ? vt_prof_cpsplit_read(cp) : vt_prof_waits_read(w)) < 0;
	uint64_t events = vtr_last_stats()->events;
	while (vt_prof_wsplit_bound(sp) != UINT64_MAX)
		exchange(&x, UINT64_MAX);
	vt_prof_wsplit_finish(sp, w);
	if (failed(bad, path, t->err))
		goto out;
	if (!sum(events)) {
		if (!me)
			fprintf(stderr, "vt-profile: %s: the trace has no events\n", path);
		goto out;
	}
	if (mpi) {
		/* --mpi: no call paths; the sums at process 0. */
		status = mpi_report(mpi, w, &tr, opt, nprocs);
		goto out;
	}

	/* 2. The call paths numbered as the serial reading numbers them, everywhere. */
	size_t np;
	const struct vt_prof_wpath *mine = vt_prof_wsplit_paths(sp, &np);
	size_t *counts = vtr_xcalloc((size_t)nprocs, sizeof(size_t));
	struct vt_prof_wpath *all = allgather(mine, np, sizeof(*mine), nprocs, counts);
	const struct vt_prof_wpath **each = vtr_xcalloc((size_t)nprocs, sizeof(*each));
	for (int i = 0, at = 0; i < nprocs; at += (int)counts[i], i++)
		each[i] = all + at;
	struct vt_prof_paths global = {0};
	uint32_t *map;
	vt_prof_wsplit_globalize(sp, each, counts, (uint32_t)nprocs, &global, &map);
	vt_prof_waits_renumber(w, sp, &global);
	free(all);
	free(each);
	free(counts);
	if (cp) {
		/* 3. The critical path's rounds, the unmatched as --waits counts them. */
		uint64_t problems = sum(*vt_prof_waits_problems(w));
		uint64_t stack = sum(vt_prof_waits_stack_problems(w));
		status =
		    critpath_rounds(cp, &tr, opt, vt_prof_waits_paths(w), map, problems, nprocs);
		if (!status)
			status = problems + stack ? 1 : 0;
		free(map);
		MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
		goto out;
	}
	free(map);

	/* 3. The sums at process 0, which prints them. */
	size_t ncells, total;
	int *cs;
	const struct vt_prof_wcell *cells = vt_prof_waits_cells(w, &ncells);
	struct vt_prof_wcell *got = gather0(cells, ncells, sizeof(*cells), nprocs, &cs, &total);
	uint64_t problems = sum(*vt_prof_waits_problems(w));
	uint64_t stack = sum(vt_prof_waits_stack_problems(w));
	if (!me) {
		/* Process 0's own are in already. */
		for (size_t i = (size_t)cs[0] / sizeof(*got); i < total / sizeof(*got); i++)
			vt_prof_waits_add(w, got[i].pattern, got[i].path, got[i].loc, got[i].comm,
					  got[i].time, got[i].count);
		*vt_prof_waits_problems(w) = problems;
		vt_prof_waits_print(w, &tr, opt, stdout);
		status = problems + stack ? 1 : 0;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "vt-profile: cannot write the report: %s\n",
				strerror(errno));
			status = 2;
		}
	}
	free(got);
	free(cs);
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
out:
	if (opt->stats) {
		/* At the end: --critical-path's rounds after the reading count too. */
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr,
			"vt-profile: process %d of %d: %" PRIu64 " records sent in %" PRIu64
			" exchanges, at most %zu held at once, peak RSS %ld KiB\n",
			me, nprocs, x.records, x.rounds, vt_prof_wsplit_peak(sp), ru.ru_maxrss);
	}
	if (cp)
		vt_prof_cpsplit_free(cp);
	vt_prof_mpi_free(mpi);
	vt_prof_waits_free(w);
	vt_prof_wsplit_free(sp);
	vtr_close(t);
	free(t);
	return status;
}
