/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-export's Chrome trace-event writer, streamed in time order. */
/*
 * The Chrome trace-event format (what Perfetto's UI and chrome://tracing open), written while
 * the trace is read in time order: processes are location groups (ranks), threads are
 * locations, regions B/E pairs, metric events counter ("C") events, matched MPI messages flow
 * events ("s" on the sender, "f" on the receiver). The thread model (OpenMP, pthreads): each
 * thread's team membership an async span ("b"/"e", cat "openmp"), every thread event an
 * instant ("i") on its thread, and flows from a fork to the team's other threads, from a task's
 * creation to where it starts running, from a lock's release to its next acquisition on
 * another thread, from a pthread's creation to its begin. Memory is the trace layer's
 * (bounded by the definitions and the open stacks) and the tasks, threads and forks open at
 * one time and the locks, never the number of events: flows, known only once both ends are
 * read, go to a temporary file that is appended after the other events.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fwrite_unlocked, fputs_unlocked, open_memstream */
#endif
#include "chrome.h"

#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#include "vtr_out.h"

#ifndef VT_VERSION
#define VT_VERSION "unknown"
#endif

enum phase { BEFORE, INSIDE, AFTER };

struct lstate {
	uint32_t *stack; /* open regions, outermost first (only for a window) */
	size_t depth, cap;
	struct team {
		uint64_t id;   /* of its span */
		uint32_t comm; /* the team */
	} * teams;	       /* open team spans, outermost first */
	size_t nteams, capteams;
	uint64_t last; /* the last timestamp written: never decreasing per thread */
	/* What every record of the thread carries after its phase: "pid":G,"tid":I,"ts": */
	char head[64];
	size_t head_len;
};

/* Records are formatted into one large buffer written in blocks: a record of the hot path
 * costs no stdio call. Cold paths (metadata, counters) write through stdio after draining it. */
#define OUTBUF	   (1u << 20)
#define RECORD_MAX 160 /* a B or E record without the region's name */

struct name {
	char *json; /* the region's name as a JSON string, made on first use */
	size_t len;
};

/* The start of a thread-model flow whose end is still to come, by a key of two words. */
struct pending {
	uint64_t a, b;
	uint64_t time;
	uint32_t loc;
	bool used;
};

struct pmap {
	struct pending *e;
	size_t n, cap; /* cap: a power of two, or 0 */
};

/* The forks of a process not yet joined, innermost last. */
struct forks {
	struct {
		uint32_t loc;
		uint64_t time;
	} * f;
	size_t n, cap;
};

struct writer {
	struct vtr_trace *t;
	const struct vt_export_options *opt;
	FILE *out, *flows, *warn;
	char *buf; /* OUTBUF bytes, len of them used */
	size_t len;
	struct lstate *locs;
	struct name *names; /* per region */
	uint64_t from, to;  /* ticks; inclusive */
	enum phase phase;
	struct vt_export_counts *n;
	bool first; /* no event written yet: no comma */
	/* The whole microseconds of the last timestamp written, in decimal: a trace has several
	 * events per microsecond, which then differ in their last three digits only. */
	uint64_t us;
	char us_digits[24];
	size_t us_len;
	/* the thread model: created tasks not yet started, threads created not yet begun, each
	 * lock's last release; per location group its open forks; the team spans' ids */
	struct pmap tasks, threads, locks;
	struct forks *forks;
	uint64_t spans;
};

static void drain(struct writer *w)
{
	fwrite_unlocked(w->buf, 1, w->len, w->out);
	w->len = 0;
}

/* Room for n more bytes at the end of the buffer (n <= OUTBUF). */
static char *room(struct writer *w, size_t n)
{
	if (OUTBUF - w->len < n)
		drain(w);
	return w->buf + w->len;
}

/* The output for stdio, behind everything written so far. */
static FILE *file(struct writer *w)
{
	if (w->len)
		drain(w);
	return w->out;
}

/* Two decimal digits per entry: "00" to "99". */
#define DIGITS_ROW(d) d "0" d "1" d "2" d "3" d "4" d "5" d "6" d "7" d "8" d "9"
static const char digit_pairs[] = DIGITS_ROW("0") DIGITS_ROW("1") DIGITS_ROW("2") DIGITS_ROW("3")
    DIGITS_ROW("4") DIGITS_ROW("5") DIGITS_ROW("6") DIGITS_ROW("7") DIGITS_ROW("8") DIGITS_ROW("9");

