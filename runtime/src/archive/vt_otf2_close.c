/* SPDX-License-Identifier: BSD-3-Clause */
/* Closing the archive: this process's definitions encoded, unified at rank 0, written. */
#include "archive/vt_apart.h"
#include "archive/vt_otf2.h"
#include "archive/vt_otf2_priv.h"
#include "base/vt_clock.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "base/vt_state.h"
#include "defs/vt_annot.h"
#include "defs/vt_callctx.h"
#include "defs/vt_defs.h"
#include "defs/vt_mpi_defs.h"
#include "defs/vt_mpi_ops.h"
#include "defs/vt_teams.h"
#include "defs/vt_unify.h"
#include "defs/vt_unify_tree.h"
#include "interpose/vt_hostid.h"
#include "interpose/vt_own_fds.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * Each process's events carry its own region, communicator and metric ids. Rather than
 * rewrite events, every process encodes its definitions (vt_defs.h) and rank 0 merges them
 * into one global set (vt_unify.h), sending back to each its local -> global id pairs, which
 * it writes as OTF2 mapping tables into its locations' local definitions, where every OTF2
 * reader applies them. A process without MPI does the same with itself as the only rank.
 */

/* The events' range on rank 0's clock, as readers will place them. A reader may hold the
 * first offset before the first measurement and the last after the last, or extend the line
 * through them: the range takes both, widened by the drift between them, so that every
 * corrected timestamp falls inside it. */
static void clock_range(struct vt_loc *locs, uint64_t end_ts, uint64_t *lo_out, uint64_t *hi_out)
{
	uint64_t first = vt_clock_start_ticks(), last = end_ts;
	for (struct vt_loc *l = locs; l; l = l->next) {
		const struct vt_enc_loc *e = vt_enc_loc(l->index);
		if (e->began && e->first_ts < first)
			first = e->first_ts;
		if (e->last_ts > last)
			last = e->last_ts;
	}
	if (vt_otf2_metric_last_ts() > last)
		last = vt_otf2_metric_last_ts();
	int n_off;
	const struct vt_mpi_defs_offset *off = vt_mpi_defs_clock_offsets(&n_off);
	int64_t o0 = n_off ? off[0].offset : 0, o1 = n_off ? off[n_off - 1].offset : 0;
	int64_t drift = o1 > o0 ? o1 - o0 : o0 - o1;
	int64_t lo = (int64_t)first + (o0 < o1 ? o0 : o1) - drift;
	int64_t hi = (int64_t)last + (o0 > o1 ? o0 : o1) + drift;
	if (n_off > 1 && off[n_off - 1].t > off[0].t) {
		double slope = (double)(o1 - o0) / (double)(off[n_off - 1].t - off[0].t);
		int64_t ef =
		    (int64_t)first + o0 + (int64_t)(slope * ((double)first - (double)off[0].t));
		int64_t el =
		    (int64_t)last + o0 + (int64_t)(slope * ((double)last - (double)off[0].t));
		if (ef - drift < lo)
			lo = ef - drift;
		if (el + drift > hi)
			hi = el + drift;
	}
	*lo_out = (uint64_t)lo;
	*hi_out = (uint64_t)hi;
}

/* A class of several metrics (g): its members' keys, each followed by VT_DEF_MEMBER_END
 * (malloc'd; NULL when out of memory or a member is not a metric of the table). */
