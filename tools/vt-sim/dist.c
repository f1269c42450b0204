/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim-mpi's distributed replay: each process replays its ranks' locations, trading ends. */
/*
 * docs/sim.md, "Under MPI". Every process reads the locations of its ranks (whole ranks, about
 * as many events each) in their merged order and replays them with vt-sim's own replay; it
 * pairs its records as libvttrace pairs them (parmatch.c), so that a message or collective
 * has the same key (communicator, tag, sender and receiver ranks, the k-th of them; the k-th
 * collective of a communicator) on every process that holds one of its ends. What a replay
 * needs from another process: a receive, its send's new start (and where it was sent from);
 * a synchronous send, its receive's new start; a collective member, every other member's
 * start and end (the collective is decided from its members' data alone, so each process
 * holding a member decides the same ends). Each process sends these as its replay passes
 * them, batched per destination, and takes in what arrived every EVERY records read; the
 * reading waits for another process only a bounded while (exchange()). After its reading each
 * process trades in rounds (a count of batches per pair, the batches, a sum of what is left) until
 * no location waits; a location that waits for a dependency that never came (a message without its
 * send, a collective without a member) ends as vt-sim ends it, the lowest such location first. At
 * the end the summary's sums go to process 0 (sums of whole ticks: exact in any order); with -o
 * each process keeps its locations' new times and writes their event files (par.c).
 */
#include "parmatch.h"
#include "replay.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RI_SEND = 1, RI_RECV, RI_COLL };
enum { TAG_INFO = 11, TAG_TIMES };
#define EVERY	  1024	/* records read between two looks at what arrived */
#define TIMES_MSG 65536 /* new times per message to process 0 */
#define QUEUED	  65536 /* events queued on this process's locations before its reading waits */
#define WAITS	  200	/* naps of such a wait (about 10 ms) before reading on */

/* What one process tells another about an end of a message or a collective member. */
struct rinfo {
	uint32_t kind, loc, region, index;
	uint64_t key[3];
	uint64_t n_start, o_start, o_end, bytes, received, child, now, last_orig;
};

/* A message or collective of this process with ends elsewhere: what arrived for it. */
struct dent {
	uint64_t key[3];
	void *obj; /* NULL until its first end here is read */
	struct rinfo *pend;
	size_t npend, cap;
	uint32_t got, want;
};

struct outbuf {
	struct rinfo *v;
	size_t n, cap;
};

struct sending {
	struct rinfo *v;
	MPI_Request r;
};

struct dist {
	struct replay *rp;
	const struct vtr_trace *tr;
	uint32_t me, nprocs;
	uint32_t *owner, *rank_owner; /* per location, per world rank */
	size_t nranks;
	struct vts_pmatch mt;
	struct vts_table ids; /* key -> struct dent */
	struct outbuf *out;   /* per process */
	struct sending *sending;
	size_t nsending, capsending;
	uint64_t *sent, *got; /* batches, per process */
	uint32_t *mark;
	uint32_t stamp;
	uint64_t since, queued_max;
	uint32_t *mine; /* this process's locations */
	size_t nmine;
	void (*record)(void *, const struct vtr_location *, const struct vtr_record *);
	struct vts_prec slots[1 + VTS_EXT_SLOTS];
};

static void nap(void)
{
	struct timespec ts = {0, 50000};
	nanosleep(&ts, NULL);
}

/* The process of member k of comm (this one when it cannot be told). */
static uint32_t proc_of(const struct dist *d, uint32_t comm, uint32_t k)
{
	const struct vtr_trace *tr = d->tr;
	if (comm >= tr->ncomms || !tr->comms[comm].rank_of_member || k >= tr->comms[comm].size)
		return d->me;
	uint32_t r = tr->comms[comm].rank_of_member[k];
	return r < d->nranks && d->rank_owner[r] != UINT32_MAX ? d->rank_owner[r] : d->me;
}

static struct dent *entry(struct dist *d, const uint64_t *key, bool make)
{
	struct vts_ent *e = vts_table_find(&d->ids, key[0], key[1], key[2], make);
	if (!e)
		return NULL;
	if (!e->slot) {
		struct dent *x = vtr_xcalloc(1, sizeof(*x));
		memcpy(x->key, key, sizeof(x->key));
		e->slot = x;
	}
	return e->slot;
}

