/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim's pass 1 driver: tools/lib's merged, matched events into the locations' replay queues. */
#include "replay.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

/* The location a message to member of comm is expected on (the first of its rank's). */
static uint32_t loc_of_member(struct replay *rp, uint32_t comm, uint32_t member)
{
	const struct vtr_trace *tr = rp->tr;
	if (comm >= tr->ncomms || member >= tr->comms[comm].size)
		return VTR_NONE;
	uint32_t w = tr->comms[comm].rank_of_member[member];
	return w < rp->nranks ? rp->rank_loc[w] : VTR_NONE;
}

/* The message of an end the matching handed over: the one its other end made, or a new one,
 * open until that end comes. */
static struct msg *msg_of(struct replay *rp, const struct vtr_record *r)
{
	struct msg *m = r->match ? *r->match : NULL;
	if (m) {
		/* both ends known: no longer open */
		if (m->prev)
			m->prev->next = m->next;
		else
			rp->open = m->next;
		if (m->next)
			m->next->prev = m->prev;
		m->prev = m->next = NULL;
		rp->open_msgs--;
		return m;
	}
	m = vtr_xcalloc(1, sizeof(*m));
	*m = (struct msg){
	    .comm = r->comm, .tag = r->tag, .refs = 2, .sloc = VTR_NONE, .rloc = VTR_NONE};
	if (r->match)
		*r->match = m;
	if (rp->made)
		rp->made(rp, m, r);
	m->next = rp->open;
	if (rp->open)
		rp->open->prev = m;
	rp->open = m;
	if (++rp->open_msgs > rp->res->max_open_messages)
		rp->res->max_open_messages = rp->open_msgs;
	return m;
}

static struct coll *coll_new(struct replay *rp, uint32_t comm, uint32_t op, uint32_t root)
{
	uint32_t size = rp->tr->comms[comm].size;
	struct coll *c = vtr_xcalloc(1, sizeof(*c));
	*c = (struct coll){.comm = comm, .op = op, .root = root, .n = size};
	c->m = vtr_xcalloc(size, sizeof(*c->m));
	c->next = rp->colls;
	rp->colls = c;
	return c;
}

static void coll_end(struct replay *rp, struct loc *l, const struct vtr_record *r)
{
	const struct vtr_trace *tr = rp->tr;
	uint32_t me = r->member, comm = r->comm;
	struct coll *c = NULL;
	if (me != VTR_NONE && r->match) {
		c = *r->match;
		if (!c) {
			c = *r->match = coll_new(rp, comm, r->op, r->root);
			if (rp->made)
				rp->made(rp, c, r);
		}
	} else if (comm < tr->ncomms && tr->comms[comm].defined && tr->comms[comm].size == 1) {
		/* MPI_COMM_SELF: a collective of one, each location's own. */
		me = 0;
		c = coll_new(rp, comm, r->op, r->root);
	}
	if (!c) {
		vts_enqueue(rp, l, &(struct qev){r->time, Q_OTHER, 0, NULL, 0});
		return;
	}
	c->m[me].loc = l->index;
	c->m[me].sent = r->sent;
	c->m[me].received = r->received;
	if (!c->m[me].here) {
		c->m[me].here = true;
		c->arrived++;
	}
	vts_enqueue(rp, l, &(struct qev){r->time, Q_COLL_END, me, c, 0});
}

