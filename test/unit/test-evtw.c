/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt's own OTF2 event writer against libotf2: every record kind vt writes, each field through
 * its edge values, gives the bytes libotf2's event writer gives for the same calls (one
 * location per kind in one archive); a stream of many chunks with every kind, attribute lists
 * and long metric records is read back by libotf2's reader with every field as written; an
 * output that fails stops the writer.
 */
#include "archive/vt_evtw.h"
#include "otf2_sink.h"
#include "unit.h"

#include <errno.h>
#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (256 * 1024)

static const uint32_t e32[] = {
    0, 1, 2, 255, 256, 65535, 65536, 0xfffffe, 0x1000000, UINT32_MAX - 1, UINT32_MAX};
static const uint64_t e64[] = {0,
			       1,
			       255,
			       256,
			       UINT32_MAX,
			       1ull << 32,
			       0xffffffffffull,
			       1ull << 56,
			       UINT64_MAX - 1,
			       UINT64_MAX,
			       0x8000000000000000ull};
static const int64_t es64[] = {0, 1, -1, 255, -256, 65536, INT64_MIN, INT64_MAX, -300};
static const uint8_t e8[] = {0, 1, 127, 255};
#define N_EDGE 11

/* The k-th edge value of field j: each field meets every edge as k runs. */
#define U32(j) e32[(k + (j)) % 11]
#define U64(j) e64[(k + (j)) % 11]
#define S64(j) es64[(k + (j)) % 9]
#define U8(j)  e8[(k + (j)) % 4]

static OTF2_Archive *archive_open(const char *dir)
{
	OTF2_Archive *a = OTF2_Archive_Open(dir, "t", OTF2_FILEMODE_WRITE, CHUNK, 4 * 1024 * 1024,
					    OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	OTF2_Archive_SetFlushCallbacks(a, &flush_cb, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(a);
	OTF2_Archive_OpenEvtFiles(a);
	return a;
}

/* The archive's definitions (n locations of the events given) written, the archive closed. */
static void archive_close(OTF2_Archive *a, uint32_t n, const uint64_t *events)
{
	OTF2_Archive_CloseEvtFiles(a);
	OTF2_Archive_OpenDefFiles(a);
	for (uint32_t i = 0; i < n; i++)
		OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, i));
	OTF2_Archive_CloseDefFiles(a);
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
	OTF2_GlobalDefWriter_WriteString(g, 0, "");
	OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
						OTF2_UNDEFINED_LOCATION_GROUP);
	for (uint32_t i = 0; i < n; i++)
		OTF2_GlobalDefWriter_WriteLocation(g, i, 0, OTF2_LOCATION_TYPE_CPU_THREAD,
						   events[i], 0);
	OTF2_Archive_Close(a);
}

static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *b = malloc(64 << 20);
	*n = fread(b, 1, 64 << 20, f);
	fclose(f);
	return b;
}

/* An Enter with 1 to 20 attributes of three types (17 and more take the long length). */
static void many_attrs(OTF2_EvtWriter *ow, OTF2_AttributeList *al, struct vt_evtw *vw, int k,
		       uint64_t ts)
{
	struct vt_evtw_attr many[20];
	uint32_t n = 1 + (uint32_t)k % 20;
	for (uint32_t i = 0; i < n; i++) {
		OTF2_Type t = i % 3 == 0   ? OTF2_TYPE_UINT64
			      : i % 3 == 1 ? OTF2_TYPE_UINT32
					   : OTF2_TYPE_UINT8;
		uint64_t x = t == OTF2_TYPE_UINT8 ? U8(i) : t == OTF2_TYPE_UINT32 ? U32(i) : U64(i);
		/* distinct ids: a list refuses a second value of an id */
		many[i] = (struct vt_evtw_attr){i ? 1000 + i : U32(1), t, x};
		if (t == OTF2_TYPE_UINT8)
			OTF2_AttributeList_AddUint8(al, many[i].id, (uint8_t)x);
		else if (t == OTF2_TYPE_UINT32)
			OTF2_AttributeList_AddUint32(al, many[i].id, (uint32_t)x);
		else
			OTF2_AttributeList_AddUint64(al, many[i].id, x);
	}
	OTF2_EvtWriter_Enter(ow, al, ts, U32(0));
	vt_evtw_enter_attrs(vw, many, n, ts, U32(0));
}

/*
 * One kind: `o` is the libotf2 call on writer ow, `v` vt's on writer vw, both with the k-th
 * edge values and time ts; run for every k, then the two files compared.
 */
