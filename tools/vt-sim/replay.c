/* SPDX-License-Identifier: BSD-3-Clause */
/* Pass 1 of vt-sim: the trace replayed in causal order through the simulators. */
#include "vts.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

enum qkind {
	Q_ENTER,
	Q_LEAVE,
	Q_SEND,
	Q_ISEND,
	Q_RECV,
	Q_IRECV,
	Q_IRECV_REQ,
	Q_COLL_END,
	Q_ONOFF,
	Q_METRIC,
	Q_OTHER
};

struct msg {
	uint32_t comm, sender, receiver, tag; /* ranks in comm */
	uint64_t bytes;
	bool have_send, have_recv; /* seen in the stream */
	bool send_done;		   /* the sender's replay passed the send */
	uint32_t sloc, rloc;
	uint32_t send_func;
	uint64_t o_send_start, n_send_start;
	bool recv_seen; /* the receiver's replay passed the receive: its start is known */
	uint64_t o_recv_start, n_recv_start;
	bool send_ended; /* a synchronous send's end, decided */
	uint64_t n_send_end;
	int refs;
	struct msg *next; /* in its bucket */
};

struct coll {
	uint32_t comm, op, root, n, arrived, ready;
	uint64_t seq;
	uint32_t func;
	struct coll_member {
		uint32_t loc;
		uint64_t o_start, o_end, n_start, sent, received;
		bool here;
	} * m;
	struct coll *next;
};

struct qev {
	uint64_t t;
	uint32_t kind, arg; /* arg: region, on/off mode, member index */
	void *p;	    /* struct msg or struct coll */
	uint64_t req;
};

struct frame {
	uint32_t region;
	uint64_t n_start, o_start;
	uint64_t child, o_child; /* inclusive time of the children: new, original */
	struct msg **msgs;
	size_t nmsgs, capmsgs;
	uint64_t *irecv_start; /* per message */
	struct msg *isend;
	struct msg *ssend; /* a synchronous send: it completes once its receive started */
	struct coll *coll;
	uint32_t coll_index;
	bool mpi, recv_nb;
	size_t hold_from; /* held events before this frame's */
};

struct req {
	uint64_t req, n_time, o_time;
};

struct loc {
	uint32_t index;
	struct qev *q;
	size_t qhead, qlen, qcap;
	bool started, blocked_coll, queued;
	uint64_t now, last_orig, last_out;
	struct frame *stack;
	size_t depth, cap;
	uint64_t *held; /* new times waiting for the end of the MPI call they are in */
	size_t nheld, capheld;
	size_t mpi_depth; /* open MPI frames */
	bool off;	  /* recording switched off */
	struct req *reqs; /* Irecv starts not yet completed */
	size_t nreqs, capreqs;
	uint64_t coll_end; /* the end decided for the collective it waits in */
	bool coll_done;
};

struct replay {
	struct vtr_trace *tr;
	struct vts_sim *sims;
	int nsims;
	struct vts_spool *spool;
	struct vts_replay_result *res;
	struct loc *locs;
	size_t nlocs;
	uint32_t *cls;
	uint32_t *rank_loc; /* world rank -> location index */
	size_t nranks;
	uint32_t **member_of; /* per comm: world rank -> member, lazily */
	struct msg **buckets;
	size_t nbuckets, open_msgs;
	struct coll *colls;
	uint64_t **coll_seq; /* per comm, per member */
	uint32_t *work;
	size_t nwork;
	uint64_t trace_start;
	int failed;
	/* what the summary needs */
	uint32_t mpi_paradigm_regions;
};

const char *vts_prog = "vt-sim";

/* ---- what a crash inside a simulator reports ---- */
static const char *volatile crash_sim, *volatile crash_call;
static volatile uint32_t crash_loc, crash_region;
static volatile uint64_t crash_time;
static struct vtr_trace *crash_tr;

