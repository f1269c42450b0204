/* SPDX-License-Identifier: BSD-3-Clause */
/* The one writer of global definitions, the marker file and the trace properties (vt_unify.h). */
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "defs/vt_mpi_defs.h"
#include "defs/vt_teams.h"
#include "defs/vt_unify.h"
#include "regions/vt_strtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OTF2's scope of an instance, and what it names. */
static void instance_scope(const struct vt_unified *u, const struct vt_unify_inst *g,
			   OTF2_MetricScope *type, uint64_t *scope)
{
	switch (g->scope) {
	case VT_DEF_SCOPE_LOCATION:
		*type = OTF2_SCOPE_LOCATION;
		*scope = g->owner;
		break;
	case VT_DEF_SCOPE_PROCESS:
		*type = OTF2_SCOPE_LOCATION_GROUP;
		*scope = g->rank;
		break;
	case VT_DEF_SCOPE_HOST:
		*type = OTF2_SCOPE_SYSTEM_TREE_NODE;
		*scope = u->procs[g->rank].node;
		break;
	default: /* the run: the root of the system tree */
		*type = OTF2_SCOPE_SYSTEM_TREE_NODE;
		*scope = 0;
		break;
	}
}

static void write_metric(OTF2_GlobalDefWriter *gw, struct vt_strtab *st, uint32_t id,
			 const struct vt_def_metric *m)
{
	if (m->members && *m->members) {
		/* A class of several (a thread's strict synchronous counters): their members. */
		if (m->n_members)
			OTF2_GlobalDefWriter_WriteMetricClass(gw, id, (uint8_t)m->n_members,
							      m->member_ids, m->occurrence,
							      m->recorder_kind);
		return;
	}
	OTF2_MetricMemberRef member = id;
	OTF2_GlobalDefWriter_WriteMetricMember(gw, member, vt_strtab_ref(st, m->name),
					       vt_strtab_ref(st, m->description),
					       OTF2_METRIC_TYPE_OTHER, m->mode, m->type, m->base,
					       m->exponent, vt_strtab_ref(st, m->unit));
	OTF2_GlobalDefWriter_WriteMetricClass(gw, id, 1, &member, m->occurrence, m->recorder_kind);
}

static bool has_thread_teams(const struct vt_unified *u)
{
	for (uint32_t c = 0; c < u->n_comms; c++)
		if (u->comms[c].thread_rank != UINT32_MAX)
			return true;
	return false;
}

/* write_groups writes: MPI's locations (in MPI mode), the threads (if any team), one per
 * communicator, then the groups of processes. */
uint32_t vt_unify_group_base(const struct vt_unified *u)
{
	return (u->mpi ? 1 : 0) + (has_thread_teams(u) ? 1 : 0) + u->n_comms + u->n_lanes +
	       (u->n_teams ? 1 + u->n_teams : 0);
}

static int ref_cmp(const void *a, const void *b)
{
	uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
	return x < y ? -1 : x > y;
}

/*
 * The OpenMP teams: one COMM_LOCATIONS group of paradigm OPENMP (every thread location, in
 * the order of the locations), then per team a COMM_GROUP of its members' positions there,
 * in thread order, and its communicator (global id first_comm + index).
 */
