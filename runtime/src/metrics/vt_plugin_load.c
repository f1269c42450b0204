/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening, checking and expanding counter plugins of both interfaces (see vt_plugin_load.h). */
#include "metrics/vt_plugin_load.h"
#include "base/vt_config.h"
#include "base/vt_log.h"

#include <ctype.h>
#include <dlfcn.h>
#include <link.h>
#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_GeneralDefinitions.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *abi_name(enum vt_plugin_abi abi)
{
	return abi == VT_PLUGIN_ABI_VT ? "counter plugin" : "Score-P metric plugin";
}

const char *vt_plugin_sync_name(const struct vt_plugin *p)
{
	static const char *const vt[] = {"synchronous", "?", "asynchronous on-event",
					 "asynchronous post-mortem", "asynchronous callback"};
	static const char *const sp[] = {"strictly synchronous", "synchronous (optional values)",
					 "asynchronous on-event", "asynchronous", "?"};
	return (p->abi == VT_PLUGIN_ABI_VT ? vt : sp)[p->src.sync];
}

const char *vt_plugin_per_name(enum vt_metric_per per)
{
	static const char *const names[] = {"per thread", "per process", "per host", "once"};
	return per <= VT_METRIC_ONCE ? names[per] : "?";
}

const char *vt_plugin_mode_name(uint32_t mode)
{
	static const char *const value[] = {"accumulated", "absolute", "relative"};
	static const char *const timing[] = {"start", "point", "last", "next"};
	static char buf[4][32];
	static int k;
	unsigned v = mode & OTF2_METRIC_VALUE_MASK, t = (mode & OTF2_METRIC_TIMING_MASK) >> 4;
	char *b = buf[k++ & 3];
	snprintf(b, sizeof(buf[0]), "%s %s", v < 3 ? value[v] : "?", t < 4 ? timing[t] : "?");
	return b;
}

const char *vt_plugin_type_name(const struct vt_metric *m)
{
	if (m->is_float)
		return "float";
	switch (m->type) {
	case OTF2_TYPE_INT64:
		return "int64";
	case OTF2_TYPE_DOUBLE:
		return "double";
	default:
		return "uint64";
	}
}

/* dlopen libNAME.so from the directories of path, then from the loader's search path. */
static void *open_lib(const char *name, const char *path, char **found, char *why, size_t len)
{
	char file[4096];
	const char *err = NULL;

	for (const char *d = path; d && *d;) {
		const char *colon = strchr(d, ':');
		size_t n = colon ? (size_t)(colon - d) : strlen(d);
		if (n > 0) {
			snprintf(file, sizeof(file), "%.*s/lib%s.so", (int)n, d, name);
			void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
			if (h) {
				*found = strdup(file);
				return h;
			}
			/* A library that is there but does not load says more than "not found". */
			FILE *f = fopen(file, "r");
			if (f) {
				fclose(f);
				snprintf(why, len, "%.900s: %s", file, dlerror());
				return NULL;
			}
		}
		d = colon ? colon + 1 : NULL;
	}
	snprintf(file, sizeof(file), "lib%s.so", name);
	void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (h) {
		*found = strdup(file);
		return h;
	}
	err = dlerror();
	snprintf(why, len, "cannot load lib%s.so (%s); looked in %s%sthe library path", name,
		 err ? err : "not found", path && *path ? path : "",
		 path && *path ? " (VT_PLUGIN_CNTR_PATH) and " : "");
	return NULL;
}

/* The functions each kind needs; the first missing one's name, or NULL. */
static const char *missing_vt(const vt_plugin_cntr_info *i)
{
	if (!i->init)
		return "init";
	if (!i->get_event_info)
		return "get_event_info";
	if (!i->add_counter)
		return "add_counter";
	switch (i->synch) {
	case VT_PLUGIN_CNTR_SYNCH:
		return i->get_current_value ? NULL : "get_current_value";
	case VT_PLUGIN_CNTR_ASYNCH_EVENT:
	case VT_PLUGIN_CNTR_ASYNCH_POST_MORTEM:
		if (!i->set_pform_wtime_function)
			return "set_pform_wtime_function";
		return i->get_all_values ? NULL : "get_all_values";
	default:
		if (!i->set_pform_wtime_function)
			return "set_pform_wtime_function";
		return i->set_callback_function ? NULL : "set_callback_function";
	}
}

