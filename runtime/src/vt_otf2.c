/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes vt's records as an OTF2 archive through libotf2. */
#include "vt_otf2.h"
#include "vt_clock.h"
#include "vt_config.h"
#include "vt_log.h"

#include <errno.h>
#include <otf2/OTF2_Pthread_Locks.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EVT_CHUNK (1u << 20)
#define DEF_CHUNK (4u << 20)
/* libotf2 keeps up to 128 MiB per writer by default; vt keeps two chunks, so memory stays
 * VT_BUFFER_SIZE plus 2 MiB per thread, and a full chunk goes to disk at once. */
#define EVT_CHUNKS_KEPT 2

static OTF2_Archive *archive;
static char *archive_dir, *archive_name, *anchor_path;
static const OTF2_CommRef thread_comm = 0;
static const OTF2_GroupRef thread_locations = 0, thread_group = 1;

const char *vt_otf2_path(void)
{
	return anchor_path;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
				void *caller, bool final)
{
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
	return vt_clock_now();
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

struct chunks {
	size_t n, cap;
	void **p;
};

/* Called by libotf2 under its own locking per writer; each buffer has its own list. */
static void *chunk_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
			 uint64_t size)
{
	struct chunks *c = *per_buffer;
	if (!c && !(c = *per_buffer = calloc(1, sizeof(*c))))
		return NULL;
	/* NULL makes libotf2 write the chunks out and free them, then ask again. */
	if (type == OTF2_FILETYPE_EVENTS && c->n >= EVT_CHUNKS_KEPT)
		return NULL;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4;
		void **p = realloc(c->p, cap * sizeof(*p));
		if (!p)
			return NULL;
		c->p = p;
		c->cap = cap;
	}
	void *m = malloc(size);
	if (m)
		c->p[c->n++] = m;
	return m;
}

static void chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc,
			   void **per_buffer, bool final)
{
	struct chunks *c = *per_buffer;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->p[i]);
	c->n = 0;
	if (final) {
		free(c->p);
		free(c);
		*per_buffer = NULL;
	}
}

static const OTF2_MemoryCallbacks memory_callbacks = { chunk_alloc, chunk_free_all };

static const char *exe_name(void)
{
	static char name[256];
	FILE *f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(name, sizeof(name), f))
			name[strcspn(name, "\n")] = '\0';
		fclose(f);
	}
	/* comm is cut at 15 characters; the link has the whole name. */
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = '\0';
		const char *base = strrchr(path, '/');
		snprintf(name, sizeof(name), "%.255s", base ? base + 1 : path);
	}
	return name[0] ? name : "trace";
}

static bool exists(const char *dir, const char *name, const char *suffix)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s%s", dir, name, suffix);
	return lstat(path, &st) == 0;
}

int vt_otf2_open(void)
{
	const char *dir = vt_cfg.gdir;
	struct stat st;
	char base[300];

	/* OTF2 puts the events in a folder named like the archive: the executable's own name
	 * would collide with the executable, so the default is EXE.vt. */
	if (vt_cfg.prefix)
		snprintf(base, sizeof(base), "%s", vt_cfg.prefix);
	else
		snprintf(base, sizeof(base), "%s.vt", exe_name());

	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
		vt_error("VT_PFORM_GDIR='%s': expected an existing, writable directory (%s); "
			 "tracing is off",
			 dir, errno ? strerror(errno) : "not a directory");
		return -1;
	}
	/* Never overwrite a trace: take the first free NAME, NAME.1, NAME.2, ... */
	char name[512];
	snprintf(name, sizeof(name), "%s", base);
	for (int i = 1; exists(dir, name, ".otf2") || exists(dir, name, "") ||
			exists(dir, name, ".def");
	     i++) {
		if (i > 9999) {
			vt_error("VT_PFORM_GDIR='%s': holds traces %s.1 to %s.9999 already; "
				 "tracing is off",
				 dir, base, base);
			return -1;
		}
		snprintf(name, sizeof(name), "%s.%d", base, i);
	}
	if (strcmp(name, base) != 0)
		vt_notice("trace %s/%s.otf2 exists; this run writes %s/%s.otf2", dir, base, dir,
			  name);
	archive_dir = strdup(dir);
	archive_name = strdup(name);
	if (asprintf(&anchor_path, "%s/%s.otf2", dir, name) < 0)
		anchor_path = NULL;

	archive = OTF2_Archive_Open(archive_dir, archive_name, OTF2_FILEMODE_WRITE, EVT_CHUNK,
				    DEF_CHUNK, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!archive) {
		vt_error("VT_PFORM_GDIR='%s': cannot create the trace archive %s; tracing is off",
			 dir, name);
		return -1;
	}
	OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL);
	OTF2_Archive_SetMemoryCallbacks(archive, &memory_callbacks, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(archive);
	OTF2_Pthread_Archive_SetLockingCallbacks(archive, NULL);
	OTF2_Archive_SetCreator(archive, "vt " VT_VERSION);
	OTF2_Archive_SetDescription(archive, exe_name());
	char host[256] = "localhost";
	gethostname(host, sizeof(host) - 1);
	OTF2_Archive_SetMachineName(archive, host);
	if (OTF2_Archive_OpenEvtFiles(archive) != OTF2_SUCCESS) {
		vt_error("VT_PFORM_GDIR='%s': cannot create the event files of %s; "
			 "tracing is off",
			 dir, name);
		OTF2_Archive_Close(archive);
		archive = NULL;
		return -1;
	}
	return 0;
}

