/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-info: vt's version, its timer and every variable in force, or what a plugin offers. */
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "metrics/vt_metric_rusage.h"
#ifdef VT_HAVE_SDE
#include "vt_info_sde.h"
#endif
#include "metrics/vt_plugin_load.h"

#include <getopt.h>
#ifdef VT_HAVE_PAPI
#include <papi.h>
#endif
#include <inttypes.h>
#include <otf2/OTF2_Definitions.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *type_name(const struct vt_cfg_entry *e)
{
	switch (e->type) {
	case VT_CFG_BOOL:
		return "yes/no";
	case VT_CFG_SIZE:
		return "size";
	case VT_CFG_INT:
		return "integer";
	case VT_CFG_STRING:
		return "string";
	case VT_CFG_ENUM:
		return "choice";
	case VT_CFG_DURATION:
		return "duration";
	}
	return "?";
}

/* The table of docs/environment.md, made from the same table the runtime parses. */
static void print_doc(void)
{
	size_t n;
	const struct vt_cfg_entry *t = vt_config_table(&n);
	printf("| variable | type | default | example | meaning |\n");
	printf("|---|---|---|---|---|\n");
	for (size_t i = 0; i < n; i++) {
		char range[96] = "";
		if (t[i].type == VT_CFG_INT)
			snprintf(range, sizeof(range), " (%ld to %ld)", t[i].min, t[i].max);
		if (t[i].type == VT_CFG_ENUM) {
			size_t k = (size_t)snprintf(range, sizeof(range), " (");
			for (int c = 0; t[i].choices[c] && k < sizeof(range); c++)
				k += (size_t)snprintf(range + k, sizeof(range) - k, "%s%s",
						      c ? ", " : "", t[i].choices[c]);
			if (k < sizeof(range))
				snprintf(range + k, sizeof(range) - k, ")");
		}
		printf("| `%s` | %s%s | %s | `%s` | %s |\n", t[i].name, type_name(&t[i]), range,
		       t[i].def ? t[i].def : "(unset)", t[i].example, t[i].help);
	}
}

/* The clock asynchronous plugins timestamp with: vt's own, as in a traced run. */
static uint64_t plugin_wtime(void)
{
	return vt_clock_now();
}

