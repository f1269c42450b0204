/* SPDX-License-Identifier: BSD-3-Clause */
/* What vt's OTF2 writer tests share: an in-memory output and libotf2's flush callbacks. */
#ifndef VT_UNIT_OTF2_SINK_H
#define VT_UNIT_OTF2_SINK_H
#include <errno.h>
#include <otf2/otf2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What a writer's output receives, in memory (a vt_evtw_out_fn's argument). */
struct sink {
	uint8_t *bytes;
	size_t n, cap;
	int fail_after; /* hand-overs accepted before one fails with ENOSPC; -1 never */
	int calls;	/* hand-overs accepted */
};

static int to_sink(void *arg, const uint8_t *b, size_t n)
{
	struct sink *s = arg;
	if (s->fail_after >= 0 && s->calls >= s->fail_after)
		return -ENOSPC;
	s->calls++;
	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2;
		s->bytes = realloc(s->bytes, s->cap);
	}
	memcpy(s->bytes + s->n, b, n);
	s->n += n;
	return 0;
}

/* libotf2, writing the reference files: every buffer flushed, no time taken. */
static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f)
{
	(void)u, (void)t, (void)l, (void)c, (void)f;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l)
{
	(void)u, (void)t, (void)l;
	return 0;
}

static OTF2_FlushCallbacks flush_cb = {pre_flush, post_flush};
#endif
