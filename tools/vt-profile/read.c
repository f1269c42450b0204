/* SPDX-License-Identifier: BSD-3-Clause */
/* Reads an OTF2 archive through libotf2's reader API and computes the flat profile. */
#include "profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

/* Most of this file is libotf2 callbacks, whose signatures are fixed; many parameters go unused. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

const char *const vt_prof_event_names[VT_PROF_EV_COUNT] = {
#define VT_PROF_NAME(name, params) #name,
	VT_PROF_PROFILE_EVENT_KINDS(VT_PROF_NAME)
	VT_PROF_OTHER_EVENT_KINDS(VT_PROF_NAME)
#undef VT_PROF_NAME
};

const char *const vt_prof_problem_names[] = {
	[VT_PROF_LEAVE_MISMATCH] = "leave-mismatch",
	[VT_PROF_LEAVE_UNMATCHED] = "leave-unmatched",
	[VT_PROF_OPEN_AT_END] = "open-at-end",
	[VT_PROF_TIME_DECREASE] = "time-decrease",
	[VT_PROF_UNDEFINED_REGION] = "undefined-region",
	[VT_PROF_SUPPRESSED] = "suppressed",
};

/*
 * Strings, regions and location groups live in tables indexed by their id, because OTF2 writers
 * number them densely from 0. An id beyond this bound means a damaged archive; refusing it keeps
 * one bad record from allocating gigabytes.
 */
#define MAX_DENSE_ID (UINT32_C(1) << 26)

/* How many open regions an open-at-end message names. */
#define OPEN_NAMES_SHOWN 8

void *vt_prof_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		fputs("vt-profile: out of memory\n", stderr);
		exit(2);
	}
	size_t bytes = n * size;
	void *q = realloc(p, bytes ? bytes : 1);
	if (!q) {
		fputs("vt-profile: out of memory\n", stderr);
		exit(2);
	}
	return q;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = vt_prof_xrealloc(NULL, n, size);
	return memset(p, 0, n * size);
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(vt_prof_xrealloc(NULL, n, 1), s, n);
}

/* Makes *arr hold at least need elements; new elements are zeroed. Amortised O(1) per id. */
static void grow_zeroed(void **arr, size_t *len, size_t need, size_t elem)
{
	if (need <= *len)
		return;
	size_t cap = *len ? *len : 16;
	while (cap < need)
		cap *= 2;
	*arr = vt_prof_xrealloc(*arr, cap, elem);
	memset((char *)*arr + *len * elem, 0, (cap - *len) * elem);
	*len = cap;
}

/*
 * libotf2 reports errors through this hook, each layer adding its own line on the way up; the
 * first one since the last reset names the cause and becomes part of our one-line message.
 */
static char otf2_message[256];

__attribute__((format(printf, 6, 0)))
static OTF2_ErrorCode on_otf2_error(void *user, const char *file, uint64_t line,
				    const char *function, OTF2_ErrorCode code, const char *fmt,
				    va_list va)
{
	if (otf2_message[0])
		return code;
	int n = snprintf(otf2_message, sizeof(otf2_message), "%s", OTF2_Error_GetDescription(code));
	if (fmt && *fmt && n >= 0 && (size_t)n + 2 < sizeof(otf2_message)) {
		memcpy(otf2_message + n, ": ", 3);
		vsnprintf(otf2_message + n + 2, sizeof(otf2_message) - (size_t)n - 2, fmt, va);
	}
	return code;
}

static const char *otf2_reason(OTF2_ErrorCode code)
{
	return otf2_message[0] ? otf2_message : OTF2_Error_GetDescription(code);
}

/* ---- global definitions ---- */

struct def_state {
	struct vt_prof_trace *tr;
	size_t locations_cap;
	uint64_t bad_id;	/* first id beyond MAX_DENSE_ID, if any */
	const char *bad_kind;
};