static const char *missing_scorep(const SCOREP_Metric_Plugin_Info *i)
{
	if (!i->initialize)
		return "initialize";
	if (!i->get_event_info)
		return "get_event_info";
	if (!i->add_counter)
		return "add_counter";
	switch (i->sync) {
	case SCOREP_METRIC_STRICTLY_SYNC:
		return i->get_current_value ? NULL : "get_current_value";
	case SCOREP_METRIC_SYNC:
		return i->get_optional_value ? NULL : "get_optional_value";
	default:
		if (!i->set_clock_function)
			return "set_clock_function";
		return i->get_all_values ? NULL : "get_all_values";
	}
}

/* Checks get_info's answer; fills sync, per and version, or says why not in why. */
static int check_info(struct vt_plugin *p, char *why, size_t len)
{
	const char *miss;
	if (p->abi == VT_PLUGIN_ABI_VT) {
		const vt_plugin_cntr_info *i = &p->vt;
		p->version = i->vt_plugin_cntr_version;
		if (p->version > VT_PLUGIN_CNTR_VERSION) {
			snprintf(why, len,
				 "interface version %u is newer than vt's (%d); rebuild the plugin "
				 "against vt's vt_plugin_cntr.h",
				 p->version, VT_PLUGIN_CNTR_VERSION);
			return -1;
		}
		if (i->run_per < 0 || i->run_per >= VT_PLUGIN_CNTR_RUN_PER_MAX) {
			snprintf(why, len, "run_per %d is not one of VT_PLUGIN_CNTR_PER_* (0-3)",
				 i->run_per);
			return -1;
		}
		if (i->synch < 0 || i->synch >= VT_PLUGIN_CNTR_SYNCH_TYPE_MAX) {
			snprintf(why, len,
				 "synch %d is not one of VT_PLUGIN_CNTR_SYNCH, "
				 "_ASYNCH_EVENT, _ASYNCH_POST_MORTEM, _ASYNCH_CALLBACK (0-3)",
				 i->synch);
			return -1;
		}
		static const enum vt_metric_sync map[] = {VT_METRIC_STRICT, VT_METRIC_ON_EVENT,
							  VT_METRIC_POST_MORTEM,
							  VT_METRIC_CALLBACK};
		p->src.sync = map[i->synch];
		p->src.per = (enum vt_metric_per)i->run_per;
		miss = missing_vt(i);
	} else {
		const SCOREP_Metric_Plugin_Info *i = &p->sp;
		p->version = i->plugin_version;
		if (p->version > SCOREP_METRIC_PLUGIN_VERSION) {
			snprintf(why, len,
				 "interface version %u is newer than the Score-P interface vt "
				 "knows (%d)",
				 p->version, SCOREP_METRIC_PLUGIN_VERSION);
			return -1;
		}
		if ((unsigned)i->run_per >= SCOREP_METRIC_PER_MAX) {
			snprintf(why, len, "run_per %d is not one of SCOREP_METRIC_PER_* (0-3)",
				 (int)i->run_per);
			return -1;
		}
		if ((unsigned)i->sync >= SCOREP_METRIC_SYNC_TYPE_MAX) {
			snprintf(why, len,
				 "sync %d is not one of SCOREP_METRIC_STRICTLY_SYNC, "
				 "_SYNC, _ASYNC_EVENT, _ASYNC (0-3)",
				 (int)i->sync);
			return -1;
		}
		static const enum vt_metric_sync map[] = {VT_METRIC_STRICT, VT_METRIC_OPTIONAL,
							  VT_METRIC_ON_EVENT,
							  VT_METRIC_POST_MORTEM};
		p->src.sync = map[i->sync];
		p->src.per = (enum vt_metric_per)i->run_per;
		p->src.delta_t = i->delta_t;
		/* Version 0 ends before synchronize: what is there is reserved space. */
		if (p->version == 0)
			p->sp.synchronize = NULL;
		miss = missing_scorep(i);
	}
	if (miss) {
		snprintf(why, len, "it is %s but has no %s()", vt_plugin_sync_name(p), miss);
		return -1;
	}
	return 0;
}