static unsigned decimal_digits(uint64_t v)
{
	unsigned n = 1;
	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* v in decimal, written from its last digit back, two at a time. */
static char *put_u64(char *p, uint64_t v)
{
	char *end = p + decimal_digits(v), *q = end;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		q -= 2;
		memcpy(q, digit_pairs + 2 * r, 2);
	}
	if (v >= 10)
		memcpy(q - 2, digit_pairs + 2 * v, 2);
	else
		q[-1] = (char)('0' + v);
	return end;
}

/* Microseconds after the clock's offset, exact to the nanosecond: "123.456". */
static char *put_ts(char *p, const struct vtr_trace *t, uint64_t ticks)
{
	uint64_t ns = vtr_ticks_to_ns(t, ticks), us = ns / 1000;
	unsigned f = (unsigned)(ns - us * 1000);
	p = put_u64(p, us);
	p[0] = '.';
	p[1] = (char)('0' + f / 100);
	memcpy(p + 2, digit_pairs + 2 * (f % 100), 2);
	return p + 4;
}

/* put_ts for the hot path: the whole microseconds formatted again only when they changed. */
static char *put_ts_cached(struct writer *w, char *p, uint64_t ticks)
{
	uint64_t ns = vtr_ticks_to_ns(w->t, ticks), us = ns / 1000;
	unsigned f = (unsigned)(ns - us * 1000);
	if (us != w->us) {
		w->us = us;
		w->us_len = (size_t)(put_u64(w->us_digits, us) - w->us_digits);
	}
	memcpy(p, w->us_digits, sizeof(w->us_digits)); /* fixed size: a few moves, no call */
	p += w->us_len;
	p[0] = '.';
	p[1] = (char)('0' + f / 100);
	memcpy(p + 2, digit_pairs + 2 * (f % 100), 2);
	return p + 4;
}

static void print_ts(FILE *out, const struct vtr_trace *t, uint64_t ticks)
{
	char buf[40];
	char *end = put_ts(buf, t, ticks);
	fwrite(buf, 1, (size_t)(end - buf), out);
}

#define PUT_LITERAL(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

static void sep(struct writer *w)
{
	fputs(w->first ? "\n" : ",\n", file(w));
	w->first = false;
}

static uint64_t clamp(struct writer *w, size_t loc, uint64_t time)
{
	struct lstate *s = &w->locs[loc];
	if (time < s->last)
		time = s->last;
	s->last = time;
	return time;
}

/* A region's name as a JSON string, made once. */
static const struct name *json_name(struct writer *w, uint32_t region)
{
	struct name *nm = &w->names[region];
	if (!nm->json) {
		FILE *m = open_memstream(&nm->json, &nm->len);
		if (!m) {
			fputs("vt-export: out of memory\n", stderr);
			exit(2);
		}
		vtr_json_string(m, w->t->regions[region].name);
		fclose(m);
	}
	return nm;
}

/* The hot path: one B or E record, formatted by hand into the buffer. Only what the format
 * needs: phase, process, thread, time, and the name on B (E closes the thread's innermost). */
static void slice(struct writer *w, const struct vtr_location *loc, uint64_t time, uint32_t region,
		  bool begin)
{
	time = clamp(w, loc->index, time);
	const struct lstate *s = &w->locs[loc->index];
	const struct name *nm = begin ? json_name(w, region) : NULL;
	size_t name_len = nm && nm->len <= OUTBUF - RECORD_MAX ? nm->len : 0;
	char *p = room(w, RECORD_MAX + name_len);
	if (w->first)
		*p++ = '\n';
	else
		p = PUT_LITERAL(p, ",\n");
	w->first = false;
	p = begin ? PUT_LITERAL(p, "{\"ph\":\"B\",") : PUT_LITERAL(p, "{\"ph\":\"E\",");
	memcpy(p, s->head, sizeof(s->head));
	p += s->head_len;
	p = put_ts_cached(w, p, time);
	if (begin) {
		p = PUT_LITERAL(p, ",\"name\":");
		if (name_len == nm->len) {
			memcpy(p, nm->json, name_len);
			p += name_len;
		} else { /* a name longer than the buffer, written on its own */
			w->len = (size_t)(p - w->buf);
			fwrite_unlocked(nm->json, 1, nm->len, file(w));
			p = w->buf;
		}
		w->n->slices++;
	}
	*p++ = '}';
	w->len = (size_t)(p - w->buf);
}

