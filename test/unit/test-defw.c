/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt's writer of local definitions against libotf2: ClockOffset and MappingTable records,
 * their fields through edge values, dense and sparse id maps of every size around the long
 * length, sparse maps given out of order and with a local id twice, records ending at each of
 * a chunk's last bytes (but the very last, where libotf2 writes past its chunk) give the bytes
 * libotf2's definition writer gives for the same calls (one location per case in one archive);
 * files of many chunks, and one whose chunk is full to its last byte but one, are read back by
 * libotf2's reader with every field as written; an output that fails, or a record larger than
 * a chunk, stops the writer.
 */
#include "archive/vt_evtw.h"
#include "otf2_sink.h"
#include "unit.h"

#include <errno.h>
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
			       0x8000000000000000ull,
			       UINT64_MAX - 1,
			       UINT64_MAX};
static const int64_t es64[] = {0, 1, -1, 255, -256, 65536, INT64_MIN, INT64_MAX, -300};
static const double edouble[] = {0.0, 0.5, -1.0, 1e300, 5e-324};
static const uint8_t types[] = {OTF2_MAPPING_STRING,
				OTF2_MAPPING_ATTRIBUTE,
				OTF2_MAPPING_LOCATION,
				OTF2_MAPPING_REGION,
				OTF2_MAPPING_GROUP,
				OTF2_MAPPING_METRIC,
				OTF2_MAPPING_COMM,
				OTF2_MAPPING_PARAMETER,
				OTF2_MAPPING_RMA_WIN,
				OTF2_MAPPING_SOURCE_CODE_LOCATION,
				OTF2_MAPPING_CALLING_CONTEXT,
				OTF2_MAPPING_INTERRUPT_GENERATOR,
				OTF2_MAPPING_IO_FILE,
				OTF2_MAPPING_IO_HANDLE,
				OTF2_MAPPING_LOCATION_GROUP};
#define N_TYPES (sizeof(types) / sizeof(types[0]))

static OTF2_Archive *archive_open(const char *dir)
{
	OTF2_Archive *a = OTF2_Archive_Open(dir, "t", OTF2_FILEMODE_WRITE, CHUNK, CHUNK,
					    OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	OTF2_Archive_SetFlushCallbacks(a, &flush_cb, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(a);
	return a;
}

/* The global definitions of n locations, the archive closed. */
static void archive_close(OTF2_Archive *a, uint32_t n)
{
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
	OTF2_GlobalDefWriter_WriteString(g, 0, "");
	OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
						OTF2_UNDEFINED_LOCATION_GROUP);
	for (uint32_t i = 0; i < n; i++)
		OTF2_GlobalDefWriter_WriteLocation(g, i, 0, OTF2_LOCATION_TYPE_CPU_THREAD, 0, 0);
	OTF2_Archive_Close(a);
}

static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *b = malloc(16 << 20);
	*n = fread(b, 1, 16 << 20, f);
	fclose(f);
	return b;
}

/* A dense map of n global ids in both writers. */
static void dense(OTF2_DefWriter *dw, struct vt_evtw *vw, uint8_t type, uint64_t n,
		  const uint64_t *globals)
{
	OTF2_IdMap *m = OTF2_IdMap_Create(OTF2_ID_MAP_DENSE, n);
	for (uint64_t i = 0; i < n; i++)
		OTF2_IdMap_AddIdPair(m, i, globals[i]);
	OTF2_DefWriter_WriteMappingTable(dw, type, m);
	OTF2_IdMap_Free(m);
	CHECK(vt_evtw_mapping_table(vw, type, OTF2_ID_MAP_DENSE, n, globals));
}