static void forget(struct dist *d, struct dent *x)
{
	struct vts_ent *e = vts_table_find(&d->ids, x->key[0], x->key[1], x->key[2], false);
	if (e) {
		e->state = 2;
		e->slot = NULL;
	}
	free(x->pend);
	free(x);
}

static void put(struct dist *d, uint32_t p, const struct rinfo *ri)
{
	struct outbuf *o = &d->out[p];
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 64;
		o->v = vtr_xrealloc(o->v, o->cap, sizeof(*o->v));
	}
	o->v[o->n++] = *ri;
}

/* ---- the replay's hooks ---- */

static void made(struct replay *rp, void *obj, const struct vtr_record *r)
{
	struct dist *d = rp->dist;
	if (r->kind == VTR_EV_MpiCollectiveEnd) {
		struct coll *c = obj;
		uint32_t want = 0;
		for (uint32_t k = 0; k < c->n; k++)
			want += proc_of(d, c->comm, k) != d->me;
		if (!want)
			return;
		c->remote = true;
		memcpy(c->key, d->mt.key, sizeof(c->key));
		struct dent *x = entry(d, c->key, true);
		x->obj = c;
		x->want = want;
		return;
	}
	struct msg *m = obj;
	uint32_t p = proc_of(d, r->comm, r->peer);
	if (p == d->me)
		return;
	m->remote = true;
	m->proc = p;
	memcpy(m->key, d->mt.key, sizeof(m->key));
	struct dent *x = entry(d, m->key, true);
	x->obj = m;
	x->want = 1;
}

static void remote_msg(struct replay *rp, struct msg *m, bool send)
{
	struct dist *d = rp->dist;
	struct rinfo ri = {.kind = send ? RI_SEND : RI_RECV,
			   .loc = send ? m->sloc : m->rloc,
			   .region = send ? m->send_func : 0,
			   .n_start = send ? m->n_send_start : m->n_recv_start,
			   .o_start = send ? m->o_send_start : m->o_recv_start,
			   .bytes = m->bytes};
	memcpy(ri.key, m->key, sizeof(ri.key));
	put(d, m->proc, &ri);
}

static void remote_coll(struct replay *rp, struct coll *c, uint32_t index)
{
	struct dist *d = rp->dist;
	const struct coll_member *m = &c->m[index];
	struct rinfo ri = {.kind = RI_COLL,
			   .loc = m->loc,
			   .region = m->region,
			   .index = index,
			   .n_start = m->n_start,
			   .o_start = m->o_start,
			   .o_end = m->o_end,
			   .bytes = m->sent,
			   .received = m->received,
			   .child = m->child,
			   .now = m->now,
			   .last_orig = m->last_orig};
	memcpy(ri.key, c->key, sizeof(ri.key));
	if (++d->stamp == 0) {
		memset(d->mark, 0, d->nprocs * sizeof(*d->mark));
		d->stamp = 1;
	}
	d->mark[d->me] = d->stamp;
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t p = proc_of(d, c->comm, k);
		if (d->mark[p] != d->stamp) {
			d->mark[p] = d->stamp;
			put(d, p, &ri);
		}
	}
}

/* What another process said, applied as vt-sim applies that end when it reads and replays it. */
static void apply(struct dist *d, struct dent *x, const struct rinfo *ri)
{
	struct replay *rp = d->rp;
	x->got++;
	if (ri->kind == RI_COLL) {
		struct coll *c = x->obj;
		struct coll_member *m = &c->m[ri->index];
		m->loc = ri->loc;
		m->region = ri->region;
		m->n_start = ri->n_start;
		m->o_start = ri->o_start;
		m->o_end = ri->o_end;
		m->sent = ri->bytes;
		m->received = ri->received;
		m->child = ri->child;
		m->now = ri->now;
		m->last_orig = ri->last_orig;
		if (x->got == x->want)
			forget(d, x);
		if (++c->ready == c->n)
			vts_coll_resolve(rp, c);
		return;
	}
	struct msg *m = x->obj;
	forget(d, x);
	/* both ends known: no longer open */
	if (m->prev)
		m->prev->next = m->next;
	else if (rp->open == m)
		rp->open = m->next;
	if (m->next)
		m->next->prev = m->prev;
	m->prev = m->next = NULL;
	rp->open_msgs--;
	if (ri->kind == RI_SEND) {
		m->have_send = true;
		m->sloc = ri->loc;
		m->bytes = ri->bytes;
		m->n_send_start = ri->n_start;
		m->o_send_start = ri->o_start;
		m->send_func = ri->region;
		m->send_done = true;
		if (m->rloc != VTR_NONE && m->have_recv)
			vts_push_work(rp, m->rloc);
	} else {
		m->have_recv = true;
		m->rloc = ri->loc;
		if (!m->have_send)
			m->bytes = ri->bytes;
		m->recv_seen = true;
		m->n_recv_start = ri->n_start;
		m->o_recv_start = ri->o_start;
		if (m->sloc != VTR_NONE && m->have_send)
			vts_push_work(rp, m->sloc);
	}
	vts_unref(m); /* the other end's reference */
}

