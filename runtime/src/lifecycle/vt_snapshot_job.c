/* SPDX-License-Identifier: BSD-3-Clause */
/* An MPI job's snapshot: the ranks' writers meet, agree on one window and mark what it cuts. */
#include "archive/vt_group.h"
#include "archive/vt_otf2.h"
#include "base/vt_config.h"
#include "base/vt_log.h"
#include "defs/vt_mpi_defs.h"
#include "defs/vt_mpi_ops.h"
#include "lifecycle/vt_snapshot.h"
#include "record/vt_ring.h"
#include "record/vt_thread.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * An MPI job's snapshot. Each rank's writing process (forked, without MPI) meets the other
 * ranks' in a directory beside the trace (archive/vt_group.h): each says where its window
 * starts (the latest start of its threads whose records left their rings) and when it was
 * asked, in rank 0's time (the offsets MPI_Init measured); rank 0 answers with the job's
 * window, from the latest start to the earliest request, which every rank writes (the
 * records before it join the frames open at its start, those after it are left out), into
 * one archive NAME.snap-K.otf2 unified as a run's. A rank whose partners do not all come
 * within VT_SNAPSHOT_WAIT seconds (a snapshot asked of one rank only) writes its own window
 * alone, as before, to NAME.snap-K.rankR.
 */
/* How long a writer waits for another's message once they met (s). */
#define JOB_WAIT_S 600.0

struct job_hello {
	uint64_t start, asked; /* rank 0's ticks; start 0: the whole record is kept */
};

struct job_window {
	uint64_t t0, t1;
	int32_t ok, missing; /* missing: a rank that did not come (ok 0) */
};

static struct {
	unsigned k; /* in a writing process that met the others: its snapshot's K */
} job;

static void job_lost(int peer, double waited_s)
{
	vt_error("snapshot %u: the writer of rank %d %s rank %d's: this rank's part of the "
		 "snapshot is not written",
		 job.k, vt_otf2_mpi_ops()->rank,
		 waited_s > 0 ? "waited in vain for" : "could not send to", peer);
}

static int64_t clock_offset(void)
{
	int n = 0;
	const struct vt_mpi_defs_offset *o = vt_mpi_defs_clock_offsets(&n);
	return n > 0 ? o[0].offset : 0;
}

/*
 * What the window cuts apart. A message sent before the window and received in it, or sent
 * in it and received after it, and a collective that some members ended outside the window,
 * are marked (VT_REC_CUT, the attribute vt::outside_window) rather than left unmatched. Each
 * rank counts, per channel (a communicator, sender, receiver and tag, or a communicator's
 * collectives), its records before the window (those that left the ring included, counted as
 * they left) and in it; rank 0 compares both ends of every channel: the first S - R
 * receives of a channel in the window were sent before it (S sends and R receives before
 * it; MPI keeps a channel's order), the last sends that the receiver had not received by the
 * window's end are received after it, and a member's collective ends beyond the fewest
 * before the window, or beyond the fewest by its end, are the collectives others ended
 * outside it. Exact for channels that one thread of a rank uses; with threads sharing a
 * channel the marked ones are the first (last) in the order of the rank's threads.
 */
struct job_chan {
	uint64_t comm; /* the communicator's key, the same on every rank */
	uint32_t kind, src, dst, tag, size, unused;
	uint64_t before, in; /* records before the window and in it */
};

/* Rank 0's answer for one channel: mark the first `first` in the window, and those from
 * the from-th on. */
struct job_mark {
	uint64_t first, from;
};

struct job_count {
	struct vt_msg_tab tab; /* v[0]: before the window, v[1]: in it; then v[2], v[3]: marks */
	bool lost;
};

static void count_left(void *arg, const struct vt_ring_msg *m, uint64_t n)
{
	struct job_count *jc = arg;
	struct vt_msg_chan *c = vt_msg_tab_get(&jc->tab, m, true);
	if (c)
		c->v[0] += n;
}

