/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The buffer reservation (vt_buf.h) at its boundaries, with the real runtime writing a real
 * trace: an event of exactly half a buffer, one larger (refused), signal handlers that record
 * while a producer holds a reservation (their events kept aside and appended, flushing as
 * needed), more than the side area's first segment holds (kept in the next ones, mapped by
 * the handler), and more than its segments hold (the rest counted as dropped, the gap marked
 * by MeasurementOnOff off and on). The trace is read back with libotf2 and its Enter/Leave/
 * MeasurementOnOff sequence compared, event by event.
 *
 * The runtime starts in a constructor with the environment it finds, so the test re-executes
 * itself with VT_BUFFER_SIZE=1k (halves of 32 records) and a fresh VT_PFORM_GDIR.
 */
#include "lifecycle/vt_core.h"
#include "record/vt_thread.h"
#include "unit.h"

#include <otf2/otf2.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HALF 32

static const char *const name_a = "a", *const name_sig = "sig";
static int handler_pairs;

static void handler(int sig)
{
	struct vt_tls *t = vt_thread_self();
	for (int i = 0; t && i < handler_pairs; i++) {
		vt_thread_enter(t, vt_region_of_name(name_sig));
		vt_thread_leave(t, vt_region_of_name(name_sig));
	}
}

/* What the trace must hold, and what it holds: 'E'/'L' and the region's first letter, 'M'
 * and '0' or '1' for MeasurementOnOff off or on; room for a whole side area of pairs. */
static char want[2 * VT_BUF_SIDE_MAX + 4096], got[2 * VT_BUF_SIDE_MAX + 4096];
static size_t n_want, n_got;

static void expect(const char *ev, int times)
{
	for (int i = 0; i < times; i++)
		for (const char *c = ev; *c && n_want + 1 < sizeof(want); c++)
			want[n_want++] = *c;
}

/* Fills the current half up to k free records: pairs of a, and a value of an undefined
 * metric (encoded as nothing) where one record is left to fill. */
static void fill_to(struct vt_tls *t, size_t k)
{
	uint32_t a = vt_region_of_name(name_a);
	while ((size_t)(t->end - t->pos) > k) {
		if ((size_t)(t->end - t->pos) == k + 1) {
			struct vt_rec *p = vt_buf_reserve(t, 1);
			struct vt_rec_metric *m = (struct vt_rec_metric *)p;
			m->value = 0;
			m->metric = 0xFFFFFF00u;
			m->kind = VT_REC_METRIC;
			vt_buf_commit(t, p, 1);
			continue;
		}
		vt_thread_enter(t, a);
		vt_thread_leave(t, a);
		expect("EaLa", 1);
	}
}

/* A signal while the producer holds the reservation of its Enter of a. */
static void interrupted_enter(struct vt_tls *t, int pairs)
{
	uint32_t a = vt_region_of_name(name_a);
	struct vt_rec *p = vt_buf_reserve(t, 1);
	CHECK(p != NULL);
	if (!p)
		return;
	p->ts = vt_clock_now();
	p->region = a;
	p->kind = VT_REC_ENTER;
	handler_pairs = pairs;
	raise(SIGUSR1);
	vt_buf_commit(t, p, 1);
	CHECK(t->nest == 0 && t->side_n == 0);
	vt_thread_leave(t, a);
}

static char strings[1024][16];
static uint32_t region_name[1024];

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
	if (self < 1024)
		snprintf(strings[self], sizeof(strings[self]), "%s", s);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
				    OTF2_StringRef canonical, OTF2_StringRef description,
				    OTF2_RegionRole role, OTF2_Paradigm paradigm,
				    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
				    uint32_t end)
{
	if (self < 1024)
		region_name[self] = name;
	return OTF2_CALLBACK_SUCCESS;
}