/* Every event, in merged time order, into its location's queue. */
static void on_record(void *user, const struct vtr_location *loc, const struct vtr_record *r)
{
	struct replay *rp = user;
	struct loc *l = &rp->locs[loc->index];
	struct msg *m;
	if (r->kind == VTR_EV_Enter || r->kind == VTR_EV_Leave) { /* most events: first */
		vts_enqueue(rp, l,
			    &(struct qev){r->time, r->kind == VTR_EV_Enter ? Q_ENTER : Q_LEAVE,
					  r->region, NULL, 0});
		if (rp->failed)
			vtr_stop(rp->tr);
		return;
	}
	switch (r->kind) {
	case VTR_EV_Unknown: /* a kind this libotf2 does not know: pass 2 cannot copy it either */
		return;
	case VTR_EV_Enter:
		vts_enqueue(rp, l, &(struct qev){r->time, Q_ENTER, r->region, NULL, 0});
		break;
	case VTR_EV_Leave:
		vts_enqueue(rp, l, &(struct qev){r->time, Q_LEAVE, r->region, NULL, 0});
		break;
	case VTR_EV_MpiSend:
	case VTR_EV_MpiIsend:
		m = msg_of(rp, r);
		m->have_send = true;
		m->sloc = l->index;
		m->bytes = r->bytes;
		if (m->rloc == VTR_NONE)
			m->rloc = loc_of_member(rp, r->comm, r->peer);
		vts_enqueue(
		    rp, l,
		    &(struct qev){r->time, r->kind == VTR_EV_MpiIsend ? Q_ISEND : Q_SEND, 0, m, 0});
		break;
	case VTR_EV_MpiRecv:
	case VTR_EV_MpiIrecv:
		m = msg_of(rp, r);
		m->have_recv = true;
		m->rloc = l->index;
		if (!m->have_send)
			m->bytes = r->bytes;
		vts_enqueue(rp, l,
			    &(struct qev){r->time, r->kind == VTR_EV_MpiIrecv ? Q_IRECV : Q_RECV, 0,
					  m, r->request});
		break;
	case VTR_EV_MpiIrecvRequest:
		vts_enqueue(rp, l, &(struct qev){r->time, Q_IRECV_REQ, 0, NULL, r->request});
		break;
	case VTR_EV_MpiCollectiveEnd:
		coll_end(rp, l, r);
		break;
	case VTR_EV_MeasurementOnOff:
		vts_enqueue(rp, l, &(struct qev){r->time, Q_ONOFF, r->mode, NULL, 0});
		break;
	case VTR_EV_Metric:
		vts_enqueue(rp, l, &(struct qev){r->time, Q_METRIC, 0, NULL, 0});
		break;
	default:
		vts_enqueue(rp, l, &(struct qev){r->time, Q_OTHER, 0, NULL, 0});
		break;
	}
	if (rp->failed)
		vtr_stop(rp->tr);
}

static void totals_init(struct vts_totals *t, const struct vtr_trace *tr)
{
	t->region_excl = vtr_xcalloc(tr->nregions ? tr->nregions : 1, sizeof(double));
	t->loc_busy = vtr_xcalloc(tr->nlocations ? tr->nlocations : 1, sizeof(double));
	t->loc_mpi = vtr_xcalloc(tr->nlocations ? tr->nlocations : 1, sizeof(double));
}

void vts_result_free(struct vts_replay_result *res)
{
	struct vts_totals *t[2] = {&res->before, &res->after};
	for (int i = 0; i < 2; i++) {
		free(t[i]->region_excl);
		free(t[i]->loc_busy);
		free(t[i]->loc_mpi);
	}
}

void vts_force(struct replay *rp, struct loc *l)
{
	struct frame *f = vts_top(l);
	if (f) {
		for (size_t k = 0; k < f->nmsgs; k++)
			f->msgs[k]->send_done = true;
		if (f->ssend && !f->ssend->recv_seen) {
			/* never received: ends as recorded */
			f->ssend->recv_seen = true;
			f->ssend->o_recv_start = UINT64_MAX;
		}
		if (f->coll && !l->coll_done) {
			/* never completed: ends as recorded; freed at the end */
			f->coll = NULL;
			l->blocked_coll = false;
		}
	}
	vts_pump(rp, l);
	vts_drain(rp);
}