static OTF2_CallbackCode id_too_large(struct def_state *ds, const char *kind, uint64_t id)
{
	ds->bad_kind = kind;
	ds->bad_id = id;
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode on_clock(void *user, uint64_t resolution, uint64_t offset,
				  uint64_t length, uint64_t realtime)
{
	struct def_state *ds = user;
	ds->tr->timer_resolution = resolution;
	ds->tr->have_clock = true;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *user, OTF2_StringRef self, const char *string)
{
	struct def_state *ds = user;
	struct vt_prof_trace *tr = ds->tr;
	if (self >= MAX_DENSE_ID)
		return id_too_large(ds, "string", self);
	grow_zeroed((void **)&tr->strings, &tr->nstrings, (size_t)self + 1, sizeof(*tr->strings));
	free(tr->strings[self]);
	tr->strings[self] = xstrdup(string ? string : "");
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *user, OTF2_RegionRef self, OTF2_StringRef name,
				   OTF2_StringRef canonical, OTF2_StringRef description,
				   OTF2_RegionRole role, OTF2_Paradigm paradigm,
				   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
				   uint32_t end)
{
	struct def_state *ds = user;
	struct vt_prof_trace *tr = ds->tr;
	if (self >= MAX_DENSE_ID)
		return id_too_large(ds, "region", self);
	grow_zeroed((void **)&tr->regions, &tr->nregions, (size_t)self + 1, sizeof(*tr->regions));
	struct vt_prof_region *r = &tr->regions[self];
	r->defined = true;
	r->name_ref = name;
	r->file_ref = file;
	r->line = begin;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location_group(void *user, OTF2_LocationGroupRef self,
					   OTF2_StringRef name, OTF2_LocationGroupType type,
					   OTF2_SystemTreeNodeRef parent,
					   OTF2_LocationGroupRef creator)
{
	struct def_state *ds = user;
	struct vt_prof_trace *tr = ds->tr;
	if (self >= MAX_DENSE_ID)
		return id_too_large(ds, "location group", self);
	size_t old = tr->ngroups;
	grow_zeroed((void **)&tr->group_names, &tr->ngroups, (size_t)self + 1,
		    sizeof(*tr->group_names));
	for (size_t i = old; i < tr->ngroups; i++)
		tr->group_names[i] = OTF2_UNDEFINED_STRING;
	tr->group_names[self] = name;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *user, OTF2_LocationRef self, OTF2_StringRef name,
				     OTF2_LocationType type, uint64_t events,
				     OTF2_LocationGroupRef group)
{
	struct def_state *ds = user;
	struct vt_prof_trace *tr = ds->tr;
	if (tr->nlocations == ds->locations_cap) {
		ds->locations_cap = ds->locations_cap ? 2 * ds->locations_cap : 16;
		tr->locations = vt_prof_xrealloc(tr->locations, ds->locations_cap,
						 sizeof(*tr->locations));
	}
	struct vt_prof_location *loc = &tr->locations[tr->nlocations++];
	memset(loc, 0, sizeof(*loc));
	loc->id = self;
	loc->name_ref = name;
	loc->group = group;
	return OTF2_CALLBACK_SUCCESS;
}

static const char *string_or(const struct vt_prof_trace *tr, uint32_t ref, const char *dflt)
{
	return ref < tr->nstrings && tr->strings[ref] ? tr->strings[ref] : dflt;
}

/* Names are resolved once all strings are known: OTF2 does not order strings before users. */
static void resolve_names(struct vt_prof_trace *tr)
{
	for (size_t i = 0; i < tr->nregions; i++) {
		struct vt_prof_region *r = &tr->regions[i];
		r->name = string_or(tr, r->name_ref, NULL);
		if (!r->defined || !r->name) {
			char buf[32];
			snprintf(buf, sizeof(buf), "<region %zu>", i);
			r->fallback_name = xstrdup(buf);
			r->name = r->fallback_name;
		}
		r->file = string_or(tr, r->file_ref, "");
	}
	for (size_t i = 0; i < tr->nlocations; i++) {
		struct vt_prof_location *loc = &tr->locations[i];
		loc->name = string_or(tr, loc->name_ref, "");
		uint32_t g = loc->group < tr->ngroups ? tr->group_names[loc->group]
						       : OTF2_UNDEFINED_STRING;
		loc->group_name = string_or(tr, g, "");
	}
}

static int read_global_defs(OTF2_Reader *reader, struct vt_prof_trace *tr, char *err,
			    size_t errlen)
{
	struct def_state ds = { .tr = tr };
	OTF2_GlobalDefReader *defs = OTF2_Reader_GetGlobalDefReader(reader);
	if (!defs) {
		snprintf(err, errlen, "cannot read global definitions: %s",
			 otf2_reason(OTF2_ERROR_INVALID));
		return -1;
	}
	OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
	OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_location_group);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
	OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, cb, &ds);
	OTF2_GlobalDefReaderCallbacks_Delete(cb);

	uint64_t n = 0;
	OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &n);
	OTF2_Reader_CloseGlobalDefReader(reader, defs);
	if (ds.bad_kind) {
		snprintf(err, errlen, "%s id %" PRIu64 " in the global definitions is too large",
			 ds.bad_kind, ds.bad_id);
		return -1;
	}
	if (rc != OTF2_SUCCESS) {
		snprintf(err, errlen, "cannot read global definitions: %s", otf2_reason(rc));
		return -1;
	}
	if (!tr->have_clock || tr->timer_resolution == 0) {
		snprintf(err, errlen, "no clock properties (timer resolution) in the definitions");
		return -1;
	}
	resolve_names(tr);
	return 0;
}

