/* SPDX-License-Identifier: BSD-3-Clause */
/* libvttrace: opening an archive and its global definitions (see vtr.h). */
#include "vtr_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* libotf2 callbacks have fixed signatures; many parameters go unused. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

const char *const vtr_coll_op_names[VTR_COLL_OPS + 1] = {
    "barrier",
    "bcast",
    "gather",
    "gatherv",
    "scatter",
    "scatterv",
    "allgather",
    "allgatherv",
    "alltoall",
    "alltoallv",
    "alltoallw",
    "allreduce",
    "reduce",
    "reduce_scatter",
    "scan",
    "exscan",
    "reduce_scatter_block",
    "create_handle",
    "destroy_handle",
    "allocate",
    "deallocate",
    "create_handle_and_allocate",
    "destroy_handle_and_deallocate",
    "unknown",
};

const char *const vtr_event_names[VTR_EV_COUNT] = {
#define VTR_NAME(name, params) #name,
    VTR_MAIN_EVENT_KINDS(VTR_NAME) VTR_OTHER_EVENT_KINDS(VTR_NAME)
#undef VTR_NAME
};

static void out_of_memory(void)
{
	fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
	exit(2);
}

void *vtr_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		out_of_memory();
	size_t bytes = n * size;
	void *q = realloc(p, bytes ? bytes : 1);
	if (!q)
		out_of_memory();
	return q;
}

void *vtr_xcalloc(size_t n, size_t size)
{
	void *p = vtr_xrealloc(NULL, n, size);
	return memset(p, 0, n * size);
}

char *vtr_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(vtr_xrealloc(NULL, n, 1), s, n);
}

/* Makes *arr hold at least need elements; new ones zeroed. Amortised O(1) per id. */
static void grow_zeroed(void **arr, size_t *len, size_t need, size_t elem)
{
	if (need <= *len)
		return;
	size_t cap = *len ? *len : 16;
	while (cap < need)
		cap *= 2;
	*arr = vtr_xrealloc(*arr, cap, elem);
	memset((char *)*arr + *len * elem, 0, (cap - *len) * elem);
	*len = cap;
}

/*
 * libotf2 reports errors through this hook, each layer adding its own line on the way up;
 * the first one since the last reset names the cause and becomes part of the one-line reason.
 */
static char otf2_message[256];

__attribute__((format(printf, 6, 0))) static OTF2_ErrorCode
on_otf2_error(void *user, const char *file, uint64_t line, const char *function,
	      OTF2_ErrorCode code, const char *fmt, va_list va)
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

void vtr_reset_reason(void)
{
	otf2_message[0] = '\0';
}

bool vtr_reported(void)
{
	return otf2_message[0] != '\0';
}

const char *vtr_reason(int code)
{
	return otf2_message[0] ? otf2_message : OTF2_Error_GetDescription((OTF2_ErrorCode)code);
}

/* ---- global definitions ---- */

/* Groups, kept until the locations' ranks and the communicators' members are known. */
struct group_def {
	bool defined;
	uint32_t name, type, paradigm, n;
	uint64_t *members;
};

struct def_state {
	struct vtr_trace *tr;
	size_t locations_cap, ngroup_defs;
	struct group_def *group_defs;
	uint32_t *region_names, *region_files, *loc_names, *lg_names, *node_names, *node_classes,
	    *comm_names, *metric_names, *metric_units, *scl_files, *igen_name, *io_paradigm_names,
	    *io_file_names, *io_handle_names;
	size_t nscl_files, nigen_name, nio_paradigm_names, nio_file_names, nio_handle_names;
	size_t nregion_names, nloc_names, nlg_names, nnode_names, ncomm_names, nmetric_names;
	uint64_t bad_id;
	const char *bad_kind;
};

static OTF2_CallbackCode too_large(struct def_state *ds, const char *kind, uint64_t id)
{
	ds->bad_kind = kind;
	ds->bad_id = id;
	return OTF2_CALLBACK_INTERRUPT;
}

#define DENSE(kind, id)                                                                            \
	do {                                                                                       \
		if ((id) >= VTR_MAX_DENSE_ID)                                                      \
			return too_large(ds, kind, id);                                            \
	} while (0)

