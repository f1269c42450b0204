/* SPDX-License-Identifier: BSD-3-Clause */
/* The file group of snapshot writers: vt's collectives, and a real archive written over it. */
#include "archive/vt_group.h"
#include "unit.h"

#include <otf2/otf2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 3

static char dir[256], meet[300];

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool final)
{
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l)
{
	return 0;
}

static const OTF2_FlushCallbacks flush = {pre_flush, post_flush};

/* Each rank's part: the collectives, then one location of an archive opened and closed
 * together (libotf2's collectives over the group); the number of failed checks. */
static int rank_main(int rank)
{
	const struct vt_mpi_ops *g = vt_group_join(meet, rank, N, 20.0);
	CHECK(g && g->rank == rank && g->size == N);
	if (!g)
		return unit_failed;
	/* Broadcast. */
	char word[16] = "";
	if (rank == 0)
		strcpy(word, "from rank 0");
	g->bcast(word, sizeof(word), 0);
	CHECK(strcmp(word, "from rank 0") == 0);
	/* Gather of different sizes, in rank order. */
	char mine[8];
	int len = snprintf(mine, sizeof(mine), "r%d%s", rank, rank == 1 ? "xx" : "");
	size_t *sizes = NULL;
	char *all = g->gather(mine, (size_t)len, &sizes);
	if (rank == 0) {
		CHECK(all && sizes && sizes[0] == 2 && sizes[1] == 4 && sizes[2] == 2);
		CHECK(all && memcmp(all, "r0r1xxr2", 8) == 0);
	} else {
		CHECK(!all && !sizes);
	}
	free(all);
	free(sizes);
	/* Scatter: each rank its own. */
	void *bufs[N] = {"zero", "one", "two!!"};
	size_t lens[N] = {4, 3, 5}, n = 0;
	char *got = g->scatter(rank == 0 ? bufs : NULL, rank == 0 ? lens : NULL, &n);
	CHECK(got && n == lens[rank] && memcmp(got, bufs[rank], n) == 0);
	free(got);
	/* Point to point around the ring, twice (the sequence numbers). */
	for (int round = 0; round < 2; round++) {
		uint64_t v = (uint64_t)(100 * round + rank);
		g->send(&v, sizeof(v), (rank + 1) % N);
		uint64_t *w = g->recv((rank + N - 1) % N, &n);
		CHECK(w && n == sizeof(v) && *w == (uint64_t)(100 * round + (rank + N - 1) % N));
		free(w);
	}
	/* An archive of N locations, opened, written and closed over the group. */
	OTF2_Archive *a = OTF2_Archive_Open(dir, "arc", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
					    OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	CHECK(a != NULL);
	if (!a)
		return unit_failed;
	OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
	g->set_collectives(a);
	CHECK(OTF2_Archive_OpenEvtFiles(a) == OTF2_SUCCESS);
	OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, (OTF2_LocationRef)rank);
	CHECK(w != NULL);
	for (int k = 0; w && k <= rank; k++)
		OTF2_EvtWriter_Enter(w, NULL, 10 + (uint64_t)k, 0);
	for (int k = 0; w && k <= rank; k++)
		OTF2_EvtWriter_Leave(w, NULL, 20 + (uint64_t)k, 0);
	CHECK(OTF2_Archive_CloseEvtWriter(a, w) == OTF2_SUCCESS);
	CHECK(OTF2_Archive_CloseEvtFiles(a) == OTF2_SUCCESS);
	CHECK(OTF2_Archive_OpenDefFiles(a) == OTF2_SUCCESS);
	OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, (OTF2_LocationRef)rank);
	CHECK(dw && OTF2_Archive_CloseDefWriter(a, dw) == OTF2_SUCCESS);
	CHECK(OTF2_Archive_CloseDefFiles(a) == OTF2_SUCCESS);
	if (rank == 0) {
		OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(a);
		OTF2_GlobalDefWriter_WriteClockProperties(gw, 1, 0, 100, OTF2_UNDEFINED_TIMESTAMP);
		OTF2_GlobalDefWriter_WriteString(gw, 0, "");
		OTF2_GlobalDefWriter_WriteString(gw, 1, "f");
		OTF2_GlobalDefWriter_WriteRegion(gw, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION,
						 OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0,
						 0);
		OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 0, 0,
							 OTF2_UNDEFINED_SYSTEM_TREE_NODE);
		for (uint64_t r = 0; r < N; r++) {
			OTF2_GlobalDefWriter_WriteLocationGroup(gw, (uint32_t)r, 0,
								OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
								OTF2_UNDEFINED_LOCATION_GROUP);
			OTF2_GlobalDefWriter_WriteLocation(gw, r, 0, OTF2_LOCATION_TYPE_CPU_THREAD,
							   2 * (r + 1), (uint32_t)r);
		}
		CHECK(OTF2_Archive_CloseGlobalDefWriter(a, gw) == OTF2_SUCCESS);
	}
	CHECK(OTF2_Archive_Close(a) == OTF2_SUCCESS);
	vt_group_leave(false);
	return unit_failed;
}