/* ---- events ---- */

struct frame {
	uint32_t region;
	uint64_t enter;
	uint64_t child;		/* inclusive time of the activations directly inside this one */
};

/*
 * Locations are read one after the other, so per-region results of the current location live
 * in tables indexed by region id that are cleared (only where touched) before the next one.
 * That keeps the cost per event O(1) and the memory O(regions + sum of regions per location).
 */
struct reader {
	struct vt_prof_trace *tr;
	struct vt_prof_location *loc;
	size_t loc_index;
	uint64_t prev;		/* timestamp of the previous event of this location */
	struct frame *stack;
	size_t depth, stack_cap;
	uint64_t *calls, *incl, *excl;
	uint32_t *active;	/* open activations per region: only the outermost adds to incl */
	uint32_t *touched;	/* regions entered on this location, each once */
	size_t ntouched;
};

static void store_problem(struct vt_prof_trace *tr, struct vt_prof_problem p)
{
	if (tr->nproblems == tr->problems_cap) {
		tr->problems_cap = tr->problems_cap ? 2 * tr->problems_cap : 16;
		tr->problems = vt_prof_xrealloc(tr->problems, tr->problems_cap,
						sizeof(*tr->problems));
	}
	tr->problems[tr->nproblems++] = p;
}

/* Counts a problem of the current location and keeps its details while under the limit. */
__attribute__((format(printf, 6, 7)))
static void problem(struct reader *rd, enum vt_prof_problem_kind kind, bool has_time,
		    uint64_t time, uint32_t region, const char *fmt, ...)
{
	rd->tr->total_problems++;
	if (++rd->loc->problems > VT_PROF_PROBLEMS_PER_LOCATION)
		return;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	store_problem(rd->tr, (struct vt_prof_problem){
		.location = rd->loc_index,
		.kind = kind,
		.has_time = has_time,
		.time = time,
		.region = region,
		.message = xstrdup(buf),
	});
}

static const char *region_name(const struct reader *rd, uint32_t region)
{
	return rd->tr->regions[region].name;
}

static void count_event(struct reader *rd, enum vt_prof_event kind, uint64_t time)
{
	struct vt_prof_location *loc = rd->loc;
	rd->tr->events[kind]++;
	loc->events++;
	if (!loc->any_event) {
		loc->any_event = true;
		loc->first = loc->last = time;
	} else {
		if (time < rd->prev)
			problem(rd, VT_PROF_TIME_DECREASE, true, time, VT_PROF_NO_REGION,
				"timestamp %" PRIu64 " of %s (event %" PRIu64
				" of the location) is smaller than the previous event's %" PRIu64,
				time, vt_prof_event_names[kind], loc->events, rd->prev);
		if (time < loc->first)
			loc->first = time;
		if (time > loc->last)
			loc->last = time;
	}
	rd->prev = time;
}

static bool region_defined(struct reader *rd, const char *what, uint64_t time, uint32_t region)
{
	if (region < rd->tr->nregions && rd->tr->regions[region].defined)
		return true;
	problem(rd, VT_PROF_UNDEFINED_REGION, true, time, VT_PROF_NO_REGION,
		"%s of undefined region id %" PRIu32 " at %" PRIu64 "; ignored", what, region, time);
	return false;
}