/* A sparse map of n (local, global) pairs added in this order, in both writers. */
static void sparse32(OTF2_DefWriter *dw, struct vt_evtw *vw, uint8_t type, uint64_t n,
		     const uint32_t *pairs)
{
	OTF2_IdMap *m = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, n);
	for (uint64_t i = 0; i < n; i++)
		OTF2_IdMap_AddIdPair(m, pairs[2 * i], pairs[2 * i + 1]);
	OTF2_DefWriter_WriteMappingTable(dw, type, m);
	OTF2_IdMap_Free(m);
	uint64_t *items = malloc(2 * n * sizeof(*items));
	uint64_t k = vt_evtw_sparse_map(pairs, n, items);
	CHECK(vt_evtw_mapping_table(vw, type, OTF2_ID_MAP_SPARSE, k, items));
	free(items);
}

/* A 27-byte ClockOffset (an offset of 8 bytes) in both writers. */
static void offset27(OTF2_DefWriter *dw, struct vt_evtw *vw, uint64_t t)
{
	OTF2_DefWriter_WriteClockOffset(dw, t, -1 - (int64_t)t, 0.25);
	CHECK(vt_evtw_clock_offset(vw, t, -1 - (int64_t)t, 0.25));
}

/* Case k of kind what on location loc of both writers: the records written. */
static void fill(OTF2_DefWriter *dw, struct vt_evtw *vw, int what, int k)
{
	uint64_t g[64];
	uint32_t p[2 * 64];
	switch (what) {
	case 0: /* no record */
		break;
	case 1: /* ClockOffset: every time, offset and deviation edge */
		for (int t = 0; t < 11; t++)
			for (int o = 0; o < 9; o++)
				for (int d = 0; d < 5; d++) {
					OTF2_DefWriter_WriteClockOffset(dw, e64[t], es64[o],
									edouble[d]);
					CHECK(
					    vt_evtw_clock_offset(vw, e64[t], es64[o], edouble[d]));
				}
		break;
	case 2: /* dense of k + 1 (27 short, 28 long), every mapping type */
		for (int i = 0; i <= k; i++)
			g[i] = e64[(i + k) % 11];
		dense(dw, vw, types[k % N_TYPES], (uint64_t)k + 1, g);
		break;
	case 3: /* sparse of k + 1 pairs in order (13 short, 14 long), 64-bit ids */
	{
		uint64_t it[2 * 64];
		int n = k + 1;
		for (int i = 0; i < n; i++) {
			it[2 * i] = i == 0 ? 0 : i == n - 1 ? UINT64_MAX : i * (UINT64_MAX / n);
			it[2 * i + 1] = e64[(i + k) % 11];
		}
		OTF2_IdMap *m = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, (uint64_t)n);
		for (int i = 0; i < n; i++)
			OTF2_IdMap_AddIdPair(m, it[2 * i], it[2 * i + 1]);
		OTF2_DefWriter_WriteMappingTable(dw, types[k % N_TYPES], m);
		OTF2_IdMap_Free(m);
		CHECK(vt_evtw_mapping_table(vw, types[k % N_TYPES], OTF2_ID_MAP_SPARSE, (uint64_t)n,
					    it));
		break;
	}
	case 4: /* sparse of k + 1 pairs of 32-bit ids out of order, a local id again from 12 */
		for (int i = 0; i <= k; i++) {
			p[2 * i] = e32[(i * 7 + k) % 11];
			p[2 * i + 1] = e32[(i * 3 + k + 1) % 11];
		}
		sparse32(dw, vw, types[k % N_TYPES], (uint64_t)k + 1, p);
		break;
	case 5: /* large maps, long lengths: dense 3000 and sparse 2000 (descending) */
	{
		uint64_t *big = malloc(3000 * sizeof(*big));
		uint32_t *bp = malloc(2 * 2000 * sizeof(*bp));
		for (uint32_t i = 0; i < 3000; i++)
			big[i] = (uint64_t)i * i * 977 + k;
		for (uint32_t i = 0; i < 2000; i++) {
			bp[2 * i] = (2000 - i) * 3;
			bp[2 * i + 1] = i * 65537u;
		}
		dense(dw, vw, OTF2_MAPPING_REGION, 3000, big);
		sparse32(dw, vw, OTF2_MAPPING_COMM, 2000, bp);
		free(big);
		free(bp);
		break;
	}
	case 6: /* a first record of 6 + k or 14 + k bytes, then 27-byte records past a chunk */
	case 7: /* the same, with as many 27-byte records as fit in the first chunk */
	{
		if (k) {
			for (int i = 0; i < k; i++)
				g[i] = 0;
			dense(dw, vw, OTF2_MAPPING_METRIC, (uint64_t)k, g);
		}
		/* the first chunk ends at its last byte less the rest of (room) / 27 */
		size_t room = (size_t)(vw->limit - vw->pos);
		int n = what == 6 ? CHUNK / 27 + 5 : (int)(room / 27);
		for (int i = 0; i < n; i++)
			offset27(dw, vw, (uint64_t)i << 8);
		break;
	}
	case 8: /* 19-byte records (offset 0) ending 0 to 59 x 19 + 18 bytes before a chunk's end */
	{
		size_t room = (size_t)(vw->limit - vw->pos), stop = room % 19 + 19 * (size_t)k;
		for (uint64_t t = 1; room >= stop + 19; t++, room -= 19) {
			OTF2_DefWriter_WriteClockOffset(dw, t, 0, 1.0);
			CHECK(vt_evtw_clock_offset(vw, t, 0, 1.0));
		}
		for (uint64_t t = 1; t < 4; t++) {
			OTF2_DefWriter_WriteClockOffset(dw, t, 0, 1.0);
			CHECK(vt_evtw_clock_offset(vw, t, 0, 1.0));
		}
		break;
	}
	case 9: /* a map of 7 + k or 15 + k bytes where 27 to 53 bytes are left in a chunk */
	{
		size_t room = (size_t)(vw->limit - vw->pos);
		for (int i = 0; i < (int)(room / 27) - 1; i++)
			offset27(dw, vw, (uint64_t)i << 8);
		for (int i = 0; i <= k; i++)
			g[i] = 0;
		dense(dw, vw, OTF2_MAPPING_METRIC, (uint64_t)k + 1, g);
		offset27(dw, vw, 1);
		break;
	}
	}
}

