/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim: replays an OTF2 trace through simulator plugins and writes the what-if trace. */
#include "vtr_cli.h"
#include "vts.h"

#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const vts_prog = "vt-sim";

#ifndef VT_VERSION
#define VT_VERSION "unknown"
#endif
#ifndef VT_SIM_DIR
#define VT_SIM_DIR "/usr/local/lib/vt/sim"
#endif

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: vt-sim IN.otf2 -s SIM[:k=v,...] [-s SIM2 ...] -o OUT.otf2 [-f] [-q]\n"
	    "       vt-sim --explain-waits [--format text|json] IN.otf2\n"
	    "Replays the trace IN through the simulators, in the order given, and writes the\n"
	    "what-if trace OUT: every definition and event of IN, the events re-timed.\n"
	    "  -s SIM[:k=v,...]  a simulator: a shipped name (identity, ideal, latbw, scale,\n"
	    "                    nonoise), a name found as libvt-sim-SIM.so in VT_SIM_PATH or\n"
	    "                    %s, or a path to a .so; parameters after ':'\n"
	    "  -o OUT.otf2       the output anchor file (OUT.def and OUT/ beside it)\n"
	    "  -f, --force       replace an existing OUT\n"
	    "  -q, --quiet       no before/after summary, no progress line on stderr\n"
	    "  --explain-waits   per wait-state pattern, the run's length replayed with the\n"
	    "                    delaying computation balanced (no output trace, no -s, -o)\n"
	    "  --format FMT      --explain-waits's output: text (default) or json\n"
	    "  -h, --help        this text;  --version  the version\n"
	    "Shipped simulators: identity; ideal (transfers take no time); latbw:L=s,B=bytes/s\n"
	    "(latency and bandwidth); scale:pattern=GLOB,factor=F (matching regions' exclusive\n"
	    "time times F); nonoise (non-tracing gaps removed). See docs/sim.md.\n",
	    VT_SIM_DIR);
}

/* ---- loading simulators ---- */

static char *find_sim(const char *name)
{
	char path[PATH_MAX];
	const char *env = getenv("VT_SIM_PATH");
	if (env && *env) {
		char *dirs = vtr_xstrdup(env), *save = NULL;
		for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			snprintf(path, sizeof(path), "%s/libvt-sim-%s.so", d, name);
			if (access(path, R_OK) == 0) {
				free(dirs);
				return vtr_xstrdup(path);
			}
		}
		free(dirs);
	}
	snprintf(path, sizeof(path), "%s/libvt-sim-%s.so", VT_SIM_DIR, name);
	if (access(path, R_OK) == 0)
		return vtr_xstrdup(path);
	return NULL;
}