static char *member_keys(const struct vt_otf2_metric *m, uint32_t n, const struct vt_otf2_metric *g)
{
	char *keys = NULL;
	size_t len = 0;
	for (uint32_t k = 0; k < g->n_members; k++) {
		uint32_t i = g->members[k];
		if (i >= n || m[i].n_members) {
			free(keys);
			return NULL;
		}
		struct vt_def_metric d = {.id = i,
					  .name = m[i].name,
					  .unit = m[i].unit,
					  .description = m[i].description,
					  .mode = m[i].mode,
					  .type = m[i].type,
					  .base = m[i].base,
					  .occurrence = m[i].occurrence,
					  .recorder_kind = m[i].recorder_kind,
					  .exponent = m[i].exponent,
					  .members = ""};
		size_t need = (size_t)vt_def_metric_key(&d, NULL, 0);
		char *more = realloc(keys, len + need + 2);
		if (!more) {
			free(keys);
			return NULL;
		}
		keys = more;
		vt_def_metric_key(&d, keys + len, need + 1);
		len += need;
		keys[len++] = VT_DEF_MEMBER_END;
		keys[len] = '\0';
	}
	return keys;
}

/* This process's definitions, as rank 0 reads them. */
static void encode(struct vt_defs_buf *b, int rank, struct vt_loc *locs, uint64_t end_ts)
{
	char host[256] = "localhost";
	gethostname(host, sizeof(host) - 1);
	union vt_def d = {.process = {(uint32_t)rank, (uint32_t)vt_core_pid(), host,
				      vt_clock_resolution(), vt_clock_start_realtime_ns()}};
	clock_range(locs, end_ts, &d.process.first, &d.process.last);
	d.process.thread_events = vt_otf2_thread_events();
	vt_defs_put(b, VT_DEF_PROCESS, &d);

	for (struct vt_loc *l = locs; l; l = l->next) {
		char name[64];
		vt_otf2_location_name(l, name, sizeof(name));
		d = (union vt_def){.location = {l->ref, name, vt_enc_loc(l->index)->n_events}};
		vt_defs_put(b, VT_DEF_LOCATION, &d);
	}
	for (struct vt_loc *l = locs; l; l = l->next) {
		uint32_t words;
		const uint64_t *used = vt_mpi_defs_comms_used(l->index, &words);
		for (uint32_t w = 0; w < words; w++)
			for (uint32_t bit = 0; bit < 64; bit++)
				if (used[w] >> bit & 1) {
					d = (union vt_def){.commuse = {l->ref, w * 64 + bit}};
					vt_defs_put(b, VT_DEF_COMMUSE, &d);
				}
	}

	uint32_t n_regions = vt_region_count();
	bool overflow = vt_region_overflowed();
	for (uint32_t id = 0; id < n_regions + (overflow ? 1 : 0); id++) {
		uint32_t rid = id < n_regions ? id : VT_REGION_UNKNOWN;
		const struct vt_region *r = vt_region_at(rid);
		d = (union vt_def){.region = {rid, r->name ? r->name : "unknown",
					      r->file ? r->file : "", r->line,
					      vt_otf2_region_paradigm(r), vt_otf2_region_role(r)}};
		vt_defs_put(b, VT_DEF_REGION, &d);
	}

	uint32_t n_comms;
	const struct vt_mpi_defs_comm *c = vt_mpi_defs_comms(&n_comms);
	for (uint32_t i = 0; i < n_comms; i++) {
		d = (union vt_def){.comm = {i, c[i].key, c[i].my_rank, c[i].size, c[i].name}};
		vt_defs_put(b, VT_DEF_COMM, &d);
	}
	/* Windows after the communicators they refer to. */
	uint32_t n_wins, n_groups;
	const struct vt_mpi_defs_win *w = vt_mpi_defs_wins(&n_wins);
	for (uint32_t i = 0; i < n_wins; i++) {
		d = (union vt_def){.rmawin = {i, w[i].key, w[i].comm, w[i].name}};
		vt_defs_put(b, VT_DEF_RMAWIN, &d);
	}
	uint32_t n_ios;
	const struct vt_mpi_defs_io *io = vt_mpi_defs_ios(&n_ios);
	for (uint32_t i = 0; i < n_ios; i++) {
		d = (union vt_def){.iohandle = {i, io[i].key, io[i].comm, io[i].paradigm,
						io[i].file, io[i].parent}};
		vt_defs_put(b, VT_DEF_IOHANDLE, &d);
	}
	char *const *g = vt_mpi_defs_groups(&n_groups);
	for (uint32_t i = 0; i < n_groups; i++) {
		d = (union vt_def){.group = {i, g[i]}};
		vt_defs_put(b, VT_DEF_GROUP, &d);
	}

	uint32_t n_metrics, n_inst;
	const struct vt_otf2_metric *m = vt_otf2_metrics(&n_metrics);
	const struct vt_otf2_instance *in = vt_otf2_instances(&n_inst);
	for (uint32_t i = 0; i < n_metrics; i++) {
		char *members = m[i].n_members ? member_keys(m, n_metrics, &m[i]) : NULL;
		d = (union vt_def){.metric = {i, m[i].name, m[i].unit, m[i].description, m[i].mode,
					      m[i].type, m[i].base, m[i].occurrence,
					      m[i].recorder_kind, m[i].exponent,
					      members ? members : "", 0, NULL}};
		/* A class whose members cannot be named (no memory) is left out. */
		if (!m[i].n_members || members)
			vt_defs_put(b, VT_DEF_METRIC, &d);
		free(members);
	}
	for (uint32_t i = 0; i < n_inst; i++) {
		d = (union vt_def){.instance = {in[i].id, in[i].metric, in[i].recorder,
						in[i].recorder_name, in[i].events,
						(uint32_t)in[i].scope, in[i].owner}};
		vt_defs_put(b, VT_DEF_INSTANCE, &d);
	}
	vt_teams_put_defs(b, vt_otf2_location_ref);
	vt_annot_put_defs(b, vt_otf2_location_ref);
	/* The settings in force, so that a trace says how it was recorded (vt-report shows
	 * them): one trace property VT::SETTINGS::NAME per variable, NAME::RANK<r> where a
	 * rank's value differs. */
	size_t n_cfg;
	const struct vt_cfg_entry *cfg = vt_config_table(&n_cfg);
	for (size_t i = 0; i < n_cfg; i++) {
		char name[128], value[1024];
		snprintf(name, sizeof(name), "VT::SETTINGS::%s", cfg[i].name);
		vt_config_format(&cfg[i], value, sizeof(value));
		d = (union vt_def){.property = {name, value}};
		vt_defs_put(b, VT_DEF_PROPERTY, &d);
	}
	vt_callctx_put_defs(b);
}