static void team_span(struct writer *w, const struct vtr_location *loc, uint64_t time,
		      const struct team *team, bool begin);

/* Regions and team spans open when the window opens begin at its start; those open at its end
 * end there. */
static void window_edge(struct writer *w, enum phase to)
{
	for (size_t i = 0; i < w->t->nlocations; i++) {
		struct lstate *s = &w->locs[i];
		const struct vtr_location *loc = &w->t->locations[i];
		if (to == INSIDE) {
			for (size_t d = 0; d < s->nteams; d++)
				team_span(w, loc, w->from, &s->teams[d], true);
			for (size_t d = 0; d < s->depth; d++)
				slice(w, loc, w->from, s->stack[d], true);
		} else {
			for (size_t d = s->depth; d-- > 0;)
				slice(w, loc, w->to, s->stack[d], false);
			for (size_t d = s->nteams; d-- > 0;)
				team_span(w, loc, w->to, &s->teams[d], false);
		}
	}
	w->phase = to;
}

static void on_event(void *user, const struct vtr_location *loc, enum vtr_event kind, uint64_t time)
{
	struct writer *w = user;
	(void)loc;
	(void)kind;
	w->n->events++;
	if (w->phase == BEFORE && time >= w->from)
		window_edge(w, INSIDE);
	if (w->phase == INSIDE && time > w->to)
		window_edge(w, AFTER);
}

static void on_enter(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region)
{
	struct writer *w = user;
	if (w->opt->window) { /* the regions open at the window's edges, kept for them */
		struct lstate *s = &w->locs[loc->index];
		if (s->depth == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 32;
			s->stack = vtr_xrealloc(s->stack, s->cap, sizeof(*s->stack));
		}
		s->stack[s->depth++] = region;
	}
	if (w->phase == INSIDE)
		slice(w, loc, time, region, true);
}

static void on_leave(void *user, const struct vtr_location *loc, uint64_t time, uint32_t region,
		     uint64_t enter)
{
	struct writer *w = user;
	(void)enter;
	struct lstate *s = &w->locs[loc->index];
	if (s->depth)
		s->depth--;
	if (w->phase == INSIDE)
		slice(w, loc, time, region, false);
}

static void print_value(FILE *out, uint8_t type, const void *values, uint32_t i)
{
	/* OTF2_MetricValue: 8 bytes, read as its type says (OTF2_Type numbering). */
	const uint8_t *p = (const uint8_t *)values + 8 * (size_t)i;
	int64_t s;
	uint64_t u;
	double d;
	memcpy(&s, p, 8);
	memcpy(&u, p, 8);
	memcpy(&d, p, 8);
	if (type == OTF2_TYPE_DOUBLE || type == OTF2_TYPE_FLOAT) {
		if (d != d || d - d != 0) /* NaN or infinite: JSON has no word for them */
			fputs("null", out);
		else
			fprintf(out, "%.17g", d);
	} else if (type >= OTF2_TYPE_INT8 && type <= OTF2_TYPE_INT64) {
		fprintf(out, "%" PRId64, s);
	} else {
		fprintf(out, "%" PRIu64, u);
	}
}

static const char *member_name(const struct vtr_trace *t, const struct vtr_metric_class *c,
			       uint32_t i)
{
	uint32_t m = c && i < c->nmembers ? c->members[i] : VTR_NONE;
	return m != VTR_NONE && t->metrics[m].name[0] ? t->metrics[m].name : NULL;
}

/* One counter event named name: values i0 .. i0 + n - 1 of a Metric event of class c, each
 * under its member's name. */
