/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace layer (tools/lib): a real OTF2 archive written here with libotf2's writer (three
 * MPI ranks, a split communicator, blocking and non-blocking messages, a receive recorded
 * before its send, collectives, an unmatched send, an unbalanced stack) is read back merged
 * in time order. Checked exactly: every matched message with both ends, FIFO order between
 * equal keys, the collectives with every member, what is reported unmatched, the stack
 * repairs, and the definitions by id.
 */
#include "unit.h"
#include "vtr.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f)
{
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l)
{
	return 0;
}

static const OTF2_FlushCallbacks flush = {pre_flush, post_flush};

enum { MAIN, SEND, RECV, ISEND, IRECV, WAIT, BARRIER, WORK, N_REGIONS };
static const char *const region_names[N_REGIONS] = {
    "main", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Barrier", "work"};

/* Writes the archive dir/t.otf2: ranks 0, 1, 2 (locations 0, 1, 2), comm 0 = world, comm 1 =
 * ranks {0, 2}. */
static void write_trace(const char *dir)
{
	OTF2_Archive *a = OTF2_Archive_Open(dir, "t", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
					    OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(a);
	OTF2_Archive_OpenEvtFiles(a);
	OTF2_EvtWriter *w[3];
	for (int r = 0; r < 3; r++)
		w[r] = OTF2_Archive_GetEvtWriter(a, (uint64_t)r);

	for (int r = 0; r < 3; r++)
		OTF2_EvtWriter_Enter(w[r], NULL, 10, MAIN);
	/* 0. I/O on rank 0: handle 0 created, a write of 10 bytes (8 done), a seek, a dup to
	 * handle 2, a read cancelled, handle 0 destroyed. */
	OTF2_EvtWriter_IoCreateHandle(w[0], NULL, 11, 0, OTF2_IO_ACCESS_MODE_WRITE_ONLY,
				      OTF2_IO_CREATION_FLAG_CREATE, OTF2_IO_STATUS_FLAG_NONE);
	OTF2_EvtWriter_IoOperationBegin(w[0], NULL, 12, 0, OTF2_IO_OPERATION_MODE_WRITE,
					OTF2_IO_OPERATION_FLAG_NONE, 10, 1);
	OTF2_EvtWriter_IoOperationComplete(w[0], NULL, 13, 0, 8, 1);
	OTF2_EvtWriter_IoSeek(w[0], NULL, 14, 0, -3, OTF2_IO_SEEK_FROM_END, 97);
	OTF2_EvtWriter_IoDuplicateHandle(w[0], NULL, 15, 0, 2, OTF2_IO_STATUS_FLAG_NONE);
	OTF2_EvtWriter_IoOperationBegin(w[0], NULL, 16, 2, OTF2_IO_OPERATION_MODE_READ,
					OTF2_IO_OPERATION_FLAG_NON_BLOCKING, 4, 2);
	OTF2_EvtWriter_IoOperationCancelled(w[0], NULL, 17, 2, 2);
	OTF2_EvtWriter_IoDestroyHandle(w[0], NULL, 18, 0);
	/* 1. rank 0 -> rank 1, tag 5, twice (FIFO: 100 bytes first, then 200). */
	OTF2_EvtWriter_Enter(w[0], NULL, 20, SEND);
	OTF2_EvtWriter_MpiSend(w[0], NULL, 21, 1, 0, 5, 100);
	OTF2_EvtWriter_Leave(w[0], NULL, 22, SEND);
	OTF2_EvtWriter_Enter(w[0], NULL, 23, SEND);
	OTF2_EvtWriter_MpiSend(w[0], NULL, 24, 1, 0, 5, 200);
	OTF2_EvtWriter_Leave(w[0], NULL, 25, SEND);
	OTF2_EvtWriter_Enter(w[1], NULL, 30, RECV);
	OTF2_EvtWriter_MpiRecv(w[1], NULL, 31, 0, 0, 5, 100);
	OTF2_EvtWriter_Leave(w[1], NULL, 32, RECV);
	OTF2_EvtWriter_Enter(w[1], NULL, 33, RECV);
	OTF2_EvtWriter_MpiRecv(w[1], NULL, 34, 0, 0, 5, 200);
	OTF2_EvtWriter_Leave(w[1], NULL, 35, RECV);
	/* 2. A receive recorded before its send (clocks apart): rank 2 from rank 1, tag 7. */
	OTF2_EvtWriter_Enter(w[2], NULL, 40, RECV);
	OTF2_EvtWriter_MpiRecv(w[2], NULL, 41, 1, 0, 7, 8);
	OTF2_EvtWriter_Leave(w[2], NULL, 42, RECV);
	OTF2_EvtWriter_Enter(w[1], NULL, 50, SEND);
	OTF2_EvtWriter_MpiSend(w[1], NULL, 51, 2, 0, 7, 8);
	OTF2_EvtWriter_Leave(w[1], NULL, 52, SEND);
	/* 3. Non-blocking on comm 1 (ranks 0 and 2: members 0 and 1): rank 2 Irecv from member
	 * 0, rank 0 Isend to member 1, completed after the receive. */
	OTF2_EvtWriter_Enter(w[2], NULL, 60, IRECV);
	OTF2_EvtWriter_MpiIrecvRequest(w[2], NULL, 61, 900);
	OTF2_EvtWriter_Leave(w[2], NULL, 62, IRECV);
	OTF2_EvtWriter_Enter(w[0], NULL, 63, ISEND);
	OTF2_EvtWriter_MpiIsend(w[0], NULL, 64, 1, 1, 3, 64, 77);
	OTF2_EvtWriter_Leave(w[0], NULL, 65, ISEND);
	OTF2_EvtWriter_Enter(w[2], NULL, 70, WAIT);
	OTF2_EvtWriter_MpiIrecv(w[2], NULL, 71, 0, 1, 3, 64, 900);
	OTF2_EvtWriter_Leave(w[2], NULL, 72, WAIT);
	OTF2_EvtWriter_Enter(w[0], NULL, 80, WAIT);
	OTF2_EvtWriter_MpiIsendComplete(w[0], NULL, 81, 77);
	OTF2_EvtWriter_Leave(w[0], NULL, 82, WAIT);
	/* 4. A barrier on the world, then one that rank 2 never ends. */
	for (int r = 0; r < 3; r++) {
		OTF2_EvtWriter_Enter(w[r], NULL, 90 + r, BARRIER);
		OTF2_EvtWriter_MpiCollectiveBegin(w[r], NULL, 91 + r);
		OTF2_EvtWriter_MpiCollectiveEnd(w[r], NULL, 95 + r, OTF2_COLLECTIVE_OP_BARRIER, 0,
						OTF2_UNDEFINED_UINT32, 0, 0);
		OTF2_EvtWriter_Leave(w[r], NULL, 96 + r, BARRIER);
	}
	for (int r = 0; r < 2; r++) {
		OTF2_EvtWriter_MpiCollectiveBegin(w[r], NULL, 101);
		OTF2_EvtWriter_MpiCollectiveEnd(w[r], NULL, 102, OTF2_COLLECTIVE_OP_BARRIER, 0,
						OTF2_UNDEFINED_UINT32, 0, 0);
	}
	/* 5. A send nobody receives; 6. a Leave skipping an inner region (rank 1). */
	OTF2_EvtWriter_MpiSend(w[0], NULL, 110, 2, 0, 9, 1);
	OTF2_EvtWriter_Enter(w[1], NULL, 120, WORK);
	OTF2_EvtWriter_Enter(w[1], NULL, 121, SEND);
	for (int r = 0; r < 3; r++)
		OTF2_EvtWriter_Leave(w[r], NULL, 130, MAIN);
	for (int r = 0; r < 3; r++)
		OTF2_Archive_CloseEvtWriter(a, w[r]);
	OTF2_Archive_CloseEvtFiles(a);

	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
	OTF2_GlobalDefWriter_WriteClockProperties(g, 1000, 0, 200, 0);
	uint32_t s = 0;
	OTF2_GlobalDefWriter_WriteString(g, s++, "machine");
	OTF2_GlobalDefWriter_WriteString(g, s++, "node");
	OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	for (int r = 0; r < 3; r++) {
		char name[32];
		snprintf(name, sizeof(name), "MPI Rank %d", r);
		OTF2_GlobalDefWriter_WriteString(g, s, name);
		OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, s++,
							OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
							OTF2_UNDEFINED_LOCATION_GROUP);
	}
	uint32_t master = s++;
	OTF2_GlobalDefWriter_WriteString(g, master, "Master thread");
	for (int r = 0; r < 3; r++)
		OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)r, master,
						   OTF2_LOCATION_TYPE_CPU_THREAD, 0, (uint32_t)r);
	for (uint32_t i = 0; i < N_REGIONS; i++) {
		OTF2_GlobalDefWriter_WriteString(g, s, region_names[i]);
		OTF2_GlobalDefWriter_WriteRegion(
		    g, i, s, s, OTF2_UNDEFINED_STRING, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
		    OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0);
		s++;
	}
	uint64_t all[3] = {0, 1, 2}, split[2] = {0, 2};
	OTF2_GlobalDefWriter_WriteString(g, s, "world");
	OTF2_GlobalDefWriter_WriteGroup(g, 0, s, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, 3, all);
	OTF2_GlobalDefWriter_WriteGroup(g, 1, s, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, 3, all);
	OTF2_GlobalDefWriter_WriteGroup(g, 2, s, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, 2, split);
	OTF2_GlobalDefWriter_WriteComm(g, 0, s, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
	OTF2_GlobalDefWriter_WriteComm(g, 1, s, 2, 0, OTF2_COMM_FLAG_NONE);
	/* Metrics: members a, b; class 0 = (b, a); instance 1 of class 0 recorded by rank 2. */
	OTF2_GlobalDefWriter_WriteString(g, ++s, "a");
	OTF2_GlobalDefWriter_WriteString(g, s + 1, "b");
	OTF2_GlobalDefWriter_WriteString(g, s + 2, "#");
	for (uint32_t m = 0; m < 2; m++)
		OTF2_GlobalDefWriter_WriteMetricMember(
		    g, m, s + m, OTF2_UNDEFINED_STRING, OTF2_METRIC_TYPE_OTHER,
		    OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, s + 2);
	const OTF2_MetricMemberRef members[2] = {1, 0};
	OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 2, members, OTF2_METRIC_ASYNCHRONOUS,
					      OTF2_RECORDER_KIND_ABSTRACT);
	OTF2_GlobalDefWriter_WriteMetricInstance(g, 1, 0, 2, OTF2_SCOPE_LOCATION, 0);
	/* I/O: paradigm 0 POSIX; file 0 "data", directory 1 "dir"; handles 0 (data), 1 (an
	 * undefined file and paradigm: none), 2 (dir). */
	s += 3;
	OTF2_GlobalDefWriter_WriteString(g, s, "POSIX");
	OTF2_GlobalDefWriter_WriteString(g, s + 1, "data");
	OTF2_GlobalDefWriter_WriteString(g, s + 2, "dir");
	OTF2_GlobalDefWriter_WriteString(g, s + 3, "h1");
	OTF2_GlobalDefWriter_WriteIoParadigm(g, 0, s, s, OTF2_IO_PARADIGM_CLASS_SERIAL,
					     OTF2_IO_PARADIGM_FLAG_OS, 0, NULL, NULL, NULL);
	OTF2_GlobalDefWriter_WriteIoRegularFile(g, 0, s + 1, 0);
	OTF2_GlobalDefWriter_WriteIoDirectory(g, 1, s + 2, 0);
	OTF2_GlobalDefWriter_WriteIoHandle(g, 0, s + 1, 0, 0, OTF2_IO_HANDLE_FLAG_NONE,
					   OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE);
	OTF2_GlobalDefWriter_WriteIoHandle(g, 1, s + 3, 5, 3, OTF2_IO_HANDLE_FLAG_NONE, 0, 0);
	OTF2_GlobalDefWriter_WriteIoHandle(g, 2, s + 2, 1, 0, OTF2_IO_HANDLE_FLAG_NONE,
					   OTF2_UNDEFINED_COMM, 0);
	OTF2_Archive_CloseGlobalDefWriter(a, g);
	OTF2_Archive_SetCreator(a, "test-vtr");
	OTF2_Archive_SetProperty(a, "VT::SETTING", "42", false);
	OTF2_Archive_Close(a);
}