/* Every rank's value or'ed, on every rank (a group of one: its own). */
static uint64_t any_rank(const struct vt_mpi_ops *ops, uint64_t v)
{
	uint64_t *all = ops->gather(&v, sizeof(v), NULL);
	for (int i = 0; all && i < ops->size; i++)
		v |= all[i];
	free(all);
	ops->bcast(&v, sizeof(v), 0);
	return v;
}

/* The anchor and the global definitions are on disk, not empty ("trace written" says so
 * only then). */
static bool on_disk(const char *anchor)
{
	struct stat st;
	char def[4096];
	size_t n = anchor ? strlen(anchor) : 0;
	if (n < 5 || n - 5 + sizeof(".def") > sizeof(def))
		return false;
	snprintf(def, sizeof(def), "%.*s.def", (int)(n - 5), anchor);
	return stat(anchor, &st) == 0 && st.st_size > 0 && stat(def, &st) == 0 && st.st_size > 0;
}

/*
 * The definition chunk size, from what will be written: a record never spans two chunks, and
 * libotf2 touches a whole chunk when it writes one out (the global definitions'; vt's writer
 * of the local ones only what it fills), so the chunk is as small as the largest record
 * allows rather than libotf2's 4 MiB default (which cost ~16 ms per process at finalisation,
 * in page faults). The largest record is a mapping table (at most 9 bytes
 * for each of a pair's two ids: 3x vt's 8-byte pairs), a group of every location or rank,
 * or a string, which no process's encoded definitions can be shorter than.
 */
