/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-export's Chrome trace-event writer, streamed in time order. */
/*
 * The Chrome trace-event format (what Perfetto's UI and chrome://tracing open), written while
 * the trace is read in time order: processes are location groups (ranks), threads are
 * locations, regions B/E pairs, metric events counter ("C") events, matched MPI messages flow
 * events ("s" on the sender, "f" on the receiver). Memory is the trace layer's (bounded by
 * the definitions and the open stacks), never the number of events: flows, known only once
 * both ends are read, go to a temporary file that is appended after the other events.
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

/* Regions open when the window opens begin at its start; those open at its end end there. */
static void window_edge(struct writer *w, enum phase to)
{
	for (size_t i = 0; i < w->t->nlocations; i++) {
		struct lstate *s = &w->locs[i];
		const struct vtr_location *loc = &w->t->locations[i];
		if (to == INSIDE)
			for (size_t d = 0; d < s->depth; d++)
				slice(w, loc, w->from, s->stack[d], true);
		else
			for (size_t d = s->depth; d-- > 0;)
				slice(w, loc, w->to, s->stack[d], false);
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
	sep(w);
	FILE *out = file(w);
	/* Counter tracks are per process in this format: the location in the name keeps the
	 * threads' tracks apart. */
	fprintf(out, "{\"ph\":\"C\",\"pid\":%" PRIu32 ",\"tid\":%zu,\"ts\":", loc->group,
		loc->index);
	print_ts(out, w->t, time);
	char name[256];
	const char *first = member_name(w->t, c, 0);
	if (first && n == 1)
		snprintf(name, sizeof(name), "%s (%s)", first, loc->name);
	else
		snprintf(name, sizeof(name), "metric %" PRIu32 " (%s)", metric, loc->name);
	fputs(",\"name\":", out);
	vtr_json_string(out, name);
	fputs(",\"cat\":\"metric\",\"args\":{", out);
	for (uint32_t i = 0; i < n; i++) {
		const char *mn = member_name(w->t, c, i);
		char buf[32];
		if (!mn) {
			snprintf(buf, sizeof(buf), "value %" PRIu32, i);
			mn = buf;
		}
		/* Duplicate keys would be lost in a JSON object: the index tells them apart. */
		bool dup = false;
		for (uint32_t j = 0; j < i && !dup; j++) {
			const char *other = member_name(w->t, c, j);
			dup = other && strcmp(other, mn) == 0;
		}
		if (dup) {
			snprintf(buf, sizeof(buf), "value %" PRIu32, i);
			mn = buf;
		}
		if (i)
			putc(',', out);
		vtr_json_string(out, mn);
		putc(':', out);
		print_value(out, types[i], values, i);
	}
	fputs("}}", out);
	w->n->counters++;
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
	    .problem = on_problem,
	};
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
	for (size_t i = 0; i < t->nlocations; i++)
		free(w.locs[i].stack);
	free(w.locs);
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
		",\"flows\":%" PRIu64 ",\"problems\":%" PRIu64 "}}\n",
		counts->events, counts->slices, counts->counters, counts->flows, counts->problems);
	return 0;
}