static void count_held(void *arg, const struct vt_ring_msg *m, int where, struct vt_rec *head)
{
	struct job_count *jc = arg;
	struct vt_msg_chan *c = vt_msg_tab_get(&jc->tab, m, true);
	if (c && where <= 0)
		c->v[where < 0 ? 0 : 1]++;
}

static void count_ring(void *arg, struct vt_ring *g, struct vt_rec *upto)
{
	struct job_count *jc = arg;
	if (!vt_ring_left_msgs(g, count_left, jc))
		jc->lost = true;
	vt_ring_each_msg(g, upto, count_held, jc);
}

static void mark_held(void *arg, const struct vt_ring_msg *m, int where, struct vt_rec *head)
{
	struct vt_msg_chan *c = vt_msg_tab_get(arg, m, false);
	if (!c || where != 0)
		return;
	uint64_t k = c->v[1]++;
	if (k < c->v[2] || k >= c->v[3])
		head->region |= VT_REC_CUT;
}

static void mark_ring(void *arg, struct vt_ring *g, struct vt_rec *upto)
{
	vt_ring_each_msg(g, upto, mark_held, arg);
}

/* Channels in the order rank 0 takes them: by communicator, its collectives after its
 * messages, these by sender, receiver and tag; kind last (a send before its receive). */