static int load_sim(struct vts_sim *s, const char *spec)
{
	s->spec = spec;
	const char *colon = strchr(spec, ':');
	s->name = colon ? strndup(spec, (size_t)(colon - spec)) : vtr_xstrdup(spec);
	if (!*s->name) {
		fprintf(stderr, "%s: -s '%s': expected a simulator name or path before ':'\n",
			vts_prog, spec);
		return -1;
	}
	if (colon && colon[1]) {
		char *all = vtr_xstrdup(colon + 1), *save = NULL;
		for (char *p = strtok_r(all, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
			s->params = vtr_xrealloc(s->params, (size_t)s->nparams + 1, sizeof(char *));
			s->params[s->nparams++] = vtr_xstrdup(p);
		}
		free(all);
	}
	if (strchr(s->name, '/')) {
		s->path = vtr_xstrdup(s->name);
	} else if (!(s->path = find_sim(s->name))) {
		fprintf(stderr,
			"%s: simulator '%s': no libvt-sim-%s.so in VT_SIM_PATH (%s) or %s; give "
			"a shipped name or a path\n",
			vts_prog, s->name, s->name,
			getenv("VT_SIM_PATH") ? getenv("VT_SIM_PATH") : "", VT_SIM_DIR);
		return -1;
	}
	s->handle = dlopen(s->path, RTLD_NOW | RTLD_LOCAL);
	if (!s->handle) {
		fprintf(stderr, "%s: simulator '%s': cannot load %s: %s\n", vts_prog, s->name,
			s->path, dlerror());
		return -1;
	}
	vt_sim_plugin_fn *get = (vt_sim_plugin_fn *)dlsym(s->handle, VT_SIM_PLUGIN_SYMBOL);
	if (!get) {
		fprintf(stderr,
			"%s: simulator '%s': %s does not export %s(): not a vt-sim simulator "
			"(see docs/sim.md)\n",
			vts_prog, s->name, s->path, VT_SIM_PLUGIN_SYMBOL);
		return -1;
	}
	s->p = get();
	if (!s->p) {
		fprintf(stderr, "%s: simulator '%s': %s() returned NULL\n", vts_prog, s->name,
			VT_SIM_PLUGIN_SYMBOL);
		return -1;
	}
	if (s->p->abi_version < 1 || s->p->abi_version > VT_SIM_ABI_VERSION ||
	    s->p->size < offsetof(struct vt_sim_plugin, destroy) + sizeof(void *)) {
		fprintf(
		    stderr,
		    "%s: simulator '%s': ABI version %u, struct size %zu; this vt-sim loads ABI "
		    "versions 1..%d of at least %zu bytes\n",
		    vts_prog, s->name, s->p->abi_version, s->p->size, VT_SIM_ABI_VERSION,
		    offsetof(struct vt_sim_plugin, destroy) + sizeof(void *));
		return -1;
	}
	return 0;
}

/* ---- the simulators ---- */

int vts_sims_open(struct vts_simset *ss, const char *in, const struct vtr_trace *tr,
		  const char *const *specs, int nspecs)
{
	memset(ss, 0, sizeof(*ss));
	ss->n = nspecs;
	ss->cls = vts_classify(tr);
	const char **func_names = vtr_xcalloc(tr->nregions ? tr->nregions : 1, sizeof(char *));
	for (size_t r = 0; r < tr->nregions; r++)
		func_names[r] = tr->regions[r].defined ? tr->regions[r].name : "";
	const char **comm_names = vtr_xcalloc(tr->ncomms ? tr->ncomms : 1, sizeof(char *));
	for (size_t c = 0; c < tr->ncomms; c++)
		comm_names[c] = tr->comms[c].defined && tr->comms[c].name ? tr->comms[c].name : "";
	const char **thread_names =
	    vtr_xcalloc(tr->nlocations ? tr->nlocations : 1, sizeof(char *));
	for (size_t l = 0; l < tr->nlocations; l++)
		thread_names[l] = tr->locations[l].name;
	ss->func_names = func_names;
	ss->comm_names = comm_names;
	ss->thread_names = thread_names;
	struct vts_sim *sims = ss->sims = vtr_xcalloc((size_t)(nspecs ? nspecs : 1), sizeof(*sims));
	uint32_t *cls = ss->cls;
	int rc = 0;
	for (int i = 0; i < nspecs && rc == 0; i++) {
		struct vts_sim *s = &sims[i];
		if (load_sim(s, specs[i]) < 0) {
			rc = 1;
			break;
		}
		s->ctx = (struct vt_sim_context){
		    .size = sizeof(s->ctx),
		    .name = s->name,
		    .nparams = s->nparams,
		    .params = (const char *const *)s->params,
		    .input_path = in,
		    .trace_start = tr->offset,
		    .trace_end = tr->offset + tr->length,
		    .num_threads = (uint32_t)tr->nlocations,
		    .clock_resolution = tr->resolution ? 1.0 / (double)tr->resolution : 0,
		    .ncomms = (uint32_t)tr->ncomms,
		    .comm_names = comm_names,
		    .nfuncs = (uint32_t)tr->nregions,
		    .func_names = func_names,
		    .func_class = cls,
		    .thread_names = thread_names};
		vts_guard(s->name, "create");
		s->state = s->p->create ? s->p->create(&s->ctx) : s;
		vts_guard(NULL, NULL);
		if (!s->state) {
			fprintf(stderr,
				"%s: simulator '%s': create() failed (parameters: '%s'); no output "
				"written\n",
				vts_prog, s->name,
				strchr(s->spec, ':') ? strchr(s->spec, ':') + 1 : "");
			s->p = NULL;
			rc = 1;
		}
	}
	return rc;
}

void vts_sims_close(struct vts_simset *ss)
{
	for (int i = 0; i < ss->n; i++) {
		struct vts_sim *s = &ss->sims[i];
		if (s->p && s->p->destroy && s->state) {
			vts_guard(s->name, "destroy");
			s->p->destroy(s->state);
			vts_guard(NULL, NULL);
		}
		for (int k = 0; k < s->nparams; k++)
			free(s->params[k]);
		free(s->params);
		free(s->name);
		free(s->path);
		/* The libraries stay loaded: a simulator's atexit handlers may still run. */
	}
	free(ss->sims);
	free(ss->cls);
	free(ss->func_names);
	free(ss->comm_names);
	free(ss->thread_names);
}

/* ---- output: written under a temporary name, renamed once complete ---- */

#ifdef VTS_MPI
#define write_output vts_par_write /* each process its locations' event files */
#else
#define write_output(in, tr, spool, len, dir, name, why)                                           \
	vts_write(in, tr, spool, len, dir, name, NULL, why)
#endif

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the summary ---- */

struct change {
	uint32_t region;
	double before, after;
};

static int by_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	double dx = x->after - x->before, dy = y->after - y->before;
	dx = dx < 0 ? -dx : dx;
	dy = dy < 0 ? -dy : dy;
	return dx < dy ? 1 : dx > dy ? -1 : (x->region > y->region) - (x->region < y->region);
}

