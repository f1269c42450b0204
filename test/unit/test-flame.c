/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt-report's flame graph data (tools/vt-report/flame.c) on hand-made calling contexts: the
 * contexts of one function under one path are one frame naming its lines, the most sampled
 * first; frames under the share are folded into one "(other)" per parent with their count;
 * samples without a context stay on the root; damaged parent links (a cycle) end.
 */
#include "unit.h"
#include "vt_report.h"

#include <stdlib.h>
#include <string.h>

static char *flame(const struct vtr_trace *t, const uint64_t *counts, uint64_t all, uint32_t ppm)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	vt_report_flame(m, t, counts, all, ppm);
	fclose(m);
	return buf;
}

static bool same(char *got, const char *want)
{
	bool ok = strcmp(got, want) == 0;
	if (!ok)
		fprintf(stderr, "got:\n%s\nwant:\n%s\n", got, want);
	free(got);
	return ok;
}

enum { MAIN, WORK, HEAVY, LIGHT, TINY, OTHER_TINY };

int main(void)
{
	struct vtr_region regions[] = {
	    {true, "main", "a.c", 1, 0, 0},  {true, "work", "a.c", 5, 0, 0},
	    {true, "heavy", "a.c", 9, 0, 0}, {true, "light", "a.c", 13, 0, 0},
	    {true, "tiny", "a.c", 17, 0, 0}, {true, "other_tiny", "a.c", 19, 0, 0},
	};
	struct vtr_scl scls[] = {
	    {true, "/src/a.c", 2},  {true, "/src/a.c", 6},  {true, "/src/a.c", 7},
	    {true, "/src/a.c", 10}, {true, "/src/a.c", 11}, {true, "/src/a.c", 14},
	};
	/* main -> work (two call sites: lines 6 and 7) -> heavy at lines 10 and 11 (the second
	 * call site's heavy at line 10 again), light at 14; tiny and other_tiny below main. */
	struct vtr_callctx ctx[] = {
	    /* 0 */ {true, MAIN, 0, VTR_NONE},
	    /* 1 */ {true, WORK, 1, 0},
	    /* 2 */ {true, WORK, 2, 0},
	    /* 3 */ {true, HEAVY, 3, 1},
	    /* 4 */ {true, HEAVY, 4, 1},
	    /* 5 */ {true, HEAVY, 3, 2},
	    /* 6 */ {true, LIGHT, 5, 2},
	    /* 7 */ {true, TINY, VTR_NONE, 0},
	    /* 8 */ {true, OTHER_TINY, VTR_NONE, 0},
	};
	struct vtr_trace t = {
	    .regions = regions,
	    .nregions = 6,
	    .scls = scls,
	    .nscls = 6,
	    .callctxs = ctx,
	    .ncallctxs = 9,
	};
	uint64_t counts[] = {0, 0, 0, 500, 200, 100, 190, 6, 4};
	/* Nothing folded (share 0: every frame with a sample); the two work contexts are one
	 * frame, heavy's three contexts too, with line 10 (500 + 100) before line 11. */
	CHECK(same(flame(&t, counts, 1000, 0),
		   "[[-1,-1,1000,0,[],0],\n"
		   "[0,0,1000,0,[[\"a.c\",2,1000]],0],\n"
		   "[1,1,990,0,[[\"a.c\",6,700],[\"a.c\",7,290]],0],\n"
		   "[2,2,800,800,[[\"a.c\",10,600],[\"a.c\",11,200]],0],\n"
		   "[2,3,190,190,[[\"a.c\",14,190]],0],\n"
		   "[1,4,6,6,[],0],\n"
		   "[1,5,4,4,[],0]]"));
	/* Share 1%: tiny (0.6%) and other_tiny (0.4%) are one (other) of 10 samples, 2 frames;
	 * 5 more samples without a context are the root's own. */
	CHECK(same(flame(&t, counts, 1005, 10000),
		   "[[-1,-1,1005,5,[],0],\n"
		   "[0,0,1000,0,[[\"a.c\",2,1000]],0],\n"
		   "[1,1,990,0,[[\"a.c\",6,700],[\"a.c\",7,290]],0],\n"
		   "[2,2,800,800,[[\"a.c\",10,600],[\"a.c\",11,200]],0],\n"
		   "[2,3,190,190,[[\"a.c\",14,190]],0],\n"
		   "[1,-2,10,10,2]]"));
	/* Share 20%: light and both tiny ones folded, each under its own parent. */
	CHECK(same(flame(&t, counts, 1000, 200000),
		   "[[-1,-1,1000,0,[],0],\n"
		   "[0,0,1000,0,[[\"a.c\",2,1000]],0],\n"
		   "[1,1,990,0,[[\"a.c\",6,700],[\"a.c\",7,290]],0],\n"
		   "[2,2,800,800,[[\"a.c\",10,600],[\"a.c\",11,200]],0],\n"
		   "[2,-2,190,190,1],\n"
		   "[1,-2,10,10,2]]"));
	/* More than three lines: the three most sampled, and how many more. */
	struct vtr_callctx many[] = {
	    {true, HEAVY, 0, VTR_NONE}, {true, HEAVY, 1, VTR_NONE}, {true, HEAVY, 2, VTR_NONE},
	    {true, HEAVY, 3, VTR_NONE}, {true, HEAVY, 4, VTR_NONE},
	};
	struct vtr_trace tm = t;
	tm.callctxs = many;
	tm.ncallctxs = 5;
	uint64_t mc[] = {1, 5, 3, 4, 2};
	CHECK(same(flame(&tm, mc, 15, 0),
		   "[[-1,-1,15,0,[],0],\n"
		   "[0,2,15,15,[[\"a.c\",6,5],[\"a.c\",10,4],[\"a.c\",7,3]],2]]"));
	/* A cycle of parents (damaged definitions) and a context without definition: the walk
	 * ends, every sample is counted once. */
	struct vtr_callctx bad[] = {
	    {true, MAIN, VTR_NONE, 1},
	    {true, WORK, VTR_NONE, 0},
	    {false, 0, 0, 0},
	};
	struct vtr_trace tb = t;
	tb.callctxs = bad;
	tb.ncallctxs = 3;
	uint64_t bc[] = {3, 0, 2};
	char *got = flame(&tb, bc, 5, 0);
	CHECK(strncmp(got, "[[-1,-1,5,0,[],0]", 17) == 0);
	CHECK(strstr(got, "[0,-3,2,2,[],0]") != NULL);
	free(got);
	return unit_done();
}
