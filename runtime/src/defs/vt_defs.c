/* SPDX-License-Identifier: BSD-3-Clause */
/* The definitions model's encoding: one encode/decode pair per kind (see vt_defs.h). */
#include "defs/vt_defs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Little helpers over the stream: fixed-size integers in host order (both ends are the
 * same build on the same kind of machine), strings with their NUL. */
void vt_defs_append(struct vt_defs_buf *b, const void *v, size_t n)
{
	if (b->failed || !n)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		while (cap < b->n + n)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void put_u8(struct vt_defs_buf *b, uint8_t v)
{
	vt_defs_append(b, &v, sizeof(v));
}

static void put_u32(struct vt_defs_buf *b, uint32_t v)
{
	vt_defs_append(b, &v, sizeof(v));
}

static void put_u64(struct vt_defs_buf *b, uint64_t v)
{
	vt_defs_append(b, &v, sizeof(v));
}

static void put_str(struct vt_defs_buf *b, const char *s)
{
	s = s ? s : "";
	vt_defs_append(b, s, strlen(s) + 1);
}

static void get(struct vt_defs_reader *r, void *v, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		memset(v, 0, n);
		return;
	}
	memcpy(v, r->p, n);
	r->p += n;
}

static uint8_t get_u8(struct vt_defs_reader *r)
{
	uint8_t v;
	get(r, &v, sizeof(v));
	return v;
}

static uint32_t get_u32(struct vt_defs_reader *r)
{
	uint32_t v;
	get(r, &v, sizeof(v));
	return v;
}

static uint64_t get_u64(struct vt_defs_reader *r)
{
	uint64_t v;
	get(r, &v, sizeof(v));
	return v;
}

static const char *get_str(struct vt_defs_reader *r)
{
	const char *nul = r->bad ? NULL : memchr(r->p, '\0', (size_t)(r->end - r->p));
	if (!nul) {
		r->bad = true;
		return "";
	}
	const char *s = r->p;
	r->p = nul + 1;
	return s;
}

/* ---- the kinds ---- */

static void enc_process(struct vt_defs_buf *b, const union vt_def *d)
{
	const struct vt_def_process *p = &d->process;
	put_u32(b, p->rank);
	put_u32(b, p->pid);
	put_str(b, p->host);
	put_u64(b, p->resolution);
	put_u64(b, p->realtime);
	put_u64(b, p->first);
	put_u64(b, p->last);
	put_u32(b, p->thread_events);
}

static void dec_process(struct vt_defs_reader *r, union vt_def *d)
{
	struct vt_def_process *p = &d->process;
	p->rank = get_u32(r);
	p->pid = get_u32(r);
	p->host = get_str(r);
	p->resolution = get_u64(r);
	p->realtime = get_u64(r);
	p->first = get_u64(r);
	p->last = get_u64(r);
	p->thread_events = get_u32(r);
}

static void enc_location(struct vt_defs_buf *b, const union vt_def *d)
{
	put_u64(b, d->location.ref);
	put_str(b, d->location.name);
	put_u64(b, d->location.events);
}

static void dec_location(struct vt_defs_reader *r, union vt_def *d)
{
	d->location.ref = get_u64(r);
	d->location.name = get_str(r);
	d->location.events = get_u64(r);
}

static void enc_region(struct vt_defs_buf *b, const union vt_def *d)
{
	const struct vt_def_region *g = &d->region;
	put_u32(b, g->id);
	put_str(b, g->name);
	put_str(b, g->file);
	put_u32(b, g->line);
	put_u32(b, g->paradigm);
	put_u32(b, g->role);
}

static void dec_region(struct vt_defs_reader *r, union vt_def *d)
{
	struct vt_def_region *g = &d->region;
	g->id = get_u32(r);
	g->name = get_str(r);
	g->file = get_str(r);
	g->line = get_u32(r);
	g->paradigm = get_u32(r);
	g->role = get_u32(r);
}

static void enc_comm(struct vt_defs_buf *b, const union vt_def *d)
{
	put_u32(b, d->comm.id);
	put_u64(b, d->comm.key);
	put_u32(b, d->comm.my_rank);
	put_u32(b, d->comm.size);
	put_str(b, d->comm.name ? d->comm.name : "");
}

static void dec_comm(struct vt_defs_reader *r, union vt_def *d)
{
	d->comm.id = get_u32(r);
	d->comm.key = get_u64(r);
	d->comm.my_rank = get_u32(r);
	d->comm.size = get_u32(r);
	d->comm.name = get_str(r);
}

static void enc_metric(struct vt_defs_buf *b, const union vt_def *d)
{
	const struct vt_def_metric *m = &d->metric;
	put_u32(b, m->id);
	put_str(b, m->name);
	put_str(b, m->unit);
	put_str(b, m->description);
	put_u32(b, m->mode);
	put_u8(b, m->type);
	put_u8(b, m->base);
	put_u8(b, m->occurrence);
	put_u8(b, m->recorder_kind);
	put_u64(b, (uint64_t)m->exponent);
	put_str(b, m->members ? m->members : "");
}