static void summary(const struct vtr_trace *tr, const struct vts_replay_result *res, const char *in,
		    const char *out, struct vts_sim *sims, int nsims)
{
	double s = tr->resolution ? 1.0 / (double)tr->resolution : 1.0;
	printf("vt-sim: %s -> %s through", in, out);
	for (int i = 0; i < nsims; i++)
		printf(" %s", sims[i].spec);
	printf("\n%" PRIu64 " events, %" PRIu64 " messages, %" PRIu64 " collectives replayed\n",
	       res->events, res->messages, res->collectives);
	double mb = 0, ma = 0;
	for (size_t i = 0; i < tr->nlocations; i++)
		mb += res->before.loc_mpi[i], ma += res->after.loc_mpi[i];
	printf("%-28s %14s %14s %8s\n", "", "before", "after", "ratio");
	double db = (double)(res->before.last - res->before.first),
	       da = (double)(res->after.last - res->after.first);
	printf("%-28s %14.6f %14.6f %8.3f\n", "duration (s)", db * s, da * s, db ? da / db : 0);
	printf("%-28s %14.6f %14.6f %8.3f\n", "time in MPI (s, all)", mb * s, ma * s,
	       mb ? ma / mb : 0);
	printf("load per location (s outside MPI / in MPI):\n");
	for (size_t i = 0; i < tr->nlocations; i++) {
		char name[29];
		snprintf(name, sizeof(name), "  %s %s", tr->locations[i].group_name,
			 tr->locations[i].name);
		printf("%-28s %6.4f/%-7.4f %6.4f/%-7.4f\n", name, res->before.loc_busy[i] * s,
		       res->before.loc_mpi[i] * s, res->after.loc_busy[i] * s,
		       res->after.loc_mpi[i] * s);
	}
	struct change *c = vtr_xcalloc(tr->nregions ? tr->nregions : 1, sizeof(*c));
	size_t n = 0;
	for (size_t r = 0; r < tr->nregions; r++)
		if (res->before.region_excl[r] != res->after.region_excl[r])
			c[n++] = (struct change){(uint32_t)r, res->before.region_excl[r],
						 res->after.region_excl[r]};
	qsort(c, n, sizeof(*c), by_change);
	printf("regions changed most (exclusive time, s):%s\n", n ? "" : " none");
	for (size_t i = 0; i < n && i < 5; i++) {
		char name[29];
		snprintf(name, sizeof(name), "  %s", tr->regions[c[i].region].name);
		printf("%-28s %14.6f %14.6f %+14.6f\n", name, c[i].before * s, c[i].after * s,
		       (c[i].after - c[i].before) * s);
	}
	free(c);
	if (res->metrics)
		printf("note: %" PRIu64 " metric events re-timed, their values unchanged\n",
		       res->metrics);
}

