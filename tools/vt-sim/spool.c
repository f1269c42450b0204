/* SPDX-License-Identifier: BSD-3-Clause */
/* The new times of the replay, per location in chunks of one temporary file. */
#include "vts.h"

#include <stdlib.h>
#include <string.h>

static void die(const char *what)
{
	fprintf(stderr, "%s: the temporary file of new times: %s failed\n", vts_prog, what);
	exit(1);
}

void vts_spool_init(struct vts_spool *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->nlocations = n;
	s->file = tmpfile();
	if (!s->file)
		die("creating (TMPDIR)");
	size_t m = n ? n : 1;
	s->buf = vtr_xcalloc(m * VTS_CHUNK, sizeof(uint64_t));
	s->nbuf = vtr_xcalloc(m, sizeof(uint32_t));
	s->chunks = vtr_xcalloc(m, sizeof(uint64_t *));
	s->nchunks = vtr_xcalloc(m, sizeof(size_t));
	s->capchunks = vtr_xcalloc(m, sizeof(size_t));
	s->rbuf = vtr_xcalloc(VTS_CHUNK, sizeof(uint64_t));
}

static void flush_chunk(struct vts_spool *s, size_t loc)
{
	if (fseeko(s->file, 0, SEEK_END) != 0)
		die("seeking");
	off_t at = ftello(s->file);
	if (fwrite(s->buf + loc * VTS_CHUNK, sizeof(uint64_t), s->nbuf[loc], s->file) !=
	    s->nbuf[loc])
		die("writing");
	if (s->nchunks[loc] == s->capchunks[loc]) {
		s->capchunks[loc] = s->capchunks[loc] ? 2 * s->capchunks[loc] : 8;
		s->chunks[loc] = vtr_xrealloc(s->chunks[loc], s->capchunks[loc], sizeof(uint64_t));
	}
	/* offset and length in one: lengths are at most VTS_CHUNK */
	s->chunks[loc][s->nchunks[loc]++] = ((uint64_t)at << 12) | s->nbuf[loc];
	s->nbuf[loc] = 0;
}

void vts_spool_put(struct vts_spool *s, size_t loc, uint64_t t)
{
	s->buf[loc * VTS_CHUNK + s->nbuf[loc]++] = t;
	if (s->nbuf[loc] == VTS_CHUNK)
		flush_chunk(s, loc);
}

void vts_spool_finish(struct vts_spool *s)
{
	for (size_t i = 0; i < s->nlocations; i++)
		if (s->nbuf[i])
			flush_chunk(s, i);
	fflush(s->file);
}

void vts_spool_rewind(struct vts_spool *s, size_t loc)
{
	(void)loc;
	s->rpos = s->rlen = s->rchunk = 0;
	s->rcount = 0;
}

bool vts_spool_next(struct vts_spool *s, size_t loc, uint64_t *t)
{
	if (s->rpos == s->rlen) {
		if (s->rchunk == s->nchunks[loc])
			return false;
		uint64_t c = s->chunks[loc][s->rchunk++];
		s->rlen = c & 0xfff ? c & 0xfff : VTS_CHUNK;
		s->rpos = 0;
		if (fseeko(s->file, (off_t)(c >> 12), SEEK_SET) != 0 ||
		    fread(s->rbuf, sizeof(uint64_t), s->rlen, s->file) != s->rlen)
			die("reading");
	}
	*t = s->rbuf[s->rpos++];
	s->rcount++;
	return true;
}

void vts_spool_free(struct vts_spool *s)
{
	if (s->file)
		fclose(s->file);
	for (size_t i = 0; i < s->nlocations; i++)
		free(s->chunks[i]);
	free(s->chunks);
	free(s->nchunks);
	free(s->capchunks);
	free(s->buf);
	free(s->nbuf);
	free(s->rbuf);
}