static OTF2_CallbackCode on_clock(void *user, uint64_t resolution, uint64_t offset, uint64_t length,
				  uint64_t realtime)
{
	struct def_state *ds = user;
	ds->tr->resolution = resolution;
	ds->tr->offset = offset;
	ds->tr->length = length;
	ds->tr->have_clock = true;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *user, OTF2_StringRef self, const char *string)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	DENSE("string", self);
	grow_zeroed((void **)&tr->strings, &tr->nstrings, (size_t)self + 1, sizeof(*tr->strings));
	free(tr->strings[self]);
	tr->strings[self] = vtr_xstrdup(string ? string : "");
	return OTF2_CALLBACK_SUCCESS;
}

/* The string ids of a definition, resolved to text once every string is known (OTF2 does not
 * order strings before their users). */
static void keep_ref(uint32_t **arr, size_t *len, size_t id, uint32_t ref)
{
	size_t old = *len;
	grow_zeroed((void **)arr, len, id + 1, sizeof(**arr));
	for (size_t i = old; i < *len; i++)
		(*arr)[i] = OTF2_UNDEFINED_STRING;
	(*arr)[id] = ref;
}

static OTF2_CallbackCode on_region(void *user, OTF2_RegionRef self, OTF2_StringRef name,
				   OTF2_StringRef canonical, OTF2_StringRef description,
				   OTF2_RegionRole role, OTF2_Paradigm paradigm,
				   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
				   uint32_t end)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	DENSE("region", self);
	grow_zeroed((void **)&tr->regions, &tr->nregions, (size_t)self + 1, sizeof(*tr->regions));
	struct vtr_region *r = &tr->regions[self];
	r->defined = true;
	r->line = begin;
	r->paradigm = paradigm;
	r->role = role;
	size_t n = ds->nregion_names;
	keep_ref(&ds->region_names, &ds->nregion_names, self, name);
	keep_ref(&ds->region_files, &n, self, file);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_scl(void *user, OTF2_SourceCodeLocationRef self, OTF2_StringRef file,
				uint32_t line)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	DENSE("source code location", self);
	grow_zeroed((void **)&tr->scls, &tr->nscls, (size_t)self + 1, sizeof(*tr->scls));
	tr->scls[self].defined = true;
	tr->scls[self].line = line;
	keep_ref(&ds->scl_files, &ds->nscl_files, self, file);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_callctx(void *user, OTF2_CallingContextRef self, OTF2_RegionRef region,
				    OTF2_SourceCodeLocationRef scl, OTF2_CallingContextRef parent)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	DENSE("calling context", self);
	grow_zeroed((void **)&tr->callctxs, &tr->ncallctxs, (size_t)self + 1,
		    sizeof(*tr->callctxs));
	tr->callctxs[self] = (struct vtr_callctx){
	    true, region, scl == OTF2_UNDEFINED_SOURCE_CODE_LOCATION ? VTR_NONE : scl,
	    parent == OTF2_UNDEFINED_CALLING_CONTEXT ? VTR_NONE : parent};
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_igen(void *user, OTF2_InterruptGeneratorRef self, OTF2_StringRef name,
				 OTF2_InterruptGeneratorMode mode, OTF2_Base base, int64_t exponent,
				 uint64_t period)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	if (tr->sample_period > 0)
		return OTF2_CALLBACK_SUCCESS;
	double p = (double)period;
	for (int64_t e = exponent; e > 0; e--)
		p *= base == OTF2_BASE_BINARY ? 2 : 10;
	for (int64_t e = exponent; e < 0; e++)
		p /= base == OTF2_BASE_BINARY ? 2 : 10;
	tr->sample_period = mode == OTF2_INTERRUPT_GENERATOR_MODE_TIME ? p : 0;
	keep_ref(&ds->igen_name, &ds->nigen_name, 0, name);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_node(void *user, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
				 OTF2_StringRef class_name, OTF2_SystemTreeNodeRef parent)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	DENSE("system tree node", self);
	grow_zeroed((void **)&tr->nodes, &tr->nnodes, (size_t)self + 1, sizeof(*tr->nodes));
	tr->nodes[self].defined = true;
	tr->nodes[self].parent = parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? VTR_NONE : parent;
	size_t n = ds->nnode_names;
	keep_ref(&ds->node_names, &ds->nnode_names, self, name);
	keep_ref(&ds->node_classes, &n, self, class_name);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location_group(void *user, OTF2_LocationGroupRef self,
					   OTF2_StringRef name, OTF2_LocationGroupType type,
					   OTF2_SystemTreeNodeRef parent,
					   OTF2_LocationGroupRef creator)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	DENSE("location group", self);
	grow_zeroed((void **)&tr->groups, &tr->ngroups, (size_t)self + 1, sizeof(*tr->groups));
	tr->groups[self].defined = true;
	tr->groups[self].type = type;
	tr->groups[self].parent = parent;
	keep_ref(&ds->lg_names, &ds->nlg_names, self, name);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *user, OTF2_LocationRef self, OTF2_StringRef name,
				     OTF2_LocationType type, uint64_t events,
				     OTF2_LocationGroupRef group)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	if (tr->nlocations == ds->locations_cap) {
		ds->locations_cap = ds->locations_cap ? 2 * ds->locations_cap : 16;
		tr->locations =
		    vtr_xrealloc(tr->locations, ds->locations_cap, sizeof(*tr->locations));
	}
	size_t i = tr->nlocations++;
	tr->locations[i] = (struct vtr_location){.id = self,
						 .index = i,
						 .type = type,
						 .events = events,
						 .group = group,
						 .rank = VTR_NONE};
	keep_ref(&ds->loc_names, &ds->nloc_names, i, name);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *user, OTF2_GroupRef self, OTF2_StringRef name,
				  OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
				  uint32_t n, const uint64_t *members)
{
	struct def_state *ds = user;
	DENSE("group", self);
	grow_zeroed((void **)&ds->group_defs, &ds->ngroup_defs, (size_t)self + 1,
		    sizeof(*ds->group_defs));
	struct group_def *g = &ds->group_defs[self];
	free(g->members);
	*g = (struct group_def){true,	  name, type,
				paradigm, n,	vtr_xrealloc(NULL, n ? n : 1, sizeof(uint64_t))};
	if (n)
		memcpy(g->members, members, n * sizeof(uint64_t));
	return OTF2_CALLBACK_SUCCESS;
}