static void counter(struct writer *w, const struct vtr_location *loc, uint64_t time,
		    const char *name, const struct vtr_metric_class *c, uint32_t i0, uint32_t n,
		    const uint8_t *types, const void *values)
{
	sep(w);
	FILE *out = file(w);
	/* Counter tracks are per process in this format: the location in the name keeps the
	 * threads' tracks apart. */
	fprintf(out, "{\"ph\":\"C\",\"pid\":%" PRIu32 ",\"tid\":%zu,\"ts\":", loc->group,
		loc->index);
	print_ts(out, w->t, time);
	fputs(",\"name\":", out);
	vtr_json_string(out, name);
	fputs(",\"cat\":\"metric\",\"args\":{", out);
	for (uint32_t i = i0; i < i0 + n; i++) {
		const char *mn = member_name(w->t, c, i);
		char buf[32];
		if (!mn) {
			snprintf(buf, sizeof(buf), "value %" PRIu32, i);
			mn = buf;
		}
		/* Duplicate keys would be lost in a JSON object: the index tells them apart. */
		bool dup = false;
		for (uint32_t j = i0; j < i && !dup; j++) {
			const char *other = member_name(w->t, c, j);
			dup = other && strcmp(other, mn) == 0;
		}
		if (dup) {
			snprintf(buf, sizeof(buf), "value %" PRIu32, i);
			mn = buf;
		}
		if (i > i0)
			putc(',', out);
		vtr_json_string(out, mn);
		putc(':', out);
		print_value(out, types[i], values, i);
	}
	fputs("}}", out);
	w->n->counters++;
}

static void on_metric(void *user, const struct vtr_location *loc, uint64_t time, uint32_t metric,
		      uint32_t n, const uint8_t *types, const void *values)
{
	struct writer *w = user;
	if (w->phase != INSIDE || n == 0)
		return;
	const struct vtr_metric_class *c =
	    metric < w->t->nmetric_classes && w->t->metric_classes[metric].defined
		? &w->t->metric_classes[metric]
		: NULL;
	time = clamp(w, loc->index, time);
	char name[256];
	/* A class of several named members (vt writes a thread's strict synchronous counters so):
	 * a track per member, as a Metric event of each alone would make. */
	bool split = c && n > 1 && n == c->nmembers;
	for (uint32_t i = 0; split && i < n; i++)
		split = member_name(w->t, c, i) != NULL;
	if (split) {
		for (uint32_t i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "%s (%s)", member_name(w->t, c, i), loc->name);
			counter(w, loc, time, name, c, i, 1, types, values);
		}
		return;
	}
	const char *first = member_name(w->t, c, 0);
	if (first && n == 1)
		snprintf(name, sizeof(name), "%s (%s)", first, loc->name);
	else
		snprintf(name, sizeof(name), "metric %" PRIu32 " (%s)", metric, loc->name);
	counter(w, loc, time, name, c, 0, n, types, values);
}

static bool inside(const struct writer *w, uint64_t time)
{
	return time >= w->from && time <= w->to;
}

static void on_message(void *user, const struct vtr_message *m)
{
	struct writer *w = user;
	if (!inside(w, m->send_begin) || !inside(w, m->recv_end))
		return;
	uint64_t id = ++w->n->flows;
	for (int end = 0; end < 2; end++) {
		const struct vtr_location *loc = end ? m->receiver : m->sender;
		fprintf(w->flows,
			",\n{\"ph\":\"%s\",\"id\":%" PRIu64 ",\"pid\":%" PRIu32
			",\"tid\":%zu,\"ts\":",
			end ? "f\",\"bp\":\"e" : "s", id, loc->group, loc->index);
		print_ts(w->flows, w->t, end ? m->recv_end : m->send_begin);
		fprintf(w->flows,
			",\"name\":\"MPI message\",\"cat\":\"mpi\",\"args\":{\"bytes\":%" PRIu64
			",\"tag\":%" PRIu32 ",\"comm\":%" PRIu32 "}}",
			m->bytes, m->tag, m->comm);
	}
}

/* ---- the thread model ---- */

static size_t pslot(uint64_t a, uint64_t b, size_t cap)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full;
	return (size_t)(h ^ h >> 31) & (cap - 1);
}

