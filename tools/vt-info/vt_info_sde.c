/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-info --metrics FILE: the SDEs a program or library exports, found without running it. */
/*
 * vt-info --metrics FILE: the PAPI software-defined events a program or library exports.
 * A library that exports SDEs has papi_sde_hook_list_events, which tools call with a table
 * of functions of their own to hear what the library would register, without running it;
 * this file answers with functions that only take notes. A library is dlopen'ed itself; a
 * program (which glibc will not dlopen) through the libraries it needs, found as the dynamic
 * loader would: its RUNPATH (or RPATH), then the usual search.
 */
#include "vt_info_sde.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <limits.h>
#include <sde_lib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the hook registered, in its order. */
static struct event {
	char lib[128], name[256], what[160], description[256];
} * events;
static size_t n_events;
static char current_lib[128];
static int handles; /* dummy handles handed out */

static struct event *note(const char *name, const char *what)
{
	struct event *e = realloc(events, (n_events + 1) * sizeof(*e));
	if (!e)
		return NULL;
	events = e;
	e = &events[n_events++];
	memset(e, 0, sizeof(*e));
	snprintf(e->lib, sizeof(e->lib), "%s", current_lib);
	snprintf(e->name, sizeof(e->name), "%s", name ? name : "?");
	snprintf(e->what, sizeof(e->what), "%s", what);
	return e;
}

static struct event *find(const char *name)
{
	for (size_t i = 0; i < n_events; i++)
		if (strcmp(events[i].lib, current_lib) == 0 && strcmp(events[i].name, name) == 0)
			return &events[i];
	return NULL;
}

static const char *type_name(int type)
{
	switch (type) {
	case PAPI_SDE_long_long:
		return "long long";
	case PAPI_SDE_int:
		return "int";
	case PAPI_SDE_double:
		return "double";
	case PAPI_SDE_float:
		return "float";
	default:
		return "unknown type";
	}
}

static void counter(const char *name, int mode, int type, const char *how)
{
	char what[160];
	snprintf(what, sizeof(what), "%s, %s%s%s", type_name(type),
		 mode & PAPI_SDE_INSTANT ? "instant" : "delta", how ? ", " : "", how ? how : "");
	struct event *e = note(name, what);
	if (e && type == PAPI_SDE_double)
		strcat(e->name, "[double]");
	else if (e && type == PAPI_SDE_float)
		strcat(e->what, " (vt reads 64 bits: not recordable)");
}

static papi_handle_t hook_init(const char *lib)
{
	snprintf(current_lib, sizeof(current_lib), "%s", lib ? lib : "?");
	return &handles;
}

static int hook_shutdown(papi_handle_t h)
{
	return SDE_OK;
}

static int hook_register(papi_handle_t h, const char *name, int mode, int type, void *counter_)
{
	counter(name, mode, type, NULL);
	return SDE_OK;
}

static int hook_register_cb(papi_handle_t h, const char *name, int mode, int type,
			    papi_sde_fptr_t cb, void *param)
{
	counter(name, mode, type, "callback");
	return SDE_OK;
}

static int hook_unregister(papi_handle_t h, const char *name)
{
	return SDE_OK;
}

static int hook_describe(papi_handle_t h, const char *name, const char *description)
{
	struct event *e = find(name);
	if (!e) {
		/* a [double] counter is noted with its tag */
		char tagged[300];
		snprintf(tagged, sizeof(tagged), "%s[double]", name);
		e = find(tagged);
	}
	if (e && description)
		snprintf(e->description, sizeof(e->description), "%s", description);
	return SDE_OK;
}

static int hook_group(papi_handle_t h, const char *name, const char *group, uint32_t flags)
{
	struct event *e = find(group);
	if (!e) {
		const char *how = flags == PAPI_SDE_MAX	  ? "max"
				  : flags == PAPI_SDE_MIN ? "min"
							  : "sum";
		char what[160];
		snprintf(what, sizeof(what), "group (%s) of", how);
		e = note(group, what);
	}
	if (e && strlen(e->what) + strlen(name) + 2 < sizeof(e->what)) {
		strcat(e->what, " ");
		strcat(e->what, name);
	}
	return SDE_OK;
}

static int hook_create_counter(papi_handle_t h, const char *name, int mode, void **handle)
{
	counter(name, mode, PAPI_SDE_long_long, "created");
	if (handle)
		*handle = &handles;
	return SDE_OK;
}

static int hook_inc(papi_handle_t h, long long increment)
{
	return SDE_OK;
}

static int hook_create_recorder(papi_handle_t h, const char *name, size_t size,
				int (*cmp)(const void *, const void *), void **handle)
{
	/* The comparator says the type, where the library uses one of libsde's. */
	int (*cmp_double)(const void *, const void *);
	*(void **)&cmp_double = dlsym(RTLD_DEFAULT, "papi_sde_compare_double");
	bool is_double = cmp && cmp == cmp_double;
	char what[160];
	if (size != 8)
		snprintf(what, sizeof(what),
			 "recorder of %zu-byte values (vt records 8-byte "
			 "values: its count only, as %s:CNT)",
			 size, name);
	else
		snprintf(what, sizeof(what), "recorder of %s; its count is %s:CNT",
			 is_double ? "doubles" : "8-byte values", name);
	struct event *e = note(name, what);
	if (e && size == 8)
		strcat(e->name, is_double ? "[recorder,double]" : "[recorder]");
	if (handle)
		*handle = &handles;
	return SDE_OK;
}

static int hook_create_cset(papi_handle_t h, const char *name, void **handle)
{
	note(name, "counting set (vt does not record these)");
	if (handle)
		*handle = &handles;
	return SDE_OK;
}

