/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim-mpi: processes 1..N-1 read shares of the trace, process 0 merges, matches and replays. */
/*
 * The split (docs/dev/tools-lib.md, "vt-sim under MPI"): every replay of vt-sim reads the
 * whole trace in merged time order, and its end of one location may wait for the events of
 * any other. Processes 1..N-1 (the readers) each read a share of the locations (contiguous,
 * about as many events each as the definitions count) in their merged order, without
 * matching, and turn every event into a record (24 bytes, 72 for an end of a message or
 * collective), which travel to process 0 in chunks. Process 0 merges the readers' streams
 * by time, pairs the messages and collectives as libvttrace's matching pairs them (the k-th
 * send of a key with its k-th receive, the k-th end of each member of a communicator) and
 * hands every record to the replay, which is
 * vt-sim's own (stream.c, replay.c): output and summary are the serial ones. What a process
 * holds: a reader, its reading and two chunks; process 0, two chunks per reader and the
 * replay's state (locations, open messages and collectives: not the trace).
 *
 * Between replays process 0 runs alone (the definitions, --explain-waits's critical-path
 * reading, the output trace's writing); the readers wait for its next command without
 * spinning.
 */
#include "parmatch.h"
#include "replay.h"
#include "vtr_cli.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* After the last chunk's records: how the reading ended (0, -1 with err, 1 stopped). */
struct tail {
	int32_t rc, pad;
	char err[sizeof(((struct vtr_trace *)0)->err)];
};

enum { TAG_DATA = 1, TAG_END, TAG_STOP };
enum { CMD_REPLAY = 1, CMD_DONE, CMD_DREPLAY };
#define CHUNK 49152 /* slots per chunk: 1.1 MiB */

struct cmd {
	int32_t op, rc;
	char path[PATH_MAX];
};

static void nap(void)
{
	struct timespec ts = {0, 50000};
	nanosleep(&ts, NULL);
}

/* Waits for r without spinning a core that the other processes need. */
static void wait_for(MPI_Request *r, MPI_Status *st)
{
	int done = 0;
	MPI_Test(r, &done, st);
	while (!done) {
		nap();
		MPI_Test(r, &done, st);
	}
}

static void command(struct cmd *c);

/* This process: a worker (not process 0), and whether its replay is a distributed one. */
static struct {
	bool worker, dist;
} par;

/* ---- the distributed replay (dist.c) ---- */

/* vt's own simulators: no state across calls, so that each process calling them for its
 * locations decides what one process calling them for all would. */
static bool stateless(const struct vts_sim *s)
{
	static const char *const own[] = {"identity", "ideal", "latbw", "scale", "nonoise"};
	for (size_t i = 0; i < sizeof(own) / sizeof(*own); i++)
		if (!strcmp(s->name, own[i]))
			return true;
	return false;
}