/* The entry of (a, b), made with add (else NULL when there is none). */
static struct pending *pmap_find(struct pmap *m, uint64_t a, uint64_t b, bool add)
{
	if (add && 2 * (m->n + 1) > m->cap) {
		struct pmap g = {.cap = m->cap ? 2 * m->cap : 64};
		g.e = vtr_xcalloc(g.cap, sizeof(*g.e));
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->e[i].used)
				continue;
			size_t j = pslot(m->e[i].a, m->e[i].b, g.cap);
			while (g.e[j].used)
				j = (j + 1) & (g.cap - 1);
			g.e[j] = m->e[i];
		}
		g.n = m->n;
		free(m->e);
		*m = g;
	}
	if (!m->cap)
		return NULL;
	size_t i = pslot(a, b, m->cap);
	for (; m->e[i].used; i = (i + 1) & (m->cap - 1))
		if (m->e[i].a == a && m->e[i].b == b)
			return &m->e[i];
	if (!add)
		return NULL;
	m->n++;
	m->e[i] = (struct pending){.a = a, .b = b, .used = true};
	return &m->e[i];
}

/* Removes p, moving the entries after it back where their probe allows (no tombstones). */
static void pmap_remove(struct pmap *m, struct pending *p)
{
	size_t i = (size_t)(p - m->e), mask = m->cap - 1;
	m->e[i].used = false;
	m->n--;
	for (size_t j = (i + 1) & mask; m->e[j].used; j = (j + 1) & mask) {
		size_t k = pslot(m->e[j].a, m->e[j].b, m->cap);
		/* j's entry may move to i unless its home k lies cyclically in (i, j] */
		bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (stays)
			continue;
		m->e[i] = m->e[j];
		m->e[j].used = false;
		i = j;
	}
}

static const char *paradigm_cat(uint32_t paradigm)
{
	return paradigm == OTF2_PARADIGM_OPENMP	   ? "openmp"
	       : paradigm == OTF2_PARADIGM_PTHREAD ? "pthread"
						   : "threads";
}

/* An instant event on the thread; args: the inside of its args object. */
static void instant(struct writer *w, const struct vtr_location *loc, uint64_t time,
		    const char *name, uint32_t paradigm, const char *args)
{
	if (w->phase != INSIDE)
		return;
	time = clamp(w, loc->index, time);
	sep(w);
	FILE *out = file(w);
	fprintf(out,
		"{\"ph\":\"i\",\"s\":\"t\",\"pid\":%" PRIu32 ",\"tid\":%zu,\"ts\":", loc->group,
		loc->index);
	print_ts(out, w->t, time);
	fprintf(out, ",\"name\":\"%s\",\"cat\":\"%s\",\"args\":{%s}}", name, paradigm_cat(paradigm),
		args);
	w->n->instants++;
}

/* How many members a team span's begin lists. */
#define TEAM_MEMBERS_SHOWN 64

/* One end of a team span: an async slice of the process, one per thread and team; its begin
 * names the team and its members (their tids). */
static void team_span(struct writer *w, const struct vtr_location *loc, uint64_t time,
		      const struct team *team, bool begin)
{
	time = clamp(w, loc->index, time);
	sep(w);
	FILE *out = file(w);
	fprintf(out, "{\"ph\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%zu,\"ts\":", begin ? "b" : "e",
		loc->group, loc->index);
	print_ts(out, w->t, time);
	fprintf(out, ",\"name\":\"OpenMP team\",\"cat\":\"openmp\",\"id\":\"0x%" PRIx64 "\"",
		team->id);
	const struct vtr_comm *c = team->comm < w->t->ncomms && w->t->comms[team->comm].defined
				       ? &w->t->comms[team->comm]
				       : NULL;
	if (begin && c) {
		fputs(",\"args\":{\"team\":", out);
		vtr_json_string(out, c->name);
		fprintf(out, ",\"size\":%" PRIu32 ",\"members\":[", c->size);
		for (uint32_t m = 0; m < c->size && m < TEAM_MEMBERS_SHOWN; m++) {
			if (c->location_of_member[m] == VTR_NONE)
				fprintf(out, "%snull", m ? "," : "");
			else
				fprintf(out, "%s%" PRIu32, m ? "," : "", c->location_of_member[m]);
		}
		fputs("]}", out);
	}
	putc('}', out);
	w->n->spans += begin;
}

