/* SPDX-License-Identifier: BSD-3-Clause */
/* Pass 2 of vt-sim: the input written out through libotf2, each event at its replayed time. */
#include "vts.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

/* A marker (the archive's marker file), re-timed with the events of its location. */
struct mark {
	uint64_t time, duration, scope_ref;
	uint32_t marker, scope;
	size_t loc; /* the location it moves with */
	char *text;
};

struct copy {
	OTF2_GlobalDefWriter *defs;
	OTF2_EvtWriter *evt;
	struct vts_spool *spool;
	size_t loc;
	uint64_t new_length;
	bool short_spool;
	OTF2_ErrorCode rc;
	/* markers: all, sorted by location and time; those of the location being copied */
	OTF2_MarkerWriter *marker_writer;
	struct mark *marks;
	size_t nmarks, capmarks, mi, mend;
	uint64_t last_old, last_new;
	bool any;
	struct vtr_trace *tr;
	OTF2_Archive *archive;
	char err[VTS_ERR]; /* the one line of a failure */
};

static OTF2_CallbackCode written(void *user, OTF2_ErrorCode rc)
{
	struct copy *c = user;
	if (rc == OTF2_SUCCESS)
		return OTF2_CALLBACK_SUCCESS;
	if (c->rc == OTF2_SUCCESS)
		c->rc = rc;
	return OTF2_CALLBACK_INTERRUPT;
}

/* A marker's new time: from the last event before it on its location, as far from it as it
 * was, and no later than the next event (next_old, next_new; UINT64_MAX: none). */
static void move_marks(struct copy *c, uint64_t next_old, uint64_t next_new)
{
	for (; c->mi < c->mend && c->marks[c->mi].time <= next_old; c->mi++) {
		struct mark *m = &c->marks[c->mi];
		uint64_t t;
		if (c->any)
			t = c->last_new + (m->time - c->last_old);
		else
			t = next_new -
			    (next_old - m->time < next_new ? next_old - m->time : next_new);
		m->time = t < next_new ? t : next_new;
	}
}

static OTF2_TimeStamp new_time(void *user, OTF2_TimeStamp old)
{
	struct copy *c = user;
	uint64_t t;
	if (!vts_spool_next(c->spool, c->loc, &t)) {
		c->short_spool = true;
		t = old;
	}
	move_marks(c, old, t);
	c->last_old = old;
	c->last_new = t;
	c->any = true;
	return t;
}

static OTF2_CallbackCode def_marker(void *user, OTF2_MarkerRef self, const char *group,
				    const char *category, OTF2_MarkerSeverity severity)
{
	struct copy *c = user;
	if (!c->marker_writer) /* vt-sim-mpi's processes but 0: the times alone */
		return OTF2_CALLBACK_SUCCESS;
	return written(user, OTF2_MarkerWriter_WriteDefMarker(c->marker_writer, self, group,
							      category, severity));
}

static OTF2_CallbackCode marker(void *user, OTF2_TimeStamp time, OTF2_TimeStamp duration,
				OTF2_MarkerRef ref, OTF2_MarkerScope scope, uint64_t scope_ref,
				const char *text)
{
	struct copy *c = user;
	if (c->nmarks == c->capmarks) {
		c->capmarks = c->capmarks ? 2 * c->capmarks : 16;
		c->marks = vtr_xrealloc(c->marks, c->capmarks, sizeof(*c->marks));
	}
	/* Location markers move with their location; the others with the first one. */
	const struct vtr_location *l =
	    scope == OTF2_MARKER_SCOPE_LOCATION ? vtr_location(c->tr, scope_ref) : NULL;
	c->marks[c->nmarks++] = (struct mark){
	    time, duration, scope_ref, ref, scope, l ? l->index : 0, vtr_xstrdup(text ? text : "")};
	return OTF2_CALLBACK_SUCCESS;
}

static int by_loc_time(const void *x, const void *y)
{
	const struct mark *a = x, *b = y;
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	return (a->time > b->time) - (a->time < b->time);
}

/* Reads the marker file (there may be none): definitions copied (write: this process writes
 * them), markers kept for later. */