static void dec_metric(struct vt_defs_reader *r, union vt_def *d)
{
	struct vt_def_metric *m = &d->metric;
	m->id = get_u32(r);
	m->name = get_str(r);
	m->unit = get_str(r);
	m->description = get_str(r);
	m->mode = get_u32(r);
	m->type = get_u8(r);
	m->base = get_u8(r);
	m->occurrence = get_u8(r);
	m->recorder_kind = get_u8(r);
	m->exponent = (int64_t)get_u64(r);
	m->members = get_str(r);
}

int vt_def_metric_key(const struct vt_def_metric *m, char *buf, size_t len)
{
	return snprintf(buf, len, "%s\x1f%s\x1f%s\x1f%u\x1f%u\x1f%u\x1f%lld\x1f%u", m->name,
			m->unit, m->description, m->mode, m->type, m->base, (long long)m->exponent,
			m->occurrence);
}

static void enc_instance(struct vt_defs_buf *b, const union vt_def *d)
{
	const struct vt_def_instance *in = &d->instance;
	put_u32(b, in->id);
	put_u32(b, in->metric);
	put_u64(b, in->recorder);
	put_str(b, in->recorder_name);
	put_u64(b, in->events);
	put_u32(b, in->scope);
	put_u64(b, in->owner);
}

static void dec_instance(struct vt_defs_reader *r, union vt_def *d)
{
	struct vt_def_instance *in = &d->instance;
	in->id = get_u32(r);
	in->metric = get_u32(r);
	in->recorder = get_u64(r);
	in->recorder_name = get_str(r);
	in->events = get_u64(r);
	in->scope = get_u32(r);
	in->owner = get_u64(r);
}

static void enc_marker(struct vt_defs_buf *b, const union vt_def *d)
{
	const struct vt_def_marker *m = &d->marker;
	put_u64(b, m->ts);
	put_u64(b, m->location);
	put_str(b, m->category);
	put_str(b, m->text);
	put_u32(b, m->severity);
}

static void dec_marker(struct vt_defs_reader *r, union vt_def *d)
{
	struct vt_def_marker *m = &d->marker;
	m->ts = get_u64(r);
	m->location = get_u64(r);
	m->category = get_str(r);
	m->text = get_str(r);
	m->severity = get_u32(r);
}

static void enc_property(struct vt_defs_buf *b, const union vt_def *d)
{
	put_str(b, d->property.name);
	put_str(b, d->property.value);
}

static void dec_property(struct vt_defs_reader *r, union vt_def *d)
{
	d->property.name = get_str(r);
	d->property.value = get_str(r);
}

static void enc_callctx(struct vt_defs_buf *b, const union vt_def *d)
{
	const struct vt_def_callctx *c = &d->callctx;
	put_u32(b, c->id);
	put_u32(b, c->parent);
	put_str(b, c->name);
	put_str(b, c->file);
	put_u32(b, c->line);
	put_u32(b, c->paradigm);
	put_str(b, c->src_file);
	put_u32(b, c->src_line);
}

static void dec_callctx(struct vt_defs_reader *r, union vt_def *d)
{
	struct vt_def_callctx *c = &d->callctx;
	c->id = get_u32(r);
	c->parent = get_u32(r);
	c->name = get_str(r);
	c->file = get_str(r);
	c->line = get_u32(r);
	c->paradigm = get_u32(r);
	c->src_file = get_str(r);
	c->src_line = get_u32(r);
}

static void enc_igen(struct vt_defs_buf *b, const union vt_def *d)
{
	put_u32(b, d->igen.id);
	put_str(b, d->igen.name);
	put_u32(b, d->igen.mode);
	put_u64(b, d->igen.period);
}

static void dec_igen(struct vt_defs_reader *r, union vt_def *d)
{
	d->igen.id = get_u32(r);
	d->igen.name = get_str(r);
	d->igen.mode = get_u32(r);
	d->igen.period = get_u64(r);
}

static void enc_rmawin(struct vt_defs_buf *b, const union vt_def *d)
{
	put_u32(b, d->rmawin.id);
	put_u64(b, d->rmawin.key);
	put_u32(b, d->rmawin.comm);
	put_str(b, d->rmawin.name ? d->rmawin.name : "");
}

static void dec_rmawin(struct vt_defs_reader *r, union vt_def *d)
{
	d->rmawin.id = get_u32(r);
	d->rmawin.key = get_u64(r);
	d->rmawin.comm = get_u32(r);
	d->rmawin.name = get_str(r);
}

static void enc_group(struct vt_defs_buf *b, const union vt_def *d)
{
	put_u32(b, d->group.id);
	put_str(b, d->group.members);
}

