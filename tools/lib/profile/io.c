/* SPDX-License-Identifier: BSD-3-Clause */
/* I/O per file and process from OTF2's I/O model: operations, bytes, time, sizes, slowest. */
/*
 * Memory: the files and (file, process) rows the trace has, each location's operations open
 * at one time, and the N slowest operations; never the number of events.
 */
#include "io.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vt_prof_io_mode_names[VT_PROF_IO_MODES] = {"read", "write", "flush"};

unsigned vt_prof_io_bucket(uint64_t bytes)
{
	return bytes ? 64u - (unsigned)__builtin_clzll(bytes) : 0;
}

uint64_t vt_prof_io_bucket_low(unsigned b)
{
	return b ? UINT64_C(1) << (b - 1) : 0;
}

/* ---- the slowest operations ---- */

void vt_prof_io_top_init(struct vt_prof_io_top *top, size_t cap)
{
	*top = (struct vt_prof_io_top){.cap = cap};
	top->ops = cap ? vtr_xcalloc(cap, sizeof(*top->ops)) : NULL;
}

/* a before b in the result: longer, then earlier, then on a lower location. */
static bool before(const struct vt_prof_io_op *a, const struct vt_prof_io_op *b)
{
	if (a->duration != b->duration)
		return a->duration > b->duration;
	if (a->begin != b->begin)
		return a->begin < b->begin;
	return a->location < b->location;
}

/* The heap's root is the one that comes last: the first to give way. */
static void sift_down(struct vt_prof_io_op *h, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1, last = i;
		if (c < n && before(&h[last], &h[c]))
			last = c;
		if (c + 1 < n && before(&h[last], &h[c + 1]))
			last = c + 1;
		if (last == i)
			return;
		struct vt_prof_io_op x = h[i];
		h[i] = h[last];
		h[last] = x;
		i = last;
	}
}

void vt_prof_io_top_add(struct vt_prof_io_top *top, const struct vt_prof_io_op *op)
{
	if (!top->cap)
		return;
	struct vt_prof_io_op *h = top->ops;
	if (top->n < top->cap) {
		size_t i = top->n++;
		h[i] = *op;
		while (i && before(&h[(i - 1) / 2], &h[i])) {
			struct vt_prof_io_op x = h[i];
			h[i] = h[(i - 1) / 2];
			h[(i - 1) / 2] = x;
			i = (i - 1) / 2;
		}
		return;
	}
	if (!before(op, &h[0]))
		return;
	h[0] = *op;
	sift_down(h, top->n, 0);
}

