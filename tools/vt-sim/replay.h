/* SPDX-License-Identifier: BSD-3-Clause */
/* What the parts of vt-sim's replay share: the queues, stacks, messages and collectives. */
#ifndef VTS_REPLAY_H
#define VTS_REPLAY_H

#include "vts.h"

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

/* A message, from its first end read to both ends' replay: what the matching of tools/lib
 * pairs (vtr_record.match points to it). */
struct msg {
	uint32_t comm, tag;
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
	struct msg *prev, *next; /* while one end only is known: in the replay's list of them */
	/* vt-sim-mpi's distributed replay: the other end is another process's (proc), and the
	 * key both processes know the message by (dist.c) */
	bool remote;
	uint32_t proc;
	uint64_t key[3];
};

/* A collective, from its first member's end read to the last member's Leave. */
struct coll {
	uint32_t comm, op, root, n, arrived, ready;
	uint32_t func;
	struct coll_member {
		uint32_t loc, region;
		uint64_t o_start, o_end, n_start, sent, received;
		/* at its Leave: its children's time, its location's now and last original time */
		uint64_t child, now, last_orig;
		bool here; /* read by this process */
	} * m;
	struct coll *next;
	bool remote; /* members on other processes (dist.c) */
	uint64_t key[3];
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
	/* --explain-waits: the gaps to shorten (by original time of the event ending each),
	 * the next of them, and the cut of the event being replayed */
	const struct vts_cut *cut;
	size_t ncut, cut_next;
	uint64_t cut_now;
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
	struct msg *open; /* messages of which one end only has been read */
	size_t open_msgs;
	struct coll *colls;
	uint32_t *work;
	size_t nwork;
	uint64_t trace_start;
	int failed;
	/* vt-sim-mpi's distributed replay (dist.c): a remote message's end replayed here (its
	 * send, or its receive's start), a collective member of a remote collective ready */
	void (*remote_msg)(struct replay *rp, struct msg *m, bool send);
	void (*remote_coll)(struct replay *rp, struct coll *c, uint32_t index);
	/* a message or collective made by the first end read of it (r), NULL when not split */
	void (*made)(struct replay *rp, void *obj, const struct vtr_record *r);
	void *dist;
};

/* Calls fn of simulator s, if it has one, under the crash guard (guard.c). */
#define CALL(rp, s, fn, loc, region, time, ...)                                                    \
	do {                                                                                       \
		if ((s)->p->fn) {                                                                  \
			vts_guard_call((s)->name, #fn, (loc), (region), (time));                   \
			(s)->p->fn((s)->state, __VA_ARGS__);                                       \
			vts_guard_call(NULL, NULL, 0, 0, 0);                                       \
		}                                                                                  \
	} while (0)

/* The same for a call without arguments but the simulator's state. */
#define CALL0(s, fn)                                                                               \
	do {                                                                                       \
		if ((s)->p->fn) {                                                                  \
			vts_guard_call((s)->name, #fn, 0, VT_SIM_NONTRACING, 0);                   \
			(s)->p->fn((s)->state);                                                    \
			vts_guard_call(NULL, NULL, 0, 0, 0);                                       \
		}                                                                                  \
	} while (0)

/* Replays a location's queue as far as it can, then every location it unblocked. */
void vts_push_work(struct replay *rp, uint32_t loc);
void vts_pump(struct replay *rp, struct loc *l);
void vts_drain(struct replay *rp);
/* Ends location l's wait for what never came (an unmatched message or collective): the end
 * stays as recorded, shifted with its location; then the replay goes on (stream.c). */
void vts_force(struct replay *rp, struct loc *l);
/* An event read, in merged order: replayed as soon as what it waits for is. */
void vts_enqueue(struct replay *rp, struct loc *l, const struct qev *e);
void vts_unref(struct msg *m);
void vts_coll_free(struct replay *rp, struct coll *c);
/* A collective whose members all reached their end: decided from its members' data alone,
 * this process's members released. */
void vts_coll_resolve(struct replay *rp, struct coll *c);
struct frame *vts_top(struct loc *l);
void vts_span(struct vts_totals *tt, uint64_t t);

/* vt-sim-mpi's distributed replay (dist.c, par.c). begin: whether this replay is split over
 * the processes (process 0 decides and tells the others); read: this process's share read
 * and replayed, trading with the others until no location waits; end: the summary's sums and
 * every location's new times to process 0, the replay's result (-1 if it failed anywhere). */
bool vts_dist_begin(const char *input, const struct vtr_trace *tr, const struct vts_sim *sims,
		    int nsims, bool cuts);
int vts_dist_read(struct vtr_trace *tr, struct replay *rp,
		  void (*record)(void *, const struct vtr_location *, const struct vtr_record *));
int vts_dist_end(struct replay *rp, int result);

#endif