static void take(struct dist *d, const struct rinfo *ri)
{
	struct dent *x = entry(d, ri->key, true);
	if (x->obj) {
		apply(d, x, ri);
		return;
	}
	if (x->npend == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 4;
		x->pend = vtr_xrealloc(x->pend, x->cap, sizeof(*x->pend));
	}
	x->pend[x->npend++] = *ri;
}

/* ---- the exchange ---- */

static void flush(struct dist *d)
{
	for (uint32_t p = 0; p < d->nprocs; p++) {
		struct outbuf *o = &d->out[p];
		if (!o->n)
			continue;
		if (d->nsending == d->capsending) {
			d->capsending = d->capsending ? 2 * d->capsending : 16;
			d->sending = vtr_xrealloc(d->sending, d->capsending, sizeof(*d->sending));
		}
		struct sending *s = &d->sending[d->nsending++];
		s->v = o->v;
		MPI_Isend(o->v, (int)(o->n * sizeof(*o->v)), MPI_BYTE, (int)p, TAG_INFO,
			  MPI_COMM_WORLD, &s->r);
		d->sent[p]++;
		*o = (struct outbuf){0};
	}
	for (size_t i = 0; i < d->nsending;) {
		int done = 0;
		MPI_Test(&d->sending[i].r, &done, MPI_STATUS_IGNORE);
		if (done) {
			free(d->sending[i].v);
			d->sending[i] = d->sending[--d->nsending];
		} else {
			i++;
		}
	}
}

/* One batch that arrived, applied; false if none (block: waits for one, without spinning). */
static bool receive(struct dist *d, bool block)
{
	MPI_Status st;
	int flag = 0;
	MPI_Iprobe(MPI_ANY_SOURCE, TAG_INFO, MPI_COMM_WORLD, &flag, &st);
	while (!flag && block) {
		nap();
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_INFO, MPI_COMM_WORLD, &flag, &st);
	}
	if (!flag)
		return false;
	int bytes = 0;
	MPI_Get_count(&st, MPI_BYTE, &bytes);
	struct rinfo *v = vtr_xcalloc((size_t)bytes / sizeof(*v) + 1, sizeof(*v));
	MPI_Recv(v, bytes, MPI_BYTE, st.MPI_SOURCE, TAG_INFO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	d->got[st.MPI_SOURCE]++;
	for (size_t i = 0; i < (size_t)bytes / sizeof(*v); i++)
		take(d, &v[i]);
	free(v);
	vts_drain(d->rp);
	return true;
}

static uint64_t queued(const struct dist *d)
{
	uint64_t n = 0;
	for (size_t i = 0; i < d->nmine; i++)
		n += d->rp->locs[d->mine[i]].qlen;
	return n;
}

/*
 * What this process has to say sent, what arrived applied. A process whose locations wait
 * for others holds their events queued: past QUEUED of them its reading waits a little for
 * what they wait for (bounded: a partner may itself wait for events this process has not
 * read yet, a collective's late member); if that was not enough, the limit doubles.
 */
static void exchange(struct dist *d)
{
	flush(d);
	while (receive(d, false))
		;
	flush(d);
	if (queued(d) <= d->queued_max)
		return;
	for (int i = 0; i < WAITS; i++) {
		if (!receive(d, false)) {
			nap();
			continue;
		}
		flush(d);
		if (queued(d) <= d->queued_max)
			return;
	}
	d->queued_max *= 2;
}