/* A flow from (from, t0) to (to, t1), both inside the window; enclosing: the end binds to
 * the slice around it, else to the next slice that begins on its thread (a task's, a team's
 * parallel region, a thread's first). */
static void thread_flow(struct writer *w, const char *name, uint32_t paradigm, uint32_t from,
			uint64_t t0, const struct vtr_location *to, uint64_t t1, bool enclosing)
{
	if (!inside(w, t0) || !inside(w, t1) || from >= w->t->nlocations)
		return;
	const struct vtr_location *a = &w->t->locations[from];
	uint64_t id = ++w->n->flows;
	for (int end = 0; end < 2; end++) {
		const struct vtr_location *loc = end ? to : a;
		fprintf(
		    w->flows,
		    ",\n{\"ph\":\"%s\",\"id\":%" PRIu64 ",\"pid\":%" PRIu32 ",\"tid\":%zu,\"ts\":",
		    end ? (enclosing ? "f\",\"bp\":\"e" : "f") : "s", id, loc->group, loc->index);
		print_ts(w->flows, w->t, end ? t1 : t0);
		fprintf(w->flows, ",\"name\":\"%s\",\"cat\":\"%s\"}", name, paradigm_cat(paradigm));
	}
}

static struct forks *forks_of(struct writer *w, const struct vtr_location *loc)
{
	return &w->forks[loc->group < w->t->ngroups ? loc->group : w->t->ngroups];
}

static void team_begin(struct writer *w, const struct vtr_location *loc,
		       const struct vtr_thread_event *e)
{
	struct lstate *s = &w->locs[loc->index];
	if (s->nteams == s->capteams) {
		s->capteams = s->capteams ? 2 * s->capteams : 4;
		s->teams = vtr_xrealloc(s->teams, s->capteams, sizeof(*s->teams));
	}
	struct team *team = &s->teams[s->nteams++];
	*team = (struct team){.id = ++w->spans, .comm = e->comm};
	if (w->phase == INSIDE)
		team_span(w, loc, e->time, team, true);
	struct forks *f = forks_of(w, loc);
	if (f->n && f->f[f->n - 1].loc != loc->index)
		thread_flow(w, "fork", e->paradigm, f->f[f->n - 1].loc, f->f[f->n - 1].time, loc,
			    e->time, false);
}

static void team_end(struct writer *w, const struct vtr_location *loc, uint64_t time)
{
	struct lstate *s = &w->locs[loc->index];
	if (!s->nteams)
		return;
	const struct team *team = &s->teams[--s->nteams];
	if (w->phase == INSIDE)
		team_span(w, loc, time, team, false);
}