int vts_replay(const char *input, struct vtr_trace *tr, struct vts_sim *sims, int nsims,
	       const struct vts_cut *const *cuts, const size_t *ncuts, struct vts_spool *spool,
	       struct vts_replay_result *res)
{
	struct replay rp = {.tr = tr, .sims = sims, .nsims = nsims, .spool = spool, .res = res};
	memset(res, 0, sizeof(*res));
	totals_init(&res->before, tr);
	totals_init(&res->after, tr);
	rp.trace_start = tr->offset;
	rp.nlocs = tr->nlocations;
	rp.locs = vtr_xcalloc(rp.nlocs ? rp.nlocs : 1, sizeof(*rp.locs));
	rp.work = vtr_xcalloc(rp.nlocs ? rp.nlocs : 1, sizeof(uint32_t));
	for (size_t i = 0; i < rp.nlocs; i++) {
		rp.locs[i].index = (uint32_t)i;
		if (cuts) {
			rp.locs[i].cut = cuts[i];
			rp.locs[i].ncut = ncuts[i];
		}
	}
	rp.cls = vts_classify(tr);
	for (size_t i = 0; i < tr->nlocations; i++)
		if (tr->locations[i].rank != VTR_NONE && tr->locations[i].rank + 1 > rp.nranks)
			rp.nranks = tr->locations[i].rank + 1;
	rp.rank_loc = vtr_xcalloc(rp.nranks ? rp.nranks : 1, sizeof(uint32_t));
	for (size_t i = 0; i < rp.nranks; i++)
		rp.rank_loc[i] = VTR_NONE;
	for (size_t i = tr->nlocations; i-- > 0;)
		if (tr->locations[i].rank != VTR_NONE)
			rp.rank_loc[tr->locations[i].rank] = (uint32_t)i; /* the first wins */

	int result = 0;
	vts_guard_replay(tr);
	for (int s = 0; s < nsims; s++)
		CALL0(&sims[s], initialize);
	const struct vtr_callbacks cb = {.record = on_record};
#ifdef VTS_MPI
	bool dist = vts_dist_begin(input, tr, sims, nsims, cuts != NULL);
	int rc = dist ? vts_dist_read(tr, &rp, on_record) : vts_read_merged(input, tr, &cb, &rp);
#else
	int rc = vtr_read_merged(tr, &cb, &rp);
#endif
	if (rc < 0 && !rp.failed) {
		fprintf(stderr, "%s: %s: %s\n", vts_prog, input, tr->err);
		result = -1;
	}
	/* What still waits: a dependency that never came (an unmatched message or collective).
	 * Such ends stay as recorded, shifted with their location. */
	for (size_t i = 0; i < rp.nlocs && !rp.failed && result == 0; i++) {
		struct loc *l = &rp.locs[i];
		while (l->qlen && !rp.failed)
			vts_force(&rp, l);
	}
	for (int s = 0; s < nsims && !rp.failed; s++)
		CALL0(&sims[s], finalize);
	vts_guard_replay(NULL);
	if (rp.failed)
		result = -1;
	vts_spool_finish(spool);
	/* The trace ends where it ended, moved as the location whose end is latest moved: each
	 * keeps the time from its last event to the trace's end (a thread closed at its team's
	 * join, a process that finalised after its last event), so an identity keeps it all. */
	uint64_t last = tr->offset, end = tr->offset + tr->length;
	for (size_t i = 0; i < rp.nlocs; i++) {
		struct loc *l = &rp.locs[i];
		uint64_t tail = l->started && end > l->last_orig ? end - l->last_orig : 0;
		if (l->started && l->last_out + tail > last)
			last = l->last_out + tail;
		if (l->started) {
			vts_span(&res->after, rp.trace_start);
			vts_span(&res->after, l->last_out);
		}
		free(l->q);
		for (size_t k = 0; k < l->cap; k++) {
			free(l->stack[k].msgs);
			free(l->stack[k].irecv_start);
		}
		free(l->stack);
		free(l->held);
		free(l->reqs);
	}
	vts_span(&res->before, tr->offset);
	vts_span(&res->before, tr->offset + tr->length);
	res->new_length = last - tr->offset;
#ifdef VTS_MPI
	if (dist)
		result = vts_dist_end(&rp, result);
#endif
	free(rp.locs);
	free(rp.work);
	free(rp.cls);
	free(rp.rank_loc);
	while (rp.open) { /* messages of one end, which the queues no longer hold */
		struct msg *m = rp.open;
		rp.open = m->next;
		free(m);
	}
	while (rp.colls)
		vts_coll_free(&rp, rp.colls);
	return result;
}