static void write_teams(OTF2_GlobalDefWriter *gw, struct vt_strtab *st, const struct vt_unified *u,
			OTF2_GroupRef *group, uint32_t first_comm, uint64_t *ids)
{
	if (!u->n_teams)
		return;
	/* (ref, position) pairs sorted by ref, to find a member's position */
	uint64_t *pos = calloc(2 * (u->n_locs ? u->n_locs : 1), sizeof(*pos));
	for (size_t i = 0; i < u->n_locs; i++) {
		ids[i] = u->locs[i].ref;
		if (pos) {
			pos[2 * i] = u->locs[i].ref;
			pos[2 * i + 1] = i;
		}
	}
	if (pos)
		qsort(pos, u->n_locs, 2 * sizeof(*pos), ref_cmp);
	OTF2_GlobalDefWriter_WriteGroup(gw, (*group)++, vt_strtab_ref(st, "OpenMP threads"),
					OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
					OTF2_GROUP_FLAG_NONE, (uint32_t)u->n_locs, ids);
	for (uint32_t t = 0; t < u->n_teams; t++) {
		const struct vt_unify_team *tm = &u->teams[t];
		uint32_t n = 0;
		for (const char *p = tm->members; pos && *p && n < u->n_locs;) {
			char *end;
			uint64_t key[2] = {strtoull(p, &end, 10), 0};
			if (end == p) {
				end = strchr(p, ','); /* "-": a thread without a location */
				if (!end)
					break;
			} else {
				const uint64_t *f =
				    bsearch(key, pos, u->n_locs, 2 * sizeof(*pos), ref_cmp);
				if (f)
					ids[n++] = f[1];
			}
			p = *end == ',' ? end + 1 : end;
		}
		char name[64];
		if (u->mpi)
			snprintf(name, sizeof(name), "OpenMP team %u of rank %u",
				 tm->local - VT_TEAMS_LOCAL_BASE, u->base + tm->rank);
		else
			snprintf(name, sizeof(name), "OpenMP team %u",
				 tm->local - VT_TEAMS_LOCAL_BASE);
		OTF2_GroupRef members = (*group)++;
		OTF2_GlobalDefWriter_WriteGroup(gw, members, vt_strtab_ref(st, name),
						OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
						OTF2_GROUP_FLAG_NONE, n, ids);
		OTF2_GlobalDefWriter_WriteComm(gw, first_comm + t, vt_strtab_ref(st, name), members,
					       OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
	}
	free(pos);
}

/* An MPI communicator's name in the trace. */
static void comm_name(const struct vt_unified *u, uint32_t c, char *name, size_t size)
{
	const struct vt_unify_comm *g = &u->comms[c];
	if (g->name)
		snprintf(name, size, "%s", g->name);
	else if (g->key == VT_MPI_KEY_WORLD)
		snprintf(name, size, "MPI_COMM_WORLD");
	else if (g->key == VT_MPI_KEY_SELF)
		snprintf(name, size, "MPI_COMM_SELF");
	else
		snprintf(name, size, "MPI comm %u", c);
}

/* A group of processes: its world ranks, positions in the MPI locations group (whose first
 * is world rank base). */
static void write_process_group(OTF2_GlobalDefWriter *gw, struct vt_strtab *st, OTF2_GroupRef ref,
				const char *members, uint64_t *ids, uint32_t base, uint32_t max)
{
	uint32_t n = 0;
	for (const char *p = members; *p && n < max;) {
		char *end;
		unsigned long r = strtoul(p, &end, 10);
		if (end == p)
			break;
		if (r >= base && r - base < max)
			ids[n++] = r - base;
		p = *end == ',' ? end + 1 : end;
	}
	OTF2_GlobalDefWriter_WriteGroup(gw, ref, vt_strtab_ref(st, ""), OTF2_GROUP_TYPE_COMM_GROUP,
					OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, ids);
}

/* A thread among the MPI locations: its OTF2 id, position and name. */
struct extra {
	uint64_t ref;
	uint32_t pos;
	const char *name;
};

static int extra_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct extra *)a)->ref, y = ((const struct extra *)b)->ref;
	return x < y ? -1 : x > y;
}

static struct extra *find_extra(struct extra *by_ref, size_t n, uint64_t ref)
{
	struct extra key = {ref, 0, NULL};
	if (!by_ref)
		return NULL;
	return bsearch(&key, by_ref, n, sizeof(*by_ref), extra_cmp);
}