static int cmp_ops(const void *pa, const void *pb)
{
	const struct vt_prof_io_op *a = pa, *b = pb;
	return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

void vt_prof_io_top_sort(struct vt_prof_io_top *top)
{
	if (top->n)
		qsort(top->ops, top->n, sizeof(*top->ops), cmp_ops);
}

/* ---- the model ---- */

struct pending {
	uint32_t handle;
	enum vt_prof_io_mode mode;
	uint64_t matching, begin, requested;
};

struct lstate {
	struct pending *p;
	size_t n, cap;
};

struct priv {
	size_t *file_of_handle; /* per handle: its file index + 1, 0: not yet known */
	size_t *file_of_iofile; /* per paradigm (and none) and IoFile: the same */
	size_t undefined_file;	/* the file of undefined handles + 1 */
	size_t capfiles, caprows;
	size_t *slots; /* (file, group) -> row index + 1, open addressing */
	size_t nslots;
	struct lstate *states; /* per location */
};

struct vt_prof_io *vt_prof_io_new(const struct vtr_trace *t, size_t top)
{
	struct vt_prof_io *m = vtr_xcalloc(1, sizeof(*m));
	struct priv *p = vtr_xcalloc(1, sizeof(*p));
	m->t = t;
	m->priv = p;
	vt_prof_io_top_init(&m->top, top);
	p->file_of_handle = vtr_xcalloc(t->nio_handles + 1, sizeof(size_t));
	p->file_of_iofile = vtr_xcalloc((t->nio_paradigms + 1) * t->nio_files + 1, sizeof(size_t));
	p->states = vtr_xcalloc(t->nlocations + 1, sizeof(*p->states));
	p->nslots = 64;
	p->slots = vtr_xcalloc(p->nslots, sizeof(size_t));
	return m;
}

static size_t new_file(struct vt_prof_io *m, const char *paradigm, const char *name)
{
	struct priv *p = m->priv;
	if (m->nfiles == p->capfiles) {
		p->capfiles = p->capfiles ? 2 * p->capfiles : 16;
		m->files = vtr_xrealloc(m->files, p->capfiles, sizeof(*m->files));
	}
	m->files[m->nfiles] = (struct vt_prof_io_file){.paradigm = paradigm, .name = name};
	return m->nfiles++;
}

/*
 * The file a handle is on: its IoFile under the handle's paradigm (an MPI-IO handle and the
 * POSIX handles below it on one IoFile are two files), else the handle itself; all handles
 * without a definition are one file. Each handle looks once; a table per paradigm and IoFile
 * keeps it O(1) whatever the number of files.
 */
static size_t file_of(struct vt_prof_io *m, uint32_t handle)
{
	struct priv *p = m->priv;
	const struct vtr_trace *t = m->t;
	if (handle >= t->nio_handles || !t->io_handles[handle].defined) {
		if (!p->undefined_file)
			p->undefined_file = new_file(m, "(unknown)", "(undefined handle)") + 1;
		return p->undefined_file - 1;
	}
	if (p->file_of_handle[handle])
		return p->file_of_handle[handle] - 1;
	const struct vtr_io_handle *h = &t->io_handles[handle];
	const char *paradigm =
	    h->paradigm != VTR_NONE ? t->io_paradigms[h->paradigm].name : "(unknown)";
	size_t f;
	if (h->file == VTR_NONE) {
		f = new_file(m, paradigm, h->name);
	} else {
		/* paradigms 0..n-1, and n for none */
		size_t k =
		    (h->paradigm != VTR_NONE ? h->paradigm : t->nio_paradigms) * t->nio_files +
		    h->file;
		if (!p->file_of_iofile[k])
			p->file_of_iofile[k] = new_file(m, paradigm, t->io_files[h->file].name) + 1;
		f = p->file_of_iofile[k] - 1;
	}
	p->file_of_handle[handle] = f + 1;
	return f;
}

static size_t slot_of(size_t file, uint32_t group, size_t cap)
{
	uint64_t k = ((uint64_t)file << 32 | group) * 0x9e3779b97f4a7c15ull;
	return (size_t)(k >> 20) & (cap - 1);
}

static void rehash(struct vt_prof_io *m)
{
	struct priv *p = m->priv;
	free(p->slots);
	p->nslots *= 2;
	p->slots = vtr_xcalloc(p->nslots, sizeof(size_t));
	for (size_t r = 0; r < m->nrows; r++) {
		size_t s = slot_of(m->rows[r].file, m->rows[r].group, p->nslots);
		while (p->slots[s])
			s = (s + 1) & (p->nslots - 1);
		p->slots[s] = r + 1;
	}
}

static struct vt_prof_io_row *row_of(struct vt_prof_io *m, const struct vtr_location *l,
				     uint32_t handle, size_t *index)
{
	struct priv *p = m->priv;
	size_t file = file_of(m, handle);
	uint32_t group = l->group < m->t->ngroups ? l->group : VTR_NONE;
	size_t s = slot_of(file, group, p->nslots);
	for (; p->slots[s]; s = (s + 1) & (p->nslots - 1)) {
		struct vt_prof_io_row *r = &m->rows[p->slots[s] - 1];
		if (r->file == file && r->group == group) {
			*index = p->slots[s] - 1;
			return r;
		}
	}
	if (m->nrows == p->caprows) {
		p->caprows = p->caprows ? 2 * p->caprows : 16;
		m->rows = vtr_xrealloc(m->rows, p->caprows, sizeof(*m->rows));
	}
	*index = m->nrows;
	m->rows[m->nrows++] =
	    (struct vt_prof_io_row){.file = file, .group = group, .rank = l->rank};
	p->slots[s] = m->nrows;
	if (2 * m->nrows > p->nslots)
		rehash(m);
	return &m->rows[*index];
}

static enum vt_prof_io_mode mode_of(uint32_t otf2_mode)
{
	switch (otf2_mode) {
	case OTF2_IO_OPERATION_MODE_READ:
		return VT_PROF_IO_READ;
	case OTF2_IO_OPERATION_MODE_WRITE:
		return VT_PROF_IO_WRITE;
	default:
		return VT_PROF_IO_FLUSH;
	}
}

static void begin(struct vt_prof_io *m, const struct vtr_location *l, const struct vtr_io_event *e)
{
	struct lstate *s = &((struct priv *)m->priv)->states[l->index];
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4;
		s->p = vtr_xrealloc(s->p, s->cap, sizeof(*s->p));
	}
	s->p[s->n++] =
	    (struct pending){e->handle, mode_of(e->mode), e->matching, e->time, e->bytes};
}