/* vt's snapshots mark the message and collective ends their window cuts apart. */
static OTF2_CallbackCode on_attribute(void *user, OTF2_AttributeRef self, OTF2_StringRef name,
				      OTF2_StringRef description, OTF2_Type type)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	if (name < tr->nstrings && tr->strings[name] &&
	    strcmp(tr->strings[name], "vt::outside_window") == 0)
		tr->cut_attr = self;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *user, OTF2_CommRef self, OTF2_StringRef name,
				 OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	DENSE("communicator", self);
	grow_zeroed((void **)&tr->comms, &tr->ncomms, (size_t)self + 1, sizeof(*tr->comms));
	struct vtr_comm *c = &tr->comms[self];
	c->defined = true;
	c->group = group;
	c->parent = parent == OTF2_UNDEFINED_COMM ? VTR_NONE : parent;
	keep_ref(&ds->comm_names, &ds->ncomm_names, self, name);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_metric_member(void *user, OTF2_MetricMemberRef self,
					  OTF2_StringRef name, OTF2_StringRef description,
					  OTF2_MetricType type, OTF2_MetricMode mode,
					  OTF2_Type value_type, OTF2_Base base, int64_t exponent,
					  OTF2_StringRef unit)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	DENSE("metric member", self);
	grow_zeroed((void **)&tr->metrics, &tr->nmetrics, (size_t)self + 1, sizeof(*tr->metrics));
	tr->metrics[self] = (struct vtr_metric){true, NULL, NULL, value_type, mode};
	size_t n = ds->nmetric_names;
	keep_ref(&ds->metric_names, &ds->nmetric_names, self, name);
	keep_ref(&ds->metric_units, &n, self, unit);
	return OTF2_CALLBACK_SUCCESS;
}