static uint64_t def_chunk_size(const struct vt_unified *u, size_t largest_def,
			       const size_t *map_sizes, int n)
{
	uint64_t need = (uint64_t)(u->n_locs + u->size) * 10;
	if (largest_def > need)
		need = largest_def;
	for (int i = 0; i < n; i++) {
		if (map_sizes && 3 * (uint64_t)map_sizes[i] > need)
			need = 3 * (uint64_t)map_sizes[i];
	}
	need += 64 << 10; /* the chunk's own header and the largest record's */
	uint64_t size = OTF2_CHUNK_SIZE_MIN;
	while (size < need && size < OTF2_CHUNK_SIZE_MAX)
		size *= 2;
	return size;
}

/* Rank 0: the locations of the ranks lost[r] != 0 keep their definitions with no events;
 * how many ranks those are. */
static uint32_t lose_ranks(struct vt_unified *u, const char *lost, int size)
{
	uint32_t n = 0;
	for (int r = 0; r < size; r++)
		n += lost[r] != 0;
	for (size_t i = 0; n && i < u->n_locs; i++)
		if (u->locs[i].rank < (uint32_t)size && lost[u->locs[i].rank])
			u->locs[i].events = 0;
	for (uint32_t i = 0; n && i < u->n_insts; i++)
		if (u->insts[i].rank < (uint32_t)size && lost[u->insts[i].rank])
			u->insts[i].events = 0;
	return n;
}

static void empty_lost(const struct vt_unified *u, const char *lost)
{
	for (size_t i = 0; i < u->n_locs; i++)
		if (u->locs[i].rank < u->size && lost[u->locs[i].rank] &&
		    !vt_otf2_empty_location(u->locs[i].ref))
			vt_error("location %llu of rank %u: no files written in the trace %s; it "
				 "cannot be read",
				 (unsigned long long)u->locs[i].ref, u->locs[i].rank,
				 vt_otf2_anchor());
	for (uint32_t i = 0; i < u->n_insts; i++)
		if (u->insts[i].rank < u->size && lost[u->insts[i].rank] &&
		    !vt_otf2_empty_location(u->insts[i].recorder))
			vt_error("location %llu of rank %u: no files written in the trace %s; it "
				 "cannot be read",
				 (unsigned long long)u->insts[i].recorder, u->insts[i].rank,
				 vt_otf2_anchor());
}

/* The lost ranks, "1, 3" (the first 16; " and N more" after them). */
static void lost_list(const char *lost, int size, uint32_t n, char *list, size_t cap)
{
	size_t len = 0;
	uint32_t shown = 0;
	list[0] = '\0';
	for (int r = 0; r < size && shown < 16; r++)
		if (lost[r]) {
			int k = snprintf(list + len, cap - len, "%s%d", shown ? ", " : "", r);
			if (k < 0 || (size_t)k >= cap - len)
				break;
			len += (size_t)k;
			shown++;
		}
	if (shown < n)
		snprintf(list + len, cap - len, " and %u more", n - shown);
}

/* When the writing at the end began (vt_otf2_write_begin), 0: not yet; monotonic ns. */
static uint64_t write_began_ns;

/* Longer writing at the end than this is said, in seconds, on the "trace written" line. */
#define SAY_WRITE_SECONDS 2.0

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void vt_otf2_write_begin(void)
{
	write_began_ns = monotonic_ns();
}

/* The closing of every archive: of an MPI run (ops over MPI), of a process on its own (the
 * serial ops), or of an MPI rank that ends alone (the serial ops, alone: how it ended, what
 * the one line says, and base: its world rank). */