/* What the archive holds: N locations, rank r's with 2 (r + 1) events. */
static uint64_t events[N];

static OTF2_CallbackCode on_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,
				  OTF2_AttributeList *a, OTF2_RegionRef r)
{
	if (l < N)
		events[l]++;
	return OTF2_CALLBACK_SUCCESS;
}

static void read_back(void)
{
	char anchor[300];
	snprintf(anchor, sizeof(anchor), "%s/arc.otf2", dir);
	OTF2_Reader *rd = OTF2_Reader_Open(anchor);
	CHECK(rd != NULL);
	if (!rd)
		return;
	OTF2_Reader_SetSerialCollectiveCallbacks(rd);
	uint64_t n = 0;
	CHECK(OTF2_Reader_GetNumberOfLocations(rd, &n) == OTF2_SUCCESS && n == N);
	for (uint64_t l = 0; l < N; l++)
		OTF2_Reader_SelectLocation(rd, l);
	OTF2_Reader_OpenEvtFiles(rd);
	for (uint64_t l = 0; l < N; l++)
		OTF2_Reader_GetEvtReader(rd, l);
	OTF2_GlobalEvtReader *ge = OTF2_Reader_GetGlobalEvtReader(rd);
	OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
	OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
	OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ge, cb, NULL);
	uint64_t read = 0;
	OTF2_Reader_ReadAllGlobalEvents(rd, ge, &read);
	CHECK(read == 2 * (1 + 2 + 3));
	for (uint64_t l = 0; l < N; l++)
		CHECK(events[l] == l + 1);
	OTF2_GlobalEvtReaderCallbacks_Delete(cb);
	OTF2_Reader_CloseGlobalEvtReader(rd, ge);
	OTF2_Reader_Close(rd);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/vt-test-group-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(meet, sizeof(meet), "%s/.meet", dir);
	pid_t kids[N];
	for (int r = 1; r < N; r++)
		if ((kids[r] = fork()) == 0)
			_exit(rank_main(r) ? 1 : 0);
	rank_main(0);
	for (int r = 1; r < N; r++) {
		int st = 0;
		waitpid(kids[r], &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK(access(meet, F_OK) != 0); /* the last to leave took the directory */
	read_back();

	/* A partner that never comes: nothing within the wait, and the group abandoned. */
	char lone[320];
	snprintf(lone, sizeof(lone), "%s/.lone", dir);
	const struct vt_mpi_ops *g = vt_group_join(lone, 0, 2, 1.0);
	size_t n = 1;
	CHECK(g && vt_group_try_recv(1, &n) == NULL);
	char hello[] = "hello";
	g->send(hello, sizeof(hello), 1);
	vt_group_leave(true);
	CHECK(access(lone, F_OK) != 0);

	/* A directory others can enter is refused. */
	char open_dir[320];
	snprintf(open_dir, sizeof(open_dir), "%s/wide", dir);
	mkdir(open_dir, 0755);
	CHECK(vt_group_join(open_dir, 0, 2, 1.0) == NULL);
	rmdir(open_dir);

	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return unit_done();
}