static void read_markers(OTF2_Reader *r, OTF2_Archive *a, struct copy *c, bool write)
{
	OTF2_MarkerReader *mr = OTF2_Reader_GetMarkerReader(r);
	if (!mr)
		return;
	if (write)
		c->marker_writer = OTF2_Archive_GetMarkerWriter(a);
	OTF2_MarkerReaderCallbacks *cb = OTF2_MarkerReaderCallbacks_New();
	OTF2_MarkerReaderCallbacks_SetDefMarkerCallback(cb, def_marker);
	OTF2_MarkerReaderCallbacks_SetMarkerCallback(cb, marker);
	OTF2_Reader_RegisterMarkerCallbacks(r, mr, cb, c);
	OTF2_MarkerReaderCallbacks_Delete(cb);
	uint64_t n = 0;
	OTF2_Reader_ReadAllMarkers(r, mr, &n);
	OTF2_Reader_CloseMarkerReader(r, mr);
	qsort(c->marks, c->nmarks, sizeof(*c->marks), by_loc_time);
}

static void write_markers(struct copy *c)
{
	for (size_t i = 0; i < c->nmarks; i++) {
		struct mark *m = &c->marks[i];
		if (c->marker_writer)
			written(c, OTF2_MarkerWriter_WriteMarker(c->marker_writer, m->time,
								 m->duration, m->marker, m->scope,
								 m->scope_ref, m->text));
	}
	if (c->marker_writer)
		written(c, OTF2_Archive_CloseMarkerWriter(c->archive, c->marker_writer));
	c->marker_writer = NULL;
}

static void free_marks(struct copy *c)
{
	for (size_t i = 0; i < c->nmarks; i++)
		free(c->marks[i].text);
	free(c->marks);
}

#define VTS_WRITTEN(user, rc)	       written(user, rc)
#define VTS_DEF_WRITER(user)	       (((struct copy *)(user))->defs)
#define VTS_EVT_WRITER(user, location) ((void)(location), ((struct copy *)(user))->evt)
#define VTS_TIME(user, location, time) new_time(user, time)
#define VTS_STOP(t, time, stop)	       ((stop) >= (time) ? (t) + ((stop) - (time)) : (t))
#include "vts_copy.h"

/* Pass 1 (tools/lib's reading) must time every event this copies: tools/lib's list of kinds
 * (vtr_event_kinds.h, with its Unknown, which is not copied) has to cover this libotf2's. */
_Static_assert(VTS_COPY_EVENT_KINDS == VTR_EV_COUNT - 1,
	       "tools/lib/vtr_event_kinds.h does not list every event kind of this libotf2");

static OTF2_CallbackCode clock_properties(void *user, uint64_t resolution, uint64_t offset,
					  uint64_t length, uint64_t realtime)
{
	struct copy *c = user;
	(void)length;
	return written(user, OTF2_GlobalDefWriter_WriteClockProperties(c->defs, resolution, offset,
								       c->new_length, realtime));
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
				void *caller, bool final)
{
	(void)user, (void)type, (void)location, (void)caller, (void) final;
	return OTF2_FLUSH;
}

/*
 * Without memory callbacks libotf2 keeps every chunk of a writer until it is closed: memory
 * would grow with a location's events. A few chunks per event writer, then NULL, which makes
 * libotf2 write them out and free them before asking again.
 */
#define EVT_CHUNKS_KEPT 2

struct chunks {
	void *p[EVT_CHUNKS_KEPT];
	size_t n;
	void **more; /* definitions: no limit */
	size_t nmore;
};

static void *chunk_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
			 uint64_t size)
{
	(void)user, (void)loc;
	struct chunks *c = *per_buffer;
	if (!c && !(c = *per_buffer = calloc(1, sizeof(*c))))
		return NULL;
	void *m;
	if (type == OTF2_FILETYPE_EVENTS) {
		if (c->n == EVT_CHUNKS_KEPT)
			return NULL;
		m = c->p[c->n] = malloc(size);
		c->n += m != NULL;
		return m;
	}
	void **more = realloc(c->more, (c->nmore + 1) * sizeof(*more));
	if (!more)
		return NULL;
	c->more = more;
	m = c->more[c->nmore] = malloc(size);
	c->nmore += m != NULL;
	return m;
}

static void chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
			   bool final)
{
	(void)user, (void)type, (void)loc;
	struct chunks *c = *per_buffer;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->p[i]);
	for (size_t i = 0; i < c->nmore; i++)
		free(c->more[i]);
	c->n = c->nmore = 0;
	if (final) {
		free(c->more);
		free(c);
		*per_buffer = NULL;
	}
}