/* The kinds and their number of cases. */
static const int n_cases[] = {1, 1, 40, 22, 30, 2, 60, 60, 60, 60};
#define N_KINDS (sizeof(n_cases) / sizeof(n_cases[0]))

static void kinds(void)
{
	static const char *const names[N_KINDS] = {"empty",
						   "ClockOffset",
						   "dense",
						   "sparse64",
						   "sparse32 unordered",
						   "large maps",
						   "chunk end",
						   "chunk full",
						   "short records at a chunk's end",
						   "a map at a chunk's end"};
	uint32_t total = 0;
	for (size_t w = 0; w < N_KINDS; w++)
		total += (uint32_t)n_cases[w];
	uint8_t **mine = calloc(total, sizeof(*mine));
	size_t *mine_n = calloc(total, sizeof(*mine_n));
	char dir[] = "/tmp/vt-defw-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	OTF2_Archive *a = archive_open(dir);
	OTF2_Archive_OpenDefFiles(a);
	uint32_t loc = 0;
	for (size_t w = 0; w < N_KINDS; w++)
		for (int k = 0; k < n_cases[w]; k++, loc++) {
			OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, loc);
			struct vt_evtw vw;
			struct sink s = {.fail_after = -1};
			CHECK(vt_evtw_init(&vw, CHUNK, 1, to_sink, &s) == 0);
			fill(dw, &vw, (int)w, k);
			/* A last chunk full to its last byte but one: libotf2 writes the file's
			 * end past it (vt's writer ends it in a chunk of its own, see
			 * full_last_chunk); a record more. */
			if (vw.pos == vw.limit) {
				OTF2_DefWriter_WriteClockOffset(dw, 7, 0, 1.0);
				CHECK(vt_evtw_clock_offset(&vw, 7, 0, 1.0));
			}
			CHECK(OTF2_Archive_CloseDefWriter(a, dw) == OTF2_SUCCESS);
			CHECK(vt_evtw_close(&vw) == 0);
			mine[loc] = s.bytes;
			mine_n[loc] = s.n;
		}
	OTF2_Archive_CloseDefFiles(a);
	archive_close(a, total);

	loc = 0;
	int chunks = 0;
	for (size_t w = 0; w < N_KINDS; w++)
		for (int k = 0; k < n_cases[w]; k++, loc++) {
			char path[128];
			size_t n = 0;
			snprintf(path, sizeof(path), "%s/t/%u.def", dir, loc);
			uint8_t *theirs = read_file(path, &n);
			bool same = theirs && n == mine_n[loc] && memcmp(theirs, mine[loc], n) == 0;
			if (!same) {
				size_t at = 0;
				while (theirs && at < n && at < mine_n[loc] &&
				       theirs[at] == mine[loc][at])
					at++;
				fprintf(stderr,
					"%s case %d: %zu bytes, libotf2's %zu, first "
					"difference at %zu\n",
					names[w], k, mine_n[loc], n, at);
			}
			CHECK(same);
			chunks += (int)((n + CHUNK - 1) / CHUNK);
			free(theirs);
			free(mine[loc]);
		}
	/* the cases met the rules they are for */
	CHECK(chunks > (int)total + n_cases[6] + n_cases[8] / 2);
	free(mine);
	free(mine_n);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