static void add_event(char kind, OTF2_RegionRef r)
{
	if (n_got + 2 < sizeof(got) && r < 1024) {
		got[n_got++] = kind;
		got[n_got++] = strings[region_name[r] < 1024 ? region_name[r] : 0][0];
	}
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t pos, void *u,
				  OTF2_AttributeList *a, OTF2_RegionRef r)
{
	add_event('E', r);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t pos, void *u,
				  OTF2_AttributeList *a, OTF2_RegionRef r)
{
	add_event('L', r);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_measure(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t pos, void *u,
				    OTF2_AttributeList *a, OTF2_MeasurementMode mode)
{
	if (n_got + 2 < sizeof(got)) {
		got[n_got++] = 'M';
		got[n_got++] = mode == OTF2_MEASUREMENT_ON ? '1' : '0';
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_flush(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t pos, void *u,
				  OTF2_AttributeList *a, OTF2_TimeStamp stop)
{
	(*(uint64_t *)u)++;
	return OTF2_CALLBACK_SUCCESS;
}

/* Reads the Enter/Leave sequence of location 0 into got; returns its BufferFlush events. */
static uint64_t read_trace(const char *anchor)
{
	uint64_t flushes = 0, n;
	OTF2_Reader *r = OTF2_Reader_Open(anchor);
	CHECK(r != NULL);
	if (!r)
		return 0;
	OTF2_Reader_SetSerialCollectiveCallbacks(r);
	OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(r);
	OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, def_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, def_region);
	OTF2_Reader_RegisterGlobalDefCallbacks(r, gd, gcb, NULL);
	OTF2_Reader_ReadAllGlobalDefinitions(r, gd, &n);
	OTF2_GlobalDefReaderCallbacks_Delete(gcb);
	OTF2_Reader_SelectLocation(r, 0);
	OTF2_Reader_OpenDefFiles(r);
	OTF2_Reader_OpenEvtFiles(r);
	OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, 0);
	if (dr)
		OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n);
	OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, 0);
	OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
	OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, on_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, on_leave);
	OTF2_EvtReaderCallbacks_SetBufferFlushCallback(ecb, on_flush);
	OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(ecb, on_measure);
	OTF2_Reader_RegisterEvtCallbacks(r, er, ecb, &flushes);
	CHECK(OTF2_Reader_ReadAllLocalEvents(r, er, &n) == OTF2_SUCCESS);
	OTF2_EvtReaderCallbacks_Delete(ecb);
	OTF2_Reader_CloseEvtFiles(r);
	OTF2_Reader_Close(r);
	return flushes;
}