static void on_thread(void *user, const struct vtr_location *loc, const struct vtr_thread_event *e)
{
	struct writer *w = user;
	char args[128] = "";
	const char *name = vtr_event_names[e->kind];
	struct pending *p;
	struct forks *f;
	switch (e->kind) {
	case VTR_EV_ThreadFork:
		snprintf(args, sizeof(args), "\"threads\":%" PRIu32, e->threads);
		f = forks_of(w, loc);
		if (f->n == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 4;
			f->f = vtr_xrealloc(f->f, f->cap, sizeof(*f->f));
		}
		f->f[f->n].loc = (uint32_t)loc->index;
		f->f[f->n++].time = e->time;
		break;
	case VTR_EV_ThreadJoin:
		f = forks_of(w, loc);
		for (size_t i = f->n; i-- > 0;)
			if (f->f[i].loc == loc->index) {
				memmove(&f->f[i], &f->f[i + 1], (f->n - i - 1) * sizeof(*f->f));
				f->n--;
				break;
			}
		break;
	case VTR_EV_ThreadTeamBegin:
		team_begin(w, loc, e);
		return;
	case VTR_EV_ThreadTeamEnd:
		team_end(w, loc, e->time);
		return;
	case VTR_EV_ThreadTaskCreate:
	case VTR_EV_ThreadTaskSwitch:
	case VTR_EV_ThreadTaskComplete:
		snprintf(args, sizeof(args), "\"creator\":%" PRIu32 ",\"generation\":%" PRIu32,
			 e->creator, e->generation);
		p = pmap_find(&w->tasks, (uint64_t)e->comm << 32 | e->creator, e->generation,
			      e->kind == VTR_EV_ThreadTaskCreate);
		if (p && e->kind == VTR_EV_ThreadTaskCreate) {
			p->loc = (uint32_t)loc->index;
			p->time = e->time;
		} else if (p) {
			if (e->kind == VTR_EV_ThreadTaskSwitch)
				thread_flow(w, "task", e->paradigm, p->loc, p->time, loc, e->time,
					    false);
			pmap_remove(&w->tasks, p);
		}
		break;
	case VTR_EV_ThreadAcquireLock:
	case VTR_EV_ThreadReleaseLock:
		snprintf(args, sizeof(args), "\"lock\":%" PRIu32 ",\"order\":%" PRIu32, e->lock,
			 e->order);
		p = pmap_find(&w->locks, e->paradigm, e->lock, e->kind == VTR_EV_ThreadReleaseLock);
		if (e->kind == VTR_EV_ThreadReleaseLock) {
			p->loc = (uint32_t)loc->index;
			p->time = e->time;
		} else if (p && p->loc != loc->index) {
			thread_flow(w, "lock", e->paradigm, p->loc, p->time, loc, e->time, true);
		}
		break;
	case VTR_EV_ThreadCreate:
	case VTR_EV_ThreadBegin:
	case VTR_EV_ThreadWait:
	case VTR_EV_ThreadEnd:
		snprintf(args, sizeof(args), "\"sequence\":%" PRIu64, e->sequence);
		p = pmap_find(&w->threads, e->comm, e->sequence, e->kind == VTR_EV_ThreadCreate);
		if (p && e->kind == VTR_EV_ThreadCreate) {
			p->loc = (uint32_t)loc->index;
			p->time = e->time;
		} else if (p && e->kind == VTR_EV_ThreadBegin) {
			thread_flow(w, "thread", e->paradigm, p->loc, p->time, loc, e->time, false);
			pmap_remove(&w->threads, p);
		}
		break;
	default:
		return;
	}
	instant(w, loc, e->time, name, e->paradigm, args);
}

static void on_problem(void *user, const struct vtr_location *loc, enum vtr_problem kind,
		       bool has_time, uint64_t time, uint32_t region, const char *message)
{
	struct writer *w = user;
	(void)kind;
	(void)has_time;
	(void)time;
	(void)region;
	if (w->n->problems++ >= w->opt->max_warnings)
		return;
	if (loc)
		fprintf(w->warn, "vt-export: warning: location %" PRIu64 " \"%s\": %s\n", loc->id,
			loc->name, message);
	else
		fprintf(w->warn, "vt-export: warning: %s\n", message);
}

static uint64_t to_ticks(const struct vtr_trace *t, double seconds)
{
	if (seconds <= 0)
		return t->offset;
	double ticks = seconds * (double)(t->resolution ? t->resolution : 1);
	if (ticks >= (double)(UINT64_MAX - t->offset))
		return UINT64_MAX;
	return t->offset + (uint64_t)ticks;
}

static void metadata(struct writer *w)
{
	const struct vtr_trace *t = w->t;
	bool *named = vtr_xcalloc(t->ngroups + 1, sizeof(bool));
	for (size_t i = 0; i < t->nlocations; i++) {
		const struct vtr_location *loc = &t->locations[i];
		if (loc->group <= t->ngroups && !named[loc->group < t->ngroups ? loc->group : 0]) {
			named[loc->group < t->ngroups ? loc->group : 0] = true;
			sep(w);
			fprintf(w->out,
				"{\"ph\":\"M\",\"pid\":%" PRIu32
				",\"name\":\"process_name\",\"args\":{\"name\":",
				loc->group);
			vtr_json_string(w->out, loc->group_name[0] ? loc->group_name : "process");
			fputs("}}", w->out);
			sep(w);
			fprintf(w->out,
				"{\"ph\":\"M\",\"pid\":%" PRIu32
				",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%" PRIu32
				"}}",
				loc->group, loc->rank != VTR_NONE ? loc->rank : loc->group);
		}
		sep(w);
		fprintf(w->out,
			"{\"ph\":\"M\",\"pid\":%" PRIu32
			",\"tid\":%zu,\"name\":\"thread_name\",\"args\":{\"name\":",
			loc->group, loc->index);
		vtr_json_string(w->out, loc->name[0] ? loc->name : "location");
		fputs("}}", w->out);
		sep(w);
		fprintf(
		    w->out,
		    "{\"ph\":\"M\",\"pid\":%" PRIu32
		    ",\"tid\":%zu,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%zu}}",
		    loc->group, loc->index, loc->index);
	}
	free(named);
}