/* ---- read back by libotf2 ---- */

struct reading {
	uint64_t offsets, tables, bad;
	uint64_t seed;
};

/* libotf2's reader takes clock offsets in the order of their times only. */
static uint64_t time_of(uint64_t seed, uint64_t i)
{
	return seed + i * 977;
}

static int64_t offset_of(uint64_t i)
{
	return es64[i % 9] + (int64_t)(i / 9);
}

static OTF2_CallbackCode on_offset(void *u, OTF2_TimeStamp t, int64_t off, double dev)
{
	struct reading *r = u;
	uint64_t i = r->offsets++;
	if (t != time_of(r->seed, i) || off != offset_of(i) || dev != edouble[i % 5])
		r->bad++;
	return OTF2_CALLBACK_SUCCESS;
}

struct traverse {
	uint64_t i, bad, n;
	bool dense;
};

static void each_pair(uint64_t local, uint64_t global, void *u)
{
	struct traverse *t = u;
	uint64_t want_local = t->dense ? t->i : t->i * 5 + 1;
	if (local != want_local || global != (t->i * 0x9e3779b97f4a7c15ull ^ t->n))
		t->bad++;
	t->i++;
}

static OTF2_CallbackCode on_table(void *u, OTF2_MappingType type, const OTF2_IdMap *m)
{
	struct reading *r = u;
	OTF2_IdMapMode mode;
	uint64_t size;
	OTF2_IdMap_GetMode(m, &mode);
	OTF2_IdMap_GetSize(m, &size);
	struct traverse t = {0, 0, size, mode == OTF2_ID_MAP_DENSE};
	OTF2_IdMap_Traverse(m, each_pair, &t);
	if (type != types[r->tables % N_TYPES] || t.i != size || t.bad ||
	    mode != (r->tables % 2 ? OTF2_ID_MAP_SPARSE : OTF2_ID_MAP_DENSE))
		r->bad++;
	r->tables++;
	return OTF2_CALLBACK_SUCCESS;
}

/* A map of n mappings, the table'th written: dense or sparse by turns, local ids 0, 1, ... or
 * 1, 6, 11, ..., global ids spread over 64 bits. */