static int chan_order(const struct job_chan *x, const struct job_chan *y, bool kind)
{
	bool cx = x->kind == VT_RING_COLL, cy = y->kind == VT_RING_COLL;
	uint64_t kx[6] = {x->comm,	     cx, cx ? 0 : x->src, cx ? 0 : x->dst, cx ? 0 : x->tag,
			  kind ? x->kind : 0};
	uint64_t ky[6] = {y->comm,	     cy, cy ? 0 : y->src, cy ? 0 : y->dst, cy ? 0 : y->tag,
			  kind ? y->kind : 0};
	for (int i = 0; i < 6; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

static int chan_cmp(const void *a, const void *b)
{
	return chan_order(*(const struct job_chan *const *)a, *(const struct job_chan *const *)b,
			  true);
}

/* Rank 0: the marks of every channel end, in place of its counts (n of them in c). */
static void job_decide(struct job_chan *c, size_t n)
{
	struct job_chan **o = malloc((n ? n : 1) * sizeof(*o));
	struct job_mark *mk = malloc((n ? n : 1) * sizeof(*mk));
	if (!o || !mk) {
		free(o);
		free(mk);
		for (size_t i = 0; i < n; i++) /* no memory: nothing marked */
			c[i].before = 0, c[i].in = UINT64_MAX;
		return;
	}
	for (size_t i = 0; i < n; i++)
		o[i] = &c[i];
	qsort(o, n, sizeof(*o), chan_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		/* [i, j): the ends of one channel, a message's send and receive, or the
		 * members of a communicator's collectives. */
		for (j = i + 1; j < n && chan_order(o[i], o[j], false) == 0;)
			j++;
		if (o[i]->kind != VT_RING_COLL) {
			uint64_t s0 = 0, sw = 0, r0 = 0, rw = 0;
			for (size_t x = i; x < j; x++) {
				bool send = o[x]->kind == VT_RING_SEND;
				*(send ? &s0 : &r0) += o[x]->before;
				*(send ? &sw : &rw) += o[x]->in;
			}
			uint64_t early = s0 > r0 ? s0 - r0 : 0;
			uint64_t late = s0 + sw > r0 + rw ? s0 + sw - r0 - rw : 0;
			early = early < rw ? early : rw;
			late = late < sw ? late : sw;
			for (size_t x = i; x < j; x++)
				mk[o[x] - c] = o[x]->kind == VT_RING_SEND
						   ? (struct job_mark){0, o[x]->in - late}
						   : (struct job_mark){early, UINT64_MAX};
			continue;
		}
		/* A communicator's collectives: members that reported none had none. */
		uint64_t most = 0, fewest = UINT64_MAX;
		for (size_t x = i; x < j; x++) {
			most = o[x]->before > most ? o[x]->before : most;
			uint64_t upto = o[x]->before + o[x]->in;
			fewest = upto < fewest ? upto : fewest;
		}
		if (j - i < o[i]->size)
			fewest = 0;
		for (size_t x = i; x < j; x++) {
			uint64_t first = most - o[x]->before,
				 late = o[x]->before + o[x]->in - fewest;
			first = first < o[x]->in ? first : o[x]->in;
			late = late < o[x]->in ? late : o[x]->in;
			mk[o[x] - c] = (struct job_mark){first, o[x]->in - late};
		}
	}
	for (size_t i = 0; i < n; i++)
		c[i].before = mk[i].first, c[i].in = mk[i].from;
	free(o);
	free(mk);
}

/* Every rank's channels to rank 0, its marks back, and set on the records of the window;
 * what: the trace, for the line that says the marks could not be set. */
static void job_marks(const struct vt_mpi_ops *g, int rank, const char *what)
{
	struct job_count jc = {.lost = false};
	vt_msg_tab_init(&jc.tab);
	vt_thread_each_ring(count_ring, &jc);
	uint32_t n_comms = 0;
	const struct vt_mpi_defs_comm *comms = vt_mpi_defs_comms(&n_comms);
	size_t n = 0, room = jc.tab.used ? jc.tab.used : 1;
	/* mine[k] counts the table's channel slot[k]: rank 0's k-th mark goes back there. */
	struct job_chan *mine = calloc(room, sizeof(*mine));
	size_t *slot = calloc(room, sizeof(*slot));
	bool counted = mine && slot && !jc.lost && !jc.tab.lost;
	for (size_t i = 0; counted && i < jc.tab.n; i++) {
		const struct vt_msg_chan *c = &jc.tab.t[i];
		if (!c->used || c->key.comm >= n_comms)
			continue;
		const struct vt_mpi_defs_comm *cm = &comms[c->key.comm];
		bool recv = c->key.kind == VT_RING_RECV;
		slot[n] = i;
		mine[n++] = (struct job_chan){cm->key,
					      c->key.kind,
					      recv ? c->key.peer : cm->my_rank,
					      recv ? cm->my_rank : c->key.peer,
					      c->key.tag,
					      cm->size,
					      0,
					      c->v[0],
					      c->v[1]};
	}
	/* A rank that could not count tells rank 0 with a channel count of its own: none of
	 * the job's are marked then. */
	int64_t lost = counted ? 0 : 1;
	size_t *sizes = NULL;
	char *all = g->gather(mine, n * sizeof(*mine), &sizes);
	int64_t any_lost = 0;
	char *lost_all = g->gather(&lost, sizeof(lost), NULL);
	void **back = NULL;
	size_t *back_n = NULL;
	if (rank == 0) {
		size_t total = 0;
		for (int r = 0; sizes && r < g->size; r++)
			total += sizes[r];
		for (int r = 0; lost_all && r < g->size; r++)
			any_lost |= ((int64_t *)lost_all)[r];
		if (all && !any_lost)
			job_decide((struct job_chan *)all, total / sizeof(struct job_chan));
		back = calloc((size_t)g->size, sizeof(*back));
		back_n = calloc((size_t)g->size, sizeof(*back_n));
		for (size_t r = 0, at = 0; back && back_n && sizes && r < (size_t)g->size; r++) {
			back[r] = any_lost || !all ? NULL : all + at;
			back_n[r] = any_lost || !all ? 0 : sizes[r];
			at += sizes[r];
		}
	}
	size_t got = 0;
	struct job_chan *marks = g->scatter(back, back_n, &got);
	if (counted && marks && got == n * sizeof(*marks)) {
		/* The window's records again: v[1] counts them now. */
		for (size_t k = 0; k < n; k++) {
			struct vt_msg_chan *c = &jc.tab.t[slot[k]];
			c->v[1] = 0;
			c->v[2] = marks[k].before;
			c->v[3] = marks[k].in;
		}
		vt_thread_each_ring(mark_ring, &jc.tab);
	} else if (rank == 0) {
		vt_warn("%s: the messages and collectives the window cuts are not marked (a rank "
			"could not count them)",
			what);
	}
	free(marks);
	free(back);
	free(back_n);
	free(all);
	free(sizes);
	free(lost_all);
	free(mine);
	free(slot);
	vt_msg_tab_free(&jc.tab);
}

const struct vt_mpi_ops *vt_snapshot_job_meet(unsigned k, uint64_t asked, uint64_t *end)
{
	const struct vt_mpi_ops *run = vt_otf2_mpi_ops();
	const char *anchor = vt_otf2_path(), *slash = anchor ? strrchr(anchor, '/') : NULL;
	size_t len = anchor ? strlen(anchor) : 0;
	if (!run || run->size < 2 || !slash || len < 5 || strcmp(anchor + len - 5, ".otf2") != 0)
		return NULL;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%.*s/.%.*s.snap-%u.vt-meet", (int)(slash - anchor), anchor,
		 (int)(anchor + len - 5 - slash - 1), slash + 1, k);
	const struct vt_mpi_ops *g =
	    vt_group_join(dir, run->rank, run->size, (double)vt_cfg.snapshot_wait);
	if (!g)
		return NULL;
	int64_t off = clock_offset();
	uint64_t start = vt_thread_ring_start();
	struct job_hello me = {start ? start + (uint64_t)off : 0, asked + (uint64_t)off};
	struct job_window w = {me.start, me.asked, 1, -1};
	size_t n;
	if (run->rank == 0) {
		for (int r = 1; r < run->size && w.ok; r++) {
			struct job_hello *h = vt_group_try_recv(r, &n);
			if (!h || n != sizeof(*h))
				w.ok = 0, w.missing = r;
			else
				w.t0 = h->start > w.t0 ? h->start : w.t0,
				w.t1 = h->asked < w.t1 ? h->asked : w.t1;
			free(h);
		}
		w.t0 = w.t0 > w.t1 ? w.t1 : w.t0; /* windows that do not overlap: none */
		for (int r = 1; r < run->size; r++)
			g->send(&w, sizeof(w), r);
	} else {
		g->send(&me, sizeof(me), 0);
		struct job_window *got = vt_group_try_recv(0, &n);
		if (got && n == sizeof(w))
			w = *got;
		else
			w.ok = 0, w.missing = 0;
		free(got);
	}
	if (!w.ok) {
		/* Nothing stays: a rank that comes later waits in vain, and goes on alone. */
		vt_group_leave(true);
		vt_warn("snapshot %u: rank %d's writer did not come within %ld s "
			"(VT_SNAPSHOT_WAIT): the window of rank %d is written alone",
			k, w.missing, vt_cfg.snapshot_wait, run->rank);
		return NULL;
	}
	/* Met: from now on a peer is slow, not absent (its window takes time to write, on a
	 * loaded node much more than the meeting's wait), unless it died. */
	job.k = k;
	vt_group_set_wait(JOB_WAIT_S);
	vt_group_on_lost(job_lost);
	vt_ring_cut(w.t0 ? w.t0 - (uint64_t)off : 0, w.t1 - (uint64_t)off);
	*end = w.t1 - (uint64_t)off;
	char what[64];
	snprintf(what, sizeof(what), "snapshot %u", k);
	job_marks(g, run->rank, what);
	return g;
}

void vt_snapshot_final_cut(const struct vt_mpi_ops *ops)
{
	/* Every rank's latest window start, in rank 0's time; 0: no ring lost a record. */
	int64_t off = clock_offset();
	uint64_t start = vt_thread_ring_start(), t0 = start ? start + (uint64_t)off : 0;
	uint64_t *all = ops->gather(&t0, sizeof(t0), NULL);
	for (int r = 0; all && r < ops->size; r++)
		t0 = all[r] > t0 ? all[r] : t0;
	free(all);
	ops->bcast(&t0, sizeof(t0), 0);
	if (!t0)
		return;
	vt_ring_cut(t0 - (uint64_t)off, UINT64_MAX);
	job_marks(ops, ops->rank, "the trace");
}