static struct vtr_metric_class *metric_class(struct vtr_trace *tr, uint32_t self)
{
	grow_zeroed((void **)&tr->metric_classes, &tr->nmetric_classes, (size_t)self + 1,
		    sizeof(*tr->metric_classes));
	struct vtr_metric_class *c = &tr->metric_classes[self];
	free(c->members); /* a second definition of the same id replaces the first */
	*c = (struct vtr_metric_class){.defined = true, .recorder = VTR_NONE64};
	return c;
}

static OTF2_CallbackCode on_metric_class(void *user, OTF2_MetricRef self, uint8_t n,
					 const OTF2_MetricMemberRef *members,
					 OTF2_MetricOccurrence occurrence,
					 OTF2_RecorderKind recorder_kind)
{
	struct def_state *ds = user;
	(void)occurrence;
	(void)recorder_kind;
	DENSE("metric", self);
	struct vtr_metric_class *c = metric_class(ds->tr, self);
	c->nmembers = n;
	c->members = vtr_xrealloc(NULL, n ? n : 1, sizeof(*c->members));
	for (uint8_t i = 0; i < n; i++)
		c->members[i] = members[i];
	return OTF2_CALLBACK_SUCCESS;
}

/* An instance's members are its class's, copied once every definition is read. */
static OTF2_CallbackCode on_metric_instance(void *user, OTF2_MetricRef self,
					    OTF2_MetricRef of_class, OTF2_LocationRef recorder,
					    OTF2_MetricScope scope_type, uint64_t scope)
{
	struct def_state *ds = user;
	(void)scope_type;
	(void)scope;
	DENSE("metric", self);
	struct vtr_metric_class *c = metric_class(ds->tr, self);
	c->instance = true;
	c->recorder = recorder;
	c->nmembers = of_class; /* the class, until resolve() */
	return OTF2_CALLBACK_SUCCESS;
}

static const char *string_or(const struct vtr_trace *tr, const uint32_t *refs, size_t n, size_t i,
			     const char *dflt)
{
	uint32_t ref = refs && i < n ? refs[i] : OTF2_UNDEFINED_STRING;
	return ref < tr->nstrings && tr->strings[ref] ? tr->strings[ref] : dflt;
}

/* The tables grow by doubling: their length is the highest defined id + 1. */
#define TRIM(arr, n)                                                                               \
	do {                                                                                       \
		while ((n) > 0 && !(arr)[(n)-1].defined)                                           \
			(n)--;                                                                     \
	} while (0)

/* ---- OTF2's I/O model ---- */

static OTF2_CallbackCode on_io_paradigm(void *user, OTF2_IoParadigmRef self,
					OTF2_StringRef identification, OTF2_StringRef name,
					OTF2_IoParadigmClass cls, OTF2_IoParadigmFlag flags,
					uint8_t nprops, const OTF2_IoParadigmProperty *props,
					const OTF2_Type *types, const OTF2_AttributeValue *values)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	/* An OTF2_IoParadigmRef is 8 bits: always below VTR_MAX_DENSE_ID. */
	grow_zeroed((void **)&tr->io_paradigms, &tr->nio_paradigms, (size_t)self + 1,
		    sizeof(*tr->io_paradigms));
	tr->io_paradigms[self].defined = true;
	keep_ref(&ds->io_paradigm_names, &ds->nio_paradigm_names, self, identification);
	return OTF2_CALLBACK_SUCCESS;
}

