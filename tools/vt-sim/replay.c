/* SPDX-License-Identifier: BSD-3-Clause */
/* Pass 1 of vt-sim: each location's events replayed through the simulators, in causal order. */
#include "replay.h"
#include "vtr_cli.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

/*
 * How times move. Every location keeps "now", the new time of its last event, and the
 * original time of that event: an event's new time is now plus the original gap before it.
 * Where a region ends, the simulators may move the end; the causal rules may move it later
 * (a receive does not end before its send started; a collective member does not leave before
 * the members it waits for entered). Everything after it on that location moves with it.
 *
 * Events arrive in the original merged time order. A location's events wait in its queue
 * while the end they come after cannot be decided yet: a receive whose send has not been
 * replayed, a collective whose members have not all reached their end. Dependencies point
 * backwards in original time, so every wait ends; the queues hold the events of such a wait
 * only, and memory is bounded by the locations and the messages and collectives open.
 * Events inside an MPI call wait for the call's end too (their times are clamped to it).
 */

static const char *region_name(const struct replay *rp, uint32_t r)
{
	if (r == VT_SIM_NONTRACING)
		return "<non-tracing>";
	return r < rp->tr->nregions ? rp->tr->regions[r].name : "<unknown region>";
}

__attribute__((format(printf, 2, 3))) static void fail(struct replay *rp, const char *fmt, ...)
{
	if (rp->failed)
		return;
	rp->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	vtr_progress_clear();
	fprintf(stderr, "%s: ", vts_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* A simulator set an end below its start. */
static void below(struct replay *rp, const struct vts_sim *s, const char *call, uint32_t loc,
		  uint32_t region, const char *which, uint64_t start, uint64_t end)
{
	fail(rp,
	     "simulator '%s' set the %s of '%s' on location %u (%s) to %" PRIu64
	     ", below its start %" PRIu64 " (in %s); no output written",
	     s->name, which, region_name(rp, region), loc, rp->tr->locations[loc].name, end, start,
	     call);
}

void vts_unref(struct msg *m)
{
	if (--m->refs == 0)
		free(m);
}

void vts_coll_free(struct replay *rp, struct coll *c)
{
	for (struct coll **pp = &rp->colls; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	free(c->m);
	free(c);
}

/* ---- the per-location replay ---- */

void vts_push_work(struct replay *rp, uint32_t loc)
{
	struct loc *l = &rp->locs[loc];
	if (l->queued)
		return;
	l->queued = true;
	rp->work[rp->nwork++] = loc;
}

/* The new time of an event: written now, or held until the MPI call it is in ends. */
static void out(struct replay *rp, struct loc *l, uint64_t t)
{
	l->last_out = t;
	if (l->mpi_depth) {
		if (l->nheld == l->capheld) {
			l->capheld = l->capheld ? 2 * l->capheld : 64;
			l->held = vtr_xrealloc(l->held, l->capheld, sizeof(*l->held));
		}
		l->held[l->nheld++] = t;
		return;
	}
	vts_spool_put(rp->spool, l->index, t);
}

static void totals_add(struct replay *rp, struct vts_totals *tt, uint32_t loc, uint32_t region,
		       uint64_t start, uint64_t end, uint64_t child)
{
	(void)rp;
	double incl = (double)(end - start), excl = incl - (double)child;
	if (excl < 0)
		excl = 0;
	tt->region_excl[region] += excl;
	if (rp->cls[region] & VT_SIM_MPI)
		tt->loc_mpi[loc] += excl;
	else
		tt->loc_busy[loc] += excl;
}

void vts_span(struct vts_totals *tt, uint64_t t)
{
	if (!tt->any || t < tt->first)
		tt->first = t;
	if (!tt->any || t > tt->last)
		tt->last = t;
	tt->any = true;
}

static struct vt_sim_event event_of(struct loc *l, const struct frame *f, uint64_t end)
{
	struct vt_sim_event ev = {.size = sizeof(ev),
				  .thread = l->index,
				  .func = f->region,
				  .start = f->n_start,
				  .end = end};
	uint64_t incl = end - f->n_start;
	ev.exclusive = incl > f->child ? incl - f->child : 0;
	return ev;
}

/* Completes a Leave at its decided end. */
static void leave_at(struct replay *rp, struct loc *l, struct frame *f, uint64_t o, uint64_t end)
{
	if (end < l->last_out && !f->mpi)
		end = l->last_out; /* an application region cannot end before its children */
	if (f->mpi) {
		/* The events inside the call move to no later than its end. */
		for (size_t i = f->hold_from; i < l->nheld; i++)
			if (l->held[i] > end)
				l->held[i] = end;
		if (--l->mpi_depth == 0) {
			for (size_t i = 0; i < l->nheld; i++)
				vts_spool_put(rp->spool, l->index, l->held[i]);
			l->nheld = 0;
		}
	}
	out(rp, l, end);
	totals_add(rp, &rp->res->after, l->index, f->region, f->n_start, end, f->child);
	totals_add(rp, &rp->res->before, l->index, f->region, f->o_start, o, f->o_child);
	l->depth--;
	if (l->depth) {
		l->stack[l->depth - 1].child += end - f->n_start;
		l->stack[l->depth - 1].o_child += o - f->o_start;
	}
	for (size_t i = 0; i < f->nmsgs; i++)
		vts_unref(f->msgs[i]);
	f->nmsgs = 0;
	if (f->isend) {
		vts_unref(f->isend);
		f->isend = NULL;
	}
	if (f->ssend) {
		f->ssend->send_ended = true;
		f->ssend->n_send_end = end;
		vts_unref(f->ssend);
		f->ssend = NULL;
	}
	f->coll = NULL;
	l->now = end;
	l->last_orig = o;
}

/* Decided from the members' data alone, so that every process holding a member decides the same
 * ends (dist.c). */
void vts_coll_resolve(struct replay *rp, struct coll *c)
{
	uint32_t n = c->n;
	struct vt_sim_event *ev = vtr_xcalloc(n, sizeof(*ev));
	uint64_t *dep_n = vtr_xcalloc(n, sizeof(uint64_t));
	bool one2all = c->op == OTF2_COLLECTIVE_OP_BCAST || c->op == OTF2_COLLECTIVE_OP_SCATTER ||
		       c->op == OTF2_COLLECTIVE_OP_SCATTERV;
	bool all2one = c->op == OTF2_COLLECTIVE_OP_GATHER || c->op == OTF2_COLLECTIVE_OP_GATHERV ||
		       c->op == OTF2_COLLECTIVE_OP_REDUCE;
	bool rooted = (one2all || all2one) && c->root < n;
	uint64_t first = UINT64_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (c->m[i].n_start < first)
			first = c->m[i].n_start;
	for (uint32_t i = 0; i < n; i++) {
		struct coll_member *m = &c->m[i];
		/* Whom member i waits for: everyone, the root, or no one. */
		uint64_t dn = m->n_start, dor = m->o_start;
		for (uint32_t j = 0; j < n; j++) {
			bool dep = rooted ? (one2all ? j == c->root : i == c->root) : true;
			if (c->op == OTF2_COLLECTIVE_OP_SCAN || c->op == OTF2_COLLECTIVE_OP_EXSCAN)
				dep = j <= i;
			/* A member that entered after this one left in IN is no dependency
			 * (neighbourhood collectives, clock skew). */
			if (!dep || c->m[j].o_start > m->o_end)
				continue;
			if (c->m[j].n_start > dn)
				dn = c->m[j].n_start;
			if (c->m[j].o_start > dor)
				dor = c->m[j].o_start;
		}
		dep_n[i] = dn;
		uint64_t def =
		    m->o_end >= dor ? dn + (m->o_end - dor) : m->now + (m->o_end - m->last_orig);
		if (def < m->n_start)
			def = m->n_start;
		uint64_t incl = def - m->n_start;
		ev[i] = (struct vt_sim_event){.size = sizeof(ev[i]),
					      .thread = m->loc,
					      .func = m->region,
					      .start = m->n_start,
					      .end = def,
					      .exclusive = incl > m->child ? incl - m->child : 0};
		ev[i].sent = m->sent;
		ev[i].received = m->received;
	}
	c->func = c->m[0].region; /* the same call at every member, but for odd traces */
	struct vt_sim_coll co = {.size = sizeof(co),
				 .first_time = first,
				 .comm = c->comm,
				 .func = c->func,
				 .root = rooted ? c->m[c->root].loc : UINT32_MAX,
				 .root_index = rooted ? c->root : UINT32_MAX,
				 .n = n,
				 .members = ev};
	for (int s = 0; s < rp->nsims && !rp->failed; s++) {
		CALL(rp, &rp->sims[s], process_coll_op, c->m[0].loc, c->func, first, &co);
		for (uint32_t i = 0; i < n && !rp->failed; i++)
			if (ev[i].end < ev[i].start)
				below(rp, &rp->sims[s], "process_coll_op", c->m[i].loc, c->func,
				      "end", ev[i].start, ev[i].end);
	}
	for (uint32_t i = 0; i < n && !rp->failed; i++) {
		if (!c->m[i].here)
			continue; /* another process's */
		struct loc *l = &rp->locs[c->m[i].loc];
		uint64_t end = ev[i].end > dep_n[i] ? ev[i].end : dep_n[i];
		l->coll_end = end;
		l->coll_done = true;
		l->blocked_coll = false;
		vts_push_work(rp, c->m[i].loc);
	}
	if (c->m[0].here) /* counted once, by member 0's process */
		rp->res->collectives++;
	free(ev);
	free(dep_n);
}

/* The end of an MPI call or region: 1 done, 0 must wait. */
static int leave(struct replay *rp, struct loc *l, uint64_t o)
{
	struct frame *f = &l->stack[l->depth - 1];
	uint64_t t = l->now + (o - l->last_orig) - l->cut_now;
	uint32_t fc = f->region < rp->tr->nregions ? rp->cls[f->region] : 0;
	if (f->coll) {
		struct coll *c = f->coll;
		if (l->coll_done) {
			l->coll_done = false;
			uint64_t end = l->coll_end;
			if (--c->arrived == 0)
				vts_coll_free(rp, c);
			leave_at(rp, l, f, o, end);
			return 1;
		}
		if (l->blocked_coll)
			return 0;
		struct coll_member *m = &c->m[f->coll_index];
		m->n_start = f->n_start;
		m->o_start = f->o_start;
		m->o_end = o;
		m->region = f->region;
		m->child = f->child;
		m->now = l->now;
		m->last_orig = l->last_orig;
		l->blocked_coll = true;
		if (c->remote)
			rp->remote_coll(rp, c, f->coll_index);
		if (++c->ready == c->n)
			vts_coll_resolve(rp, c);
		return 0;
	}
	/* A receive: its sends must have been replayed. Messages whose send never came (only
	 * when the trace ends) are no messages: without any, the call is a plain one. */
	size_t nsent = 0;
	for (size_t i = 0; i < f->nmsgs; i++) {
		if (!f->msgs[i]->send_done)
			return 0;
		nsent += f->msgs[i]->have_send;
	}
	if (nsent) {
		struct vt_sim_p2p *p = vtr_xcalloc(nsent, sizeof(*p));
		struct vt_sim_p2p **pp = vtr_xcalloc(nsent, sizeof(*pp));
		uint64_t *floor = vtr_xcalloc(nsent, sizeof(uint64_t));
		for (size_t j = 0, i = 0; j < f->nmsgs; j++) {
			struct msg *m = f->msgs[j];
			if (!m->have_send)
				continue;
			bool backwards = m->o_send_start > o;
			uint64_t dor = f->o_start > m->o_send_start ? f->o_start : m->o_send_start;
			uint64_t dn = f->n_start > m->n_send_start ? f->n_start : m->n_send_start;
			uint64_t def = backwards || o < dor ? t : dn + (o - dor);
			p[i] = (struct vt_sim_p2p){.size = sizeof(p[i]),
						   .send_start = m->n_send_start,
						   .send_end = m->send_ended ? m->n_send_end : 0,
						   .recv_start = f->n_start,
						   .recv_end = def,
						   .irecv_start = f->irecv_start[j],
						   .backwards = backwards,
						   .sender = m->sloc,
						   .receiver = l->index,
						   .comm = m->comm,
						   .tag = m->tag,
						   .bytes = m->bytes,
						   .send_func = m->send_func,
						   .recv_func = f->region};
			floor[i] = backwards ? f->n_start : dn;
			pp[i] = &p[i];
			i++;
		}
		for (int s = 0; s < rp->nsims && !rp->failed; s++) {
			struct vts_sim *sim = &rp->sims[s];
			const char *call;
			if (f->recv_nb) {
				call = "process_p2p_waitallsome";
				CALL(rp, sim, process_p2p_waitallsome, l->index, f->region,
				     f->n_start, pp, (uint32_t)nsent);
			} else {
				call = "process_p2p";
				for (size_t i = 0; i < nsent; i++)
					CALL(rp, sim, process_p2p, l->index, f->region, f->n_start,
					     &p[i]);
			}
			for (size_t i = 0; i < nsent && !rp->failed; i++)
				if (p[i].recv_end < p[i].recv_start)
					below(rp, sim, call, l->index, f->region, "receive end",
					      p[i].recv_start, p[i].recv_end);
		}
		uint64_t end = f->n_start;
		for (size_t i = 0; i < nsent; i++) {
			uint64_t e = p[i].recv_end > floor[i] ? p[i].recv_end : floor[i];
			if (e > end)
				end = e;
		}
		rp->res->messages += nsent;
		free(p);
		free(pp);
		free(floor);
		if (!rp->failed)
			leave_at(rp, l, f, o, end);
		return 1;
	}
	uint64_t floor = f->n_start;
	if (f->ssend) {
		/* A synchronous send completes once its receive started: as long after the later
		 * of the two starts as it did, unless the simulators say otherwise. */
		struct msg *m = f->ssend;
		if (!m->recv_seen)
			return 0;
		if (m->o_recv_start <= o) {
			uint64_t dor = f->o_start > m->o_recv_start ? f->o_start : m->o_recv_start;
			uint64_t dn = f->n_start > m->n_recv_start ? f->n_start : m->n_recv_start;
			t = dn + (o - dor);
			floor = dn;
		}
	}
	if (t < f->n_start)
		t = f->n_start;
	struct vt_sim_event ev = event_of(l, f, t);
	if (f->isend) {
		struct msg *m = f->isend;
		ev.sent = m->bytes;
		struct vt_sim_p2p p = {.size = sizeof(p),
				       .send_start = f->n_start,
				       .send_end = t,
				       .sender = l->index,
				       .receiver = m->rloc,
				       .comm = m->comm,
				       .tag = m->tag,
				       .bytes = m->bytes,
				       .send_func = f->region};
		for (int s = 0; s < rp->nsims && !rp->failed; s++) {
			uint64_t before_ev = ev.end, before_p = p.send_end;
			CALL(rp, &rp->sims[s], process_nonblocking_send, l->index, f->region,
			     f->n_start, &ev, &p);
			if (ev.end == before_ev && p.send_end != before_p)
				ev.end = p.send_end;
			p.send_end = ev.end;
			if (ev.end < ev.start)
				below(rp, &rp->sims[s], "process_nonblocking_send", l->index,
				      f->region, "end", ev.start, ev.end);
		}
	} else {
		for (int s = 0; s < rp->nsims && !rp->failed; s++) {
			if (fc & VT_SIM_MPI)
				CALL(rp, &rp->sims[s], process_mpi_function_event, l->index,
				     f->region, f->n_start, &ev);
			else
				CALL(rp, &rp->sims[s], process_function_event, l->index, f->region,
				     f->n_start, &ev);
			if (ev.end < ev.start)
				below(rp, &rp->sims[s],
				      fc & VT_SIM_MPI ? "process_mpi_function_event"
						      : "process_function_event",
				      l->index, f->region, "end", ev.start, ev.end);
		}
	}
	if (!rp->failed)
		leave_at(rp, l, f, o, ev.end > floor ? ev.end : floor);
	return 1;
}

/* A non-tracing period ends at new time start + (o - last_orig), or where the sims say. */
static uint64_t nontracing(struct replay *rp, struct loc *l, uint64_t start, uint64_t def)
{
	struct vt_sim_event ev = {.size = sizeof(ev),
				  .thread = l->index,
				  .func = VT_SIM_NONTRACING,
				  .start = start,
				  .end = def,
				  .exclusive = def - start};
	for (int s = 0; s < rp->nsims && !rp->failed; s++) {
		CALL(rp, &rp->sims[s], process_nontracing_event, l->index, VT_SIM_NONTRACING, start,
		     &ev);
		if (ev.end < ev.start)
			below(rp, &rp->sims[s], "process_nontracing_event", l->index,
			      VT_SIM_NONTRACING, "end", ev.start, ev.end);
	}
	return ev.end;
}

struct frame *vts_top(struct loc *l)
{
	return l->depth ? &l->stack[l->depth - 1] : NULL;
}

/* One event at the head of a location's queue: 1 done, 0 must wait. */
static int step_at(struct replay *rp, struct loc *l, const struct qev *e)
{
	uint64_t t = l->now + (e->t - l->last_orig) - l->cut_now;
	struct frame *f = vts_top(l);
	switch (e->kind) {
	case Q_ENTER: {
		if (l->depth == l->cap) {
			size_t old = l->cap;
			l->cap = l->cap ? 2 * l->cap : 32;
			l->stack = vtr_xrealloc(l->stack, l->cap, sizeof(*l->stack));
			memset(l->stack + old, 0, (l->cap - old) * sizeof(*l->stack));
		}
		f = &l->stack[l->depth++];
		f->region = e->arg;
		f->n_start = t;
		f->o_start = e->t;
		f->child = f->o_child = 0;
		f->nmsgs = 0;
		f->isend = NULL;
		f->ssend = NULL;
		f->coll = NULL;
		f->recv_nb = false;
		out(rp, l, t);
		f->mpi = e->arg < rp->tr->nregions && (rp->cls[e->arg] & VT_SIM_MPI);
		if (f->mpi && l->mpi_depth++ == 0)
			f->hold_from = 0;
		else
			f->hold_from = l->nheld;
		l->now = t;
		l->last_orig = e->t;
		return 1;
	}
	case Q_LEAVE:
		if (!f)
			break;
		return leave(rp, l, e->t);
	case Q_SEND:
	case Q_ISEND: {
		struct msg *m = e->p;
		m->n_send_start = f ? f->n_start : t;
		m->o_send_start = f ? f->o_start : e->t;
		m->send_func = f ? f->region : VTR_NONE;
		m->send_done = true;
		if (m->remote)
			rp->remote_msg(rp, m, true);
		if (m->rloc != VTR_NONE && m->have_recv)
			vts_push_work(rp, m->rloc);
		if (e->kind == Q_ISEND && f && !f->isend) {
			f->isend = m;
			m->refs++;
		} else if (e->kind == Q_SEND && f && !f->ssend && f->region < rp->tr->nregions &&
			   (rp->cls[f->region] & VT_SIM_SYNC_SEND)) {
			f->ssend = m;
			m->refs++;
		}
		vts_unref(m);
		break;
	}
	case Q_RECV:
	case Q_IRECV: {
		struct msg *m = e->p;
		if (!f) {
			vts_unref(m);
			break;
		}
		if (f->nmsgs == f->capmsgs) {
			f->capmsgs = f->capmsgs ? 2 * f->capmsgs : 4;
			f->msgs = vtr_xrealloc(f->msgs, f->capmsgs, sizeof(*f->msgs));
			f->irecv_start = vtr_xrealloc(f->irecv_start, f->capmsgs, sizeof(uint64_t));
		}
		uint64_t irs = 0, o_irs = 0;
		bool have_irs = false;
		if (e->kind == Q_IRECV) {
			f->recv_nb = true;
			for (size_t i = 0; i < l->nreqs; i++)
				if (l->reqs[i].req == e->req) {
					irs = l->reqs[i].n_time;
					o_irs = l->reqs[i].o_time;
					have_irs = true;
					l->reqs[i] = l->reqs[--l->nreqs];
					break;
				}
		}
		/* The receive's start, for a synchronous send waiting for it. */
		m->recv_seen = true;
		m->n_recv_start = have_irs ? irs : f->n_start;
		m->o_recv_start = have_irs ? o_irs : f->o_start;
		if (m->remote)
			rp->remote_msg(rp, m, false);
		if (m->sloc != VTR_NONE && m->have_send)
			vts_push_work(rp, m->sloc);
		f->irecv_start[f->nmsgs] = irs;
		f->msgs[f->nmsgs++] = m; /* the frame holds the receiver's reference */
		break;
	}
	case Q_IRECV_REQ:
		if (l->nreqs == l->capreqs) {
			l->capreqs = l->capreqs ? 2 * l->capreqs : 8;
			l->reqs = vtr_xrealloc(l->reqs, l->capreqs, sizeof(*l->reqs));
		}
		l->reqs[l->nreqs++] = (struct req){e->req, t, e->t};
		break;
	case Q_COLL_END:
		if (f && !f->coll) {
			f->coll = e->p;
			f->coll_index = e->arg;
		}
		break;
	case Q_ONOFF:
		if (e->arg == OTF2_MEASUREMENT_OFF) {
			l->off = true;
		} else if (l->off) {
			l->off = false;
			t = nontracing(rp, l, l->now, t);
		}
		break;
	case Q_METRIC:
		rp->res->metrics++;
		break;
	default:
		break;
	}
	out(rp, l, t);
	l->now = t;
	l->last_orig = e->t;
	return 1;
}

/* The same, the gap before the event shortened by the cuts due at its time (at most to
 * nothing); they count as taken once the event is replayed, not while it waits. */
static int step(struct replay *rp, struct loc *l, const struct qev *e)
{
	if (!l->started) {
		l->started = true;
		l->now = nontracing(rp, l, rp->trace_start, e->t);
		l->last_orig = e->t;
		l->last_out = l->now;
	}
	size_t k = l->cut_next;
	uint64_t cut = 0;
	while (k < l->ncut && l->cut[k].o <= e->t)
		cut += l->cut[k++].amount;
	if (cut > e->t - l->last_orig)
		cut = e->t - l->last_orig;
	l->cut_now = cut;
	int done = step_at(rp, l, e);
	if (done) {
		l->cut_next = k;
		rp->res->cut += cut;
	}
	l->cut_now = 0;
	return done;
}

/* Replays a location's queue as far as it can. */
void vts_pump(struct replay *rp, struct loc *l)
{
	while (l->qlen && !rp->failed) {
		if (!step(rp, l, &l->q[l->qhead]))
			return;
		rp->res->events++;
		l->qhead = (l->qhead + 1) & (l->qcap - 1);
		l->qlen--;
	}
}

void vts_drain(struct replay *rp)
{
	while (rp->nwork && !rp->failed) {
		uint32_t i = rp->work[--rp->nwork];
		rp->locs[i].queued = false;
		vts_pump(rp, &rp->locs[i]);
	}
}

/* e behind the location's queue (a power of two long, in a ring). */
static void queue(struct replay *rp, struct loc *l, const struct qev *e)
{
	if (l->qlen == l->qcap) {
		size_t cap = l->qcap ? 2 * l->qcap : 64;
		struct qev *q = vtr_xcalloc(cap, sizeof(*q));
		for (size_t i = 0; i < l->qlen; i++)
			q[i] = l->q[(l->qhead + i) & (l->qcap - 1)];
		free(l->q);
		l->q = q;
		l->qhead = 0;
		l->qcap = cap;
	}
	l->q[(l->qhead + l->qlen++) & (l->qcap - 1)] = *e;
	if (l->qlen > rp->res->max_queued)
		rp->res->max_queued = l->qlen;
}

/*
 * An event read: queued on its location, then everything replayed that can be. Most events
 * find their location's queue empty and nothing else to do: they are replayed at once, as the
 * queue would have replayed them, without passing through it (the replay's hottest path).
 */
void vts_enqueue(struct replay *rp, struct loc *l, const struct qev *e)
{
	if (!l->qlen && !rp->nwork && !rp->failed) {
		if (!rp->res->max_queued)
			rp->res->max_queued = 1;
		if (step(rp, l, e))
			rp->res->events++;
		else
			queue(rp, l, e); /* it waits: first in the queue */
		if (rp->nwork)
			vts_drain(rp); /* the locations it unblocked */
		return;
	}
	queue(rp, l, e);
	vts_push_work(rp, l->index);
	vts_drain(rp);
}