struct vt_plugin *vt_plugin_open(const char *name, enum vt_plugin_abi abi, const char *path,
				 uint64_t (*wtime)(void))
{
	char why[1024] = "";
	char sym[512];
	struct vt_plugin *p = calloc(1, sizeof(*p));
	if (!p || !(p->src.name = strdup(name))) {
		free(p);
		vt_error("%s %s: out of memory; skipped", abi_name(abi), name);
		return NULL;
	}
	p->abi = abi;
	p->src.what = abi_name(abi);
	p->dl = open_lib(name, path, &p->path, why, sizeof(why));
	if (!p->dl)
		goto bad;
	if (abi == VT_PLUGIN_ABI_VT)
		snprintf(sym, sizeof(sym), "get_info");
	else
		snprintf(sym, sizeof(sym), "SCOREP_MetricPlugin_%s_get_info", name);
	/* dlsym on the handle also searches the libraries the plugin depends on: the symbol
	 * must be the plugin's own. */
	void *fn = dlsym(p->dl, sym);
	Dl_info where;
	struct link_map *lm = NULL;
	if (!fn) {
		snprintf(why, sizeof(why), "%s has no %s()", p->path, sym);
		goto bad;
	}
	if (dladdr(fn, &where) && where.dli_fname && dlinfo(p->dl, RTLD_DI_LINKMAP, &lm) == 0 &&
	    lm && lm->l_name && strcmp(lm->l_name, where.dli_fname) != 0) {
		snprintf(why, sizeof(why), "%s has no %s() of its own (the one found is in %s)",
			 p->path, sym, where.dli_fname);
		goto bad;
	}
	if (abi == VT_PLUGIN_ABI_VT) {
		vt_plugin_cntr_info (*get)(void) = (vt_plugin_cntr_info(*)(void))fn;
		p->vt = get();
	} else {
		SCOREP_Metric_Plugin_Info (*get)(void) = (SCOREP_Metric_Plugin_Info(*)(void))fn;
		p->sp = get();
	}
	if (check_info(p, why, sizeof(why)) < 0)
		goto bad;
	/* The clock comes before init, as both interfaces promise. */
	if (abi == VT_PLUGIN_ABI_VT && p->vt.set_pform_wtime_function &&
	    p->src.sync >= VT_METRIC_ON_EVENT)
		p->vt.set_pform_wtime_function(wtime);
	if (abi == VT_PLUGIN_ABI_SCOREP && p->sp.set_clock_function)
		p->sp.set_clock_function(wtime);
	int32_t rc = abi == VT_PLUGIN_ABI_VT ? p->vt.init() : p->sp.initialize();
	if (rc != 0) {
		snprintf(why, sizeof(why), "%s() failed (returned %d)",
			 abi == VT_PLUGIN_ABI_VT ? "init" : "initialize", rc);
		goto bad;
	}
	p->initialised = true;
	vt_info("%s %s: loaded %s (%s, %s, interface version %u)", abi_name(abi), name, p->path,
		vt_plugin_sync_name(p), vt_plugin_per_name(p->src.per), p->version);
	return p;
bad:
	vt_error("%s %s: %s; skipped", abi_name(abi), name, why);
	vt_plugin_close(p);
	return NULL;
}

/* Properties of a VampirTrace counter as an OTF2 metric; false (with why) if unusable. */
static void vt_props(struct vt_metric *m, uint32_t prop)
{
	bool abs = (prop & VT_PLUGIN_CNTR_ABS) && !(prop & VT_PLUGIN_CNTR_ACC);
	uint32_t timing;
	/* VampirTrace's defaults: accumulated and START when nothing is said. */
	if (prop & VT_PLUGIN_CNTR_POINT)
		timing = OTF2_METRIC_TIMING_POINT;
	else if (prop & VT_PLUGIN_CNTR_LAST)
		timing = OTF2_METRIC_TIMING_LAST;
	else if (prop & VT_PLUGIN_CNTR_NEXT)
		timing = OTF2_METRIC_TIMING_NEXT;
	else
		timing = abs ? OTF2_METRIC_TIMING_POINT : OTF2_METRIC_TIMING_START;
	/* OTF2 has no absolute START: an absolute value is a level at a point. */
	if (abs && timing == OTF2_METRIC_TIMING_START)
		timing = OTF2_METRIC_TIMING_POINT;
	m->mode = (abs ? OTF2_METRIC_VALUE_ABSOLUTE : OTF2_METRIC_VALUE_ACCUMULATED) | timing;
	if (prop & (VT_PLUGIN_CNTR_DOUBLE | VT_PLUGIN_CNTR_FLOAT)) {
		m->type = OTF2_TYPE_DOUBLE;
		m->is_float = !(prop & VT_PLUGIN_CNTR_DOUBLE);
	} else if (prop & VT_PLUGIN_CNTR_SIGNED) {
		m->type = OTF2_TYPE_INT64;
	} else {
		m->type = OTF2_TYPE_UINT64;
	}
	m->base = OTF2_BASE_DECIMAL;
	m->exponent = 0;
}