/* What the reader says, as text lines, compared at the end. */
static char out[8192];
static size_t used;

static void line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	used += (size_t)vsnprintf(out + used, sizeof(out) - used, fmt, ap);
	va_end(ap);
	used += (size_t)snprintf(out + used, sizeof(out) - used, "\n");
}

static void on_message(void *u, const struct vtr_message *m)
{
	line("msg %lu->%lu comm %u tag %u bytes %lu send %lu-%lu%s recv %lu-%lu%s",
	     (unsigned long)m->sender->id, (unsigned long)m->receiver->id, m->comm, m->tag,
	     (unsigned long)m->bytes, (unsigned long)m->send_begin, (unsigned long)m->send_end,
	     m->send_nonblocking ? " nb" : "", (unsigned long)m->recv_begin,
	     (unsigned long)m->recv_end, m->recv_nonblocking ? " nb" : "");
}

static void on_collective(void *u, const struct vtr_collective *c)
{
	used += (size_t)snprintf(out + used, sizeof(out) - used,
				 "coll comm %u op %u n %u:", c->comm, c->op, c->n);
	for (uint32_t i = 0; i < c->n; i++)
		used += (size_t)snprintf(out + used, sizeof(out) - used, " %lu[%lu-%lu]",
					 (unsigned long)c->members[i].location->id,
					 (unsigned long)c->members[i].begin,
					 (unsigned long)c->members[i].end);
	line("%s", "");
}