static void on_crash(int sig)
{
	char line[768];
	int n;
	if (crash_sim && crash_tr && crash_region < crash_tr->nregions)
		n = snprintf(line, sizeof(line),
			     "%s: simulator '%s' crashed (signal %d, %s) in %s on '%s' of location "
			     "%u at %" PRIu64 "; no output written\n",
			     vts_prog, crash_sim, sig, strsignal(sig), crash_call,
			     crash_tr->regions[crash_region].name, crash_loc, crash_time);
	else if (crash_sim)
		n = snprintf(line, sizeof(line),
			     "%s: simulator '%s' crashed (signal %d, %s) in %s%s\n", vts_prog,
			     crash_sim, sig, strsignal(sig), crash_call,
			     strcmp(crash_call, "destroy") ? "; no output written" : "");
	else
		n = snprintf(line, sizeof(line), "%s: crashed (signal %d, %s)\n", vts_prog, sig,
			     strsignal(sig));
	if (n > 0 && write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line)) < 0)
		_exit(70);
	_exit(70);
}

static void guard(bool on)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		signal(sigs[i], on ? on_crash : SIG_DFL);
}

void vts_guard(const char *sim, const char *call)
{
	crash_sim = sim;
	crash_call = call;
	crash_region = VT_SIM_NONTRACING;
	guard(sim != NULL);
}

#define CALL(rp, s, fn, loc, region, time, ...)                                                    \
	do {                                                                                       \
		if ((s)->p->fn) {                                                                  \
			crash_sim = (s)->name;                                                     \
			crash_call = #fn;                                                          \
			crash_loc = (loc);                                                         \
			crash_region = (region);                                                   \
			crash_time = (time);                                                       \
			(s)->p->fn((s)->state, __VA_ARGS__);                                       \
			crash_sim = NULL;                                                          \
		}                                                                                  \
	} while (0)

#define CALL0(s, fn)                                                                               \
	do {                                                                                       \
		if ((s)->p->fn) {                                                                  \
			crash_sim = (s)->name;                                                     \
			crash_call = #fn;                                                          \
			crash_loc = 0;                                                             \
			crash_region = VT_SIM_NONTRACING;                                          \
			crash_time = 0;                                                            \
			(s)->p->fn((s)->state);                                                    \
			crash_sim = NULL;                                                          \
		}                                                                                  \
	} while (0)

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

/* ---- classification ---- */