static int scorep_props(struct vt_metric *m, const SCOREP_Metric_Plugin_MetricProperties *s,
			char *why, size_t len)
{
	static const uint32_t modes[] = {
	    OTF2_METRIC_ACCUMULATED_START, OTF2_METRIC_ACCUMULATED_POINT,
	    OTF2_METRIC_ACCUMULATED_LAST,  OTF2_METRIC_ACCUMULATED_NEXT,
	    OTF2_METRIC_ABSOLUTE_POINT,	   OTF2_METRIC_ABSOLUTE_LAST,
	    OTF2_METRIC_ABSOLUTE_NEXT,	   OTF2_METRIC_RELATIVE_POINT,
	    OTF2_METRIC_RELATIVE_LAST,	   OTF2_METRIC_RELATIVE_NEXT,
	};
	static const uint8_t types[] = {OTF2_TYPE_INT64, OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE};
	if ((unsigned)s->mode >= SCOREP_INVALID_METRIC_MODE) {
		snprintf(why, len, "mode %d is not a SCOREP_MetricMode (0-9)", (int)s->mode);
		return -1;
	}
	if ((unsigned)s->value_type >= SCOREP_INVALID_METRIC_VALUE_TYPE) {
		snprintf(why, len, "value_type %d is not a SCOREP_MetricValueType (0-2)",
			 (int)s->value_type);
		return -1;
	}
	if ((unsigned)s->base >= SCOREP_INVALID_METRIC_BASE) {
		snprintf(why, len, "base %d is not a SCOREP_MetricBase (0-1)", (int)s->base);
		return -1;
	}
	m->mode = modes[s->mode];
	m->type = types[s->value_type];
	m->base = s->base == SCOREP_METRIC_BASE_BINARY ? OTF2_BASE_BINARY : OTF2_BASE_DECIMAL;
	m->exponent = s->exponent;
	return 0;
}

size_t vt_plugin_expand(struct vt_plugin *p, const char *requested)
{
	char *req = strdup(requested);
	void *list = NULL;
	size_t added = 0, n = 0;
	const char *what = p->abi == VT_PLUGIN_ABI_VT ? "counter" : "metric";

	if (!req)
		return 0;
	if (p->abi == VT_PLUGIN_ABI_VT)
		list = p->vt.get_event_info(req);
	else
		list = p->sp.get_event_info(req);
	if (list) {
		if (p->abi == VT_PLUGIN_ABI_VT)
			while (((vt_plugin_cntr_metric_info *)list)[n].name)
				n++;
		else
			while (((SCOREP_Metric_Plugin_MetricProperties *)list)[n].name)
				n++;
	}
	if (n == 0) {
		vt_error("%s %s: get_event_info(\"%s\") offers no %s (%s); skipped",
			 abi_name(p->abi), p->src.name, requested, what,
			 list ? "an empty list" : "NULL");
		goto out;
	}
	struct vt_metric *ms = realloc(p->src.metrics, (p->src.n_metrics + n) * sizeof(*ms));
	if (!ms)
		goto out;
	p->src.metrics = ms;
	for (size_t i = 0; i < n; i++) {
		struct vt_metric *m = &p->src.metrics[p->src.n_metrics];
		char why[256] = "";
		memset(m, 0, sizeof(*m));
		m->source = &p->src;
		/* vt keeps copies: a plugin that hands out string literals where the interfaces
		 * ask for malloc'd strings must not crash the program when vt lets go of them. */
		const char *name, *unit, *description = "";
		if (p->abi == VT_PLUGIN_ABI_VT) {
			vt_plugin_cntr_metric_info *e = &((vt_plugin_cntr_metric_info *)list)[i];
			name = e->name;
			unit = e->unit;
			vt_props(m, e->cntr_property);
		} else {
			SCOREP_Metric_Plugin_MetricProperties *e =
			    &((SCOREP_Metric_Plugin_MetricProperties *)list)[i];
			name = e->name;
			unit = e->unit;
			description = e->description;
			if (scorep_props(m, e, why, sizeof(why)) < 0) {
				vt_error("%s %s: %s %s: %s; skipped", abi_name(p->abi), p->src.name,
					 what, name, why);
				continue;
			}
		}
		m->name = strdup(name);
		m->unit = strdup(unit ? unit : "");
		m->description = strdup(description ? description : "");
		if (!m->name || !m->unit || !m->description || !m->name[0]) {
			vt_error("%s %s: get_event_info(\"%s\") offers a %s with %s; skipped",
				 abi_name(p->abi), p->src.name, requested, what,
				 m->name && !m->name[0] ? "an empty name" : "no memory to keep it");
			free(m->name);
			free(m->unit);
			free(m->description);
			continue;
		}
		p->src.n_metrics++;
		added++;
	}
out:
	/* The list and its strings stay the plugin's (see above): a few bytes per name. */
	free(req);
	return added;
}