/* Regular files and directories alike: both are IoFileRefs. */
static OTF2_CallbackCode on_io_file(void *user, OTF2_IoFileRef self, OTF2_StringRef name,
				    OTF2_SystemTreeNodeRef scope)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	DENSE("I/O file", self);
	grow_zeroed((void **)&tr->io_files, &tr->nio_files, (size_t)self + 1,
		    sizeof(*tr->io_files));
	tr->io_files[self].defined = true;
	keep_ref(&ds->io_file_names, &ds->nio_file_names, self, name);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_io_handle(void *user, OTF2_IoHandleRef self, OTF2_StringRef name,
				      OTF2_IoFileRef file, OTF2_IoParadigmRef paradigm,
				      OTF2_IoHandleFlag flags, OTF2_CommRef comm,
				      OTF2_IoHandleRef parent)
{
	struct def_state *ds = user;
	struct vtr_trace *tr = ds->tr;
	DENSE("I/O handle", self);
	grow_zeroed((void **)&tr->io_handles, &tr->nio_handles, (size_t)self + 1,
		    sizeof(*tr->io_handles));
	tr->io_handles[self] =
	    (struct vtr_io_handle){true,
				   NULL,
				   file == OTF2_UNDEFINED_IO_FILE ? VTR_NONE : file,
				   paradigm,
				   comm == OTF2_UNDEFINED_COMM ? VTR_NONE : comm,
				   parent == OTF2_UNDEFINED_IO_HANDLE ? VTR_NONE : parent};
	keep_ref(&ds->io_handle_names, &ds->nio_handle_names, self, name);
	return OTF2_CALLBACK_SUCCESS;
}

/* Names, and references to what is not defined made VTR_NONE. */
static void resolve_io(struct def_state *ds)
{
	struct vtr_trace *tr = ds->tr;
	TRIM(tr->io_paradigms, tr->nio_paradigms);
	TRIM(tr->io_files, tr->nio_files);
	TRIM(tr->io_handles, tr->nio_handles);
	for (size_t i = 0; i < tr->nio_paradigms; i++)
		tr->io_paradigms[i].name =
		    string_or(tr, ds->io_paradigm_names, ds->nio_paradigm_names, i, "");
	for (size_t i = 0; i < tr->nio_files; i++)
		tr->io_files[i].name = string_or(tr, ds->io_file_names, ds->nio_file_names, i, "");
	for (size_t i = 0; i < tr->nio_handles; i++) {
		struct vtr_io_handle *h = &tr->io_handles[i];
		h->name = string_or(tr, ds->io_handle_names, ds->nio_handle_names, i, "");
		if (h->file != VTR_NONE &&
		    (h->file >= tr->nio_files || !tr->io_files[h->file].defined))
			h->file = VTR_NONE;
		if (h->paradigm >= tr->nio_paradigms || !tr->io_paradigms[h->paradigm].defined)
			h->paradigm = VTR_NONE;
	}
}

/* Each member's location (index in tr->locations, VTR_NONE where it names none): a group of
 * locations lists their ids, a COMM_GROUP indexes the COMM_LOCATIONS group of its paradigm
 * (OpenMP's thread teams, pthreads' contingents, MPI's communicators alike). */