static const OTF2_MemoryCallbacks memory_callbacks = {chunk_alloc, chunk_free_all};

static const OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush,
						    .otf2_post_flush = NULL};

/* The cause of a failure kept (the first), for main.c's one line; -1. */
static int say(struct copy *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(struct copy *c, const char *fmt, ...)
{
	if (c->err[0])
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int failed(struct copy *c, const char *what, OTF2_ErrorCode rc)
{
	/* libotf2's first report since the last reset names the cause (a full disk) */
	return say(c, "writing the output: %s: %s", what, vtr_reason(rc));
}

/* Whether this process writes location i's events (vt-sim: every location). */
static bool mine(const struct vts_share *sh, size_t i)
{
	return !sh || sh->owner[i] == sh->me;
}

/* vt-sim-mpi: this process's locations written (result), the markers' times traded; at
 * process 0, the others' results and files taken in. */
static int gather(struct copy *c, const struct vts_share *sh, int result)
{
	uint64_t *times = vtr_xcalloc(c->nmarks + 1, sizeof(uint64_t));
	size_t *locs = vtr_xcalloc(c->nmarks + 1, sizeof(size_t));
	for (size_t i = 0; i < c->nmarks; i++) {
		times[i] = c->marks[i].time;
		locs[i] = c->marks[i].loc;
	}
	result = sh->gather(sh, result, c->err, times, locs, c->nmarks);
	for (size_t i = 0; i < c->nmarks; i++)
		c->marks[i].time = times[i];
	free(times);
	free(locs);
	return result;
}

/* The copy into dir/name, its archive left open (c->archive, NULL if none); c->err says why
 * it failed. */
static int copy(struct copy *c, const char *input, struct vtr_trace *tr, const char *dir,
		const char *name, const struct vts_share *sh)
{
	/* vt-sim-mpi: process 0 writes the definitions and the markers, each process the event
	 * files of its locations. */
	bool defs = !sh || sh->me == 0;
	OTF2_Reader *r = OTF2_Reader_Open(input);
	if (!r)
		return say(c, "%s: cannot open the trace again", input);
	OTF2_Reader_SetSerialCollectiveCallbacks(r);
	vtr_reset_reason();
	OTF2_Archive *a =
	    OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
			      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!a) {
		OTF2_Reader_Close(r);
		return say(c, "cannot create the output archive in %s", dir);
	}
	c->archive = a;
	OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL);
	OTF2_Archive_SetMemoryCallbacks(a, &memory_callbacks, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(a);
	int result = 0;

	/* The global definitions, read first: the readers below need them for the mappings. */
	OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(r);
	c->defs = defs ? OTF2_Archive_GetGlobalDefWriter(a) : NULL;
	if (!gd || (defs && !c->defs)) {
		result = say(c, "%s: cannot copy the definitions", input);
	} else {
		OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
		if (defs) {
			vts_copy_def_callbacks(cb);
			OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb,
										 clock_properties);
		}
		OTF2_Reader_RegisterGlobalDefCallbacks(r, gd, cb, c);
		OTF2_GlobalDefReaderCallbacks_Delete(cb);
		uint64_t n = 0;
		OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(r, gd, &n);
		if (rc != OTF2_SUCCESS || c->rc != OTF2_SUCCESS)
			result = failed(c, "the definitions", c->rc != OTF2_SUCCESS ? c->rc : rc);
		OTF2_Reader_CloseGlobalDefReader(r, gd);
	}

	if (result == 0)
		read_markers(r, a, c, defs);
	for (size_t i = 0; i < tr->nlocations; i++)
		if (mine(sh, i))
			OTF2_Reader_SelectLocation(r, tr->locations[i].id);
	bool local_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
	OTF2_Reader_OpenEvtFiles(r);
	OTF2_Archive_OpenEvtFiles(a);
	if (defs)
		OTF2_Archive_OpenDefFiles(a);
	OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
	vts_copy_evt_callbacks(ecb);
	struct vts_spool *spool = c->spool;
	for (size_t i = 0; i < tr->nlocations && result == 0; i++) {
		uint64_t id = tr->locations[i].id;
		/* Every location gets its (empty) local definitions: the ids are global. */
		if (defs) {
			OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, id);
			if (dw)
				written(c, OTF2_Archive_CloseDefWriter(a, dw));
		}
		while (c->mi < c->nmarks && c->marks[c->mi].loc < i)
			c->mi++;
		for (c->mend = c->mi; c->mend < c->nmarks && c->marks[c->mend].loc == i; c->mend++)
			;
		if (!mine(sh, i)) {
			c->mi = c->mend;
			continue;
		}
		if (local_defs)
			local_defs = vtr_read_local_defs(r, id);
		vtr_reset_reason();
		OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, id);
		c->evt = OTF2_Archive_GetEvtWriter(a, id);
		if (!er || !c->evt) {
			result = say(c, "cannot copy the events of location %" PRIu64, id);
			break;
		}
		c->loc = i;
		c->any = false;
		vts_spool_rewind(spool, i);
		OTF2_Reader_RegisterEvtCallbacks(r, er, ecb, c);
		uint64_t n = 0;
		OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalEvents(r, er, &n);
		if (rc != OTF2_SUCCESS || c->rc != OTF2_SUCCESS) {
			result = failed(c, "the events", c->rc != OTF2_SUCCESS ? c->rc : rc);
		} else if (c->short_spool || vts_spool_next(spool, i, &(uint64_t){0})) {
			/* A kind the replay did not see, or one it saw that was not copied. */
			result = say(
			    c, "location %" PRIu64 ": the events read twice differ in number", id);
		}
		move_marks(c, UINT64_MAX, UINT64_MAX); /* those after its last event */
		c->mi = c->mend;
		OTF2_Reader_CloseEvtReader(r, er);
		/* (the last chunk's write: a full disk shows here, if not before) */
		if (result == 0)
			vtr_reset_reason();
		rc = OTF2_Archive_CloseEvtWriter(a, c->evt);
		if ((rc != OTF2_SUCCESS || vtr_reported()) && result == 0)
			result = failed(c, "the events", rc);
	}
	OTF2_EvtReaderCallbacks_Delete(ecb);
	if (result == 0)
		vtr_reset_reason();
	OTF2_ErrorCode rc = OTF2_Archive_CloseEvtFiles(a);
	if (rc == OTF2_SUCCESS && defs)
		rc = OTF2_Archive_CloseDefFiles(a);
	if (rc == OTF2_SUCCESS)
		rc = c->rc;
	if ((rc != OTF2_SUCCESS || vtr_reported()) && result == 0)
		result = failed(c, "the files", rc);
	OTF2_Reader_CloseEvtFiles(r);
	if (local_defs)
		OTF2_Reader_CloseDefFiles(r);
	OTF2_Reader_Close(r);
	return result;
}