static bool name_is(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

uint32_t *vts_classify(const struct vtr_trace *tr)
{
	static const char *const sends[] = {
	    "MPI_Send",	  "MPI_Bsend",	   "MPI_Rsend",	     "MPI_Isend",      "MPI_Ibsend",
	    "MPI_Irsend", "MPI_Send_init", "MPI_Bsend_init", "MPI_Rsend_init", NULL};
	static const char *const ssends[] = {"MPI_Ssend", "MPI_Issend", "MPI_Ssend_init", NULL};
	static const char *const sendrecvs[] = {"MPI_Sendrecv", "MPI_Sendrecv_replace", NULL};
	static const char *const recvs[] = {
	    "MPI_Recv",	    "MPI_Irecv",    "MPI_Recv_init", "MPI_Wait",    "MPI_Waitall",
	    "MPI_Waitany",  "MPI_Waitsome", "MPI_Test",	     "MPI_Testall", "MPI_Testany",
	    "MPI_Testsome", "MPI_Mrecv",    "MPI_Imrecv",    NULL};
	uint32_t *c = vtr_xcalloc(tr->nregions ? tr->nregions : 1, sizeof(uint32_t));
	for (size_t r = 0; r < tr->nregions; r++) {
		const struct vtr_region *g = &tr->regions[r];
		if (!g->defined)
			continue;
		bool mpi = g->paradigm == OTF2_PARADIGM_MPI || !strncmp(g->name, "MPI_", 4);
		if (!mpi)
			continue;
		uint32_t f = VT_SIM_MPI;
		switch (g->role) {
		case OTF2_REGION_ROLE_BARRIER:
			f |= VT_SIM_COLLECTIVE | VT_SIM_ALL | VT_SIM_ALL_TO_ALL;
			break;
		case OTF2_REGION_ROLE_COLL_ONE2ALL:
			f |= VT_SIM_COLLECTIVE | VT_SIM_ONE_TO_ALL;
			break;
		case OTF2_REGION_ROLE_COLL_ALL2ONE:
			f |= VT_SIM_COLLECTIVE | VT_SIM_ALL_TO_ONE;
			break;
		case OTF2_REGION_ROLE_COLL_ALL2ALL:
		case OTF2_REGION_ROLE_COLL_OTHER:
			f |= VT_SIM_COLLECTIVE | VT_SIM_ALL_TO_ALL;
			break;
		default:
			break;
		}
		if (name_is(g->name, sends))
			f |= VT_SIM_P2P | VT_SIM_SEND;
		else if (name_is(g->name, ssends))
			f |= VT_SIM_P2P | VT_SIM_SEND | VT_SIM_SYNC_SEND;
		else if (name_is(g->name, sendrecvs))
			f |= VT_SIM_P2P | VT_SIM_SENDRECV;
		else if (name_is(g->name, recvs))
			f |= VT_SIM_P2P | VT_SIM_RECV;
		if (!(f & (VT_SIM_P2P | VT_SIM_COLLECTIVE)))
			f |= VT_SIM_SINGLE_RANK;
		c[r] = f;
	}
	return c;
}

/* ---- matching in the stream ---- */

static uint32_t member_of(struct replay *rp, uint32_t comm, uint32_t rank)
{
	const struct vtr_trace *tr = rp->tr;
	if (comm >= tr->ncomms || !tr->comms[comm].defined || rank == VTR_NONE)
		return VTR_NONE;
	if (!rp->member_of[comm]) {
		uint32_t *m = vtr_xcalloc(rp->nranks ? rp->nranks : 1, sizeof(uint32_t));
		for (size_t i = 0; i < rp->nranks; i++)
			m[i] = VTR_NONE;
		for (uint32_t i = 0; i < tr->comms[comm].size; i++) {
			uint32_t w = tr->comms[comm].rank_of_member[i];
			if (w < rp->nranks)
				m[w] = i;
		}
		rp->member_of[comm] = m;
	}
	return rank < rp->nranks ? rp->member_of[comm][rank] : VTR_NONE;
}

static uint32_t loc_of_member(struct replay *rp, uint32_t comm, uint32_t member)
{
	const struct vtr_trace *tr = rp->tr;
	if (comm >= tr->ncomms || member >= tr->comms[comm].size)
		return VTR_NONE;
	uint32_t w = tr->comms[comm].rank_of_member[member];
	return w < rp->nranks ? rp->rank_loc[w] : VTR_NONE;
}

static size_t bucket(const struct replay *rp, uint32_t comm, uint32_t s, uint32_t r, uint32_t tag)
{
	uint64_t h = comm * 0x9E3779B97F4A7C15ull ^ s * 0xC2B2AE3D27D4EB4Full ^
		     r * 0x165667B19E3779F9ull ^ tag * 0x27D4EB2F165667C5ull;
	return (size_t)(h ^ (h >> 29)) & (rp->nbuckets - 1);
}

/* The first open message of the key that waits for the given side, or a new one. */
static struct msg *match(struct replay *rp, uint32_t comm, uint32_t s, uint32_t r, uint32_t tag,
			 bool send)
{
	size_t b = bucket(rp, comm, s, r, tag);
	struct msg **pp = &rp->buckets[b], *last = NULL;
	for (struct msg *m = *pp; m; pp = &m->next, m = m->next) {
		last = m;
		if (m->comm == comm && m->sender == s && m->receiver == r && m->tag == tag &&
		    (send ? !m->have_send : !m->have_recv)) {
			*pp = m->next; /* matched: out of the bucket */
			m->next = NULL;
			rp->open_msgs--;
			return m;
		}
	}
	struct msg *m = vtr_xcalloc(1, sizeof(*m));
	*m = (struct msg){.comm = comm,
			  .sender = s,
			  .receiver = r,
			  .tag = tag,
			  .refs = 2,
			  .sloc = VTR_NONE,
			  .rloc = VTR_NONE};
	/* FIFO per key: appended at the end of the bucket. */
	if (last)
		last->next = m;
	else
		rp->buckets[b] = m;
	if (++rp->open_msgs > rp->res->max_open_messages)
		rp->res->max_open_messages = rp->open_msgs;
	return m;
}

static void unref(struct msg *m)
{
	if (--m->refs == 0)
		free(m);
}

static struct coll *coll_of(struct replay *rp, uint32_t comm, uint32_t member, uint32_t op,
			    uint32_t root)
{
	const struct vtr_trace *tr = rp->tr;
	uint32_t size = tr->comms[comm].size;
	if (!rp->coll_seq[comm])
		rp->coll_seq[comm] = vtr_xcalloc(size, sizeof(uint64_t));
	uint64_t k = rp->coll_seq[comm][member]++;
	for (struct coll *c = rp->colls; c; c = c->next)
		if (c->comm == comm && c->seq == k)
			return c;
	struct coll *c = vtr_xcalloc(1, sizeof(*c));
	*c = (struct coll){.comm = comm, .op = op, .root = root, .n = size, .seq = k};
	c->m = vtr_xcalloc(size, sizeof(*c->m));
	c->next = rp->colls;
	rp->colls = c;
	return c;
}

static void coll_free(struct replay *rp, struct coll *c)
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

static void push_work(struct replay *rp, uint32_t loc)
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

static void span(struct vts_totals *tt, uint64_t t)
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
		unref(f->msgs[i]);
	f->nmsgs = 0;
	if (f->isend) {
		unref(f->isend);
		f->isend = NULL;
	}
	if (f->ssend) {
		f->ssend->send_ended = true;
		f->ssend->n_send_end = end;
		unref(f->ssend);
		f->ssend = NULL;
	}
	f->coll = NULL;
	l->now = end;
	l->last_orig = o;
}