static int hook_cset_insert(void *c, size_t es, size_t hs, const void *e, uint32_t t)
{
	return SDE_OK;
}

static int hook_cset_remove(void *c, size_t hs, const void *e, uint32_t t)
{
	return SDE_OK;
}

static int hook_record(void *r, size_t size, const void *value)
{
	return SDE_OK;
}

static int hook_reset(void *h)
{
	return SDE_OK;
}

static void *hook_get_handle(papi_handle_t h, const char *name)
{
	return &handles;
}

/* Calls one library's hook, once per distinct hook. */
static void call_hook(void *dl, void **seen, size_t *n_seen)
{
	papi_handle_t (*hook)(papi_sde_fptr_struct_t *);
	*(void **)&hook = dlsym(dl, "papi_sde_hook_list_events");
	if (!hook)
		return;
	for (size_t i = 0; i < *n_seen; i++)
		if (seen[i] == *(void **)&hook)
			return;
	if (*n_seen < 64)
		seen[(*n_seen)++] = *(void **)&hook;
	papi_sde_fptr_struct_t f = {
	    .init = hook_init,
	    .shutdown = hook_shutdown,
	    .register_counter = hook_register,
	    .register_counter_cb = hook_register_cb,
	    .unregister_counter = hook_unregister,
	    .describe_counter = hook_describe,
	    .add_counter_to_group = hook_group,
	    .create_counter = hook_create_counter,
	    .inc_counter = hook_inc,
	    .create_recorder = hook_create_recorder,
	    .create_counting_set = hook_create_cset,
	    .counting_set_insert = hook_cset_insert,
	    .counting_set_remove = hook_cset_remove,
	    .record = hook_record,
	    .reset_recorder = hook_reset,
	    .reset_counter = hook_reset,
	    .get_counter_handle = hook_get_handle,
	};
	hook(&f);
}

/* The libraries a program needs, and where its RUNPATH says they are. */
static int needed(const char *path, char ***libs, size_t *n_libs, char *runpath, size_t size)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	int rc = -1;
	*runpath = '\0';
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn d;
			if (!gelf_getdyn(data, (int)i, &d))
				break;
			const char *s = NULL;
			if (d.d_tag == DT_NEEDED || d.d_tag == DT_RUNPATH || d.d_tag == DT_RPATH)
				s = elf_strptr(elf, sh.sh_link, d.d_un.d_val);
			if (!s)
				continue;
			if (d.d_tag == DT_NEEDED) {
				char **l = realloc(*libs, (*n_libs + 1) * sizeof(*l));
				if (l) {
					*libs = l;
					l[(*n_libs)++] = strdup(s);
				}
			} else if (!*runpath || d.d_tag == DT_RUNPATH) {
				snprintf(runpath, size, "%s", s);
			}
		}
		rc = 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

/* dlopen's a needed library: from the RUNPATH's directories ($ORIGIN: the program's), then
 * by its name. */
static void *open_needed(const char *lib, const char *runpath, const char *origin)
{
	char dirs[PATH_MAX], full[PATH_MAX * 2];
	snprintf(dirs, sizeof(dirs), "%s", runpath);
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		if (strncmp(d, "$ORIGIN", 7) == 0)
			snprintf(full, sizeof(full), "%s%s/%s", origin, d + 7, lib);
		else
			snprintf(full, sizeof(full), "%s/%s", d, lib);
		void *dl = dlopen(full, RTLD_LAZY | RTLD_LOCAL);
		if (dl)
			return dl;
	}
	return dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
}

int vt_info_list_sde(const char *path)
{
	void *seen[64];
	size_t n_seen = 0;
	if (access(path, R_OK) != 0) {
		fprintf(stderr,
			"vt-info: --metrics %s: no such readable file (a program or a "
			"library that exports PAPI software-defined events)\n",
			path);
		return 1;
	}
	/* A path of the current directory must not be searched for as a bare name. */
	char abs[PATH_MAX];
	if (!realpath(path, abs))
		snprintf(abs, sizeof(abs), "%s", path);
	void *dl = dlopen(abs, RTLD_LAZY | RTLD_LOCAL);
	if (dl) {
		call_hook(dl, seen, &n_seen);
	} else {
		char **libs = NULL, runpath[PATH_MAX], origin[PATH_MAX];
		size_t n_libs = 0;
		snprintf(origin, sizeof(origin), "%s", abs);
		dirname(origin);
		if (needed(abs, &libs, &n_libs, runpath, sizeof(runpath)) < 0) {
			fprintf(stderr,
				"vt-info: --metrics %s: neither a library that loads (%s) "
				"nor an ELF program\n",
				path, dlerror());
			return 1;
		}
		for (size_t i = 0; i < n_libs; i++) {
			/* Not vt itself: it would trace this process. */
			void *h = strncmp(libs[i], "libvt.so", 8) == 0
				      ? NULL
				      : open_needed(libs[i], runpath, origin);
			if (h)
				call_hook(h, seen, &n_seen);
			free(libs[i]);
		}
		free(libs);
	}
	printf("\nPAPI software-defined events of %s (VT_METRICS, as named here):\n", path);
	if (!n_events)
		printf("  (none)\n");
	for (size_t i = 0; i < n_events; i++) {
		char full[400];
		snprintf(full, sizeof(full), "sde:::%s::%s", events[i].lib, events[i].name);
		printf("  %-44s %s%s%s\n", full, events[i].what, *events[i].description ? ": " : "",
		       events[i].description);
	}
	free(events);
	events = NULL;
	n_events = 0;
	return 0;
}