static void dec_group(struct vt_defs_reader *r, union vt_def *d)
{
	d->group.id = get_u32(r);
	d->group.members = get_str(r);
}

static void enc_iohandle(struct vt_defs_buf *b, const union vt_def *d)
{
	put_u32(b, d->iohandle.id);
	put_u64(b, d->iohandle.key);
	put_u32(b, d->iohandle.comm);
	put_u32(b, d->iohandle.paradigm);
	put_str(b, d->iohandle.file ? d->iohandle.file : "");
	put_u32(b, d->iohandle.parent);
}

static void dec_iohandle(struct vt_defs_reader *r, union vt_def *d)
{
	d->iohandle.id = get_u32(r);
	d->iohandle.key = get_u64(r);
	d->iohandle.comm = get_u32(r);
	d->iohandle.paradigm = get_u32(r);
	d->iohandle.file = get_str(r);
	d->iohandle.parent = get_u32(r);
}

static void enc_commuse(struct vt_defs_buf *b, const union vt_def *d)
{
	put_u64(b, d->commuse.location);
	put_u32(b, d->commuse.comm);
}

static void dec_commuse(struct vt_defs_reader *r, union vt_def *d)
{
	d->commuse.location = get_u64(r);
	d->commuse.comm = get_u32(r);
}

static void enc_team(struct vt_defs_buf *b, const union vt_def *d)
{
	put_u32(b, d->team.id);
	put_str(b, d->team.members);
}

static void dec_team(struct vt_defs_reader *r, union vt_def *d)
{
	d->team.id = get_u32(r);
	d->team.members = get_str(r);
}

static void enc_same(struct vt_defs_buf *b, const union vt_def *d)
{
	put_u32(b, d->same.kind);
	put_u32(b, d->same.id);
	put_u32(b, d->same.ordinal);
	put_u32(b, d->same.count);
}

static void dec_same(struct vt_defs_reader *r, union vt_def *d)
{
	d->same.kind = get_u32(r);
	d->same.id = get_u32(r);
	d->same.ordinal = get_u32(r);
	d->same.count = get_u32(r);
}

static const struct {
	const char *name;
	void (*encode)(struct vt_defs_buf *b, const union vt_def *d);
	void (*decode)(struct vt_defs_reader *r, union vt_def *d);
} kinds[VT_DEF_KIND_MAX] = {
    [VT_DEF_PROCESS] = {"process", enc_process, dec_process},
    [VT_DEF_LOCATION] = {"location", enc_location, dec_location},
    [VT_DEF_REGION] = {"region", enc_region, dec_region},
    [VT_DEF_COMM] = {"communicator", enc_comm, dec_comm},
    [VT_DEF_METRIC] = {"metric", enc_metric, dec_metric},
    [VT_DEF_INSTANCE] = {"metric instance", enc_instance, dec_instance},
    [VT_DEF_MARKER] = {"marker", enc_marker, dec_marker},
    [VT_DEF_PROPERTY] = {"property", enc_property, dec_property},
    [VT_DEF_CALLCTX] = {"calling context", enc_callctx, dec_callctx},
    [VT_DEF_IGEN] = {"interrupt generator", enc_igen, dec_igen},
    [VT_DEF_RMAWIN] = {"RMA window", enc_rmawin, dec_rmawin},
    [VT_DEF_GROUP] = {"group", enc_group, dec_group},
    [VT_DEF_IOHANDLE] = {"I/O handle", enc_iohandle, dec_iohandle},
    [VT_DEF_COMMUSE] = {"communicator use", enc_commuse, dec_commuse},
    [VT_DEF_TEAM] = {"thread team", enc_team, dec_team},
    [VT_DEF_SAME] = {"same definition", enc_same, dec_same},
};

void vt_defs_put(struct vt_defs_buf *b, enum vt_def_kind kind, const union vt_def *d)
{
	if (kind <= 0 || kind >= VT_DEF_KIND_MAX || !kinds[kind].encode) {
		b->failed = true;
		return;
	}
	put_u8(b, (uint8_t)kind);
	kinds[kind].encode(b, d);
}

int vt_defs_next(struct vt_defs_reader *r, enum vt_def_kind *kind, union vt_def *d)
{
	if (r->bad)
		return -1;
	if (r->p == r->end)
		return 0;
	uint8_t k = get_u8(r);
	if (k == 0 || k >= VT_DEF_KIND_MAX || !kinds[k].decode) {
		r->bad = true;
		return -1;
	}
	memset(d, 0, sizeof(*d));
	kinds[k].decode(r, d);
	*kind = (enum vt_def_kind)k;
	return r->bad ? -1 : 1;
}

const char *vt_def_kind_name(enum vt_def_kind kind)
{
	return kind > 0 && kind < VT_DEF_KIND_MAX && kinds[kind].name ? kinds[kind].name : "?";
}