void vt_plugin_close(struct vt_plugin *p)
{
	if (!p)
		return;
	if (p->initialised) {
		if (p->abi == VT_PLUGIN_ABI_VT && p->vt.finalize)
			p->vt.finalize();
		else if (p->abi == VT_PLUGIN_ABI_SCOREP && p->sp.finalize)
			p->sp.finalize();
	}
	/* Not dlclose'd: a plugin's threads or atexit handlers may still run its code. */
	for (size_t i = 0; i < p->src.n_metrics; i++) {
		free(p->src.metrics[i].name);
		free(p->src.metrics[i].unit);
		free(p->src.metrics[i].description);
	}
	free(p->src.metrics);
	free(p->path);
	free((char *)p->src.name);
	free(p);
}

/* The plugin of that name and interface in the list, or a newly opened one appended. */
static struct vt_plugin *find_or_open(struct vt_plugin **list, const char *name,
				      enum vt_plugin_abi abi, const char *path,
				      uint64_t (*wtime)(void), struct vt_plugin **failed)
{
	struct vt_plugin **pp = list;
	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->abi == abi && strcmp((*pp)->src.name, name) == 0)
			return *pp;
	/* One message per plugin that does not load, however many counters name it. */
	for (struct vt_plugin *f = *failed; f; f = f->next)
		if (f->abi == abi && strcmp(f->src.name, name) == 0)
			return NULL;
	struct vt_plugin *p = vt_plugin_open(name, abi, path, wtime);
	if (p) {
		*pp = p;
	} else {
		struct vt_plugin *f = calloc(1, sizeof(*f));
		if (f && (f->src.name = strdup(name))) {
			f->abi = abi;
			f->next = *failed;
			*failed = f;
		} else {
			free(f);
		}
	}
	return p;
}

/*
 * Splits a VT_PLUGIN_CNTR_METRICS entry LIB_COUNTER: LIB ends at the first '_' after which
 * a plugin library is found (libx.so for x_plugin_counter, else libx_plugin.so), or at the
 * first '_' when none is (and loading it says why). Returns the counter part, or NULL when
 * the entry has no '_' with something on both sides.
 */
static char *split_entry(char *e, struct vt_plugin *list, const char *path)
{
	char *first = strchr(e, '_');
	if (!first || first == e || !first[1])
		return NULL;
	for (char *us = first; us && us[1]; us = strchr(us + 1, '_')) {
		*us = '\0';
		bool known = false;
		for (struct vt_plugin *p = list; p && !known; p = p->next)
			known = p->abi == VT_PLUGIN_ABI_VT && strcmp(p->src.name, e) == 0;
		char *found = NULL, why[16];
		/* Not closed: vt_plugin_open's dlopen gets the same handle. */
		if (known || open_lib(e, path, &found, why, sizeof(why))) {
			free(found);
			if (us != first)
				vt_notice("VT_PLUGIN_CNTR_METRICS entry '%s_%s': counter '%s' of "
					  "lib%s.so",
					  e, us + 1, us + 1, e);
			return us + 1;
		}
		*us = '_';
	}
	*first = '\0';
	return first + 1;
}