/* A collective whose members all reached their end: decided at once, members released. */
static void coll_resolve(struct replay *rp, struct coll *c)
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
		struct loc *l = &rp->locs[m->loc];
		struct frame *f = &l->stack[l->depth - 1];
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
		    m->o_end >= dor ? dn + (m->o_end - dor) : l->now + (m->o_end - l->last_orig);
		if (def < m->n_start)
			def = m->n_start;
		ev[i] = event_of(l, f, def);
		ev[i].sent = m->sent;
		ev[i].received = m->received;
	}
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
		struct loc *l = &rp->locs[c->m[i].loc];
		uint64_t end = ev[i].end > dep_n[i] ? ev[i].end : dep_n[i];
		l->coll_end = end;
		l->coll_done = true;
		l->blocked_coll = false;
		push_work(rp, c->m[i].loc);
	}
	rp->res->collectives++;
	free(ev);
	free(dep_n);
}

/* The end of an MPI call or region: 1 done, 0 must wait. */
static int leave(struct replay *rp, struct loc *l, uint64_t o)
{
	struct frame *f = &l->stack[l->depth - 1];
	uint64_t t = l->now + (o - l->last_orig);
	uint32_t fc = f->region < rp->tr->nregions ? rp->cls[f->region] : 0;
	if (f->coll) {
		struct coll *c = f->coll;
		if (l->coll_done) {
			l->coll_done = false;
			uint64_t end = l->coll_end;
			if (--c->arrived == 0)
				coll_free(rp, c);
			leave_at(rp, l, f, o, end);
			return 1;
		}
		if (l->blocked_coll)
			return 0;
		struct coll_member *m = &c->m[f->coll_index];
		m->n_start = f->n_start;
		m->o_start = f->o_start;
		m->o_end = o;
		c->func = f->region;
		l->blocked_coll = true;
		if (++c->ready == c->n)
			coll_resolve(rp, c);
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

static struct frame *top(struct loc *l)
{
	return l->depth ? &l->stack[l->depth - 1] : NULL;
}

/* One event at the head of a location's queue: 1 done, 0 must wait. */
static int step(struct replay *rp, struct loc *l, struct qev *e)
{
	if (!l->started) {
		l->started = true;
		l->now = nontracing(rp, l, rp->trace_start, e->t);
		l->last_orig = e->t;
		l->last_out = l->now;
	}
	uint64_t t = l->now + (e->t - l->last_orig);
	struct frame *f = top(l);
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
		if (m->rloc != VTR_NONE && m->have_recv)
			push_work(rp, m->rloc);
		if (e->kind == Q_ISEND && f && !f->isend) {
			f->isend = m;
			m->refs++;
		} else if (e->kind == Q_SEND && f && !f->ssend && f->region < rp->tr->nregions &&
			   (rp->cls[f->region] & VT_SIM_SYNC_SEND)) {
			f->ssend = m;
			m->refs++;
		}
		unref(m);
		break;
	}
	case Q_RECV:
	case Q_IRECV: {
		struct msg *m = e->p;
		if (!f) {
			unref(m);
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
		if (m->sloc != VTR_NONE && m->have_send)
			push_work(rp, m->sloc);
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

/* Replays a location's queue as far as it can. */
static void pump(struct replay *rp, struct loc *l)
{
	while (l->qlen && !rp->failed) {
		struct qev *e = &l->q[l->qhead];
		if (!step(rp, l, e))
			return;
		rp->res->events++;
		l->qhead = (l->qhead + 1) % l->qcap;
		l->qlen--;
	}
}

static void drain(struct replay *rp)
{
	while (rp->nwork && !rp->failed) {
		uint32_t i = rp->work[--rp->nwork];
		rp->locs[i].queued = false;
		pump(rp, &rp->locs[i]);
	}
}

/* ---- the stream ---- */

static struct loc *loc_of(struct replay *rp, OTF2_LocationRef id)
{
	const struct vtr_location *l = vtr_location(rp->tr, id);
	return l ? &rp->locs[l->index] : NULL;
}

static void enqueue(struct replay *rp, struct loc *l, struct qev e)
{
	if (l->qlen == l->qcap) {
		size_t cap = l->qcap ? 2 * l->qcap : 64;
		struct qev *q = vtr_xcalloc(cap, sizeof(*q));
		for (size_t i = 0; i < l->qlen; i++)
			q[i] = l->q[(l->qhead + i) % l->qcap];
		free(l->q);
		l->q = q;
		l->qhead = 0;
		l->qcap = cap;
	}
	l->q[(l->qhead + l->qlen++) % l->qcap] = e;
	if (l->qlen > rp->res->max_queued)
		rp->res->max_queued = l->qlen;
	push_work(rp, l->index);
	drain(rp);
}

#define ARGS                                                                                       \
	OTF2_LocationRef location, OTF2_TimeStamp time, void *user, OTF2_AttributeList *attributes
#define LOC()                                                                                      \
	struct replay *rp = user;                                                                  \
	struct loc *l = loc_of(rp, location);                                                      \
	(void)attributes;                                                                          \
	if (!l)                                                                                    \
		return OTF2_CALLBACK_SUCCESS;
#define DONE() return rp->failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS

static OTF2_CallbackCode ev_enter(ARGS, OTF2_RegionRef region)
{
	LOC();
	enqueue(rp, l, (struct qev){time, Q_ENTER, region, NULL, 0});
	DONE();
}

static OTF2_CallbackCode ev_leave(ARGS, OTF2_RegionRef region)
{
	LOC();
	enqueue(rp, l, (struct qev){time, Q_LEAVE, region, NULL, 0});
	DONE();
}

static void p2p_send(struct replay *rp, struct loc *l, uint64_t time, uint32_t receiver,
		     uint32_t comm, uint32_t tag, uint64_t bytes, bool nb)
{
	uint32_t s = member_of(rp, comm, rp->tr->locations[l->index].rank);
	struct msg *m = match(rp, comm, s, receiver, tag, true);
	m->have_send = true;
	m->sloc = l->index;
	m->bytes = bytes;
	if (m->rloc == VTR_NONE)
		m->rloc = loc_of_member(rp, comm, receiver);
	enqueue(rp, l, (struct qev){time, nb ? Q_ISEND : Q_SEND, 0, m, 0});
}

static void p2p_recv(struct replay *rp, struct loc *l, uint64_t time, uint32_t sender,
		     uint32_t comm, uint32_t tag, uint64_t bytes, bool nb, uint64_t req)
{
	uint32_t r = member_of(rp, comm, rp->tr->locations[l->index].rank);
	struct msg *m = match(rp, comm, sender, r, tag, false);
	m->have_recv = true;
	m->rloc = l->index;
	if (!m->have_send)
		m->bytes = bytes;
	enqueue(rp, l, (struct qev){time, nb ? Q_IRECV : Q_RECV, 0, m, req});
}

static OTF2_CallbackCode ev_send(ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
				 uint64_t bytes)
{
	LOC();
	p2p_send(rp, l, time, receiver, comm, tag, bytes, false);
	DONE();
}

static OTF2_CallbackCode ev_isend(ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
				  uint64_t bytes, uint64_t req)
{
	LOC();
	(void)req;
	p2p_send(rp, l, time, receiver, comm, tag, bytes, true);
	DONE();
}

static OTF2_CallbackCode ev_recv(ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
				 uint64_t bytes)
{
	LOC();
	p2p_recv(rp, l, time, sender, comm, tag, bytes, false, 0);
	DONE();
}

static OTF2_CallbackCode ev_irecv(ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
				  uint64_t bytes, uint64_t req)
{
	LOC();
	p2p_recv(rp, l, time, sender, comm, tag, bytes, true, req);
	DONE();
}

static OTF2_CallbackCode ev_irecv_req(ARGS, uint64_t req)
{
	LOC();
	enqueue(rp, l, (struct qev){time, Q_IRECV_REQ, 0, NULL, req});
	DONE();
}

static OTF2_CallbackCode ev_coll_end(ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
				     uint64_t sent, uint64_t received)
{
	LOC();
	uint32_t me = member_of(rp, comm, rp->tr->locations[l->index].rank);
	/* MPI_COMM_SELF: a collective of one, each location's own (its sequence counter is
	 * shared, so two locations' never meet). */
	if (me == VTR_NONE && comm < rp->tr->ncomms && rp->tr->comms[comm].defined &&
	    rp->tr->comms[comm].size == 1)
		me = 0;
	if (me == VTR_NONE || comm >= rp->tr->ncomms) {
		enqueue(rp, l, (struct qev){time, Q_OTHER, 0, NULL, 0});
		DONE();
	}
	struct coll *c = coll_of(rp, comm, me, op, root);
	c->m[me].loc = l->index;
	c->m[me].sent = sent;
	c->m[me].received = received;
	if (!c->m[me].here) {
		c->m[me].here = true;
		c->arrived++;
	}
	enqueue(rp, l, (struct qev){time, Q_COLL_END, me, c, 0});
	DONE();
}

static OTF2_CallbackCode ev_onoff(ARGS, OTF2_MeasurementMode mode)
{
	LOC();
	enqueue(rp, l, (struct qev){time, Q_ONOFF, mode, NULL, 0});
	DONE();
}

static OTF2_CallbackCode ev_metric(ARGS, OTF2_MetricRef m, uint8_t n, const OTF2_Type *types,
				   const OTF2_MetricValue *values)
{
	LOC();
	(void)m, (void)n, (void)types, (void)values;
	enqueue(rp, l, (struct qev){time, Q_METRIC, 0, NULL, 0});
	DONE();
}

/* Every other kind: only its time matters. */
static OTF2_CallbackCode ev_other(ARGS)
{
	LOC();
	enqueue(rp, l, (struct qev){time, Q_OTHER, 0, NULL, 0});
	DONE();
}

/* The global reader skips kinds without a callback: every kind gets the generic one
 * (generated, vts_other.h), and the kinds the replay looks into get their own. */
#define VTS_OTHER ev_other
#include "vts_other.h"

static OTF2_GlobalEvtReaderCallbacks *callbacks(void)
{
	OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
	vts_other_callbacks(cb);
	OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
	OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
	OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_req);
	OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
	OTF2_GlobalEvtReaderCallbacks_SetMeasurementOnOffCallback(cb, ev_onoff);
	OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, ev_metric);
	return cb;
}

static void totals_init(struct vts_totals *t, const struct vtr_trace *tr)
{
	t->region_excl = vtr_xcalloc(tr->nregions ? tr->nregions : 1, sizeof(double));
	t->loc_busy = vtr_xcalloc(tr->nlocations ? tr->nlocations : 1, sizeof(double));
	t->loc_mpi = vtr_xcalloc(tr->nlocations ? tr->nlocations : 1, sizeof(double));
}

int vts_replay(const char *input, struct vtr_trace *tr, struct vts_sim *sims, int nsims,
	       struct vts_spool *spool, struct vts_replay_result *res)
{
	struct replay rp = {.tr = tr, .sims = sims, .nsims = nsims, .spool = spool, .res = res};
	memset(res, 0, sizeof(*res));
	totals_init(&res->before, tr);
	totals_init(&res->after, tr);
	rp.trace_start = tr->offset;
	rp.nlocs = tr->nlocations;
	rp.locs = vtr_xcalloc(rp.nlocs ? rp.nlocs : 1, sizeof(*rp.locs));
	rp.work = vtr_xcalloc(rp.nlocs ? rp.nlocs : 1, sizeof(uint32_t));
	for (size_t i = 0; i < rp.nlocs; i++)
		rp.locs[i].index = (uint32_t)i;
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
	rp.member_of = vtr_xcalloc(tr->ncomms ? tr->ncomms : 1, sizeof(uint32_t *));
	rp.coll_seq = vtr_xcalloc(tr->ncomms ? tr->ncomms : 1, sizeof(uint64_t *));
	rp.nbuckets = 4096;
	rp.buckets = vtr_xcalloc(rp.nbuckets, sizeof(struct msg *));
	crash_tr = tr;

	int result = 0;
	OTF2_Reader *r = OTF2_Reader_Open(input);
	if (!r) {
		fprintf(stderr, "%s: %s: cannot open the trace again\n", vts_prog, input);
		return -1;
	}
	OTF2_Reader_SetSerialCollectiveCallbacks(r);
	uint64_t ndefs = 0;
	OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(r);
	if (gd) {
		OTF2_Reader_ReadAllGlobalDefinitions(r, gd, &ndefs);
		OTF2_Reader_CloseGlobalDefReader(r, gd);
	}
	for (size_t i = 0; i < tr->nlocations; i++)
		OTF2_Reader_SelectLocation(r, tr->locations[i].id);
	bool local_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
	OTF2_Reader_OpenEvtFiles(r);
	for (size_t i = 0; i < tr->nlocations; i++) {
		if (local_defs)
			local_defs = vtr_read_local_defs(r, tr->locations[i].id);
		OTF2_Reader_GetEvtReader(r, tr->locations[i].id);
	}
	OTF2_GlobalEvtReader *g = OTF2_Reader_GetGlobalEvtReader(r);
	if (!g) {
		fprintf(stderr, "%s: %s: cannot read the events\n", vts_prog, input);
		OTF2_Reader_Close(r);
		return -1;
	}
	OTF2_GlobalEvtReaderCallbacks *cb = callbacks();
	OTF2_Reader_RegisterGlobalEvtCallbacks(r, g, cb, &rp);
	OTF2_GlobalEvtReaderCallbacks_Delete(cb);
	guard(true);
	for (int s = 0; s < nsims; s++)
		CALL0(&sims[s], initialize);
	uint64_t n = 0;
	OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalEvents(r, g, &n);
	if (rc != OTF2_SUCCESS && !rp.failed) {
		fprintf(stderr, "%s: %s: cannot read the events: %s\n", vts_prog, input,
			OTF2_Error_GetDescription(rc));
		result = -1;
	}
	OTF2_Reader_CloseGlobalEvtReader(r, g);
	OTF2_Reader_CloseEvtFiles(r);
	OTF2_Reader_Close(r);
	/* What still waits: a dependency that never came (an unmatched message or collective).
	 * Such ends stay as recorded, shifted with their location. */
	for (size_t i = 0; i < rp.nlocs && !rp.failed && result == 0; i++) {
		struct loc *l = &rp.locs[i];
		while (l->qlen && !rp.failed) {
			struct frame *f = top(l);
			if (f) {
				for (size_t k = 0; k < f->nmsgs; k++)
					f->msgs[k]->send_done = true;
				if (f->ssend && !f->ssend->recv_seen) {
					/* never received: ends as recorded */
					f->ssend->recv_seen = true;
					f->ssend->o_recv_start = UINT64_MAX;
				}
				if (f->coll && !l->coll_done) {
					/* never completed: ends as recorded; freed below */
					f->coll = NULL;
					l->blocked_coll = false;
				}
			}
			pump(&rp, l);
			drain(&rp);
		}
	}
	for (int s = 0; s < nsims && !rp.failed; s++)
		CALL0(&sims[s], finalize);
	guard(false);
	if (rp.failed)
		result = -1;
	vts_spool_finish(spool);
	uint64_t last = tr->offset;
	for (size_t i = 0; i < rp.nlocs; i++) {
		struct loc *l = &rp.locs[i];
		if (l->started && l->last_out > last)
			last = l->last_out;
		if (l->started) {
			span(&res->after, rp.trace_start);
			span(&res->after, l->last_out);
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
	span(&res->before, tr->offset);
	span(&res->before, tr->offset + tr->length);
	res->new_length = last - tr->offset;
	free(rp.locs);
	free(rp.work);
	free(rp.cls);
	free(rp.rank_loc);
	for (size_t i = 0; i < tr->ncomms; i++) {
		free(rp.member_of[i]);
		free(rp.coll_seq[i]);
	}
	free(rp.member_of);
	free(rp.coll_seq);
	for (size_t b = 0; b < rp.nbuckets; b++)
		while (rp.buckets[b]) {
			struct msg *m = rp.buckets[b];
			rp.buckets[b] = m->next;
			free(m);
		}
	free(rp.buckets);
	while (rp.colls)
		coll_free(&rp, rp.colls);
	(void)ndefs;
	return result;
}