static int close_archive(struct copy *c, int result)
{
	if (!c->archive)
		return result;
	if (result == 0)
		vtr_reset_reason();
	OTF2_ErrorCode rc = OTF2_Archive_Close(c->archive);
	c->archive = NULL;
	/* (libotf2 3.0 may return success after a failed write of the anchor file) */
	if ((rc != OTF2_SUCCESS || vtr_reported()) && result == 0)
		result = failed(c, "closing the archive", rc);
	return result;
}

int vts_write(const char *input, struct vtr_trace *tr, struct vts_spool *spool, uint64_t new_length,
	      const char *dir, const char *name, const struct vts_share *sh, char err[VTS_ERR])
{
	struct copy c = {.spool = spool, .new_length = new_length, .rc = OTF2_SUCCESS, .tr = tr};
	int result = copy(&c, input, tr, dir, name, sh);
	if (sh && sh->me != 0) {
		/* its files complete before process 0 takes them */
		result = gather(&c, sh, close_archive(&c, result));
		free_marks(&c);
		if (result < 0)
			snprintf(err, VTS_ERR, "%s", c.err);
		return result;
	}
	if (sh)
		result = gather(&c, sh, result);
	if (result == 0)
		vtr_reset_reason();
	if (c.archive)
		write_markers(&c);
	if (result == 0 && (c.rc != OTF2_SUCCESS || vtr_reported()))
		result = failed(&c, "the markers", c.rc);
	result = close_archive(&c, result);
	free_marks(&c);
	if (result < 0)
		snprintf(err, VTS_ERR, "%s", c.err);
	return result;
}
