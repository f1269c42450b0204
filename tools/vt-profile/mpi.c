/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-profile --mpi: messages per pair of ranks and collectives per kind. */
/*
 * vt-profile --mpi: MPI statistics from the trace layer's matching (tools/lib, merged order):
 * per pair of ranks the messages sent and their bytes, and per collective kind the instances,
 * the time all members spent in them (each member's end - begin, summed) and the bytes the
 * members sent and received. Messages and collectives the layer could not match are problems.
 */
#include "mpi_stats.h"
#include "report.h"
#include "vtr_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* OTF2's collective operations: vtr_coll_op_names (tools/lib). */
#define NCOLL VTR_COLL_OPS

struct vt_prof_mpi_stats {
	struct vt_prof_mpi_pair *pairs;
	size_t npairs, cap;
	uint32_t *slots; /* open addressing over (from, to): pair index + 1 */
	size_t nslots;
	struct vt_prof_mpi_kind kinds[NCOLL + 1]; /* the last: ops this build does not know */
	uint64_t messages, bytes, collectives, problems;
	FILE *warn;
	const struct vtr_trace *t; /* the split reading's (split_message) */
};

static size_t slot_of(uint32_t from, uint32_t to, size_t nslots)
{
	uint64_t h = ((uint64_t)from << 32 | to) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 17) & (nslots - 1);
}