static int close_archive(struct vt_loc *locs, uint64_t end_ts, const struct vt_mpi_ops *ops,
			 const char *alone, uint32_t base, bool report)
{
	OTF2_Archive *archive = vt_otf2_archive();
	struct vt_defs_buf mine = {0};
	struct vt_unified u = {0};
	size_t *sizes = NULL, n_map = 0;
	uint64_t events = 0;
	int rc = 0;

	if (!archive)
		return -1;
	if (!write_began_ns)
		write_began_ns = monotonic_ns();
	vt_otf2_low_fds_hold();
	/* The event files still open are at their descriptors, or are not closed. */
	vt_own_fds_write_begin();
	vt_otf2_evt_fds_check();
	/* A failed write of any rank: every rank writes its definitions into the archive
	 * opened again (collectives must match), into the room kept for them. */
	bool failed = any_rank(ops, vt_otf2_failed()) != 0;
	/* Collective: every rank or none. (Alone: the archive is new, its event files were
	 * moved in, closed; failed writes were cut to whole chunks then.) */
	if (!failed && !alone) {
		unsigned reports = vt_otf2_file_reports();
		OTF2_ErrorCode closed = OTF2_Archive_CloseEvtFiles(archive);
		if (closed == OTF2_SUCCESS)
			closed = vt_otf2_write_reported(reports);
		if (closed != OTF2_SUCCESS)
			vt_otf2_stop_writing(closed);
		failed = any_rank(ops, closed != OTF2_SUCCESS) != 0;
	}
	vt_own_fds_write_end();
	vt_otf2_reserve_release();
	if (failed && !alone)
		archive = vt_otf2_reopen(ops);
	for (struct vt_loc *l = locs; l; l = l->next)
		events += vt_enc_loc(l->index)->n_events;
	uint32_t n_inst;
	const struct vt_otf2_instance *in = vt_otf2_instances(&n_inst);
	for (uint32_t k = 0; k < n_inst; k++)
		events += in[k].events;
	encode(&mine, ops->rank, locs, end_ts);
	/* Through the reduction tree (VT_UNIFY=tree) or all at rank 0 (gather); a group of one
	 * gathers its own. */
	bool tree = ops->size > 1 && ops->send && vt_cfg.unify == VT_UNIFY_TREE;
	struct vt_unify_tree_stats st = {0};
	uint64_t unify_began = monotonic_ns();
	char *all = tree ? vt_unify_tree_gather(ops, mine.p, mine.failed ? 0 : mine.n, &sizes, &st)
			 : ops->gather(mine.p, mine.failed ? 0 : mine.n, &sizes);
	size_t largest = tree ? st.largest : 0, at_root = tree ? st.received + mine.n : 0;
	for (int i = 0; !tree && sizes && i < ops->size; i++) {
		largest = sizes[i] > largest ? sizes[i] : largest;
		at_root += sizes[i];
	}

	void **maps = NULL;
	size_t *map_sizes = NULL;
	if (ops->rank == 0) {
		maps = calloc((size_t)ops->size, sizeof(*maps));
		map_sizes = calloc((size_t)ops->size, sizeof(*map_sizes));
		if (!all || !maps || !map_sizes ||
		    vt_unify_merge(&u, all, sizes, (uint32_t)ops->size,
				   ops != &vt_otf2_serial_ops || alone) < 0)
			rc = -1;
		u.base = base;
		for (int i = 0; i < ops->size && maps && map_sizes && u.maps; i++) {
			maps[i] = u.maps[i].p;
			map_sizes[i] = u.maps[i].failed ? 0 : u.maps[i].n;
		}
	}
	/* Collective: the primary archive's (rank 0's) value counts. */
	if (archive)
		OTF2_Archive_SetDefChunkSize(
		    archive, ops->rank == 0 ? def_chunk_size(&u, largest, map_sizes, ops->size)
					    : OTF2_UNDEFINED_UINT64);
	char *map = tree ? vt_unify_tree_scatter(ops, maps, map_sizes, &n_map)
			 : ops->scatter(maps, map_sizes, &n_map);
	if (ops->rank == 0 && ops->size > 1)
		vt_debug("unification (%s) of %d ranks: %.3f s, %zu bytes of definitions at rank 0",
			 tree ? "tree" : "gather", ops->size,
			 (double)(monotonic_ns() - unify_began) / 1e9, at_root);
	bool defs_ok = vt_otf2_write_local_defs(archive, locs, map, n_map);
	/* Which ranks' files can be read, agreed at rank 0: a rank that could not write its
	 * local definitions, or not end an event file after a failed write, is lost; its
	 * locations stay in the definitions (communicators name them), without events. */
	char lost_mine = !defs_ok || vt_otf2_evt_unended();
	char *lost = ops->gather(&lost_mine, 1, NULL);
	uint32_t n_lost = 0;
	char lost_ranks[200] = "";
	if (ops->rank == 0 && ops != &vt_otf2_serial_ops && lost && defs_ok && rc == 0)
		n_lost = lose_ranks(&u, lost, ops->size);
	if (n_lost)
		lost_list(lost, ops->size, n_lost, lost_ranks, sizeof(lost_ranks));
	if (lost_mine && ops->rank != 0)
		vt_error(
		    "rank %d could not write its part of the trace %s (%s): its events are not "
		    "in the trace",
		    ops->rank, vt_otf2_anchor(), vt_otf2_last_error());

	if (ops->rank == 0) {
		OTF2_GlobalDefWriter *gw =
		    archive ? OTF2_Archive_GetGlobalDefWriter(archive) : NULL;
		if (gw && rc == 0) {
			vt_unify_write_global(gw, &u);
			defs_ok = defs_ok &&
				  OTF2_Archive_CloseGlobalDefWriter(archive, gw) == OTF2_SUCCESS;
			/* Readers can tell a lost rank's locations from ones without events
			 * (a failed property ends the properties, see vt_unify_write_annotations).
			 */
			if (defs_ok && n_lost &&
			    OTF2_Archive_SetProperty(archive, "VT::MPI::RANKS_NOT_WRITTEN",
						     lost_ranks, true) != OTF2_SUCCESS)
				vt_warn("trace property VT::MPI::RANKS_NOT_WRITTEN and the "
					"settings could not be written");
			else if (defs_ok)
				vt_unify_write_annotations(archive, &u);
		} else {
			rc = -1;
		}
	}
	/* Every rank's total, for rank 0's one line about the trace. */
	uint64_t *counts = ops->gather(&events, sizeof(events), NULL);
	/* An archive whose definitions failed is not closed (libotf2 would flush its broken
	 * writers): no anchor then, and the line says the trace cannot be read. That is the
	 * run's archive when rank 0's failed; a lost rank's own only, else. */
	int defs_failed = ops->rank == 0 && !defs_ok;
	ops->bcast(&defs_failed, sizeof(defs_failed), 0);
	vt_hostid_begin();
	bool skip = defs_failed || (lost_mine && ops->rank != 0);
	OTF2_ErrorCode err = skip ? OTF2_ERROR_END_OF_FUNCTION : OTF2_Archive_Close(archive);
	vt_hostid_end();
	if (ops->rank == 0 && defs_failed)
		vt_otf2_own_files_drop();
	vt_otf2_closed();
	if (failed && ops->rank == 0 && !alone)
		vt_otf2_reopen_done();
	/* The lost ranks' locations get files without events (after the event files came
	 * back beside the definitions, where a lost rank's partial ones are replaced). */
	if (n_lost && !defs_failed)
		empty_lost(&u, lost);
	vt_otf2_low_fds_release();
	/* Every rank's files are closed (their definitions were, before the gather above):
	 * the trace leaves the private directory (vt_publish.c). */
	char why[4096 + 128] = "";
	bool published = false;
	if (ops->rank == 0 && !defs_failed)
		published = vt_otf2_publish_trace(alone != NULL, why, sizeof(why));
	if (ops->rank == 0) {
		uint64_t total = 0;
		for (int i = 0; counts && i < ops->size; i++)
			total += lost && lost[i] ? 0 : counts[i];
		if (n_lost && !defs_failed)
			vt_error("rank%s %s could not write %s part of the trace %s: %s locations "
				 "are in it without events",
				 n_lost == 1 ? "" : "s", lost_ranks, n_lost == 1 ? "its" : "their",
				 vt_otf2_anchor(), n_lost == 1 ? "its" : "their");
		size_t n_locs = u.n_locs + (size_t)u.n_insts;
		if (defs_failed)
			vt_error("the trace %s is incomplete and cannot be read: its definitions "
				 "could not be written (%s)",
				 vt_otf2_anchor(), vt_otf2_last_error());
		else if (rc < 0 || err != OTF2_SUCCESS || !on_disk(vt_otf2_anchor()))
			vt_error("writing the trace %s failed (%s); it may be incomplete",
				 vt_otf2_anchor(),
				 err != OTF2_SUCCESS ? OTF2_Error_GetDescription(err)
						     : "its files are missing or empty");
		else if (!published)
			vt_warn(
			    "%strace written to %s (%lu event%s, %zu location%s) and left there: "
			    "not moved into VT_PFORM_GDIR (%s)",
			    failed ? "incomplete " : "", vt_otf2_anchor(), (unsigned long)total,
			    total == 1 ? "" : "s", n_locs, n_locs == 1 ? "" : "s", why);
		else if (alone)
			vt_warn("%s on rank %u: %sthe trace of this rank alone written to %s "
				"(%lu event%s, %zu location%s)",
				alone, base,
				failed ? "incomplete (recording stopped at a failed write): " : "",
				vt_otf2_anchor(), (unsigned long)total, total == 1 ? "" : "s",
				n_locs, n_locs == 1 ? "" : "s");
		else if (failed || n_lost)
			vt_warn("incomplete trace written to %s (%lu event%s, %zu location%s): "
				"recording stopped at %s",
				vt_otf2_anchor(), (unsigned long)total, total == 1 ? "" : "s",
				n_locs, n_locs == 1 ? "" : "s", vt_otf2_stop_cause());
		else {
			/* "in X s" after a long write alone: the line stays as it was otherwise. */
			double secs = (double)(monotonic_ns() - write_began_ns) / 1e9;
			char took[48] = "";
			if (secs > SAY_WRITE_SECONDS)
				snprintf(took, sizeof(took), " in %.1f s", secs);
			vt_notice("trace written to %s (%lu event%s, %zu location%s)%s",
				  vt_otf2_anchor(), (unsigned long)total, total == 1 ? "" : "s",
				  n_locs, n_locs == 1 ? "" : "s", took);
		}
		/* A trace left in the private directory is no trace of VT_PFORM_GDIR's: no
		 * report, and the process that waits for a child closing it runs none either. */
		if (!published && !defs_failed)
			rc = -1;
		if (rc == 0 && err == OTF2_SUCCESS && vt_cfg.report && !alone && report)
			vt_report_run(vt_otf2_anchor());
	}
	free(counts);
	free(lost);
	free(map);
	free(maps);
	free(map_sizes);
	vt_unify_free(&u);
	free(all);
	free(sizes);
	free(mine.p);
	return rc == 0 && err == OTF2_SUCCESS && !defs_failed ? 0 : -1;
}