/* Closes the innermost open activation at time. */
static void pop_frame(struct reader *rd, uint64_t time)
{
	struct frame f = rd->stack[--rd->depth];
	/* A decreasing timestamp is reported elsewhere; here it only must not wrap around. */
	uint64_t dur = time > f.enter ? time - f.enter : 0;
	rd->excl[f.region] += dur > f.child ? dur - f.child : 0;
	if (--rd->active[f.region] == 0)
		rd->incl[f.region] += dur;
	if (rd->depth)
		rd->stack[rd->depth - 1].child += dur;
}

static OTF2_CallbackCode on_Enter(VT_PROF_EVT_ARGS, OTF2_RegionRef region)
{
	struct reader *rd = user;
	count_event(rd, VT_PROF_EV_Enter, time);
	rd->loc->enters++;
	if (!region_defined(rd, "Enter", time, region))
		return OTF2_CALLBACK_SUCCESS;
	if (rd->depth == rd->stack_cap) {
		rd->stack_cap = rd->stack_cap ? 2 * rd->stack_cap : 64;
		rd->stack = vt_prof_xrealloc(rd->stack, rd->stack_cap, sizeof(*rd->stack));
	}
	rd->stack[rd->depth++] = (struct frame){ .region = region, .enter = time };
	if (rd->calls[region]++ == 0)
		rd->touched[rd->ntouched++] = region;
	rd->active[region]++;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_Leave(VT_PROF_EVT_ARGS, OTF2_RegionRef region)
{
	struct reader *rd = user;
	count_event(rd, VT_PROF_EV_Leave, time);
	rd->loc->leaves++;
	if (!region_defined(rd, "Leave", time, region))
		return OTF2_CALLBACK_SUCCESS;
	if (rd->depth == 0) {
		problem(rd, VT_PROF_LEAVE_UNMATCHED, true, time, region,
			"Leave of '%s' at %" PRIu64 " while no region is open; ignored",
			region_name(rd, region), time);
		return OTF2_CALLBACK_SUCCESS;
	}
	uint32_t top = rd->stack[rd->depth - 1].region;
	if (top == region) {
		pop_frame(rd, time);
		return OTF2_CALLBACK_SUCCESS;
	}
	if (rd->active[region] == 0) {
		problem(rd, VT_PROF_LEAVE_MISMATCH, true, time, region,
			"Leave of '%s' at %" PRIu64 " does not match the innermost open region "
			"'%s', and '%s' is not open; ignored",
			region_name(rd, region), time, region_name(rd, top),
			region_name(rd, region));
		return OTF2_CALLBACK_SUCCESS;
	}
	/* The region is open further out: its inner activations missed their Leave. */
	size_t inner = 0;
	while (rd->stack[rd->depth - 1 - inner].region != region)
		inner++;
	problem(rd, VT_PROF_LEAVE_MISMATCH, true, time, region,
		"Leave of '%s' at %" PRIu64 " does not match the innermost open region '%s'; "
		"%zu region(s) inside it closed at this time",
		region_name(rd, region), time, region_name(rd, top), inner);
	for (size_t i = 0; i <= inner; i++)
		pop_frame(rd, time);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_BufferFlush(VT_PROF_EVT_ARGS, OTF2_TimeStamp stop)
{
	struct reader *rd = user;
	count_event(rd, VT_PROF_EV_BufferFlush, time);
	if (stop > time)
		rd->loc->flush_ticks += stop - time;
	return OTF2_CALLBACK_SUCCESS;
}

/* The other kinds are counted only. */
#define VT_PROF_COUNTER(name, params)                                 \
	static OTF2_CallbackCode on_##name params                     \
	{                                                             \
		count_event(user, VT_PROF_EV_##name, time);           \
		return OTF2_CALLBACK_SUCCESS;                         \
	}
VT_PROF_OTHER_EVENT_KINDS(VT_PROF_COUNTER)
#undef VT_PROF_COUNTER

static OTF2_EvtReaderCallbacks *event_callbacks(void)
{
	OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
#define VT_PROF_REGISTER(name, params) OTF2_EvtReaderCallbacks_Set##name##Callback(cb, on_##name);
	VT_PROF_PROFILE_EVENT_KINDS(VT_PROF_REGISTER)
	VT_PROF_OTHER_EVENT_KINDS(VT_PROF_REGISTER)
#undef VT_PROF_REGISTER
	return cb;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Reports and closes what is still open, then moves the location's results out of the tables. */
static void end_location(struct reader *rd)
{
	struct vt_prof_trace *tr = rd->tr;
	struct vt_prof_location *loc = rd->loc;

	if (rd->depth) {
		char names[512];
		size_t used = 0, shown = rd->depth < OPEN_NAMES_SHOWN ? rd->depth
								       : OPEN_NAMES_SHOWN;
		names[0] = '\0';
		for (size_t i = 0; i < shown && used < sizeof(names); i++) {
			int n = snprintf(names + used, sizeof(names) - used, "%s'%s'",
					 i ? " > " : "", region_name(rd, rd->stack[i].region));
			used += n > 0 ? (size_t)n : 0;
		}
		uint32_t innermost = rd->stack[rd->depth - 1].region;
		problem(rd, VT_PROF_OPEN_AT_END, true, loc->last, innermost,
			"%zu region(s) still open after the last event (outermost first: %s%s); "
			"closed at %" PRIu64,
			rd->depth, names, rd->depth > shown ? " > ..." : "", loc->last);
		while (rd->depth)
			pop_frame(rd, loc->last);
	}

	if (loc->problems > VT_PROF_PROBLEMS_PER_LOCATION) {
		/* Not itself a problem, so not counted: it says how many were left out. */
		char buf[96];
		snprintf(buf, sizeof(buf), "%" PRIu64 " more problem(s) on this location not listed",
			 loc->problems - VT_PROF_PROBLEMS_PER_LOCATION);
		store_problem(tr, (struct vt_prof_problem){
			.location = rd->loc_index,
			.kind = VT_PROF_SUPPRESSED,
			.region = VT_PROF_NO_REGION,
			.message = xstrdup(buf),
		});
	}

	qsort(rd->touched, rd->ntouched, sizeof(*rd->touched), cmp_u32);
	loc->nregions = rd->ntouched;
	loc->regions = vt_prof_xrealloc(NULL, rd->ntouched, sizeof(*loc->regions));
	for (size_t i = 0; i < rd->ntouched; i++) {
		uint32_t r = rd->touched[i];
		loc->regions[i] = (struct vt_prof_loc_region){
			.region = r, .calls = rd->calls[r], .incl = rd->incl[r], .excl = rd->excl[r],
		};
		tr->regions[r].calls += rd->calls[r];
		tr->regions[r].incl += rd->incl[r];
		tr->regions[r].excl += rd->excl[r];
		rd->calls[r] = rd->incl[r] = rd->excl[r] = 0;
	}
	rd->ntouched = 0;

	if (loc->any_event) {
		if (!tr->any_event || loc->first < tr->first)
			tr->first = loc->first;
		if (!tr->any_event || loc->last > tr->last)
			tr->last = loc->last;
		tr->any_event = true;
	}
	tr->total_events += loc->events;
}

/*
 * Local definitions are optional in OTF2; what matters in them is the mapping tables from local
 * to global ids, which libotf2 applies to the events once read. Returns false when the location
 * has no local definition file.
 */
static bool read_local_defs(OTF2_Reader *reader, uint64_t location)
{
	OTF2_DefReader *defs = OTF2_Reader_GetDefReader(reader, location);
	if (!defs)
		return false;
	uint64_t n = 0;
	OTF2_Reader_ReadAllLocalDefinitions(reader, defs, &n);
	OTF2_Reader_CloseDefReader(reader, defs);
	return true;
}

static int read_events(OTF2_Reader *reader, struct vt_prof_trace *tr, char *err, size_t errlen)
{
	for (size_t i = 0; i < tr->nlocations; i++) {
		OTF2_ErrorCode rc = OTF2_Reader_SelectLocation(reader, tr->locations[i].id);
		if (rc != OTF2_SUCCESS) {
			snprintf(err, errlen, "cannot select location %" PRIu64 ": %s",
				 tr->locations[i].id, otf2_reason(rc));
			return -1;
		}
	}
	if (tr->nlocations == 0)
		return 0;
	bool have_local_defs = OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS;
	bool opened_local_defs = have_local_defs;
	OTF2_ErrorCode rc = OTF2_Reader_OpenEvtFiles(reader);
	if (rc != OTF2_SUCCESS) {
		snprintf(err, errlen, "cannot open the event files: %s", otf2_reason(rc));
		return -1;
	}

	size_t nr = tr->nregions;
	struct reader rd = {
		.tr = tr,
		.calls = xcalloc(nr + 1, sizeof(uint64_t)),
		.incl = xcalloc(nr + 1, sizeof(uint64_t)),
		.excl = xcalloc(nr + 1, sizeof(uint64_t)),
		.active = xcalloc(nr + 1, sizeof(uint32_t)),
		.touched = xcalloc(nr + 1, sizeof(uint32_t)),
	};
	OTF2_EvtReaderCallbacks *cb = event_callbacks();
	int result = 0;

	/* One location at a time, each reader closed after use: open files stay few. */
	for (size_t i = 0; i < tr->nlocations && result == 0; i++) {
		struct vt_prof_location *loc = &tr->locations[i];
		rd.loc = loc;
		rd.loc_index = i;
		rd.prev = 0;
		otf2_message[0] = '\0';
		/*
		 * libotf2 3.0 leaks a definition chunk buffer (4 MiB by default) on every
		 * OTF2_Reader_GetDefReader that finds no file. Writers write local definitions
		 * for every location or for none, so the first miss ends the attempts.
		 */
		if (have_local_defs)
			have_local_defs = read_local_defs(reader, loc->id);
		OTF2_EvtReader *evt = OTF2_Reader_GetEvtReader(reader, loc->id);
		if (!evt) {
			snprintf(err, errlen, "cannot open the events of location %" PRIu64 ": %s",
				 loc->id, otf2_reason(OTF2_ERROR_INVALID));
			result = -1;
			break;
		}
		OTF2_Reader_RegisterEvtCallbacks(reader, evt, cb, &rd);
		uint64_t n = 0;
		rc = OTF2_Reader_ReadAllLocalEvents(reader, evt, &n);
		if (rc != OTF2_SUCCESS) {
			snprintf(err, errlen, "cannot read the events of location %" PRIu64 ": %s",
				 loc->id, otf2_reason(rc));
			result = -1;
		} else {
			end_location(&rd);
		}
		OTF2_Reader_CloseEvtReader(reader, evt);
	}

	OTF2_EvtReaderCallbacks_Delete(cb);
	OTF2_Reader_CloseEvtFiles(reader);
	if (opened_local_defs)
		OTF2_Reader_CloseDefFiles(reader);
	free(rd.stack);
	free(rd.calls);
	free(rd.incl);
	free(rd.excl);
	free(rd.active);
	free(rd.touched);
	return result;
}

int vt_prof_read(struct vt_prof_trace *tr, char *err, size_t errlen)
{
	struct stat st;
	if (stat(tr->path, &st) != 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "is a directory; give the archive's .otf2 anchor file");
		return -1;
	}
	size_t len = strlen(tr->path);
	if (len < 5 || strcmp(tr->path + len - 5, ".otf2") != 0) {
		snprintf(err, errlen, "not an OTF2 anchor file (its name ends in .otf2)");
		return -1;
	}

	/* libotf2 would print its own multi-line errors; vt-profile says one line instead. */
	OTF2_Error_RegisterCallback(on_otf2_error, NULL);
	otf2_message[0] = '\0';
	OTF2_Reader *reader = OTF2_Reader_Open(tr->path);
	if (!reader) {
		snprintf(err, errlen, "not a readable OTF2 archive: %s",
			 otf2_reason(OTF2_ERROR_INVALID));
		return -1;
	}
	int result = -1;
	OTF2_ErrorCode rc = OTF2_Reader_SetSerialCollectiveCallbacks(reader);
	if (rc != OTF2_SUCCESS)
		snprintf(err, errlen, "cannot set up the reader: %s", otf2_reason(rc));
	else if (read_global_defs(reader, tr, err, errlen) == 0)
		result = read_events(reader, tr, err, errlen);
	OTF2_Reader_Close(reader);
	return result;
}

void vt_prof_free(struct vt_prof_trace *tr)
{
	for (size_t i = 0; i < tr->nstrings; i++)
		free(tr->strings[i]);
	free(tr->strings);
	for (size_t i = 0; i < tr->nregions; i++)
		free(tr->regions[i].fallback_name);
	free(tr->regions);
	free(tr->group_names);
	for (size_t i = 0; i < tr->nlocations; i++)
		free(tr->locations[i].regions);
	free(tr->locations);
	for (size_t i = 0; i < tr->nproblems; i++)
		free(tr->problems[i].message);
	free(tr->problems);
}