int vt_export_chrome(struct vtr_trace *t, const struct vt_export_options *opt, FILE *out,
		     FILE *warn, struct vt_export_counts *counts, char *err, size_t errlen)
{
	struct writer w = {
	    .t = t,
	    .opt = opt,
	    .out = out,
	    .warn = warn,
	    .n = counts,
	    .first = true,
	    .from = opt->window ? to_ticks(t, opt->from) : 0,
	    .to = opt->window && opt->to >= 0 ? to_ticks(t, opt->to) : UINT64_MAX,
	    .phase = BEFORE,
	};
	*counts = (struct vt_export_counts){0};
	w.flows = tmpfile();
	if (!w.flows) {
		snprintf(err, errlen, "cannot make a temporary file for the messages");
		return -1;
	}
	w.locs = vtr_xcalloc(t->nlocations + 1, sizeof(*w.locs));
	for (size_t i = 0; i < t->nlocations; i++) {
		struct lstate *s = &w.locs[i];
		int n =
		    snprintf(s->head, sizeof(s->head),
			     "\"pid\":%" PRIu32 ",\"tid\":%zu,\"ts\":", t->locations[i].group, i);
		s->head_len = (size_t)n;
	}
	w.us = UINT64_MAX; /* no timestamp formatted yet */
	w.names = vtr_xcalloc(t->nregions + 1, sizeof(*w.names));
	w.buf = vtr_xrealloc(NULL, OUTBUF, 1);
	fputs("{\"traceEvents\":[", out);
	metadata(&w);
	const struct vtr_callbacks cb = {
	    .event = on_event,
	    .enter = on_enter,
	    .leave = on_leave,
	    .metric = on_metric,
	    .message = on_message,
	    .thread = on_thread,
	    .problem = on_problem,
	};
	w.forks = vtr_xcalloc(t->ngroups + 1, sizeof(*w.forks));
	int rc = vtr_read_merged(t, &cb, &w);
	if (rc < 0)
		snprintf(err, errlen, "%s", t->err);
	if (rc == 0 && w.phase == INSIDE && w.to != UINT64_MAX)
		window_edge(&w, AFTER);
	/* The flows after the slices they bind to; "," leads each of them. */
	file(&w);
	if (rc == 0) {
		rewind(w.flows);
		char buf[1 << 16];
		size_t got;
		bool skip = w.first; /* no event before them: drop the first comma */
		while ((got = fread(buf, 1, sizeof(buf), w.flows)) > 0) {
			fwrite(buf + skip, 1, got - skip, out);
			skip = false;
		}
		if (ferror(w.flows)) {
			snprintf(err, errlen,
				 "cannot read back the temporary file of the messages");
			rc = -1;
		}
	}
	fclose(w.flows);
	for (size_t i = 0; i < t->nlocations; i++) {
		free(w.locs[i].stack);
		free(w.locs[i].teams);
	}
	free(w.locs);
	for (size_t i = 0; i <= t->ngroups; i++)
		free(w.forks[i].f);
	free(w.forks);
	free(w.tasks.e);
	free(w.threads.e);
	free(w.locks.e);
	for (size_t i = 0; i < t->nregions; i++)
		free(w.names[i].json);
	free(w.names);
	free(w.buf);
	if (rc < 0)
		return rc;
	fprintf(
	    out,
	    "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"vt-export " VT_VERSION
	    "\",\"trace\":");
	vtr_json_string(out, t->path);
	fprintf(out,
		",\"events_read\":%" PRIu64 ",\"slices\":%" PRIu64 ",\"counters\":%" PRIu64
		",\"flows\":%" PRIu64 ",\"instants\":%" PRIu64 ",\"spans\":%" PRIu64
		",\"problems\":%" PRIu64 "}}\n",
		counts->events, counts->slices, counts->counters, counts->flows, counts->instants,
		counts->spans, counts->problems);
	return 0;
}