static void comm_locations(struct def_state *ds, struct vtr_comm *cm, const struct group_def *g)
{
	const struct group_def *all = NULL;
	if (g->type == OTF2_GROUP_TYPE_COMM_GROUP)
		for (size_t i = 0; i < ds->ngroup_defs; i++)
			if (ds->group_defs[i].defined &&
			    ds->group_defs[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
			    ds->group_defs[i].paradigm == g->paradigm)
				all = &ds->group_defs[i];
	bool direct =
	    g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS || g->type == OTF2_GROUP_TYPE_LOCATIONS;
	cm->location_of_member = vtr_xrealloc(NULL, cm->size ? cm->size : 1, sizeof(uint32_t));
	for (uint32_t m = 0; m < cm->size; m++) {
		const struct vtr_location *l = NULL;
		if (m < g->n && direct)
			l = vtr_location(ds->tr, g->members[m]);
		else if (m < g->n && all && g->members[m] < all->n)
			l = vtr_location(ds->tr, all->members[g->members[m]]);
		cm->location_of_member[m] = l ? (uint32_t)l->index : VTR_NONE;
	}
}

/* Names, ranks and communicator members, once every definition is there. */
static void resolve(struct def_state *ds)
{
	struct vtr_trace *tr = ds->tr;
	TRIM(tr->regions, tr->nregions);
	TRIM(tr->groups, tr->ngroups);
	TRIM(tr->nodes, tr->nnodes);
	TRIM(tr->comms, tr->ncomms);
	TRIM(tr->metrics, tr->nmetrics);
	TRIM(tr->metric_classes, tr->nmetric_classes);
	TRIM(tr->callctxs, tr->ncallctxs);
	TRIM(tr->scls, tr->nscls);
	resolve_io(ds);
	for (size_t i = 0; i < tr->nscls; i++)
		tr->scls[i].file = string_or(tr, ds->scl_files, ds->nscl_files, i, "");
	tr->sample_source = string_or(tr, ds->igen_name, ds->nigen_name, 0, "");
	for (size_t i = 0; i < tr->nregions; i++) {
		struct vtr_region *r = &tr->regions[i];
		r->name = string_or(tr, ds->region_names, ds->nregion_names, i, NULL);
		if (!r->defined || !r->name) {
			char buf[32];
			snprintf(buf, sizeof(buf), "<region %zu>", i);
			r->name = vtr_intern(tr, buf);
		}
		r->file = string_or(tr, ds->region_files, ds->nregion_names, i, "");
	}
	for (size_t i = 0; i < tr->ngroups; i++)
		tr->groups[i].name = string_or(tr, ds->lg_names, ds->nlg_names, i, "");
	for (size_t i = 0; i < tr->nnodes; i++) {
		tr->nodes[i].name = string_or(tr, ds->node_names, ds->nnode_names, i, "");
		tr->nodes[i].class_name = string_or(tr, ds->node_classes, ds->nnode_names, i, "");
	}
	for (size_t i = 0; i < tr->nmetrics; i++) {
		tr->metrics[i].name = string_or(tr, ds->metric_names, ds->nmetric_names, i, "");
		tr->metrics[i].unit = string_or(tr, ds->metric_units, ds->nmetric_names, i, "");
	}
	for (size_t i = 0; i < tr->nmetric_classes; i++) {
		struct vtr_metric_class *c = &tr->metric_classes[i];
		if (!c->defined || !c->instance)
			continue;
		uint32_t k = c->nmembers;
		const struct vtr_metric_class *of = k < tr->nmetric_classes &&
							    tr->metric_classes[k].defined &&
							    !tr->metric_classes[k].instance
							? &tr->metric_classes[k]
							: NULL;
		c->nmembers = of ? of->nmembers : 0;
		c->members = vtr_xrealloc(NULL, c->nmembers + 1, sizeof(*c->members));
		if (of)
			memcpy(c->members, of->members, of->nmembers * sizeof(*c->members));
	}
	/* Members beyond the defined ones would index past vtr_trace.metrics. */
	for (size_t i = 0; i < tr->nmetric_classes; i++) {
		struct vtr_metric_class *c = &tr->metric_classes[i];
		for (uint32_t m = 0; c->defined && m < c->nmembers; m++)
			if (c->members[m] >= tr->nmetrics)
				c->members[m] = VTR_NONE;
	}
	for (size_t i = 0; i < tr->nlocations; i++) {
		struct vtr_location *l = &tr->locations[i];
		l->name = string_or(tr, ds->loc_names, ds->nloc_names, i, "");
		l->group_name = l->group < tr->ngroups ? tr->groups[l->group].name : "";
	}
	vtr_index_locations(tr);

	/* MPI ranks: positions in the MPI COMM_LOCATIONS group; a process's other threads
	 * share its rank through their location group. */
	const struct group_def *mpi = NULL;
	for (size_t g = 0; g < ds->ngroup_defs; g++)
		if (ds->group_defs[g].defined &&
		    ds->group_defs[g].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
		    ds->group_defs[g].paradigm == OTF2_PARADIGM_MPI)
			mpi = &ds->group_defs[g];
	uint32_t *rank_of_group = vtr_xcalloc(tr->ngroups + 1, sizeof(uint32_t));
	for (size_t g = 0; g <= tr->ngroups; g++)
		rank_of_group[g] = VTR_NONE;
	/* Threads that make MPI calls may follow the masters there (vt lists them so that a
	 * communicator can name them): a process's rank is its first position. Each position's
	 * rank, to translate the members of communicators. */
	uint32_t *rank_of_pos = vtr_xcalloc(mpi && mpi->n ? mpi->n : 1, sizeof(uint32_t));
	for (uint32_t p = 0; mpi && p < mpi->n; p++) {
		const struct vtr_location *l = vtr_location(tr, mpi->members[p]);
		if (l && l->group < tr->ngroups && rank_of_group[l->group] == VTR_NONE)
			rank_of_group[l->group] = p;
	}
	for (uint32_t p = 0; mpi && p < mpi->n; p++) {
		const struct vtr_location *l = vtr_location(tr, mpi->members[p]);
		rank_of_pos[p] = l && l->group < tr->ngroups ? rank_of_group[l->group] : p;
	}
	for (size_t i = 0; i < tr->nlocations; i++) {
		struct vtr_location *l = &tr->locations[i];
		l->rank = l->group < tr->ngroups ? rank_of_group[l->group] : VTR_NONE;
	}
	free(rank_of_group);
	for (size_t c = 0; c < tr->ncomms; c++) {
		struct vtr_comm *cm = &tr->comms[c];
		cm->name = string_or(tr, ds->comm_names, ds->ncomm_names, c, "");
		const struct group_def *g =
		    cm->group < ds->ngroup_defs ? &ds->group_defs[cm->group] : NULL;
		if (!cm->defined || !g || !g->defined)
			continue;
		cm->paradigm = g->paradigm;
		cm->size = g->type == OTF2_GROUP_TYPE_COMM_SELF ? 1 : g->n;
		cm->rank_of_member = vtr_xrealloc(NULL, cm->size ? cm->size : 1, sizeof(uint32_t));
		for (uint32_t m = 0; m < cm->size; m++)
			cm->rank_of_member[m] =
			    g->paradigm == OTF2_PARADIGM_MPI && m < g->n
				? (mpi && g->members[m] < mpi->n ? rank_of_pos[g->members[m]]
								 : (uint32_t)g->members[m])
				: VTR_NONE;
		comm_locations(ds, cm, g);
	}
	free(rank_of_pos);
}

static void free_defs(struct def_state *ds)
{
	for (size_t g = 0; g < ds->ngroup_defs; g++)
		free(ds->group_defs[g].members);
	free(ds->group_defs);
	free(ds->region_names);
	free(ds->region_files);
	free(ds->loc_names);
	free(ds->lg_names);
	free(ds->node_names);
	free(ds->node_classes);
	free(ds->comm_names);
	free(ds->metric_names);
	free(ds->metric_units);
	free(ds->scl_files);
	free(ds->igen_name);
	free(ds->io_paradigm_names);
	free(ds->io_file_names);
	free(ds->io_handle_names);
}

static int read_global_defs(struct vtr_trace *tr)
{
	struct def_state ds = {.tr = tr};
	OTF2_GlobalDefReader *defs = OTF2_Reader_GetGlobalDefReader(tr->reader);
	if (!defs) {
		snprintf(tr->err, sizeof(tr->err), "cannot read global definitions: %s",
			 vtr_reason(OTF2_ERROR_INVALID));
		return -1;
	}
	OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
	OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(cb, on_scl);
	OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(cb, on_callctx);
	OTF2_GlobalDefReaderCallbacks_SetInterruptGeneratorCallback(cb, on_igen);
	OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_node);
	OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_location_group);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
	OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
	OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, on_metric_member);
	OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, on_metric_class);
	OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(cb, on_metric_instance);
	OTF2_GlobalDefReaderCallbacks_SetIoParadigmCallback(cb, on_io_paradigm);
	OTF2_GlobalDefReaderCallbacks_SetIoRegularFileCallback(cb, on_io_file);
	OTF2_GlobalDefReaderCallbacks_SetIoDirectoryCallback(cb, on_io_file);
	OTF2_GlobalDefReaderCallbacks_SetIoHandleCallback(cb, on_io_handle);
	OTF2_Reader_RegisterGlobalDefCallbacks(tr->reader, defs, cb, &ds);
	OTF2_GlobalDefReaderCallbacks_Delete(cb);

	uint64_t n = 0;
	OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(tr->reader, defs, &n);
	OTF2_Reader_CloseGlobalDefReader(tr->reader, defs);
	int result = -1;
	if (ds.bad_kind)
		snprintf(tr->err, sizeof(tr->err),
			 "%s id %" PRIu64 " in the global definitions is too large", ds.bad_kind,
			 ds.bad_id);
	else if (rc != OTF2_SUCCESS)
		snprintf(tr->err, sizeof(tr->err), "cannot read global definitions: %s",
			 vtr_reason(rc));
	else if (!tr->have_clock || tr->resolution == 0)
		snprintf(tr->err, sizeof(tr->err),
			 "no clock properties (timer resolution) in the definitions");
	else
		result = 0;
	if (result == 0) {
		vtr_ns_clock_init(&tr->ns, tr->resolution, tr->offset);
		resolve(&ds);
	}
	free_defs(&ds);
	return result;
}