static bool table(struct vt_evtw *w, uint64_t table, uint64_t n)
{
	bool sparse = table % 2;
	uint64_t *items = malloc((sparse ? 2 : 1) * n * sizeof(*items));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t global = i * 0x9e3779b97f4a7c15ull ^ n;
		if (sparse) {
			items[2 * i] = i * 5 + 1;
			items[2 * i + 1] = global;
		} else {
			items[i] = global;
		}
	}
	bool ok = vt_evtw_mapping_table(w, types[table % N_TYPES],
					sparse ? OTF2_ID_MAP_SPARSE : OTF2_ID_MAP_DENSE, n, items);
	free(items);
	return ok;
}

/* Location loc's file of many chunks, written by vt's writer into dir: clock offsets and maps
 * of 1 to 5000 mappings mixed, a map of each type; the counts written. */
static void write_mixed(const char *dir, uint32_t loc, uint64_t seed, uint64_t *offsets,
			uint64_t *tables)
{
	struct vt_evtw w;
	struct sink s = {.fail_after = -1};
	CHECK(vt_evtw_init(&w, CHUNK, 1, to_sink, &s) == 0);
	*offsets = *tables = 0;
	for (uint64_t i = 0; i < 60000; i++) {
		CHECK(vt_evtw_clock_offset(&w, time_of(seed, *offsets), offset_of(*offsets),
					   edouble[*offsets % 5]));
		++*offsets;
		/* one table of each mapping type: a reader takes no second */
		if (i % 4000 == 0) {
			uint64_t n = 1 + (i * 31 + seed) % (*tables % 3 ? 40 : 5000);
			CHECK(table(&w, *tables, n));
			++*tables;
		}
	}
	CHECK(vt_evtw_close(&w) == 0);
	char path[128];
	snprintf(path, sizeof(path), "%s/t/%u.def", dir, loc);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(s.bytes, 1, s.n, f) == s.n);
	CHECK(s.n > 4 * CHUNK);
	if (f)
		fclose(f);
	free(s.bytes);
}

static void read_back(void)
{
	char dir[] = "/tmp/vt-defw-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	OTF2_Archive *a = archive_open(dir);
	/* libotf2 makes the archive's directory with its event files */
	OTF2_Archive_OpenEvtFiles(a);
	OTF2_Archive_CloseEvtFiles(a);
	archive_close(a, 4);
	uint64_t offsets[4], tables[4];
	for (uint32_t loc = 0; loc < 4; loc++)
		write_mixed(dir, loc, loc * 0x1234567u, &offsets[loc], &tables[loc]);

	char anchor[128];
	snprintf(anchor, sizeof(anchor), "%s/t.otf2", dir);
	OTF2_Reader *rd = OTF2_Reader_Open(anchor);
	CHECK(rd != NULL);
	if (!rd)
		return;
	OTF2_Reader_SetSerialCollectiveCallbacks(rd);
	OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
	OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, on_offset);
	OTF2_DefReaderCallbacks_SetMappingTableCallback(cb, on_table);
	CHECK(OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS);
	for (uint32_t loc = 0; loc < 4; loc++) {
		struct reading r = {0, 0, 0, loc * 0x1234567u};
		OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, loc);
		CHECK(dr != NULL);
		OTF2_Reader_RegisterDefCallbacks(rd, dr, cb, &r);
		uint64_t read = 0;
		CHECK(OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &read) == OTF2_SUCCESS);
		CHECK(read == offsets[loc] + tables[loc]);
		CHECK(r.offsets == offsets[loc] && r.tables == tables[loc] && r.bad == 0);
		OTF2_Reader_CloseDefReader(rd, dr);
	}
	OTF2_Reader_CloseDefFiles(rd);
	OTF2_DefReaderCallbacks_Delete(cb);
	OTF2_Reader_Close(rd);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

/*
 * A file whose only chunk is full to its last byte but one (a dense map of 3 and 9708
 * ClockOffsets of 27 bytes after the header): its end goes into a chunk of its own, and
 * libotf2's reader reads every record.
 */