static void rehash(struct vt_prof_mpi_stats *m)
{
	size_t nslots = m->nslots ? 2 * m->nslots : 256;
	uint32_t *slots = vtr_xcalloc(nslots, sizeof(*slots));
	for (size_t i = 0; i < m->npairs; i++) {
		size_t s = slot_of(m->pairs[i].from, m->pairs[i].to, nslots);
		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = (uint32_t)i + 1;
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = nslots;
}

static struct vt_prof_mpi_pair *pair_of(struct vt_prof_mpi_stats *m, uint32_t from, uint32_t to)
{
	if (2 * m->npairs >= m->nslots)
		rehash(m);
	size_t s = slot_of(from, to, m->nslots);
	for (; m->slots[s]; s = (s + 1) & (m->nslots - 1)) {
		struct vt_prof_mpi_pair *p = &m->pairs[m->slots[s] - 1];
		if (p->from == from && p->to == to)
			return p;
	}
	if (m->npairs == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->pairs = vtr_xrealloc(m->pairs, m->cap, sizeof(*m->pairs));
	}
	m->pairs[m->npairs] = (struct vt_prof_mpi_pair){.from = from, .to = to};
	m->slots[s] = (uint32_t)++m->npairs;
	return &m->pairs[m->npairs - 1];
}

void vt_prof_mpi_add_pair(struct vt_prof_mpi_stats *m, const struct vt_prof_mpi_pair *add)
{
	struct vt_prof_mpi_pair *p = pair_of(m, add->from, add->to);
	p->count += add->count;
	p->bytes += add->bytes;
	m->messages += add->count;
	m->bytes += add->bytes;
}

void vt_prof_mpi_add_kind(struct vt_prof_mpi_stats *m, size_t kind,
			  const struct vt_prof_mpi_kind *add)
{
	struct vt_prof_mpi_kind *k = &m->kinds[kind < NCOLL ? kind : NCOLL];
	k->instances += add->instances;
	k->time += add->time;
	k->sent += add->sent;
	k->received += add->received;
	m->collectives += add->instances;
}

static void add_collective(struct vt_prof_mpi_stats *m, uint32_t op,
			   const struct vtr_coll_member *mem, uint32_t n)
{
	struct vt_prof_mpi_kind k = {.instances = 1};
	for (uint32_t i = 0; i < n; i++) {
		const struct vtr_coll_member *x = &mem[i];
		k.time += x->end > x->begin ? x->end - x->begin : 0;
		k.sent += x->sent;
		k.received += x->received;
	}
	vt_prof_mpi_add_kind(m, op, &k);
}

static void on_message(void *user, const struct vtr_message *msg)
{
	vt_prof_mpi_add_pair(user, &(struct vt_prof_mpi_pair){.from = msg->sender->rank,
							      .to = msg->receiver->rank,
							      .count = 1,
							      .bytes = msg->bytes});
}

static void on_collective(void *user, const struct vtr_collective *c)
{
	add_collective(user, c->op, c->members, c->n);
}

/* Only what merged reading adds: the stack's problems are the flat profile's to report. */
static void on_problem(void *user, const struct vtr_location *loc, enum vtr_problem kind,
		       bool has_time, uint64_t time, uint32_t region, const char *message)
{
	struct vt_prof_mpi_stats *m = user;
	(void)has_time;
	(void)time;
	(void)region;
	if (kind != VTR_UNMATCHED_MESSAGE && kind != VTR_UNMATCHED_COLLECTIVE)
		return;
	m->problems++;
	if (loc)
		fprintf(m->warn, "warning: location %" PRIu64 " \"%s\": %s\n", loc->id, loc->name,
			message);
	else
		fprintf(m->warn, "warning: %s\n", message);
}

static int cmp_pairs(const void *pa, const void *pb)
{
	const struct vt_prof_mpi_pair *a = pa, *b = pb;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return (a->to > b->to) - (a->to < b->to);
}

static const char *kind_name(size_t k)
{
	return vtr_coll_op_names[k < NCOLL ? k : NCOLL];
}

static void print_rank(FILE *out, uint32_t rank, int width, bool json)
{
	if (rank != VTR_NONE)
		fprintf(out, "%*" PRIu32, width, rank);
	else
		fprintf(out, "%*s", width, json ? "null" : "-");
}

static double secs(uint64_t ticks, uint64_t res)
{
	return res ? (double)ticks / (double)res : 0;
}

static void report_text(FILE *out, const struct vt_prof_trace *tr,
			const struct vt_prof_mpi_stats *m)
{
	uint64_t res = tr->timer_resolution;
	fprintf(out,
		"MPI profile of %s: %" PRIu64 " message%s, %" PRIu64 " bytes; %" PRIu64
		" collective%s\n\n",
		tr->path, m->messages, m->messages == 1 ? "" : "s", m->bytes, m->collectives,
		m->collectives == 1 ? "" : "s");
	fputs("point-to-point messages:\n", out);
	if (!m->npairs)
		fputs("  (none)\n", out);
	else
		fprintf(out, "  %6s  %6s  %10s  %14s\n", "from", "to", "messages", "bytes");
	for (size_t i = 0; i < m->npairs; i++) {
		const struct vt_prof_mpi_pair *p = &m->pairs[i];
		fputs("  ", out);
		print_rank(out, p->from, 6, false);
		fputs("  ", out);
		print_rank(out, p->to, 6, false);
		fprintf(out, "  %10" PRIu64 "  %14" PRIu64 "\n", p->count, p->bytes);
	}
	fputs("\ncollectives:\n", out);
	if (!m->collectives) {
		fputs("  (none)\n", out);
		return;
	}
	fprintf(out, "  %-22s  %10s  %14s  %14s  %14s\n", "kind", "instances", "time [s]", "sent",
		"received");
	for (size_t k = 0; k <= NCOLL; k++) {
		const struct vt_prof_mpi_kind *c = &m->kinds[k];
		if (!c->instances)
			continue;
		fprintf(out, "  %-22s  %10" PRIu64 "  %14.6f  %14" PRIu64 "  %14" PRIu64 "\n",
			kind_name(k), c->instances, secs(c->time, res), c->sent, c->received);
	}
}

static void report_csv(FILE *out, const struct vt_prof_trace *tr, const struct vt_prof_mpi_stats *m)
{
	uint64_t res = tr->timer_resolution;
	fputs("section,from,to,kind,count,bytes,received_bytes,time_ticks,time_s\n", out);
	for (size_t i = 0; i < m->npairs; i++) {
		const struct vt_prof_mpi_pair *p = &m->pairs[i];
		fputs("p2p,", out);
		print_rank(out, p->from, 0, false);
		fputc(',', out);
		print_rank(out, p->to, 0, false);
		fprintf(out, ",,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",,\n", p->count, p->bytes,
			p->bytes);
	}
	for (size_t k = 0; k <= NCOLL; k++) {
		const struct vt_prof_mpi_kind *c = &m->kinds[k];
		if (c->instances)
			fprintf(out,
				"collective,,,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%.9g\n",
				kind_name(k), c->instances, c->sent, c->received, c->time,
				secs(c->time, res));
	}
}

static void report_json(FILE *out, const struct vt_prof_trace *tr,
			const struct vt_prof_mpi_stats *m)
{
	fputs("{\n  \"trace\": ", out);
	vtr_json_string(out, tr->path);
	fprintf(out,
		",\n  \"timer_resolution\": %" PRIu64 ",\n  \"messages\": %" PRIu64
		",\n  \"bytes\": %" PRIu64 ",\n  \"collectives\": %" PRIu64
		",\n  \"problems\": %" PRIu64 ",\n  \"pairs\": [",
		tr->timer_resolution, m->messages, m->bytes, m->collectives, m->problems);
	for (size_t i = 0; i < m->npairs; i++) {
		const struct vt_prof_mpi_pair *p = &m->pairs[i];
		fprintf(out, "%s\n    {\"from\": ", i ? "," : "");
		print_rank(out, p->from, 0, true);
		fputs(", \"to\": ", out);
		print_rank(out, p->to, 0, true);
		fprintf(out, ", \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64 "}", p->count,
			p->bytes);
	}
	fputs(m->npairs ? "\n  ],\n  \"collective_kinds\": [" : "],\n  \"collective_kinds\": [",
	      out);
	bool first = true;
	for (size_t k = 0; k <= NCOLL; k++) {
		const struct vt_prof_mpi_kind *c = &m->kinds[k];
		if (!c->instances)
			continue;
		fprintf(out,
			"%s\n    {\"kind\": \"%s\", \"instances\": %" PRIu64
			", \"time_ticks\": %" PRIu64 ", \"sent\": %" PRIu64
			", \"received\": %" PRIu64 "}",
			first ? "" : ",", kind_name(k), c->instances, c->time, c->sent,
			c->received);
		first = false;
	}
	fputs(first ? "]\n}\n" : "\n  ]\n}\n", out);
}