int vtr_open(struct vtr_trace *tr, const char *path)
{
	struct stat st;
	*tr = (struct vtr_trace){.path = path, .cut_attr = VTR_NONE};
	if (stat(path, &st) != 0) {
		snprintf(tr->err, sizeof(tr->err), "cannot open: %s", strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(tr->err, sizeof(tr->err),
			 "is a directory; give the archive's .otf2 anchor file");
		return -1;
	}
	size_t len = strlen(path);
	if (len < 5 || strcmp(path + len - 5, ".otf2") != 0) {
		snprintf(tr->err, sizeof(tr->err),
			 "not an OTF2 anchor file (its name ends in .otf2)");
		return -1;
	}
	/* libotf2 would print its own multi-line errors; tools say one line instead. */
	OTF2_Error_RegisterCallback(on_otf2_error, NULL);
	vtr_reset_reason();
	tr->reader = OTF2_Reader_Open(path);
	if (!tr->reader) {
		snprintf(tr->err, sizeof(tr->err), "not a readable OTF2 archive: %s",
			 vtr_reason(OTF2_ERROR_INVALID));
		return -1;
	}
	OTF2_ErrorCode rc = OTF2_Reader_SetSerialCollectiveCallbacks(tr->reader);
	if (rc != OTF2_SUCCESS) {
		snprintf(tr->err, sizeof(tr->err), "cannot set up the reader: %s", vtr_reason(rc));
		return -1;
	}
	return read_global_defs(tr);
}

void vtr_close(struct vtr_trace *tr)
{
	if (tr->reader)
		OTF2_Reader_Close(tr->reader);
	for (size_t i = 0; i < tr->nstrings; i++)
		free(tr->strings[i]);
	free(tr->strings);
	free(tr->regions);
	free(tr->locations);
	free(tr->groups);
	free(tr->nodes);
	for (size_t i = 0; i < tr->ncomms; i++) {
		free(tr->comms[i].rank_of_member);
		free(tr->comms[i].location_of_member);
	}
	free(tr->comms);
	free(tr->metrics);
	for (size_t i = 0; i < tr->nmetric_classes; i++)
		free(tr->metric_classes[i].members);
	free(tr->metric_classes);
	free(tr->callctxs);
	free(tr->scls);
	free(tr->io_paradigms);
	free(tr->io_files);
	free(tr->io_handles);
	free(tr->loc_by_id);
	vtr_free_interned(tr);
	*tr = (struct vtr_trace){0};
}

void vtr_archive_info(struct vtr_trace *tr,
		      void (*cb)(void *user, const char *name, const char *value), void *user)
{
	if (!tr->reader)
		return;
	static OTF2_ErrorCode (*const get[])(OTF2_Reader *, char **) = {
	    OTF2_Reader_GetCreator, OTF2_Reader_GetDescription, OTF2_Reader_GetMachineName};
	static const char *const names[] = {"creator", "description", "machine"};
	for (size_t i = 0; i < 3; i++) {
		char *v = NULL;
		if (get[i](tr->reader, &v) == OTF2_SUCCESS && v)
			cb(user, names[i], v);
		free(v);
	}
	uint32_t n = 0;
	char **props = NULL;
	if (OTF2_Reader_GetPropertyNames(tr->reader, &n, &props) != OTF2_SUCCESS)
		return;
	for (uint32_t i = 0; i < n; i++) {
		char *v = NULL;
		if (props[i] && OTF2_Reader_GetProperty(tr->reader, props[i], &v) == OTF2_SUCCESS &&
		    v)
			cb(user, props[i], v);
		free(v);
	}
	free(props);
}