/* A Complete (cancelled false) or Cancelled: its Begin, the latest of that handle and id. */
static void end(struct vt_prof_io *m, const struct vtr_location *l, const struct vtr_io_event *e,
		bool cancelled)
{
	struct lstate *s = &((struct priv *)m->priv)->states[l->index];
	size_t i = s->n;
	while (i && (s->p[i - 1].handle != e->handle || s->p[i - 1].matching != e->matching))
		i--;
	if (!i) {
		m->unmatched++;
		return;
	}
	struct pending b = s->p[i - 1];
	memmove(&s->p[i - 1], &s->p[i], (s->n - i) * sizeof(*s->p));
	s->n--;
	size_t index;
	struct vt_prof_io_row *r = row_of(m, l, e->handle, &index);
	uint64_t duration = e->time > b.begin ? e->time - b.begin : 0;
	uint64_t done = cancelled ? 0 : e->bytes;
	r->s.time += duration;
	if (cancelled)
		r->s.failed++;
	else
		r->s.ops[b.mode]++;
	if (!cancelled && b.mode == VT_PROF_IO_READ)
		r->s.read += done;
	if (!cancelled && b.mode == VT_PROF_IO_WRITE)
		r->s.written += done;
	/* A request of unknown size (OTF2_UNDEFINED_UINT64: a printf's, formatted later) is
	 * in no bucket. */
	if (b.mode != VT_PROF_IO_FLUSH && b.requested != UINT64_MAX)
		r->s.sizes[b.mode][vt_prof_io_bucket(b.requested)]++;
	struct vt_prof_io_op op = {.duration = duration,
				   .begin = b.begin,
				   .row = index,
				   .location = l->index,
				   .mode = b.mode,
				   .requested = b.requested,
				   .done = done,
				   .failed = cancelled};
	vt_prof_io_top_add(&m->top, &op);
}

void vt_prof_io_event(struct vt_prof_io *m, const struct vtr_location *l,
		      const struct vtr_io_event *e)
{
	size_t index;
	m->any = true;
	switch (e->kind) {
	case VTR_EV_IoOperationBegin:
		begin(m, l, e);
		break;
	case VTR_EV_IoOperationComplete:
		end(m, l, e, false);
		break;
	case VTR_EV_IoOperationCancelled:
		end(m, l, e, true);
		break;
	case VTR_EV_IoCreateHandle:
		row_of(m, l, e->handle, &index)->s.opens++;
		break;
	case VTR_EV_IoDuplicateHandle:
		row_of(m, l, e->other, &index)->s.opens++;
		break;
	case VTR_EV_IoSeek:
		row_of(m, l, e->handle, &index)->s.seeks++;
		break;
	default:
		break;
	}
}