static int child(const char *dir)
{
	struct vt_tls *t = vt_thread_self();
	CHECK(t != NULL && vt_buf_half_records(1024) == HALF);
	if (!t)
		return unit_done();
	signal(SIGUSR1, handler);
	uint32_t a = vt_region_of_name(name_a);
	long flushes0 = t->loc->flushes;

	/* The largest event, exactly half a buffer: a fresh half, filled to its end. */
	vt_thread_enter(t, a);
	vt_thread_leave(t, a);
	expect("EaLa", 1);
	struct vt_rec *p = vt_buf_reserve(t, HALF);
	CHECK(p != NULL && p == t->loc->buf && t->end - p == HALF);
	CHECK(t->loc->flushes == flushes0 + 1);
	if (p) {
		p[0].ts = vt_clock_now();
		p[0].region = a;
		p[0].kind = VT_REC_ENTER;
		for (int i = 1; i < HALF; i++) {
			/* values of a metric this process does not define: encoded as nothing */
			struct vt_rec_metric *m = (struct vt_rec_metric *)&p[i];
			m->value = (uint64_t)i;
			m->metric = 0xFFFFFF00u;
			m->kind = VT_REC_METRIC;
		}
		vt_buf_commit(t, p, HALF);
		CHECK(t->pos == t->end);
		vt_thread_leave(t, a);
		expect("EaLa", 1);
		CHECK(t->loc->flushes == flushes0 + 2);
	}

	/* Larger than half: refused, counted, and the thread records on. */
	uint64_t dropped0 = t->loc->dropped;
	CHECK(vt_buf_reserve(t, HALF + 1) == NULL);
	CHECK(t->nest == 0 && t->loc->dropped == dropped0 + 1);

	/* The fast reservation: room in the half, else NULL with nothing changed, no flush;
	 * inside another reservation, NULL too. */
	fill_to(t, 2);
	long flushes1 = t->loc->flushes;
	struct vt_rec *pos1 = t->pos;
	CHECK(vt_buf_reserve_fast(t, 3) == NULL);
	CHECK(t->nest == 0 && t->pos == pos1 && t->loc->flushes == flushes1);
	p = vt_buf_reserve_fast(t, 2);
	CHECK(p == pos1 && t->nest == 1);
	if (p) {
		CHECK(vt_buf_reserve_fast(t, 1) == NULL && t->nest == 1);
		p[0] = (struct vt_rec){vt_clock_now(), a, VT_REC_ENTER};
		p[1] = (struct vt_rec){vt_clock_now(), a, VT_REC_LEAVE};
		vt_buf_commit(t, p, 2);
		CHECK(t->nest == 0 && t->pos == t->end && t->loc->flushes == flushes1);
		expect("EaLa", 1);
	}

	/* A handler recording 100 pairs while the producer holds the last record of a half:
	 * its events follow the producer's, and appending them flushes 7 times. */
	fill_to(t, 1);
	long before = t->loc->flushes;
	interrupted_enter(t, 100);
	expect("Ea", 1);
	expect("EsLs", 100);
	expect("La", 1);
	CHECK(t->loc->flushes - before == 7); /* 200 records after a full half: 1 + 6 */

	/* More than the side area's first segment holds (512 records): the handler maps the
	 * second, and every event is kept. */
	dropped0 = t->loc->dropped;
	interrupted_enter(t, 300);
	expect("Ea", 1);
	expect("EsLs", 300);
	expect("La", 1);
	CHECK(t->loc->dropped == dropped0);
	CHECK(t->side[1] != NULL && t->side[2] == NULL);

	/* More than all its segments hold: VT_BUF_SIDE_MAX records kept, 88 events dropped, and
	 * the gap marked after them. */
	interrupted_enter(t, VT_BUF_SIDE_MAX / 2 + 44);
	expect("Ea", 1);
	expect("EsLs", VT_BUF_SIDE_MAX / 2);
	expect("M0M1", 1);
	expect("La", 1);
	CHECK(t->loc->dropped == dropped0 + 88);
	CHECK(t->side[VT_BUF_SIDE_SEGS - 1] != NULL && t->side_lost == 0);

	/* A handler outside any reservation records straight into the buffer. */
	handler_pairs = 10;
	raise(SIGUSR1);
	expect("EsLs", 10);
	CHECK(t->nest == 0 && t->side_n == 0);

	long total_flushes = t->loc->flushes;
	vt_finalize();
	char anchor[4096];
	snprintf(anchor, sizeof(anchor), "%s/buf.otf2", dir);
	uint64_t flush_events = read_trace(anchor);
	CHECK(n_got == n_want && memcmp(got, want, n_want) == 0);
	if (n_got != n_want || memcmp(got, want, n_want) != 0) {
		size_t i = 0; /* from a little before the first difference */
		while (i < n_want && i < n_got && want[i] == got[i])
			i++;
		i = i > 40 ? i - 40 : 0;
		fprintf(stderr, "want %zu, from %zu: %.200s\n got %zu, from %zu: %.200s\n", n_want,
			i, want + i, n_got, i, got + (i < n_got ? i : n_got));
	}
	CHECK(flush_events == (uint64_t)total_flushes);
	char rm[4200];
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return unit_done();
}

int main(int argc, char **argv)
{
	const char *dir = getenv("VT_TEST_BUFFER_DIR");
	if (dir)
		return child(dir);
	char tmp[] = "/tmp/vt-test-buffer-XXXXXX";
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("VT_TEST_BUFFER_DIR", tmp, 1);
	setenv("VT_PFORM_GDIR", tmp, 1);
	setenv("VT_FILE_PREFIX", "buf", 1);
	setenv("VT_BUFFER_SIZE", "1k", 1);
	setenv("VT_ON", "yes", 1);
	setenv("VT_VERBOSE", "1", 1);
	execv("/proc/self/exe", argv);
	perror("execv");
	return 1;
}