static void write_groups(OTF2_GlobalDefWriter *gw, struct vt_strtab *st, const struct vt_unified *u)
{
	/*
	 * OTF2 wants one COMM_LOCATIONS group per paradigm: for MPI every rank (its master
	 * location is location rank), for threads every location; each communicator is then
	 * a COMM_GROUP of positions in its paradigm's group.
	 */
	uint64_t *ids = calloc(u->size + u->n_locs + 1, sizeof(*ids));
	if (!ids)
		return;
	OTF2_GroupRef group = 0;
	if (u->mpi) {
		const OTF2_GroupRef mpi_locations = group++;
		for (uint32_t i = 0; i < u->size; i++)
			ids[i] = u->base + i;
		for (uint32_t i = 0; i < u->n_mpi_extra; i++)
			ids[u->size + i] = u->mpi_extra[i];
		OTF2_GlobalDefWriter_WriteGroup(gw, mpi_locations, vt_strtab_ref(st, "MPI ranks"),
						OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
						OTF2_GROUP_FLAG_NONE, u->size + u->n_mpi_extra,
						ids);
	}
	if (has_thread_teams(u)) {
		for (size_t i = 0; i < u->n_locs; i++)
			ids[i] = u->locs[i].ref;
		OTF2_GlobalDefWriter_WriteGroup(
		    gw, group++, vt_strtab_ref(st, "Threads"), OTF2_GROUP_TYPE_COMM_LOCATIONS,
		    OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE, (uint32_t)u->n_locs, ids);
	}
	for (uint32_t c = 0; c < u->n_comms; c++) {
		const struct vt_unify_comm *g = &u->comms[c];
		char name[VT_COMM_NAME_MAX];
		OTF2_GroupRef members = group++;
		uint32_t n = 0;
		if (g->thread_rank != UINT32_MAX) {
			/* A process's thread team: the positions of its locations among all. */
			for (size_t i = 0; i < u->n_locs; i++)
				if (u->locs[i].rank == g->thread_rank)
					ids[n++] = i;
			if (u->mpi)
				snprintf(name, sizeof(name), "Threads of rank %u",
					 u->base + g->thread_rank);
			else
				snprintf(name, sizeof(name), "Threads");
			OTF2_GlobalDefWriter_WriteGroup(
			    gw, members, vt_strtab_ref(st, name), OTF2_GROUP_TYPE_COMM_GROUP,
			    OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE, n, ids);
		} else if (g->key == VT_MPI_KEY_SELF) {
			comm_name(u, c, name, sizeof(name));
			OTF2_GlobalDefWriter_WriteGroup(
			    gw, members, vt_strtab_ref(st, ""), OTF2_GROUP_TYPE_COMM_SELF,
			    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, ids);
		} else {
			/* A member not seen (a rank not in the archive of a rank alone): the
			 * members are not known, and none is listed rather than wrong ones. */
			bool known = true;
			for (uint32_t i = 0; g->members && i < g->size; i++)
				known = known && g->members[i] != UINT32_MAX;
			for (uint32_t i = 0; known && i < g->size; i++)
				ids[n++] = g->members ? g->members[i] : 0;
			comm_name(u, c, name, sizeof(name));
			OTF2_GlobalDefWriter_WriteGroup(
			    gw, members, vt_strtab_ref(st, ""), OTF2_GROUP_TYPE_COMM_GROUP,
			    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, ids);
		}
		OTF2_GlobalDefWriter_WriteComm(gw, c, vt_strtab_ref(st, name), members,
					       OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
	}
	/* Each lane of a communicator that threads use: its members' positions among the MPI
	 * locations (a thread's after the masters'), named after its threads where they share
	 * a name ("Thread 2"). The threads by OTF2 id, for both. */
	struct extra *by_ref = calloc(u->n_mpi_extra ? u->n_mpi_extra : 1, sizeof(*by_ref));
	for (uint32_t x = 0; by_ref && x < u->n_mpi_extra; x++)
		by_ref[x] = (struct extra){u->mpi_extra[x], u->size + x, ""};
	if (by_ref)
		qsort(by_ref, u->n_mpi_extra, sizeof(*by_ref), extra_cmp);
	for (size_t l = 0; by_ref && l < u->n_locs; l++) {
		struct extra *e = find_extra(by_ref, u->n_mpi_extra, u->locs[l].ref);
		if (e)
			e->name = u->locs[l].name;
	}
	/* (Out of memory: the masters stand in, and the numbering of groups holds.) */
	for (uint32_t k = 0; k < u->n_lanes; k++) {
		const struct vt_unify_lane *lane = &u->lanes[k];
		const struct vt_unify_comm *g = &u->comms[lane->comm];
		char base[VT_COMM_NAME_MAX], name[VT_COMM_NAME_MAX + 32];
		const char *thread = NULL;
		uint32_t n = 0;
		bool known = true; /* as for the communicator itself */
		for (uint32_t i = 0; i < g->size; i++)
			known = known && g->members[i] != UINT32_MAX;
		for (uint32_t i = 0; known && i < g->size; i++) {
			const struct extra *e = find_extra(by_ref, u->n_mpi_extra, lane->locs[i]);
			ids[n++] = e ? e->pos : g->members[i];
			if (e)
				thread = !thread || strcmp(thread, e->name) == 0 ? e->name : "";
		}
		OTF2_GroupRef members = group++;
		comm_name(u, lane->comm, base, sizeof(base));
		if (thread && *thread)
			snprintf(name, sizeof(name), "%s on %s", base, thread);
		else
			snprintf(name, sizeof(name), "%s on threads (lane %u)", base, lane->lane);
		OTF2_GlobalDefWriter_WriteGroup(gw, members, vt_strtab_ref(st, ""),
						OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
						OTF2_GROUP_FLAG_NONE, n, ids);
		OTF2_GlobalDefWriter_WriteComm(gw, u->n_comms + k, vt_strtab_ref(st, name), members,
					       lane->comm, OTF2_COMM_FLAG_NONE);
	}
	free(by_ref);
	write_teams(gw, st, u, &group, u->n_comms + u->n_lanes, ids);
	for (uint32_t g = 0; g < u->n_groups; g++)
		write_process_group(gw, st, group++, u->groups[g], ids, u->base, u->size);
	for (uint32_t w = 0; w < u->n_wins; w++) {
		char name[VT_COMM_NAME_MAX];
		if (u->wins[w].name)
			snprintf(name, sizeof(name), "%s", u->wins[w].name);
		else
			snprintf(name, sizeof(name), "MPI window %u", w);
		OTF2_GlobalDefWriter_WriteRmaWin(gw, w, vt_strtab_ref(st, name), u->wins[w].comm,
						 OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS);
	}
	/* I/O: a paradigm for each one used (dense ids in the order of enum vt_io_paradigm, as
	 * OTF2 wants them), the files by name (on the machine: MPI's files are shared, and a
	 * POSIX path is the same file for every process), each handle named after its file. */
	static const struct {
		const char *id, *name;
		OTF2_IoParadigmClass cls;
	} paradigms[VT_IO_PARADIGM_MAX] = {
	    [VT_IO_PARADIGM_MPI] = {"MPI-IO", "MPI I/O", OTF2_IO_PARADIGM_CLASS_PARALLEL},
	    [VT_IO_PARADIGM_POSIX] = {"POSIX", "POSIX I/O", OTF2_IO_PARADIGM_CLASS_SERIAL},
	    [VT_IO_PARADIGM_ISOC] = {"ISOC", "ISO C I/O", OTF2_IO_PARADIGM_CLASS_SERIAL},
	};
	uint32_t ref[VT_IO_PARADIGM_MAX] = {0};
	bool used[VT_IO_PARADIGM_MAX] = {false};
	for (uint32_t h = 0; h < u->n_ios; h++)
		if (u->ios[h].paradigm < VT_IO_PARADIGM_MAX)
			used[u->ios[h].paradigm] = true;
	/* POSIX first: its reference is 0 whenever it is used, which the IoDeleteFile events
	 * of io/ write before anyone knows which paradigms the run uses (OTF2 maps no
	 * paradigm references). */
	for (uint32_t i = 0, n = 0; i < VT_IO_PARADIGM_MAX; i++) {
		uint32_t p = i == 0 ? VT_IO_PARADIGM_POSIX : i == VT_IO_PARADIGM_POSIX ? 0 : i;
		if (used[p]) {
			ref[p] = n++;
			OTF2_GlobalDefWriter_WriteIoParadigm(
			    gw, ref[p], vt_strtab_ref(st, paradigms[p].id),
			    vt_strtab_ref(st, paradigms[p].name), paradigms[p].cls,
			    OTF2_IO_PARADIGM_FLAG_NONE, 0, NULL, NULL, NULL);
		}
	}
	for (uint32_t f = 0; f < u->n_files; f++)
		OTF2_GlobalDefWriter_WriteIoRegularFile(gw, f, vt_strtab_ref(st, u->files[f]), 0);
	for (uint32_t h = 0; h < u->n_ios; h++)
		OTF2_GlobalDefWriter_WriteIoHandle(
		    gw, h, vt_strtab_ref(st, u->files[u->ios[h].file]), u->ios[h].file,
		    ref[u->ios[h].paradigm < VT_IO_PARADIGM_MAX ? u->ios[h].paradigm : 0],
		    OTF2_IO_HANDLE_FLAG_NONE,
		    u->ios[h].comm == UINT32_MAX ? OTF2_UNDEFINED_COMM : u->ios[h].comm,
		    u->ios[h].parent == UINT32_MAX ? OTF2_UNDEFINED_IO_HANDLE : u->ios[h].parent);
	free(ids);
}

void vt_unify_write_global(OTF2_GlobalDefWriter *gw, const struct vt_unified *u)
{
	struct vt_strtab st = {.w = gw};

	if (vt_cfg.mode == VT_MODE_RING)
		OTF2_GlobalDefWriter_WriteAttribute(
		    gw, VT_UNIFY_ATTR_ENTERED, vt_strtab_ref(&st, VT_UNIFY_ATTR_ENTERED_NAME),
		    vt_strtab_ref(&st, "ring mode: a region open at the start of the location's "
				       "window, entered at this time (in ticks) before it"),
		    OTF2_TYPE_UINT64);
	if (vt_cfg.mode == VT_MODE_RING)
		OTF2_GlobalDefWriter_WriteAttribute(
		    gw, VT_UNIFY_ATTR_CUT, vt_strtab_ref(&st, VT_UNIFY_ATTR_CUT_NAME),
		    vt_strtab_ref(&st,
				  "ring mode, a job's snapshot: the other end of this event is "
				  "outside the window: 1 sent before it, 2 received after it, "
				  "3 other members ended the collective outside it"),
		    OTF2_TYPE_UINT8);
	OTF2_GlobalDefWriter_WriteClockProperties(
	    gw, u->resolution, u->first, u->last > u->first ? u->last - u->first : 0, u->realtime);
	/* The system tree: the machine, one node per host, the processes below their host. */
	OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, vt_strtab_ref(&st, "machine"),
						 vt_strtab_ref(&st, "machine"),
						 OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	for (uint32_t h = 0; h < u->n_hosts; h++)
		OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, h + 1, vt_strtab_ref(&st, u->hosts[h]),
							 vt_strtab_ref(&st, "node"), 0);
	for (uint32_t rank = 0; rank < u->size; rank++) {
		char name[64];
		/* An MPI process by its rank; a process on its own by its pid, which is what
		 * ps, top and the program's own output call it. */
		if (u->mpi)
			snprintf(name, sizeof(name), "MPI Rank %u", u->base + rank);
		else
			snprintf(name, sizeof(name), "Process %u", u->procs[rank].pid);
		OTF2_GlobalDefWriter_WriteLocationGroup(
		    gw, rank, vt_strtab_ref(&st, name), OTF2_LOCATION_GROUP_TYPE_PROCESS,
		    u->procs[rank].node, OTF2_UNDEFINED_LOCATION_GROUP);
	}
	for (size_t i = 0; i < u->n_locs; i++)
		OTF2_GlobalDefWriter_WriteLocation(
		    gw, u->locs[i].ref, vt_strtab_ref(&st, u->locs[i].name),
		    OTF2_LOCATION_TYPE_CPU_THREAD, u->locs[i].events, u->locs[i].rank);
	/* Metrics: classes, then per instance its METRIC location (in its process's group)
	 * and the MetricInstance with its scope. */
	for (uint32_t id = 0; id < u->n_metrics; id++)
		write_metric(gw, &st, id, &u->metrics[id]);
	for (uint32_t k = 0; k < u->n_insts; k++) {
		const struct vt_unify_inst *g = &u->insts[k];
		OTF2_MetricScope type;
		uint64_t scope;
		instance_scope(u, g, &type, &scope);
		OTF2_GlobalDefWriter_WriteLocation(gw, g->recorder, vt_strtab_ref(&st, g->name),
						   OTF2_LOCATION_TYPE_METRIC, g->events, g->rank);
		OTF2_GlobalDefWriter_WriteMetricInstance(gw, u->n_metrics + k, g->metric,
							 g->recorder, type, scope);
	}
	for (uint32_t id = 0; id < u->n_regions; id++) {
		const struct vt_unify_region *r = &u->regions[id];
		OTF2_StringRef name = vt_strtab_ref(&st, r->name);
		OTF2_GlobalDefWriter_WriteRegion(
		    gw, id, name, name, OTF2_UNDEFINED_STRING, (OTF2_RegionRole)r->role,
		    (OTF2_Paradigm)r->paradigm, OTF2_REGION_FLAG_NONE,
		    r->file[0] ? vt_strtab_ref(&st, r->file) : OTF2_UNDEFINED_STRING, r->line,
		    r->line);
	}
	for (uint32_t id = 0; id < u->n_scls; id++)
		OTF2_GlobalDefWriter_WriteSourceCodeLocation(
		    gw, id, vt_strtab_ref(&st, u->scls[id].file), u->scls[id].line);
	for (uint32_t id = 0; id < u->n_ctxs; id++) {
		const struct vt_unify_ctx *c = &u->ctxs[id];
		OTF2_GlobalDefWriter_WriteCallingContext(
		    gw, id, c->region,
		    c->scl == UINT32_MAX ? OTF2_UNDEFINED_SOURCE_CODE_LOCATION : c->scl,
		    c->parent == UINT32_MAX ? OTF2_UNDEFINED_CALLING_CONTEXT : c->parent);
	}
	/* A time source's period in nanoseconds: base 10, exponent -9 (OTF2 counts seconds). */
	for (uint32_t id = 0; id < u->n_igens; id++) {
		const struct vt_def_igen *g = &u->igens[id];
		bool time = g->mode == OTF2_INTERRUPT_GENERATOR_MODE_TIME;
		OTF2_GlobalDefWriter_WriteInterruptGenerator(
		    gw, id, vt_strtab_ref(&st, g->name), (OTF2_InterruptGeneratorMode)g->mode,
		    OTF2_BASE_DECIMAL, time ? -9 : 0, g->period);
	}
	write_groups(gw, &st, u);
	vt_strtab_free(&st);
}