int vt_otf2_loc_open(struct vt_loc *loc)
{
	loc->ref = loc->index;
	loc->writer = OTF2_Archive_GetEvtWriter(archive, loc->ref);
	if (!loc->writer) {
		vt_error("cannot open the event writer of thread %u in %s; that thread is not "
			 "recorded",
			 loc->index, anchor_path);
		return -1;
	}
	return 0;
}

static void push(struct vt_loc *loc, uint32_t region, bool recorded)
{
	if (loc->depth == loc->cap) {
		size_t cap = loc->cap ? 2 * loc->cap : 64;
		struct vt_open_region *s = realloc(loc->stack, cap * sizeof(*s));
		if (!s) {
			/* Out of memory deep in a recursion: keep the count, lose the detail. */
			loc->repaired++;
			return;
		}
		loc->stack = s;
		loc->cap = cap;
	}
	loc->stack[loc->depth].region = region;
	loc->stack[loc->depth].recorded = recorded;
	loc->depth++;
}

/* Leaves every open region down to (not including) depth 'keep' at ts. */
static void unwind(struct vt_loc *loc, size_t keep, uint64_t ts)
{
	OTF2_EvtWriter *w = loc->writer;
	while (loc->depth > keep) {
		struct vt_open_region *o = &loc->stack[--loc->depth];
		if (o->recorded)
			OTF2_EvtWriter_Leave(w, NULL, ts, o->region);
	}
}

static void begin(struct vt_loc *loc, uint64_t ts)
{
	loc->began = true;
	loc->first_ts = ts;
	if (loc->index > 0)
		OTF2_EvtWriter_ThreadBegin(loc->writer, NULL, ts, thread_comm, loc->index);
}

void vt_otf2_encode(struct vt_loc *loc, const struct vt_rec *from, const struct vt_rec *to)
{
	OTF2_EvtWriter *w = loc->writer;
	uint64_t last = loc->last_ts;

	if (!loc->began)
		begin(loc, from->ts);
	for (const struct vt_rec *r = from; r < to; r++) {
		/* Records are in the order they happened; a clock that steps back is clamped. */
		uint64_t ts = r->ts > last ? r->ts : last;
		uint32_t id = r->region & VT_REGION_ID_MASK;
		last = ts;
		if (r->kind == VT_REC_ENTER) {
			struct vt_region *reg = &vt_regions[id];
			bool recorded = true;
			if (vt_unlikely(reg->limit > 0))
				recorded = __atomic_fetch_add(&reg->calls, 1, __ATOMIC_RELAXED) <
					   reg->limit;
			push(loc, id, recorded);
			if (recorded)
				OTF2_EvtWriter_Enter(w, NULL, ts, id);
			continue;
		}
		/* A Leave closes the innermost open region; longjmp or an exception may have
		 * skipped Leaves: those regions are left here too, and counted as repaired. */
		size_t d = loc->depth;
		while (d > 0 && loc->stack[d - 1].region != id)
			d--;
		if (d == 0) {
			loc->repaired++;
			continue;
		}
		loc->repaired += loc->depth - d;
		unwind(loc, d - 1, ts);
	}
	loc->last_ts = last;
}