#ifdef VTS_MPI
int vts_main(int argc, char **argv) /* par.c's main runs it on process 0 */
#else
int main(int argc, char **argv)
#endif
{
	const char *in = NULL, *out = NULL;
	const char **specs = NULL;
	int nspecs = 0;
	bool force = false, quiet = false, verbose = false, explain = false, json = false,
	     format = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("vt-sim %s (simulator ABI %d)\n", VT_VERSION, VT_SIM_ABI_VERSION);
			return 0;
		} else if (!strcmp(a, "-s") || !strcmp(a, "-o")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: %s: expected an argument\n", vts_prog, a);
				return 2;
			}
			if (a[1] == 's') {
				specs = vtr_xrealloc(specs, (size_t)nspecs + 1, sizeof(*specs));
				specs[nspecs++] = argv[++i];
			} else {
				out = argv[++i];
			}
		} else if (!strcmp(a, "--explain-waits")) {
			explain = true;
		} else if (!strcmp(a, "--format")) {
			if (i + 1 >= argc ||
			    (strcmp(argv[i + 1], "text") && strcmp(argv[i + 1], "json"))) {
				fprintf(stderr, "%s: --format: expected text or json, got '%s'\n",
					vts_prog, i + 1 < argc ? argv[i + 1] : "");
				return 2;
			}
			json = !strcmp(argv[++i], "json");
			format = true;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
			force = true;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			verbose = true;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n", vts_prog, a);
			return 2;
		} else if (!in) {
			in = a;
		} else {
			fprintf(stderr, "%s: '%s': one input trace only (see --help)\n", vts_prog,
				a);
			return 2;
		}
	}
	vtr_cli_tool = vts_prog;
	vtr_progress_setup(quiet);
	if (explain || format) {
		if (!explain || !in || out || nspecs) {
			fprintf(stderr,
				"%s: %s goes with IN.otf2 alone, without -s and -o (see --help)\n",
				vts_prog, explain ? "--explain-waits" : "--format");
			return 2;
		}
		struct vtr_trace tr;
		if (vtr_open(&tr, in) < 0) {
			fprintf(stderr, "%s: %s: %s\n", vts_prog, in, tr.err);
			return 1;
		}
		int rc = vts_explain(in, &tr, json, stdout);
		vtr_close(&tr);
		free(specs);
		return rc;
	}
	if (!in || !out || !nspecs) {
		fprintf(stderr,
			"%s: expected IN.otf2, at least one -s SIM and -o OUT.otf2 (see "
			"--help)\n",
			vts_prog);
		return 2;
	}
	size_t ol = strlen(out);
	if (ol <= 5 || strcmp(out + ol - 5, ".otf2")) {
		fprintf(stderr, "%s: -o '%s': expected the output's anchor file name, NAME.otf2\n",
			vts_prog, out);
		return 2;
	}
	/* The output's directory and archive name, and what it would replace. */
	char *dir = vtr_xstrdup(out), *slash = strrchr(dir, '/');
	char *name;
	if (slash) {
		*slash = '\0';
		name = vtr_xstrdup(slash + 1);
		if (!*dir)
			strcpy(dir, "/");
	} else {
		free(dir);
		dir = vtr_xstrdup(".");
		name = vtr_xstrdup(out);
	}
	name[strlen(name) - 5] = '\0';
	char final_anchor[PATH_MAX], final_def[PATH_MAX], final_dir[PATH_MAX], final_mark[PATH_MAX];
	snprintf(final_anchor, sizeof(final_anchor), "%s/%s.otf2", dir, name);
	snprintf(final_def, sizeof(final_def), "%s/%s.def", dir, name);
	snprintf(final_dir, sizeof(final_dir), "%s/%s", dir, name);
	snprintf(final_mark, sizeof(final_mark), "%s/%s.marker", dir, name);
	if (!force && (exists(final_anchor) || exists(final_def) || exists(final_dir) ||
		       exists(final_mark))) {
		fprintf(stderr, "%s: %s: the output exists; remove it or give -f to replace it\n",
			vts_prog, out);
		return 1;
	}

	struct vtr_trace tr;
	if (vtr_open(&tr, in) < 0) {
		fprintf(stderr, "%s: %s: %s\n", vts_prog, in, tr.err);
		return 1;
	}
	struct vts_simset ss;
	int rc = vts_sims_open(&ss, in, &tr, specs, nspecs);
	struct vts_sim *sims = ss.sims;
	struct vts_spool spool;
	struct vts_replay_result res;
	vts_spool_init(&spool, tr.nlocations);
	double t0 = now(), t1 = t0, t2 = t0;