struct vt_plugin *vt_plugin_load_all(const char *vt_spec, const char *scorep_spec, const char *path,
				     uint64_t (*wtime)(void))
{
	struct vt_plugin *list = NULL, *failed = NULL;
	char *spec = vt_spec ? strdup(vt_spec) : NULL;

	/* VT_PLUGIN_CNTR_METRICS: Lib_counter entries separated by ':'. */
	for (char *save = NULL, *e = spec ? strtok_r(spec, ":", &save) : NULL; e;
	     e = strtok_r(NULL, ":", &save)) {
		char *counter = split_entry(e, list, path);
		if (!counter) {
			vt_error("VT_PLUGIN_CNTR_METRICS entry '%s': expected LIBRARY_COUNTER "
				 "(libLIBRARY.so and a counter it offers, e.g. Random_counter); "
				 "skipped",
				 e);
			continue;
		}
		struct vt_plugin *p =
		    find_or_open(&list, e, VT_PLUGIN_ABI_VT, path, wtime, &failed);
		if (p)
			vt_plugin_expand(p, counter);
	}
	free(spec);

	/* SCOREP_METRIC_PLUGINS: plugin names separated by ','; each one's tokens in
	 * SCOREP_METRIC_<NAME>_PLUGIN, separated by ','. */
	spec = scorep_spec ? strdup(scorep_spec) : NULL;
	for (char *save = NULL, *e = spec ? strtok_r(spec, ", ", &save) : NULL; e;
	     e = strtok_r(NULL, ", ", &save)) {
		char var[300];
		const char *tokens = vt_config_scorep_plugin(e, var, sizeof(var));
		if (!tokens || !*tokens) {
			vt_error("SCOREP_METRIC_PLUGINS names %s, but %s is %s: no metric of it is "
				 "requested (e.g. %s=metric1,metric2); the plugin is not loaded",
				 e, var, tokens ? "empty" : "not set", var);
			continue;
		}
		if (strncasecmp(var + strlen("SCOREP_METRIC_"), e, strlen(e)) != 0 ||
		    var[strlen("SCOREP_METRIC_") + strlen(e)] != '\0')
			vt_notice("SCOREP_METRIC_PLUGINS names %s: its metrics are read from %s, "
				  "which its documentation may use (Score-P itself reads "
				  "SCOREP_METRIC_<NAME>)",
				  e, var);
		struct vt_plugin *p =
		    find_or_open(&list, e, VT_PLUGIN_ABI_SCOREP, path, wtime, &failed);
		if (!p)
			continue;
		char *toks = strdup(tokens);
		for (char *s2 = NULL, *t = toks ? strtok_r(toks, ",", &s2) : NULL; t;
		     t = strtok_r(NULL, ",", &s2))
			vt_plugin_expand(p, t);
		free(toks);
	}
	free(spec);
	while (failed) {
		struct vt_plugin *f = failed->next;
		free((char *)failed->src.name);
		free(failed);
		failed = f;
	}

	/* Plugins that offer nothing are of no use: closed (finalize is called). */
	uint32_t index = 0;
	for (struct vt_plugin **pp = &list; *pp;) {
		struct vt_plugin *p = *pp;
		if (p->src.n_metrics == 0) {
			*pp = p->next;
			vt_plugin_close(p);
			continue;
		}
		for (size_t i = 0; i < p->src.n_metrics; i++)
			p->src.metrics[i].index = index++;
		pp = &p->next;
	}
	return list;
}

/* sym if the library of handle dl defines it itself (not one of its dependencies). */
static void *own_symbol(void *dl, const char *sym)
{
	void *fn = dlsym(dl, sym);
	Dl_info where;
	struct link_map *lm = NULL;
	if (!fn)
		return NULL;
	if (dladdr(fn, &where) && where.dli_fname && dlinfo(dl, RTLD_DI_LINKMAP, &lm) == 0 && lm &&
	    lm->l_name && strcmp(lm->l_name, where.dli_fname) != 0)
		return NULL;
	return fn;
}

int vt_plugin_detect_abi(const char *name, const char *path, enum vt_plugin_abi *abi)
{
	char why[1024], sym[512];
	char *found = NULL;
	/* Not closed: vt_plugin_open's dlopen gets the same handle, constructors run once. */
	void *dl = open_lib(name, path, &found, why, sizeof(why));
	int rc = -1;
	if (!dl)
		return -1;
	snprintf(sym, sizeof(sym), "SCOREP_MetricPlugin_%s_get_info", name);
	if (own_symbol(dl, "get_info")) {
		*abi = VT_PLUGIN_ABI_VT;
		rc = 0;
	} else if (own_symbol(dl, sym)) {
		*abi = VT_PLUGIN_ABI_SCOREP;
		rc = 0;
	}
	free(found);
	return rc;
}