void vt_otf2_buffer_flush(struct vt_loc *loc, uint64_t start, uint64_t stop)
{
	if (start < loc->last_ts)
		start = loc->last_ts;
	if (stop < start)
		stop = start;
	OTF2_EvtWriter_BufferFlush(loc->writer, NULL, start, stop);
	loc->last_ts = stop;
}

void vt_otf2_loc_stop(struct vt_loc *loc, uint64_t ts)
{
	if (ts < loc->last_ts)
		ts = loc->last_ts;
	unwind(loc, 0, ts);
	OTF2_EvtWriter_MeasurementOnOff(loc->writer, NULL, ts, OTF2_MEASUREMENT_OFF);
	loc->last_ts = ts;
}

void vt_otf2_loc_close(struct vt_loc *loc, uint64_t ts)
{
	if (!loc->writer)
		return;
	if (ts < loc->last_ts)
		ts = loc->last_ts;
	if (!loc->began)
		begin(loc, ts);
	unwind(loc, 0, ts);
	if (loc->index > 0)
		OTF2_EvtWriter_ThreadEnd(loc->writer, NULL, ts, thread_comm, loc->index);
	loc->last_ts = ts;
	if (loc->repaired)
		vt_info("thread %u: %lu Leave events added or dropped to keep regions balanced",
			loc->index, (unsigned long)loc->repaired);
	OTF2_EvtWriter_GetNumberOfEvents(loc->writer, &loc->n_events);
	OTF2_Archive_CloseEvtWriter(archive, loc->writer);
	loc->writer = NULL;
	free(loc->stack);
	loc->stack = NULL;
	loc->depth = loc->cap = 0;
}

/* Interned strings of the global definitions. */
struct strtab {
	OTF2_GlobalDefWriter *w;
	char **keys;
	uint32_t *ids;
	size_t cap;
	uint32_t n;
	char **owned; /* copies made for the table, freed with it */
	uint32_t n_owned;
};

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static OTF2_StringRef str(struct strtab *t, const char *s)
{
	if (!s)
		return OTF2_UNDEFINED_STRING;
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		char **keys = calloc(cap, sizeof(*keys));
		uint32_t *ids = calloc(cap, sizeof(*ids));
		if (!keys || !ids) {
			free(keys);
			free(ids);
			return OTF2_UNDEFINED_STRING;
		}
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->keys[i])
				continue;
			size_t j = str_hash(t->keys[i]) & (cap - 1);
			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = t->keys[i];
			ids[j] = t->ids[i];
		}
		free(t->keys);
		free(t->ids);
		t->keys = keys;
		t->ids = ids;
		t->cap = cap;
	}
	size_t j = str_hash(s) & (t->cap - 1);
	while (t->keys[j]) {
		if (strcmp(t->keys[j], s) == 0)
			return t->ids[j];
		j = (j + 1) & (t->cap - 1);
	}
	t->keys[j] = (char *)s;
	t->ids[j] = t->n;
	OTF2_GlobalDefWriter_WriteString(t->w, t->n, s);
	return t->n++;
}

/* Interns a string that does not outlive the caller. */
static OTF2_StringRef str_copy(struct strtab *t, const char *s)
{
	char **o = realloc(t->owned, (t->n_owned + 1) * sizeof(*o));
	char *c = strdup(s);
	if (!o || !c) {
		free(c);
		if (o)
			t->owned = o;
		return OTF2_UNDEFINED_STRING;
	}
	t->owned = o;
	t->owned[t->n_owned++] = c;
	return str(t, c);
}

static void write_region(OTF2_GlobalDefWriter *gw, struct strtab *st, uint32_t id)
{
	const struct vt_region *r = &vt_regions[id];
	OTF2_StringRef name = str(st, r->name ? r->name : "unknown");
	OTF2_GlobalDefWriter_WriteRegion(
		gw, id, name, name, OTF2_UNDEFINED_STRING, OTF2_REGION_ROLE_FUNCTION,
		r->kind == VT_REGION_USER ? OTF2_PARADIGM_USER : OTF2_PARADIGM_COMPILER,
		OTF2_REGION_FLAG_NONE, str(st, r->file), r->line, r->line);
}