#ifdef VTS_MPI
	vts_par_want_split_write();
#endif
	if (rc == 0 && vts_replay(in, &tr, sims, nspecs, NULL, NULL, &spool, &res) < 0)
		rc = 1;
	t1 = now();
	if (rc == 0) {
		char tmp[PATH_MAX], why[VTS_ERR];
		snprintf(tmp, sizeof(tmp), "%s/.vt-sim-XXXXXX", dir);
		if (!mkdtemp(tmp)) {
			snprintf(why, sizeof(why), "cannot create a temporary directory in %s: %s",
				 dir, strerror(errno));
			rc = 1;
		} else if (write_output(in, &tr, &spool, res.new_length, tmp, name, why) < 0) {
			rc = 1;
		} else {
			char a[PATH_MAX + 64], d[PATH_MAX + 64], t[PATH_MAX + 64],
			    mk[PATH_MAX + 64];
			snprintf(a, sizeof(a), "%s/%s.otf2", tmp, name);
			snprintf(d, sizeof(d), "%s/%s.def", tmp, name);
			snprintf(t, sizeof(t), "%s/%s", tmp, name);
			snprintf(mk, sizeof(mk), "%s/%s.marker", tmp, name);
			if (force) {
				remove(final_anchor);
				remove(final_def);
				remove(final_mark);
				rm_tree(final_dir);
			}
			/* The anchor last: until it is there, there is no trace. */
			if (rename(t, final_dir) || rename(d, final_def) ||
			    (exists(mk) && rename(mk, final_mark)) || rename(a, final_anchor)) {
				snprintf(why, sizeof(why), "cannot move the output in place: %s",
					 strerror(errno));
				remove(final_anchor);
				remove(final_def);
				remove(final_mark);
				rm_tree(final_dir);
				rc = 1;
			}
		}
		if (rc) /* one line: what failed, then that nothing was written */
			fprintf(stderr, "%s: %s: %s; no output written\n", vts_prog, out, why);
		rm_tree(tmp);
		t2 = now();
	}
#ifdef VTS_MPI
	vts_par_skip(); /* the other processes wait for a writing that will not come */
#endif
	if (rc == 0 && verbose) {
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr,
			"%s: replay: %" PRIu64 " events in %.3f s (%.2f M events/s); write: %.3f s "
			"(%.2f M events/s); at most %zu events waiting on a location, %zu messages "
			"open; peak memory %.1f MiB",
			vts_prog, res.events, t1 - t0, res.events / (t1 - t0) / 1e6, t2 - t1,
			res.events / (t2 - t1) / 1e6, res.max_queued, res.max_open_messages,
			ru.ru_maxrss / 1024.0);
		if (res.procs)
			fprintf(stderr, " (process 0's); replayed on %u processes", res.procs);
#ifdef VTS_MPI
		if (vts_par_writers())
			fprintf(stderr, "; written by %u processes", vts_par_writers());
#endif
		fputc('\n', stderr);
	}
	if (rc == 0 && !quiet)
		summary(&tr, &res, in, out, sims, nspecs);
	vts_sims_close(&ss);
	if (rc == 0)
		vts_result_free(&res);
	vts_spool_free(&spool);
	free(specs);
	free(dir);
	free(name);
	vtr_close(&tr);
	return rc;
}