/* ---- one process: the collectives of a group of one ---- */

static void serial_bcast(void *buf, size_t n, int root)
{
}

static void *copy(const void *buf, size_t n)
{
	void *c = malloc(n ? n : 1);
	if (c && n)
		memcpy(c, buf, n);
	return c;
}

static void *serial_gather(const void *buf, size_t n, size_t **sizes)
{
	if (sizes && (*sizes = malloc(sizeof(**sizes))))
		**sizes = n;
	return copy(buf, n);
}

static void *serial_scatter(void *const *bufs, const size_t *sizes, size_t *n)
{
	*n = bufs && sizes ? sizes[0] : 0;
	return copy(bufs ? bufs[0] : NULL, *n);
}

static void serial_collectives(void *archive)
{
	OTF2_Archive_SetSerialCollectiveCallbacks(archive);
}

const struct vt_mpi_ops vt_otf2_serial_ops = {
    0, 1, serial_bcast, serial_gather, serial_scatter, serial_collectives, NULL, NULL};

int vt_otf2_close_mpi(struct vt_loc *locs, uint64_t end_ts, const struct vt_mpi_ops *ops)
{
	return close_archive(locs, end_ts, ops, NULL, 0, true);
}

struct serial_close {
	struct vt_loc *locs;
	uint64_t end_ts;
};