static int width(int w, const char *s)
{
	int n = (int)strlen(s);
	return n > w ? n : w;
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static const char *base_name(const struct vt_metric *m)
{
	return m->base == OTF2_BASE_BINARY ? "binary" : "decimal";
}

/* One table of the counters metrics[from, to) of p, named as the variables name them; each
 * column as wide as its widest cell, so that the lines read as a table and split on "  ". */
static void print_counters(const struct vt_plugin *p, size_t from, size_t to)
{
	bool sp = p->abi == VT_PLUGIN_ABI_SCOREP;
	char(*full)[600] = calloc(to - from + 1, sizeof(*full));
	char(*exp)[24] = calloc(to - from + 1, sizeof(*exp));
	int wn = (int)strlen(sp ? "metric" : "counter"), wu = 4, wm = 4, wt = 4, wb = 4, we = 8;
	if (!full || !exp)
		goto out;
	for (size_t i = from; i < to; i++) {
		const struct vt_metric *m = &p->src.metrics[i];
		/* VT_PLUGIN_CNTR_METRICS wants LIB_name; SCOREP_METRIC_<LIB> the name. */
		snprintf(full[i - from], sizeof(full[0]), "%s%s%s", sp ? "" : p->src.name,
			 sp ? "" : "_", m->name);
		snprintf(exp[i - from], sizeof(exp[0]), "%" PRId64, m->exponent);
		wn = width(wn, full[i - from]);
		wu = width(wu, or_dash(m->unit));
		wm = width(wm, vt_plugin_mode_name(m->mode));
		wt = width(wt, vt_plugin_type_name(m));
		wb = width(wb, base_name(m));
		we = width(we, exp[i - from]);
	}
	if (sp)
		printf("  %-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", wn, "metric", wu, "unit", wm,
		       "mode", wt, "type", wb, "base", we, "exponent", "description");
	else
		printf("  %-*s  %-*s  %-*s  %s\n", wn, "counter", wu, "unit", wm, "mode", "type");
	for (size_t i = from; i < to; i++) {
		const struct vt_metric *m = &p->src.metrics[i];
		if (sp)
			printf("  %-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", wn, full[i - from], wu,
			       or_dash(m->unit), wm, vt_plugin_mode_name(m->mode), wt,
			       vt_plugin_type_name(m), wb, base_name(m), we, exp[i - from],
			       or_dash(m->description));
		else
			printf("  %-*s  %-*s  %-*s  %s\n", wn, full[i - from], wu, or_dash(m->unit),
			       wm, vt_plugin_mode_name(m->mode), vt_plugin_type_name(m));
	}
out:
	free(full);
	free(exp);
}

/*
 * vt-info --plugins: loads libNAME.so as a traced program would (VT_PLUGIN_CNTR_PATH, the
 * loader's checks and messages), prints what it is and the counters each pattern stands
 * for, and finalizes it. 0, or 1 when it does not load or a pattern offers nothing.
 */
static int list_plugin(const char *name, bool scorep, char **patterns, int n_patterns)
{
	static char *all[] = {"*"};
	enum vt_plugin_abi abi = VT_PLUGIN_ABI_VT;
	int rc = 0;

	if (!scorep && vt_plugin_detect_abi(name, vt_cfg.plugin_path, &abi) < 0)
		abi = VT_PLUGIN_ABI_VT; /* vt_plugin_open says what is wrong */
	if (scorep)
		abi = VT_PLUGIN_ABI_SCOREP;
	vt_clock_init(vt_cfg.timer);
	struct vt_plugin *p = vt_plugin_open(name, abi, vt_cfg.plugin_path, plugin_wtime);
	if (!p)
		return 1;
	bool sp = abi == VT_PLUGIN_ABI_SCOREP;
	printf("plugin:     %s\n", p->src.name);
	printf("path:       %s\n", p->path);
	printf("interface:  %s, version %u\n",
	       sp ? "Score-P metric plugin" : "VampirTrace counter plugin", p->version);
	printf("%-11s %s\n", sp ? "sync:" : "synch:", vt_plugin_sync_name(p));
	printf("run_per:    %s\n", vt_plugin_per_name(p->src.per));
	if (sp)
		printf("delta_t:    %" PRIu64 "\n", p->src.delta_t);
	if (sp) {
		char upper[256];
		size_t k = 0;
		for (const char *c = name; *c && k < sizeof(upper) - 1; c++)
			upper[k++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
		upper[k] = '\0';
		printf("select:     SCOREP_METRIC_PLUGINS=%s "
		       "SCOREP_METRIC_%s=METRIC[,METRIC...]\n",
		       name, upper);
	} else {
		printf("select:     VT_PLUGIN_CNTR_METRICS=%s_COUNTER[:%s_COUNTER...]\n", name,
		       name);
		/* The text before the first '_' names the library. */
		if (strchr(name, '_'))
			fprintf(stderr,
				"vt-info: warning: VT_PLUGIN_CNTR_METRICS cannot name lib%s.so: "
				"the text before the first '_' of an entry is the library's name\n",
				name);
	}
	if (n_patterns == 0) {
		patterns = all;
		n_patterns = 1;
	}
	for (int i = 0; i < n_patterns; i++) {
		size_t from = p->src.n_metrics;
		size_t n = vt_plugin_expand(p, patterns[i]);
		printf("\n\"%s\": %zu %s%s\n", patterns[i], n, sp ? "metric" : "counter",
		       n == 1 ? "" : "s");
		if (n == 0)
			rc = 1; /* the loader has said why */
		else
			print_counters(p, from, p->src.n_metrics);
	}
	fflush(stdout);
	vt_plugin_close(p);
	return rc;
}

#ifdef VT_HAVE_PAPI
/* Whether PAPI can count the event here: added to a set of its own, started and stopped
 * once, as the runtime checks VT_METRICS. */
static bool countable(const char *name)
{
	int set = PAPI_NULL, rc = PAPI_create_eventset(&set);
	long long v[1];
	if (rc == PAPI_OK)
		rc = PAPI_add_named_event(set, name);
	if (rc == PAPI_OK && (rc = PAPI_start(set)) == PAPI_OK)
		rc = PAPI_stop(set, v);
	if (set != PAPI_NULL) {
		PAPI_cleanup_eventset(set);
		PAPI_destroy_eventset(&set);
	}
	return rc == PAPI_OK;
}

/* The PAPI events that can be counted here, presets then each component's native ones. */
static int list_papi(void)
{
	int v = PAPI_library_init(PAPI_VER_CURRENT);
	if (v != PAPI_VER_CURRENT) {
		printf("PAPI events (VT_METRICS): none; PAPI did not start (%s)\n",
		       v < 0 ? PAPI_strerror(v) : "another PAPI version");
		return 0;
	}
	printf("PAPI events that can be counted here (VT_METRICS):\n");
	int n = 0, code = PAPI_PRESET_MASK;
	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
		do {
			PAPI_event_info_t info;
			if (PAPI_get_event_info(code, &info) == PAPI_OK && info.count &&
			    countable(info.symbol)) {
				printf("  %-40s %s\n", info.symbol, info.long_descr);
				n++;
			}
		} while (PAPI_enum_event(&code, PAPI_PRESET_ENUM_AVAIL) == PAPI_OK);
	}
	for (int cid = 0; cid < PAPI_num_components(); cid++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(cid);
		code = PAPI_NATIVE_MASK;
		if (!ci || ci->disabled ||
		    PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cid) != PAPI_OK)
			continue;
		do {
			char name[PAPI_MAX_STR_LEN];
			if (PAPI_event_code_to_name(code, name) == PAPI_OK && countable(name)) {
				printf("  %s\n", name);
				n++;
			}
		} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cid) == PAPI_OK);
	}
	if (!n)
		printf("  (none)\n");
	PAPI_shutdown();
	return 0;
}
#else
static int list_papi(void)
{
	printf("PAPI events (VT_METRICS): none; vt-info was built without PAPI\n");
	return 0;
}
#endif