static void write_definitions(OTF2_GlobalDefWriter *gw, struct vt_loc *locs, uint64_t end_ts)
{
	struct strtab st = { .w = gw };
	uint64_t start = vt_clock_start_ticks();
	uint32_t n_locs = 0;

	for (struct vt_loc *l = locs; l; l = l->next) {
		n_locs++;
		if (l->began && l->first_ts < start)
			start = l->first_ts;
		if (l->last_ts > end_ts)
			end_ts = l->last_ts;
	}
	OTF2_GlobalDefWriter_WriteClockProperties(gw, vt_clock_resolution(), start, end_ts - start,
						  vt_clock_start_realtime_ns());

	char host[256] = "localhost";
	gethostname(host, sizeof(host) - 1);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, str_copy(&st, host), str(&st, "node"),
						 OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	char process[64];
	snprintf(process, sizeof(process), "Process %ld", (long)getpid());
	OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, str_copy(&st, process),
						OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
						OTF2_UNDEFINED_LOCATION_GROUP);

	/* The thread team: a COMM_LOCATIONS group of all threads, and a COMM_GROUP of their
	 * ranks in it, which the comm of ThreadBegin/ThreadEnd refers to. */
	uint64_t *members = calloc(n_locs ? n_locs : 1, sizeof(*members));
	uint64_t *ranks = calloc(n_locs ? n_locs : 1, sizeof(*ranks));
	uint32_t i = 0;
	for (struct vt_loc *l = locs; l; l = l->next) {
		char name[64];
		if (l->index == 0)
			snprintf(name, sizeof(name), "Master thread");
		else
			snprintf(name, sizeof(name), "Thread %u", l->index);
		OTF2_GlobalDefWriter_WriteLocation(gw, l->ref, str_copy(&st, name),
						   OTF2_LOCATION_TYPE_CPU_THREAD, l->n_events, 0);
		if (members && ranks) {
			members[i] = l->ref;
			ranks[i] = i;
			i++;
		}
	}
	if (members && ranks && n_locs > 1) {
		OTF2_GlobalDefWriter_WriteGroup(gw, thread_locations, str(&st, ""),
						OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_PTHREAD,
						OTF2_GROUP_FLAG_NONE, n_locs, members);
		OTF2_GlobalDefWriter_WriteGroup(gw, thread_group, str(&st, "Threads"),
						OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_PTHREAD,
						OTF2_GROUP_FLAG_NONE, n_locs, ranks);
		OTF2_GlobalDefWriter_WriteComm(gw, thread_comm, str(&st, "Threads"), thread_group,
					       OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
	}
	free(members);
	free(ranks);

	uint32_t n_regions = vt_region_count();
	for (uint32_t id = 0; id < n_regions; id++)
		write_region(gw, &st, id);
	if (vt_region_overflowed())
		write_region(gw, &st, VT_REGION_UNKNOWN);
	for (uint32_t k = 0; k < st.n_owned; k++)
		free(st.owned[k]);
	free(st.owned);
	free(st.keys);
	free(st.ids);
}

int vt_otf2_close(struct vt_loc *locs, uint64_t end_ts)
{
	uint64_t events = 0;
	uint32_t n = 0;

	if (!archive)
		return -1;
	OTF2_Archive_CloseEvtFiles(archive);
	/* Local definition files stay empty: ids are already global in one process. */
	OTF2_Archive_OpenDefFiles(archive);
	for (struct vt_loc *l = locs; l; l = l->next) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, l->ref);
		if (dw)
			OTF2_Archive_CloseDefWriter(archive, dw);
		events += l->n_events;
		n++;
	}
	OTF2_Archive_CloseDefFiles(archive);
	OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(archive);
	if (gw) {
		write_definitions(gw, locs, end_ts);
		OTF2_Archive_CloseGlobalDefWriter(archive, gw);
	}
	OTF2_ErrorCode rc = OTF2_Archive_Close(archive);
	archive = NULL;
	if (!gw || rc != OTF2_SUCCESS) {
		vt_error("writing the trace %s failed (%s); it may be incomplete", anchor_path,
			 OTF2_Error_GetDescription(rc));
		return -1;
	}
	vt_notice("trace written to %s (%lu events, %u locations)", anchor_path,
		  (unsigned long)events, n);
	return 0;
}