static void dist_record(void *user, const struct vtr_location *loc, const struct vtr_record *r)
{
	struct dist *d = user;
	if (++d->since == EVERY) {
		d->since = 0;
		exchange(d);
	}
	if (r->kind == VTR_EV_Enter || r->kind == VTR_EV_Leave) {
		d->record(d->rp, loc, r);
		return;
	}
	if (!vts_pack(d->slots, loc, r))
		return;
	memset(d->mt.key, 0, sizeof(d->mt.key));
	const struct vtr_callbacks cb = {.record = d->record};
	vts_pmatch_deliver(&d->mt, d->tr, &cb, d->rp, d->slots);
	if (!d->mt.key[2])
		return;
	/* What arrived before this first end was read. */
	struct dent *x = entry(d, d->mt.key, false);
	if (!x || !x->obj || !x->npend)
		return;
	struct rinfo *pv = x->pend;
	size_t n = x->npend;
	x->pend = NULL;
	x->npend = x->cap = 0;
	for (size_t i = 0; i < n; i++)
		apply(d, x, &pv[i]); /* frees x at the last */
	free(pv);
	vts_drain(d->rp);
}

int vts_dist_read(struct vtr_trace *tr, struct replay *rp,
		  void (*record)(void *, const struct vtr_location *, const struct vtr_record *))
{
	int me, np;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	struct dist *d = vtr_xcalloc(1, sizeof(*d));
	d->rp = rp;
	d->tr = tr;
	d->me = (uint32_t)me;
	d->nprocs = (uint32_t)np;
	d->record = record;
	d->owner = vts_dist_owners(tr, d->nprocs);
	d->nranks = rp->nranks;
	d->rank_owner = vtr_xcalloc(d->nranks + 1, sizeof(uint32_t));
	for (size_t r = 0; r < d->nranks; r++)
		d->rank_owner[r] = UINT32_MAX;
	for (size_t i = 0; i < tr->nlocations; i++)
		if (tr->locations[i].rank < d->nranks)
			d->rank_owner[tr->locations[i].rank] = d->owner[i];
	vts_pmatch_init(&d->mt);
	d->out = vtr_xcalloc(d->nprocs, sizeof(*d->out));
	d->sent = vtr_xcalloc(d->nprocs, sizeof(uint64_t));
	d->got = vtr_xcalloc(d->nprocs, sizeof(uint64_t));
	d->mark = vtr_xcalloc(d->nprocs, sizeof(uint32_t));
	rp->dist = d;
	rp->made = made;
	rp->remote_msg = remote_msg;
	rp->remote_coll = remote_coll;

	bool *only = vtr_xcalloc(tr->nlocations + 1, sizeof(bool));
	d->mine = vtr_xcalloc(tr->nlocations + 1, sizeof(uint32_t));
	for (size_t i = 0; i < tr->nlocations; i++)
		if ((only[i] = d->owner[i] == d->me))
			d->mine[d->nmine++] = (uint32_t)i;
	d->queued_max = QUEUED;
	const bool *was_only = tr->only;
	bool was_no_match = tr->no_match;
	tr->only = only;
	tr->no_match = true;
	const struct vtr_callbacks cb = {.record = dist_record};
	int rc = vtr_read_merged(tr, &cb, d);
	tr->only = was_only;
	tr->no_match = was_no_match;

	/* The rounds: until no location waits, or every wait is for what never comes. */
	uint64_t *expect = vtr_xcalloc(d->nprocs, sizeof(uint64_t));
	for (;;) {
		flush(d);
		MPI_Alltoall(d->sent, 1, MPI_UINT64_T, expect, 1, MPI_UINT64_T, MPI_COMM_WORLD);
		for (uint32_t p = 0; p < d->nprocs; p++)
			while (d->got[p] < expect[p])
				receive(d, true);
		/* what that produced is still in out: counted, sent next round */
		uint64_t mine[3] = {0, 0, rp->failed || rc < 0}, all[3];
		/* (below 2^63: MPICH's MPI_MIN on MPI_UINT64_T compares as signed) */
		uint64_t none = INT64_MAX, low = none, glow;
		for (size_t i = 0; i < rp->nlocs; i++)
			if (rp->locs[i].qlen) {
				mine[0] += rp->locs[i].qlen;
				if (low == none)
					low = i;
			}
		for (uint32_t p = 0; p < d->nprocs; p++)
			mine[1] += d->out[p].n;
		MPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
		if (all[2] || (!all[1] && !all[0]))
			break;
		if (all[1])
			continue;
		/* Stuck: the lowest location that waits ends its wait, as in vt-sim. */
		MPI_Allreduce(&low, &glow, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
		if (glow < rp->nlocs && d->owner[glow] == d->me)
			vts_force(rp, &rp->locs[glow]);
	}
	while (d->nsending) {
		flush(d);
		if (d->nsending)
			nap();
	}
	free(expect);
	free(only);
	return rc;
}

static void sum_doubles(double *v, size_t n, bool root)
{
	if (!n)
		return;
	MPI_Reduce(root ? MPI_IN_PLACE : v, v, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}

int vts_dist_end(struct replay *rp, int result)
{
	struct dist *d = rp->dist;
	struct vts_replay_result *res = rp->res;
	const struct vtr_trace *tr = d->tr;
	bool root = d->me == 0;
	uint64_t s[6] = {res->events,  res->messages, res->collectives,
			 res->metrics, res->cut,      result < 0},
		 m[4] = {res->new_length, res->max_open_messages, res->max_queued,
			 res->after.any ? res->after.last : 0},
		 /* times and counts below 2^63: MPICH's MPI_MIN and MPI_MAX on MPI_UINT64_T
		  * compare as signed */
	    first = res->after.any ? res->after.first : INT64_MAX;
	MPI_Allreduce(MPI_IN_PLACE, s, 6, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, m, 4, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
	res->events = s[0], res->messages = s[1], res->collectives = s[2], res->metrics = s[3];
	res->cut = s[4];
	res->new_length = m[0], res->max_open_messages = m[1], res->max_queued = m[2];
	res->procs = d->nprocs;
	res->after.any = first != INT64_MAX;
	res->after.last = m[3];
	res->after.first = res->after.any ? first : 0;
	sum_doubles(res->before.region_excl, tr->nregions, root);
	sum_doubles(res->after.region_excl, tr->nregions, root);
	sum_doubles(res->before.loc_busy, tr->nlocations, root);
	sum_doubles(res->before.loc_mpi, tr->nlocations, root);
	sum_doubles(res->after.loc_busy, tr->nlocations, root);
	sum_doubles(res->after.loc_mpi, tr->nlocations, root);
	/* The new times of every location to process 0, which writes the output, unless each
	 * process writes its own locations' (par.c). */
	if (!vts_par_keep_times(!s[5]) && !s[5]) {
		uint64_t *buf = vtr_xcalloc(TIMES_MSG, sizeof(uint64_t));
		struct vts_spool *sp = rp->spool;
		for (size_t l = 0; l < tr->nlocations; l++) {
			uint32_t o = d->owner[l];
			if (o == 0 || (!root && o != d->me))
				continue;
			if (root) {
				int n;
				do {
					MPI_Status st;
					MPI_Recv(buf, TIMES_MSG * 8, MPI_BYTE, (int)o, TAG_TIMES,
						 MPI_COMM_WORLD, &st);
					MPI_Get_count(&st, MPI_BYTE, &n);
					n /= 8;
					for (int i = 0; i < n; i++)
						vts_spool_put(sp, l, buf[i]);
				} while (n == TIMES_MSG);
				continue;
			}
			vts_spool_rewind(sp, l);
			int n = 0;
			bool more = true;
			while (more) {
				more = vts_spool_next(sp, l, &buf[n]);
				n += more;
				if (n == TIMES_MSG || !more) {
					MPI_Send(buf, n * 8, MPI_BYTE, 0, TAG_TIMES,
						 MPI_COMM_WORLD);
					if (n < TIMES_MSG)
						break;
					n = 0;
				}
			}
		}
		free(buf);
		if (root)
			vts_spool_finish(sp);
	}
	/* What is left of the keys: of dependencies that never came. */
	for (size_t i = 0; i < d->ids.cap; i++)
		if (d->ids.e[i].state == 1 && d->ids.e[i].slot) {
			struct dent *x = d->ids.e[i].slot;
			free(x->pend);
			free(x);
		}
	free(d->ids.e);
	vts_pmatch_free(&d->mt);
	for (uint32_t p = 0; p < d->nprocs; p++)
		free(d->out[p].v);
	free(d->out);
	free(d->sending);
	free(d->sent);
	free(d->got);
	free(d->mark);
	free(d->owner);
	free(d->mine);
	free(d->rank_owner);
	free(d);
	rp->dist = NULL;
	return s[5] ? -1 : 0;
}