static void add_stats(struct vt_prof_io_stats *to, const struct vt_prof_io_stats *from)
{
	for (int k = 0; k < VT_PROF_IO_MODES; k++)
		to->ops[k] += from->ops[k];
	to->failed += from->failed;
	to->opens += from->opens;
	to->seeks += from->seeks;
	to->read += from->read;
	to->written += from->written;
	to->time += from->time;
	for (int k = 0; k < 2; k++)
		for (int b = 0; b < VT_PROF_IO_BUCKETS; b++)
			to->sizes[k][b] += from->sizes[k][b];
}

/* For the sorts: the files (qsort has no user pointer). */
static const struct vt_prof_io *sorting;

static int cmp_files(const void *pa, const void *pb)
{
	const struct vt_prof_io_file *a = &sorting->files[*(const size_t *)pa],
				     *b = &sorting->files[*(const size_t *)pb];
	int c = strcmp(a->paradigm, b->paradigm);
	return c ? c : strcmp(a->name, b->name);
}

/* By file (already in their order), then rank (processes without one after), then group. */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct vt_prof_io_row *a = &sorting->rows[*(const size_t *)pa],
				    *b = &sorting->rows[*(const size_t *)pb];
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->group > b->group) - (a->group < b->group);
}

void vt_prof_io_end(struct vt_prof_io *m)
{
	struct priv *p = m->priv;
	for (size_t i = 0; i < m->t->nlocations; i++)
		m->open_at_end += p->states[i].n;
	sorting = m;
	size_t *order = vtr_xcalloc(m->nfiles + m->nrows + 1, sizeof(size_t));
	size_t *newpos = vtr_xcalloc(m->nfiles + m->nrows + 1, sizeof(size_t));
	for (size_t f = 0; f < m->nfiles; f++)
		order[f] = f;
	qsort(order, m->nfiles, sizeof(size_t), cmp_files);
	struct vt_prof_io_file *files = vtr_xcalloc(m->nfiles + 1, sizeof(*files));
	for (size_t f = 0; f < m->nfiles; f++) {
		files[f] = m->files[order[f]];
		newpos[order[f]] = f;
	}
	free(m->files);
	m->files = files;
	for (size_t r = 0; r < m->nrows; r++) {
		m->rows[r].file = newpos[m->rows[r].file];
		order[r] = r;
	}
	qsort(order, m->nrows, sizeof(size_t), cmp_rows);
	struct vt_prof_io_row *rows = vtr_xcalloc(m->nrows + 1, sizeof(*rows));
	for (size_t r = 0; r < m->nrows; r++) {
		rows[r] = m->rows[order[r]];
		newpos[order[r]] = r;
		add_stats(&m->files[rows[r].file].s, &rows[r].s);
		add_stats(&m->all, &rows[r].s);
	}
	free(m->rows);
	m->rows = rows;
	for (size_t i = 0; i < m->top.n; i++)
		m->top.ops[i].row = newpos[m->top.ops[i].row];
	vt_prof_io_top_sort(&m->top);
	free(order);
	free(newpos);
	/* The lookup tables index the old order: no more events after this. */
	free(p->slots);
	p->slots = NULL;
}

static void on_io(void *user, const struct vtr_location *loc, const struct vtr_io_event *e)
{
	vt_prof_io_event(user, loc, e);
}

struct vt_prof_io *vt_prof_io_read(struct vtr_trace *t, size_t top, char *err, size_t errlen)
{
	struct vt_prof_io *m = vt_prof_io_new(t, top);
	struct vtr_callbacks cb = {.io = on_io};
	if (vtr_read_locations(t, &cb, m) < 0) {
		snprintf(err, errlen, "%s", t->err);
		vt_prof_io_free(m);
		return NULL;
	}
	vt_prof_io_end(m);
	return m;
}

void vt_prof_io_free(struct vt_prof_io *m)
{
	if (!m)
		return;
	struct priv *p = m->priv;
	for (size_t i = 0; i < m->t->nlocations; i++)
		free(p->states[i].p);
	free(p->states);
	free(p->slots);
	free(p->file_of_handle);
	free(p->file_of_iofile);
	free(p);
	free(m->files);
	free(m->rows);
	free(m->top.ops);
	free(m);
}