#define KIND(name, o, v)                                                                           \
	do {                                                                                       \
		OTF2_EvtWriter *ow = OTF2_Archive_GetEvtWriter(a, loc);                            \
		struct vt_evtw vw_, *vw = &vw_;                                                    \
		struct sink s = {.fail_after = -1};                                                \
		vt_evtw_init(vw, CHUNK, 1, to_sink, &s);                                           \
		for (int k = 0; k < N_EDGE * 2; k++) {                                             \
			uint64_t ts = 5 + (uint64_t)k / 3; /* some events share a time */          \
			o;                                                                         \
			v;                                                                         \
		}                                                                                  \
		OTF2_EvtWriter_GetNumberOfEvents(ow, &events[loc]);                                \
		OTF2_Archive_CloseEvtWriter(a, ow);                                                \
		CHECK(vw->n_events == events[loc]);                                                \
		CHECK(vt_evtw_close(vw) == 0);                                                     \
		names[loc] = name;                                                                 \
		mine[loc] = s.bytes;                                                               \
		mine_n[loc++] = s.n;                                                               \
	} while (0)

static void kinds(void)
{
	static const char *names[64];
	static uint8_t *mine[64];
	static size_t mine_n[64];
	static uint64_t events[64];
	uint32_t loc = 0;
	char dir[] = "/tmp/vt-evtw-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	OTF2_Archive *a = archive_open(dir);
	OTF2_AttributeList *al = OTF2_AttributeList_New();
	struct vt_evtw_attr at[3];

	KIND("Enter", OTF2_EvtWriter_Enter(ow, NULL, ts, U32(0)), vt_evtw_enter(vw, ts, U32(0)));
	KIND("Leave", OTF2_EvtWriter_Leave(ow, NULL, ts, U32(0)), vt_evtw_leave(vw, ts, U32(0)));
	KIND("Enter+attrs",
	     (OTF2_AttributeList_AddUint64(al, U32(1), U64(2)),
	      OTF2_AttributeList_AddUint8(al, U32(3), U8(4)),
	      OTF2_AttributeList_AddInt64(al, U32(5), S64(6)),
	      OTF2_EvtWriter_Enter(ow, al, ts, U32(0))),
	     (at[0] = (struct vt_evtw_attr){U32(1), OTF2_TYPE_UINT64, U64(2)},
	      at[1] = (struct vt_evtw_attr){U32(3), OTF2_TYPE_UINT8, U8(4)},
	      at[2] = (struct vt_evtw_attr){U32(5), OTF2_TYPE_INT64, (uint64_t)S64(6)},
	      vt_evtw_enter_attrs(vw, at, 3, ts, U32(0))));
	KIND("Leave+attr",
	     (OTF2_AttributeList_AddUint32(al, U32(1), U32(2)),
	      OTF2_EvtWriter_Leave(ow, al, ts, U32(0))),
	     (at[0] = (struct vt_evtw_attr){U32(1), OTF2_TYPE_UINT32, U32(2)},
	      vt_evtw_leave_attrs(vw, at, 1, ts, U32(0))));
	KIND("BufferFlush", OTF2_EvtWriter_BufferFlush(ow, NULL, ts, U64(0)),
	     vt_evtw_buffer_flush(vw, ts, U64(0)));
	KIND("MeasurementOnOff", OTF2_EvtWriter_MeasurementOnOff(ow, NULL, ts, U8(0)),
	     vt_evtw_measurement(vw, ts, U8(0)));
	KIND(
	    "Metric",
	    do {
		    OTF2_Type t[64];
		    OTF2_MetricValue mv[64];
		    uint8_t n = (uint8_t)(1 + (k * 7) % 64);
		    for (uint8_t i = 0; i < n; i++) {
			    t[i] = (i % 3 == 0)	  ? OTF2_TYPE_UINT64
				   : (i % 3 == 1) ? OTF2_TYPE_INT64
						  : OTF2_TYPE_DOUBLE;
			    if (t[i] == OTF2_TYPE_DOUBLE)
				    mv[i].floating_point = (double)U64(i) / 3.0;
			    else
				    mv[i].unsigned_int = U64(i);
		    }
		    OTF2_EvtWriter_Metric(ow, NULL, ts, U32(0), n, t, mv);
		    vt_evtw_metric(vw, ts, U32(0), n, t, mv);
	    } while (0),
	    (void)0);
	KIND("CallingContextSample",
	     OTF2_EvtWriter_CallingContextSample(ow, NULL, ts, U32(0), U32(1), U32(2)),
	     vt_evtw_sample(vw, ts, U32(0), U32(1), U32(2)));
	KIND("MpiSend+attr",
	     (OTF2_AttributeList_AddUint8(al, 1, U8(0)),
	      OTF2_EvtWriter_MpiSend(ow, al, ts, U32(0), U32(1), U32(2), U64(3))),
	     (at[0] = (struct vt_evtw_attr){1, OTF2_TYPE_UINT8, U8(0)},
	      vt_evtw_mpi_send(vw, at, 1, ts, U32(0), U32(1), U32(2), U64(3))));
	KIND("MpiIsend",
	     OTF2_EvtWriter_MpiIsend(ow, NULL, ts, U32(0), U32(1), U32(2), U64(3), U64(4)),
	     vt_evtw_mpi_isend(vw, NULL, 0, ts, U32(0), U32(1), U32(2), U64(3), U64(4)));
	KIND("MpiRecv", OTF2_EvtWriter_MpiRecv(ow, NULL, ts, U32(0), U32(1), U32(2), U64(3)),
	     vt_evtw_mpi_recv(vw, NULL, 0, ts, U32(0), U32(1), U32(2), U64(3)));
	KIND("MpiIrecv",
	     OTF2_EvtWriter_MpiIrecv(ow, NULL, ts, U32(0), U32(1), U32(2), U64(3), U64(4)),
	     vt_evtw_mpi_irecv(vw, NULL, 0, ts, U32(0), U32(1), U32(2), U64(3), U64(4)));
	KIND("MpiIsendComplete", OTF2_EvtWriter_MpiIsendComplete(ow, NULL, ts, U64(0)),
	     vt_evtw_request(vw, ts, VT_EVTW_ISEND_COMPLETE, U64(0)));
	KIND("MpiIrecvRequest", OTF2_EvtWriter_MpiIrecvRequest(ow, NULL, ts, U64(0)),
	     vt_evtw_request(vw, ts, VT_EVTW_IRECV_REQUEST, U64(0)));
	KIND("MpiRequestTest", OTF2_EvtWriter_MpiRequestTest(ow, NULL, ts, U64(0)),
	     vt_evtw_request(vw, ts, VT_EVTW_REQUEST_TEST, U64(0)));
	KIND("MpiRequestCancelled", OTF2_EvtWriter_MpiRequestCancelled(ow, NULL, ts, U64(0)),
	     vt_evtw_request(vw, ts, VT_EVTW_REQUEST_CANCELLED, U64(0)));
	KIND("NonBlockingCollectiveRequest",
	     OTF2_EvtWriter_NonBlockingCollectiveRequest(ow, NULL, ts, U64(0)),
	     vt_evtw_request(vw, ts, VT_EVTW_NBC_REQUEST, U64(0)));
	KIND("MpiCollectiveBegin", OTF2_EvtWriter_MpiCollectiveBegin(ow, NULL, ts),
	     vt_evtw_coll_begin(vw, ts));
	KIND("MpiCollectiveEnd+attr",
	     (OTF2_AttributeList_AddUint8(al, 1, U8(5)),
	      OTF2_EvtWriter_MpiCollectiveEnd(ow, al, ts, U8(0), U32(1), U32(2), U64(3), U64(4))),
	     (at[0] = (struct vt_evtw_attr){1, OTF2_TYPE_UINT8, U8(5)},
	      vt_evtw_coll_end(vw, at, 1, ts, U8(0), U32(1), U32(2), U64(3), U64(4))));
	KIND("NonBlockingCollectiveComplete",
	     OTF2_EvtWriter_NonBlockingCollectiveComplete(ow, NULL, ts, U8(0), U32(1), U32(2),
							  U64(3), U64(4), U64(5)),
	     vt_evtw_nbc_complete(vw, ts, U8(0), U32(1), U32(2), U64(3), U64(4), U64(5)));
	KIND("RmaWinCreate", OTF2_EvtWriter_RmaWinCreate(ow, NULL, ts, U32(0)),
	     vt_evtw_rma_win(vw, ts, true, U32(0)));
	KIND("RmaWinDestroy", OTF2_EvtWriter_RmaWinDestroy(ow, NULL, ts, U32(0)),
	     vt_evtw_rma_win(vw, ts, false, U32(0)));
	KIND("RmaCollectiveBegin", OTF2_EvtWriter_RmaCollectiveBegin(ow, NULL, ts),
	     vt_evtw_rma_coll_begin(vw, ts));
	KIND("RmaCollectiveEnd",
	     OTF2_EvtWriter_RmaCollectiveEnd(ow, NULL, ts, U8(0), U32(1), U32(2), U32(3), U64(4),
					     U64(5)),
	     vt_evtw_rma_coll_end(vw, ts, U8(0), U32(1), U32(2), U32(3), U64(4), U64(5)));
	KIND("RmaGroupSync", OTF2_EvtWriter_RmaGroupSync(ow, NULL, ts, U32(0), U32(1), U32(2)),
	     vt_evtw_rma_group_sync(vw, ts, U32(0), U32(1), U32(2)));
	KIND("RmaRequestLock",
	     OTF2_EvtWriter_RmaRequestLock(ow, NULL, ts, U32(0), U32(1), U64(2), U8(3)),
	     vt_evtw_rma_request_lock(vw, ts, U32(0), U32(1), U64(2), U8(3)));
	KIND("RmaReleaseLock", OTF2_EvtWriter_RmaReleaseLock(ow, NULL, ts, U32(0), U32(1), U64(2)),
	     vt_evtw_rma_release_lock(vw, ts, U32(0), U32(1), U64(2)));
	KIND("RmaPut", OTF2_EvtWriter_RmaPut(ow, NULL, ts, U32(0), U32(1), U64(2), U64(3)),
	     vt_evtw_rma_xfer(vw, ts, true, U32(0), U32(1), U64(2), U64(3)));
	KIND("RmaGet", OTF2_EvtWriter_RmaGet(ow, NULL, ts, U32(0), U32(1), U64(2), U64(3)),
	     vt_evtw_rma_xfer(vw, ts, false, U32(0), U32(1), U64(2), U64(3)));
	KIND("RmaAtomic",
	     OTF2_EvtWriter_RmaAtomic(ow, NULL, ts, U32(0), U32(1), U8(2), U64(3), U64(4), U64(5)),
	     vt_evtw_rma_atomic(vw, ts, U32(0), U32(1), U8(2), U64(3), U64(4), U64(5)));
	KIND("RmaOpCompleteBlocking",
	     OTF2_EvtWriter_RmaOpCompleteBlocking(ow, NULL, ts, U32(0), U64(1)),
	     vt_evtw_rma_complete(vw, ts, VT_EVTW_RMA_COMPLETE_BLOCKING, U32(0), U64(1)));
	KIND("RmaOpCompleteNonBlocking",
	     OTF2_EvtWriter_RmaOpCompleteNonBlocking(ow, NULL, ts, U32(0), U64(1)),
	     vt_evtw_rma_complete(vw, ts, VT_EVTW_RMA_COMPLETE_NONBLOCKING, U32(0), U64(1)));
	KIND("RmaOpCompleteRemote",
	     OTF2_EvtWriter_RmaOpCompleteRemote(ow, NULL, ts, U32(0), U64(1)),
	     vt_evtw_rma_complete(vw, ts, VT_EVTW_RMA_COMPLETE_REMOTE, U32(0), U64(1)));
	KIND("ThreadFork", OTF2_EvtWriter_ThreadFork(ow, NULL, ts, U8(0), U32(1)),
	     vt_evtw_thread_fork(vw, ts, U8(0), U32(1)));
	KIND("ThreadJoin", OTF2_EvtWriter_ThreadJoin(ow, NULL, ts, U8(0)),
	     vt_evtw_thread_join(vw, ts, U8(0)));
	KIND("ThreadTeamBegin", OTF2_EvtWriter_ThreadTeamBegin(ow, NULL, ts, U32(0)),
	     vt_evtw_thread_team(vw, ts, true, U32(0)));
	KIND("ThreadTeamEnd", OTF2_EvtWriter_ThreadTeamEnd(ow, NULL, ts, U32(0)),
	     vt_evtw_thread_team(vw, ts, false, U32(0)));
	KIND("ThreadAcquireLock",
	     OTF2_EvtWriter_ThreadAcquireLock(ow, NULL, ts, U8(0), U32(1), U32(2)),
	     vt_evtw_thread_lock(vw, ts, true, U8(0), U32(1), U32(2)));
	KIND("ThreadReleaseLock",
	     OTF2_EvtWriter_ThreadReleaseLock(ow, NULL, ts, U8(0), U32(1), U32(2)),
	     vt_evtw_thread_lock(vw, ts, false, U8(0), U32(1), U32(2)));
	KIND("ThreadTaskCreate",
	     OTF2_EvtWriter_ThreadTaskCreate(ow, NULL, ts, U32(0), U32(1), U32(2)),
	     vt_evtw_thread_task(vw, ts, VT_EVTW_TASK_CREATE, U32(0), U32(1), U32(2)));
	KIND("ThreadTaskSwitch",
	     OTF2_EvtWriter_ThreadTaskSwitch(ow, NULL, ts, U32(0), U32(1), U32(2)),
	     vt_evtw_thread_task(vw, ts, VT_EVTW_TASK_SWITCH, U32(0), U32(1), U32(2)));
	KIND("ThreadTaskComplete",
	     OTF2_EvtWriter_ThreadTaskComplete(ow, NULL, ts, U32(0), U32(1), U32(2)),
	     vt_evtw_thread_task(vw, ts, VT_EVTW_TASK_COMPLETE, U32(0), U32(1), U32(2)));
	KIND("ThreadCreate", OTF2_EvtWriter_ThreadCreate(ow, NULL, ts, U32(0), U64(1)),
	     vt_evtw_thread_seq(vw, ts, VT_EVTW_THREAD_CREATE, U32(0), U64(1)));
	KIND("ThreadBegin", OTF2_EvtWriter_ThreadBegin(ow, NULL, ts, U32(0), U64(1)),
	     vt_evtw_thread_seq(vw, ts, VT_EVTW_THREAD_BEGIN, U32(0), U64(1)));
	KIND("ThreadWait", OTF2_EvtWriter_ThreadWait(ow, NULL, ts, U32(0), U64(1)),
	     vt_evtw_thread_seq(vw, ts, VT_EVTW_THREAD_WAIT, U32(0), U64(1)));
	KIND("ThreadEnd", OTF2_EvtWriter_ThreadEnd(ow, NULL, ts, U32(0), U64(1)),
	     vt_evtw_thread_seq(vw, ts, VT_EVTW_THREAD_END, U32(0), U64(1)));
	KIND("IoCreateHandle",
	     OTF2_EvtWriter_IoCreateHandle(ow, NULL, ts, U32(0), U8(1), U32(2), U32(3)),
	     vt_evtw_io_create_handle(vw, ts, U32(0), U8(1), U32(2), U32(3)));
	KIND("IoDestroyHandle", OTF2_EvtWriter_IoDestroyHandle(ow, NULL, ts, U32(0)),
	     vt_evtw_io_destroy_handle(vw, ts, U32(0)));
	KIND("IoDuplicateHandle",
	     OTF2_EvtWriter_IoDuplicateHandle(ow, NULL, ts, U32(0), U32(1), U32(2)),
	     vt_evtw_io_duplicate_handle(vw, ts, U32(0), U32(1), U32(2)));
	KIND("IoSeek", OTF2_EvtWriter_IoSeek(ow, NULL, ts, U32(0), S64(1), U8(2), U64(3)),
	     vt_evtw_io_seek(vw, ts, U32(0), S64(1), U8(2), U64(3)));
	KIND("IoChangeStatusFlags",
	     OTF2_EvtWriter_IoChangeStatusFlags(ow, NULL, ts, U32(0), U32(1)),
	     vt_evtw_io_change_status(vw, ts, U32(0), U32(1)));
	KIND("IoDeleteFile", OTF2_EvtWriter_IoDeleteFile(ow, NULL, ts, U8(0), U32(1)),
	     vt_evtw_io_delete_file(vw, ts, U8(0), U32(1)));
	KIND("IoOperationBegin+attr",
	     (OTF2_AttributeList_AddUint8(al, 1, U8(5)),
	      OTF2_EvtWriter_IoOperationBegin(ow, al, ts, U32(0), U8(1), U32(2), U64(3), U64(4))),
	     (at[0] = (struct vt_evtw_attr){1, OTF2_TYPE_UINT8, U8(5)},
	      vt_evtw_io_begin(vw, at, 1, ts, U32(0), U8(1), U32(2), U64(3), U64(4))));
	KIND("IoOperationIssued", OTF2_EvtWriter_IoOperationIssued(ow, NULL, ts, U32(0), U64(1)),
	     vt_evtw_io_mark(vw, ts, VT_EVTW_IO_ISSUED, U32(0), U64(1)));
	KIND("IoOperationCancelled",
	     OTF2_EvtWriter_IoOperationCancelled(ow, NULL, ts, U32(0), U64(1)),
	     vt_evtw_io_mark(vw, ts, VT_EVTW_IO_CANCELLED, U32(0), U64(1)));
	KIND("IoOperationComplete",
	     OTF2_EvtWriter_IoOperationComplete(ow, NULL, ts, U32(0), U64(1), U64(2)),
	     vt_evtw_io_complete(vw, NULL, 0, ts, U32(0), U64(1), U64(2)));
	KIND("Enter+many attrs", many_attrs(ow, al, vw, k, ts), (void)0);
	/* A location with no event. */
	KIND("nothing", (void)ts, (void)0);

	OTF2_AttributeList_Delete(al);
	archive_close(a, loc, events);
	for (uint32_t i = 0; i < loc; i++) {
		char path[128];
		size_t n = 0;
		snprintf(path, sizeof(path), "%s/t/%u.evt", dir, i);
		uint8_t *theirs = read_file(path, &n);
		bool same = theirs && n == mine_n[i] && memcmp(theirs, mine[i], n) == 0;
		if (!same) {
			size_t d = 0;
			while (theirs && d < n && d < mine_n[i] && theirs[d] == mine[i][d])
				d++;
			fprintf(stderr,
				"%s: libotf2 wrote %zu bytes, vt %zu, first difference at %zu\n",
				names[i], n, mine_n[i], d);
		}
		CHECK(same);
		free(theirs);
		free(mine[i]);
		unlink(path);
	}
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

/* The stream: random events of eight kinds, the same sequence for a seed. */
struct ev {
	int kind;
	uint64_t ts, a, b, c;
	uint8_t n;
	OTF2_Type types[64];
	OTF2_MetricValue values[64];
};

static uint64_t rng;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A value of a random magnitude, edges included. */
static uint64_t any(void)
{
	uint64_t r = next();
	switch (r % 4) {
	case 0:
		return e64[(r >> 8) % 11];
	case 1:
		return (r >> 8) & 0xff;
	case 2:
		return (r >> 8) & 0xffffff;
	default:
		return next();
	}
}

static void gen(struct ev *e, uint64_t *ts)
{
	*ts += next() % 4 == 0 ? 0 : next() % 100000;
	e->ts = *ts;
	e->kind = (int)(next() % 8);
	e->a = any();
	e->b = any();
	e->c = any();
	e->n = (uint8_t)(1 + next() % 64);
	for (uint8_t i = 0; i < e->n; i++) {
		e->types[i] = i % 2 ? OTF2_TYPE_INT64 : OTF2_TYPE_UINT64;
		e->values[i].unsigned_int = any();
	}
}

static void emit(const struct ev *e, OTF2_EvtWriter *ow, OTF2_AttributeList *al, struct vt_evtw *vw)
{
	struct vt_evtw_attr at = {7, OTF2_TYPE_UINT64, e->b};
	switch (e->kind) {
	case 0:
		OTF2_EvtWriter_Enter(ow, NULL, e->ts, (uint32_t)e->a);
		vt_evtw_enter(vw, e->ts, (uint32_t)e->a);
		break;
	case 1:
		OTF2_EvtWriter_Leave(ow, NULL, e->ts, (uint32_t)e->a);
		vt_evtw_leave(vw, e->ts, (uint32_t)e->a);
		break;
	case 2:
		OTF2_AttributeList_AddUint64(al, 7, e->b);
		OTF2_EvtWriter_Enter(ow, al, e->ts, (uint32_t)e->a);
		vt_evtw_enter_attrs(vw, &at, 1, e->ts, (uint32_t)e->a);
		break;
	case 3:
		OTF2_EvtWriter_Metric(ow, NULL, e->ts, (uint32_t)e->a, e->n, e->types, e->values);
		vt_evtw_metric(vw, e->ts, (uint32_t)e->a, e->n, e->types, e->values);
		break;
	case 4:
		OTF2_EvtWriter_MpiIsend(ow, NULL, e->ts, (uint32_t)e->a, (uint32_t)e->b, 3, e->c,
					e->a);
		vt_evtw_mpi_isend(vw, NULL, 0, e->ts, (uint32_t)e->a, (uint32_t)e->b, 3, e->c,
				  e->a);
		break;
	case 5:
		OTF2_EvtWriter_IoSeek(ow, NULL, e->ts, (uint32_t)e->a, (int64_t)e->b, 1, e->c);
		vt_evtw_io_seek(vw, e->ts, (uint32_t)e->a, (int64_t)e->b, 1, e->c);
		break;
	case 6:
		OTF2_EvtWriter_BufferFlush(ow, NULL, e->ts, e->c);
		vt_evtw_buffer_flush(vw, e->ts, e->c);
		break;
	default:
		OTF2_EvtWriter_ThreadCreate(ow, NULL, e->ts, (uint32_t)e->a, e->b);
		vt_evtw_thread_seq(vw, e->ts, VT_EVTW_THREAD_CREATE, (uint32_t)e->a, e->b);
		break;
	}
}

/* The reading: each event read is compared with the next of the sequence. */
struct reading {
	uint64_t ts, n, bad;
	struct ev e;
};

static bool expect(struct reading *r, OTF2_TimeStamp t, int kind)
{
	gen(&r->e, &r->ts);
	r->n++;
	bool ok = r->e.ts == t && (r->e.kind == kind || (r->e.kind == 2 && kind == 0));
	if (!ok && r->bad++ < 5)
		fprintf(stderr,
			"event %" PRIu64 ": kind %d at %" PRIu64 ", read %d at %" PRIu64 "\n", r->n,
			r->e.kind, r->e.ts, kind, (uint64_t)t);
	return ok;
}

static void differs(struct reading *r, const char *what)
{
	if (r->bad++ < 5)
		fprintf(stderr, "event %" PRIu64 ": %s differs\n", r->n, what);
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
				  OTF2_AttributeList *al, OTF2_RegionRef region)
{
	struct reading *r = u;
	(void)l, (void)pos;
	if (!expect(r, t, 0))
		return OTF2_CALLBACK_SUCCESS;
	uint64_t v = 0;
	bool has = OTF2_AttributeList_GetNumberOfElements(al) > 0 &&
		   OTF2_AttributeList_GetUint64(al, 7, &v) == OTF2_SUCCESS;
	if (region != (uint32_t)r->e.a || has != (r->e.kind == 2) || (has && v != r->e.b))
		differs(r, "Enter");
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
				  OTF2_AttributeList *al, OTF2_RegionRef region)
{
	struct reading *r = u;
	(void)l, (void)pos, (void)al;
	if (expect(r, t, 1) && region != (uint32_t)r->e.a)
		differs(r, "Leave");
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_metric(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
				   OTF2_AttributeList *al, OTF2_MetricRef m, uint8_t n,
				   const OTF2_Type *types, const OTF2_MetricValue *values)
{
	struct reading *r = u;
	(void)l, (void)pos, (void)al;
	if (!expect(r, t, 3))
		return OTF2_CALLBACK_SUCCESS;
	bool same = m == (uint32_t)r->e.a && n == r->e.n;
	for (uint8_t i = 0; same && i < n; i++)
		same = types[i] == r->e.types[i] &&
		       values[i].unsigned_int == r->e.values[i].unsigned_int;
	if (!same)
		differs(r, "Metric");
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
				  OTF2_AttributeList *al, uint32_t to, OTF2_CommRef comm,
				  uint32_t tag, uint64_t len, uint64_t req)
{
	struct reading *r = u;
	(void)l, (void)pos, (void)al;
	if (expect(r, t, 4) && (to != (uint32_t)r->e.a || comm != (uint32_t)r->e.b || tag != 3 ||
				len != r->e.c || req != r->e.a))
		differs(r, "MpiIsend");
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_seek(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
				 OTF2_AttributeList *al, OTF2_IoHandleRef h, int64_t req,
				 OTF2_IoSeekOption whence, uint64_t result)
{
	struct reading *r = u;
	(void)l, (void)pos, (void)al;
	if (expect(r, t, 5) &&
	    (h != (uint32_t)r->e.a || req != (int64_t)r->e.b || whence != 1 || result != r->e.c))
		differs(r, "IoSeek");
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_flush(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
				  OTF2_AttributeList *al, OTF2_TimeStamp stop)
{
	struct reading *r = u;
	(void)l, (void)pos, (void)al;
	if (expect(r, t, 6) && stop != r->e.c)
		differs(r, "BufferFlush");
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_create(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
				   OTF2_AttributeList *al, OTF2_CommRef c, uint64_t seq)
{
	struct reading *r = u;
	(void)l, (void)pos, (void)al;
	if (expect(r, t, 7) && (c != (uint32_t)r->e.a || seq != r->e.b))
		differs(r, "ThreadCreate");
	return OTF2_CALLBACK_SUCCESS;
}

/* The events of location 0 of the archive in dir read by libotf2; how many were read. */
static uint64_t read_back(const char *dir, uint64_t seed, uint64_t *bad)
{
	char anchor[128];
	snprintf(anchor, sizeof(anchor), "%s/t.otf2", dir);
	OTF2_Reader *rd = OTF2_Reader_Open(anchor);
	if (!rd)
		return 0;
	OTF2_Reader_SetSerialCollectiveCallbacks(rd);
	OTF2_Reader_SelectLocation(rd, 0);
	OTF2_Reader_OpenEvtFiles(rd);
	OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, 0);
	OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
	OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
	OTF2_EvtReaderCallbacks_SetMetricCallback(cb, on_metric);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
	OTF2_EvtReaderCallbacks_SetIoSeekCallback(cb, on_seek);
	OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb, on_flush);
	OTF2_EvtReaderCallbacks_SetThreadCreateCallback(cb, on_create);
	struct reading r = {.ts = 1};
	rng = seed;
	OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, &r);
	uint64_t got = 0;
	OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalEvents(rd, er, &got);
	if (rc != OTF2_SUCCESS)
		r.bad++;
	OTF2_EvtReaderCallbacks_Delete(cb);
	OTF2_Reader_CloseEvtReader(rd, er);
	OTF2_Reader_CloseEvtFiles(rd);
	OTF2_Reader_Close(rd);
	*bad = r.bad;
	return r.n;
}

/* A file written as a sink's chunks arrive. */
static int to_file(void *arg, const uint8_t *b, size_t n)
{
	return fwrite(b, 1, n, arg) == n ? 0 : -EIO;
}

/*
 * n events of the stream through libotf2 (archive A) and vt (its event file put in archive B
 * beside libotf2's definitions): the files are equal byte for byte, many chunks long, and
 * libotf2 reads vt's back as generated.
 */
static void stream(uint64_t n, uint64_t seed, unsigned n_kept)
{
	char a_dir[] = "/tmp/vt-evtw-XXXXXX";
	if (!mkdtemp(a_dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	char b_dir[64], path[128], cmd[256];
	snprintf(b_dir, sizeof(b_dir), "%s/b", a_dir);
	OTF2_Archive *a = archive_open(a_dir);
	OTF2_Archive *b = archive_open(b_dir);
	OTF2_EvtWriter *ow = OTF2_Archive_GetEvtWriter(a, 0);
	snprintf(path, sizeof(path), "%s/t/0.evt", b_dir);
	FILE *f = fopen(path, "wb");
	struct vt_evtw vw;
	CHECK(f && vt_evtw_init(&vw, CHUNK, n_kept, to_file, f) == 0);
	OTF2_AttributeList *al = OTF2_AttributeList_New();
	static struct ev e;
	uint64_t ts = 1;
	rng = seed;
	for (uint64_t i = 0; i < n; i++) {
		gen(&e, &ts);
		emit(&e, ow, al, &vw);
	}
	uint64_t events = 0;
	OTF2_EvtWriter_GetNumberOfEvents(ow, &events);
	OTF2_Archive_CloseEvtWriter(a, ow);
	CHECK(events == n && vw.n_events == n);
	CHECK(vt_evtw_close(&vw) == 0);
	fclose(f);
	OTF2_AttributeList_Delete(al);
	archive_close(a, 1, &events);
	archive_close(b, 1, &events);

	size_t n_theirs = 0, n_mine = 0;
	snprintf(path, sizeof(path), "%s/t/0.evt", a_dir);
	uint8_t *theirs = read_file(path, &n_theirs);
	snprintf(path, sizeof(path), "%s/t/0.evt", b_dir);
	uint8_t *mine = read_file(path, &n_mine);
	CHECK(n_mine > 4 * CHUNK); /* many chunks */
	/*
	 * Equal but for the chunks' event numbers: libotf2 counts an event whose record moved to
	 * the next chunk in both (its headers overlap and drift), vt's number each event once, and
	 * its chunks follow each other exactly.
	 */
	bool same = theirs && mine && n_theirs == n_mine, numbered = same;
	uint64_t last = 0;
	for (size_t c = 0; same && c < n_mine; c += CHUNK) {
		uint64_t first_last[2];
		memcpy(first_last, mine + c + 2, 16);
		numbered = numbered && first_last[0] == last + 1 && first_last[1] >= last;
		last = first_last[1];
		memcpy(mine + c + 2, theirs + c + 2, 16);
	}
	CHECK(same && memcmp(theirs, mine, n_mine) == 0);
	CHECK(numbered && last == n);
	free(theirs);
	free(mine);

	uint64_t bad = 0;
	CHECK(read_back(b_dir, seed, &bad) == n);
	CHECK(bad == 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", a_dir);
	CHECK(system(cmd) == 0);
}

static OTF2_CallbackCode on_full_enter(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
				       OTF2_AttributeList *al, OTF2_RegionRef region)
{
	uint64_t *n = u;
	(void)l, (void)pos, (void)al;
	if (region == 1u << 24 && t == 100 + *n)
		(*n)++;
	return OTF2_CALLBACK_SUCCESS;
}

/*
 * A file whose last chunk is full to its last byte but one (each Enter 15 bytes, its bound,
 * 17475 of them after the header): its end goes into a chunk of its own, and libotf2 reads
 * every event.
 */
static void full_last_chunk(void)
{
	char dir[] = "/tmp/vt-evtw-XXXXXX", path[128], cmd[256];
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	OTF2_Archive *a = archive_open(dir);
	snprintf(path, sizeof(path), "%s/t/0.evt", dir);
	FILE *f = fopen(path, "wb");
	struct vt_evtw w;
	CHECK(f && vt_evtw_init(&w, CHUNK, 1, to_file, f) == 0);
	const uint64_t n = (CHUNK - 1 - 18) / 15;
	for (uint64_t i = 0; i < n; i++)
		vt_evtw_enter(&w, 100 + i, 1u << 24);
	CHECK(w.pos == w.chunk + CHUNK - 1);
	CHECK(vt_evtw_close(&w) == 0);
	fclose(f);
	archive_close(a, 1, &n);
	struct stat st;
	CHECK(stat(path, &st) == 0 && st.st_size == CHUNK + 20);

	snprintf(path, sizeof(path), "%s/t.otf2", dir);
	OTF2_Reader *rd = OTF2_Reader_Open(path);
	uint64_t got = 0, read = 0;
	if (rd) {
		OTF2_Reader_SetSerialCollectiveCallbacks(rd);
		OTF2_Reader_SelectLocation(rd, 0);
		OTF2_Reader_OpenEvtFiles(rd);
		OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, 0);
		OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
		OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_full_enter);
		OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, &got);
		CHECK(OTF2_Reader_ReadAllLocalEvents(rd, er, &read) == OTF2_SUCCESS);
		OTF2_EvtReaderCallbacks_Delete(cb);
		OTF2_Reader_CloseEvtReader(rd, er);
		OTF2_Reader_CloseEvtFiles(rd);
		OTF2_Reader_Close(rd);
	}
	CHECK(got == n && read == n);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

/* An output that fails: the writer takes no event after it and keeps its first error. */
static void failing(void)
{
	struct sink s = {.fail_after = 2};
	struct vt_evtw w;
	CHECK(vt_evtw_init(&w, CHUNK, 1, to_sink, &s) == 0);
	uint64_t taken = 0, i = 0;
	for (; i < 100000; i++) {
		if (!vt_evtw_enter(&w, 10 + i, (uint32_t)i))
			break;
		taken++;
	}
	/* two chunks of 9 + 1..4 bytes an event, then the third chunk's hand-over fails */
	CHECK(s.calls == 2 && i < 100000 && w.error == -ENOSPC);
	CHECK(w.n_events == taken);
	CHECK(!vt_evtw_leave(&w, 20 + i, 1) && w.n_events == taken);
	CHECK(vt_evtw_close(&w) == -ENOSPC && s.calls == 2);
	free(s.bytes);
}

int main(void)
{
	kinds();
	stream(200000, 0x9e3779b97f4a7c15ull, 1);
	stream(50000, 12345, 3);
	stream(120000, 777, 8);
	full_last_chunk();
	failing();
	return unit_done();
}