void vt_prof_mpi_print(struct vt_prof_mpi_stats *m, const struct vt_prof_trace *tr,
		       const struct vt_prof_options *opt, FILE *out, uint64_t problems)
{
	m->problems = problems;
	if (m->npairs)
		qsort(m->pairs, m->npairs, sizeof(*m->pairs), cmp_pairs);
	/* The pairs' index is stale once sorted: rebuilt for any pair added later. */
	free(m->slots);
	m->slots = NULL;
	m->nslots = 0;
	rehash(m);
	switch (opt->format) {
	case VT_PROF_TEXT:
		report_text(out, tr, m);
		break;
	case VT_PROF_CSV:
		report_csv(out, tr, m);
		break;
	case VT_PROF_JSON:
		report_json(out, tr, m);
		break;
	}
}

struct vt_prof_mpi_stats *vt_prof_mpi_new(const struct vtr_trace *t)
{
	struct vt_prof_mpi_stats *m = vtr_xcalloc(1, sizeof(*m));
	m->t = t;
	rehash(m);
	return m;
}

void vt_prof_mpi_free(struct vt_prof_mpi_stats *m)
{
	if (!m)
		return;
	free(m->pairs);
	free(m->slots);
	free(m);
}

const struct vt_prof_mpi_pair *vt_prof_mpi_pairs(const struct vt_prof_mpi_stats *m, size_t *n)
{
	*n = m->npairs;
	return m->pairs;
}

const struct vt_prof_mpi_kind *vt_prof_mpi_kinds(const struct vt_prof_mpi_stats *m)
{
	return m->kinds;
}

/* The split matching's ends: the sender's and receiver's world ranks, the send's bytes (the
 * serial matching's: vtr_match.c). */
static void split_message(void *user, const struct vt_prof_wmsg *s, const struct vt_prof_wmsg *r,
			  uint64_t late_sender)
{
	struct vt_prof_mpi_stats *m = user;
	(void)late_sender;
	vt_prof_mpi_add_pair(m, &(struct vt_prof_mpi_pair){.from = m->t->locations[s->loc].rank,
							   .to = m->t->locations[r->loc].rank,
							   .count = 1,
							   .bytes = s->bytes});
}

static void split_collective(void *user, const struct vtr_coll_member *mem, const uint32_t *paths,
			     uint32_t n, uint32_t op, uint32_t root, int pattern,
			     const uint64_t *wait)
{
	(void)paths;
	(void)root;
	(void)pattern;
	(void)wait;
	add_collective(user, op, mem, n);
}

const struct vt_prof_wsplit_cp *vt_prof_mpi_split_callbacks(void)
{
	static const struct vt_prof_wsplit_cp cb = {split_message, split_collective};
	return &cb;
}

int vt_prof_report_mpi(const struct vt_prof_trace *tr, const struct vt_prof_options *opt, FILE *out,
		       FILE *warn, uint64_t *problems, char *err, size_t errlen)
{
	struct vt_prof_mpi_stats *m = vt_prof_mpi_new(tr->layer);
	m->warn = warn;
	const struct vtr_callbacks cb = {
	    .message = on_message, .collective = on_collective, .problem = on_problem};
	int rc = vtr_read_merged(tr->layer, &cb, m);
	if (rc < 0)
		snprintf(err, errlen, "%s", tr->layer->err);
	else
		vt_prof_mpi_print(m, tr, opt, out, m->problems);
	*problems = m->problems;
	vt_prof_mpi_free(m);
	return rc;
}