static void on_problem(void *u, const struct vtr_location *l, enum vtr_problem kind, bool has_time,
		       uint64_t time, uint32_t region, const char *message)
{
	line("problem %d on %ld: %s", (int)kind, l ? (long)l->id : -1L, message);
}

static uint64_t leaves;
static void on_leave(void *u, const struct vtr_location *l, uint64_t t, uint32_t r, uint64_t e)
{
	leaves++;
}

static void on_io_cb(void *u, const struct vtr_location *l, const struct vtr_io_event *e)
{
	line("%s on %lu at %lu: h %u mode %u flags %u bytes %lu id %lu other %u off %ld res %lu",
	     vtr_event_names[e->kind], (unsigned long)l->id, (unsigned long)e->time, e->handle,
	     e->mode, e->flags, (unsigned long)e->bytes, (unsigned long)e->matching, e->other,
	     (long)e->offset, (unsigned long)e->result);
}

static char info[512];
static void on_info(void *u, const char *name, const char *value)
{
	size_t n = strlen(info);
	snprintf(info + n, sizeof(info) - n, "%s=%s;", name, value);
}

int main(void)
{
	char dir[] = "/tmp/vt-test-vtr-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	write_trace(dir);
	char path[256];
	snprintf(path, sizeof(path), "%s/t.otf2", dir);

	struct vtr_trace tr;
	CHECK(vtr_open(&tr, path) == 0);
	CHECK(tr.nlocations == 3 && tr.resolution == 1000);
	CHECK(tr.nregions == N_REGIONS && strcmp(tr.regions[SEND].name, "MPI_Send") == 0);
	CHECK(tr.locations[2].rank == 2 && strcmp(tr.locations[1].group_name, "MPI Rank 1") == 0);
	CHECK(vtr_location(&tr, 2) == &tr.locations[2] && vtr_location(&tr, 7) == NULL);
	CHECK(tr.ncomms == 2 && tr.comms[1].size == 2 && tr.comms[1].rank_of_member[1] == 2);

	CHECK(tr.nmetrics == 2 && strcmp(tr.metrics[1].name, "b") == 0 &&
	      strcmp(tr.metrics[0].unit, "#") == 0);
	CHECK(tr.nmetric_classes == 2 && !tr.metric_classes[0].instance &&
	      tr.metric_classes[0].nmembers == 2 && tr.metric_classes[0].members[0] == 1 &&
	      tr.metric_classes[0].members[1] == 0);
	CHECK(tr.metric_classes[1].instance && tr.metric_classes[1].recorder == 2 &&
	      tr.metric_classes[1].nmembers == 2 && tr.metric_classes[1].members[0] == 1);
	CHECK(tr.nio_paradigms == 1 && strcmp(tr.io_paradigms[0].name, "POSIX") == 0);
	CHECK(tr.nio_files == 2 && strcmp(tr.io_files[0].name, "data") == 0 &&
	      strcmp(tr.io_files[1].name, "dir") == 0);
	CHECK(tr.nio_handles == 3 && strcmp(tr.io_handles[0].name, "data") == 0 &&
	      tr.io_handles[0].file == 0 && tr.io_handles[0].paradigm == 0 &&
	      tr.io_handles[0].comm == VTR_NONE && tr.io_handles[0].parent == VTR_NONE);
	CHECK(strcmp(tr.io_handles[1].name, "h1") == 0 && tr.io_handles[1].file == VTR_NONE &&
	      tr.io_handles[1].paradigm == VTR_NONE && tr.io_handles[1].comm == 0 &&
	      tr.io_handles[1].parent == 0);
	CHECK(tr.io_handles[2].file == 1 && tr.io_handles[2].parent == 0);
	info[0] = '\0';
	vtr_archive_info(&tr, on_info, NULL);
	CHECK(strstr(info, "creator=test-vtr;") != NULL && strstr(info, "VT::SETTING=42;") != NULL);

	const struct vtr_callbacks cb = {.message = on_message,
					 .collective = on_collective,
					 .problem = on_problem,
					 .leave = on_leave};
	CHECK(vtr_read_merged(&tr, &cb, NULL) == 0);
	const char *want =
	    "msg 0->1 comm 0 tag 5 bytes 100 send 20-21 recv 30-31\n"
	    "msg 0->1 comm 0 tag 5 bytes 200 send 23-24 recv 33-34\n"
	    "msg 1->2 comm 0 tag 7 bytes 8 send 50-51 recv 40-41\n"
	    "msg 0->2 comm 1 tag 3 bytes 64 send 63-81 nb recv 61-71 nb\n"
	    "coll comm 0 op 0 n 3: 0[91-95] 1[92-96] 2[93-97]\n"
	    "problem 0 on 1: Leave of 'main' at 130 does not match the innermost open region "
	    "'MPI_Send'; 2 region(s) inside it closed at this time\n"
	    "problem 5 on 0: send on communicator 0 (tag 9, 1 bytes) at 110 has no matching "
	    "receive\n"
	    "problem 6 on -1: collective 2 on communicator 0 ended by 2 of its 3 members\n";
	CHECK(strcmp(out, want) == 0);
	if (strcmp(out, want) != 0)
		fprintf(stderr, "got:\n%swant:\n%s", out, want);
	const struct vtr_stats *st = vtr_last_stats();
	CHECK(st->messages == 4 && st->collectives == 1 && st->max_depth == 3);
	/* Every Enter got its leave, the repairs included: 3 main, 13 calls, work and send. */
	CHECK(leaves == 3 + 13 + 2);
	CHECK(st->max_open_messages == 2);

	/* Location by location: the same problems of the stack, no matching. */
	used = 0;
	out[0] = '\0';
	leaves = 0;
	CHECK(vtr_read_locations(&tr, &cb, NULL) == 0);
	CHECK(strcmp(out,
		     "problem 0 on 1: Leave of 'main' at 130 does not match the innermost "
		     "open region 'MPI_Send'; 2 region(s) inside it closed at this time\n") == 0);
	CHECK(leaves == 18 && vtr_last_stats()->messages == 0);

	/* The I/O events with their fields, in both readings. */
	const struct vtr_callbacks io_cb = {.io = on_io_cb};
	const char *io_want =
	    "IoCreateHandle on 0 at 11: h 0 mode 1 flags 1 bytes 0 id 0 other 0 off 0 res 0\n"
	    "IoOperationBegin on 0 at 12: h 0 mode 1 flags 0 bytes 10 id 1 other 0 off 0 res 0\n"
	    "IoOperationComplete on 0 at 13: h 0 mode 0 flags 0 bytes 8 id 1 other 0 off 0 res 0\n"
	    "IoSeek on 0 at 14: h 0 mode 2 flags 0 bytes 0 id 0 other 0 off -3 res 97\n"
	    "IoDuplicateHandle on 0 at 15: h 0 mode 0 flags 0 bytes 0 id 0 other 2 off 0 res 0\n"
	    "IoOperationBegin on 0 at 16: h 2 mode 0 flags 1 bytes 4 id 2 other 0 off 0 res 0\n"
	    "IoOperationCancelled on 0 at 17: h 2 mode 0 flags 0 bytes 0 id 2 other 0 off 0 "
	    "res 0\n"
	    "IoDestroyHandle on 0 at 18: h 0 mode 0 flags 0 bytes 0 id 0 other 0 off 0 res 0\n";
	for (int merged = 0; merged < 2; merged++) {
		used = 0;
		out[0] = '\0';
		CHECK((merged ? vtr_read_merged : vtr_read_locations)(&tr, &io_cb, NULL) == 0);
		CHECK(strcmp(out, io_want) == 0);
		if (strcmp(out, io_want) != 0)
			fprintf(stderr, "got:\n%swant:\n%s", out, io_want);
	}
	vtr_close(&tr);

	/* Bad input: one line each. */
	CHECK(vtr_open(&tr, "/nonexistent/x.otf2") < 0 && strstr(tr.err, "cannot open") == tr.err);
	vtr_close(&tr);
	CHECK(vtr_open(&tr, dir) < 0 && strstr(tr.err, "is a directory") != NULL);
	vtr_close(&tr);

	char rm[300];
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return unit_done();
}