static void full_last_chunk(void)
{
	char dir[] = "/tmp/vt-defw-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	OTF2_Archive *a = archive_open(dir);
	OTF2_Archive_OpenEvtFiles(a);
	OTF2_Archive_CloseEvtFiles(a);
	archive_close(a, 1);
	struct vt_evtw w;
	struct sink s = {.fail_after = -1};
	const uint64_t g[3] = {0, 0, 0};
	CHECK(vt_evtw_init(&w, CHUNK, 1, to_sink, &s) == 0);
	CHECK(vt_evtw_mapping_table(&w, OTF2_MAPPING_METRIC, OTF2_ID_MAP_DENSE, 3, g));
	for (uint64_t i = 0; i < 9708; i++)
		CHECK(vt_evtw_clock_offset(&w, i, -1 - (int64_t)i, 0.25));
	CHECK(w.pos == w.chunk + CHUNK - 1);
	CHECK(vt_evtw_close(&w) == 0);
	/* a whole chunk ended by 0x00, then one of its header and the end */
	CHECK(s.n == CHUNK + 20 && s.bytes[CHUNK - 1] == 0 && s.bytes[CHUNK] == 0x03 &&
	      s.bytes[CHUNK + 18] == 0x02 && s.bytes[CHUNK + 19] == 0x01);
	char path[128];
	snprintf(path, sizeof(path), "%s/t/0.def", dir);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(s.bytes, 1, s.n, f) == s.n);
	if (f)
		fclose(f);
	free(s.bytes);

	snprintf(path, sizeof(path), "%s/t.otf2", dir);
	OTF2_Reader *rd = OTF2_Reader_Open(path);
	CHECK(rd != NULL);
	if (rd) {
		OTF2_Reader_SetSerialCollectiveCallbacks(rd);
		OTF2_Reader_OpenDefFiles(rd);
		OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, 0);
		uint64_t read = 0;
		CHECK(OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &read) == OTF2_SUCCESS);
		CHECK(read == 9709);
		OTF2_Reader_CloseDefReader(rd, dr);
		OTF2_Reader_CloseDefFiles(rd);
		OTF2_Reader_Close(rd);
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

/* An output that fails: the writer takes no record after it and its close says so; a map
 * larger than a chunk is refused, nothing of it written. */
static void failing(void)
{
	struct vt_evtw w;
	struct sink s = {.fail_after = 0};
	CHECK(vt_evtw_init(&w, CHUNK, 1, to_sink, &s) == 0);
	int i = 0;
	while (i < 100000 && vt_evtw_clock_offset(&w, (uint64_t)i, -1, 0.0))
		i++;
	CHECK(i == (CHUNK - 18 - 1) / 27 && w.error == -ENOSPC && s.n == 0);
	CHECK(!vt_evtw_clock_offset(&w, 1, 1, 1.0));
	CHECK(vt_evtw_close(&w) == -ENOSPC);

	s = (struct sink){.fail_after = -1};
	CHECK(vt_evtw_init(&w, CHUNK, 1, to_sink, &s) == 0);
	uint64_t n = CHUNK / 2; /* 2 bytes an id */
	uint64_t *big = malloc(n * sizeof(*big));
	for (uint64_t j = 0; j < n; j++)
		big[j] = 1;
	CHECK(vt_evtw_clock_offset(&w, 1, 2, 3.0));
	CHECK(!vt_evtw_mapping_table(&w, OTF2_MAPPING_REGION, OTF2_ID_MAP_DENSE, n, big));
	CHECK(w.error == -EMSGSIZE && !vt_evtw_clock_offset(&w, 1, 2, 3.0));
	CHECK(vt_evtw_close(&w) == -EMSGSIZE && s.n == 0);
	free(big);
}

int main(void)
{
	kinds();
	read_back();
	full_last_chunk();
	failing();
	return unit_done();
}