bool vts_dist_begin(const char *input, const struct vtr_trace *tr, const struct vts_sim *sims,
		    int nsims, bool cuts)
{
	if (par.worker)
		return par.dist;
	int nprocs;
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (nprocs == 1 || cuts)
		return false;
	for (int i = 0; i < nsims; i++)
		if (!stateless(&sims[i]))
			return false;
	for (size_t c = 0; c < tr->ncomms; c++)
		if (!tr->comms[c].defined)
			return false; /* its members' processes cannot be told */
	struct cmd *c = vtr_xcalloc(1, sizeof(*c));
	c->op = CMD_DREPLAY;
	c->rc = nsims;
	snprintf(c->path, sizeof(c->path), "%s", input);
	command(c);
	int len = 0;
	for (int i = 0; i < nsims; i++)
		len += (int)strlen(sims[i].spec) + 1;
	char *buf = vtr_xcalloc((size_t)len + 1, 1), *p = buf;
	for (int i = 0; i < nsims; i++)
		p = stpcpy(p, sims[i].spec) + 1;
	MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Bcast(buf, len, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(buf);
	return true;
}

/* A worker's part of a distributed replay: the same trace and simulators as process 0's. */
static void dist_replay(const char *path, int nsims)
{
	int len = 0;
	MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
	char *buf = vtr_xcalloc((size_t)len + 1, 1);
	MPI_Bcast(buf, len, MPI_BYTE, 0, MPI_COMM_WORLD);
	const char **specs = vtr_xcalloc((size_t)nsims + 1, sizeof(char *));
	for (int i = 0, at = 0; i < nsims; i++) {
		specs[i] = buf + at;
		at += (int)strlen(buf + at) + 1;
	}
	struct vtr_trace tr;
	struct vts_simset ss;
	if (vtr_open(&tr, path) < 0) {
		fprintf(stderr, "%s: %s: %s\n", vts_prog, path, tr.err);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (vts_sims_open(&ss, path, &tr, specs, nsims))
		MPI_Abort(MPI_COMM_WORLD, 1); /* process 0 opened them: not this one */
	struct vts_spool spool;
	struct vts_replay_result res;
	vts_spool_init(&spool, tr.nlocations);
	par.dist = true;
	vts_replay(path, &tr, ss.sims, ss.n, NULL, NULL, &spool, &res);
	par.dist = false;
	vts_result_free(&res);
	vts_spool_free(&spool);
	vts_sims_close(&ss);
	vtr_close(&tr);
	free(specs);
	free(buf);
}

/* ---- the readers ---- */

/* The share of reader j of n: contiguous locations, about as many events each. */
static bool *share_of(const struct vtr_trace *tr, uint32_t j, uint32_t n)
{
	bool *only = vtr_xcalloc(tr->nlocations + 1, sizeof(bool));
	uint64_t total = 0, acc = 0;
	for (size_t i = 0; i < tr->nlocations; i++)
		total += tr->locations[i].events;
	for (size_t i = 0; i < tr->nlocations; i++) {
		uint64_t mid = acc + tr->locations[i].events / 2;
		uint32_t owner = total ? (uint32_t)((unsigned __int128)mid * n / total)
				       : (uint32_t)(i * n / tr->nlocations);
		only[i] = (owner < n ? owner : n - 1) == j;
		acc += tr->locations[i].events;
	}
	return only;
}

struct reader {
	struct vtr_trace *tr;
	struct vts_prec *buf[2];
	size_t n, cur;
	MPI_Request send, stop;
	int stop_msg;
};

static void send_chunk(struct reader *rd, int tag, size_t bytes)
{
	MPI_Status st;
	wait_for(&rd->send, &st); /* the other buffer's send */
	MPI_Isend(rd->buf[rd->cur], (int)bytes, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rd->send);
	rd->cur ^= 1;
	rd->n = 0;
	int stopped = 0;
	if (tag == TAG_DATA && !rd->tr->stop) {
		MPI_Test(&rd->stop, &stopped, &st);
		if (stopped) { /* process 0 needs no more: the reading ends */
			rd->stop = MPI_REQUEST_NULL;
			vtr_stop(rd->tr);
		}
	}
}

static void on_record(void *user, const struct vtr_location *loc, const struct vtr_record *r)
{
	struct reader *rd = user;
	if (rd->n + 1 + VTS_EXT_SLOTS > CHUNK)
		send_chunk(rd, TAG_DATA, rd->n * sizeof(struct vts_prec));
	rd->n += vts_pack(&rd->buf[rd->cur][rd->n], loc, r);
}

/* One replay's reading of reader j of n, its records to process 0. */
static void read_share(const char *path, uint32_t j, uint32_t n)
{
	struct vtr_trace tr;
	struct reader rd = {.tr = &tr, .send = MPI_REQUEST_NULL};
	size_t size = CHUNK * sizeof(struct vts_prec) + sizeof(struct tail);
	rd.buf[0] = vtr_xcalloc(size, 1);
	rd.buf[1] = vtr_xcalloc(size, 1);
	MPI_Irecv(&rd.stop_msg, 1, MPI_INT, 0, TAG_STOP, MPI_COMM_WORLD, &rd.stop);
	struct tail end = {0};
	bool *only = NULL;
	if (vtr_open(&tr, path) < 0) {
		end.rc = -1;
		snprintf(end.err, sizeof(end.err), "%s", tr.err);
	} else {
		only = share_of(&tr, j, n);
		tr.only = only;
		tr.no_match = true;
		const struct vtr_callbacks cb = {.record = on_record};
		end.rc = vtr_read_merged(&tr, &cb, &rd);
		if (end.rc < 0)
			snprintf(end.err, sizeof(end.err), "%s", tr.err);
		vtr_close(&tr);
	}
	size_t bytes = rd.n * sizeof(struct vts_prec);
	memcpy((char *)rd.buf[rd.cur] + bytes, &end, sizeof(end));
	send_chunk(&rd, TAG_END, bytes + sizeof(end));
	MPI_Status st;
	wait_for(&rd.send, &st);
	wait_for(&rd.stop, &st); /* process 0 says it is done with this replay */
	free(rd.buf[0]);
	free(rd.buf[1]);
	free(only);
}

/* A reader's life: replays until process 0 says it is done; its exit status. */
static int serve(uint32_t me, uint32_t nprocs)
{
	vtr_progress_setup(true); /* process 0 alone speaks */
	struct cmd *c = vtr_xcalloc(1, sizeof(*c));
	for (;;) {
		MPI_Request r;
		MPI_Status st;
		MPI_Ibcast(c, sizeof(*c), MPI_BYTE, 0, MPI_COMM_WORLD, &r);
		wait_for(&r, &st);
		if (c->op == CMD_DREPLAY) {
			dist_replay(c->path, c->rc);
			continue;
		}
		if (c->op != CMD_REPLAY)
			break;
		read_share(c->path, me - 1, nprocs - 1);
	}
	int rc = c->rc;
	free(c);
	return rc;
}

/* ---- process 0: the merge, the matching ---- */

/* A command to the readers (a non-blocking broadcast, as they wait for it); freed. */
static void command(struct cmd *c)
{
	MPI_Request r;
	MPI_Ibcast(c, sizeof(*c), MPI_BYTE, 0, MPI_COMM_WORLD, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	free(c);
}

struct source {
	struct vts_prec *buf[2];
	size_t pos, len, cur;
	MPI_Request req; /* the next chunk, into buf[cur ^ 1] */
	bool ended;	 /* its last chunk is buf[cur] */
	struct tail end;
};

static size_t chunk_bytes(void)
{
	return CHUNK * sizeof(struct vts_prec) + sizeof(struct tail);
}

static void post(struct source *s, int j, int into)
{
	MPI_Irecv(s->buf[into], (int)chunk_bytes(), MPI_BYTE, j, MPI_ANY_TAG, MPI_COMM_WORLD,
		  &s->req);
}

/* The next chunk of reader j in s->buf[cur ^ 1]: waited for, made current. False: none. */
static bool next_chunk(struct source *s, int j)
{
	if (s->ended)
		return false;
	MPI_Status st;
	wait_for(&s->req, &st);
	int bytes = 0;
	MPI_Get_count(&st, MPI_BYTE, &bytes);
	s->cur ^= 1;
	s->pos = 0;
	if (st.MPI_TAG == TAG_END) {
		s->ended = true;
		bytes -= (int)sizeof(struct tail);
		memcpy(&s->end, (char *)s->buf[s->cur] + bytes, sizeof(s->end));
	} else {
		post(s, j, (int)(s->cur ^ 1));
	}
	s->len = (size_t)bytes / sizeof(struct vts_prec);
	return true;
}

/* The replay's reading at process 0: vtr_read_merged's for a record callback alone. */
int vts_read_merged(const char *input, struct vtr_trace *tr, const struct vtr_callbacks *cb,
		    void *user)
{
	int nprocs;
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (nprocs == 1)
		return vtr_read_merged(tr, cb, user);
	struct cmd *c = vtr_xcalloc(1, sizeof(*c));
	c->op = CMD_REPLAY;
	snprintf(c->path, sizeof(c->path), "%s", input);
	command(c);
	int nsrc = nprocs - 1;
	struct source *src = vtr_xcalloc((size_t)nsrc, sizeof(*src));
	for (int j = 0; j < nsrc; j++) {
		src[j].buf[0] = vtr_xcalloc(chunk_bytes(), 1);
		src[j].buf[1] = vtr_xcalloc(chunk_bytes(), 1);
		src[j].cur = 1;
		post(&src[j], j + 1, 0);
		next_chunk(&src[j], j + 1);
	}
	struct vts_pmatch mt;
	vts_pmatch_init(&mt);
	tr->stop = false;
	bool stopped = false;
	for (;;) {
		/* The earliest head (ties: the lower reader, each reader's own order kept). */
		int best = -1;
		for (int j = 0; j < nsrc; j++) {
			struct source *s = &src[j];
			while (s->pos == s->len && next_chunk(s, j + 1))
				;
			if (s->pos < s->len &&
			    (best < 0 || s->buf[s->cur][s->pos].time <
					     src[best].buf[src[best].cur][src[best].pos].time))
				best = j;
		}
		if (best < 0)
			break;
		struct source *s = &src[best];
		if (!stopped)
			vts_pmatch_deliver(&mt, tr, cb, user, &s->buf[s->cur][s->pos]);
		s->pos += s->buf[s->cur][s->pos].nslots;
		if (tr->stop && !stopped) {
			/* The readers stop at their next chunk; what they sent meanwhile goes. */
			stopped = true;
			for (int j = 0; j < nsrc; j++)
				MPI_Send(&j, 1, MPI_INT, j + 1, TAG_STOP, MPI_COMM_WORLD);
		}
	}
	int rc = stopped ? 1 : 0;
	for (int j = 0; j < nsrc; j++) {
		if (!stopped)
			MPI_Send(&j, 1, MPI_INT, j + 1, TAG_STOP, MPI_COMM_WORLD);
		if (src[j].end.rc < 0 && rc >= 0) {
			rc = -1;
			snprintf(tr->err, sizeof(tr->err), "%s", src[j].end.err);
		}
		free(src[j].buf[0]);
		free(src[j].buf[1]);
	}
	free(src);
	vts_pmatch_free(&mt);
	tr->stop = false;
	return rc;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, nprocs;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	int rc;
	if (me) {
		par.worker = true;
		rc = serve((uint32_t)me, (uint32_t)nprocs);
	} else {
		rc = vts_main(argc, argv);
		fflush(stdout);
		if (nprocs > 1) {
			struct cmd *c = vtr_xcalloc(1, sizeof(*c));
			c->op = CMD_DONE;
			c->rc = rc;
			command(c);
		}
	}
	MPI_Finalize();
	return rc;
}