void vt_unify_write_annotations(OTF2_Archive *archive, const struct vt_unified *u)
{
	for (size_t i = 0; i < u->n_props; i++) {
		const struct vt_unify_property *p = &u->props[i];
		const struct vt_unify_property *first = NULL;
		for (size_t k = 0; k < i && !first; k++)
			if (strcmp(u->props[k].name, p->name) == 0)
				first = &u->props[k];
		if (first && strcmp(first->value, p->value) == 0)
			continue;
		char name[512];
		if (first)
			snprintf(name, sizeof(name), "%s::RANK%u", p->name, p->rank);
		else
			snprintf(name, sizeof(name), "%s", p->name);
		OTF2_ErrorCode rc = OTF2_Archive_SetProperty(archive, name, p->value, true);
		/* Out of memory, libotf2 3.0's next property write may crash (it does not check
		 * its allocations there): the first failure ends them. */
		if (rc != OTF2_SUCCESS) {
			vt_warn("trace property %s and %zu more could not be written (%s)", name,
				u->n_props - i - 1, OTF2_Error_GetDescription(rc));
			break;
		}
	}
	if (!u->n_markers)
		return;
	OTF2_MarkerWriter *mw = OTF2_Archive_GetMarkerWriter(archive);
	if (!mw)
		return;
	/* One definition per category, in order of first use. */
	struct vt_strtab cats = {0};
	for (size_t i = 0; i < u->n_markers; i++) {
		const struct vt_def_marker *m = &u->markers[i];
		uint32_t n = cats.n;
		uint32_t id = vt_strtab_ref(&cats, m->category);
		if (cats.n != n)
			OTF2_MarkerWriter_WriteDefMarker(mw, id, "vt user markers", m->category,
							 (OTF2_MarkerSeverity)m->severity);
		OTF2_MarkerWriter_WriteMarker(mw, m->ts, 0, id, OTF2_MARKER_SCOPE_LOCATION,
					      m->location, m->text);
	}
	vt_strtab_free(&cats);
	OTF2_Archive_CloseMarkerWriter(archive, mw);
}

void vt_unify_free(struct vt_unified *u)
{
	free(u->markers);
	free(u->props);
	free(u->scls);
	free(u->ctxs);
	free(u->igens);
	free(u->wins);
	free(u->groups);
	free(u->files);
	free(u->ios);
	for (uint32_t i = 0; u->maps && i < u->size; i++)
		free(u->maps[i].p);
	free(u->maps);
	for (uint32_t i = 0; i < u->n_comms; i++)
		free(u->comms[i].members);
	for (uint32_t i = 0; i < u->n_lanes; i++)
		free(u->lanes[i].locs);
	free(u->lanes);
	free(u->teams);
	free(u->mpi_extra);
	free(u->comms);
	for (uint32_t i = 0; i < u->n_metrics; i++)
		free(u->metrics[i].member_ids);
	free(u->metrics);
	free(u->insts);
	free(u->regions);
	free(u->locs);
	free(u->hosts);
	free(u->procs);
	*u = (struct vt_unified){0};
}