static int serial_close(void *arg)
{
	const struct serial_close *c = arg;
	return close_archive(c->locs, c->end_ts, &vt_otf2_serial_ops, NULL, 0, false);
}

/*
 * A process on its own closes its archive in a child process (archive/vt_apart.c says why
 * and how): a crash of libotf2 there costs the trace, never the program's exit. The child
 * says its lines as this process would; the report runs here, after a complete trace. An
 * MPI process does not: its close is collective and its MPI library's state does not go
 * into a child; nor a process that cannot make one (no memory, a process limit), nor one
 * whose child waits on a lock another thread held when it was made (malloc's, say: the
 * child has no thread to release it): it closes here.
 */
int vt_otf2_close(struct vt_loc *locs, uint64_t end_ts)
{
	char what[4200];
	struct serial_close c = {locs, end_ts};
	if (!vt_otf2_archive())
		return -1;
	snprintf(what, sizeof(what), "writing the trace %s",
		 vt_otf2_anchor() ? vt_otf2_anchor() : "");
	switch (vt_apart_run(serial_close, &c, what)) {
	case VT_APART_STUCK:
		vt_notice("the trace is written in the process itself: the process vt began to "
			  "write it in waited on a lock that another thread of the program held");
		/* fall through */
	case VT_APART_NO_CHILD:
		return close_archive(locs, end_ts, &vt_otf2_serial_ops, NULL, 0, true);
	case VT_APART_DONE:
		vt_otf2_reserve_forget();
		vt_otf2_closed();
		if (vt_cfg.report)
			vt_report_run(vt_otf2_anchor());
		return 0;
	case VT_APART_DIED:
		/* What the child did not finish: the room kept, the empty reserved names. */
		vt_otf2_reserve_release();
		vt_otf2_own_files_drop();
		break;
	case VT_APART_FAILED:
		break;
	}
	vt_otf2_closed();
	return -1;
}

