/* SPDX-License-Identifier: BSD-3-Clause */
/* What the parts of vt-sim share: the loaded simulators, the replay, the spool of new times. */
#ifndef VTS_H
#define VTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vt/vt_sim.h"
#include "vtr.h"

/* One simulator given with -s. */
struct vts_sim {
	const char *spec; /* as given */
	char *name, *path;
	char **params;
	int nparams;
	void *handle, *state;
	const struct vt_sim_plugin *p;
	struct vt_sim_context ctx;
};

/*
 * The new times of every location's events, in the location's order, as the replay decides
 * them: kept in chunks of a temporary file, so that memory does not grow with the trace.
 */
struct vts_spool {
	FILE *file;
	uint64_t *buf; /* per location: the chunk being filled */
	uint32_t *nbuf;
	uint64_t **chunks; /* per location: file offsets of its full chunks */
	size_t *nchunks, *capchunks;
	/* reading back, per location */
	uint64_t *rbuf;
	size_t rpos, rlen, rchunk;
	uint64_t rcount;
	size_t nlocations;
};
#define VTS_CHUNK 2048

void vts_spool_init(struct vts_spool *s, size_t nlocations);
void vts_spool_put(struct vts_spool *s, size_t loc, uint64_t t);
void vts_spool_finish(struct vts_spool *s);
/* Reading back one location: start, then next() per event. */
void vts_spool_rewind(struct vts_spool *s, size_t loc);
bool vts_spool_next(struct vts_spool *s, size_t loc, uint64_t *t);
void vts_spool_free(struct vts_spool *s);

/* Per region and per location, before and after: for the summary. */
struct vts_totals {
	double *region_excl; /* [nregions] exclusive ticks */
	double *loc_busy;    /* [nlocations] ticks outside MPI */
	double *loc_mpi;     /* [nlocations] ticks in MPI */
	uint64_t first, last;
	bool any;
};

struct vts_replay_result {
	struct vts_totals before, after;
	uint64_t events, messages, collectives, metrics;
	uint64_t new_length; /* of the output's clock */
	uint64_t cut;	     /* ticks the cuts took out of the locations' gaps */
	size_t max_open_messages, max_queued;
	uint32_t procs; /* vt-sim-mpi: the processes the replay was split over (0: not split) */
};

/* The totals' arrays of a replay's result freed (stream.c). */
void vts_result_free(struct vts_replay_result *res);

/* A gap of a location's replay made shorter (vt-sim --explain-waits): the time between the
 * event at original time o (the first at or after o) and the one before it, by amount at
 * most. */
struct vts_cut {
	uint64_t o, amount;
};

/* Pass 1: replays in causal order through the simulators, spooling the new times; cuts (NULL:
 * none): per location, its gaps to shorten in ascending o (ncuts of them). 0, or -1 after
 * printing one line. */
int vts_replay(const char *input, struct vtr_trace *tr, struct vts_sim *sims, int nsims,
	       const struct vts_cut *const *cuts, const size_t *ncuts, struct vts_spool *spool,
	       struct vts_replay_result *res);

/* The length of a failure's line kept for later. */
#define VTS_ERR 512

/*
 * vt-sim-mpi's split writing (par.c): process me writes the event files of the locations it
 * owns (owner[i], per location) into an archive of its own, process 0 the definitions, the
 * markers and its own locations' event files into the output. gather: called once at every
 * process when its locations are written (result 0, or -1 with err, a line), with the
 * markers' new times (in the marker file's order sorted by location and time; times[i] is
 * set where the owner of locs[i] is me); at process 0 it waits for the others, fills in
 * their markers' times, moves their files into dir/name and returns the result of all, with
 * err the first failure's cause.
 */
struct vts_share {
	const uint32_t *owner;
	uint32_t me;
	int (*gather)(const struct vts_share *sh, int result, char err[VTS_ERR], uint64_t *times,
		      const size_t *locs, size_t nmarks);
	const char *dir, *name;	    /* the output's (process 0's) */
	const struct vtr_trace *tr; /* process 0's */
};

/* Pass 2: writes out (a directory and archive name) with every definition of input and every
 * event at its spooled time; sh: vt-sim-mpi's share of that (NULL: all). 0, or -1 with err
 * the cause (at process 0 the first process's to fail), for the caller's one line. */
int vts_write(const char *input, struct vtr_trace *tr, struct vts_spool *spool, uint64_t new_length,
	      const char *dir, const char *name, const struct vts_share *sh, char err[VTS_ERR]);

/* Calls into simulator sim outside the replay (create, destroy): a crash inside is reported
 * naming it and the call; NULL ends the guard. */
void vts_guard(const char *sim, const char *call);
/* The replay's guard: on for the trace tr, off with NULL; between them, each simulator call is
 * announced (sim, call, the event's location, region and time) and ended (sim NULL). */
void vts_guard_replay(const struct vtr_trace *tr);
void vts_guard_call(const char *sim, const char *call, uint32_t loc, uint32_t region,
		    uint64_t time);

/* --explain-waits: per wait-state pattern, the run's length replayed with the delaying
 * computation balanced (explain.c), as text or JSON on out. 0, or 1 after printing one line. */
int vts_explain(const char *in, struct vtr_trace *tr, bool json, FILE *out);

/* The region classes of the context (enum vt_sim_class per region id). */
uint32_t *vts_classify(const struct vtr_trace *tr);

/* The simulators of -s SPEC..., loaded and created for trace tr of file in (main.c): 0, or 1
 * after printing one line; closed (destroyed) in any case. */
struct vts_simset {
	struct vts_sim *sims;
	int n;
	uint32_t *cls;
	const char **func_names, **comm_names, **thread_names;
};
int vts_sims_open(struct vts_simset *ss, const char *in, const struct vtr_trace *tr,
		  const char *const *specs, int nspecs);
void vts_sims_close(struct vts_simset *ss);

/* vt-sim-mpi (par.c): the replay's merged reading of input, for a record callback alone: on
 * N > 1 processes the other N-1 read it and this process (0) merges and matches their records;
 * vtr_read_merged on one. */
int vts_read_merged(const char *input, struct vtr_trace *tr, const struct vtr_callbacks *cb,
		    void *user);
/* vt-sim-mpi's split writing (par.c), at process 0: want: the next replay, if split, keeps
 * each location's new times where it was replayed; write: vts_write, split over the
 * processes if that replay was; skip: no output after all (mkdtemp failed). */
void vts_par_want_split_write(void);
int vts_par_write(const char *input, struct vtr_trace *tr, struct vts_spool *spool,
		  uint64_t new_length, const char *dir, const char *name, char err[VTS_ERR]);
void vts_par_skip(void);
/* How many processes wrote the last output's event files (0: process 0 alone, unsplit). */
unsigned vts_par_writers(void);
/* At the end of a split replay, at every process (ok: it succeeded everywhere): whether its
 * new times stay where they were replayed (a split writing follows if ok). */
bool vts_par_keep_times(bool ok);
/* vt-sim's main, which vt-sim-mpi's runs on process 0. */
int vts_main(int argc, char **argv);

extern const char *const vts_prog;

#endif