/* vt-info --metrics [FILE]: what VT_METRICS and VT_RUSAGE can record here, and the SDEs
 * FILE exports. */
static int list_metrics(const char *file)
{
	int rc = list_papi();
	size_t n;
	const struct vt_rusage_field *f = vt_metric_rusage_fields(&n);
	printf("\ngetrusage fields, per thread (VT_RUSAGE, or all):\n");
	for (size_t i = 0; i < n; i++)
		printf("  %-10s %-4s %s\n", f[i].name, f[i].unit, f[i].description);
	if (!file)
		return rc;
#ifdef VT_HAVE_SDE
	fflush(stdout);
	return vt_info_list_sde(file) ? 1 : rc;
#else
	fprintf(stderr,
		"vt-info: --metrics %s: vt-info was built without PAPI's sde_lib.h; it "
		"cannot list software-defined events\n",
		file);
	return 1;
#endif
}

static const char usage_text[] =
    "Usage: vt-info [--doc] [--help] [--version]\n"
    "       vt-info --plugins LIB [--scorep] [PATTERN...]\n"
    "       vt-info --metrics [PROGRAM-or-LIBRARY]\n"
    "Prints vt's version, the timer a traced program would use, and every\n"
    "VT_* variable with the value in force in this environment.\n"
    "  --doc          print the variables as the Markdown table of docs/environment.md\n"
    "  --plugins LIB  load the counter plugin libLIB.so as a traced program would\n"
    "                 (VT_PLUGIN_CNTR_PATH, then the library path), print its interface,\n"
    "                 synch type and run_per, and the counters each PATTERN (default\n"
    "                 \"*\") stands for, named as VT_PLUGIN_CNTR_METRICS wants them\n"
    "                 (LIB_counter); then call its finalize\n"
    "  --scorep       with --plugins: use the Score-P metric plugin interface\n"
    "                 (SCOREP_MetricPlugin_LIB_get_info); the default is the\n"
    "                 VampirTrace interface (get_info), or Score-P's when LIB has only\n"
    "                 that\n"
    "  --metrics      list the PAPI events that can be counted here (for VT_METRICS)\n"
    "                 and the getrusage fields (for VT_RUSAGE); with a program or\n"
    "                 library, also the PAPI software-defined events it exports, named\n"
    "                 as VT_METRICS wants them\n"
    "  --version      print the version\n"
    "Exit status: 0; 1 when a variable has a bad value, or the plugin does not load\n"
    "or a PATTERN stands for no counter (vt's error line says why); 2 on a usage error.\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"doc", no_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {"plugins", required_argument, NULL, 'p'},
	    {"scorep", no_argument, NULL, 's'},
	    {"version", no_argument, NULL, 'V'},
	    {"metrics", no_argument, NULL, 'm'},
	    {NULL, 0, NULL, 0},
	};
	const char *plugin = NULL;
	bool doc = false, scorep = false, metrics = false;
	int c;
	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			doc = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'p':
			plugin = optarg;
			break;
		case 's':
			scorep = true;
			break;
		case 'm':
			metrics = true;
			break;
		case 'V':
			printf("vt-info (vt) %s\n", VT_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (metrics && (doc || plugin || optind + 1 < argc)) {
		fprintf(stderr, "vt-info: --metrics goes alone, with at most one program or "
				"library\n");
		usage(stderr);
		return 2;
	}
	if (metrics)
		return list_metrics(optind < argc ? argv[optind] : NULL);
	if (doc && plugin) {
		fprintf(stderr, "vt-info: --doc and --plugins do not go together\n");
		usage(stderr);
		return 2;
	}
	if (scorep && !plugin) {
		fprintf(stderr, "vt-info: --scorep goes with --plugins LIB\n");
		usage(stderr);
		return 2;
	}
	if (plugin && (!*plugin || strchr(plugin, '/'))) {
		fprintf(stderr,
			"vt-info: --plugins wants a library's name LIB (for libLIB.so), "
			"not '%s'\n",
			plugin);
		usage(stderr);
		return 2;
	}
	if (doc && optind == argc) {
		print_doc();
		return 0;
	}
	if (!plugin && optind < argc) {
		fprintf(stderr, "vt-info: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (plugin) {
		/* The path comes from the table; a bad variable elsewhere still counts. */
		int bad = vt_config_load() < 0;
		int rc = list_plugin(plugin, scorep, argv + optind, argc - optind);
		return rc ? rc : bad;
	}

	int rc = vt_config_load() < 0 ? 1 : 0;
	vt_clock_init(vt_cfg.timer);
	/* A short calibration interval is enough to show the rate. */
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
	vt_clock_finish();

	printf("vt %s\n", VT_VERSION);
	printf("timer: %s (%s); invariant TSC: %s; %llu ticks per second\n", vt_clock_name(),
	       vt_clock_reason(), vt_clock_tsc_invariant() ? "yes" : "no",
	       (unsigned long long)vt_clock_resolution());
	printf("\nvariables in force:\n");
	size_t n;
	const struct vt_cfg_entry *t = vt_config_table(&n);
	for (size_t i = 0; i < n; i++) {
		char val[512];
		vt_config_format(&t[i], val, sizeof(val));
		const char *raw = vt_config_raw(&t[i]);
		printf("  %-20s %-16s %s\n", t[i].name, val, raw ? "(environment)" : "(default)");
	}
	return rc;
}