/* One rank's archive written without MPI (an abort, a snapshot), with the properties that say
 * which rank of how many it holds: its readers see no other. */
static int close_rank_alone(struct vt_loc *locs, uint64_t end_ts, const struct vt_mpi_ops *run,
			    const char *why)
{
	char rank[16], size[16];
	snprintf(rank, sizeof(rank), "%d", run->rank);
	snprintf(size, sizeof(size), "%d", run->size);
	vt_annot_property("VT::MPI::RANK", rank);
	vt_annot_property("VT::MPI::SIZE", size);
	return close_archive(locs, end_ts, &vt_otf2_serial_ops, why, (uint32_t)run->rank, true);
}

int vt_otf2_close_alone(struct vt_loc *locs, uint64_t end_ts, const char *why)
{
	const struct vt_mpi_ops *run = vt_otf2_mpi_ops();
	if (!why || !run || vt_otf2_open_alone() < 0)
		return -1;
	return close_rank_alone(locs, end_ts, run, why);
}

int vt_otf2_close_snapshot(struct vt_loc *locs, uint64_t end_ts, const char *why,
			   const struct vt_mpi_ops *job)
{
	const struct vt_mpi_ops *run = vt_otf2_mpi_ops();
	if (job)
		return close_archive(locs, end_ts, job, NULL, 0, false);
	if (!why || !run)
		return -1;
	return close_rank_alone(locs, end_ts, run, why);
}
