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
 * reading, the output trace's writing after the readers' path); the others wait for its next
 * command without spinning. After a split replay every process writes its own locations'
 * event files (below, "the split writing").
 */
#include "parmatch.h"
#include "replay.h"
#include "vtr_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* After the last chunk's records: how the reading ended (0, -1 with err, 1 stopped). */
struct tail {
	int32_t rc, pad;
	char err[sizeof(((struct vtr_trace *)0)->err)];
};

enum { TAG_DATA = 1, TAG_END, TAG_STOP, TAG_WROTE = 21 };
enum { CMD_REPLAY = 1, CMD_DONE, CMD_DREPLAY, CMD_WRITE, CMD_SKIP };
#define CHUNK 49152 /* slots per chunk: 1.1 MiB */

struct cmd {
	int32_t op, rc;
	int32_t write, pad; /* CMD_DREPLAY: the new times stay where they were replayed */
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

/* This process: a worker (not process 0), whether its replay is a distributed one; the split
 * writing: wanted for the next replay (process 0), the replay's new times kept where they were
 * replayed, a write command to come after the replay (parwrite below). */
static struct {
	bool worker, dist, want, keep, pending;
	unsigned writers; /* of the last split writing (-v) */
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
	c->write = par.keep = par.want;
	par.want = false;
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

static void write_share(const char *path, struct vtr_trace *tr, struct vts_spool *spool);

/* A worker's part of a distributed replay: the same trace and simulators as process 0's; and
 * of its writing, if process 0 writes an output. */
static void dist_replay(const char *path, int nsims, bool write)
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
	par.keep = write;
	vts_replay(path, &tr, ss.sims, ss.n, NULL, NULL, &spool, &res);
	par.dist = false;
	if (par.pending)
		write_share(path, &tr, &spool);
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
			dist_replay(c->path, c->rc, c->write);
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

/* ---- the split writing: each process its locations' event files ---- */

/*
 * After a split replay every process holds the new times of its locations; with -o each
 * writes their event files into an archive of its own (DIR/.pN, beside process 0's in the
 * output's temporary folder: libotf2 encodes a location's event file alone, so the bytes are
 * vt-sim's), process 0 the definitions, the markers and its own event files. Once every
 * process has closed its archive and said how it went, process 0 moves their event files into
 * its archive's folder; main.c then renames the whole as vt-sim does, or removes it all.
 */

/* What a process says when its locations are written, followed by its markers' new times. */
struct wrote {
	int32_t rc, pad;
	char err[VTS_ERR];
};

struct wcmd {
	int32_t op, pad;
	uint64_t new_length;
	char dir[PATH_MAX], name[PATH_MAX];
};

/* A failure's line into err (cut at VTS_ERR). */
static void line(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(char *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, VTS_ERR, fmt, ap);
	va_end(ap);
}

void vts_par_want_split_write(void)
{
	par.want = true;
}

bool vts_par_keep_times(bool ok)
{
	bool keep = par.keep;
	par.pending = keep && ok;
	par.keep = false;
	return keep;
}

/* A worker: its locations written, how it went and its markers' times sent to process 0. */
static int worker_gather(const struct vts_share *sh, int result, char err[VTS_ERR], uint64_t *times,
			 const size_t *locs, size_t nmarks)
{
	size_t n = 0;
	for (size_t i = 0; i < nmarks; i++)
		n += sh->owner[locs[i]] == sh->me;
	struct wrote *w = vtr_xcalloc(1, sizeof(*w) + n * sizeof(uint64_t));
	uint64_t *t = (uint64_t *)(w + 1);
	w->rc = result;
	if (result < 0)
		snprintf(w->err, sizeof(w->err), "%s", err);
	for (size_t i = 0, k = 0; i < nmarks; i++)
		if (sh->owner[locs[i]] == sh->me)
			t[k++] = times[i];
	MPI_Request r;
	MPI_Status st;
	MPI_Isend(w, (int)(sizeof(*w) + n * sizeof(uint64_t)), MPI_BYTE, 0, TAG_WROTE,
		  MPI_COMM_WORLD, &r);
	wait_for(&r, &st);
	free(w);
	return result;
}

/* A worker's share of the writing, when process 0 says (or that there is none). */
static void write_share(const char *path, struct vtr_trace *tr, struct vts_spool *spool)
{
	par.pending = false;
	struct wcmd *c = vtr_xcalloc(1, sizeof(*c));
	MPI_Request r;
	MPI_Status st;
	MPI_Ibcast(c, sizeof(*c), MPI_BYTE, 0, MPI_COMM_WORLD, &r);
	wait_for(&r, &st);
	if (c->op == CMD_WRITE) {
		int me, np;
		MPI_Comm_rank(MPI_COMM_WORLD, &me);
		MPI_Comm_size(MPI_COMM_WORLD, &np);
		struct vts_share sh = {.owner = vts_dist_owners(tr, (uint32_t)np),
				       .me = (uint32_t)me,
				       .gather = worker_gather,
				       .dir = c->dir,
				       .name = c->name};
		char own[PATH_MAX + 32];
		snprintf(own, sizeof(own), "%s/.p%d", c->dir, me);
		if (mkdir(own, 0700) != 0) {
			char err[VTS_ERR];
			line(err, "cannot create a temporary directory in %s: %s", c->dir,
			     strerror(errno));
			worker_gather(&sh, -1, err, NULL, NULL, 0);
		} else {
			char err[VTS_ERR];
			vts_write(path, tr, spool, c->new_length, own, c->name, &sh, err);
		}
		free((void *)sh.owner);
	}
	free(c);
}

/* Process 0: its locations written; the others' results, markers' times and event files. */
static int root_gather(const struct vts_share *sh, int result, char err[VTS_ERR], uint64_t *times,
		       const size_t *locs, size_t nmarks)
{
	int np;
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	for (int p = 1; p < np; p++) {
		MPI_Status st;
		int flag = 0, bytes = 0;
		for (MPI_Iprobe(p, TAG_WROTE, MPI_COMM_WORLD, &flag, &st); !flag;
		     MPI_Iprobe(p, TAG_WROTE, MPI_COMM_WORLD, &flag, &st))
			nap();
		MPI_Get_count(&st, MPI_BYTE, &bytes);
		struct wrote *w = vtr_xcalloc((size_t)bytes + sizeof(*w), 1);
		MPI_Recv(w, bytes, MPI_BYTE, p, TAG_WROTE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		size_t n = ((size_t)bytes - sizeof(*w)) / sizeof(uint64_t), k = 0;
		const uint64_t *t = (const uint64_t *)(w + 1);
		if (w->rc < 0 && result == 0) {
			result = -1;
			snprintf(err, VTS_ERR, "%s", w->err);
		}
		for (size_t i = 0; i < nmarks && w->rc == 0; i++)
			if (sh->owner[locs[i]] == (uint32_t)p && k < n)
				times[i] = t[k++];
		free(w);
	}
	if (result < 0)
		return result;
	/* Every process's event files into the output's folder. */
	const struct vtr_trace *tr = sh->tr;
	for (size_t i = 0; i < tr->nlocations && result == 0; i++) {
		uint32_t p = sh->owner[i];
		if (p == 0)
			continue;
		char from[2 * PATH_MAX + 64], to[2 * PATH_MAX + 64];
		snprintf(from, sizeof(from), "%s/.p%u/%s", sh->dir, p, sh->name);
		struct stat sb;
		if (stat(from, &sb) != 0) { /* not on this machine's file system */
			line(err,
			     "%s: process %u's event files are not there: the processes must "
			     "share the output's file system",
			     from, p);
			return -1;
		}
		snprintf(from, sizeof(from), "%s/.p%u/%s/%" PRIu64 ".evt", sh->dir, p, sh->name,
			 tr->locations[i].id);
		snprintf(to, sizeof(to), "%s/%s/%" PRIu64 ".evt", sh->dir, sh->name,
			 tr->locations[i].id);
		/* (libotf2 writes a file for every event writer, one without events too: a file
		 * missing is one lost) */
		if (rename(from, to) != 0) {
			line(err, "%s: cannot move process %u's events in place: %s", to, p,
			     strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void write_command(int op, uint64_t new_length, const char *dir, const char *name)
{
	struct wcmd *c = vtr_xcalloc(1, sizeof(*c));
	c->op = op;
	c->new_length = new_length;
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	snprintf(c->name, sizeof(c->name), "%s", name);
	MPI_Request r;
	MPI_Ibcast(c, sizeof(*c), MPI_BYTE, 0, MPI_COMM_WORLD, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	free(c);
}

int vts_par_write(const char *input, struct vtr_trace *tr, struct vts_spool *spool,
		  uint64_t new_length, const char *dir, const char *name, char err[VTS_ERR])
{
	par.want = false;
	if (!par.pending)
		return vts_write(input, tr, spool, new_length, dir, name, NULL, err);
	par.pending = false;
	int np;
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	par.writers = (unsigned)np;
	write_command(CMD_WRITE, new_length, dir, name);
	struct vts_share sh = {.owner = vts_dist_owners(tr, (uint32_t)np),
			       .me = 0,
			       .gather = root_gather,
			       .dir = dir,
			       .name = name,
			       .tr = tr};
	int rc = vts_write(input, tr, spool, new_length, dir, name, &sh, err);
	free((void *)sh.owner);
	return rc;
}

unsigned vts_par_writers(void)
{
	return par.writers;
}

void vts_par_skip(void)
{
	par.want = false;
	if (par.pending)
		write_command(CMD_SKIP, 0, "", "");
	par.pending = false;
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
